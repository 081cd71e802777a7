"""The memory store (issue 3): prefix policy, versions, hash-chained audit log, history, rollback.

Public API: :class:`MemoryStore` and the exceptions in :mod:`memctl.store.errors`.
"""

from memctl.store.errors import (
    AuditIntegrityError,
    ConcurrencyError,
    CorruptVersionError,
    InvalidContentError,
    InvalidPathError,
    MissingFileError,
    ReadOnlyPrefixError,
    StoreBusyError,
    StoreError,
    UnknownVersionError,
)
from memctl.store.memory_store import MemoryStore, StoreVerifyReport, VersionInfo

__all__ = [
    "AuditIntegrityError", "ConcurrencyError", "CorruptVersionError", "InvalidContentError", "InvalidPathError",
    "MemoryStore", "MissingFileError", "ReadOnlyPrefixError", "StoreBusyError", "StoreError", "StoreVerifyReport",
    "UnknownVersionError", "VersionInfo",
]
