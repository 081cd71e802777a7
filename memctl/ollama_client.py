"""Chat calls to Ollama for the wake cycle (route, answer, propose), with one error mapping.

Uses the official ``ollama`` Python client (``/api/chat``; ``format`` may be
a JSON schema — Ollama's structured outputs — and ``stream=True`` yields
NDJSON chunks). Every failure becomes a :class:`ModelError` whose message
names the fix, and whose ``kind`` lets callers decide (routing falls back on
any error; answering reports it).
"""

from __future__ import annotations

from typing import Any, Iterator

import httpx
import ollama

from memctl.config import Settings
from memctl.ingest.distill import strip_think


class ModelError(Exception):
    """A model call failed. ``kind``: unreachable | missing_model | timeout | http | malformed | empty."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def client_for(settings: Settings, timeout_s: float) -> ollama.Client:
    """An Ollama client for ``settings.ollama_host`` with a per-request timeout (seconds)."""
    return ollama.Client(host=settings.ollama_base_url, timeout=timeout_s)


def _mapped(exc: BaseException, model: str, base_url: str, timeout_s: float) -> ModelError:
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404:
            return ModelError(f"model {model!r} is not available on {base_url}: run `ollama pull {model}`",
                              "missing_model")
        return ModelError(f"Ollama returned HTTP {exc.status_code}: {exc.error}", "http")
    if isinstance(exc, httpx.TimeoutException):
        return ModelError(f"{model!r} did not answer within {timeout_s:g} s", "timeout")
    if isinstance(exc, (httpx.HTTPError, ConnectionError)):
        return ModelError(f"cannot reach Ollama at {base_url} ({exc}): start it (`ollama serve`) or point "
                          "OLLAMA_HOST at it", "unreachable")
    return ModelError(f"Ollama sent a malformed response: {exc}", "malformed")


_CALL_ERRORS = (ollama.ResponseError, httpx.HTTPError, ConnectionError, ValueError)


def chat_once(client: ollama.Client, settings: Settings, *, model: str, messages: list[dict[str, str]],
              timeout_s: float, schema: dict[str, Any] | None = None, options: dict[str, Any] | None = None) -> str:
    """One non-streamed chat call; returns the think-stripped content.

    Raises:
        ModelError: on any failure, or an empty answer (kind ``empty``).
    """
    try:
        response = client.chat(model=model, messages=messages, format=schema, stream=False,
                               options={"temperature": 0, **(options or {})})
    except _CALL_ERRORS as exc:
        raise _mapped(exc, model, settings.ollama_base_url, timeout_s) from exc
    content = strip_think((response.message.content or "") if response.message else "")
    if not content:
        raise ModelError(f"{model!r} returned an empty answer", "empty")
    return content


def chat_stream(client: ollama.Client, settings: Settings, *, model: str, messages: list[dict[str, str]],
                timeout_s: float, options: dict[str, Any] | None = None) -> Iterator[str]:
    """Stream a chat answer piece by piece (raw content; the caller strips ``<think>``).

    Raises:
        ModelError: on any failure, including one in the middle of the stream.
    """
    try:
        for chunk in client.chat(model=model, messages=messages, stream=True,
                                 options={"temperature": 0, **(options or {})}):
            piece = chunk.message.content if chunk.message else ""
            if piece:
                yield piece
    except _CALL_ERRORS as exc:
        raise _mapped(exc, model, settings.ollama_base_url, timeout_s) from exc


def check_model(client: ollama.Client, settings: Settings, model: str, timeout_s: float) -> None:
    """Raise :class:`ModelError` unless Ollama answers and has ``model`` pulled (``/api/show``)."""
    try:
        client.show(model)
    except _CALL_ERRORS as exc:
        raise _mapped(exc, model, settings.ollama_base_url, timeout_s) from exc
