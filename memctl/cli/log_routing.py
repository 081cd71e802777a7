"""Library output off the terminal: what Cognee, litellm, LanceDB, alembic and friends write goes to ``<home>/logs/``.

The terminal shows memctl's own lines only (they go through
:mod:`memctl.cli.terminal`); ``memctl --verbose`` shows the library lines
there too. Where library output comes from, and where it is caught while a
command runs (:func:`route` to :meth:`Routing.end`):

* ``print()`` and direct writes to ``sys.stdout``/``sys.stderr`` (Cognee's
  alembic migrations print "… table already exists, skipping creation";
  memctl's graph layer sends stdout to stderr around Cognee calls), Python
  warnings: both ``sys.stdout`` and ``sys.stderr`` are :class:`LibraryOutput`
  streams.
* stdlib ``logging`` (httpx, LanceDB, alembic, asyncio): a root handler at
  WARNING (INFO with ``--verbose``).
* structlog (Cognee, ``cognee/shared/logging_utils.py``): at import Cognee
  replaces the root handlers with its colour console renderer on
  ``sys.stderr`` — a :class:`LibraryOutput` by then — at ``LOG_LEVEL``
  (``--verbose`` sets ``LOG_LEVEL=INFO`` when unset). Cognee's own log file
  goes where the graph layer's ``COGNEE_LOGS_DIR`` says.

Each line is stripped of ANSI colour codes and appended to
``<home>/logs/library.log`` (rotating: 2 MB, 3 old files kept) with a
timestamp. The data home is known only once a command has read its settings
(:func:`attach`, from ``settings_from_flags`` at the start of every command
that loads a library), so routing starts there, after Click parsed the
command line (``--help`` still prints). The log directory is created at the
first line, so commands that load no library leave the data home untouched.
"""

from __future__ import annotations

import codecs
import io
import logging
import logging.handlers
import os
import re
import sys
import threading
from pathlib import Path
from typing import TextIO

LOG_FILE = "library.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUP_COUNT = 3
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FORMAT = logging.Formatter("%(asctime)s %(message)s")


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences (SGR colours, cursor moves, OSC titles/links; ECMA-48)."""
    return _ANSI.sub("", text)


class _Sink:
    """Where library lines go: the log file once attached (held in memory before), and the terminal with --verbose."""

    def __init__(self) -> None:
        self.verbose = False
        self.terminal = sys.stderr  # where --verbose shows the lines: the stderr the command started with
        self.log_dir: Path | None = None
        self.handler: logging.Handler | None = None
        self.lock = threading.RLock()
        self.local = threading.local()

    def line(self, text: str) -> None:
        """One line a library wrote (without its line break)."""
        if getattr(self.local, "busy", False):  # the file handler reporting its own failure: drop, never loop
            return
        self.local.busy = True
        try:
            clean = strip_ansi(text).rstrip()
            if not clean.strip():
                return
            if self.verbose:
                self.terminal.write((text.rstrip() if _isatty(self.terminal) else clean) + "\n")
                self.terminal.flush()
            with self.lock:
                if self.log_dir is not None:
                    self._write(clean)
        finally:
            self.local.busy = False

    def _write(self, clean: str) -> None:
        if self.handler is None:
            try:
                self.log_dir.mkdir(parents=True, exist_ok=True)  # type: ignore[union-attr]
                self.handler = logging.handlers.RotatingFileHandler(
                    self.log_dir / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8")  # type: ignore[operator]
            except OSError:
                self.log_dir = None  # not writable (a read-only home): the lines are dropped, never shown
                return
            self.handler.setFormatter(_FORMAT)
        self.handler.handle(logging.LogRecord("library", logging.INFO, __file__, 0, clean, None, None))

    def attach(self, log_dir: Path) -> None:
        with self.lock:
            if self.log_dir == log_dir:
                return
            self.close()
            self.log_dir = log_dir

    def close(self) -> None:
        with self.lock:
            if self.handler is not None:
                self.handler.close()
            self.handler, self.log_dir = None, None


_sink = _Sink()


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


class _LineWriter(io.BufferedIOBase):
    """The bytes under a :class:`LibraryOutput`: decoded as UTF-8, cut into lines at ``\\n`` or ``\\r``."""

    def __init__(self) -> None:
        super().__init__()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        *lines, self._partial = _LINE_BREAK.split(self._partial + self._decoder.decode(bytes(data)))
        for line in lines:
            _sink.line(line)
        return len(data)

    def close(self) -> None:
        if self._partial:
            _sink.line(self._partial)
            self._partial = ""
        super().close()


class LibraryOutput(io.TextIOWrapper):
    """A text stream (with a ``buffer`` for byte writers) whose every line goes to the library log.

    Not a terminal (``isatty()`` is False) and without a file descriptor, like
    any in-memory stream.
    """

    def __init__(self) -> None:
        super().__init__(_LineWriter(), encoding="utf-8", errors="replace", line_buffering=True, write_through=True)


class _LibraryLogHandler(logging.Handler):
    """The root handler for stdlib logging before Cognee replaces the root handlers."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            _sink.line(f"{record.levelname} {record.name}: {record.getMessage()}")
            if record.exc_info:
                for line in logging.Formatter().formatException(record.exc_info).splitlines():
                    _sink.line(line)
        except Exception:  # noqa: BLE001 - a logging handler must not raise
            self.handleError(record)


class Routing:
    """Library output routed to ``<home>/logs/`` for one command: started by :func:`attach`, ended by :meth:`end`."""

    def __init__(self, verbose: bool, stdout: TextIO, stderr: TextIO) -> None:
        self.verbose = verbose
        self.saved_streams = stdout, stderr
        self.env_set: list[str] = []
        self.handler = _LibraryLogHandler(logging.INFO if verbose else logging.WARNING)
        self.root_level = logging.getLogger().level
        self.started = False

    def start(self, log_dir: Path) -> None:
        _sink.attach(log_dir)
        if self.started:
            return
        self.started = True
        _sink.verbose, _sink.terminal = self.verbose, self.saved_streams[1]
        if self.verbose and "LOG_LEVEL" not in os.environ:  # read by Cognee at import (its handlers' level)
            os.environ["LOG_LEVEL"] = "INFO"
            self.env_set.append("LOG_LEVEL")
        root = logging.getLogger()
        for handler in [h for h in root.handlers if isinstance(h, _LibraryLogHandler)]:
            root.removeHandler(handler)
        root.addHandler(self.handler)
        if self.verbose and root.getEffectiveLevel() > logging.INFO:
            root.setLevel(logging.INFO)
        sys.stdout, sys.stderr = LibraryOutput(), LibraryOutput()

    def end(self) -> None:
        """Give ``sys.stdout``/``sys.stderr`` back and undo the environment and logging changes.

        Cognee's handlers (bound at its import to a :class:`LibraryOutput`) keep writing to the log.
        """
        global _active
        _active = None
        if not self.started:
            return
        for name in self.env_set:
            os.environ.pop(name, None)
        logging.getLogger().removeHandler(self.handler)
        logging.getLogger().setLevel(self.root_level)
        sys.stdout, sys.stderr = self.saved_streams
        _sink.verbose = False


_active: Routing | None = None


def prepare(stdout: TextIO, stderr: TextIO, verbose: bool = False) -> Routing:
    """The routing of one command: nothing changes until :func:`attach` names the data home.

    ``stdout``/``stderr``: the terminal's streams (given back by
    :meth:`Routing.end`); ``verbose`` also shows library lines on ``stderr``.
    """
    global _active
    _active = Routing(verbose, stdout, stderr)
    return _active


def attach(home: Path) -> None:
    """Route library output to ``<home>/logs/library.log`` from now on (see the module doc).

    Outside a command prepared by :func:`prepare` (library use, tests) nothing changes.
    """
    if _active is not None:
        _active.start(Path(home) / "logs")


def log_path(home: Path) -> Path:
    """``<home>/logs/library.log``."""
    return Path(home) / "logs" / LOG_FILE
