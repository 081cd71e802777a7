"""Publishing: the accepted notes into the memory store's ``memory/`` (the indexes ``ask`` reads: :mod:`memctl.catalog.refresh`).

The store's ``memory/`` prefix is the ground truth that ask reads and the
graph is built from; only the actor ``ingest`` may write it, and every change
is versioned and audited. Publishing is idempotent: unchanged notes are store
no-ops, so it also completes the work of a run killed between writing a note
and publishing it. Notes no longer accepted (continuations superseded by
``--reparse-all``) are deleted from ``memory/`` (a versioned tombstone).
A note whose text holds a secret by the scrubber's detectors (:mod:`memctl.scrub.core`, the
same table the transcript, titles and the sleep validator use) is published scrubbed.
The caller holds the data-home lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome
from memctl.scrub.core import scrub
from memctl.store.versions import sha256_text


def memory_path(topic: str | None, source_id: str) -> str:
    """Store path of a session's note: ``memory/<topic>/<source-id>.md`` (topic ``misc`` when unknown)."""
    return f"memory/{topic or 'misc'}/{source_id}.md"


@dataclass
class Published:
    """What :func:`publish_notes` changed: notes written (new or changed) and deleted, and
    secrets redacted on the way (:func:`memctl.scrub.core.scrub`)."""

    written: int = 0
    removed: int = 0
    redacted: int = 0


def publish_notes(home: DataHome) -> Published:
    """Make ``memory/<topic>/<source-id>.md`` in the store mirror the accepted notes.

    Raises:
        memctl.store.StoreError: the store refused a change (AuditIntegrityError when its log is damaged).
        OSError: a note or the store cannot be read or written.
    """
    from memctl.store import MemoryStore

    store = MemoryStore(home.store)
    result = Published()
    wanted: dict[str, Path] = {}
    for sid, entry in sorted(Checkpoint(home.progress, home.skipped).distilled().items()):
        note = home.note_path(sid)
        if note.exists():
            wanted[memory_path(entry.topic, sid)] = note
    for store_path, note in wanted.items():
        text = note.read_text(encoding="utf-8")
        current = store.sha(store_path)
        if current != sha256_text(text):
            # The guard of memory/: the same detectors as the transcript scrub (a note written by
            # an older version, or edited by hand, never reaches the store with a secret in it).
            cleaned = scrub(text)
            if cleaned.counts:
                result.redacted += sum(cleaned.counts.values())
                text = cleaned.text
                if current == sha256_text(text):
                    continue
            store.write_text(store_path, text, expected_sha=current, actor="ingest",
                             reason=f"distilled note of session {note.stem}" + (" (re-distilled)" if current else "")
                             + (f" ({sum(cleaned.counts.values())} secrets redacted)" if cleaned.counts else ""))
            result.written += 1
    for store_path in store.list("memory"):
        if store_path not in wanted:
            store.delete(store_path, expected_sha=None, actor="ingest",
                         reason="note no longer accepted (superseded by a re-distilled note)")
            result.removed += 1
    return result
