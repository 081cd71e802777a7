"""memctl's own output streams: the stdout and stderr a command started with, held apart from ``sys.stdout``/``sys.stderr``.

While a command runs, ``sys.stdout`` and ``sys.stderr`` carry whatever the
libraries write (``print()`` in Cognee's migrations, log handlers, warnings)
and :mod:`memctl.cli.log_routing` sends that to the data home's log. memctl
writes its results and messages through the streams pinned here instead, so
``--json`` lands on stdout whatever a library or a thread does to
``sys.stdout`` (``contextlib.redirect_stdout`` is process-wide: a background
thread that redirects stdout while the main thread prints moves the main
thread's output too).

:data:`OUT` and :data:`ERR` are file objects for Rich consoles and ``write``
calls; outside a command (library use, tests calling functions) they are
``sys.stdout``/``sys.stderr`` as they are at the time of the call.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_pinned: dict[str, TextIO] = {}


class _Pinned(io.TextIOBase):
    """A file object that writes to the pinned stream ``name`` (``"stdout"``/``"stderr"``), else to ``sys.<name>``."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def target(self) -> TextIO:
        return _pinned.get(self._name) or getattr(sys, self._name)

    def write(self, text: str) -> int:
        return self.target().write(text)

    def writelines(self, lines: Any) -> None:
        self.target().writelines(lines)

    def flush(self) -> None:
        self.target().flush()

    def isatty(self) -> bool:
        return self.target().isatty()

    def fileno(self) -> int:
        return self.target().fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target(), "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target(), "errors", None)


OUT: TextIO = _Pinned("stdout")  # type: ignore[assignment]
ERR: TextIO = _Pinned("stderr")  # type: ignore[assignment]


def write_out(text: str) -> None:
    """Write ``text`` to memctl's stdout and flush (results, ``--json``, file contents)."""
    OUT.write(text)
    OUT.flush()


def write_err(text: str) -> None:
    """Write ``text`` to memctl's stderr and flush (progress lines, notes)."""
    ERR.write(text)
    ERR.flush()


def pin(stdout: TextIO, stderr: TextIO) -> None:
    """From now on :data:`OUT`/:data:`ERR` write to these (the streams the command started with)."""
    _pinned.update(stdout=stdout, stderr=stderr)


def unpin() -> None:
    """Back to ``sys.stdout``/``sys.stderr`` at the time of each call."""
    _pinned.clear()


def pinned_streams() -> tuple[TextIO, TextIO] | None:
    """``(stdout, stderr)`` as pinned, or None outside a command."""
    return (_pinned["stdout"], _pinned["stderr"]) if _pinned else None


@contextmanager
def interactive() -> Iterator[None]:
    """Give ``sys.stdout``/``sys.stderr`` back to the terminal for a prompt (``typer.confirm`` writes through them)."""
    streams = pinned_streams()
    if streams is None:
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = streams
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
