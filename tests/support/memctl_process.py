"""Run `memctl` as a real subprocess against a fake Ollama server (shared by the e2e tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parents[2]


def env_for(server: FakeOllama) -> dict[str, str]:
    """The environment of a memctl child: the fake server as OLLAMA_HOST, the repo importable, wide tables."""
    return {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO), "COLUMNS": "200"}


def run_memctl(server: FakeOllama, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python -m memctl.cli *args``; output captured as text."""
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], env=env_for(server), capture_output=True,
                          text=True, timeout=timeout)


FIXTURE_118 = REPO / "tests" / "fixtures" / "opencode-1.18"


def ingest_fixture(base: Path, server: FakeOllama, fixture: Path = FIXTURE_118) -> Path:
    """Copy a fixture OpenCode DB under ``base`` and run a full `memctl ingest` into ``base/var``; returns the home."""
    import shutil

    source = base / "opencode"
    source.mkdir()
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        if (fixture / name).exists():
            shutil.copy2(fixture / name, source / name)
    home = base / "var"
    proc = run_memctl(server, "ingest", "--db", str(source / "opencode.db"), "--home", str(home), "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return home


def hold_lock(lock_path: Path, seconds: float) -> subprocess.Popen:
    """A child process holding ``lock_path`` (filelock) for ``seconds``; returns once it holds it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from filelock import FileLock; "
         f"l = FileLock({str(lock_path)!r}); l.acquire(); print('held', flush=True); time.sleep({seconds})"],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder
