"""The Anthropic Messages API on the fake model server (``POST /v1/messages``, ``/v1/messages/count_tokens``).

Wire format from Anthropic's public API reference ("Messages", "Streaming
Messages"): a request ``{model, max_tokens, system?, messages: [{role,
content: str | [blocks]}], tools?, stream?, thinking?}``; a streamed answer is
Server-Sent Events ``event: <type>\\ndata: <json>\\n\\n`` in the order
``message_start`` → per content block ``content_block_start`` /
``content_block_delta`` (``text_delta``, ``thinking_delta`` +
``signature_delta``, ``input_json_delta``) / ``content_block_stop`` →
``message_delta`` (``stop_reason`` ``end_turn`` or ``tool_use``, usage) →
``message_stop``. Without ``stream`` the same message is one JSON body.

Replies come from ``fake.anthropic_script`` (a callable ``(request) ->
ScriptedTurn | None``, contract of :mod:`tests.fakes.scripted`) when set and
when it answers, else a short deterministic text (``"OK."``; a request with
tools gets the same). Registered in the route table of
:mod:`tests.fakes.ollama_server`. Deterministic: ids are hashes of the request.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.fakes.scripted import ScriptedTurn

__all__ = ["r_count_tokens", "r_messages", "request_text", "last_user_blocks"]


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def last_user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the request's last user message ([] when none)."""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return _blocks(message.get("content"))
    return []


def request_text(body: dict[str, Any]) -> str:
    """All user text of the request (text blocks and tool results), joined by newlines."""
    out: list[str] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        for block in _blocks(message.get("content")):
            if block.get("type") == "text":
                out.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                out.extend(str(b.get("text", "")) for b in _blocks(inner) if b.get("type") == "text")
    return "\n".join(out)


def _message_id(body: dict[str, Any]) -> str:
    digest = hashlib.sha1(json.dumps(body.get("messages"), sort_keys=True, default=str).encode()).hexdigest()
    return "msg_fake" + digest[:20]


def _content(body: dict[str, Any], turn: ScriptedTurn) -> list[dict[str, Any]]:
    mid = _message_id(body)
    content: list[dict[str, Any]] = []
    if turn.reasoning:
        content.append({"type": "thinking", "thinking": turn.reasoning, "signature": "sig-" + mid[-12:]})
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for n, call in enumerate(turn.tool_calls):
        content.append({"type": "tool_use", "id": call.id or f"toolu_{mid[-16:]}{n:02d}", "name": call.name,
                        "input": call.arguments})
    if not content:
        content.append({"type": "text", "text": ""})
    return content


def _usage(body: dict[str, Any], turn: ScriptedTurn) -> dict[str, int]:
    prompt = len(json.dumps(body.get("messages"), default=str)) // 4
    return {"input_tokens": max(1, prompt), "output_tokens": max(1, (len(turn.text) + len(turn.reasoning)) // 4),
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def _turn(handler: Any, body: dict[str, Any]) -> ScriptedTurn:
    script = getattr(handler.fake, "anthropic_script", None)
    turn = script(body) if script is not None else None
    return turn if turn is not None else ScriptedTurn(text="OK.")


def r_messages(handler: Any, body: dict[str, Any]) -> None:
    """``POST /v1/messages``: one scripted assistant message, streamed when ``stream`` is true."""
    model = str(body.get("model") or "claude-fake")
    turn = _turn(handler, body)
    content = _content(body, turn)
    stop = "tool_use" if turn.tool_calls else "end_turn"
    usage = _usage(body, turn)
    message = {"id": _message_id(body), "type": "message", "role": "assistant", "model": model,
               "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}
    if not body.get("stream"):
        handler._json(200, message)
        return
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start",
                           "message": {**message, "content": [], "stop_reason": None,
                                       "usage": {**usage, "output_tokens": 1}}})]
    for index, block in enumerate(content):
        kind = block["type"]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]},
                      {"type": "signature_delta", "signature": block["signature"]}]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        else:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events.extend(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
                      for d in deltas)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": usage["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    handler._start_stream("text/event-stream")
    for name, data in events:
        handler._chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode("utf-8"))
    handler._end_stream()


def r_count_tokens(handler: Any, body: dict[str, Any]) -> None:
    """``POST /v1/messages/count_tokens``: ``{"input_tokens": n}``, about 4 characters a token."""
    handler._json(200, {"input_tokens": max(1, len(json.dumps(body.get("messages"), default=str)) // 4)})
