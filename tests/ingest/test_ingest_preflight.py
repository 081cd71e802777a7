"""An ingest run validates its input and finds its work before it creates, locks or calls anything.

A foreign or unreadable database ends with exit 3 leaving no data home (no
lock file, no directory) and no request at the model server; an empty
database, or one whose sessions are all handled, makes no request and
changes no file of an existing home. The positive controls (a session to
distill) show the same setup does create the home and reach the server.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.exit_codes import SOURCE, USAGE, ExitCodeError
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.fixtures.synthetic_opencode import create_schema
from tests.support.crafted_opencode import CraftedDb, bash, text

REPO = Path(__file__).resolve().parents[2]


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", bytes([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]))
            + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))


def _sqlite(path: Path, script: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.commit()
    conn.close()


def _foreign(kind: str, tmp_path: Path) -> Path:
    """A path that is no OpenCode database, of the given kind."""
    path = tmp_path / "in" / "opencode.db"
    path.parent.mkdir()
    if kind == "text":
        path.write_text("this is a shopping list, not a database\n")
    elif kind == "png":
        path.write_bytes(_png())
    elif kind == "gzip":
        path.write_bytes(zlib.compress(b"SQLite format 3\x00" * 40))
    elif kind == "truncated-sqlite":
        _sqlite(path, "CREATE TABLE session (id TEXT); INSERT INTO session VALUES ('x');")
        path.write_bytes(path.read_bytes()[:100])
    elif kind == "other-sqlite":
        _sqlite(path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places VALUES (1, 'a');")
    elif kind == "half-opencode":
        _sqlite(path, "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT); CREATE TABLE project (id TEXT);")
    elif kind == "missing":
        pass
    elif kind == "empty-directory":
        return path.parent
    return path


FOREIGN = ["text", "png", "gzip", "truncated-sqlite", "other-sqlite", "half-opencode", "missing", "empty-directory"]


def _settings(home: Path, server: FakeOllama, settle_minutes: float = 0) -> Settings:
    return Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=settle_minutes)


def _requests(server: FakeOllama) -> dict[str, int]:
    return dict(server.counts)


@pytest.mark.parametrize("phase", ["all", "distill"])
@pytest.mark.parametrize("kind", FOREIGN)
def test_a_bad_database_leaves_no_home_and_calls_no_model(tmp_path: Path, kind: str, phase: str) -> None:
    db, home = _foreign(kind, tmp_path), tmp_path / "var"
    with FakeOllama() as server:
        with pytest.raises(ExitCodeError) as err:
            IngestRun(_settings(home, server), IngestOptions(db=db, phase=phase)).run()
        assert _requests(server) == {}
    assert err.value.exit_code == SOURCE, str(err.value)
    assert not home.exists()


@pytest.mark.parametrize("kind", ["text", "other-sqlite", "missing"])
@pytest.mark.parametrize("phase", ["add", "cognify"])
def test_a_graph_phase_with_a_filter_validates_the_database_first(tmp_path: Path, kind: str, phase: str) -> None:
    db, home = _foreign(kind, tmp_path), tmp_path / "var"
    with FakeOllama() as server:
        with pytest.raises(ExitCodeError) as err:
            IngestRun(_settings(home, server), IngestOptions(db=db, phase=phase, project="alpha")).run()
        assert _requests(server) == {}
    assert err.value.exit_code == SOURCE and not home.exists()


@pytest.mark.parametrize("kind", ["text", "png", "other-sqlite", "missing"])
def test_the_command_line_says_why_and_exits_3_without_a_trace(tmp_path: Path, kind: str) -> None:
    db, home = _foreign(kind, tmp_path), tmp_path / "var"
    with FakeOllama() as server:
        result = subprocess.run([sys.executable, "-m", "memctl.cli", "ingest", "--db", str(db), "--home", str(home)],
                                capture_output=True, text=True, timeout=300,
                                env={**os.environ, "PYTHONPATH": str(REPO), "OLLAMA_HOST": server.url})
        assert _requests(server) == {}
    assert result.returncode == SOURCE, result.stderr
    assert str(db) in result.stderr and "Traceback" not in result.stderr
    assert not home.exists()


def test_an_unknown_session_id_is_refused_before_the_home_exists(tmp_path: Path) -> None:
    db = _empty_opencode(tmp_path)
    with FakeOllama() as server:
        with pytest.raises(ExitCodeError) as err:
            IngestRun(_settings(tmp_path / "var", server), IngestOptions(db=db, session_ids=("ses_nope",))).run()
        assert _requests(server) == {}
    assert err.value.exit_code == USAGE and not (tmp_path / "var").exists()


# -- nothing to do ---------------------------------------------------------------------------------------


def _empty_opencode(tmp_path: Path) -> Path:
    path = tmp_path / "oc" / "opencode.db"
    path.parent.mkdir(exist_ok=True)
    conn = sqlite3.connect(path)
    create_schema(conn)
    conn.close()
    return path


def _snapshot(home: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(home)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(home.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("phase", ["all", "distill", "add", "cognify"])
def test_an_empty_opencode_database_creates_and_calls_nothing(tmp_path: Path, phase: str) -> None:
    db, home = _empty_opencode(tmp_path), tmp_path / "var"
    with FakeOllama() as server:
        summary = IngestRun(_settings(home, server), IngestOptions(db=db, phase=phase)).run()
        assert _requests(server) == {}
    assert (summary.found, summary.exit_code) == (0, 0)
    assert (summary.add_status, summary.cognify_status) == (
        ("not run", "not run") if phase == "distill" else ("nothing to do", "nothing to do"))
    assert not home.exists()


def _substantial(db: CraftedDb, sid: str, project: tuple[str, str] = ("prj_alpha", "/home/dev/src/alpha")) -> None:
    db.session(sid, f"Cache layer {sid}", project=project)
    db.user(sid, "Add a read-through cache in front of the pricing service and measure the hit rate under load.")
    db.assistant(sid, [bash("pytest tests/test_cache.py", "4 passed"), text("Cache added; hit rate 93% under load.")])


def _small(db: CraftedDb, sid: str) -> None:
    db.session(sid, f"Greeting {sid}")
    db.user(sid, "hi")
    db.assistant(sid, [text("hello")])


def _junk(db: CraftedDb, sid: str) -> None:
    db.session(sid, f"Ping {sid}")
    db.user(sid, "hello there, are you working? " * 8)
    db.assistant(sid, [text("Yes, I am here and working. " * 12)])


@pytest.mark.parametrize(("sessions", "phases"), [
    ({"ses_a": _substantial, "ses_b": _substantial}, ["distill", "distill"]),
    ({"ses_a": _small, "ses_b": _small, "ses_c": _small}, ["all", "all"]),
    ({"ses_a": _junk, "ses_b": _small}, ["all", "all"]),
    ({"ses_a": _junk, "ses_b": _substantial}, ["distill", "distill"]),
    ({"ses_a": _small, "ses_b": _junk}, ["distill", "all"]),
])
def test_sessions_already_handled_change_nothing_and_call_nothing(tmp_path: Path, sessions: dict,
                                                                  phases: list[str]) -> None:
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    for sid, make in sessions.items():
        make(db, sid)
    db.close()
    with FakeOllama() as server:
        first = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert first.found == len(sessions) and first.errors == 0
        assert _requests(server) != {} or all(make is _small for make in sessions.values())  # the control
        before = _snapshot(home)
        for phase in phases:
            server.reset_counts()
            again = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase=phase)).run()
            assert _requests(server) == {}, phase
            assert (again.found, again.already_done, again.exit_code) == (len(sessions), len(sessions), 0)
    assert _snapshot(home) == before


def test_a_session_still_active_is_left_without_creating_the_home(tmp_path: Path) -> None:
    db_path, home = _one_session(tmp_path)
    db = CraftedDb.reopen(db_path)
    db.conn.execute("UPDATE session SET time_updated = ?", (int(time.time() * 1000),))
    db.close()
    with FakeOllama() as server:
        summary = IngestRun(_settings(home, server, settle_minutes=10), IngestOptions(db=db_path)).run()
        assert _requests(server) == {}
    assert (summary.found, summary.deferred_active) == (1, 1) and not home.exists()


def _one_session(tmp_path: Path) -> tuple[Path, Path]:
    """A database with one substantial session, and a home path that does not exist yet."""
    db_path = tmp_path / "opencode.db"
    db = CraftedDb(db_path)
    _substantial(db, "ses_a")
    db.close()
    return db_path, tmp_path / "var"


def test_work_found_is_done_and_the_next_run_finds_none(tmp_path: Path) -> None:
    """The control: one new session creates the home and reaches the model; it then counts as handled."""
    db_path, home = _one_session(tmp_path)
    with FakeOllama() as server:
        summary = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert summary.distilled == 1 and server.counts["/api/chat"] == 1 and server.counts["/api/show"] == 1
        assert (home / ".memctl.lock").exists() and (home / "store" / "memory" / "alpha" / "ses_a.md").is_file()
        db = CraftedDb.reopen(db_path)
        _substantial(db, "ses_b")
        db.close()
        server.reset_counts()
        summary = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert (summary.distilled, summary.already_done, server.counts["/api/chat"]) == (1, 1, 1)


def test_a_note_left_unpublished_by_a_killed_run_is_work(tmp_path: Path) -> None:
    db_path, home = _one_session(tmp_path)
    with FakeOllama() as server:
        IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        published = home / "store" / "memory" / "alpha" / "ses_a.md"
        progress = json.loads((home / "progress.json").read_text())
        assert progress["sources"]["ses_a"]["status"] == "distilled"
        from memctl.store import MemoryStore

        MemoryStore(home / "store").delete("memory/alpha/ses_a.md", expected_sha=None, actor="ingest",
                                           reason="test: a run killed before publishing")
        assert not published.exists()
        server.reset_counts()
        summary = IngestRun(_settings(home, server), IngestOptions(db=db_path, phase="distill")).run()
        assert _requests(server) == {}
    assert summary.notes_published == 1 and published.is_file()
