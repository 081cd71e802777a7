"""The fake model server's real-weights embedder (WordLlama l2_supercat, 256 dimensions): loads from the
wheel with downloads disabled, never touches the network, and serves /api/embed and /v1/embeddings."""

from __future__ import annotations

import math

import httpx
import pytest

from tests.fakes import wordllama_embedder
from tests.fakes.ollama_server import FakeOllama


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def test_loads_from_the_wheel_without_any_download(tmp_path, monkeypatch) -> None:
    import requests

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003
        raise AssertionError(f"wordllama tried to download: {args}")

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(requests.Session, "request", refuse)
    model = wordllama_embedder.load(tmp_path)
    assert (tmp_path / "tokenizers" / wordllama_embedder.TOKENIZER_FILE).is_file()
    assert not (tmp_path / "weights").exists()  # the weights come from the wheel itself
    rows = model.embed(["a cache ttl"], norm=True)
    assert len(rows[0]) == wordllama_embedder.DIMENSIONS


def test_a_missing_tokenizer_fails_instead_of_downloading(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(wordllama_embedder, "TOKENIZER_FILE", "no_such_tokenizer_config.json")
    with pytest.raises(FileNotFoundError, match="no_such_tokenizer"):
        wordllama_embedder.load(tmp_path)


def test_vectors_are_unit_norm_and_semantic() -> None:
    near, para, far = wordllama_embedder.embed_texts([
        "customers got two confirmation emails", "shoppers received a duplicate email message",
        "terraform state bucket in another region"])
    assert all(len(v) == 256 and math.isclose(math.sqrt(_dot(v, v)), 1.0, rel_tol=1e-5) for v in (near, para, far))
    assert _dot(near, para) > _dot(near, far) + 0.1


def test_a_larger_dimension_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 256"):
        wordllama_embedder.embed_texts(["x"], 768)


def test_the_fake_server_serves_wordllama_vectors() -> None:
    with FakeOllama(embedder="wordllama", embedding_dim=768) as server:
        assert server.embedding_dim == 256
        got = httpx.post(f"{server.url}/api/embed", json={"model": "nomic-embed-text", "input": ["a", "b c"]}).json()
        v1 = httpx.post(f"{server.url}/v1/embeddings", json={"model": "nomic-embed-text", "input": "a"}).json()
    assert [len(v) for v in got["embeddings"]] == [256, 256]
    assert got["embeddings"][0] == pytest.approx(wordllama_embedder.embed_texts(["a"])[0], abs=1e-6)
    assert v1["data"][0]["embedding"] == pytest.approx(got["embeddings"][0], abs=1e-6)


def test_an_unknown_embedder_is_refused() -> None:
    with pytest.raises(ValueError, match="embedder must be one of"):
        FakeOllama(embedder="glove")
