"""``memctl forget PATH``: one memory deleted through the store, out of Cognee and the indexes, for good.

Steps (each idempotent, recorded in the journal, :mod:`memctl.forget.journal`):

1. ``store`` — delete the file through the store (audited tombstone; the content stays in
   ``versions/``, so ``history`` and ``rollback`` still work); for a ``memory/`` note, record its
   session as ``forgotten`` in the checkpoint, so ingest neither publishes nor distills it again.
2. ``graph`` — remove its document (nodes, edges, vectors) from its topic's Cognee dataset.
3. ``history`` — Cognee's search history (questions and the chunks they returned) is deleted
   (:func:`memctl.graph.erase.clear_search_history`).
4. ``derived`` — drop cached merges naming it, rebuild the topic index and the topic's BM25 index.

A later sleep cannot bring it back: sleep rebuilds a dataset from the files ``user/`` holds now,
and a merge is applied only from a cluster of existing memories (the cache entries that quote the
forgotten one are gone).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memctl.config import DataHome, Settings
from memctl.forget import derived
from memctl.forget.journal import Journal
from memctl.forget.plan import MemoryPlan
from memctl.store import MemoryStore, MissingFileError

REASON = "forgotten via memctl forget"


@dataclass
class ForgetResult:
    """What :func:`forget_memory` did (``--json`` prints :meth:`as_dict`)."""

    path: str
    deleted: bool = False
    documents_removed: int = 0
    cache_entries_dropped: int = 0
    history_rows_deleted: int = 0
    resumed: bool = False
    steps: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def forget_memory(settings: Settings, home: DataHome, plan: MemoryPlan) -> ForgetResult:
    """Carry out ``plan`` (see the module doc); the caller holds the data-home lock.

    Raises:
        ForgetError: another interrupted forget/purge must be finished first.
        memctl.store.StoreError: the store refused the delete; GraphMemoryError: Cognee failed
            (the journal stays: the same command resumes).
    """
    journal = Journal(home)
    recorded, resumed = journal.begin("forget", plan.path, f"memctl forget {plan.path}", plan.as_dict())
    plan = MemoryPlan(**recorded)
    result = ForgetResult(path=plan.path, resumed=resumed)
    if resumed:  # the totals of the killed run's finished steps, so --json reports the whole operation
        result = ForgetResult(**{**result.as_dict(), **journal.totals(), "resumed": True})
    if not journal.is_done("store"):
        store = MemoryStore(home.store)
        actor = "ingest" if plan.path.startswith("memory/") else "cli"
        try:
            store.delete(plan.path, expected_sha=None, actor=actor, reason=REASON)
            result.deleted = True
        except MissingFileError:
            pass  # deleted by the run this one resumes
        if plan.source_id:
            from memctl.catalog.checkpoint import Checkpoint

            Checkpoint(home.progress, home.skipped).mark_removed(plan.source_id, "forgotten")
        journal.done("store", result.as_dict())
    if plan.dataset and not journal.is_done("graph"):
        result.documents_removed = derived.remove_documents(settings, home,
                                                            {plan.dataset: [str(home.store / plan.path)]})
        journal.done("graph", result.as_dict())
    if not journal.is_done("history"):
        # Cognee's search history quotes the chunks a search returned: the forgotten text too
        result.history_rows_deleted = derived.clear_search_history(home)
        journal.done("history", result.as_dict())
    if not journal.is_done("derived"):
        result.cache_entries_dropped = derived.drop_cache_entries(home, plan.cache_entries)
        derived.refresh_indexes(home, [plan.dataset] if plan.path.startswith("memory/") and plan.dataset else [])
        journal.done("derived", result.as_dict())
    result.steps = list(journal.data["done"]) if journal.data else []
    journal.finish()
    return result
