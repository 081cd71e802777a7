"""OpenCode history connector: strictly read-only reader of `opencode.db`.

Source format: OpenCode >= 1.2 stores history in SQLite (drizzle schema):
``project(id, worktree, …)``, ``session(id, project_id, parent_id, directory,
title, version, time_created, time_updated, …)``, ``message(id, session_id,
time_created, data)`` and ``part(id, message_id, session_id, time_created,
data)``, where ``data`` is JSON in OpenCode's message-v2 schema (message:
``{role, time, …}``; part: ``{type, …}``). Times are epoch milliseconds.

Read-only guarantees (the user's database is never changed):

* Connections use the SQLite URI ``mode=ro``: SQLite itself refuses writes.
  We never change the journal mode and never checkpoint.
* While OpenCode runs, the database is in WAL mode with ``-wal``/``-shm``
  beside it; a ``mode=ro`` reader sees rows committed only to the WAL. SQLite
  may update the ``-shm`` wal-index (shared memory, not data).
* When OpenCode is idle its ``-wal``/``-shm`` are gone. A plain ``mode=ro``
  open would then *create* them (and, in a read-only directory, fail), so we
  open with ``immutable=1`` instead, which creates nothing and takes no lock.
  Because immutable readers do not notice concurrent writers, the connector
  re-checks for a ``-wal`` before every session and switches back to the WAL
  reader as soon as OpenCode starts again.
* Every session is read in its own short transaction (keyset pagination for
  the session list), so we never hold a read snapshot that would stop
  OpenCode's WAL checkpoints for the duration of a long ingest.

Only ``session``/``message``/``part`` (and ``project`` for the worktree) are
read. OpenCode's ``event`` table repeats every part, secrets included; it must
never become a second, unscrubbed source, so this module never queries it.

Subagent sessions (``session.parent_id`` set) are folded into their root
session (see :class:`connectors.model.Session`): only roots are yielded, and
``--session <child id>`` selects the child's root.
"""

from __future__ import annotations

import orjson
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

from connectors.model import Part, ReadStats, Session, SessionInfo

SUPPORTED_LAYOUT = "OpenCode >= 1.2 (tables session, message, part with JSON data columns; message-v2 parts)"

REQUIRED_COLUMNS: dict[str, set[str]] = {
    "session": {"id", "project_id", "parent_id", "directory", "title", "version", "time_created", "time_updated"},
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "time_created", "data"},
    "project": {"id", "worktree"},
}

# Prepared once: SQLAlchemy caches the compiled form per statement object.
_MESSAGES_OF_SESSION = text("SELECT id, time_created, data FROM message WHERE session_id = :id")
_PARTS_OF_SESSION = text("SELECT id, message_id, time_created, data FROM part WHERE session_id = :id")

PAGE_SIZE = 200
BUSY_TIMEOUT_S = 2.0
BUSY_ATTEMPTS = 4


class SourceError(Exception):
    """Base class: the OpenCode database cannot be read. Message is user-facing."""


class SourceNotFoundError(SourceError):
    """No database file at the resolved path."""


class UnsupportedSchemaError(SourceError):
    """The database layout is not one this connector reads."""


class UnknownSessionError(SourceError):
    """A ``--session`` id that is not in the database (a usage error, not a broken source)."""


class SourceBusyError(SourceError):
    """The database stayed locked/busy through the bounded retries."""


def resolve_db_path(explicit: str | Path | None = None, env: dict[str, str] | None = None) -> Path:
    """Return the OpenCode DB path: ``--db`` > ``OPENCODE_DB`` > ``$XDG_DATA_HOME/opencode/opencode.db``
    > ``~/.local/share/opencode/opencode.db``. The file is not checked here."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    if env.get("OPENCODE_DB"):
        return Path(env["OPENCODE_DB"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "opencode" / "opencode.db"
    return Path("~/.local/share/opencode/opencode.db").expanduser()


@dataclass(frozen=True)
class SessionFilter:
    """Which root sessions to read.

    Attributes:
        since_ms: only sessions updated at or after this epoch-ms time.
        session_ids: only these sessions (a child id selects its root).
        accept: an extra predicate on a root's metadata (e.g. memctl's
            ``--project`` match), applied before any part is read.
        limit: at most this many accepted root sessions.
    """

    since_ms: int | None = None
    session_ids: tuple[str, ...] = ()
    accept: Callable[[SessionInfo], bool] | None = None
    limit: int | None = None


class OpenCodeSource:
    """Read-only reader of one OpenCode database.

    Raises (from the constructor or :meth:`check_schema`):
        SourceNotFoundError, UnsupportedSchemaError, SourceBusyError, SourceError.
    """

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path).expanduser().absolute()
        if self.db_path.is_dir():
            raise SourceNotFoundError(
                f"{self.db_path} is a directory; pass the database file inside it, e.g. --db {self.db_path / 'opencode.db'}"
            )
        if not self.db_path.is_file():
            raise SourceNotFoundError(
                f"OpenCode database not found at {self.db_path}. Pass --db PATH or set OPENCODE_DB "
                "(default: ~/.local/share/opencode/opencode.db)."
            )
        self.stats = ReadStats()
        self._engine: Engine | None = None
        self._engine_mode: str | None = None

    # -- connections ---------------------------------------------------------------

    def _wal_present(self) -> bool:
        return Path(str(self.db_path) + "-wal").exists()

    def _connect_raw(self, immutable: bool) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.db_path))}?mode=ro" + ("&immutable=1" if immutable else "")
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        # Our decoding: one cell of invalid UTF-8 must not abort a whole query
        # (sqlite3's default raises OperationalError for the entire fetch).
        conn.text_factory = self._decode_text
        return conn

    def _decode_text(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.stats.warn("undecodable_text", "a text cell held invalid UTF-8; bytes replaced with U+FFFD")
            return raw.decode("utf-8", errors="replace")

    def _cell_text(self, value: Any) -> str:
        """A JSON ``data`` cell as text; a BLOB-typed cell (same bytes, other storage class) is decoded too."""
        if isinstance(value, bytes):
            return self._decode_text(value)
        return value or ""

    def _engine_for_now(self) -> Engine:
        mode = "wal" if self._wal_present() else "immutable"
        if self._engine is None or self._engine_mode != mode:
            if self._engine is not None:
                self._engine.dispose()
            immutable = mode == "immutable"
            # One reused connection (the connector runs on one thread): reopening per
            # session would re-parse the schema every time. Each `with connect()`
            # still ends its read transaction on exit, so no snapshot is held.
            self._engine = create_engine(
                "sqlite://", creator=lambda: self._connect_raw(immutable), poolclass=StaticPool
            )
            self._engine_mode = mode
        return self._engine

    def _run(self, fn, what: str):
        """Run ``fn(connection)`` in one short read transaction with a bounded busy retry."""
        delay = 0.2
        for attempt in range(1, BUSY_ATTEMPTS + 1):
            try:
                with self._engine_for_now().connect() as conn:
                    return fn(conn)
            except DBAPIError as exc:
                message = str(exc.orig) if exc.orig is not None else str(exc)
                if "locked" in message or "busy" in message:
                    if attempt == BUSY_ATTEMPTS:
                        raise SourceBusyError(
                            f"OpenCode database {self.db_path} stayed locked while {what} "
                            f"({BUSY_ATTEMPTS} attempts): {message}. Retry when OpenCode is idle."
                        ) from exc
                    time.sleep(delay)
                    delay *= 2
                    continue
                if "unable to open" in message or "readonly" in message:
                    raise SourceError(
                        f"cannot open {self.db_path} read-only: {message}. If OpenCode is running, "
                        "memctl needs read access to its -wal and -shm files beside the database."
                    ) from exc
                if "not a database" in message or "malformed" in message:
                    raise SourceError(f"{self.db_path} is not a readable SQLite database: {message}") from exc
                raise SourceError(f"reading {self.db_path} failed while {what}: {message}") from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Release connections (no effect on the database)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    # -- schema --------------------------------------------------------------------

    def check_schema(self) -> dict[str, int]:
        """Detect the layout from ``sqlite_master``; return row counts of the session tables.

        Raises:
            UnsupportedSchemaError: naming the tables found and the supported layout.
        """

        def detect(conn: Connection) -> dict[str, int]:
            inspector = inspect(conn)
            tables = set(inspector.get_table_names())
            missing = [t for t in REQUIRED_COLUMNS if t not in tables]
            if missing:
                found = ", ".join(sorted(tables)) or "no tables"
                raise UnsupportedSchemaError(
                    f"{self.db_path} does not look like an OpenCode history database: missing tables "
                    f"{', '.join(missing)}; found {found}. Supported: {SUPPORTED_LAYOUT}."
                )
            for table, needed in REQUIRED_COLUMNS.items():
                have = {c["name"] for c in inspector.get_columns(table)}
                lacking = needed - have
                if lacking:
                    raise UnsupportedSchemaError(
                        f"table {table!r} in {self.db_path} lacks columns {sorted(lacking)} "
                        f"(has {sorted(have)}). Supported: {SUPPORTED_LAYOUT}."
                    )
            counts = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in ("session", "message", "part")}
            # OpenCode 1.18 ships an empty session_message table; rows there (or a
            # session_v2 table with rows) mean sessions in a layout we cannot read yet.
            for newer in ("session_message", "session_v2"):
                if newer in tables:
                    rows = conn.execute(text(f"SELECT count(*) FROM {newer}")).scalar_one()
                    if rows:
                        raise UnsupportedSchemaError(
                            f"{self.db_path} holds {rows} rows in {newer!r}: sessions in OpenCode's newer "
                            f"layout, which this memctl version cannot read yet. Supported: {SUPPORTED_LAYOUT}."
                        )
            return counts

        return self._run(detect, "detecting the schema")

    # -- sessions ------------------------------------------------------------------

    _SESSION_COLUMNS = (
        "s.id, s.title, s.directory, s.project_id, coalesce(p.worktree, ''), s.parent_id, "
        "s.time_created, s.time_updated, s.version"
    )

    def _info(self, row) -> SessionInfo:
        d = list(row)
        return SessionInfo(
            id=d[0], title=d[1] or "", directory=d[2] or "", project_id=d[3] or "",
            project_worktree=d[4] or "", parent_id=d[5] or None,
            time_created=self._millis(row[6], d[0]), time_updated=self._millis(row[7], d[0]), version=d[8] or "",
        )

    def _millis(self, value: Any, session_id: str) -> int:
        """An epoch-ms column as int; a non-numeric cell counts a warning and reads as 0."""
        try:
            return int(value or 0)
        except (TypeError, ValueError):
            self.stats.warn("missing_fields", f"session {session_id}: time column holds {value!r}")
            return 0

    def _root_of(self, conn: Connection, session_id: str) -> str | None:
        current, previous, seen = session_id, session_id, set()
        while current and current not in seen:
            seen.add(current)
            row = conn.execute(text("SELECT parent_id FROM session WHERE id = :id"), {"id": current}).first()
            if row is None:
                return None if current == session_id else previous  # orphan: its last existing ancestor
            parent = row[0]
            if not parent:
                return current
            previous, current = current, parent
        return current

    def iter_root_infos(self, flt: SessionFilter = SessionFilter()) -> Iterator[SessionInfo]:
        """Yield root-session metadata in chronological order, paging in short transactions."""
        if flt.session_ids:
            def roots(conn: Connection) -> list[str]:
                found = []
                for sid in flt.session_ids:
                    root = self._root_of(conn, sid)
                    if root is None:
                        raise UnknownSessionError(f"session {sid!r} not found in {self.db_path}")
                    if root not in found:
                        found.append(root)
                return found
            wanted = self._run(roots, "resolving --session ids")
        else:
            wanted = None

        yielded = 0
        cursor: tuple[int, str] = (-1, "")
        while True:
            def page(conn: Connection, cursor=cursor) -> list:
                # A root has no parent, or a parent that no longer exists (deleted sessions
                # leave orphaned subagent sessions behind; they must not vanish).
                clauses = ["(s.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM session q WHERE q.id = s.parent_id))",
                           "(s.time_created > :tc OR (s.time_created = :tc AND s.id > :id))"]
                params: dict[str, Any] = {"tc": cursor[0], "id": cursor[1], "n": PAGE_SIZE}
                if flt.since_ms is not None:
                    clauses.append("s.time_updated >= :since")
                    params["since"] = flt.since_ms
                if wanted is not None:
                    names = [f":w{i}" for i in range(len(wanted))]
                    clauses.append(f"s.id IN ({', '.join(names)})")
                    params.update({f"w{i}": w for i, w in enumerate(wanted)})
                sql = (
                    f"SELECT {self._SESSION_COLUMNS} FROM session s LEFT JOIN project p ON p.id = s.project_id "
                    f"WHERE {' AND '.join(clauses)} ORDER BY s.time_created, s.id LIMIT :n"
                )
                return conn.execute(text(sql), params).fetchall()

            rows = self._run(page, "listing sessions")
            if not rows:
                return
            for row in rows:
                info = self._info(row)
                cursor = (info.time_created, info.id)
                if flt.accept is not None and not flt.accept(info):
                    continue
                yield info
                yielded += 1
                if flt.limit is not None and yielded >= flt.limit:
                    return

    def count_roots(self, flt: SessionFilter = SessionFilter()) -> int:
        """Number of root sessions matching ``since_ms``/``session_ids`` (``accept`` and
        ``limit`` not applied): a progress-bar total, not a promise."""

        def count(conn: Connection) -> int:
            clauses, params = ["(parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM session q WHERE q.id = session.parent_id))"], {}
            if flt.since_ms is not None:
                clauses.append("time_updated >= :since")
                params["since"] = flt.since_ms
            return conn.execute(text(f"SELECT count(*) FROM session WHERE {' AND '.join(clauses)}"), params).scalar_one()

        total = self._run(count, "counting sessions")
        if flt.session_ids:
            total = min(total, len(flt.session_ids))
        if flt.limit is not None:
            total = min(total, flt.limit)
        return total

    def read_session(self, info: SessionInfo) -> Session:
        """Read one root session with its parts and (recursively) its child sessions."""

        def read(conn: Connection) -> Session:
            return self._read_tree(conn, info, depth=0)

        return self._run(read, f"reading session {info.id}")

    def _read_tree(self, conn: Connection, info: SessionInfo, depth: int) -> Session:
        session = Session(info=info, parts=self._read_parts(conn, info.id))
        self.stats.sessions += 1
        if depth >= 8:  # a parent_id cycle or absurd nesting must not recurse forever
            return session
        rows = conn.execute(
            text(
                f"SELECT {self._SESSION_COLUMNS} FROM session s LEFT JOIN project p ON p.id = s.project_id "
                "WHERE s.parent_id = :id ORDER BY s.time_created, s.id"
            ),
            {"id": info.id},
        ).fetchall()
        for row in rows:
            child = self._info(row)
            if child.id != info.id:
                session.children.append(self._read_tree(conn, child, depth + 1))
        return session

    def _read_parts(self, conn: Connection, session_id: str) -> list[Part]:
        roles: dict[str, tuple[str, int]] = {}
        for mid, mtime, mdata in conn.execute(
            _MESSAGES_OF_SESSION, {"id": session_id}
        ):
            mid = mid
            try:
                payload = orjson.loads(self._cell_text(mdata))
                role = payload["role"]
            except (ValueError, TypeError, KeyError):
                self.stats.warn("malformed_json", f"message {mid} in session {session_id}: unreadable data JSON")
                continue
            roles[mid] = (role, self._millis(mtime, session_id))

        parts: list[tuple[tuple, Part]] = []
        for pid, pmid, ptime, pdata in conn.execute(
            _PARTS_OF_SESSION, {"id": session_id}
        ):
            pid = pid
            pmid = pmid
            self.stats.parts += 1
            if pmid not in roles:
                self.stats.warn("orphan_parts", f"part {pid}: message {pmid} missing or unreadable")
                continue
            try:
                payload = orjson.loads(self._cell_text(pdata))
            except orjson.JSONDecodeError:
                self.stats.warn("malformed_json", f"part {pid} in session {session_id}: malformed data JSON")
                continue
            if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
                self.stats.warn("missing_fields", f"part {pid} in session {session_id}: no part type")
                continue
            role, mtime = roles[pmid]
            part = Part(
                id=pid, message_id=pmid, role=role, type=payload["type"], data=payload,
                time_created=self._millis(ptime, session_id),
            )
            # OpenCode ids are time-ordered; message order first, then part order within it.
            parts.append(((mtime, pmid, pid), part))
        parts.sort(key=lambda item: item[0])
        return [p for _, p in parts]

    def iter_sessions(self, flt: SessionFilter = SessionFilter()) -> Iterator[Session]:
        """Stream reconstructed root sessions (children folded in), oldest first."""
        for info in self.iter_root_infos(flt):
            yield self.read_session(info)

