"""The ingest summary counts, by kind, every source row it skipped or did not understand, the
content it left out (undone turns, outputs OpenCode pruned) and the orphaned subagent sessions;
an orphan's note says so in its provenance."""

from __future__ import annotations

import json
from pathlib import Path

from memctl.config import Settings
from memctl.ingest.distill import read_note_meta
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text
from tests.support.memctl_process import run_memctl

ASK = ("The nightly build breaks on the integration suite about once a week; find which test is flaky, "
       "explain the cause and make the suite deterministic so the release train is not blocked again.")


def _insert_part(db: CraftedDb, sid: str, mid: str, data: str) -> None:
    t = db.tick(10)
    db.conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                    "VALUES (?,?,?,?,?,?)", (f"prt_{t:013x}odd{db.tick(1)}", mid, sid, t, t, data))


def _odd_rows(db: CraftedDb, sid: str) -> dict[str, int]:
    """Plant rows of every kind the reader cannot use; returns the expected counts by kind."""
    _, (bash_part,) = db.assistant(sid, [bash("make test", "ok")])
    mid = db.conn.execute("SELECT message_id FROM part WHERE id = ?", (bash_part,)).fetchone()[0]
    for data in ({"type": "plan-patch", "beforeContent": "x"}, {"type": "future-thing"},
                 {"type": "tool", "tool": "bash", "callID": "c9"},
                 {"type": "tool", "tool": "bash", "callID": "c8", "state": {"status": "queued", "input": {}}}):
        _insert_part(db, sid, mid, json.dumps(data))
    _insert_part(db, sid, mid, "{not json")
    _insert_part(db, sid, mid, json.dumps({"text": "a part without a type"}))
    _insert_part(db, sid, "msg_missing", json.dumps({"type": "text", "text": "orphan part"}))
    db.message(sid, "system", [text("UNKNOWN_ROLE_TEXT"), text("more")])
    t = db.tick()
    db.conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                    (f"msg_{t:013x}badjson", sid, t, t, "{broken"))
    db.conn.execute("INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) "
                    "VALUES (?,?,?,?,?,?,?)", (f"smsg_odd_{sid}", sid, "hologram", 1, t, t, json.dumps({"x": 1})))
    return {"unknown_part_types": 2, "tool_parts_without_state": 1, "unknown_tool_status": 1, "malformed_json": 2,
            "missing_fields": 1, "orphan_parts": 1, "unknown_roles": 1, "unknown_types": 1}


def _database(path: Path) -> tuple[Path, dict[str, int]]:
    db = CraftedDb(path)
    expected: dict[str, int] = {}
    for n in (1, 2):
        sid = db.session(f"ses_odd{n}", f"Flaky suite {n}")
        db.user(sid, ASK)
        db.assistant(sid, [bash("pytest -x tests/integration", "COMPACTED_LOG line\n" * 300, compacted=1,
                                title="integration suite"), bash("git log -1", "KEPT_LOG abc123"),
                           text("The clock fixture leaked between tests; pinned it.")])
        for kind, count in _odd_rows(db, sid).items():
            expected[kind] = expected.get(kind, 0) + count
    # orphaned subagent sessions: their parent was deleted
    for n, parent in enumerate(("ses_gone_a", "ses_gone_b"), start=1):
        sid = db.session(f"ses_orphan{n}", f"Find flaky tests (@explore subagent) {n}", parent=parent)
        db.user(sid, ASK)
        db.assistant(sid, [bash("rg -n flaky", "tests/test_clock.py:3"), text("found the clock fixture")])
        db.session(f"ses_orphan{n}_child", "Child session - 2026-11-29T22:06:41.000Z", parent=sid)
        db.user(f"ses_orphan{n}_child", "look at tests/test_clock.py")
    db.close()
    return path, expected


def test_dry_run_counts_every_row_it_could_not_use(tmp_path: Path) -> None:
    db, expected = _database(tmp_path / "opencode.db")
    summary = IngestRun(Settings(home=tmp_path / "var", settle_minutes=0),
                        IngestOptions(db=db, dry_run=True)).run()
    assert summary.read_warnings == dict(sorted(expected.items()))
    assert summary.left_out == {"compacted_tool_outputs": 2}
    assert (summary.found, summary.orphaned_sessions) == (4, 2)


def test_the_summary_and_the_notes_say_what_was_left_out_and_orphaned(tmp_path: Path) -> None:
    db, expected = _database(tmp_path / "opencode.db")
    home = tmp_path / "var"
    with FakeOllama() as server:
        proc = run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--phase", "distill", "--json")
        sent = json.dumps([body for path, _m, body in list(server.calls) if path == "/api/chat"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    assert summary["read_warnings"] == dict(sorted(expected.items()))
    assert summary["left_out"] == {"compacted_tool_outputs": 2}
    assert (summary["distilled"], summary["orphaned_sessions"]) == (4, 2)
    assert "COMPACTED_LOG" not in sent and "UNKNOWN_ROLE_TEXT" not in sent and "KEPT_LOG" in sent
    for n, parent in ((1, "ses_gone_a"), (2, "ses_gone_b")):
        meta = read_note_meta((home / "distilled" / f"ses_orphan{n}.md").read_text())
        assert meta["orphaned_parent"] == parent and meta["child_sessions"] == [f"ses_orphan{n}_child"]
    assert "orphaned_parent" not in read_note_meta((home / "distilled" / "ses_odd1.md").read_text())


def test_the_summary_table_shows_the_counts(tmp_path: Path) -> None:
    db, _ = _database(tmp_path / "opencode.db")
    with FakeOllama() as server:
        proc = run_memctl(server, "ingest", "--db", str(db), "--home", str(tmp_path / "var"), "--dry-run")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "compacted_tool_outputs 2" in proc.stdout and "orphaned subagent sessions" in proc.stdout
    assert "unknown_roles 2" in proc.stdout and "tool_parts_without_state 2" in proc.stdout
