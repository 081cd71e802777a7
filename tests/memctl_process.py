"""Run `memctl` as a real subprocess against a fake Ollama server (shared by the e2e tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parents[1]


def env_for(server: FakeOllama) -> dict[str, str]:
    """The environment of a memctl child: the fake server as OLLAMA_HOST, the repo importable, wide tables."""
    return {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO), "COLUMNS": "200"}


def run_memctl(server: FakeOllama, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python -m memctl.cli *args``; output captured as text."""
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], env=env_for(server), capture_output=True,
                          text=True, timeout=timeout)


def hold_lock(lock_path: Path, seconds: float) -> subprocess.Popen:
    """A child process holding ``lock_path`` (filelock) for ``seconds``; returns once it holds it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from filelock import FileLock; "
         f"l = FileLock({str(lock_path)!r}); l.acquire(); print('held', flush=True); time.sleep({seconds})"],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder
