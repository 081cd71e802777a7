"""Reading while another process writes: never without a lock, busy means exit 3 and nothing marked.

Every writer here is a real second process holding a real SQLite lock (rollback
journal, ``locking_mode=EXCLUSIVE`` in both journal modes, a writer killed
mid-commit) or a raw POSIX lock on SQLite's lock bytes.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.connectors.opencode import source as opencode
from memctl.connectors.opencode.lock import IMMUTABLE, LOCKING, WAL, has_hot_journal, lock_holder, read_mode
from memctl.connectors.opencode.source import OpenCodeSource, SourceBusyError
from memctl.exit_codes import ExitCodeError
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text
from tests.support.memctl_process import run_memctl

ASK = ("The retry test in pkg/fake keeps failing on CI about one run in five; please find out why the event loop "
       "closes early and fix it so the suite is stable again for everyone.")


def _database(path: Path, *, wal: bool = False, sessions: int = 2) -> Path:
    db = CraftedDb(path, wal=wal)
    for n in range(sessions):
        sid = db.session(f"ses_{n}", f"Fix flaky test {n}")
        db.user(sid, ASK)
        db.assistant(sid, [bash("pytest -x", "1 failed"), text(f"pinned pytest-asyncio ({n})")])
    db.close()
    return path


def _holder(db: Path, script: str) -> subprocess.Popen:
    """A second process that runs ``script`` (``c`` is its sqlite3 connection), then holds on."""
    code = textwrap.dedent(f"""
        import fcntl, os, sqlite3, sys, time
        c = sqlite3.connect({str(db)!r}, isolation_level=None)
    """) + textwrap.dedent(script) + "\nprint('held', flush=True)\ntime.sleep(120)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "held":
        proc.kill()
        raise AssertionError(f"lock holder failed: {proc.stderr.read() if proc.stderr else ''}")
    return proc


HOLDERS = {
    # rollback journal: a write transaction that reached EXCLUSIVE
    "begin-exclusive": (False, "c.execute('BEGIN EXCLUSIVE')"),
    # rollback journal, exclusive locking mode: the lock stays after the commit
    "locking-mode-exclusive": (False, "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
                                      "c.execute(\"UPDATE session SET title = title || ' '\")"),
    # WAL with exclusive locking mode (no shared memory; the writer keeps an exclusive lock)
    "wal-locking-mode-exclusive": (True, "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
                                         "c.execute(\"UPDATE session SET title = title || ' '\")"),
    # a WAL database without -wal while a process holds SQLite's SHARED lock bytes
    "wal-lock-bytes-held": (True, "c.close()\nfd = os.open(" + "{db!r}" + ", os.O_RDWR)\n"
                                  "fcntl.lockf(fd, fcntl.LOCK_SH, 510, 0x40000002)"),
}


@pytest.fixture
def quick_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opencode, "BUSY_TIMEOUT_S", 0.1)
    monkeypatch.setattr(opencode, "BUSY_ATTEMPTS", 3)


def _start(db: Path, kind: str) -> subprocess.Popen:
    wal, script = HOLDERS[kind]
    _database(db, wal=wal)
    if wal and kind == "wal-lock-bytes-held":
        assert not Path(str(db) + "-wal").exists()  # idle WAL database: the case immutable is meant for
    return _holder(db, script.replace("{db!r}", repr(str(db))))


@pytest.mark.parametrize("kind", sorted(HOLDERS))
def test_a_held_lock_makes_the_read_wait_then_fail_busy(tmp_path: Path, kind: str, quick_busy: None) -> None:
    db = tmp_path / "opencode.db"
    holder = _start(db, kind)
    try:
        with pytest.raises(SourceBusyError, match="busy, retry later"):
            source = OpenCodeSource(db)
            source.check_schema()
            list(source.iter_sessions())
    finally:
        holder.kill()
        holder.wait()
    # the lock gone, the same database reads normally
    assert len(list(OpenCodeSource(db).iter_sessions())) == 2


@pytest.mark.parametrize("kind", ["begin-exclusive", "locking-mode-exclusive", "wal-locking-mode-exclusive"])
def test_ingest_marks_nothing_while_locked(tmp_path: Path, kind: str, quick_busy: None) -> None:
    db, home = tmp_path / "opencode.db", tmp_path / "var"
    holder = _start(db, kind)
    try:
        with FakeOllama() as server:
            settings = Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)
            with pytest.raises(ExitCodeError, match="busy, retry later") as caught:
                IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
            assert server.counts["/api/chat"] == 0
    finally:
        holder.kill()
        holder.wait()
    assert caught.value.exit_code == 3
    assert not (home / "progress.json").exists()
    assert not list(home.glob("transcripts/*.md"))


def test_the_cli_exits_3_with_busy_retry_later(tmp_path: Path) -> None:
    db, home = tmp_path / "opencode.db", tmp_path / "var"
    holder = _start(db, "begin-exclusive")
    try:
        with FakeOllama() as server:
            proc = run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--phase", "distill", timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "busy, retry later" in proc.stderr and "Traceback" not in proc.stderr
    assert not (home / "progress.json").exists()


def test_a_writer_killed_mid_commit_leaves_a_hot_journal_that_reads_as_busy(tmp_path: Path, quick_busy: None) -> None:
    db = _database(tmp_path / "opencode.db")
    crash = textwrap.dedent(f"""
        import os, sqlite3
        c = sqlite3.connect({str(db)!r}, isolation_level=None)
        c.execute('PRAGMA cache_size=1')  # spill to the file before the commit
        c.execute('BEGIN')
        c.execute("UPDATE part SET data = json_set(data, '$.pad', hex(randomblob(4000)))")
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", crash], check=True)
    assert has_hot_journal(db)
    with pytest.raises(SourceBusyError, match="busy, retry later"):
        list(OpenCodeSource(db).iter_sessions())
    # OpenCode (a writer) rolls the journal back when it opens the database; then memctl reads
    writer = sqlite3.connect(db)
    writer.execute("SELECT count(*) FROM session").fetchone()
    writer.close()
    assert not has_hot_journal(db)
    assert len(list(OpenCodeSource(db).iter_sessions())) == 2


def test_a_reserved_lock_still_reads_committed_rows_only(tmp_path: Path) -> None:
    """A writer holding RESERVED (writes not committed) does not block readers: the read takes
    SQLite's SHARED lock and sees the last committed state, never the uncommitted row."""
    db = _database(tmp_path / "opencode.db")
    holder = _holder(db, """
        c.execute('BEGIN IMMEDIATE')
        c.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
                  " VALUES ('ses_uncommitted', 'prj_alpha', 'x', '/d', 'half written', '1.18.34', 1, 1)")
    """)
    try:
        assert read_mode(db) == LOCKING
        ids = [s.info.id for s in OpenCodeSource(db).iter_sessions()]
    finally:
        holder.kill()
        holder.wait()
    assert ids == ["ses_0", "ses_1"]


def test_read_modes(tmp_path: Path) -> None:
    legacy = _database(tmp_path / "legacy.db")
    idle_wal = _database(tmp_path / "wal.db", wal=True)
    assert not Path(str(idle_wal) + "-wal").exists()
    assert (read_mode(legacy), read_mode(idle_wal)) == (LOCKING, IMMUTABLE)
    assert lock_holder(idle_wal) is None and lock_holder(legacy) is None
    holder = _holder(idle_wal, "c.execute('SELECT count(*) FROM session').fetchone()")  # OpenCode running
    try:
        assert read_mode(idle_wal) == WAL
        assert lock_holder(idle_wal) == holder.pid
    finally:
        holder.kill()
        holder.wait()
    assert os.path.exists(str(idle_wal) + "-wal")  # a killed process leaves its -wal behind
