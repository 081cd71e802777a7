"""The OpenAI Responses API (``POST /v1/responses``, streamed SSE) for the fake model server.

Codex CLI talks to a custom ``model_provider`` with ``wire_api = "responses"``
only through this endpoint. The request carries ``instructions``, ``input``
(a list of Responses items: ``message`` with ``input_text``/``output_text``
content, ``reasoning``, ``function_call``, ``function_call_output``,
``custom_tool_call``, ``custom_tool_call_output``), ``tools`` and
``"stream": true``. The answer is a ``text/event-stream`` of
``event: <type>`` / ``data: <json>`` pairs, in the order the public API
reference documents (platform.openai.com/docs/api-reference/responses-streaming):
``response.created``, then per output item ``response.output_item.added``,
its deltas (``response.reasoning_summary_text.delta``,
``response.output_text.delta``), ``response.output_item.done`` with the
whole item, and last ``response.completed`` with the response id and usage.

The turn comes from the server's ``chat_script`` (contract in
``tests/fakes/scripted.py``), called with the raw Responses body (it has
``input`` where a chat body has ``messages``); ``None`` gets a short
deterministic text reply. A :class:`CustomToolCall` in ``turn.tool_calls``
becomes a ``custom_tool_call`` item (free-form ``input``, e.g. Codex's
``apply_patch`` grammar), any other tool call a ``function_call`` with JSON
``arguments``. Reasoning becomes a ``reasoning`` item with the text as its
summary and an opaque ``encrypted_content`` (as OpenAI's reasoning models send).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn


@dataclass
class CustomToolCall(ScriptedToolCall):
    """A free-form (``custom``) tool call: ``input`` is sent verbatim, ``arguments`` is unused."""

    input: str = ""


def input_text(item: dict[str, Any]) -> str:
    """The plain text of one Responses input item (message content parts joined; '' for others)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(c.get("text") or "") for c in content if isinstance(c, dict))
    return ""


def user_texts(body: dict[str, Any]) -> list[str]:
    """Every ``role: user`` message text of the request's ``input``, in order."""
    return [input_text(it) for it in body.get("input") or []
            if isinstance(it, dict) and it.get("type", "message") == "message" and it.get("role") == "user"]


def _digest(body: dict[str, Any]) -> str:
    return hashlib.sha1(json.dumps(body.get("input") or [], sort_keys=True, default=str).encode()).hexdigest()


def _items(body: dict[str, Any], turn: ScriptedTurn) -> list[dict[str, Any]]:
    seed = _digest(body)
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        items.append({"type": "reasoning", "id": f"rs_{seed[:16]}",
                      "summary": [{"type": "summary_text", "text": turn.reasoning}],
                      "encrypted_content": "gAAAAAB" + hashlib.sha256(turn.reasoning.encode()).hexdigest() * 3})
    if turn.text:
        items.append({"type": "message", "id": f"msg_{seed[:16]}", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
    for i, call in enumerate(turn.tool_calls):
        call_id = call.id or f"call_{hashlib.sha1(f'{seed}|{i}|{call.name}'.encode()).hexdigest()[:24]}"
        if isinstance(call, CustomToolCall):
            items.append({"type": "custom_tool_call", "id": f"ctc_{seed[:12]}{i}", "status": "completed",
                          "call_id": call_id, "name": call.name, "input": call.input})
        else:
            item = {"type": "function_call", "id": f"fc_{seed[:12]}{i}", "status": "completed",
                    "call_id": call_id, "name": call.name, "arguments": json.dumps(call.arguments)}
            if getattr(call, "namespace", ""):
                item["namespace"] = call.namespace  # a tool of a ``namespace`` tool group
            items.append(item)
    return items


def _default_turn(body: dict[str, Any]) -> ScriptedTurn:
    users = user_texts(body)
    last = users[-1].strip() if users else ""
    return ScriptedTurn(text=f"Noted: {last[:80]}" if last else "Hello.")


def r_v1_responses(handler: Any, body: dict[str, Any]) -> None:
    """Route handler for ``POST /v1/responses`` (registered in the fake server's route table).

    ``handler`` is the fake server's request handler (its ``fake.chat_script``,
    ``_start_stream``, ``_chunk``, ``_end_stream`` are used). A non-streaming
    request gets the finished response object as one JSON body.
    """
    script = handler.fake.chat_script
    turn = script(body) if script is not None else None
    if turn is None:
        turn = _default_turn(body)
    items = _items(body, turn)
    rid = "resp_" + _digest(body)[:24]
    model = body.get("model") or "stub"
    prompt_chars = len(json.dumps(body.get("input") or [], default=str)) + len(str(body.get("instructions") or ""))
    out_chars = len(json.dumps(items))
    usage = {"input_tokens": prompt_chars // 4, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": out_chars // 4, "output_tokens_details": {"reasoning_tokens": len(turn.reasoning) // 4},
             "total_tokens": (prompt_chars + out_chars) // 4}
    done = {"id": rid, "object": "response", "model": model, "status": "completed", "output": items, "usage": usage}
    if not body.get("stream"):
        handler._reply_json(done)
        return
    handler._start_stream("text/event-stream")
    seq = 0

    def send(event: dict[str, Any]) -> None:
        nonlocal seq
        event["sequence_number"] = seq
        seq += 1
        handler._chunk(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())

    send({"type": "response.created", "response": {**done, "status": "in_progress", "output": []}})
    for index, item in enumerate(items):
        send({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "reasoning":
            for s, part in enumerate(item["summary"]):
                send({"type": "response.reasoning_summary_text.delta", "item_id": item["id"], "output_index": index,
                      "summary_index": s, "delta": part["text"]})
        elif item["type"] == "message":
            send({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                  "content_index": 0, "delta": item["content"][0]["text"]})
        send({"type": "response.output_item.done", "output_index": index, "item": item})
    send({"type": "response.completed", "response": done})
    handler._end_stream()
