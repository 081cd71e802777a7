"""Failure boundaries of phase 1 with real processes (memctl/ingest/executor.py: a kill costs the sessions in flight).

* Process killed during distillation → at most the sessions in flight repeat.
* Process killed after a note write → the persisted note reloads on restart.
* Model errors → recorded as ``error`` with attempts, retried next run, exit 1.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.exit_codes import ExitCodeError
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.fixtures.synthetic_opencode import build_database

REPO = Path(__file__).resolve().parents[2]
SOURCE_ID = re.compile(r"Source id: (\S+)")


def _distilled_ids(server: FakeOllama) -> list[str]:
    """Session ids of the distill calls the server saw (the transcript header names the id)."""
    ids = []
    for path, _model, body in list(server.calls):
        if path == "/api/chat":
            text = "\n".join(m.get("content", "") for m in body.get("messages", []))
            match = SOURCE_ID.search(text)
            if match:
                ids.append(match.group(1))
    return ids


def _ingest_cmd(db: Path, home: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "memctl.cli", "ingest", "--db", str(db), "--home", str(home), "--phase", "distill", *extra]


def _env(server: FakeOllama) -> dict[str, str]:
    return {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO)}


def test_sigkill_mid_distill_repeats_at_most_the_sessions_in_flight(tmp_path: Path) -> None:
    sessions, workers = 14, 2
    db = build_database(tmp_path / "opencode.db", sessions, turns=2)
    home = tmp_path / "var"
    seen_notes: set[str] = set()
    with FakeOllama(latency_s=0.4) as server:
        for round_ in range(3):  # kill three times, at different points
            proc = subprocess.Popen(_ingest_cmd(db, home, "--workers", str(workers)), env=_env(server),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            target = len(seen_notes) + 2 + round_
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                notes = list((home / "distilled").glob("*.md")) if (home / "distilled").exists() else []
                if len(notes) >= target:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            # only complete files exist (atomic writes): each note parses and names its session
            notes_now = {p.stem for p in (home / "distilled").glob("*.md")}
            for stem in notes_now:
                text = (home / "distilled" / f"{stem}.md").read_text()
                assert text.startswith("---\n") and f"source_id: {stem}" in text
            before = set(notes_now)
            server.reset_counts()
            if round_ < 2:
                seen_notes = before
                continue
            # final run to completion
            result = subprocess.run(_ingest_cmd(db, home, "--workers", str(workers), "--json"), env=_env(server),
                                    capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, result.stderr
            redone = _distilled_ids(server)
            # nothing whose note was on disk at the kill is distilled again
            assert not (set(redone) & before), set(redone) & before
            assert len(redone) == len(set(redone))
        progress = json.loads((home / "progress.json").read_text())["sources"]
    assert len(progress) == sessions
    assert {e["status"] for e in progress.values()} == {"distilled"}
    notes = sorted(p.stem for p in (home / "distilled").glob("*.md"))
    assert notes == sorted(progress)
    # every accepted note is published once into the store, with its audit record
    published = sorted(p.stem for p in (home / "store" / "memory").rglob("*.md"))
    assert published == notes
    from memctl.store import MemoryStore

    store = MemoryStore(home / "store")
    assert store.verify(deep=True).ok
    assert sorted(r["path"].rsplit("/", 1)[1][:-3] for r in store.audit.records()) == notes
    assert {r["actor"] for r in store.audit.records()} == {"ingest"}
    # no temp files anywhere in the data home
    assert [p for p in home.rglob("*.tmp")] == []


def test_note_written_but_not_recorded_is_taken_over_without_a_model_call(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 3, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        progress_path = home / "progress.json"
        data = json.loads(progress_path.read_text())
        lost = sorted(data["sources"])[1]
        del data["sources"][lost]  # as if killed between the note write and the checkpoint write
        progress_path.write_text(json.dumps(data))
        server.reset_counts()
        summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert server.counts["/api/chat"] == 0
        assert summary.recovered == 1 and summary.already_done == 2
        assert json.loads(progress_path.read_text())["sources"][lost]["status"] == "distilled"


def test_model_errors_are_recorded_retried_and_exit_nonzero(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 3, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1, max_attempts_per_run=1)
        server.fail_next(1, status=500, routes=["/api/chat"])
        summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (summary.errors, summary.distilled, summary.exit_code) == (1, 2, 1)
        progress = json.loads((home / "progress.json").read_text())["sources"]
        failed = [sid for sid, e in progress.items() if e["status"] == "error"]
        assert len(failed) == 1
        assert progress[failed[0]]["attempts"] == 1 and "500" in progress[failed[0]]["error"]
        assert not (home / "distilled" / f"{failed[0]}.md").exists()
        # the transcript was persisted before the model call
        assert (home / "transcripts" / f"{failed[0]}.md").exists()
        server.reset_counts()
        again = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (again.errors, again.distilled, again.already_done, again.exit_code) == (0, 1, 2, 0)
        assert _distilled_ids(server) == failed


@pytest.mark.parametrize(
    ("fault", "message"),
    [("hang", "did not answer within"), ("malformed", "malformed"), ("truncated", "Ollama")],
)
def test_timeouts_and_malformed_replies_are_errors_not_crashes(tmp_path: Path, fault: str, message: str) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    with FakeOllama() as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, workers=1, max_attempts_per_run=1,
                            request_timeout_s=0.5)
        if fault == "hang":
            server.hang_next(1, 3.0, routes=["/api/chat"])
        else:
            server.malformed_next(1, routes=["/api/chat"], mode="invalid" if fault == "malformed" else "truncated")
        summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
    assert (summary.errors, summary.distilled, summary.exit_code) == (1, 1, 1)
    assert message in summary.error_details[0]["error"]


def test_missing_model_stops_the_run_at_once_with_the_pull_command(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 3, turns=2)
    with FakeOllama(missing_models={"llama3.1:8b"}) as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, workers=1)
        with pytest.raises(ExitCodeError, match=r"ollama pull llama3\.1:8b") as failed:
            IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert server.counts["/api/chat"] == 0  # checked once up front, not per session
    assert failed.value.exit_code == 9
    assert not (tmp_path / "var" / "progress.json").exists()


def test_model_removed_mid_run_is_a_per_session_error(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama() as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, workers=1)
        server.fail_next(1, status=404, routes=["/api/chat"], message='model "llama3.1:8b" not found, try pulling it first')
        summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert server.counts["/api/chat"] == 1  # not retried: pulling is the fix
    assert summary.errors == 1 and "ollama pull llama3.1:8b" in summary.error_details[0]["error"]


def test_think_blocks_never_reach_a_note(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    with FakeOllama(think=True) as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, workers=1)
        summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
    assert summary.distilled == 2
    for note in (tmp_path / "var" / "distilled").glob("*.md"):
        assert "<think>" not in note.read_text()


def test_second_ingest_waits_for_the_lock(tmp_path: Path) -> None:
    from filelock import FileLock

    from memctl.ingest.run import IngestError

    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    home = tmp_path / "var"
    home.mkdir()
    with FileLock(str(home / ".memctl.lock")):
        with pytest.raises(IngestError, match="another memctl run .*is using") as err:
            IngestRun(Settings(home=home), IngestOptions(db=db, phase="distill")).run()
    assert err.value.exit_code == 6


def test_reparse_skipped_and_new_prompt_version_re_evaluate_junk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import sqlite3

    from memctl.ingest import distill, run as ingest
    from tests.fixtures.synthetic_opencode import add_project, add_session, create_schema

    db = tmp_path / "opencode.db"
    conn = sqlite3.connect(db)
    create_schema(conn)
    add_project(conn, "prj_synthetic", "/home/dev/src/synthetic")
    rng = random.Random(5)
    add_session(conn, 1, rng=rng, turns=2)
    # a chatty session without tool calls: above the substance threshold, JUNK for the fake model
    sid = add_session(conn, 2, rng=rng, turns=1, title="chit-chat")
    conn.execute("DELETE FROM part WHERE session_id = ? AND json_extract(data, '$.type') NOT IN ('text')", (sid,))
    conn.execute("UPDATE part SET data = json_set(data, '$.text', 'hello there, just checking in, thanks a lot for the help earlier today') WHERE session_id = ?", (sid,))
    conn.commit()
    conn.close()
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1, min_substance_chars=50)
        first = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (first.distilled, first.skipped_junk) == (1, 1)
        server.reset_counts()
        assert IngestRun(settings, IngestOptions(db=db, phase="distill")).run().already_done == 2
        assert server.counts["/api/chat"] == 0
        again = IngestRun(settings, IngestOptions(db=db, phase="distill", reparse_skipped=True)).run()
        assert again.skipped_junk == 1 and _distilled_ids(server) == [sid]
        # a new distill prompt version re-evaluates JUNK skips without any flag
        server.reset_counts()
        original = distill.load_prompt("distill")
        bumped = distill.Prompt(original.name, original.version + ".1", original.body)
        monkeypatch.setattr(ingest, "load_prompt", lambda name: bumped)
        monkeypatch.setattr(distill, "load_prompt", lambda name: bumped)
        IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert _distilled_ids(server) == [sid]


def _append_turn(db: Path, session_id: str, at_ms: int, user_text: str, with_tool: bool = True) -> None:
    """Append one user→assistant exchange to a session, as OpenCode would while it keeps running."""
    import sqlite3

    conn = sqlite3.connect(db)
    umsg, amsg = f"msg_zz{at_ms}u", f"msg_zz{at_ms}a"
    conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                 (umsg, session_id, at_ms, at_ms, json.dumps({"role": "user", "time": {"created": at_ms}})))
    conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                 (amsg, session_id, at_ms + 1, at_ms + 1, json.dumps({"role": "assistant", "time": {"created": at_ms + 1}})))
    parts = [(umsg, {"type": "text", "text": user_text})]
    if with_tool:
        parts.append((amsg, {"type": "tool", "callID": "c1", "tool": "bash", "state": {
            "status": "completed", "input": {"command": "make release"}, "output": "built dist/app-2.0.tar.gz"}}))
    parts.append((amsg, {"type": "text", "text": "Done: the release tarball is built."}))
    for i, (mid, data) in enumerate(parts):
        conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                     (f"prt_zz{at_ms}{i}", mid, session_id, at_ms + 2 + i, at_ms + 2 + i, json.dumps(data)))
    conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (at_ms + 10, session_id))
    conn.commit()
    conn.close()


def test_sessions_that_grow_after_ingest_are_picked_up_without_touching_accepted_notes(tmp_path: Path) -> None:
    """Failure boundary "source grows during the run": a later run captures the additions."""
    import sqlite3

    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    conn = sqlite3.connect(db)
    grown, other = [r[0] for r in conn.execute("SELECT id FROM session ORDER BY time_created")]
    # make `other` a bare greeting: skipped by the threshold on the first run
    conn.execute("DELETE FROM part WHERE session_id = ?", (other,))
    mid = conn.execute("SELECT id FROM message WHERE session_id = ? ORDER BY id LIMIT 1", (other,)).fetchone()[0]
    conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                 ("prt_hi", mid, other, 1, 1, json.dumps({"type": "text", "text": "hi"})))
    conn.commit()
    conn.close()
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        first = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (first.distilled, first.skipped_threshold) == (1, 1)
        original = (home / "distilled" / f"{grown}.md").read_bytes()

        _append_turn(db, grown, 1_900_000_000_000, "Now cut the 2.0 release and build the tarball with make release.")
        _append_turn(db, other, 1_900_000_100_000, "Please build the release tarball for version 2.0 with make release now.")
        server.reset_counts()
        second = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert second.distilled == 2 and second.errors == 0
        assert sorted(_distilled_ids(server)) == sorted([f"{grown}-cont1", other])
        # the accepted note is untouched; the new work is a continuation note pointing at it
        assert (home / "distilled" / f"{grown}.md").read_bytes() == original
        cont = (home / "distilled" / f"{grown}-cont1.md").read_text()
        assert f"continuation_of: {grown}" in cont and "make release" in (home / "transcripts" / f"{grown}-cont1.md").read_text()
        assert "Synthetic session" not in (home / "transcripts" / f"{grown}-cont1.md").read_text().split("## Transcript")[1]
        progress = json.loads((home / "progress.json").read_text())["sources"]
        assert progress[grown]["continuations"] == 1 and progress[other]["status"] == "distilled"

        # nothing new → nothing redone; a metadata-only change (title) costs no model call either
        conn = sqlite3.connect(db)
        conn.execute("UPDATE session SET time_updated = time_updated + 5, title = 'renamed' WHERE id = ?", (grown,))
        conn.commit()
        conn.close()
        server.reset_counts()
        third = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert third.already_done == 2 and server.counts["/api/chat"] == 0
        assert not (home / "distilled" / f"{grown}-cont2.md").exists()


def test_active_sessions_are_deferred_until_they_settle(tmp_path: Path) -> None:
    import sqlite3
    import time as clock

    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    conn = sqlite3.connect(db)
    active = conn.execute("SELECT id FROM session ORDER BY time_created DESC LIMIT 1").fetchone()[0]
    conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (int(clock.time() * 1000) - 30_000, active))
    conn.commit()
    conn.close()
    with FakeOllama() as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, workers=1)  # default settle: 10 min
        plan = IngestRun(settings, IngestOptions(db=db, dry_run=True)).run()
        assert plan.deferred_active == 1 and [p.action for p in plan.plan if p.source_id == active] == ["defer"]
        first = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (first.distilled, first.deferred_active) == (1, 1)
        assert _distilled_ids(server) and active not in _distilled_ids(server)
        settled = settings.model_copy(update={"settle_minutes": 0})
        second = IngestRun(settled, IngestOptions(db=db, phase="distill")).run()
        assert second.distilled == 1 and active in _distilled_ids(server)


def test_small_follow_ups_accumulate_and_reparse_all_supersedes_continuations(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    home = tmp_path / "var"
    import sqlite3

    sid = sqlite3.connect(db).execute("SELECT id FROM session").fetchone()[0]
    base = 1_790_000_000_000 + 50 * 3_600_000
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)
        IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        # a tiny follow-up: JUNK for the model → recorded as skipped, coverage not advanced
        _append_turn(db, sid, base, "thanks", with_tool=False)
        small = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert small.skipped_junk + small.skipped_threshold == 1
        # real work follows: the same continuation number now holds both turns
        _append_turn(db, sid, base + 60_000, "Now build the release tarball for version 2.0 with make release please.")
        grown = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert grown.distilled == 1
        transcript = (home / "transcripts" / f"{sid}-cont1.md").read_text()
        assert "thanks" in transcript and "make release" in transcript
        assert (home / "distilled" / f"{sid}-cont1.md").exists()
        from memctl.store import MemoryStore

        store = MemoryStore(home / "store")
        cont_path = next(p for p in store.list("memory") if p.endswith(f"/{sid}-cont1.md"))
        root_path = cont_path.replace("-cont1.md", ".md")
        root_before = store.sha(root_path)
        # a full rebuild re-distills the whole session and drops the continuation note…
        rebuilt = IngestRun(settings, IngestOptions(db=db, phase="distill", reparse_all=True)).run()
        assert not (home / "distilled" / f"{sid}-cont1.md").exists()
        # …in the store too: the continuation is a versioned tombstone, the root note a new version
        assert (rebuilt.notes_published, rebuilt.notes_unpublished) == (1, 1)
        assert not store.exists(cont_path) and [h.op for h in store.history(cont_path)] == ["write", "delete"]
        assert [h.new_sha for h in store.history(root_path)] == [root_before, store.sha(root_path)]
        assert store.verify(deep=True).ok
        progress = json.loads((home / "progress.json").read_text())["sources"]
        assert f"{sid}-cont1" not in progress and progress[sid]["continuations"] == 1
        # …and later growth never reuses its name
        _append_turn(db, sid, base + 120_000, "Then publish the 2.0 release notes to the docs site with make docs.")
        IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
        assert (home / "distilled" / f"{sid}-cont2.md").exists()
