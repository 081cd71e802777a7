"""Embedding requests carry many texts (memctl.graph.embedding_batches), through Cognee's own factory,
against the fake Ollama server's real /api/embed wire format."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph
from memctl.graph.embedding_batches import BatchedEmbeddingEngine, coalescing
from tests.fakes.ollama_server import FakeOllama, embed_text as fake_vector

EMBED = "/api/embed"


@pytest.fixture
def engine_and_server(tmp_path: Path):
    """Cognee's embedding engine as memctl configures it, and the fake server behind it."""
    with FakeOllama() as server:
        home = DataHome(tmp_path / "home")
        knowledge_graph.configure(Settings(home=home.root, ollama_host=server.url, embedding_batch_size=8), home)
        from cognee.infrastructure.databases.vector.embeddings import get_embedding_engine

        engine = get_embedding_engine()
        server.reset_counts()
        yield engine, server


def _texts(n: int, tag: str) -> list[str]:
    return [f"{tag} text number {i} about kuzu and lancedb" for i in range(n)]


def _embed_all(engine, groups: list[list[str]], window: float | None) -> list[list[list[float]]]:
    async def run():
        if window is None:
            return await asyncio.gather(*(engine.embed_text(g) for g in groups))
        with coalescing(window):
            return await asyncio.gather(*(engine.embed_text(g) for g in groups))

    return [list(r) for r in knowledge_graph.run_sync(run())]


def _rounded(vectors: list[list[float]]) -> list[list[float]]:
    return [[round(x, 6) for x in v] for v in vectors]


def test_cognee_factory_returns_the_batched_engine(engine_and_server) -> None:
    engine, _ = engine_and_server
    assert isinstance(engine, BatchedEmbeddingEngine)
    assert engine.get_batch_size() == 8 and engine.get_vector_size() == 768


@pytest.mark.parametrize(("sizes", "requests"), [([3, 2, 1], 1), ([5, 5, 5], 2), ([8], 1), ([1] * 17, 3)])
def test_concurrent_calls_share_requests_of_at_most_batch_size(engine_and_server, sizes: list[int],
                                                                 requests: int) -> None:
    engine, server = engine_and_server
    groups = [_texts(n, f"g{i}") for i, n in enumerate(sizes)]
    results = _embed_all(engine, groups, window=0.05)
    assert server.counts[EMBED] == requests
    bodies = [body for path, _, body in server.calls if path == EMBED]
    assert all(isinstance(b["input"], list) and len(b["input"]) <= 8 for b in bodies)
    assert sum(len(b["input"]) for b in bodies) == sum(sizes)
    # each caller gets its own texts' vectors, in order
    for group, vectors in zip(groups, results):
        assert _rounded(vectors) == _rounded([fake_vector(t) for t in group])


def test_outside_cognify_a_lone_call_does_not_wait_for_company(engine_and_server) -> None:
    engine, server = engine_and_server
    [vectors] = _embed_all(engine, [["what did we decide about kuzu"]], window=None)
    assert server.counts[EMBED] == 1 and len(vectors) == 1
    # calls made in the same event-loop turn still share a request
    _embed_all(engine, [["a query"], ["another query"]], window=None)
    assert server.counts[EMBED] == 2


@pytest.mark.parametrize(("status", "message"), [
    (500, None),
    (400, "the input length exceeds the context length"),
])
def test_a_refused_batch_is_embedded_by_cognees_own_per_text_path(engine_and_server, status: int,
                                                                  message: str | None) -> None:
    engine, server = engine_and_server
    server.fail_next(1, status=status, routes=[EMBED], message=message)
    group = _texts(4, "fallback")
    [vectors] = _embed_all(engine, [group], window=0.01)
    assert _rounded(vectors) == _rounded([fake_vector(t) for t in group])
    inputs = [body["input"] for path, _, body in server.calls if path == EMBED]
    assert isinstance(inputs[0], list) and len(inputs[0]) == 4  # the refused list request
    assert sorted(inputs[1:]) == sorted(group)  # then one request per text


def test_unembeddable_text_gets_a_zero_vector_and_empty_input_costs_nothing(engine_and_server) -> None:
    engine, server = engine_and_server
    [vectors] = _embed_all(engine, [["real text here", "   "]], window=0.01)
    assert any(vectors[0]) and not any(vectors[1])
    assert _embed_all(engine, [[]], window=None) == [[]]
    assert server.counts[EMBED] == 1
