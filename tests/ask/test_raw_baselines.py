"""The raw-history baselines of the quality bench: one document per OpenCode session, the fixture untouched."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

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


def test_a_question_file_maps_gold_session_ids_to_the_sets_sessions(tmp_path: Path) -> None:
    from tests.fixtures.quality_set import load_questions

    ids = fixture_ids(None)
    path = tmp_path / "fresh.jsonl"
    path.write_text("\n".join([
        '# written by someone else',
        json.dumps({"text": "Why did customers get two mails?", "gold": ids["o2"], "kind": "paraphrase"}),
        "",
        json.dumps({"text": "Which buckets hold state and backups?", "gold": [ids["i1"], ids["i3"]]}),
    ]))
    got = load_questions(path)
    assert [(q.text, q.gold, q.kind) for q in got] == [
        ("Why did customers get two mails?", ("o2",), "paraphrase"),
        ("Which buckets hold state and backups?", ("i1", "i3"), "file")]
    assert got[1].topic(by_key()) == "infra"


@pytest.mark.parametrize("line, says", [
    ('{"text": "q", "gold": "ses_not_in_the_fixture"}', "is not a session of the fixture"),
    ('{"text": "", "gold": "x"}', "non-empty"),
    ('{"text": "q", "gold": []}', "\"gold\" must be"),
    ("not json", "not JSON"),
])
def test_a_question_file_that_cannot_be_scored_is_refused_with_its_line(tmp_path: Path, line: str, says: str) -> None:
    from tests.fixtures.quality_set import QuestionFileError, load_questions

    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + line + "\n")
    with pytest.raises(QuestionFileError, match=says) as caught:
        load_questions(path)
    assert f"{path}:2:" in str(caught.value)


def test_the_bench_exits_2_with_one_line_for_a_bad_question_file(tmp_path: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    """main() runs in pytest's own process: a refused run must leave the environment alone (it once set
    MEMCTL_EMBEDDING_DIMENSIONS=256 first, and every later test's ingest child refused the fake's 768)."""
    from bench.bench_quality import main

    monkeypatch.delenv("MEMCTL_EMBEDDING_DIMENSIONS", raising=False)  # restored after the test whatever main() does
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "q", "gold": "ses_nope"}\n')
    assert main(["--home", str(tmp_path), "--questions", str(path), "--rounds", "0"]) == 2
    assert "MEMCTL_EMBEDDING_DIMENSIONS" not in os.environ
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ses_nope is not a session of the fixture" in err[0]
