"""Adapter for OpenCode's ``message``/``part`` layout (1.2 – 1.18, dev build ``opencode run``).

Source format: ``message(id, session_id, time_created, data)`` with ``data``
= message-v2 JSON ``{role, time, …}`` and ``part(id, message_id,
session_id, time_created, data)`` with ``data`` = ``{type, …}`` (ids and
session are columns, not in ``data``). The shapes of every release from 1.2.1
to the dev build agree on what is read here (``role``; the part ``type`` and
its fields); version differences sit in fields nobody reads (e.g. 1.2's
``summary.diffs`` with whole file texts on user messages, never read) or in
tool metadata that the transcript treats as optional.

Order: messages by ``(time_created, id)``, parts by ``id`` within their
message (OpenCode ids are time-sortable).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

from memctl.connectors.model import Part
from memctl.connectors.opencode.cells import CellDecoder

SortKey = tuple[int, str, int]
"""(message time in epoch ms, message id, position within the message)."""

KNOWN_ROLES = ("user", "assistant")
"""message-v2 roles (OpenCode ``packages/opencode/src/session/message-v2.ts``: ``User`` | ``Assistant``)."""

# Prepared once: SQLAlchemy caches the compiled form per statement object.
_MESSAGES_OF_SESSION = text("SELECT id, time_created, data FROM message WHERE session_id = :id")
_PARTS_OF_SESSION = text("SELECT id, message_id, time_created, data FROM part WHERE session_id = :id")


def read_message_parts(conn: Connection, session_id: str, cells: CellDecoder) -> tuple[list[tuple[SortKey, Part]], set[str]]:
    """The parts of one session in conversation order, each with its sort key,
    and the set of message ids seen (for de-duplication against another layout).

    Rows that cannot be used are skipped and counted in ``cells.stats``:
    unreadable message JSON (``malformed_json``), a message whose role is
    neither ``user`` nor ``assistant`` (``unknown_roles``, its parts skipped
    with it: message-v2 has only those two roles), a part whose message is
    missing (``orphan_parts``), a part without a ``type`` (``missing_fields``).
    """
    roles: dict[str, tuple[str, int]] = {}
    unknown_role: set[str] = set()
    for mid, mtime, mdata in conn.execute(_MESSAGES_OF_SESSION, {"id": session_id}):
        payload = cells.json_object(mdata, f"message {mid} in session {session_id}")
        role = payload.get("role") if payload is not None else None
        if not isinstance(role, str):
            if payload is not None:
                cells.stats.warn("malformed_json", f"message {mid} in session {session_id}: no role")
            continue
        if role not in KNOWN_ROLES:
            cells.stats.warn("unknown_roles", f"message {mid} in session {session_id}: unknown role {role[:40]!r}")
            unknown_role.add(mid)
            continue
        roles[mid] = (role, cells.millis(mtime, session_id))

    parts: list[tuple[tuple[int, str, str], Part]] = []
    for pid, pmid, ptime, pdata in conn.execute(_PARTS_OF_SESSION, {"id": session_id}):
        cells.stats.parts += 1
        if pmid in unknown_role:
            continue  # counted once, with its message
        if pmid not in roles:
            cells.stats.warn("orphan_parts", f"part {pid}: message {pmid} missing or unreadable")
            continue
        payload = cells.json_object(pdata, f"part {pid} in session {session_id}")
        if payload is None:
            continue
        if not isinstance(payload.get("type"), str):
            cells.stats.warn("missing_fields", f"part {pid} in session {session_id}: no part type")
            continue
        role, mtime = roles[pmid]
        part = Part(id=pid, message_id=pmid, role=role, type=payload["type"], data=payload,
                    time_created=cells.millis(ptime, session_id))
        parts.append(((mtime, pmid, pid), part))
    parts.sort(key=lambda item: item[0])
    keyed: list[tuple[SortKey, Part]] = []
    position = 0
    for n, ((mtime, mid, _), part) in enumerate(parts):
        position = 0 if n == 0 or parts[n - 1][0][1] != mid else position + 1
        keyed.append(((mtime, mid, position), part))
    return keyed, set(roles) | unknown_role
