"""Dense note retrieval and retrieval over every topic: a routing mistake cannot hide a session.

Embeddings here are the fake server's concept-group embedder (plumbing: which list finds what, how many
requests, what happens when the model is missing); quality on real weights is bench/bench_quality.py's
and tests/e2e/test_quality_floor.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.ask.retrieval import dense_hits, retrieve
from memctl.catalog.topic_profiles import PROFILE_VERSION, TopicProfiles
from memctl.config import Settings
from tests.ask.test_routing_embedding import PARAPHRASES, _embed_inputs, _home
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
def server():
    with FakeOllama() as fake:
        yield fake


@pytest.mark.parametrize("question, slug", PARAPHRASES)
def test_the_dense_list_finds_a_paraphrase_note_first(tmp_path: Path, server: FakeOllama, question: str,
                                                      slug: str) -> None:
    home, index = _home(tmp_path)
    hits = dense_hits(question, index.slugs, Settings(home=home.root, ollama_host=server.url), home, index, 3)
    assert hits and hits[0].source.topic == slug and hits[0].dense_rank == 1
    assert [h.dense_rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits[0].score >= hits[-1].score


@pytest.mark.parametrize("question, slug", PARAPHRASES)
def test_a_wrong_route_does_not_hide_the_session(tmp_path: Path, server: FakeOllama, question: str, slug: str) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    wrong = [s for s in index.slugs if s != slug][:1]
    narrow = retrieve(question, wrong, settings, home, index, top_k=2, use_graph=False)
    assert all(h.source.topic != slug for h in narrow.hits)  # the route alone cannot reach it
    wide = retrieve(question, wrong, settings, home, index, top_k=2, use_graph=False, wide_topics=index.slugs)
    assert wide.hits[0].source.topic == slug and wide.hits[0].dense_rank == 1
    assert len(wide.hits) <= 2  # bounded by top_k, not by topic


def test_routing_and_retrieval_embed_the_question_once(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    TopicProfiles(settings, home).refresh(index)
    server.reset_counts()
    TopicProfiles(settings, home).scores("How is the night look implemented?", index)
    retrieve("How is the night look implemented?", ["app"], settings, home, index, top_k=2, use_graph=False,
             wide_topics=index.slugs)
    assert _embed_inputs(server) == [["How is the night look implemented?"]]


def test_dense_weight_zero_makes_no_request_and_no_dense_list(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url, fusion_dense_weight=0)
    got = retrieve("Fix duplicate order emails", ["shop"], settings, home, index, top_k=2, use_graph=False,
                   wide_topics=index.slugs)
    assert _embed_inputs(server) == []
    assert got.hits and all(h.dense_rank is None for h in got.hits)


def test_an_unreachable_embedding_model_leaves_the_notes(tmp_path: Path) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host="http://127.0.0.1:9", router_timeout_s=2)
    assert dense_hits("order emails", index.slugs, settings, home, index, 3) == []
    got = retrieve("Fix duplicate order emails", ["shop"], settings, home, index, top_k=2, use_graph=False,
                   wide_topics=index.slugs)
    assert got.method == "notes" and got.hits[0].source.title == "Fix duplicate order emails"


def test_the_cache_names_each_vector_s_note_and_an_older_format_is_rebuilt(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    TopicProfiles(settings, home).refresh(index)
    path = home.route_cache / "shop.vec"
    header, _, body = path.read_bytes().partition(b"\n")
    meta = json.loads(header)
    assert meta["version"] == PROFILE_VERSION == 2
    assert meta["paths"] == ["", *(ref.path for ref in index.topics["shop"].notes)]
    old = {k: v for k, v in meta.items() if k != "paths"} | {"version": 1}
    path.write_bytes(json.dumps(old).encode() + b"\n" + body)
    assert TopicProfiles(settings, home).refresh(index) == 1 + len(index.topics["shop"].notes)
