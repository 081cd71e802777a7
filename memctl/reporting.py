"""The progress sink every long run reports to (ingest, sleep): one protocol, one silent default.

The CLI supplies a Rich progress bar on a terminal and plain log lines
otherwise (:mod:`memctl.cli.progress`); library callers and tests use
:class:`SilentReporter`.
"""

from __future__ import annotations

from typing import Protocol


class Reporter(Protocol):
    """Progress of a run: phases with an optional item total, advances, log lines, and the end."""

    def phase(self, name: str, total: int | None) -> None:
        """A new phase starts; ``total`` items are expected (None: unknown)."""

    def advance(self, n: int = 1) -> None:
        """``n`` more items of the current phase are finished."""

    def log(self, message: str) -> None:
        """One line for the user (a failure that does not stop the run, a step taken)."""

    def done(self) -> None:
        """The run ended (normally or not); release the display. Called once, may be called again."""


class SilentReporter:
    """A reporter that shows nothing (library use and tests)."""

    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def log(self, message: str) -> None:
        pass

    def done(self) -> None:
        pass
