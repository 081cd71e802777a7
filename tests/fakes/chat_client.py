"""An in-process stand-in for ``ollama.Client``: the calls memctl makes, answered from a script.

For unit tests of distill, ask and sleep (the ``fake_chat`` fixture installs
it as the client :func:`memctl.ollama_client.client_for` builds). It returns
the ``ollama`` library's own response types, so the code under test parses
exactly what it parses from a real server; failures are raised as the
library and httpx raise them (``ollama.ResponseError``, ``httpx.ConnectError``,
``httpx.ReadTimeout``), so memctl's one error map is exercised too. End-to-end
tests use the wire-level server in ``tests/fakes/ollama_server.py`` instead.

Knobs:

* ``models`` — the pulled models (``show`` answers 404 for any other; so does ``chat``).
* :meth:`reply_with` — a function ``(model, messages, schema) -> str`` for every chat,
  or :meth:`queue` — replies used in order before it.
* :meth:`fail_next` — the next ``n`` calls (of ``methods``) fail with ``kind``:
  ``unreachable``, ``timeout``, ``http`` (HTTP 500), ``missing`` (HTTP 404) or ``malformed``.
* ``dims`` — the size of the vectors ``embed`` returns.

Every call is recorded in ``calls`` as ``(method, model, messages or inputs)``.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Iterator

import httpx
import ollama

DEFAULT_MODELS = frozenset({"llama3.1:8b", "nomic-embed-text"})
Reply = Callable[[str, list[dict[str, str]], "dict[str, Any] | None"], str]


class FakeChatClient:
    """Answers ``chat``, ``show``, ``embed`` and ``list`` like ``ollama.Client``; thread-safe."""

    def __init__(self, models: set[str] | frozenset[str] = DEFAULT_MODELS, dims: int = 768) -> None:
        self.models = set(models)
        self.dims = dims
        self.calls: list[tuple[str, str, Any]] = []
        self.hosts: list[tuple[str, float]] = []
        self._replies: deque[str] = deque()
        self._reply: Reply = lambda model, messages, schema: "A distilled note about the work."
        self._faults: deque[tuple[str, set[str]]] = deque()
        self._lock = threading.Lock()

    # -- knobs ----------------------------------------------------------------------------------

    def bind(self, host: str, timeout_s: float) -> "FakeChatClient":
        """Record the host and timeout a client was asked for; return this fake as that client."""
        with self._lock:
            self.hosts.append((host, timeout_s))
        return self

    def reply_with(self, reply: Reply) -> None:
        """Answer every chat with ``reply(model, messages, schema)``."""
        self._reply = reply

    def queue(self, *replies: str) -> None:
        """Answer the next chats with these texts, in order (then :meth:`reply_with`'s function)."""
        with self._lock:
            self._replies.extend(replies)

    def fail_next(self, n: int, kind: str, methods: tuple[str, ...] = ("chat", "show", "embed", "list")) -> None:
        """Make the next ``n`` calls of ``methods`` fail with ``kind`` (see the module doc)."""
        with self._lock:
            self._faults.extend((kind, set(methods)) for _ in range(n))

    def chats(self) -> list[tuple[str, list[dict[str, str]]]]:
        """``(model, messages)`` of every chat call so far."""
        return [(model, payload) for method, model, payload in self.calls if method == "chat"]

    # -- the ollama.Client surface memctl uses -------------------------------------------------------

    def chat(self, *, model: str, messages: list[dict[str, str]], format: dict[str, Any] | None = None,  # noqa: A002
             stream: bool = False, options: dict[str, Any] | None = None) -> Any:
        self._enter("chat", model, messages)
        self._require(model)
        with self._lock:
            text = self._replies.popleft() if self._replies else None
        if text is None:
            text = self._reply(model, messages, format)
        if not stream:
            return ollama.ChatResponse(model=model, done=True, message=ollama.Message(role="assistant", content=text))
        return self._stream(model, text)

    def show(self, model: str) -> ollama.ShowResponse:
        self._enter("show", model, None)
        self._require(model)
        return ollama.ShowResponse(modelfile=f"FROM {model}", model_info={})

    def embed(self, *, model: str, input: list[str]) -> ollama.EmbedResponse:  # noqa: A002
        self._enter("embed", model, list(input))
        self._require(model)
        return ollama.EmbedResponse(model=model, embeddings=[[0.1] * self.dims for _ in input])

    def list(self) -> ollama.ListResponse:
        self._enter("list", "", None)
        return ollama.ListResponse(models=[ollama.ListResponse.Model(model=m) for m in sorted(self.models)])

    # -- internals --------------------------------------------------------------------------------

    @staticmethod
    def _stream(model: str, text: str) -> Iterator[ollama.ChatResponse]:
        for start in range(0, len(text), 7):
            yield ollama.ChatResponse(model=model, done=False,
                                      message=ollama.Message(role="assistant", content=text[start:start + 7]))
        yield ollama.ChatResponse(model=model, done=True, message=ollama.Message(role="assistant", content=""))

    def _require(self, model: str) -> None:
        if model not in self.models:
            raise ollama.ResponseError(f'model "{model}" not found, try pulling it first', 404)

    def _enter(self, method: str, model: str, payload: Any) -> None:
        with self._lock:
            self.calls.append((method, model, payload))
            fault = next((f for f in self._faults if method in f[1]), None)
            if fault is not None:
                self._faults.remove(fault)
        if fault is None:
            return
        kind = fault[0]
        request = httpx.Request("POST", f"http://fake/api/{method}")
        if kind == "unreachable":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if kind == "timeout":
            raise httpx.ReadTimeout("timed out", request=request)
        if kind == "http":
            raise ollama.ResponseError("internal error", 500)
        if kind == "missing":
            raise ollama.ResponseError(f'model "{model}" not found, try pulling it first', 404)
        if kind == "malformed":
            raise ValueError("Expecting value: line 1 column 1 (char 0)")
        raise AssertionError(f"unknown fault kind {kind!r}")
