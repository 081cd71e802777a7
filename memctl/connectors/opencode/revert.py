"""OpenCode's undo (``/undo``, ``session.revert``): what is no longer part of a session.

Source: OpenCode ``packages/opencode/src/session/revert.ts`` and
``session/index.ts``. ``/undo`` stores ``session.revert = {messageID,
partID?, snapshot?, diff?}`` (a JSON text column) and keeps the undone rows;
while it is set, the TUI hides every message from ``messageID`` on (message
ids ascend in time). The next prompt runs ``SessionRevert.cleanup``: it
deletes the messages after the boundary and, with ``partID``, the parts of
the boundary message from ``partID`` on (without ``partID``, the boundary
message too), then clears ``revert``. ``/redo`` (``unrevert``) clears
``revert`` and everything is visible again. So a reader leaves out exactly
what ``cleanup`` would delete; once ``revert`` is cleared nothing is left out.

Positions are the adapters' sort keys ``(message time, message id, position
in the message)`` (:data:`memctl.connectors.opencode.message_part.SortKey`), which
order both layouts alike.
"""

from __future__ import annotations

from typing import Any

from memctl.connectors.model import Part, ReadStats, Revert
from memctl.connectors.opencode.cells import CellDecoder
from memctl.connectors.opencode.message_part import SortKey


def parse_revert(cell: Any, session_id: str, cells: CellDecoder) -> Revert | None:
    """The ``session.revert`` cell as a :class:`Revert`; None when empty (nothing undone).

    A cell that is not a JSON object counts ``malformed_json``, one without a
    string ``messageID`` counts ``missing_fields``; both read as "nothing
    undone" (the rows stay, as OpenCode's own cleanup would leave them).
    """
    if cell is None or cell == "" or cell == b"":
        return None
    payload = cells.json_object(cell, f"session {session_id} revert")
    if payload is None:
        return None
    message_id = payload.get("messageID")
    if not isinstance(message_id, str) or not message_id:
        cells.stats.warn("missing_fields", f"session {session_id}: revert without a messageID")
        return None
    part_id = payload.get("partID")
    return Revert(message_id=message_id, part_id=part_id if isinstance(part_id, str) and part_id else None)


def revert_cut(keyed: list[tuple[SortKey, Part]], revert: Revert,
               message_time: int | None) -> tuple[SortKey, int] | None:
    """The first position left out by ``revert`` and the time the undone turn began.

    ``keyed`` is one session's parts in order; ``message_time`` the boundary
    message's time (epoch ms; None when the message is not in the session).
    A ``partID`` that is not in the boundary message leaves the whole message
    out: what was undone cannot be told apart from what was kept.

    Returns:
        ``(cut, since)``: parts at or after ``cut`` are left out, and so are
        subagent sessions created at or after ``since`` (the boundary
        message's time, or the boundary part's for a partial undo). None when
        the boundary message is unknown (nothing is left out, as OpenCode's
        cleanup deletes nothing then).
    """
    if revert.part_id is not None:
        for key, part in keyed:
            if part.message_id == revert.message_id and part.id == revert.part_id:
                return key, part.time_created
    first = next((key for key, part in keyed if part.message_id == revert.message_id), None)
    if message_time is None:
        if first is None:
            return None
        message_time = first[0]
    return (message_time, revert.message_id, -1), message_time


def split_at(keyed: list[tuple[SortKey, Part]], cut: SortKey, stats: ReadStats) -> list[Part]:
    """Keep the parts before ``cut``; count the messages left out (wholly or partly) in ``stats``."""
    kept = [part for key, part in keyed if key < cut]
    stats.reverted_messages += len({part.message_id for key, part in keyed if not key < cut})
    return kept
