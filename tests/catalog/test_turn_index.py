"""The turn index: scrubbed transcripts cut into turns (a request with its outcome), BM25 and dense lists over
them, rebuilt only when a topic's notes or transcripts change, read (never written) by retrieval, each hit
citing its turn; forget and purge delete it.

Embeddings are the fake server's concept-group embedder (plumbing; quality is bench/bench_quality.py's).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.ask.retrieval import retrieve, turn_hits
from memctl.catalog.topic_profiles import TopicProfiles
from memctl.catalog.turn_index import EXCERPT_CHARS, TURN_CHARS, TurnIndex, excerpt_of, split_turns
from memctl.config import DataHome, Settings
from tests.ask.test_routing_embedding import _embed_inputs, _home
from tests.fakes.ollama_server import FakeOllama

HEADER = "# OpenCode session: {title}\n\n- Source id: {sid}\n\n## Transcript\n\n"
TURNS = {  # session → its turns after the header, in the transcript's own format (memctl.ingest.transcript)
    "ses_shop0": ["**User:** Customers got two confirmation emails.\n\n**Assistant:** The Celery task retried.",
                  "**User:** Now add a unit test for the retry.\n\n**Tool `bash`** — completed — pytest -k retry\n"
                  "Output:\n```\n1 passed\n```\n\n**Assistant:** Added test_retry_sends_once."],
    "ses_ops0": ["**User:** Terraform state was local; use an S3 backend.\n\n**Assistant:** backend \"s3\" added."],
}


def _transcripts(home: DataHome) -> None:
    home.transcripts.mkdir(parents=True, exist_ok=True)
    for sid, turns in TURNS.items():
        home.transcript_path(sid).write_text(HEADER.format(title=sid, sid=sid) + "\n\n".join(turns) + "\n")


@pytest.fixture
def server():
    with FakeOllama() as fake:
        yield fake


def test_a_transcript_is_cut_at_each_user_request_and_bounded() -> None:
    text = HEADER.format(title="t", sid="s") + "\n\n".join(TURNS["ses_shop0"]) + "\n"
    turns = split_turns(text)
    assert [t.splitlines()[0] for t in turns] == ["**User:** Customers got two confirmation emails.",
                                                  "**User:** Now add a unit test for the retry."]
    assert "pytest -k retry" in turns[1] and "Source id" not in turns[0]  # the outcome stays with its request
    assert excerpt_of(turns[1]) == "Now add a unit test for the retry."
    long = split_turns("## Transcript\n\n**Tool `bash`** — completed — ls\n\n**User:** " + "x " * 5000)
    assert len(long) == 2 and len(long[1]) == TURN_CHARS  # a leading tool call is turn 1; turns are bounded
    assert len(excerpt_of(long[1])) == EXCERPT_CHARS and excerpt_of(long[1]).endswith("…")
    assert split_turns("## Transcript\n\n") == []


def test_refresh_builds_each_topic_once_and_reuses_vectors(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    _transcripts(home)
    settings = Settings(home=home.root, ollama_host=server.url)
    turns = TurnIndex(home, settings)
    embed = TopicProfiles(settings, home).embed_texts
    assert turns.refresh(index, embed) == len(index.slugs)
    manifest = json.loads((home.turn_index / "shop" / "manifest.json").read_text())
    assert [(t["source_id"], t["index"]) for t in manifest["turns"]] == [("ses_shop0", 1), ("ses_shop0", 2)]
    assert manifest["dim"] > 0 and (home.turn_index / "shop" / "vectors.f32").stat().st_size == 2 * 4 * manifest["dim"]
    server.reset_counts()
    assert turns.refresh(index, embed) == 0 and _embed_inputs(server) == []  # current: nothing rebuilt or embedded
    path = home.transcript_path("ses_shop0")
    path.write_text(path.read_text() + "\n**User:** And log each retry.\n")
    assert turns.load("shop", index) is None  # stale: retrieval gets no turn of it until ingest refreshes
    assert turns.refresh(index, embed) == 1
    assert _embed_inputs(server) == [["**User:** And log each retry."]]  # unchanged turns keep their vectors
    assert [t.index for t in turns.load("shop", index).turns] == [1, 2, 3]


def test_retrieval_cites_the_turn_and_writes_nothing(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    _transcripts(home)
    settings = Settings(home=home.root, ollama_host=server.url, fusion_turn_dense_weight=1.0)
    TurnIndex(home, settings).refresh(index, TopicProfiles(settings, home).embed_texts)
    TopicProfiles(settings, home).refresh(index)
    retrieve("warm up", index.slugs, settings, home, index, top_k=1, use_graph=False)  # the notes' BM25 indexes
    before = {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file()}
    lexical, dense, evidence = turn_hits("unit test for the retry", index.slugs, settings, home, index, 4)
    assert lexical[0].source.source_id == "ses_shop0" and lexical[0].turn["index"] == 2 and lexical[0].turns_rank == 1
    assert evidence[lexical[0].source.path] == 1.0  # the turn holds every content word of the question
    assert dense and all(h.turn_dense_rank == i for i, h in enumerate(dense, start=1))
    got = retrieve("unit test for the retry", ["ops"], settings, home, index, top_k=2, use_graph=False,
                   wide_topics=index.slugs)
    assert got.hits[0].source.source_id == "ses_shop0"
    assert got.hits[0].ranks()["turn"] == {"index": 2, "excerpt": "Now add a unit test for the retry."}
    assert {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file()} == before  # ask only reads


def test_without_a_turn_index_retrieval_has_no_turn_hits_and_builds_none(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    _transcripts(home)
    settings = Settings(home=home.root, ollama_host=server.url)
    assert turn_hits("unit test for the retry", index.slugs, settings, home, index, 4)[:2] == ([], [])
    got = retrieve("unit test for the retry", index.slugs, settings, home, index, top_k=2, use_graph=False)
    assert got.hits and all(h.turn is None and h.turns_rank is None for h in got.hits)
    assert not home.turn_index.exists()


def test_turn_weights_zero_give_no_turn_list(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    _transcripts(home)
    settings = Settings(home=home.root, ollama_host=server.url, fusion_turns_weight=0, fusion_turn_dense_weight=0)
    TurnIndex(home, settings).refresh(index, None)
    assert turn_hits("unit test for the retry", index.slugs, settings, home, index, 4) == ([], [], {})


@pytest.mark.parametrize("topics, left", [(["shop"], ["app", "ops"]), (None, []), ([], ["app", "ops", "shop"])])
def test_forgetting_drops_the_touched_topics_turn_indexes(tmp_path: Path, topics: list[str] | None,
                                                          left: list[str]) -> None:
    from memctl.forget import derived

    home = DataHome(tmp_path / "var")
    for topic in ("app", "ops", "shop"):
        (home.turn_index / topic).mkdir(parents=True)
        (home.turn_index / topic / "manifest.json").write_text('{"turns": []}')
    derived.refresh_indexes(home, topics)
    assert sorted(p.name for p in home.turn_index.iterdir()) == left
