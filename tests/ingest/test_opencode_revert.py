"""Undone turns (OpenCode ``/undo``: ``session.revert``) never reach the transcript, the model or the note.

OpenCode's semantics (``packages/opencode/src/session/revert.ts``): from
``revert.messageID`` on nothing is part of the conversation; with ``partID``
the boundary message keeps its parts before that part. ``/redo`` clears
``revert`` and everything is back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import Settings
from memctl.connectors.model import Revert, SessionInfo
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.ingest.distill import read_note_meta
from memctl.ingest.options import IngestOptions
from memctl.ingest.plan import Action, PlanRules, decide
from memctl.ingest.run import IngestRun
from memctl.ingest.transcript import build_transcript
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, task, text

MARKERS = re.compile(r"(?:KEPT|UNDONE)_\d+")
ASK = ("The orders endpoint is slow under load; add a small in-process cache in front of the price lookup so "
       "repeated requests for the same product do not hit the database every time, and measure it.")


def _three_turns(db: CraftedDb, sid: str) -> dict[str, object]:
    """Three user turns, each answered by a bash call and a text; returns the ids by name."""
    ids: dict[str, object] = {}
    for turn in (1, 2, 3):
        ids[f"u{turn}"] = db.message(sid, "user", [text(f"{ASK} turn {turn}")])[0]
        mid, pids = db.assistant(sid, [bash(f"make bench{turn}", f"TOOL_{turn} done"), text(f"ANSWER_{turn} ok")])
        ids[f"a{turn}"], ids[f"a{turn}_parts"] = mid, pids
    return ids


def _visible(session) -> list[str]:
    out = []
    for part in session.parts:
        blob = json.dumps(part.data)
        out += re.findall(r"(?:turn \d|TOOL_\d|ANSWER_\d)", blob)
    return out


ALL = ["turn 1", "TOOL_1", "ANSWER_1", "turn 2", "TOOL_2", "ANSWER_2", "turn 3", "TOOL_3", "ANSWER_3"]


@pytest.mark.parametrize(("shape", "expected", "reverted"), [
    # /undo of the second turn: OpenCode points messageID at its user message
    (lambda ids: {"messageID": ids["u2"]}, ALL[:3], 4),
    # /undo of the last turn only
    (lambda ids: {"messageID": ids["u3"], "snapshot": "0" * 40, "diff": "diff --git a/x b/x"}, ALL[:6], 2),
    # everything undone
    (lambda ids: {"messageID": ids["u1"]}, [], 6),
    # partial undo inside the second answer: its bash call stays, its text and all later turns go
    (lambda ids: {"messageID": ids["a2"], "partID": ids["a2_parts"][1]}, ALL[:5], 3),
    # partial undo from the first part of an answer: the answer goes whole, its user turn stays
    (lambda ids: {"messageID": ids["a1"], "partID": ids["a1_parts"][0]}, ALL[:1], 5),
    # a partID that is not in that message: the whole message goes
    (lambda ids: {"messageID": ids["a2"], "partID": "prt_not_there"}, ALL[:4], 3),
    # boundary at an assistant message without partID
    (lambda ids: {"messageID": ids["a3"]}, ALL[:7], 1),
])
def test_undone_messages_and_parts_are_left_out(tmp_path: Path, shape, expected: list[str], reverted: int) -> None:
    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_undo", "Cache layer")
    ids = _three_turns(db, sid)
    db.set_revert(sid, shape(ids))
    db.close()
    source = OpenCodeSource(tmp_path / "opencode.db")
    (session,) = list(source.iter_sessions())
    assert _visible(session) == expected
    assert source.stats.reverted_messages == reverted
    assert source.stats.skip_counts() == {}


@pytest.mark.parametrize(("cell", "counter"), [
    (None, None),                                   # /redo cleared it: everything is back
    ('{"messageID": "msg_gone"}', "revert_boundary_missing"),  # boundary row deleted: nothing left out
    ("{not json", "malformed_json"),
    ('{"partID": "prt_x"}', "missing_fields"),
    ('["msg_x"]', "malformed_json"),
])
def test_no_usable_boundary_leaves_everything_in_and_is_counted(tmp_path: Path, cell, counter) -> None:
    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_undo", "Cache layer")
    _three_turns(db, sid)
    db.conn.execute("UPDATE session SET revert = ? WHERE id = ?", (cell, sid))
    db.close()
    source = OpenCodeSource(tmp_path / "opencode.db")
    (session,) = list(source.iter_sessions())
    assert _visible(session) == ALL
    assert source.stats.skip_counts() == ({counter: 1} if counter else {})
    assert source.stats.reverted_messages == 0


def test_boundary_message_without_parts_cuts_at_its_time(tmp_path: Path) -> None:
    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_undo", "Cache layer")
    db.user(sid, f"{ASK} turn 1")
    db.assistant(sid, [text("ANSWER_1 ok")])
    empty, _ = db.message(sid, "user", [])  # e.g. a prompt whose parts were never written
    db.assistant(sid, [text("ANSWER_2 ok")])
    db.set_revert(sid, {"messageID": empty})
    db.close()
    (session,) = list(OpenCodeSource(tmp_path / "opencode.db").iter_sessions())
    assert _visible(session) == ["turn 1", "ANSWER_1"]


def test_subagents_started_by_the_undone_turn_go_with_it(tmp_path: Path) -> None:
    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_root", "Find TODOs")
    db.user(sid, f"{ASK} turn 1")
    db.session("ses_child_kept", "Child session - 2026-11-29T22:06:41.000Z", parent=sid)
    db.assistant(sid, [task("ses_child_kept", "find TODO in src"), text("ANSWER_1 ok")])
    u2 = db.user(sid, f"{ASK} turn 2")
    for name in ("ses_child_undone_a", "ses_child_undone_b"):
        db.session(name, "Child session - 2026-11-29T22:07:00.000Z", parent=sid)
        db.message(name, "user", [text(f"UNDONE_CHILD {name}")])
    db.assistant(sid, [task("ses_child_undone_a", "find FIXME"), text("ANSWER_2 ok")])
    db.set_revert(sid, {"messageID": u2})
    db.close()
    source = OpenCodeSource(tmp_path / "opencode.db")
    (session,) = list(source.iter_sessions())
    assert [c.info.id for c in session.children] == ["ses_child_kept"]
    assert source.stats.reverted_sessions == 2
    transcript = build_transcript(session, Settings(home=tmp_path / "var"))
    assert "UNDONE_CHILD" not in transcript.text and "ANSWER_2" not in transcript.text
    assert transcript.child_session_ids == ["ses_child_kept"]


def test_session_message_layout_rows_are_cut_too(tmp_path: Path) -> None:
    """The dev build's HTTP API stores rows in ``session_message``; its revert names those ids."""
    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_dev", "Dev layout")
    rows = [("smsg_001", "user", {"text": f"{ASK} turn 1"}),
            ("smsg_002", "assistant", {"content": [{"type": "text", "id": "c1", "text": "ANSWER_1 ok"}]}),
            ("smsg_003", "user", {"text": f"{ASK} turn 2"}),
            ("smsg_004", "assistant", {"content": [{"type": "text", "id": "c2", "text": "ANSWER_2 ok"}]})]
    for seq, (rid, kind, data) in enumerate(rows, start=1):
        t = db.tick()
        db.conn.execute("INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) "
                        "VALUES (?,?,?,?,?,?,?)", (rid, sid, kind, seq, t, t, json.dumps(data | {"time": {"created": t}})))
    db.set_revert(sid, {"messageID": "smsg_003"})
    db.close()
    (session,) = list(OpenCodeSource(tmp_path / "opencode.db").iter_sessions())
    assert _visible(session) == ["turn 1", "ANSWER_1"]
    assert session.info.revert == Revert("smsg_003")


# -- end to end: transcript, model, note, re-evaluation ---------------------------------------------


def _settings(home: Path, server: FakeOllama) -> Settings:
    return Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)


def _chat_bodies(server: FakeOllama) -> str:
    return "\n".join(json.dumps(body) for path, _model, body in list(server.calls) if path == "/api/chat")


def _session(db: CraftedDb, sid: str, kept: int, undone: int) -> str:
    """``kept`` turns then ``undone`` turns; returns the first undone user message id."""
    boundary = ""
    for turn in range(kept + undone):
        marker = f"KEPT_{turn}" if turn < kept else f"UNDONE_{turn}"
        mid = db.user(sid, f"{ASK} {marker}")
        boundary = boundary or (mid if turn >= kept else "")
        db.assistant(sid, [bash(f"rm -rf build{turn}" if turn >= kept else f"pytest -k {turn}", f"{marker} output"),
                           text(f"{marker}: answered")])
    return boundary


def test_undone_turns_reach_neither_model_nor_note_and_redo_is_distilled_later(tmp_path: Path) -> None:
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    boundaries = {}
    for sid, kept, undone in (("ses_a", 1, 1), ("ses_b", 2, 2), ("ses_c", 1, 3)):
        db.session(sid, "Cache layer " + sid)
        boundaries[sid] = _session(db, sid, kept, undone)
        db.set_revert(sid, {"messageID": boundaries[sid]})
    db.close()
    with FakeOllama() as server:
        summary = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert summary.distilled == 3 and summary.left_out == {"reverted_messages": 2 + 4 + 6}
        sent = _chat_bodies(server)
        assert set(MARKERS.findall(sent)) == {"KEPT_0", "KEPT_1"}
        for sid in boundaries:
            assert "UNDONE" not in (home / "transcripts" / f"{sid}.md").read_text()
            note = (home / "distilled" / f"{sid}.md").read_text()
            assert "UNDONE" not in note and "rm -rf" not in note
            assert read_note_meta(note)["source_id"] == sid
        progress = json.loads((home / "progress.json").read_text())["sources"]
        assert {sid: progress[sid]["revert"] for sid in boundaries} == {sid: f"{m}/" for sid, m in boundaries.items()}

        # nothing changed: nothing is read again
        server.reset_counts()
        again = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert (again.already_done, again.distilled, server.counts["/api/chat"]) == (3, 0, 0)

        # /redo on ses_b without a time_updated change: its undone turns come back as a continuation
        db = CraftedDb.reopen(db_path)
        db.set_revert("ses_b", None)
        db.close()
        server.reset_counts()
        redo = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        # only ses_b is read again (the others are done): nothing of it is undone any more
        assert (redo.distilled, redo.already_done, redo.left_out) == (1, 2, {})
        cont = (home / "transcripts" / "ses_b-cont1.md").read_text()
        assert set(MARKERS.findall(cont)) == {"UNDONE_2", "UNDONE_3"}
        progress = json.loads((home / "progress.json").read_text())["sources"]
        assert progress["ses_b"]["revert"] == "" and progress["ses_b"]["continuations"] == 1


def test_an_undo_after_distilling_is_recorded_without_a_model_call(tmp_path: Path) -> None:
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    sid = db.session("ses_a", "Cache layer")
    _session(db, sid, 3, 0)
    last_user = db.conn.execute("SELECT id FROM message WHERE session_id = ? AND data LIKE '%\"user\"%' "
                                "ORDER BY id DESC LIMIT 1", (sid,)).fetchone()[0]
    db.close()
    with FakeOllama() as server:
        assert IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run().distilled == 1
        db = CraftedDb.reopen(db_path)
        db.set_revert(sid, {"messageID": last_user, "partID": None})
        db.close()
        server.reset_counts()
        first = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        second = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
    assert (first.already_done, first.distilled, second.already_done, server.counts["/api/chat"]) == (1, 0, 1, 0)
    assert json.loads((home / "progress.json").read_text())["sources"][sid]["revert"] == f"{last_user}/"


def _info(revert: Revert | None) -> SessionInfo:
    return SessionInfo(id="s", title="Cache layer", directory="/home/dev/src/app", project_id="prj_1",
                       project_worktree="/home/dev/src/app", parent_id=None, time_created=1, time_updated=5,
                       version="1.18.34", revert=revert)


@pytest.mark.parametrize(("status", "recorded", "current", "action"), [
    ("distilled", None, None, Action.SKIP),                          # never undone, still not
    ("distilled", "", None, Action.SKIP),                            # recorded as '' (nothing undone)
    ("distilled", None, Revert("msg_b"), Action.CONTINUE),           # undone after it was distilled
    ("distilled", "msg_b/", None, Action.CONTINUE),                  # /redo
    ("distilled", "msg_b/prt_c", Revert("msg_b"), Action.CONTINUE),  # a partial undo widened
    ("distilled", "msg_b/", Revert("msg_b", "prt_c"), Action.CONTINUE),  # ... or narrowed
    ("distilled", "msg_b/", Revert("msg_b"), Action.SKIP),
    ("distilled", "msg_b/prt_c", Revert("msg_b", "prt_c"), Action.SKIP),
    ("skipped", "msg_b/", Revert("msg_a"), Action.DISTILL),
    ("skipped", "msg_b/", None, Action.DISTILL),
    ("skipped", None, None, Action.SKIP),
    ("skipped", "msg_b/", Revert("msg_b"), Action.SKIP),
])
def test_a_changed_undo_counts_as_growth(tmp_path: Path, status: str, recorded, current, action: Action) -> None:
    cp = Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json")
    fields = {"session_updated": 5} | ({"revert": recorded} if recorded is not None else {})
    if status == "distilled":
        cp.mark_distilled("s", **fields)
    else:
        cp.mark_skipped("s", reason="small", skip_kind="threshold", **fields)
    # read back from disk: the boundary survives progress.json
    entry = Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json").entry("s")
    assert entry is not None and entry.revert == recorded
    assert decide(_info(current), entry, PlanRules(prompt_version="1")).action is action


@pytest.mark.parametrize("stored", [
    {"status": "distilled", "session_updated": 5, "covered_until": 4, "revert": "msg_b/", "topic": "app"},
    {"status": "distilled", "session_updated": 7, "revert": "", "continuations": 2},
    {"status": "skipped", "revert": "msg_b/prt_c", "reason": "small", "skip_kind": "threshold"},
    {"status": "error", "revert": "smsg_003/", "error": "boom", "attempts": 1},
])
def test_the_undo_boundary_in_progress_json_is_written_back_unchanged(tmp_path: Path, stored: dict) -> None:
    progress = tmp_path / "progress.json"
    progress.write_text(json.dumps({"format": 1, "sources": {"s": stored, "other": {"status": "distilled"}}}))
    cp = Checkpoint(progress, tmp_path / "skipped.json")
    assert cp.entry("s").revert == stored["revert"]
    cp.update("other", session_updated=9)  # rewrites the whole file
    assert json.loads(progress.read_text())["sources"]["s"] == stored
