"""Adapter for OpenCode's ``session_message`` layout (dev build 0.0.0-dev-202609212252, HTTP API).

Source format (observed in the sessions that ``opencode serve``'s ``POST
/api/session/{id}/prompt`` writes; schema names from the build's OpenAPI
document at ``GET /doc``): one row per message, ``session_message(id,
session_id, type, seq, time_created, time_updated, data)``, ordered by
``seq`` (shared with the session's events, so it has gaps). ``data`` is JSON
without ``id`` and ``type`` (those are columns):

=================  ==========================================================
``user``           ``{time, text, files?: [{uri, mime, name?}], agents?: [{name}]}``
``assistant``      ``{time, agent, model, content: [item…], snapshot?: {start,
                   end, files: [relative paths]}, finish?, cost?, tokens?, error?}``;
                   items: ``{type: "text", id, text}``, ``{type: "reasoning",
                   id, text}``, ``{type: "tool", id, name, state: {status,
                   input, content: [{type: "text", text} | {type: "file", uri,
                   mime, name?}], structured, error?: {message}}, time}``
``synthetic``      ``{time, sessionID, text}`` (OpenCode-written user text)
``system``         ``{time, text}``
``shell``          ``{time, callID, command, output}`` (a command the user ran)
``compaction``     ``{time, reason: "auto"|"manual", summary, recent}``
``agent-switched`` / ``model-switched``  lifecycle only (1.14 writes these too)
=================  ==========================================================

Each row (or assistant item) becomes one :class:`memctl.connectors.model.Part` in
message-v2 shape, so the transcript treats both layouts alike: text →
``text``; reasoning → ``reasoning``; tool → ``tool`` with ``state.output`` =
the text items of ``state.content`` joined (a tool that returned no text,
like ``read``, whose file text is ``state.structured.content``: that text),
``state.error`` = ``error.message``, file items as ``state.attachments``;
a non-empty ``snapshot.files`` → ``patch``; synthetic/system text →
``text`` with ``synthetic: true`` (dropped like OpenCode's synthetic parts);
shell → a ``bash`` tool part; compaction → ``compaction`` (an explicit
``[context compacted]`` marker, not the summary: the rows before it stay in
the table and are read in full). Unknown row types and content item types
are skipped and counted (``unknown_types``); lifecycle rows are dropped.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from memctl.connectors.model import Part
from memctl.connectors.opencode.cells import CellDecoder
from memctl.connectors.opencode.message_part import SortKey
from memctl.connectors.opencode.schema import LIFECYCLE_ROW_TYPES

_ROWS_BY_SEQ = text(
    "SELECT id, type, time_created, data FROM session_message WHERE session_id = :id ORDER BY seq, id")
# OpenCode 1.14's table has no seq (it only holds lifecycle rows there).
_ROWS_BY_TIME = text(
    "SELECT id, type, time_created, data FROM session_message WHERE session_id = :id ORDER BY time_created, id")


def read_session_messages(conn: Connection, session_id: str, cells: CellDecoder, *, ordered_by_seq: bool,
                          skip_ids: set[str] = frozenset()) -> list[tuple[SortKey, Part]]:
    """The parts of one session's ``session_message`` rows in ``seq`` order
    (``time_created, id`` when the table has no ``seq``), each with its sort key.

    ``skip_ids``: message ids already read from the message/part layout (a
    message present in both is taken once, from there).
    """
    keyed: list[tuple[SortKey, Part]] = []
    for row_id, row_type, row_time, row_data in conn.execute(
        _ROWS_BY_SEQ if ordered_by_seq else _ROWS_BY_TIME, {"id": session_id}
    ):
        if row_type in LIFECYCLE_ROW_TYPES or row_id in skip_ids:
            continue
        cells.stats.parts += 1
        payload = cells.json_object(row_data, f"session_message {row_id} in session {session_id}")
        if payload is None:
            continue
        time_ms = cells.millis(row_time, session_id)
        parts = _row_parts(row_id, row_type, time_ms, payload, session_id, cells)
        keyed.extend(((time_ms, row_id, n), part) for n, part in enumerate(parts))
    return keyed


def _part(row_id: str, n: int, role: str, data: dict[str, Any], time_ms: int) -> Part:
    return Part(id=f"{row_id}#{n}", message_id=row_id, role=role, type=data["type"], data=data,
                time_created=time_ms)


def _row_parts(row_id: str, row_type: str, time_ms: int, data: dict[str, Any], session_id: str,
               cells: CellDecoder) -> list[Part]:
    if row_type == "user":
        return _user_parts(row_id, time_ms, data)
    if row_type == "assistant":
        return _assistant_parts(row_id, time_ms, data, session_id, cells)
    if row_type in ("synthetic", "system"):
        return [_part(row_id, 0, "user", {"type": "text", "text": _str(data.get("text")), "synthetic": True,
                                          "source": row_type}, time_ms)]
    if row_type == "shell":
        state = {"status": "completed", "input": {"command": _str(data.get("command"))},
                 "output": _str(data.get("output")), "title": "shell command run by the user"}
        return [_part(row_id, 0, "user", {"type": "tool", "tool": "bash", "callID": _str(data.get("callID")),
                                          "state": state}, time_ms)]
    if row_type == "compaction":
        return [_part(row_id, 0, "user", {"type": "compaction", "auto": data.get("reason") == "auto"}, time_ms)]
    cells.stats.warn("unknown_types", f"session_message {row_id} in session {session_id}: unknown type {row_type!r}")
    return []


def _user_parts(row_id: str, time_ms: int, data: dict[str, Any]) -> list[Part]:
    parts = [_part(row_id, 0, "user", {"type": "text", "text": _str(data.get("text"))}, time_ms)]
    for attachment in data.get("files") or []:
        if isinstance(attachment, dict):
            parts.append(_part(row_id, len(parts), "user", _file(attachment), time_ms))
    for agent in data.get("agents") or []:
        if isinstance(agent, dict):  # an @agent mention: message-v2's lifecycle "agent" part
            parts.append(_part(row_id, len(parts), "user", {"type": "agent", "name": _str(agent.get("name"))}, time_ms))
    return parts


def _assistant_parts(row_id: str, time_ms: int, data: dict[str, Any], session_id: str,
                     cells: CellDecoder) -> list[Part]:
    parts: list[Part] = []
    content = data.get("content")
    if not isinstance(content, list):
        cells.stats.warn("missing_fields", f"session_message {row_id} in session {session_id}: no content list")
        content = []
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in ("text", "reasoning"):
            converted = {"type": kind, "text": _str(item.get("text"))}
        elif kind == "tool":
            converted = _tool(item)
        else:
            cells.stats.warn("unknown_types",
                             f"session_message {row_id} in session {session_id}: unknown content item {kind!r}")
            continue
        parts.append(_part(row_id, len(parts), "assistant", converted, time_ms))
    snapshot = data.get("snapshot")
    files = snapshot.get("files") if isinstance(snapshot, dict) else None
    if isinstance(files, list) and files:
        parts.append(_part(row_id, len(parts), "assistant", {"type": "patch", "files": files}, time_ms))
    return parts


def _tool(item: dict[str, Any]) -> dict[str, Any]:
    """A ``{type: "tool", id, name, state}`` content item as a message-v2 tool part."""
    source = item.get("state") if isinstance(item.get("state"), dict) else {}
    status = _str(source.get("status")) or "unknown"
    state: dict[str, Any] = {"status": status}
    tool_input = source.get("input")
    if isinstance(tool_input, str):  # pending: the raw, still streaming input
        state["input"], state["raw"] = {}, tool_input
    else:
        state["input"] = tool_input if isinstance(tool_input, dict) else {}
    content = source.get("content") if isinstance(source.get("content"), list) else []
    texts = [_str(c.get("text")) for c in content if isinstance(c, dict) and c.get("type") == "text"]
    attachments = [_file(c) for c in content if isinstance(c, dict) and c.get("type") == "file"]
    attachments += [_file(a) for a in source.get("attachments") or [] if isinstance(a, dict)]
    structured = source.get("structured") if isinstance(source.get("structured"), dict) else {}
    if status == "completed":
        output = "\n".join(texts)
        if not output and isinstance(structured.get("content"), str):
            output = structured["content"]  # read: the file text is only here
        state["output"] = output
    elif status == "error":
        error = source.get("error")
        state["error"] = _str(error.get("message")) if isinstance(error, dict) else _str(error)
    if attachments:
        state["attachments"] = attachments
    if isinstance(structured.get("sessionId"), str):  # a subagent started by this call, if any
        state["metadata"] = {"sessionId": structured["sessionId"]}
    return {"type": "tool", "tool": _str(item.get("name")), "callID": _str(item.get("id")), "state": state}


def _file(attachment: dict[str, Any]) -> dict[str, Any]:
    """A ``PromptFileAttachment`` / ``ToolFileContent`` as a message-v2 file part."""
    return {"type": "file", "filename": _str(attachment.get("name")), "mime": _str(attachment.get("mime")),
            "url": _str(attachment.get("uri"))}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))
