"""Run `memctl` in a child process that SIGKILLs itself at a named step of a forget or purge.

``point`` is ``journal=<command>:<step>`` (after a step of :mod:`memctl.forget.journal` is recorded)
or ``store=<step>`` (the first time the store reaches a step of :mod:`memctl.store.steps`, e.g.
``write``: after a change or purge record is applied).
"""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import os, signal, sys
from memctl.forget import journal
from memctl.store import steps
kind, _, name = sys.argv[1].partition("=")
def die(step):
    if step == name:
        os.kill(os.getpid(), signal.SIGKILL)
if kind == "journal":
    journal.reached = die
else:
    steps.reached = die
from memctl.cli.main import app
app(sys.argv[2:], prog_name="memctl")
"""


def run_killed(point: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """``memctl *args`` killed at ``point``; the caller asserts ``returncode == -9``."""
    return subprocess.run([sys.executable, "-c", CHILD, point, *args], env=env, capture_output=True, text=True,
                          timeout=600)
