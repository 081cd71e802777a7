"""The one Ollama client of memctl (distill, ask, sleep, doctor, ingest's model checks), with one error map.

Uses the official ``ollama`` Python client: ``/api/chat`` (``format`` may be a
JSON schema — Ollama's structured outputs — and ``stream=True`` yields NDJSON
chunks), ``/api/show`` (is a model pulled), ``/api/embed``, ``/api/tags``.
``/api/version`` has no client method and is read with ``httpx``. Every
failure becomes a :class:`ModelError` whose message names the fix and whose
``kind`` lets callers decide (routing falls back on any error; distilling
retries what may pass; answering reports it).

Tests replace :func:`_make_client` (the only place a client is built) with an
in-process fake (``tests/fakes/chat_client.py``); end-to-end tests talk to the
wire-level fake server instead.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import httpx
import ollama

from memctl.config import Settings
from memctl.exit_codes import MODEL, ExitCodeError

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)


class ModelError(ExitCodeError):
    """A model call failed (exit 9 when it stops a run).

    ``kind``: unreachable | missing_model | timeout | http | malformed | empty.
    """

    exit_code = MODEL

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def retryable(self) -> bool:
        """False when retrying cannot help: a model that is not pulled will not appear by retrying."""
        return self.kind != "missing_model"


def strip_think(text: str) -> str:
    """Remove ``<think>…</think>`` blocks (reasoning models emit them; an unclosed one runs to the end)."""
    return _THINK_BLOCK.sub("", text).strip()


def _make_client(host: str, timeout_s: float) -> ollama.Client:
    return ollama.Client(host=host, timeout=timeout_s)


def client_for(settings: Settings, timeout_s: float) -> ollama.Client:
    """A client for the configured provider with a per-request timeout (seconds). Thread-safe (httpx).

    ``model_provider = "ollama"``: an Ollama client for ``settings.ollama_host``; ``"openai"``: a
    :class:`memctl.openai_compat.OpenAICompatClient` for ``settings.model_base_url`` with the same methods
    and response types (the embedded backend is served that way too).
    """
    if settings.model_provider == "openai":
        return _make_openai_client(settings.model_endpoint, timeout_s, settings.model_api_key)
    return _make_client(settings.ollama_base_url, timeout_s)


def _make_openai_client(base_url: str, timeout_s: float, api_key: str) -> Any:
    from memctl.openai_compat import OpenAICompatClient

    return OpenAICompatClient(base_url, timeout_s, api_key)


def model_error(exc: BaseException, model: str, base_url: str, timeout_s: float,
                provider: str = "ollama") -> ModelError:
    """The one error map: a failure of the client (or httpx under it) as a :class:`ModelError`.

    ``provider`` (``ollama`` | ``openai``) picks the advice: ``ollama pull`` and ``ollama serve`` for Ollama,
    the server's own model list and ``model_base_url`` for an OpenAI-compatible server.
    """
    server = "Ollama" if provider == "ollama" else "the model server"
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404:
            fix = f"run `ollama pull {model}`" if provider == "ollama" else \
                "load it on the server or name one its /v1/models lists"
            return ModelError(f"model {model!r} is not available on {base_url}: {fix}", "missing_model")
        return ModelError(f"{server} returned HTTP {exc.status_code}: {exc.error}", "http")
    if isinstance(exc, httpx.TimeoutException):
        return ModelError(f"{model!r} did not answer within {timeout_s:g} s", "timeout")
    if isinstance(exc, (httpx.HTTPError, ConnectionError)):
        if provider == "ollama":
            return ModelError(f"cannot reach Ollama at {base_url} ({exc}): start it (`ollama serve`) or point "
                              "OLLAMA_HOST at it", "unreachable")
        return ModelError(f"cannot reach the OpenAI-compatible server at {base_url} ({exc}): start it or set "
                          "MEMCTL_MODEL_BASE_URL", "unreachable")
    return ModelError(f"{server} sent a malformed response: {exc}", "malformed")


def _error(exc: BaseException, model: str, settings: Settings, timeout_s: float) -> ModelError:
    return model_error(exc, model, settings.model_endpoint, timeout_s, settings.model_provider)


_CALL_ERRORS = (ollama.ResponseError, httpx.HTTPError, ConnectionError, ValueError)


def chat_once(client: ollama.Client, settings: Settings, *, model: str, messages: list[dict[str, str]],
              timeout_s: float, schema: dict[str, Any] | None = None, options: dict[str, Any] | None = None) -> str:
    """One non-streamed chat call at temperature 0; returns the think-stripped content.

    Raises:
        ModelError: on any failure, or an empty answer (kind ``empty``).
    """
    try:
        response = client.chat(model=model, messages=messages, format=schema, stream=False,
                               options={"temperature": 0, **(options or {})})
    except _CALL_ERRORS as exc:
        raise _error(exc, model, settings, timeout_s) from exc
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
        raise _error(exc, model, settings, timeout_s) from exc


def check_model(client: ollama.Client, settings: Settings, model: str, timeout_s: float) -> None:
    """Raise :class:`ModelError` unless Ollama answers and has ``model`` pulled (``/api/show``)."""
    try:
        client.show(model)
    except _CALL_ERRORS as exc:
        raise _error(exc, model, settings, timeout_s) from exc


def embed(client: ollama.Client, settings: Settings, model: str, texts: list[str], timeout_s: float) -> list[list[float]]:
    """One vector per text from ``model`` (``/api/embed``).

    Raises:
        ModelError: on any failure, or a reply without one vector per text (kind ``malformed``).
    """
    try:
        vectors = [list(v) for v in client.embed(model=model, input=texts).embeddings]
    except _CALL_ERRORS as exc:
        raise _error(exc, model, settings, timeout_s) from exc
    if len(vectors) != len(texts):
        raise ModelError(f"{model!r} returned {len(vectors)} vectors for {len(texts)} texts", "malformed")
    return vectors


def pulled_models(client: ollama.Client, settings: Settings, timeout_s: float) -> set[str]:
    """Names of the models pulled on the server (``/api/tags``), e.g. ``{"llama3.1:8b"}``.

    Raises:
        ModelError: the server cannot be reached or answers garbage.
    """
    try:
        return {m.model for m in client.list().models if m.model}
    except _CALL_ERRORS as exc:
        raise _error(exc, "", settings, timeout_s) from exc


def is_pulled(model: str, pulled: set[str]) -> bool:
    """True when ``model`` is among ``pulled`` (a name without a tag means ``:latest``, as Ollama resolves it)."""
    return model in pulled or (":" not in model and f"{model}:latest" in pulled)


def server_version(settings: Settings, timeout_s: float) -> str:
    """The server's version string (``/api/version``), ``"?"`` when it does not say.

    Raises:
        ModelError: the server cannot be reached or answers garbage.
    """
    if settings.model_provider == "openai":
        return "openai-compatible"
    try:
        with httpx.Client(base_url=settings.ollama_base_url, timeout=timeout_s) as http:
            response = http.get("/api/version")
            response.raise_for_status()
            return str(response.json().get("version", "?"))
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        raise _error(exc, "", settings, timeout_s) from exc
