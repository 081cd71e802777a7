"""Errors of the OpenCode connector. Every message is user-facing: it names the
database, what was found and what to do."""

from __future__ import annotations


class SourceError(Exception):
    """Base class: the OpenCode database cannot be read. Message is user-facing."""


class SourceNotFoundError(SourceError):
    """No database file at the resolved path (or no OpenCode database in a directory)."""


class UnsupportedSchemaError(SourceError):
    """The database layout is not one this connector reads."""


class UnknownSessionError(SourceError):
    """A ``--session`` id that is not in the database (a usage error, not a broken source)."""


class SourceBusyError(SourceError):
    """The database stayed locked/busy through the bounded retries."""
