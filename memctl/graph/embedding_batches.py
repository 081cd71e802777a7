"""Embedding requests that carry many texts: Cognee's per-text ``/api/embed`` calls, coalesced.

Cognee 1.6.5's ``OllamaEmbeddingEngine.embed_text`` sends one HTTP request
per text (``asyncio.gather`` over ``_get_embedding``), and its indexing
(``cognee/tasks/storage/index_data_points.py``) calls ``embed_text`` once
per data-point type and field, several at a time — about 30 short requests
per note on the real fixture. Ollama's ``/api/embed`` takes a list
(``{"model", "input": [...]}`` → ``{"embeddings": [[...], ...],
"prompt_eval_count"}``; docs: github.com/ollama/ollama/blob/main/docs/api.md,
"Generate Embeddings"), so :class:`BatchedEmbeddingEngine` gathers the
``embed_text`` calls that arrive within :data:`WINDOW_S` of each other and
sends their texts together, at most ``batch_size`` texts a request. The
window is open only inside :func:`coalescing` (cognify uses it, where
indexing calls come in bursts between model calls); elsewhere — a query
embedded by ``ask`` — only calls made in the same event-loop turn share a
request, so nothing waits.

It wraps Cognee's engine rather than replacing it: every other attribute is
the wrapped engine's, and a batch the server refuses (an input over the
model's context, a server error) is embedded again through the wrapped
engine's own ``embed_text`` — its per-text path with its retries and its
splitting of over-length texts — so batching can only remove requests,
never change what is embedded. :func:`install` puts the wrapper behind
Cognee's ``create_embedding_engine`` (the one factory every store asks).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["DEFAULT_BATCH_SIZE", "WINDOW_S", "BatchedEmbeddingEngine", "coalescing", "install"]

DEFAULT_BATCH_SIZE = 64  # texts per request: ~100-byte chunk and entity texts, so a few KB a request
WINDOW_S = 0.05  # how long a call waits for others in cognify: ~19 requests for the fixture's 7 notes, not 26 at 10 ms
_REQUEST_TIMEOUT_S = 120.0
_window: contextvars.ContextVar[float] = contextvars.ContextVar("memctl_embedding_window_s", default=0.0)


@contextlib.contextmanager
def coalescing(window_s: float = WINDOW_S) -> Iterator[None]:
    """Within this block (and the tasks it starts), an embedding call waits up to ``window_s``
    seconds for others to share its request."""
    token = _window.set(window_s)
    try:
        yield
    finally:
        _window.reset(token)
_REQUEST_TIMEOUT_S = 120.0


@dataclass
class _Call:
    """One ``embed_text`` call: its texts may travel in several requests, its result waits for all."""

    texts: list[str]
    future: asyncio.Future
    vectors: list[Any] = field(default_factory=list)
    remaining: int = 0
    tokens: int = 0

    def __post_init__(self) -> None:
        self.vectors = [None] * len(self.texts)
        self.remaining = len(self.texts)


class BatchedEmbeddingEngine:
    """Cognee's Ollama embedding engine with coalesced, list-input requests (module doc).

    Args:
        engine: Cognee's ``OllamaEmbeddingEngine`` (its ``endpoint``, ``model``,
            ``dimensions``, ``mock`` and ``embed_text`` are used).
        batch_size: texts per request (≥ 1); also what ``get_batch_size``
            reports, so Cognee's indexing hands over batches of that size.
    """

    def __init__(self, engine: Any, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._engine = engine
        self._batch_size = batch_size
        self._pending: list[tuple[_Call, int]] = []  # (call, index of one of its texts), in arrival order
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.requests = 0  # list requests sent (a figure for benchmarks and tests)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def get_batch_size(self) -> int:
        """Texts per request (Cognee sizes its indexing batches by it)."""
        return self._batch_size

    def get_vector_size(self) -> int:
        """The wrapped engine's vector size."""
        return self._engine.get_vector_size()

    async def embed_text(self, text: list[str] | str) -> Any:
        """Vectors for ``text`` (one per input, in order) as Cognee's ``EmbeddingResult``.

        Raises what the wrapped engine's ``embed_text`` raises for texts it cannot embed.
        """
        from cognee.infrastructure.databases.vector.embeddings.EmbeddingEngine import EmbeddingResult

        texts = [text] if isinstance(text, str) else list(text)
        if not texts:
            return EmbeddingResult([], tokens=0)
        if getattr(self._engine, "mock", False) or "/api/" not in str(getattr(self._engine, "endpoint", "")):
            return await self._engine.embed_text(texts)  # no wire requests, or not Ollama's list API
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop: nothing pending belongs to it
            self._loop, self._pending, self._timer = loop, [], None
        call = _Call(texts, loop.create_future())
        self._pending.extend((call, i) for i in range(len(texts)))
        while len(self._pending) >= self._batch_size:  # full requests leave at once
            chunk, self._pending = self._pending[:self._batch_size], self._pending[self._batch_size:]
            loop.create_task(self._send(chunk))
        if self._pending and self._timer is None:
            self._timer = loop.call_later(_window.get(), self._flush_rest)
        elif not self._pending and self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return await call.future

    def _flush_rest(self) -> None:
        self._timer = None
        chunk, self._pending = self._pending, []
        if chunk:
            asyncio.get_running_loop().create_task(self._send(chunk))

    async def _send(self, chunk: list[tuple[_Call, int]]) -> None:
        from cognee.infrastructure.databases.vector.embeddings.EmbeddingEngine import EmbeddingResult

        try:
            vectors, tokens = await self._embed_chunk([call.texts[i] for call, i in chunk])
        except BaseException as exc:  # noqa: BLE001 - handed to every caller whose text was in it
            for call, _ in chunk:
                if call.future.done():
                    continue
                if isinstance(exc, asyncio.CancelledError):
                    call.future.cancel()
                else:
                    call.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        total_chars = sum(len(call.texts[i]) for call, i in chunk) or 1
        for (call, i), vector in zip(chunk, vectors):
            call.vectors[i] = vector
            call.tokens += round(tokens * len(call.texts[i]) / total_chars)  # the request's count, by length
            call.remaining -= 1
            if call.remaining == 0 and not call.future.done():
                call.future.set_result(EmbeddingResult(call.vectors, tokens=call.tokens))

    async def _embed_chunk(self, texts: list[str]) -> tuple[list[Any], int]:
        """One list request for ``texts``; on any refusal, the wrapped engine's per-text path."""
        import httpx
        from cognee.infrastructure.databases.vector.embeddings.utils import (
            handle_embedding_response,
            sanitize_embedding_text_inputs,
        )

        engine = self._engine
        payload = {"model": engine.model, "input": sanitize_embedding_text_inputs(texts),
                   "dimensions": engine.dimensions, "truncate": False}  # refuse over-length input, never cut it
        try:
            self.requests += 1
            async with httpx.AsyncClient(timeout=_REQUEST_TIMEOUT_S, trust_env=False) as client:
                response = await client.post(engine.endpoint, json=payload)
            data = response.json()
            vectors = data.get("embeddings") if response.status_code == 200 and isinstance(data, dict) else None
            if not isinstance(vectors, list) or len(vectors) != len(texts):
                raise ValueError(f"no list of {len(texts)} embeddings in the reply ({response.status_code})")
            tokens = data.get("prompt_eval_count")
            return handle_embedding_response(texts, vectors, engine.dimensions), int(tokens or 0)
        except (httpx.HTTPError, ValueError):
            result = await engine.embed_text(texts)  # Cognee's own path: retries, splits long texts
            return list(result), int(getattr(result, "_tokens", 0) or 0)


def install(batch_size: int = DEFAULT_BATCH_SIZE) -> None:
    """Make Cognee's ``create_embedding_engine`` return Ollama engines wrapped in
    :class:`BatchedEmbeddingEngine` (other providers unchanged). Idempotent; a new
    ``batch_size`` replaces the earlier wrapper (the factory's cache is cleared).

    Source: ``cognee/infrastructure/databases/vector/embeddings/get_embedding_engine.py``
    (``get_embedding_engine`` looks ``create_embedding_engine`` up in its module at each call).
    """
    import importlib

    # The package re-exports the function under the module's name: fetch the module itself.
    factory = importlib.import_module("cognee.infrastructure.databases.vector.embeddings.get_embedding_engine")
    from cognee.infrastructure.databases.vector.embeddings.OllamaEmbeddingEngine import OllamaEmbeddingEngine

    original = getattr(factory.create_embedding_engine, "memctl_original", factory.create_embedding_engine)
    current = factory.create_embedding_engine
    if getattr(current, "memctl_batching", None) == batch_size:
        return
    if hasattr(original, "cache_clear"):
        original.cache_clear()

    @functools.lru_cache
    def create_embedding_engine(*args: Any, **kwargs: Any) -> Any:
        engine = original(*args, **kwargs)
        if isinstance(engine, OllamaEmbeddingEngine):
            return BatchedEmbeddingEngine(engine, batch_size)
        return engine

    create_embedding_engine.memctl_original = original  # type: ignore[attr-defined]
    create_embedding_engine.memctl_batching = batch_size  # type: ignore[attr-defined]
    factory.create_embedding_engine = create_embedding_engine
