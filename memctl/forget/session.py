"""``memctl purge --session ID``: everything memctl keeps of one session, removed.

Steps (each idempotent, recorded in the journal, :mod:`memctl.forget.journal`):

1. ``checkpoint`` — the session and its continuations are recorded as ``purged`` (first, so a
   run killed later still keeps ingest from distilling them again); with ``--allow-reingest``
   their entries are deleted instead (the next ingest treats the session as new).
2. ``files`` — its transcripts and notes are deleted.
3. ``store`` — its ``memory/`` notes, session memories, staged and rejected proposals and the
   topic memories promoted from it are deleted through the store (audited), then every version
   blob only they held is removed (:func:`memctl.store.purge.purge_blobs`: a purge record per
   path names the removed hashes).
4. ``graph:<dataset>`` — each touched Cognee dataset is dropped and rebuilt from the store's
   current files, so no store of Cognee keeps a byte of the session; then ``compact``; then
   ``history``: Cognee's search history, which quotes retrieved text, is deleted.
5. ``derived`` — cached merges naming its memories dropped; its memory texts redacted from
   reports, logs and caches; the topic and BM25 indexes rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memctl.config import DataHome, Settings
from memctl.forget import derived
from memctl.forget.files import delete_file, redact_file
from memctl.forget.journal import Journal
from memctl.forget.needles import MIN_VALUE_CHARS, all_forms
from memctl.forget.plan import SessionPlan
from memctl.forget.scan import files_holding, kind_of
from memctl.store import MemoryStore, MissingFileError
from memctl.store.purge import purge_blobs

REASON = "purged via memctl purge --session"


@dataclass
class SessionPurgeResult:
    """What :func:`purge_session` did (``--json`` prints :meth:`as_dict`)."""

    session: str
    ids: list[str] = field(default_factory=list)
    files_deleted: int = 0
    store_deleted: int = 0
    blobs_removed: int = 0
    datasets_rebuilt: list[str] = field(default_factory=list)
    datasets_failed: dict[str, str] = field(default_factory=dict)
    files_redacted: int = 0
    resumed: bool = False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def purge_session(settings: Settings, home: DataHome, plan: SessionPlan) -> SessionPurgeResult:
    """Carry out ``plan`` (see the module doc); the caller holds the data-home lock.

    Raises:
        ForgetError: another interrupted forget/purge must be finished first.
        memctl.store.StoreError, GraphMemoryError: a step failed (the journal stays; the same
            command resumes).
    """
    journal = Journal(home)
    label = f"memctl purge --session {plan.session}" + (" --allow-reingest" if plan.allow_reingest else "")
    recorded, resumed = journal.begin("purge-session", plan.session, label, plan.as_dict())
    plan = SessionPlan(**recorded)
    result = SessionPurgeResult(session=plan.session, ids=plan.ids, resumed=resumed)
    if resumed:  # the totals of the killed run's finished steps, so --json reports the whole operation
        result = SessionPurgeResult(**{**result.as_dict(), **journal.totals(), "resumed": True})
    if not journal.is_done("checkpoint"):
        from memctl.catalog.checkpoint import Checkpoint

        checkpoint = Checkpoint(home.progress, home.skipped)
        for sid in plan.ids:
            if plan.allow_reingest:
                checkpoint.forget_entry(sid)
            else:
                checkpoint.mark_removed(sid, "purged")
        journal.done("checkpoint", result.as_dict())
    if not journal.is_done("files"):
        result.files_deleted = sum(delete_file(home.root / rel) for rel in plan.files)
        journal.done("files", result.as_dict())
    if not journal.is_done("store"):
        result.store_deleted, result.blobs_removed = _purge_store(home, plan)
        journal.done("store", result.as_dict())
    for dataset in plan.graphs:
        step = f"graph:{dataset}"
        if not journal.is_done(step):
            error = derived.rebuild_dataset(settings, home, dataset)
            if error:
                result.datasets_failed[dataset] = error
            else:
                result.datasets_rebuilt.append(dataset)
            journal.done(step, result.as_dict())
    if plan.graphs and not journal.is_done("compact"):
        derived.compact(home)
        journal.done("compact", result.as_dict())
    if not journal.is_done("history"):
        derived.clear_search_history(home)
        journal.done("history", result.as_dict())
    if not journal.is_done("derived"):
        derived.drop_cache_entries(home, plan.cache_entries)
        result.files_redacted = _redact_texts(home, plan.texts)
        derived.refresh_indexes(home, sorted(plan.datasets))
        journal.done("derived", result.as_dict())
    journal.finish()
    return result


def _purge_store(home: DataHome, plan: SessionPlan) -> tuple[int, int]:
    store = MemoryStore(home.store)
    deleted = 0
    for path in plan.store_paths:
        actor = "ingest" if path.startswith("memory/") else "cli"
        try:
            if store.exists(path):
                store.delete(path, expected_sha=None, actor=actor, reason=REASON)
                deleted += 1
        except MissingFileError:
            pass
    if not plan.blobs:
        return deleted, 0
    purged = purge_blobs(store, dict.fromkeys(plan.blobs), reason=REASON)
    return deleted, purged.blobs_removed


def _redact_texts(home: DataHome, texts: list[str]) -> int:
    """Redact the session's memory texts from the plain files (reports, logs, caches) that quote them."""
    values = [t for t in texts if len(t.strip()) >= MIN_VALUE_CHARS]
    if not values:
        return 0
    needles = all_forms(values)
    return sum(1 for path in files_holding(home, needles)
               if kind_of(home, path) == "file" and redact_file(path, needles))
