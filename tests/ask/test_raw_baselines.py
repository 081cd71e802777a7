"""The raw-history baselines of the quality bench: one document per OpenCode session, the fixture untouched."""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.raw_baselines import RawBaselines, read_sessions
from tests.fixtures.quality_set import FIXTURE, by_key, fixture_ids


def test_one_document_per_session_and_the_database_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    shutil.copyfile(FIXTURE / "opencode.db", db)
    sessions = read_sessions(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]  # no -wal / -shm beside it
    ids = fixture_ids(None)
    assert sorted(s.session_id for s in sessions) == sorted(ids.values())
    text = {s.session_id: s.text for s in sessions}
    for key, session in by_key().items():
        assert text[ids[key]].startswith(session.title) and session.request in text[ids[key]]


def test_bm25_dense_and_their_fusion_rank_sessions() -> None:
    sessions = read_sessions(FIXTURE / "opencode.db")
    ids = fixture_ids(None)

    def by_word(texts: list[str]) -> list[list[float]]:  # a stand-in embedder: one axis per marker word
        words = ("celery", "terraform", "stripe")
        return [[float(w in t.lower()) for w in words] + [0.01] for t in texts]

    raw = RawBaselines(sessions, by_word)
    ranked = raw.ranked("duplicate confirmation emails from the Celery worker")
    assert ranked["bm25"][0] == ids["o2"]
    assert set(ranked["rrf"]) == set(ranked["bm25"]) | set(ranked["dense"])
    assert ranked["rrf"][0] == ids["o2"]
    assert len(ranked["dense"]) == len(sessions)
