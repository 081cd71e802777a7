"""Which OpenCode history layouts a database holds: detected from its tables,
columns and row content, never from version strings.

Two layouts carry conversations (both observed with the real binaries, see
tests/fixtures/README.md):

``message-part`` (:data:`MESSAGE_PART`)
    OpenCode 1.2 – 1.18 and the dev build's ``opencode run``:
    ``message(id, session_id, time_created, data)`` and ``part(id,
    message_id, session_id, time_created, data)``; ``data`` is message-v2
    JSON. Read by :mod:`memctl.connectors.opencode.message_part`.

``session-message`` (:data:`SESSION_MESSAGE`)
    The dev build 0.0.0-dev-202609212252's HTTP API (``opencode serve``):
    ``session_message(id, session_id, type, seq, time_created, data)``, one
    row per user / assistant / compaction / … message, ordered by ``seq``,
    tool calls inside the assistant row. Read by
    :mod:`memctl.connectors.opencode.session_message`.

A ``session_message`` table alone proves nothing: 1.18 ships it empty and
1.14 fills it with ``agent-switched`` / ``model-switched`` rows only (no
``seq`` column) while the conversation stays in ``message``/``part``. A
session counts for the session-message layout only when it has rows of any
other type there. One database may hold sessions of both layouts; a session
may even have rows in both (they are merged by the reader).

The table generation (``1.2`` / ``1.14`` / ``1.18``) is reported for
diagnostics only; nothing depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from memctl.connectors.opencode.errors import UnsupportedSchemaError

MESSAGE_PART = "message-part"
SESSION_MESSAGE = "session-message"

LAYOUT_LABELS = {
    MESSAGE_PART: "message/part (OpenCode 1.2 – 1.18, dev build `opencode run`)",
    SESSION_MESSAGE: "session_message (dev build 0.0.0-dev-202609212252 HTTP API)",
}

SUPPORTED_LAYOUT = (
    "OpenCode >= 1.2: a session table with message + part tables (message-v2 JSON data) and/or a "
    "session_message table (id, session_id, type, seq, time_created, data) of the dev build's HTTP API"
)

REQUIRED_COLUMNS: dict[str, set[str]] = {
    "session": {"id", "project_id", "parent_id", "directory", "title", "version", "time_created", "time_updated"},
    "project": {"id", "worktree"},
}
MESSAGE_PART_COLUMNS: dict[str, set[str]] = {
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "time_created", "data"},
}
SESSION_MESSAGE_COLUMNS = {"id", "session_id", "type", "time_created", "data"}

LIFECYCLE_ROW_TYPES = ("agent-switched", "model-switched")
"""``session_message`` row types without conversation content (1.14 writes only these)."""


@dataclass(frozen=True)
class LayoutReport:
    """What :func:`detect_layouts` found.

    Attributes:
        tables: every table name in the database, sorted.
        generation: the OpenCode table generation, for diagnostics:
            ``"1.2"`` (no ``event`` table), ``"1.14"`` (``session_message``
            without ``seq``) or ``"1.18"`` (``session_message`` with ``seq``).
        layouts: the conversation layouts that hold at least one session.
        readable_layouts: the layouts whose tables exist with the needed
            columns, in reading order: the reader asks each of them for every
            session (so a session written in a layout while a long read runs
            is not missed; both lookups are indexed by session id).
        sessions: rows in ``session`` (subagent sessions included).
        sessions_by_layout: sessions with content in each layout (a session
            with rows in both counts in both); ``"none"``: sessions without
            any content row (created, never prompted).
        parts: rows in ``part`` (0 without the message-part layout).
        session_messages: content rows in ``session_message`` (lifecycle
            rows excluded).
        session_message_seq: ``session_message`` has a ``seq`` column.
        session_revert: ``session`` has the ``revert`` column (every release
            from 1.2 on; the undo boundary, see :mod:`memctl.connectors.opencode.revert`).
    """

    tables: tuple[str, ...]
    generation: str
    layouts: tuple[str, ...]
    readable_layouts: tuple[str, ...]
    sessions: int
    sessions_by_layout: dict[str, int] = field(default_factory=dict)
    parts: int = 0
    session_messages: int = 0
    session_message_seq: bool = False
    session_revert: bool = False

    def describe(self) -> str:
        """One line for ``memctl doctor``: the layouts with their session counts."""
        found = [f"{LAYOUT_LABELS[layout]}: {self.sessions_by_layout.get(layout, 0)} sessions"
                 for layout in self.layouts]
        empty = self.sessions_by_layout.get("none", 0)
        if empty:
            found.append(f"{empty} sessions without messages")
        return f"tables of the OpenCode {self.generation} generation; " + "; ".join(found)


def _columns(inspector, table: str) -> set[str]:
    return {c["name"] for c in inspector.get_columns(table)}


def _require(db_label: str, inspector, tables: set[str], required: dict[str, set[str]]) -> None:
    for table, needed in required.items():
        lacking = needed - _columns(inspector, table)
        if lacking:
            raise UnsupportedSchemaError(
                f"table {table!r} in {db_label} lacks columns {sorted(lacking)} "
                f"(has {sorted(_columns(inspector, table))}). Supported: {SUPPORTED_LAYOUT}."
            )


def content_row_filter(alias: str = "") -> str:
    """SQL condition selecting the ``session_message`` rows that carry conversation
    content (``alias``: the table alias with its dot, e.g. ``"x."``)."""
    return f"{alias}type NOT IN (" + ", ".join(f"'{t}'" for t in LIFECYCLE_ROW_TYPES) + ")"


def detect_layouts(conn: Connection, db_label: str) -> LayoutReport:
    """Inspect ``sqlite_master`` and count rows per layout, in the caller's transaction.

    Reads only ``sqlite_master`` (via the inspector) and counts over
    ``session``, ``part``, ``message`` and ``session_message`` -- never
    ``event`` or ``session_input`` (both repeat conversation text).

    Raises:
        UnsupportedSchemaError: no ``session``/``project`` table (or columns
            missing), no conversation table at all, or a conversation table
            lacking the columns its layout needs; the message names the
            tables or columns found and the supported layouts.
    """
    inspector = inspect(conn)
    tables = set(inspector.get_table_names())
    found = ", ".join(sorted(tables)) or "no tables"
    missing = [t for t in REQUIRED_COLUMNS if t not in tables]
    has_message_part = all(t in tables for t in MESSAGE_PART_COLUMNS)
    has_session_message = "session_message" in tables
    if missing or not (has_message_part or has_session_message):
        lacking = missing + ([] if has_message_part or has_session_message
                             else ["message + part, or session_message"])
        raise UnsupportedSchemaError(
            f"{db_label} does not look like an OpenCode history database: missing tables "
            f"{', '.join(lacking)}; found {found}. Supported: {SUPPORTED_LAYOUT}."
        )
    _require(db_label, inspector, tables, REQUIRED_COLUMNS)
    readable: list[str] = []
    sessions_by_layout: dict[str, int] = {}
    parts = session_messages = 0
    if has_message_part:
        _require(db_label, inspector, tables, MESSAGE_PART_COLUMNS)
        readable.append(MESSAGE_PART)
        parts = conn.execute(text("SELECT count(*) FROM part")).scalar_one()
        sessions_by_layout[MESSAGE_PART] = conn.execute(
            text("SELECT count(DISTINCT session_id) FROM message")).scalar_one()
    seq = False
    if has_session_message:
        columns = _columns(inspector, "session_message")
        seq = "seq" in columns
        where = f" WHERE {content_row_filter()}" if "type" in columns else ""
        session_messages = conn.execute(text(f"SELECT count(*) FROM session_message{where}")).scalar_one()
        lacking = SESSION_MESSAGE_COLUMNS - columns
        if lacking and session_messages:
            raise UnsupportedSchemaError(
                f"{db_label} holds {session_messages} conversation rows in 'session_message', but that "
                f"table lacks columns {sorted(lacking)} (has {sorted(columns)}). Supported: {SUPPORTED_LAYOUT}."
            )
        if not lacking:
            readable.append(SESSION_MESSAGE)
            sessions_by_layout[SESSION_MESSAGE] = conn.execute(
                text(f"SELECT count(DISTINCT session_id) FROM session_message WHERE {content_row_filter()}")
            ).scalar_one()
    sessions = conn.execute(text("SELECT count(*) FROM session")).scalar_one()
    without = []
    if MESSAGE_PART in readable:
        without.append("NOT EXISTS (SELECT 1 FROM message m WHERE m.session_id = s.id)")
    if SESSION_MESSAGE in readable:
        without.append("NOT EXISTS (SELECT 1 FROM session_message x WHERE x.session_id = s.id "
                       f"AND {content_row_filter('x.')})")
    sessions_by_layout["none"] = conn.execute(
        text(f"SELECT count(*) FROM session s WHERE {' AND '.join(without) or '1'}")).scalar_one()
    if "event" not in tables:
        generation = "1.2"
    elif has_session_message and seq:
        generation = "1.18"
    else:
        generation = "1.14"
    return LayoutReport(
        tables=tuple(sorted(tables)), generation=generation,
        layouts=tuple(layout for layout in readable if sessions_by_layout.get(layout)),
        readable_layouts=tuple(readable), sessions=sessions,
        sessions_by_layout=sessions_by_layout, parts=parts, session_messages=session_messages,
        session_message_seq=seq, session_revert="revert" in _columns(inspector, "session"),
    )
