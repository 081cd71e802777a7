"""The memory store: prefix policy, versions, hash-chained audit log, history, rollback.

Public API: :class:`MemoryStore` and the exceptions in :mod:`memctl.store.errors`.
"""

from memctl.store.errors import (
    AuditIntegrityError,
    ChangeNotAppliedError,
    ConcurrencyError,
    CorruptVersionError,
    InvalidContentError,
    InvalidPathError,
    MissingFileError,
    MissingVersionError,
    ReadOnlyPrefixError,
    StoreBusyError,
    StoreError,
    UnknownVersionError,
)
from memctl.store.memory_store import ABSENT_SHA, MemoryStore, VersionInfo
from memctl.store.verify import StoreVerifyReport

__all__ = [
    "ABSENT_SHA", "AuditIntegrityError", "ChangeNotAppliedError", "ConcurrencyError", "CorruptVersionError", "InvalidContentError", "InvalidPathError",
    "MemoryStore", "MissingFileError", "MissingVersionError", "ReadOnlyPrefixError", "StoreBusyError", "StoreError", "StoreVerifyReport",
    "UnknownVersionError", "VersionInfo",
]
