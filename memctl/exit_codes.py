"""Exit codes of every memctl command (README "Exit codes"), and the error types that carry one.

Scripts rely on these numbers; never reuse one for another meaning. This is the
only module that spells them as numbers: everything else names them, and every
domain error class carries its code in ``exit_code``, so the CLI's one error
boundary (:mod:`memctl.cli.boundary`) maps any of them without a table of its own.
"""

from __future__ import annotations

OK = 0
FAILED_ITEMS = 1       # some sessions, clusters or topics failed; retried next run
USAGE = 2              # bad flag, config value, path, topic, session id
SOURCE = 3             # a history source missing or unreadable: OpenCode DB (also locked, unsupported layout), Claude Code dir, Codex home
ADD_FAILED = 4
COGNIFY_FAILED = 5
LOCKED = 6             # another ingest or sleep holds the data home
HOME = 7               # data home problem
DOCTOR = 8
MODEL = 9              # Ollama unreachable, model missing, wrong embedding size
INTEGRITY = 10         # audit log or version blob failed verification
CONFLICT = 11          # concurrent change (stale sha) or store lock busy
NOTHING_INGESTED = 12  # ask before any ingest
NOT_INTERACTIVE = 13   # a decision only a person at an interactive terminal may take (review approve/edit/reject)
INTERRUPTED = 130
TERMINATED = 143       # SIGTERM where memctl stops cleanly (128 + 15, what a shell reports for it)


class ExitCodeError(Exception):
    """A failure the CLI reports as one line (``str(exc)``, no traceback) and exits with ``exit_code``.

    Subclasses set ``exit_code`` as a class attribute (the code of their
    meaning); a run-level error may pass one per instance instead.
    """

    exit_code: int = FAILED_ITEMS

    def __init__(self, message: str = "", exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class Terminated(KeyboardInterrupt):
    """SIGTERM raised as an exception where memctl stops cleanly rather than dying (while the pre-model
    pool runs, :mod:`memctl.ingest.premodel`): a ``KeyboardInterrupt``, so every clean-up written for
    Ctrl-C runs; the CLI exits 143. Not an ``Exception``: no ``except Exception`` may swallow it."""

    exit_code = TERMINATED


class UsageError(ExitCodeError):
    """A flag, argument or configuration value the user must change (exit 2)."""

    exit_code = USAGE


class NotInteractiveError(ExitCodeError):
    """A decision only a person at an interactive terminal may take was asked for without one (exit 13)."""

    exit_code = NOT_INTERACTIVE


class HomeError(ExitCodeError):
    """The data home cannot be used: a file where a directory belongs, not writable, corrupt state (exit 7)."""

    exit_code = HOME


class HomeBusyError(ExitCodeError):
    """Another ingest or sleep holds the data home's lock (exit 6)."""

    exit_code = LOCKED
