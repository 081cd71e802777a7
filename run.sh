#!/usr/bin/env bash
# Quick start, command 1: set up .venv (pinned by constraints.txt) and run the main job.
# With no arguments: a dry-run ingest over the bundled sample OpenCode database
# (connector + normalize + scrub + sample + plan; no model, nothing written).
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
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e .
  touch .venv/.installed-run
fi
if [ "$#" -eq 0 ]; then
  # Work on a copy: even a read-only SQLite reader may touch the -shm of a WAL database.
  sample="$(mktemp -d)"
  trap 'rm -rf "$sample"' EXIT
  cp tests/fixtures/opencode-1.18/opencode.db* "$sample"/
  set -- --dry-run --db "$sample/opencode.db"
fi
exec .venv/bin/memctl ingest "$@"
