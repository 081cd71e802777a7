"""What is derived from removed files, brought up to date: caches, indexes and Cognee's datasets.

* consolidation cache entries naming a removed memory are deleted (a later sleep must not apply
  a cached merge that holds it);
* the topic index is rebuilt from the checkpoint, and each touched topic's BM25 index directory
  is deleted and rebuilt (an index of a topic left with no note is never rewritten by
  :class:`memctl.catalog.note_search.NoteSearch`, so deleting is what removes its vocabulary);
* the embedding router's topic profiles (vectors of note titles and summaries) of each touched topic
  are deleted — all of them for a purge of a value, which may sit in any note — and rebuilt by the next
  question (:mod:`memctl.catalog.topic_profiles`);
* the turn index (:mod:`memctl.catalog.turn_index`: transcript excerpts, their vocabulary and
  vectors) of each touched topic is deleted — all of it for a purge of a value — and rebuilt by the
  next ingest;
* Cognee: documents are removed from their dataset (:func:`memctl.graph.add.remove_notes`), or a
  dataset is dropped whole and rebuilt from the store's current files
  (:func:`memctl.graph.erase.drop_dataset`, :func:`memctl.graph.rebuild.rebuild_topic`) when no
  byte of the removed text may stay behind.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.store import MemoryStore


def drop_cache_entries(home: DataHome, names: list[str]) -> int:
    """Delete these consolidation cache entries (file names); returns how many existed."""
    removed = 0
    for name in names:
        entry = home.consolidate_cache / name
        if entry.is_file():
            entry.unlink()
            removed += 1
    return removed


def refresh_indexes(home: DataHome, topics: list[str] | None) -> None:
    """Rebuild the topic index, and the BM25 index and embedding-router profile of each of ``topics``
    from scratch (``None``: every topic's profile; BM25 indexes follow their notes' hashes); delete the whole
    chunk cache (:attr:`DataHome.chunk_cache`)."""
    from memctl.catalog.refresh import refresh_indexes as refresh

    for topic in topics or []:
        shutil.rmtree(home.note_index / topic, ignore_errors=True)
    drop_route_profiles(home, topics)
    drop_turn_indexes(home, topics)
    # The chunk cache copies note and memory text out of Cognee's tables: a removed value must not stay in it.
    # Every dataset's file goes (a user memory's dataset is not in ``topics``); the next ask reads them again.
    shutil.rmtree(home.chunk_cache, ignore_errors=True)
    if home.progress.exists() or home.topic_index.exists():
        refresh(home)


def drop_route_profiles(home: DataHome, topics: list[str] | None) -> int:
    """Delete the embedding router's cached profiles of ``topics`` (``None``: all); how many files went."""
    if not home.route_cache.is_dir():
        return 0
    targets = list(home.route_cache.iterdir()) if topics is None else [
        home.route_cache / f"{topic}.vec" for topic in topics]
    removed = 0
    for path in targets:
        if path.is_file():
            path.unlink()
            removed += 1
    return removed


def drop_turn_indexes(home: DataHome, topics: list[str] | None) -> int:
    """Delete the turn indexes (transcript excerpts, their BM25 vocabulary and vectors) of ``topics``
    (``None``: all); how many went. The next ingest builds them again (:mod:`memctl.catalog.turn_index`)."""
    if not home.turn_index.is_dir():
        return 0
    targets = list(home.turn_index.iterdir()) if topics is None else [home.turn_index / t for t in topics]
    removed = 0
    for path in targets:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def topic_files(home: DataHome, dataset: str) -> list[Path]:
    """The store's current files of ``dataset``: its notes (``memory/<t>/``) and topic memories
    (``user/topics/<t>/``), as absolute paths (what ingest and sleep add)."""
    store = MemoryStore(home.store)
    paths = store.list(f"memory/{dataset}") + [p for p in store.list(f"user/topics/{dataset}") if p.endswith(".md")]
    return [store.root / p for p in paths]


def remove_documents(settings: Settings, home: DataHome, documents: dict[str, list[str]]) -> int:
    """Remove these documents (dataset → absolute note paths) from Cognee; returns how many.

    Raises:
        memctl.graph.errors.GraphMemoryError: Cognee failed.
    """
    if not any(documents.values()) or not home.cognee.is_dir():
        return 0
    from memctl.graph import knowledge_graph

    knowledge_graph.configure(settings, home)

    async def run() -> int:
        removed = 0
        for dataset, paths in sorted(documents.items()):
            if paths:
                removed += await knowledge_graph.remove_notes(dataset, [Path(p) for p in paths])
        return removed

    return knowledge_graph.run_sync(run())


def rebuild_dataset(settings: Settings, home: DataHome, dataset: str) -> str | None:
    """Drop ``dataset`` with its databases and build it again from the store's current files
    (add + cognify); returns the rebuild's error, None on success. Callers pass only datasets
    Cognee had when the plan was made (:func:`memctl.forget.plan.graph_datasets`): a purge builds
    nothing new, and a run resumed after the drop still builds the dataset again.

    Raises:
        memctl.graph.errors.GraphMemoryError: the drop failed.
    """
    from memctl.graph import knowledge_graph
    from memctl.graph.erase import drop_dataset
    from memctl.graph.rebuild import rebuild_topic

    if not home.cognee.is_dir():
        return None
    knowledge_graph.configure(settings, home)
    knowledge_graph.run_sync(drop_dataset(dataset))
    files = topic_files(home, dataset)
    if not files:
        return None
    result = knowledge_graph.run_sync(rebuild_topic(dataset, files, [], settings, home))
    return result.error


def compact(home: DataHome) -> dict[str, int]:
    """Compact Cognee's SQLite and LanceDB stores (:func:`memctl.graph.erase.compact_stores`)."""
    if not home.cognee.is_dir():
        return {"sqlite": 0, "lance_tables": 0}
    from memctl.graph.erase import compact_stores

    return compact_stores(home.cognee)


def clear_search_history(home: DataHome) -> int:
    """Delete Cognee's search history (questions and retrieved text) and VACUUM its database
    (:func:`memctl.graph.erase.clear_search_history`); returns the rows deleted."""
    if not home.cognee.is_dir():
        return 0
    from memctl.graph.erase import clear_search_history as clear

    return clear(home.cognee)
