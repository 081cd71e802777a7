"""The embedded backend's loopback endpoint: OpenAI's wire protocol over :class:`EmbeddedModels`.

One endpoint serves memctl's own client (:mod:`memctl.openai_compat`) and
Cognee (litellm's ``openai/`` route, Cognee's ``OpenAICompatibleEmbeddingEngine``),
so the embedded backend is just an OpenAI-compatible server at
``http://127.0.0.1:<port>/v1``: one code path for it and for LM Studio,
llama.cpp's server, vLLM or LocalAI.

Routes (formats from OpenAI's API reference): ``GET /v1/models``;
``POST /v1/chat/completions`` (one JSON body, or server-sent events
``data: {...}`` ending ``data: [DONE]`` with ``"stream": true``);
``POST /v1/embeddings`` (float vectors). Structured output: a
``response_format`` ``json_schema`` constrains the answer by that schema's
grammar; a ``json_object`` request whose system prompt carries the schema the
way Cognee's litellm_native adapter writes it (``You MUST respond with valid
JSON conforming to this schema:`` and a fenced JSON block) is constrained by
that schema, and the schema text is taken out of the prompt (the grammar
enforces it, and a 135M model's small context is better spent on the input).

Errors: ``{"error": {"message", "type"}}`` with 400 (bad request), 404
(unknown model or path) or 500 (the model failed).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memctl.embedded.models import CHAT_MODEL, EMBED_MODEL, EmbeddedModelError, EmbeddedModels, available_models

__all__ = ["EmbeddedServer", "schema_from_prompt"]

_PROMPT_SCHEMA = re.compile(
    r"\n*You MUST respond with valid JSON conforming to this schema:\s*```json\s*(\{.*?\})\s*```\s*"
    r"(?:Do not include any text outside the JSON object\.)?", re.DOTALL)


def schema_from_prompt(messages: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    """The JSON schema a system or user message spells out (Cognee's JSON-object fallback), and the messages
    with that block replaced by one short instruction; ``(None, messages)`` when none carries one."""
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, str):
            continue
        match = _PROMPT_SCHEMA.search(content)
        if not match:
            continue
        try:
            schema = json.loads(match.group(1))
        except ValueError:
            continue
        cleaned = [dict(m) for m in messages]
        cleaned[index]["content"] = content[:match.start()] + "\n\nAnswer with one JSON object." + content[match.end():]
        return schema, cleaned
    return None, messages


class EmbeddedServer:
    """A threaded HTTP server on ``127.0.0.1`` (``port`` 0: a free one) in front of ``models``.

    :meth:`start` binds and serves on a daemon thread; :meth:`stop` shuts it down and closes the socket.
    """

    def __init__(self, models: EmbeddedModels, port: int = 0) -> None:
        self.models = models
        handler = type("Handler", (_Handler,), {"models": models})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "EmbeddedServer":
        """Serve on a daemon thread; returns self."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="memctl-embedded-endpoint", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    models: EmbeddedModels
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, {"error": {"message": message, "type": kind}})

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") == "/v1/models":
            now = int(time.time())
            self._send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": now, "owned_by": "memctl-embedded"} for m in available_models()]})
        else:
            self._error(404, f"no route {self.path}", "not_found_error")

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body is not a JSON object")
        except ValueError as exc:
            self._error(400, f"invalid JSON body: {exc}", "invalid_request_error")
            return
        path = self.path.rstrip("/")
        try:
            if path == "/v1/chat/completions":
                self._chat(body)
            elif path == "/v1/embeddings":
                self._embeddings(body)
            else:
                self._error(404, f"no route {self.path}", "not_found_error")
        except EmbeddedModelError as exc:
            self._error(500, str(exc), "server_error")
        except (ValueError, TypeError, KeyError) as exc:
            self._error(400, f"bad request: {exc}", "invalid_request_error")

    def _embeddings(self, body: dict[str, Any]) -> None:
        if body.get("model") not in (EMBED_MODEL, None):
            self._error(404, f"model {body.get('model')!r} not found (served: {EMBED_MODEL})", "not_found_error")
            return
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else [str(t) for t in (texts or [])]
        vectors = self.models.embed(texts)
        self._send(200, {"object": "list", "model": EMBED_MODEL, "data": [
            {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    def _chat(self, body: dict[str, Any]) -> None:
        model = str(body.get("model") or CHAT_MODEL).removeprefix("openai/")
        if model != CHAT_MODEL:
            self._error(404, f"model {model!r} not found (served: {CHAT_MODEL})", "not_found_error")
            return
        messages = [{"role": str(m.get("role", "user")), "content": _text(m.get("content"))} for m in body["messages"]]
        fmt = body.get("response_format") or {}
        schema = None
        if fmt.get("type") == "json_schema":
            schema = (fmt.get("json_schema") or {}).get("schema")
        elif fmt.get("type") == "json_object":
            schema, messages = schema_from_prompt(messages)
        requested = body.get("max_completion_tokens") or body.get("max_tokens") or 10**6
        kwargs = {"schema": schema, "json_object": fmt.get("type") == "json_object" and schema is None,
                  "temperature": float(body.get("temperature") or 0.0), "max_tokens": int(requested)}
        created, ident = int(time.time()), f"chatcmpl-{time.monotonic_ns()}"
        if body.get("stream"):
            self._stream(messages, kwargs, created, ident)
            return
        text, finish = self.models.chat(messages, **kwargs)
        self._send(200, {"id": ident, "object": "chat.completion", "created": created, "model": CHAT_MODEL,
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                      "finish_reason": finish}],
                         "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})

    def _stream(self, messages: list[dict[str, str]], kwargs: dict[str, Any], created: int, ident: str) -> None:
        pieces = self.models.chat(messages, stream=True, **kwargs)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(delta: dict[str, str], finish: str | None) -> None:
            chunk = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": CHAT_MODEL,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n")
            self.wfile.flush()

        for piece in pieces:
            event({"content": piece}, None)
        event({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _text(content: Any) -> str:
    """A message's content as text (OpenAI's list-of-parts form joined)."""
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)
