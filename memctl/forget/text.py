"""``memctl purge --text`` / ``--secret-file``: a value removed from every file of the data home.

Steps (each idempotent, recorded in the journal, :mod:`memctl.forget.journal`; a step re-scans,
so a resumed run finishes whatever the killed one left):

0. ``history`` — Cognee's search history (every question asked and the text it returned) is
   deleted (:func:`memctl.graph.erase.clear_search_history`).
1. ``store`` — every version blob holding a form of the value (:mod:`memctl.forget.needles`) is
   replaced by a redacted copy through :func:`memctl.store.purge.purge_blobs` (a current file
   holding it is rewritten with it; the purge record names paths and hashes, never the value).
2. ``files`` — every other plain file (transcripts, notes, reports, logs, caches, staging
   archives, Cognee's raw copies and logs) is rewritten with the marker (JSON files in their string
   values only, SQLite files outside Cognee in their row values only, internal assets never:
   :mod:`memctl.forget.files`); BM25 index directories holding it are deleted. A value that is
   memctl's own vocabulary is refused before anything changes (:mod:`memctl.forget.vocabulary`).
3. ``graph:<dataset>`` — each Cognee dataset whose notes or databases held it is dropped with its
   databases and rebuilt from the redacted store files; then ``compact`` (SQLite VACUUM, LanceDB
   old versions deleted). Should a Cognee store still hold the value, every dataset is rebuilt
   once more (``graph:all``).
4. ``derived`` — the topic and BM25 indexes are rebuilt; a final scan lists what remains (only
   ever the audit log, which is append-only, if a value was written into a reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memctl.config import DataHome, Settings
from memctl.forget import derived
from memctl.forget.files import redact_file, redact_rows
from memctl.forget.journal import Journal
from memctl.forget.needles import all_forms, redact
from memctl.forget.plan import TextPlan, graph_datasets, plan_text, values_match
from memctl.forget.scan import files_holding, kind_of
from memctl.store import MemoryStore
from memctl.store.purge import purge_blobs
from memctl.store.versions import is_sha256


@dataclass
class TextPurgeResult:
    """What :func:`purge_text` did (``--json`` prints :meth:`as_dict`); ``remaining``: files still holding a form."""

    values: int
    blobs_replaced: int = 0
    store_records: int = 0
    files_redacted: int = 0
    index_dirs_deleted: int = 0
    datasets_rebuilt: list[str] = field(default_factory=list)
    datasets_failed: dict[str, str] = field(default_factory=dict)
    history_rows_deleted: int = 0
    remaining: list[str] = field(default_factory=list)
    resumed: bool = False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def purge_text(settings: Settings, home: DataHome, values: list[str], plan: TextPlan) -> TextPurgeResult:
    """Carry out ``plan`` for ``values`` (see the module doc); the caller holds the data-home lock.

    Raises:
        ForgetError: another interrupted forget/purge must be finished first.
        memctl.store.StoreError, GraphMemoryError: a step failed (the journal stays; the same
            command resumes).
    """
    journal = Journal(home)
    label = f"memctl purge --text … ({plan.values} value(s); give the same values again)"
    recorded, resumed = journal.begin("purge-text", plan.key, label, plan.as_dict(),
                                      matches=lambda key: values_match(values, key))
    datasets = sorted(set(recorded.get("datasets") or []) | set(plan.datasets))
    needles = all_forms(values)
    result = TextPurgeResult(values=plan.values, resumed=resumed)
    if resumed:  # the totals of the killed run's finished steps, so --json reports the whole operation
        result = TextPurgeResult(**{**result.as_dict(), **journal.totals(), "resumed": True})
    if not journal.is_done("history"):
        # before any scan decides which Cognee stores hold the value: a searched value is in
        # Cognee's search history, and a rebuild of every dataset would not remove it from there
        result.history_rows_deleted = derived.clear_search_history(home)
        journal.done("history", result.as_dict())
    if not journal.is_done("store"):
        result.blobs_replaced, result.store_records = _purge_store(home, needles, plan.values)
        journal.done("store", result.as_dict())
    if not journal.is_done("files"):
        result.files_redacted, result.index_dirs_deleted = _rewrite_files(home, needles)
        journal.done("files", result.as_dict())
    _rebuild(settings, home, journal, datasets, result)
    if datasets and not journal.is_done("compact"):
        derived.compact(home)
        journal.done("compact", result.as_dict())
    if any(kind_of(home, p) == "graph" for p in files_holding(home, needles)) and not journal.is_done("graph:all"):
        everything = sorted(set(graph_datasets(home, plan_text_datasets(home))) | set(datasets))
        _rebuild(settings, home, journal, everything, result, again=True)
        derived.compact(home)
        journal.done("graph:all", result.as_dict())
    if not journal.is_done("derived"):
        result.files_redacted += _rewrite_files(home, needles)[0]  # raw copies a rebuild left behind
        derived.refresh_indexes(home, None)  # a value may sit in any note: every topic profile goes
        journal.done("derived", result.as_dict())
    result.remaining = [str(p.relative_to(home.root)) for p in files_holding(home, needles)
                        if kind_of(home, p) != "lock"]
    journal.finish()
    return result


def plan_text_datasets(home: DataHome) -> list[str]:
    """Every topic with files in the store (what a full rebuild covers)."""
    store = MemoryStore(home.store)
    topics = {p.split("/")[1] for p in store.list("memory")}
    topics |= {p.split("/")[2] for p in store.list("user/topics")}
    return sorted(topics)


def _rebuild(settings: Settings, home: DataHome, journal: Journal, datasets: list[str], result: TextPurgeResult,
             *, again: bool = False) -> None:
    for dataset in datasets:
        step = f"graph{'-again' if again else ''}:{dataset}"
        if journal.is_done(step):
            continue
        error = derived.rebuild_dataset(settings, home, dataset)
        if error:
            result.datasets_failed[dataset] = error
        elif dataset not in result.datasets_rebuilt:
            result.datasets_rebuilt.append(dataset)
        journal.done(step, result.as_dict())


def _purge_store(home: DataHome, needles: list[bytes], values: int) -> tuple[int, int]:
    """Redacted copies of every blob holding a needle, through the store; returns (blobs, records)."""
    store = MemoryStore(home.store)
    changes: dict[str, bytes | None] = {}
    for path in files_holding(home, needles):
        if kind_of(home, path) == "blob" and is_sha256(path.name):
            changes[path.name] = redact(path.read_bytes(), needles)[0]
    if not changes:
        return 0, 0
    done = purge_blobs(store, changes, reason=f"purge --text: {values} value(s) redacted from {len(changes)} version(s)")
    return done.blobs_replaced, len(done.records)


def _rewrite_files(home: DataHome, needles: list[bytes]) -> tuple[int, int]:
    """Redact plain files; delete BM25 index directories holding a needle. Returns (files, index dirs)."""
    import shutil

    redacted, dirs = 0, set()
    for path in files_holding(home, needles):
        kind = kind_of(home, path)
        if kind == "file" and redact_file(path, needles):
            redacted += 1
        elif kind == "sqlite" and redact_rows(path, needles):
            redacted += 1
        elif kind == "index":
            dirs.add(home.note_index / path.relative_to(home.note_index).parts[0])
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)
    return redacted, len(dirs)


__all__ = ["TextPurgeResult", "plan_text", "purge_text"]
