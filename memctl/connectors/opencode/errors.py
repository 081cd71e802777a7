"""Errors of the OpenCode connector. Every message is user-facing: it names the
database, what was found and what to do."""

from __future__ import annotations

from memctl.exit_codes import SOURCE, USAGE, ExitCodeError


class SourceError(ExitCodeError):
    """Base class: the OpenCode database cannot be read (exit 3). Message is user-facing."""

    exit_code = SOURCE


class SourceNotFoundError(SourceError):
    """No database file at the resolved path (or no OpenCode database in a directory)."""


class UnsupportedSchemaError(SourceError):
    """The database layout is not one this connector reads."""


class UnknownSessionError(SourceError):
    """A ``--session`` id that is not in the database (a usage error, not a broken source)."""

    exit_code = USAGE


class SourceBusyError(SourceError):
    """The database stayed locked/busy through the bounded retries."""
