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

from memctl.config import Settings
from memctl.connectors.opencode import source as opencode
from memctl.connectors.opencode.source import (
    OpenCodeSource,
    SessionFilter,
    SourceBusyError,
    SourceNotFoundError,
    UnsupportedSchemaError,
    resolve_db_path,
)
from memctl.ingest.transcript import build_transcript
from tests.fixtures.synthetic_opencode import BASE_MS, add_project, add_session, build_database, create_schema

REPO = Path(__file__).resolve().parents[2]


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
    assert source.check_schema().sessions == 5
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


def _add_session_messages(db: Path, session_id: str, rows: list[tuple[str, str, int, dict]]) -> None:
    """Insert ``(id, type, seq, data)`` rows into ``session_message`` (dev-build shape)."""
    conn = sqlite3.connect(db)
    for row_id, row_type, seq, data in rows:
        conn.execute(
            "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, session_id, row_type, seq, BASE_MS + seq, BASE_MS + seq, json.dumps(data)),
        )
    conn.commit()
    conn.close()


def _new_layout_session(db: Path, session_id: str = "ses_zz_new_layout") -> str:
    """A session row with only session_message content (as the dev build's HTTP API writes it)."""
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES (?, 'prj_synthetic', 'new-layout', '/home/dev/src/synthetic', 'New session', "
        "'0.0.0-dev-202609212252', ?, ?)", (session_id, BASE_MS + 10**9, BASE_MS + 10**9))
    conn.commit()
    conn.close()
    tool = {"type": "tool", "id": "call_1", "name": "bash", "provider": {"executed": False},
            "state": {"status": "completed", "input": {"command": "ls"},
                      "content": [{"type": "text", "text": "a.txt"}, {"type": "text", "text": "Command exited with code 0."},
                                  {"type": "text", "text": "x" * 500}],
                      "structured": {"exit": 0}}, "time": {"created": BASE_MS}}
    failed = {"type": "tool", "id": "call_2", "name": "edit", "state": {
        "status": "error", "input": {"path": "a.txt"}, "content": [], "structured": {},
        "error": {"type": "unknown", "message": "Could not find oldString"}}, "time": {"created": BASE_MS}}
    _add_session_messages(db, session_id, [
        ("evt_a", "agent-switched", 1, {"agent": "build", "time": {"created": BASE_MS}}),
        ("msg_a", "user", 2, {"time": {"created": BASE_MS}, "text": "List the files please",
                              "files": [{"uri": "file:///x/a.txt", "mime": "text/plain", "name": "a.txt"}]}),
        ("msg_b", "assistant", 3, {"time": {"created": BASE_MS}, "agent": "build", "content": [
            {"type": "reasoning", "id": "reasoning-0", "text": "Run ls."}, tool, failed,
            {"type": "hologram", "id": "h-0"},
            {"type": "text", "id": "text-0", "text": "There is one file."}],
            "snapshot": {"files": ["a.txt"]}, "finish": "stop"}),
        ("msg_c", "compaction", 9, {"time": {"created": BASE_MS}, "reason": "auto", "summary": "s", "recent": "r"}),
        ("msg_d", "teleport", 10, {"time": {"created": BASE_MS}}),
        ("msg_e", "synthetic", 11, {"time": {"created": BASE_MS}, "sessionID": session_id, "text": "Continue."}),
        ("msg_f", "shell", 12, {"time": {"created": BASE_MS}, "callID": "c", "command": "pwd", "output": "/x"}),
    ])
    return session_id


def test_session_message_layout_is_read_in_seq_order(small_db: Path) -> None:
    sid = _new_layout_session(small_db)
    source = OpenCodeSource(small_db)
    report = source.check_schema()
    assert report.layouts == ("message-part", "session-message")
    assert report.sessions_by_layout == {"message-part": 5, "session-message": 1, "none": 0}
    assert report.session_message_seq and report.session_messages == 6  # the lifecycle row is not content
    session = next(s for s in source.iter_sessions() if s.info.id == sid)
    shapes = [(p.role, p.type, p.data.get("tool") or p.data.get("text") or p.data.get("filename")) for p in session.parts]
    assert shapes == [
        ("user", "text", "List the files please"), ("user", "file", "a.txt"),
        ("assistant", "reasoning", "Run ls."), ("assistant", "tool", "bash"), ("assistant", "tool", "edit"),
        ("assistant", "text", "There is one file."), ("assistant", "patch", None),
        ("user", "compaction", None), ("user", "text", "Continue."), ("user", "tool", "bash"),
    ]
    bash = session.parts[3].data["state"]
    assert bash == {"status": "completed", "input": {"command": "ls"},
                    "output": "a.txt\nCommand exited with code 0.\n" + "x" * 500}
    assert session.parts[4].data["state"]["error"] == "Could not find oldString"
    assert session.parts[6].data["files"] == ["a.txt"]
    assert session.parts[7].data == {"type": "compaction", "auto": True}
    assert session.parts[8].data["synthetic"] is True
    # the unknown row type and the unknown content item: skipped, counted, named
    assert source.stats.unknown_types == 2
    assert any("'teleport'" in w for w in source.stats.warnings)
    assert any("'hologram'" in w for w in source.stats.warnings)
    transcript = build_transcript(session, Settings(max_tool_output_chars=100))
    assert "x" * 200 not in transcript.text and "[truncated " in transcript.text  # bounded like any tool output
    assert "[context compacted automatically]" in transcript.text
    assert "**Tool `edit`** — error" in transcript.text and "Continue." not in transcript.text


def test_a_session_with_rows_in_both_layouts_is_merged_once(small_db: Path) -> None:
    conn = sqlite3.connect(small_db)
    sid, mid, mtime = conn.execute("SELECT session_id, id, time_created FROM message ORDER BY time_created, id LIMIT 1").fetchone()
    last = conn.execute("SELECT max(time_created) FROM message WHERE session_id = ?", (sid,)).fetchone()[0]
    conn.close()
    before = [p.id for p in next(s for s in OpenCodeSource(small_db).iter_sessions() if s.info.id == sid).parts]
    _add_session_messages(small_db, sid, [
        (mid, "user", 1, {"time": {"created": mtime}, "text": "mirrored copy of the first message"}),
        ("msg_zz_later", "user", 2, {"time": {"created": last + 1}, "text": "a later prompt through the HTTP API"}),
    ])
    conn = sqlite3.connect(small_db)
    conn.execute("UPDATE session_message SET time_created = ? WHERE id = 'msg_zz_later'", (last + 1,))
    conn.commit()
    conn.close()
    source = OpenCodeSource(small_db)
    assert source.check_schema().sessions_by_layout["session-message"] == 1
    sessions = [s for s in source.iter_sessions() if s.info.id == sid]
    assert len(sessions) == 1  # listed once
    parts = sessions[0].parts
    assert [p.id for p in parts][:-1] == before  # the mirrored message is taken once, from message/part
    assert parts[-1].data["text"] == "a later prompt through the HTTP API"
    assert not any(p.data.get("text") == "mirrored copy of the first message" for p in parts)


def test_lifecycle_rows_without_seq_do_not_make_a_new_layout(tmp_path: Path) -> None:
    """OpenCode 1.14: session_message without seq, holding only agent/model-switched rows."""
    db = build_database(tmp_path / "opencode.db", 2, turns=1)
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE session_message")
    conn.execute("CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, "
                 "time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)")
    conn.execute("INSERT INTO session_message SELECT 'evt_' || id, id, 'agent-switched', 1, 1, '{\"agent\":\"build\"}' FROM session")
    conn.commit()
    conn.close()
    source = OpenCodeSource(db)
    report = source.check_schema()
    assert report.layouts == ("message-part",) and not report.session_message_seq
    assert report.readable_layouts == ("message-part", "session-message")
    assert report.sessions_by_layout == {"message-part": 2, "session-message": 0, "none": 0}
    sessions = list(source.iter_sessions())
    assert len(sessions) == 2 and source.stats.skipped_rows == 0
    assert all(p.type != "agent" for s in sessions for p in s.parts)


def test_a_new_layout_session_written_during_a_read_is_seen(small_db: Path) -> None:
    """The layouts are decided once, but every session is asked of every readable layout."""
    source = OpenCodeSource(small_db)
    assert source.check_schema().layouts == ("message-part",)
    sid = _new_layout_session(small_db)  # OpenCode's HTTP API writes while memctl reads
    session = next(s for s in source.iter_sessions() if s.info.id == sid)
    assert [p.data.get("text") for p in session.parts][:1] == ["List the files please"]


_SESSION_TABLES = (
    "CREATE TABLE session (id TEXT, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, "
    "version TEXT, time_created INTEGER, time_updated INTEGER)",
    "CREATE TABLE project (id TEXT, worktree TEXT)",
)


@pytest.mark.parametrize(("statements", "message"), [
    (_SESSION_TABLES, r"missing tables message \+ part, or session_message; found project, session"),
    (_SESSION_TABLES + ("CREATE TABLE session_message (id TEXT, session_id TEXT, kind TEXT, payload TEXT)",
                        "INSERT INTO session_message VALUES ('m1', 's1', 'user', '{}')"),
     r"1 conversation rows in 'session_message'.*lacks columns \['data', 'time_created', 'type'\]"),
    (_SESSION_TABLES + ("CREATE TABLE message (id TEXT, session_id TEXT, data TEXT)",
                        "CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT)"),
     r"table 'message' .* lacks columns \['time_created'\]"),
])
def test_layouts_that_cannot_be_read_are_a_clear_error(tmp_path: Path, statements: tuple[str, ...], message: str) -> None:
    db = tmp_path / "opencode.db"
    conn = sqlite3.connect(db)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    with pytest.raises(UnsupportedSchemaError, match=message):
        OpenCodeSource(db).check_schema()


def test_db_directory_finds_the_database(tmp_path: Path) -> None:
    (tmp_path / "rel").mkdir()
    release = build_database(tmp_path / "rel" / "opencode.db", 1, turns=1)
    assert OpenCodeSource(tmp_path / "rel").db_path == release
    (tmp_path / "dev").mkdir()
    dev = build_database(tmp_path / "dev" / "opencode-dev.db", 1, turns=1)
    assert OpenCodeSource(tmp_path / "dev").db_path == dev
    with pytest.raises(SourceNotFoundError, match="dev-build database beside it: --db .*opencode-dev.db"):
        OpenCodeSource(tmp_path / "dev" / "opencode.db")
    shutil.copy2(dev, tmp_path / "dev" / "opencode.db")
    with pytest.raises(SourceNotFoundError, match="holds both opencode.db .* and opencode-dev.db"):
        OpenCodeSource(tmp_path / "dev")
    with pytest.raises(SourceNotFoundError, match="directory without an OpenCode database"):
        OpenCodeSource(tmp_path)


@pytest.mark.parametrize("which", ["synthetic", "dev-fixture"])
def test_event_table_is_never_read(which: str, small_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither ``event`` nor the dev build's ``session_input`` (both repeat conversation text)."""
    if which == "dev-fixture":  # both layouts, real rows in event and session_input
        small_db = tmp_path / "dev" / "opencode-dev.db"
        small_db.parent.mkdir()
        shutil.copy2(REPO / "tests" / "fixtures" / "opencode-dev" / "opencode-dev.db", small_db)
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
    assert "event" not in tables_read and "session_input" not in tables_read
    if which == "dev-fixture":
        assert "session_message" in tables_read


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
