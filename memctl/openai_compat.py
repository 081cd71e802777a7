"""A client for OpenAI-compatible model servers with the ``ollama.Client`` surface memctl uses.

LM Studio, llama.cpp's ``llama-server``, vLLM, LocalAI and memctl's own
embedded backend (:mod:`memctl.embedded.server`) speak OpenAI's wire protocol
(``POST /v1/chat/completions``, ``POST /v1/embeddings``, ``GET /v1/models``;
formats from OpenAI's API reference), not Ollama's. :class:`OpenAICompatClient`
answers the four calls :mod:`memctl.ollama_client` makes — ``chat``, ``embed``,
``list``, ``show`` — with the ``ollama`` package's own response types, so the
one error map and every caller stay as they are; the provider switch is
:func:`memctl.ollama_client.client_for`.

Mapping:

* ``chat(format=<JSON schema>)`` → ``response_format = {"type": "json_schema",
  "json_schema": {"name": "response", "schema": ..., "strict": true}}``;
  ``format="json"`` → ``{"type": "json_object"}``. ``options.temperature``,
  ``top_p``, ``seed`` and ``num_predict`` (as ``max_tokens``) are passed on;
  Ollama-only options (``num_ctx``) are dropped: the server owns its context.
  ``stream=True`` reads the server-sent events (``data: {...}`` … ``data: [DONE]``).
* ``embed`` → ``/embeddings`` with ``encoding_format: "float"``, sorted by ``index``.
* ``list`` → ``/models`` ids; ``show(model)`` raises ``ollama.ResponseError``
  with status 404 when the id is not listed (what Ollama's ``/api/show`` does).

Errors: an HTTP error status becomes ``ollama.ResponseError`` (the server's
``error.message`` when it sends one); transport errors stay ``httpx`` errors;
a body that is not the expected JSON raises ``ValueError``.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any, Iterator

import httpx
import ollama

__all__ = ["OpenAICompatClient", "response_format"]

_PASSED_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "seed": "seed", "num_predict": "max_tokens"}


def response_format(schema: dict[str, Any] | str | None) -> dict[str, Any] | None:
    """OpenAI's ``response_format`` for an Ollama ``format`` value (schema dict, ``"json"`` or ``None``)."""
    if schema is None or schema == "":
        return None
    if schema == "json":
        return {"type": "json_object"}
    if isinstance(schema, dict):
        return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema, "strict": True}}
    raise ValueError(f"unsupported format {schema!r}")


class OpenAICompatClient:
    """``base_url`` is the server's ``/v1`` base (``http://127.0.0.1:1234/v1``); ``api_key`` goes in a Bearer
    header when not empty; ``timeout_s`` bounds every request (seconds). Thread-safe (one ``httpx.Client``)."""

    def __init__(self, base_url: str, timeout_s: float, api_key: str = "") -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url + "/", timeout=timeout_s, headers=headers)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        response = self._http.post(path, json=body)
        _raise_for_status(response)
        return response.json()

    def chat(self, *, model: str, messages: list[dict[str, str]], format: Any = None, stream: bool = False,
             options: dict[str, Any] | None = None, **_: Any) -> Any:
        """``/chat/completions``: an ``ollama.ChatResponse``, or an iterator of them when ``stream``."""
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": stream}
        for name, wire in _PASSED_OPTIONS.items():
            if options and options.get(name) is not None:
                body[wire] = options[name]
        fmt = response_format(format)
        if fmt:
            body["response_format"] = fmt
        if stream:
            return self._stream(body)
        data = self._post("chat/completions", body)
        try:
            content = data["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ValueError(f"no choices[0].message in the reply: {str(data)[:200]}") from exc
        return ollama.ChatResponse(model=model, done=True, message=ollama.Message(role="assistant", content=content))

    def _stream(self, body: dict[str, Any]) -> Iterator[ollama.ChatResponse]:
        with self._http.stream("POST", "chat/completions", json=body) as response:
            if response.status_code >= 400:
                response.read()
                _raise_for_status(response)
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                chunk = json.loads(payload)
                choices = chunk.get("choices") or [{}]
                piece = (choices[0].get("delta") or {}).get("content") or ""
                yield ollama.ChatResponse(model=body["model"], done=False,
                                          message=ollama.Message(role="assistant", content=piece))

    def embed(self, *, model: str, input: list[str] | str, **_: Any) -> ollama.EmbedResponse:
        """``/embeddings``: one float vector per input, in input order."""
        texts = [input] if isinstance(input, str) else list(input)
        data = self._post("embeddings", {"model": model, "input": texts, "encoding_format": "float"})
        try:
            rows = sorted(data["data"], key=lambda row: row.get("index", 0))
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"no data[].embedding in the reply: {str(data)[:200]}") from exc
        return ollama.EmbedResponse(model=model, embeddings=vectors)

    def list(self) -> ollama.ListResponse:
        """``/models``: the served model ids."""
        response = self._http.get("models")
        _raise_for_status(response)
        try:
            ids = [str(row["id"]) for row in response.json()["data"]]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"no data[].id in the /models reply: {response.text[:200]}") from exc
        return ollama.ListResponse(models=[ollama.ListResponse.Model(model=i) for i in ids])

    def show(self, model: str) -> dict[str, str]:
        """Raise ``ollama.ResponseError`` (404) unless ``model`` is among ``/models``' ids (a name without a tag
        also matches ``<name>:latest``, as Ollama's own OpenAI layer lists them)."""
        served = {m.model for m in self.list().models}
        if model not in served and f"{model}:latest" not in served:
            raise ollama.ResponseError(f"model {model!r} not found", HTTPStatus.NOT_FOUND)
        return {"model": model}


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    raise ollama.ResponseError(str(message or response.text[:200] or response.reason_phrase), response.status_code)
