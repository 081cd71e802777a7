"""Whose fault a Cognee failure is (memctl.graph.failures): real exception classes of the model
client stack, the network, Cognee and the text, several of each kind, bare and chained."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import httpx
import pytest

from memctl.graph.failures import MAX_REASON_CHARS, is_environment_error, is_store_busy, reason
from memctl.graph.offline import ensure_offline_assets


@pytest.fixture(scope="module")
def tiktoken_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    saved = dict(os.environ)
    try:
        return ensure_offline_assets(tmp_path_factory.mktemp("tiktoken"))
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(autouse=True)
def offline_tiktoken(tiktoken_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken reads cl100k_base from memctl's offline copy (nothing downloads)."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tiktoken_cache))


def _litellm(name: str) -> BaseException:
    import litellm.exceptions as errors

    return getattr(errors, name)(message=f"{name} from ollama", model="ollama/llama3.1:8b", llm_provider="ollama")


def _httpx_status(code: int) -> BaseException:
    request = httpx.Request("POST", "http://127.0.0.1:11434/api/generate")
    return httpx.HTTPStatusError(f"{code}", request=request, response=httpx.Response(code, request=request))


def _cognee(module: str, name: str, *args: object) -> BaseException:
    import importlib

    return getattr(importlib.import_module(module), name)(*args)


def _tiktoken_refusal() -> BaseException:
    import tiktoken

    try:
        tiktoken.get_encoding("cl100k_base").encode("a <|endoftext|> b")
    except ValueError as exc:
        return exc
    raise AssertionError("tiktoken accepted a special token")


def _validation_error() -> BaseException:
    from pydantic import BaseModel

    class Graph(BaseModel):
        nodes: list[str]

    try:
        Graph.model_validate({"nodes": "not a list"})
    except Exception as exc:  # noqa: BLE001 - the error is the sample
        return exc
    raise AssertionError("validated")


def _decode_error() -> BaseException:
    try:
        b"\xff\xfe\xfa".decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc
    raise AssertionError("decoded")


def _json_error() -> BaseException:
    try:
        json.loads("{not json")
    except ValueError as exc:
        return exc
    raise AssertionError("parsed")


def _chained(outer: BaseException, cause: BaseException) -> BaseException:
    outer.__cause__ = cause
    return outer


ENVIRONMENT = {
    "connection refused": lambda: ConnectionRefusedError(111, "Connection refused"),
    "connection reset": lambda: ConnectionResetError(104, "reset by peer"),
    "cognee connection test timeout": lambda: TimeoutError("Embedding connection test timed out after 30s."),
    "disk full": lambda: OSError(28, "No space left on device"),
    "httpx connect": lambda: httpx.ConnectError("All connection attempts failed"),
    "httpx read timeout": lambda: httpx.ReadTimeout("timed out"),
    "httpx 500": lambda: _httpx_status(500),
    "litellm not found (404)": lambda: _litellm("NotFoundError"),
    "litellm connection": lambda: _litellm("APIConnectionError"),
    "litellm 503": lambda: _litellm("ServiceUnavailableError"),
    "litellm timeout": lambda: _litellm("Timeout"),
    "litellm rate limit": lambda: _litellm("RateLimitError"),
    "cognee embedding": lambda: _cognee("cognee.infrastructure.databases.exceptions", "EmbeddingException", "bad body"),
    "cognee quota": lambda: _cognee("cognee.infrastructure.llm.exceptions", "LLMQuotaExceededError"),
    "wrapped connection error": lambda: _chained(RuntimeError("Pipeline run failed"), ConnectionRefusedError()),
    # Kuzu 0.11 when another process holds the graph (seen when a test process kept the graph open)
    "kuzu lock held by another process": lambda: RuntimeError(
        "IO exception: Could not set lock on file : /home/u/.local/share/memctl/cognee/system/databases/"
        "9dd29fe4/6f488f8f.pkl (Error: Resource temporarily unavailable)"),
    "kuzu io error": lambda: RuntimeError("IO exception: Cannot open file /x/y.kz: Permission denied"),
    "sqlite locked": lambda: sqlite3.OperationalError("database is locked"),
    "wrapped kuzu lock": lambda: _chained(RuntimeError("Pipeline run failed. Data item could not be processed."),
                                          RuntimeError("IO exception: Could not set lock on file : /a/b.pkl")),
    "wrapped litellm error": lambda: _chained(ValueError("extraction failed"), _litellm("InternalServerError")),
}

NOTE = {
    "tiktoken special token": _tiktoken_refusal,
    "not UTF-8": _decode_error,
    "extraction answer never validates": _validation_error,
    "bad JSON from the text": _json_error,
    "key error in a task": lambda: KeyError("chunk_index"),
    "content policy refusal": lambda: _litellm("ContentPolicyViolationError"),
    "wrapped tokenizer error": lambda: _chained(RuntimeError("Pipeline run failed"), _tiktoken_refusal()),
}


@pytest.mark.parametrize("kind", sorted(ENVIRONMENT))
def test_failures_of_the_model_server_network_and_stores_are_the_environments(kind: str) -> None:
    assert is_environment_error(ENVIRONMENT[kind]()) is True


@pytest.mark.parametrize("kind", sorted(NOTE))
def test_failures_of_the_text_are_the_notes(kind: str) -> None:
    assert is_environment_error(NOTE[kind]()) is False


@pytest.mark.parametrize("kind", ["tiktoken special token", "not UTF-8", "extraction answer never validates"])
def test_the_reason_is_one_bounded_line_naming_the_class(kind: str) -> None:
    error = NOTE[kind]()
    text = reason(error)
    assert text.startswith(type(error).__name__ + ": ") and "\n" not in text
    assert len(text) <= MAX_REASON_CHARS


def test_a_long_message_is_cut_and_marked() -> None:
    text = reason(ValueError("x" * 1000))
    assert len(text) == MAX_REASON_CHARS and text.endswith("…")
    assert reason(KeyError()) == "KeyError"


@pytest.mark.parametrize(("kind", "busy"), [
    ("kuzu lock held by another process", True), ("wrapped kuzu lock", True), ("sqlite locked", True),
    ("kuzu io error", False), ("disk full", False), ("connection refused", False),
])
def test_a_store_locked_by_another_process_is_told_apart(kind: str, busy: bool) -> None:
    assert is_store_busy(ENVIRONMENT[kind]()) is busy
