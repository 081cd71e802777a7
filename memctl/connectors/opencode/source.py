"""OpenCode history connector: strictly read-only reader of `opencode.db` / `opencode-dev.db`.

Source format: OpenCode >= 1.2 stores history in SQLite (drizzle schema):
``project(id, worktree, …)`` and ``session(id, project_id, parent_id,
directory, title, version, time_created, time_updated, …)`` in every
release; the conversation itself in one of two layouts, detected per
database and per session from tables, columns and rows
(:mod:`memctl.connectors.opencode.schema`):

* ``message`` + ``part`` with message-v2 JSON (1.2 – 1.18, and the dev build
  0.0.0-dev-202609212252 through ``opencode run``):
  :mod:`memctl.connectors.opencode.message_part`;
* ``session_message`` rows ordered by ``seq`` (the dev build through its HTTP
  API): :mod:`memctl.connectors.opencode.session_message`.

Both adapters yield the one session model of :mod:`memctl.connectors.model`. A
database may hold sessions of both layouts; sessions are listed once, from
the ``session`` table, and a session with rows in both layouts gets them
merged in time order (a message id present in both is taken once). Times are
epoch milliseconds.

Read-only guarantees (the user's database is never changed), and no torn
reads while OpenCode writes (:mod:`memctl.connectors.opencode.lock`):

* Connections use the SQLite URI ``mode=ro``: SQLite itself refuses writes.
  We never change the journal mode and never checkpoint.
* While OpenCode runs, the database is in WAL mode with ``-wal``/``-shm``
  beside it; a ``mode=ro`` reader sees rows committed only to the WAL. SQLite
  may update the ``-shm`` wal-index (shared memory, not data).
* A database in rollback-journal mode is always read with SQLite's locks
  (``mode=ro``, which creates no file there): a writer's lock makes the read
  wait, never see a half-written page.
* When OpenCode is idle its ``-wal``/``-shm`` are gone. A plain ``mode=ro``
  open of a WAL-mode database would then *create* them (and, in a read-only
  directory, fail), so we open with ``immutable=1`` instead, which creates
  nothing and takes no lock -- but only after probing that no process holds
  a lock on the database and no hot journal exists. The mode is decided
  again before every session, so the reader switches to the WAL reader as
  soon as OpenCode starts again.
* A lock held past the bounded wait (``BUSY_TIMEOUT_S`` × ``BUSY_ATTEMPTS``
  with back-off) raises :class:`SourceBusyError` ("busy, retry later"); the
  caller has not marked any session it did not read.
* Every session is read in its own short read transaction (``BEGIN`` … end
  of the ``with``: one consistent snapshot of its rows), with keyset
  pagination for the session list, so we never hold a read snapshot that
  would stop OpenCode's WAL checkpoints for the duration of a long ingest.

Undone turns (``/undo``: ``session.revert``) are left out of each session as
OpenCode's own cleanup would delete them (:mod:`memctl.connectors.opencode.revert`),
subagent sessions started after the undo point with them. Placeholder titles
(:mod:`memctl.connectors.opencode.titles`) are flagged in
:attr:`memctl.connectors.model.SessionInfo.title_is_placeholder`.

Only ``session``/``message``/``part``/``session_message`` (and ``project`` for
the worktree) are read. OpenCode's ``event`` table repeats every part, and the
dev build's ``session_input`` every prompt, secrets included; they must never
become a second, unscrubbed source, so this module never queries them.

Subagent sessions (``session.parent_id`` set) are folded into their root
session (see :class:`memctl.connectors.model.Session`): only roots are yielded, and
``--session <child id>`` selects the child's root. A subagent session whose
parent no longer exists is yielded as a root with its ``parent_id`` kept
(an orphan; memctl says so in the note's provenance).
"""

from __future__ import annotations

import heapq
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

from memctl.connectors.model import Part, ReadStats, Session, SessionFilter, SessionInfo
from memctl.connectors.opencode.cells import CellDecoder
from memctl.connectors.opencode.errors import (
    SourceBusyError,
    SourceError,
    SourceNotFoundError,
    UnknownSessionError,
    UnsupportedSchemaError,
)
from memctl.connectors.opencode.lock import IMMUTABLE, WriterActive, has_hot_journal, read_mode
from memctl.connectors.opencode.message_part import read_message_parts
from memctl.connectors.opencode.revert import parse_revert, revert_cut, split_at
from memctl.connectors.opencode.schema import (
    MESSAGE_PART,
    SESSION_MESSAGE,
    SUPPORTED_LAYOUT,
    LayoutReport,
    detect_layouts,
)
from memctl.connectors.opencode.session_message import read_session_messages
from memctl.connectors.opencode.titles import is_placeholder_title

__all__ = [
    "DB_FILE_NAMES", "OpenCodeSource", "SessionFilter", "SourceBusyError", "SourceError", "SourceNotFoundError",
    "SUPPORTED_LAYOUT", "UnknownSessionError", "UnsupportedSchemaError", "locate_database", "resolve_db_path",
]

PAGE_SIZE = 200
BUSY_TIMEOUT_S = 2.0
BUSY_ATTEMPTS = 4

DB_FILE_NAMES = ("opencode.db", "opencode-dev.db")
"""The file names OpenCode gives its database: releases ``opencode.db``, dev builds ``opencode-dev.db``."""


def resolve_db_path(explicit: str | Path | None = None, env: dict[str, str] | None = None) -> Path:
    """Return the OpenCode DB path: ``--db`` > ``OPENCODE_DB`` > ``$XDG_DATA_HOME/opencode/opencode.db``
    > ``~/.local/share/opencode/opencode.db``. Nothing is checked here: a
    directory (or a missing default file) is resolved by :func:`locate_database`."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    if env.get("OPENCODE_DB"):
        return Path(env["OPENCODE_DB"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "opencode" / "opencode.db"
    return Path("~/.local/share/opencode/opencode.db").expanduser()


def locate_database(path: Path) -> Path:
    """The database file for ``path``: the file itself, or in a directory its
    ``opencode.db`` or ``opencode-dev.db``.

    Raises:
        SourceNotFoundError: nothing there; a directory with neither file (or
            with both: which one is meant is the user's choice); a missing
            ``opencode.db`` whose directory has an ``opencode-dev.db`` says so.
    """
    if path.is_dir():
        present = [path / name for name in DB_FILE_NAMES if (path / name).is_file()]
        if len(present) == 1:
            return present[0]
        if present:
            raise SourceNotFoundError(
                f"{path} holds both {DB_FILE_NAMES[0]} (OpenCode releases) and {DB_FILE_NAMES[1]} (dev builds); "
                f"pass the one to read, e.g. --db {present[0]}"
            )
        raise SourceNotFoundError(
            f"{path} is a directory without an OpenCode database ({' or '.join(DB_FILE_NAMES)}). "
            "Pass --db PATH or set OPENCODE_DB (default: ~/.local/share/opencode/opencode.db)."
        )
    if path.is_file():
        return path
    sibling = path.parent / DB_FILE_NAMES[1]
    hint = f" There is a dev-build database beside it: --db {sibling}" if sibling.is_file() and path.name == DB_FILE_NAMES[0] else ""
    raise SourceNotFoundError(
        f"OpenCode database not found at {path}. Pass --db PATH or set OPENCODE_DB "
        f"(default: ~/.local/share/opencode/opencode.db).{hint}"
    )


class OpenCodeSource:
    """Read-only reader of one OpenCode database.

    Raises (from the constructor or :meth:`check_schema`):
        SourceNotFoundError, UnsupportedSchemaError, SourceBusyError, SourceError.
    """

    def __init__(self, db_path: Path) -> None:
        self.db_path = locate_database(Path(db_path).expanduser().absolute())
        self.stats = ReadStats()
        self._cells = CellDecoder(self.stats)
        self._engine: Engine | None = None
        self._engine_mode: str | None = None
        self._layouts: LayoutReport | None = None

    # -- connections ---------------------------------------------------------------

    def _connect_raw(self, immutable: bool) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.db_path))}?mode=ro" + ("&immutable=1" if immutable else "")
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        # Our decoding: one cell of invalid UTF-8 must not abort a whole query
        # (sqlite3's default raises OperationalError for the entire fetch).
        conn.text_factory = self._cells.decode_text
        return conn

    def _engine_for_now(self) -> Engine:
        """The engine for the database's state now (see :func:`memctl.connectors.opencode.lock.read_mode`).

        Raises:
            WriterActive: a writer may be active where neither open is safe (retried by :meth:`_run`).
        """
        immutable = read_mode(self.db_path) == IMMUTABLE
        mode = "immutable" if immutable else "locking"
        if self._engine is None or self._engine_mode != mode:
            if self._engine is not None:
                self._engine.dispose()
            # One reused connection (the connector runs on one thread): reopening per
            # session would re-parse the schema every time. Each `with connect()`
            # still ends its read transaction on exit, so no snapshot is held.
            self._engine = create_engine(
                "sqlite://", creator=lambda: self._connect_raw(immutable), poolclass=StaticPool
            )
            self._engine_mode = mode
        return self._engine

    def _busy(self, what: str, message: str) -> SourceBusyError:
        return SourceBusyError(
            f"OpenCode database {self.db_path} is busy, retry later: it stayed locked while {what} "
            f"({BUSY_ATTEMPTS} attempts over about {BUSY_TIMEOUT_S * BUSY_ATTEMPTS:g} s): {message}. "
            "Run memctl again when OpenCode is idle."
        )

    def _run(self, fn, what: str):
        """Run ``fn(connection)`` in one short read transaction with a bounded busy retry.

        Raises:
            SourceBusyError: still locked (or a writer still active) after the last attempt.
            SourceError: unreadable database (message names the cause).
        """
        delay = 0.2
        for attempt in range(1, BUSY_ATTEMPTS + 1):
            try:
                with self._engine_for_now().connect() as conn:
                    # pysqlite opens no transaction for SELECTs: BEGIN makes all of this
                    # read one snapshot (the end of the `with` rolls it back).
                    conn.exec_driver_sql("BEGIN")
                    return fn(conn)
            except (DBAPIError, WriterActive) as exc:
                if isinstance(exc, WriterActive):
                    message, busy = str(exc), True
                else:
                    message = str(exc.orig) if exc.orig is not None else str(exc)
                    # A read-only reader cannot play back a hot journal: a commit is under
                    # way, or a writer died mid-commit (OpenCode recovers it when it opens).
                    busy = "locked" in message or "busy" in message or (
                        "readonly" in message and has_hot_journal(self.db_path))
                if busy:
                    if attempt == BUSY_ATTEMPTS:
                        raise self._busy(what, message) from exc
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

    def check_schema(self) -> LayoutReport:
        """Detect the layouts (tables, columns, rows) and count sessions per layout.

        Returns:
            the :class:`memctl.connectors.opencode.schema.LayoutReport`; the reader
            uses it for every later session.

        Raises:
            UnsupportedSchemaError: naming the tables or columns found and the supported layouts.
        """
        self._layouts = self._run(lambda conn: detect_layouts(conn, str(self.db_path)), "detecting the schema")
        return self._layouts

    def _layout_report(self) -> LayoutReport:
        return self._layouts if self._layouts is not None else self.check_schema()

    # -- sessions ------------------------------------------------------------------

    _SESSION_COLUMNS = (
        "s.id, s.title, s.directory, s.project_id, coalesce(p.worktree, ''), s.parent_id, "
        "s.time_created, s.time_updated, s.version"
    )

    def _session_columns(self) -> str:
        """The session columns read, ``revert`` last (NULL where the table has no such column)."""
        return self._SESSION_COLUMNS + (", s.revert" if self._layout_report().session_revert else ", NULL")

    def _info(self, row) -> SessionInfo:
        d = list(row)
        title = d[1] or ""
        return SessionInfo(
            id=d[0], title=title, directory=d[2] or "", project_id=d[3] or "",
            project_worktree=d[4] or "", parent_id=d[5] or None,
            time_created=self._cells.millis(row[6], d[0]), time_updated=self._cells.millis(row[7], d[0]),
            version=d[8] or "", title_is_placeholder=is_placeholder_title(title),
            revert=parse_revert(d[9], d[0], self._cells),
        )

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
        columns = self._session_columns()
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
                    f"SELECT {columns} FROM session s LEFT JOIN project p ON p.id = s.project_id "
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
        """Read one root session with its parts and (recursively) its child sessions,
        in one short read transaction, whatever layout each of them is stored in."""
        layouts = self._layout_report()

        def read(conn: Connection) -> Session:
            return self._read_tree(conn, info, layouts, depth=0)

        return self._run(read, f"reading session {info.id}")

    def _read_tree(self, conn: Connection, info: SessionInfo, layouts: LayoutReport, depth: int) -> Session:
        parts, undone_since = self._read_parts(conn, info, layouts)
        session = Session(info=info, parts=parts)
        self.stats.sessions += 1
        if depth >= 8:  # a parent_id cycle or absurd nesting must not recurse forever
            return session
        rows = conn.execute(
            text(
                f"SELECT {self._session_columns()} FROM session s LEFT JOIN project p ON p.id = s.project_id "
                "WHERE s.parent_id = :id ORDER BY s.time_created, s.id"
            ),
            {"id": info.id},
        ).fetchall()
        for row in rows:
            child = self._info(row)
            if child.id == info.id:
                continue
            if undone_since is not None and child.time_created >= undone_since:
                self.stats.reverted_sessions += 1  # started by the undone turn
                continue
            session.children.append(self._read_tree(conn, child, layouts, depth + 1))
        return session

    def _read_parts(self, conn: Connection, info: SessionInfo,
                    layouts: LayoutReport) -> tuple[list[Part], int | None]:
        """One session's parts from every layout the database has, merged in time order,
        without what ``/undo`` took back.

        Each adapter returns its parts in its own order (message/part: message
        time, id, part id; session_message: ``seq``) keyed by ``(time, message
        id, position)``; the merge keeps each layout's own order and
        interleaves the two by message time and id.

        Returns:
            the parts, and the time (epoch ms) from which the session is undone
            (None when nothing is): subagent sessions created since then are left out too.
        """
        session_id = info.id
        old, seen_ids = [], set()
        if MESSAGE_PART in layouts.readable_layouts:
            old, seen_ids = read_message_parts(conn, session_id, self._cells)
        new = []
        if SESSION_MESSAGE in layouts.readable_layouts:
            new = read_session_messages(conn, session_id, self._cells,
                                        ordered_by_seq=layouts.session_message_seq, skip_ids=seen_ids)
        if not new:
            keyed = old
        elif not old:
            keyed = new
        else:
            keyed = list(heapq.merge(old, new, key=lambda item: item[0][:2]))
        if info.revert is None:
            return [part for _, part in keyed], None
        found = revert_cut(keyed, info.revert, self._message_time(conn, info, layouts))
        if found is None:
            self.stats.warn("revert_boundary_missing", f"session {session_id}: undo boundary "
                            f"{info.revert.message_id} not found; nothing left out")
            return [part for _, part in keyed], None
        cut, since = found
        return split_at(keyed, cut, self.stats), since

    @staticmethod
    def _message_time(conn: Connection, info: SessionInfo, layouts: LayoutReport) -> int | None:
        """The time (epoch ms) of the undo boundary message in either layout, None if absent."""
        assert info.revert is not None
        queries = []
        if MESSAGE_PART in layouts.readable_layouts:
            queries.append("SELECT time_created FROM message WHERE id = :m AND session_id = :s")
        if SESSION_MESSAGE in layouts.readable_layouts:
            queries.append("SELECT time_created FROM session_message WHERE id = :m AND session_id = :s")
        for query in queries:
            row = conn.execute(text(query), {"m": info.revert.message_id, "s": info.id}).first()
            if row is not None:
                try:
                    return int(row[0] or 0)
                except (TypeError, ValueError):
                    return None
        return None

    def iter_sessions(self, flt: SessionFilter = SessionFilter()) -> Iterator[Session]:
        """Stream reconstructed root sessions (children folded in), oldest first."""
        for info in self.iter_root_infos(flt):
            yield self.read_session(info)

