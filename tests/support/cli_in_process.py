"""Run a memctl command in this process (Typer's CliRunner) and get what ``subprocess.run`` would give.

A test that checks a command's output, exit code or files, not the process around it (start-up, signals, exit
hooks, the console script), runs it here: about 1 s less per call than ``python -m memctl`` (the interpreter and
memctl's imports), and the cost that made many CLI tests slow. The same app object and error boundary
(memctl/cli/boundary.py) run as for the console script; :func:`memctl.cli.main.main`'s early ``os._exit`` after
Cognee is left out (it would end pytest), so a command that imports Cognee still belongs in a subprocess.

Source of the approach: Click's testing documentation ("CliRunner ... invokes the command in an isolated
environment"): ``env`` is applied to ``os.environ`` for the call and restored after.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner


def run_cli(*args: str, env: dict[str, str | None] | None = None, input: str | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``memctl *args`` in-process; returns ``CompletedProcess(args, returncode, stdout, stderr)`` as text.

    ``env`` entries are set for the call, a ``None`` value removes the variable. ``input`` is standard input
    (``None``: empty); ``cwd`` the working directory for the call (restored after). Stdout, stderr and stdin are not terminals, as with ``capture_output=True``; stdout and
    stderr are captured apart. An exception the boundary does not turn into an exit code is re-raised (a
    subprocess would print its traceback and exit 1).
    """
    result = _invoke(args, env, input, cwd)
    return subprocess.CompletedProcess(["memctl", *args], result.exit_code, result.stdout, result.stderr)


def _invoke(args: tuple[str, ...], env: dict[str, str | None] | None, input: str | bytes | None,
            cwd: Path | None) -> Result:
    """Click's result of ``memctl *args`` run by CliRunner in ``cwd``; an exception no exit code stands for is
    re-raised."""
    from memctl.cli.main import app

    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args), env=env or {}, input=input, catch_exceptions=True)
    finally:
        os.chdir(before)
        # A command on the embedded backend started its loopback endpoint for "the run"; a process would end
        # here and close it. Left attached, the next test's attach() got this one, with this test's home.
        endpoint = sys.modules.get("memctl.embedded.endpoint")
        if endpoint is not None:
            endpoint.detach()
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def run_cli_bytes(*args: str, env: dict[str, str | None] | None = None, input: str | bytes | None = None,
                  cwd: Path | None = None) -> subprocess.CompletedProcess:
    """As :func:`run_cli`, but as ``subprocess.run(..., capture_output=True)`` without ``text``: ``stdout`` and
    ``stderr`` are ``bytes`` (what the command wrote, undecoded), and ``input`` may be bytes (standard input read
    through ``typer.get_binary_stream("stdin")`` gets them unchanged: bytes that are not UTF-8 reach the command).

    Output written past Click's streams (to file descriptors 1 and 2, or to a stream object kept from before the
    call) is not in the result: a test that must see every byte a command could print also reads ``capfd``.
    """
    result = _invoke(args, env, input, cwd)
    return subprocess.CompletedProcess(["memctl", *args], result.exit_code, result.stdout_bytes, result.stderr_bytes)
