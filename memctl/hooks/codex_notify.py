"""Codex's ``notify`` program for memctl: ingest the thread that just finished a turn, without slowing Codex.

Also the runner of OpenCode's plugin (:mod:`memctl.hooks.opencode`): ``--source opencode --session ID`` names the
session that went idle instead of a payload; the same detached, bounded runner then ingests it with
``--source opencode`` (log: ``<home>/logs/hooks/opencode-idle.log``; ID: ``ses_`` and letters/digits, else exit 2).

Installed by :mod:`memctl.hooks.codex` as ``notify = [<python>, "-m",
"memctl.hooks.codex_notify", "--home", DIR, …]``. Codex appends one argument,
a JSON object whose ``type`` is ``agent-turn-complete`` and whose
``thread-id`` is the rollout's uuid (Codex ``docs/config.md``, ``notify``).

``python -m memctl.hooks.codex_notify [--home DIR] [--env NAME=VALUE …] [--then JSON] [--ingest JSON] PAYLOAD``
returns at once: it starts a detached runner (its own session, stdin closed,
output appended to ``<home>/logs/hooks/codex-notify.log``) and, with
``--then``, the program that was Codex's ``notify`` before memctl (a JSON
argv, given the same payload). Exit codes: 0 (runner started, or a payload
of another type ignored), 2 (no payload, not JSON, or a thread id that is no
uuid: one line on stderr).

The runner (``--run THREAD_ID``) keeps the work bounded: at most one runner
per thread waits (a second notification while one is queued ends at once,
the queued one reads the newer rollout anyway), it waits for the data home's
lock (one ingest or sleep at a time) at most :data:`MAX_WAIT_S`, then runs
``memctl ingest --source codex --session <id> --wait`` (``--ingest``: another
argv, ``{session}`` replaced; used by tests) for at most :data:`MAX_RUN_S`, with
each ``--env`` variable set (memctl's settings as they were at install:
Codex's own environment may lack ``OLLAMA_HOST``) and ``MEMCTL_SETTLE_MINUTES=0``
unless ``--env`` sets it: the turn that was just notified is written whole, so
it is not left to settle (a later turn is read as a continuation).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["BAD_PAYLOAD", "MAX_RUN_S", "MAX_WAIT_S", "SOURCES", "ingest_argv", "log_file", "main", "thread_id"]

BAD_PAYLOAD = 2
MAX_WAIT_S = 1800.0
MAX_RUN_S = 3600.0
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_OPENCODE_ID = re.compile(r"^ses_[0-9A-Za-z]{6,64}$")  # OpenCode's session ids: ses_ + an ascending base62 id
SOURCES = {"codex": ("codex-notify.log", _UUID), "opencode": ("opencode-idle.log", _OPENCODE_ID)}


class _Home:
    """The two data-home paths used here, as :class:`memctl.config.DataHome` names them (``logs``,
    ``lock_file``; a test keeps them equal). Not imported from there: that module loads pydantic and
    httpx, and Codex waits for this program to start."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).expanduser().absolute()
        self.logs = self.root / "logs"
        self.lock_file = self.root / ".memctl.lock"



def log_file(home: _Home, source: str = "codex") -> Path:
    """``<home>/logs/hooks/codex-notify.log`` (``opencode-idle.log`` for OpenCode): the runner's output, appended."""
    return home.logs / "hooks" / SOURCES[source][0]


def thread_id(payload: str) -> str | None:
    """The thread id of an ``agent-turn-complete`` payload; None for another type.

    Raises:
        ValueError: not a JSON object, or its thread id is not a uuid.
    """
    data = json.loads(payload)
    if not isinstance(data, dict):
        raise ValueError("the notify payload is not a JSON object")
    if data.get("type") != "agent-turn-complete":
        return None
    value = data.get("thread-id", data.get("thread_id"))
    if not isinstance(value, str) or not _UUID.match(value):
        raise ValueError(f"thread id {value!r} is not a uuid")
    return value.lower()


def ingest_argv(session: str, home: _Home, template: list[str] | None = None, source: str = "codex") -> list[str]:
    """The ingest command for ``session``: ``template`` with ``{session}`` replaced, or memctl's own."""
    if template:
        return [part.replace("{session}", session) for part in template]
    return [sys.executable, "-m", "memctl.cli", "ingest", "--source", source, "--session", session, "--wait",
            "--home", str(home.root)]


def _log(home: _Home, line: str, source: str = "codex") -> None:
    path = log_file(home, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{datetime.now(timezone.utc).isoformat(timespec='seconds')} {line}\n")


def _detach(argv: list[str], home: _Home, source: str = "codex") -> None:
    path = log_file(home, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as out:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
                         close_fds=True)


def _run(session: str, home: _Home, template: list[str] | None, extra: dict[str, str] | None = None,
         source: str = "codex") -> int:
    pending = FileLock(str(home.logs / "hooks" / f"{source}-{session}.pending"))
    what = "thread" if source == "codex" else "session"
    try:
        pending.acquire(timeout=0)
    except Timeout:
        _log(home, f"{what} {session}: an ingest is already queued", source)
        return 0
    try:
        try:
            with FileLock(str(home.lock_file), timeout=MAX_WAIT_S):
                pass  # free now: start right away (the ingest takes the lock itself)
        except Timeout:
            _log(home, f"{what} {session}: the data home stayed locked for {MAX_WAIT_S:.0f} s; not ingested", source)
            return 0
    finally:
        pending.release()
    argv = ingest_argv(session, home, template, source)
    _log(home, f"{what} {session}: {' '.join(argv)}", source)
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, timeout=MAX_RUN_S, check=False,
                              env={**os.environ, "MEMCTL_SETTLE_MINUTES": "0", **(extra or {})})
    except subprocess.TimeoutExpired:
        _log(home, f"{what} {session}: ingest stopped after {MAX_RUN_S:.0f} s", source)
        return 0
    _log(home, f"{what} {session}: ingest exit {done.returncode}", source)
    return done.returncode


def _variable(item: str) -> tuple[str, str]:
    """``NAME=VALUE`` of ``--env`` → (name, value). Raises ValueError for another shape."""
    name, found, value = item.partition("=")
    if not found or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"--env {item!r} is not NAME=VALUE")
    return name, value


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module doc for arguments and exit codes)."""
    ap = argparse.ArgumentParser(prog="python -m memctl.hooks.codex_notify", description=__doc__.splitlines()[0])
    ap.add_argument("--home", default=None)
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="a variable set for the ingest (repeatable)")
    ap.add_argument("--then", default=None, help="JSON argv of the notify program to run after memctl's")
    ap.add_argument("--ingest", default=None, help="JSON argv replacing the ingest command ({session} replaced)")
    ap.add_argument("--source", default="codex", choices=sorted(SOURCES), help="whose session (default: codex)")
    ap.add_argument("--session", default=None, metavar="ID", help="the session to ingest, instead of a payload")
    ap.add_argument("--run", default=None, metavar="ID", help=argparse.SUPPRESS)
    ap.add_argument("payload", nargs="?")
    args = ap.parse_args(argv)
    home = _Home(Path(args.home or os.environ.get("MEMCTL_HOME") or "var"))
    pattern = SOURCES[args.source][1]
    try:
        template = json.loads(args.ingest) if args.ingest else None
        if template is not None and not (isinstance(template, list) and all(isinstance(v, str) for v in template)):
            raise ValueError("--ingest must be a JSON array of strings")
        extra = dict(_variable(item) for item in args.env)
        for given in (args.run, args.session):
            if given is not None and not pattern.match(given):
                raise ValueError(f"{args.source} session id {given!r} has the wrong shape")
        if args.run:
            return _run(args.run.lower() if args.source == "codex" else args.run, home, template, extra, args.source)
        if args.session is not None:
            session = args.session
        elif args.payload is None:
            raise ValueError("no notify payload (Codex passes a JSON object as the last argument)")
        else:
            session = thread_id(args.payload)
    except ValueError as exc:
        print(f"memctl {args.source} hook: {exc}", file=sys.stderr)
        return BAD_PAYLOAD
    if session is not None:
        runner = [sys.executable, "-m", __name__ if __name__ != "__main__" else "memctl.hooks.codex_notify",
                  "--home", str(home.root), "--source", args.source, "--run", session]
        for item in args.env:
            runner += ["--env", item]
        if args.ingest:
            runner += ["--ingest", args.ingest]
        _detach(runner, home, args.source)
    if args.then and args.payload is not None:
        try:
            previous = json.loads(args.then)
        except ValueError:
            previous = None
        if isinstance(previous, list) and previous and all(isinstance(v, str) for v in previous):
            _detach(previous + [args.payload], home)
    return 0


if __name__ == "__main__":
    sys.exit(main())
