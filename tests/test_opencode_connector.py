"""The OpenCode connector on synthetic databases with OpenCode 1.18's real schema."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

from connectors import opencode
from connectors.opencode import (
    OpenCodeSource,
    SessionFilter,
    SourceBusyError,
    SourceNotFoundError,
    UnsupportedSchemaError,
    resolve_db_path,
)
from tests.fixtures.synthetic_opencode import BASE_MS, add_project, add_session, build_database, create_schema

REPO = Path(__file__).resolve().parents[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def small_db(tmp_path: Path) -> Path:
    return build_database(tmp_path / "opencode.db", 5, turns=2)


def test_db_path_precedence(tmp_path: Path) -> None:
    env = {"OPENCODE_DB": "/x/env.db", "XDG_DATA_HOME": "/xdg"}
    assert resolve_db_path("/x/flag.db", env) == Path("/x/flag.db")
    assert resolve_db_path(None, env) == Path("/x/env.db")
    assert resolve_db_path(None, {"XDG_DATA_HOME": "/xdg"}) == Path("/xdg/opencode/opencode.db")
    assert resolve_db_path(None, {}) == Path("~/.local/share/opencode/opencode.db").expanduser()


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="--db PATH"):
        OpenCodeSource(tmp_path / "nope.db")


def test_sessions_stream_in_order_with_roles(small_db: Path) -> None:
    source = OpenCodeSource(small_db)
    assert source.check_schema()["session"] == 5
    sessions = list(source.iter_sessions())
    assert [s.info.time_created for s in sessions] == sorted(s.info.time_created for s in sessions)
    first = sessions[0]
    assert first.info.project_worktree == "/home/dev/src/synthetic"
    assert first.info.version == "1.18.34"
    assert first.parts[0].role == "user" and first.parts[0].type == "text"
    assert {p.role for p in first.parts} == {"user", "assistant"}
    # within a turn the assistant's parts keep their order
    types = [p.type for p in first.parts if p.role == "assistant"][:8]
    assert types == ["step-start", "reasoning", "tool", "tool", "patch", "text", "step-finish", "step-start"]


def test_children_are_folded_into_their_root(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    conn = sqlite3.connect(db)
    create_schema(conn)
    add_project(conn, "prj_synthetic", "/home/dev/src/synthetic")
    rng = random.Random(1)
    root = add_session(conn, 1, rng=rng, turns=1)
    child = add_session(conn, 2, rng=rng, turns=1, parent_id=root)
    grandchild = add_session(conn, 3, rng=rng, turns=1, parent_id=child)
    other = add_session(conn, 4, rng=rng, turns=1)
    conn.commit()
    conn.close()
    source = OpenCodeSource(db)
    roots = list(source.iter_sessions())
    assert [s.info.id for s in roots] == [root, other]
    assert roots[0].all_session_ids() == [root, child, grandchild]
    # selecting a child selects its root
    picked = list(source.iter_sessions(SessionFilter(session_ids=(grandchild,))))
    assert [s.info.id for s in picked] == [root]


def test_filters_since_limit_accept(small_db: Path) -> None:
    source = OpenCodeSource(small_db)
    all_ids = [i.id for i in source.iter_root_infos()]
    assert len(all_ids) == 5
    assert [i.id for i in source.iter_root_infos(SessionFilter(limit=2))] == all_ids[:2]
    since = BASE_MS + 3 * 3_600_000
    assert [i.id for i in source.iter_root_infos(SessionFilter(since_ms=since))] == all_ids[3:]
    assert list(source.iter_root_infos(SessionFilter(accept=lambda info: False))) == []
    assert source.count_roots(SessionFilter(limit=2)) == 2


def test_paging_crosses_page_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = build_database(tmp_path / "opencode.db", 7, turns=1)
    monkeypatch.setattr(opencode, "PAGE_SIZE", 3)
    ids = [i.id for i in OpenCodeSource(db).iter_root_infos()]
    assert len(ids) == len(set(ids)) == 7


def test_bad_rows_are_skipped_and_counted(small_db: Path) -> None:
    conn = sqlite3.connect(small_db)
    sid, mid = conn.execute("SELECT session_id, id FROM message ORDER BY id LIMIT 1").fetchone()
    ins = "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)"
    conn.execute(ins, ("prt_zz_bad_json", mid, sid, 1, 1, "{not json"))
    conn.execute(ins, ("prt_zz_no_type", mid, sid, 1, 1, json.dumps({"text": "no type"})))
    conn.execute(ins, ("prt_zz_orphan", "msg_missing", sid, 1, 1, json.dumps({"type": "text", "text": "x"})))
    # invalid UTF-8 bytes stored in a TEXT column
    conn.execute(ins.replace("?)", "CAST(? AS TEXT))"), ("prt_zz_latin1", mid, sid, 1, 1, b'{"type": "text", "text": "caf\xe9 \xff"}'))
    conn.commit()
    conn.close()
    source = OpenCodeSource(small_db)
    session = next(s for s in source.iter_sessions() if s.info.id == sid)
    ids = {p.id for p in session.parts}
    assert "prt_zz_bad_json" not in ids and "prt_zz_no_type" not in ids and "prt_zz_orphan" not in ids
    latin = next(p for p in session.parts if p.id == "prt_zz_latin1")
    assert latin.data["text"] == "caf\ufffd \ufffd"
    stats = source.stats
    assert (stats.malformed_json, stats.missing_fields, stats.orphan_parts) == (1, 1, 1)
    assert stats.undecodable_text >= 1
    assert len(list(source.iter_sessions())) == 5  # the run went on


def test_unknown_layout_names_what_was_found(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE conversations (id TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(UnsupportedSchemaError, match=r"missing tables .*found conversations"):
        OpenCodeSource(db).check_schema()


def test_session_message_rows_are_refused_but_empty_table_is_fine(small_db: Path) -> None:
    source = OpenCodeSource(small_db)
    source.check_schema()  # 1.18 ships session_message empty: presence alone proves nothing
    source.close()
    conn = sqlite3.connect(small_db)
    conn.execute(
        "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) "
        "SELECT 'sm_1', id, 'user', 1, 1, 1, '{}' FROM session LIMIT 1"
    )
    conn.commit()
    conn.close()
    with pytest.raises(UnsupportedSchemaError, match="session_message"):
        OpenCodeSource(small_db).check_schema()


def test_event_table_is_never_read(small_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tables_read: set[str] = set()
    original = OpenCodeSource._connect_raw

    def spying(self, immutable):
        conn = original(self, immutable)

        def authorizer(action, arg1, arg2, dbname, source):
            if action == sqlite3.SQLITE_READ:
                tables_read.add(arg1)
            return sqlite3.SQLITE_OK

        conn.set_authorizer(authorizer)
        return conn

    monkeypatch.setattr(OpenCodeSource, "_connect_raw", spying)
    source = OpenCodeSource(small_db)
    source.check_schema()
    list(source.iter_sessions())
    assert "part" in tables_read and "message" in tables_read
    assert "event" not in tables_read


def test_live_wal_rows_are_seen_and_files_stay_byte_identical(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=1)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # keep the new rows only in the -wal
    add_session(writer, 99, rng=random.Random(3), turns=1, title="only in the wal")
    writer.commit()
    wal = Path(str(db) + "-wal")
    assert wal.stat().st_size > 0
    before = {p.name: _digest(p) for p in (db, wal)}
    listing = sorted(os.listdir(tmp_path))
    source = OpenCodeSource(db)
    titles = [s.info.title for s in source.iter_sessions()]
    source.close()
    assert "only in the wal" in titles
    assert {p.name: _digest(p) for p in (db, wal)} == before
    assert sorted(os.listdir(tmp_path)) == listing
    writer.close()


def test_idle_database_without_wal_creates_no_files(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=1)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()  # last connection closes: OpenCode idle, -wal/-shm removed
    assert sorted(os.listdir(tmp_path)) == ["opencode.db"]
    before = _digest(db)
    source = OpenCodeSource(db)
    assert len(list(source.iter_sessions())) == 2
    source.close()
    assert sorted(os.listdir(tmp_path)) == ["opencode.db"]
    assert _digest(db) == before


def test_read_only_directory_as_unprivileged_user(tmp_path: Path) -> None:
    """As root SQLite ignores directory permissions, so the reader runs as `nobody`."""
    # pytest's tmp root is private to root: use a world-traversable directory in /tmp
    base = Path(tempfile.mkdtemp(prefix="memctl-ro-"))
    base.chmod(0o755)
    data = base / "ro"
    data.mkdir()
    db = build_database(data / "opencode.db", 3, turns=1)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    db.chmod(0o444)
    data.chmod(0o555)
    # Fork so the child can drop privileges for good (the interpreter under /root may not be
    # executable by `nobody`, but the already-loaded modules are).
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        status = 1
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                import pwd

                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            source = OpenCodeSource(db)
            source.check_schema()
            message = str(len(list(source.iter_sessions())))
            status = 0
        except BaseException as exc:  # report anything to the parent
            message = f"{type(exc).__name__}: {exc}"
        os.write(write_end, message.encode())
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        output = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    data.chmod(0o755)
    listing = sorted(os.listdir(data))
    shutil.rmtree(base)
    assert os.waitstatus_to_exitcode(wait_status) == 0, output
    assert output == "3"
    assert listing == ["opencode.db"]


def test_locked_database_retries_then_fails_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=1)  # rollback-journal mode
    monkeypatch.setattr(opencode, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(opencode, "BUSY_ATTEMPTS", 3)
    # make the reader use a real lock-checking open (a -wal beside it forces mode=ro, not immutable)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    Path(str(db) + "-wal").touch()
    try:
        with pytest.raises(SourceBusyError, match="stayed locked"):
            OpenCodeSource(db).check_schema()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
