"""Exceptions of the memory store. Every message is user-facing and says what to do."""

from __future__ import annotations


class StoreError(Exception):
    """Base class: a store operation was refused or failed. Nothing was changed."""


class InvalidPathError(StoreError, ValueError):
    """A store path broke the path policy (see :mod:`memctl.store.policy`)."""


class ReadOnlyPrefixError(StoreError, PermissionError):
    """The actor may not write under this prefix (e.g. ``memory/`` for anyone but ``ingest``)."""


class InvalidContentError(StoreError, ValueError):
    """Content or metadata (actor, reason) that the store does not accept."""


class MissingFileError(StoreError, FileNotFoundError):
    """No file at this store path (it never existed, or was deleted)."""


class ConcurrencyError(StoreError):
    """Optimistic-concurrency failure: ``expected_sha`` is not the file's current sha.

    Attributes:
        path: the store path.
        expected_sha: what the caller expected (64 hex chars).
        current_sha: the file's sha now, or ``None`` when it does not exist.
    """

    def __init__(self, path: str, expected_sha: str, current_sha: str | None) -> None:
        now = current_sha[:12] if current_sha else "absent"
        super().__init__(
            f"{path} changed since it was read (expected sha {expected_sha[:12]}, now {now}); "
            "read it again and retry"
        )
        self.path = path
        self.expected_sha = expected_sha
        self.current_sha = current_sha


class UnknownVersionError(StoreError, LookupError):
    """A version id that is not (or not uniquely) in the path's history."""


class StoreBusyError(StoreError):
    """The store's write lock was not free within the timeout."""


class AuditIntegrityError(StoreError):
    """The audit log or its head does not hold together (edited, truncated or reordered).

    Mutations are refused until a human has looked: run ``memctl audit verify``.
    """


class CorruptVersionError(StoreError):
    """A version blob's content does not match its content address (sha256)."""
