"""Purging version blobs: the one store change that rewrites history, recorded so the chain stays honest.

A purge replaces version blobs (a redacted copy) or removes them (``None``), everywhere the store
holds them: the blob in ``versions/``, and a current file holding that content. The audit log
itself is never edited. For every store path whose history names a purged blob, one record is
appended (``op`` ``purge``)::

    {"op": "purge", "path": "memory/alpha/ses_1.md", "actor": "purge", "reason": "…",
     "old_sha": <current sha before>, "new_sha": <current sha after>, "version": <new_sha>,
     "replaced": {"<old blob sha>": "<new blob sha>" | null, …}}

so the record names the files and the old and new hashes, never the value. ``audit verify
--deep`` (:meth:`memctl.store.MemoryStore.verify`) then accepts a blob a purge record names as
replaced only when it is gone and its replacement is intact.

Order (crash rules of :mod:`memctl.store.memory_store`): the redacted blobs are written first;
each record is appended (the commit point), the head moved and the current file replaced before
the next record; the old blobs are deleted last. A writer killed anywhere leaves at most the last
record unapplied (the store's repair rolls it forward from the recorded blob) and old blobs still
present: running the same purge again deletes them (a blob already named as replaced needs no
new record).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.atomic import fsync_directory
from memctl.store import steps
from memctl.store.policy import check_reason
from memctl.store.versions import is_sha256, sha256_bytes

if TYPE_CHECKING:  # memory_store reads purge records through this module
    from memctl.store.memory_store import MemoryStore

PURGE_OP = "purge"
PURGE_ACTOR = "purge"


@dataclass
class PurgeResult:
    """What :func:`purge_blobs` did: records appended (``seq``, path), blobs replaced or removed."""

    records: list[tuple[int, str]] = field(default_factory=list)
    blobs_replaced: int = 0
    blobs_removed: int = 0


def purge_blobs(store: MemoryStore, changes: dict[str, bytes | None], *, reason: str) -> PurgeResult:
    """Replace (bytes) or remove (None) the version blobs named by sha in ``changes``; see the module doc.

    Args:
        changes: old blob sha → its redacted content, or None to remove it (and any file holding it).
        reason: one sentence for the audit log; it must not contain the purged value.

    Raises:
        InvalidContentError: a bad reason or a key that is not a sha256.
        StoreBusyError, AuditIntegrityError: as any store change.
    """
    check_reason(reason)
    for sha in changes:
        if not is_sha256(sha):
            from memctl.store.errors import InvalidContentError

            raise InvalidContentError(f"not a version sha: {sha!r}")
    result = PurgeResult()
    with store._locked():
        done = store.purged_blobs()
        todo = {old: data for old, data in changes.items() if old not in done}
        new_sha: dict[str, str | None] = {}
        for old, data in todo.items():
            new_sha[old] = None if data is None else store.blobs.put(data)
        steps.reached("snapshot")
        for path, names in _paths_naming(store, set(todo)).items():
            file = store._file(path)
            raw = store._read_bytes(file, path)
            current = None if raw is None else sha256_bytes(raw)
            after = new_sha[current] if current in new_sha else current
            fields: dict[str, Any] = {"op": PURGE_OP, "path": path, "actor": PURGE_ACTOR, "reason": reason,
                                      "old_sha": current, "new_sha": after, "version": after,
                                      "replaced": {old: new_sha[old] for old in sorted(names)}}
            record = store.audit.append(fields, store.audit.last_record())
            store.audit.advance_head(record)
            if after != current:
                store._apply(file, None if after is None else store.blobs.read(after))
            steps.reached("write")
            result.records.append((int(record["seq"]), path))
        for old in changes:
            removed = _remove_blob(store, old)
            if removed and changes[old] is None:
                result.blobs_removed += 1
            elif removed:
                result.blobs_replaced += 1
    return result


def _paths_naming(store: MemoryStore, shas: set[str]) -> dict[str, set[str]]:
    """Store path → the shas in ``shas`` its history names (new or prior content), in log order."""
    found: dict[str, set[str]] = {}
    for record in store.audit.records():
        names = {s for s in (record["version"], record["old_sha"], record["new_sha"]) if s in shas}
        if names:
            found.setdefault(record["path"], set()).update(names)
    return found


def _remove_blob(store: MemoryStore, sha: str) -> bool:
    """Delete one blob (mode 0444, so made writable first); True when it existed."""
    path = store.blobs.path(sha)
    try:
        path.chmod(0o644)
        path.unlink()
    except FileNotFoundError:
        return False
    fsync_directory(path.parent)
    return True
