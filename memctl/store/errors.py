"""Exceptions of the memory store. Every message is user-facing and says what to do."""

from __future__ import annotations

from memctl.exit_codes import CONFLICT, HOME, INTEGRITY, USAGE, ExitCodeError


class StoreError(ExitCodeError):
    """Base class: a store operation was refused or failed. Nothing was changed (exit 2 unless a subclass says)."""

    exit_code = USAGE


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

    exit_code = CONFLICT

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

    exit_code = CONFLICT


class AuditIntegrityError(StoreError):
    """The end of the audit log and its head do not hold together (records cut off, head or last line edited).

    Mutations are refused while this holds; ``memctl audit verify`` walks the
    whole chain (damage in the middle of the log is found there, not on every write).
    """

    exit_code = INTEGRITY


class CorruptVersionError(StoreError):
    """A version blob's content does not match its content address (sha256)."""

    exit_code = INTEGRITY


class MissingVersionError(CorruptVersionError):
    """A version the audit log records has no blob in ``versions/`` (deleted behind the store's back)."""


class ChangeNotAppliedError(StoreError):
    """The change was committed to the audit log but applying it to the file failed (disk full, I/O error).

    Not lost: the next change, or ``memctl audit repair``, applies it from its
    version blob. ``seq`` is the audit record's sequence number.
    """

    exit_code = HOME

    def __init__(self, path: str, seq: int, cause: BaseException) -> None:
        super().__init__(f"the change to {path} is recorded (audit seq {seq}) but could not be applied yet ({cause}); "
                         "the next change or `memctl audit repair` applies it")
        self.path = path
        self.seq = seq
