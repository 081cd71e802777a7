"""Bring the catalog's indexes up to date after the store's ``memory/`` changed: the topic index and each
topic's BM25 note index. Ingest calls it after publishing; forget after removing a note."""

from __future__ import annotations

from memctl.config import DataHome


def refresh_indexes(home: DataHome) -> None:
    """Rewrite the topic index and bring each topic's BM25 note index up to date, so that
    `memctl ask` (routing, provenance, raw-notes fallback) never pays for a rebuild."""
    from memctl.catalog.note_search import NoteSearch
    from memctl.catalog.topic_index import build_topic_index
    from memctl.store import MemoryStore

    index = build_topic_index(home)
    index.save(home.topic_index)
    search = NoteSearch(MemoryStore(home.store), home.note_index)
    for topic in index.slugs:
        search.index_for(topic)
