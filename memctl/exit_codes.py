"""Exit codes of every memctl command (README "Exit codes"), and the error type that carries one.

Scripts rely on these numbers; never reuse one for another meaning.
"""

from __future__ import annotations

OK = 0
FAILED_ITEMS = 1       # some sessions, clusters or topics failed; retried next run
USAGE = 2              # bad flag, config value, path, topic, session id
SOURCE = 3             # OpenCode DB missing, unreadable, locked, unsupported layout
ADD_FAILED = 4
COGNIFY_FAILED = 5
LOCKED = 6             # another ingest or sleep holds the data home
HOME = 7               # data home problem
DOCTOR = 8
MODEL = 9              # Ollama unreachable, model missing, wrong embedding size
INTEGRITY = 10         # audit log or version blob failed verification
CONFLICT = 11          # concurrent change (stale sha) or store lock busy
NOTHING_INGESTED = 12  # ask before any ingest
INTERRUPTED = 130


class ExitCodeError(Exception):
    """A run-level failure with a user-facing message and the exit code the CLI must use."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code
