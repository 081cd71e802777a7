"""The pre-model stage on a process pool (memctl/ingest/premodel.py) does what one process does.

Same plan rows, checkpoint, notes and model-call order as one process; the results come
back in the source's order however the processes finish; a session whose read raises
fails the run as in one process; a dead process is a clear error; small runs start no
pool; no process outlives the run, whether it ends, is interrupted or terminated.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import asdict
from pathlib import Path

import psutil
import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome, Settings
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.exit_codes import FAILED_ITEMS, SOURCE, ExitCodeError
from memctl.ingest import premodel
from memctl.ingest.plan import Action
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fakes.chat_client import FakeChatClient
from tests.fixtures.synthetic_opencode import add_project, add_session, create_schema
from tests.support import premodel_tasks

REPO = Path(__file__).resolve().parents[2]
FIXTURE_1_18 = REPO / "tests" / "fixtures" / "opencode-1.18" / "opencode.db"


def _varied_db(path: Path, sessions: int = 30) -> Path:
    """Sessions of 0-3 turns (empty, below the threshold, ordinary) and one with a subagent session."""
    conn = sqlite3.connect(path)
    create_schema(conn)
    add_project(conn, "prj_synthetic", "/home/dev/src/synthetic")
    rng = random.Random(3)
    for n in range(sessions):
        add_session(conn, n, rng=rng, turns=n % 4, tool_output_chars=300 + 97 * n)
    add_session(conn, 900, rng=rng, parent_id="ses_000000000005synthetic0005", turns=1)
    conn.commit()
    conn.close()
    return path


def _copy(db: Path, to: Path) -> Path:
    """The database's files copied (opening the shared fixture in place could create files beside it)."""
    for path in db.parent.iterdir():
        if path.name.startswith(db.name):
            shutil.copy2(path, to.parent / path.name.replace(db.name, to.name))
    return to


@pytest.fixture(params=["synthetic", "opencode-1.18"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "synthetic":
        return _varied_db(tmp_path / "opencode.db")
    return _copy(FIXTURE_1_18, tmp_path / "opencode.db")


def _start_and_wait(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every session goes to the pool: it starts at the first one, and that one waits until its
    processes have started (a run would prepare sessions itself meanwhile). Returns the list of
    pools started (their process counts)."""
    started: list[int] = []
    real = premodel.PreModelStage._start_pool

    def start_and_wait(stage: premodel.PreModelStage) -> None:
        real(stage)
        started.append(stage.processes)
        wait(stage._starting)

    monkeypatch.setattr(premodel, "POOL_THRESHOLD", 0)
    monkeypatch.setattr(premodel.PreModelStage, "_start_pool", start_and_wait)
    return started


@pytest.fixture
def pool_starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return _start_and_wait(monkeypatch)


def _dry_run(db: Path, home: Path, processes: int) -> dict:
    settings = Settings(home=home, transcript_processes=processes, settle_minutes=0)
    summary = IngestRun(settings, IngestOptions(db=db, dry_run=True)).run().as_dict()
    summary.pop("wall_s")
    summary.pop("sessions_per_hour")
    return summary


def test_a_pooled_dry_run_plans_exactly_what_one_process_plans(db: Path, tmp_path: Path,
                                                               pool_starts: list[int]) -> None:
    serial = _dry_run(db, tmp_path / "serial", 1)
    assert pool_starts == []
    pooled = _dry_run(db, tmp_path / "pooled", 2)
    assert pool_starts == [2]
    assert pooled == serial
    assert len(serial["plan"]) >= 9
    assert {row["action"] for row in serial["plan"]} >= {"distill", "skip"}


def _distill(db: Path, home: Path, processes: int, fake: FakeChatClient) -> tuple[list, dict[str, str], list[str]]:
    settings = Settings(home=home, transcript_processes=processes, settle_minutes=0, workers=1)
    summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
    assert summary.errors == 0
    entries = Checkpoint(DataHome(home).progress, DataHome(home).skipped).entries
    progress = [(sid, {k: v for k, v in asdict(e).items() if k != "updated"}) for sid, e in entries.items()]
    notes = {p.name: p.read_text(encoding="utf-8") for p in sorted((home / "distilled").rglob("*.md"))}
    calls = [messages[-1]["content"] for kind, _model, messages in fake.calls if kind == "chat"]
    return progress, notes, calls


def test_a_pooled_distill_records_what_one_process_records(db: Path, tmp_path: Path, pool_starts: list[int],
                                                            fake_chat: FakeChatClient) -> None:
    serial = _distill(db, tmp_path / "serial", 1, fake_chat)
    fake_chat.calls.clear()
    pooled = _distill(db, tmp_path / "pooled", 2, fake_chat)
    assert pool_starts == [2]
    assert pooled[0] == serial[0]  # the checkpoint, entry for entry, in the same order
    assert pooled[1] == serial[1] and len(serial[1]) >= 4  # the notes, byte for byte
    assert pooled[2] == serial[2]  # the model saw the same transcripts in the same order


def test_results_come_back_in_source_order_when_later_sessions_finish_first(
        tmp_path: Path, pool_starts: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    db = _varied_db(tmp_path / "opencode.db", sessions=20)
    serial = _dry_run(db, tmp_path / "serial", 1)
    monkeypatch.setattr(premodel, "prepare", premodel_tasks.later_first)
    pooled = _dry_run(db, tmp_path / "pooled", 2)
    assert [row["source_id"] for row in pooled["plan"]] == [row["source_id"] for row in serial["plan"]]
    assert pooled == serial


def _failing_run(db: Path, home: Path, processes: int, phase: str, fake: FakeChatClient) -> tuple[ExitCodeError, list]:
    settings = Settings(home=home, transcript_processes=processes, settle_minutes=0, workers=1)
    with pytest.raises(ExitCodeError) as raised:
        IngestRun(settings, IngestOptions(db=db, phase=phase, dry_run=phase == "plan")).run()
    entries = Checkpoint(DataHome(home).progress, DataHome(home).skipped).entries
    return raised.value, sorted(entries)


@pytest.mark.parametrize("which", [0, 6, 17])
def test_a_session_whose_read_raises_fails_the_run_as_in_one_process(
        tmp_path: Path, pool_starts: list[int], monkeypatch: pytest.MonkeyPatch, fake_chat: FakeChatClient,
        which: int) -> None:
    earlier = set(multiprocessing.active_children())  # e.g. Cognee's store workers from other tests in this process
    db = _varied_db(tmp_path / "opencode.db", sessions=24)
    failing = f"ses_{which:012x}synthetic{which:04d}"
    monkeypatch.setenv(premodel_tasks.FAIL_ON, failing)
    monkeypatch.setattr(premodel, "prepare", premodel_tasks.failing)
    serial_error, serial_recorded = _failing_run(db, tmp_path / "serial", 1, "distill", fake_chat)
    pooled_error, pooled_recorded = _failing_run(db, tmp_path / "pooled", 2, "distill", fake_chat)
    assert pool_starts == [2]
    assert serial_error.exit_code == pooled_error.exit_code == SOURCE
    assert str(pooled_error) == str(serial_error) and failing in str(pooled_error)
    # Everything before the failing session was recorded, nothing from it on: as in one process.
    assert pooled_recorded == serial_recorded
    assert failing not in pooled_recorded and len(pooled_recorded) <= which
    assert set(multiprocessing.active_children()) - earlier == set()


@pytest.mark.parametrize("which", [0, 9])
def test_a_process_that_dies_is_a_clear_error_and_leaves_no_process(
        tmp_path: Path, pool_starts: list[int], monkeypatch: pytest.MonkeyPatch, which: int) -> None:
    earlier = set(multiprocessing.active_children())
    db = _varied_db(tmp_path / "opencode.db", sessions=16)
    crashing = f"ses_{which:012x}synthetic{which:04d}"
    monkeypatch.setenv(premodel_tasks.CRASH_ON, crashing)
    monkeypatch.setattr(premodel, "prepare", premodel_tasks.crashing)
    settings = Settings(home=tmp_path / "var", transcript_processes=2, settle_minutes=0)
    with pytest.raises(premodel.PreModelCrash) as raised:
        IngestRun(settings, IngestOptions(db=db, dry_run=True)).run()
    assert raised.value.exit_code == FAILED_ITEMS
    assert "process reading sessions died" in str(raised.value) and "MEMCTL_TRANSCRIPT_PROCESSES=1" in str(raised.value)
    assert set(multiprocessing.active_children()) - earlier == set()


def test_a_small_run_starts_no_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a run below the threshold started a pool")

    monkeypatch.setattr(premodel, "POOL_THRESHOLD", 12)
    monkeypatch.setattr(premodel, "ProcessPoolExecutor", refuse)
    db = _varied_db(tmp_path / "opencode.db", sessions=11)
    summary = _dry_run(db, tmp_path / "var", 2)
    assert summary["found"] == 11


@pytest.mark.parametrize(("expected", "first_pooled"), [(0, 5), (4, 5), (5, 1), (400, 1)])
def test_the_pool_starts_at_once_for_a_big_run_else_at_the_threshold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expected: int, first_pooled: int) -> None:
    db = _varied_db(tmp_path / "opencode.db", sessions=8)
    source = OpenCodeSource(db)
    source.check_schema()
    starts: list[int] = []

    def start(stage: premodel.PreModelStage) -> None:  # a pool that is there at once, in this process
        starts.append(stage.submitted)
        stage.pool = ThreadPoolExecutor(1)

    monkeypatch.setattr(premodel.PreModelStage, "_start_pool", start)
    with premodel.PreModelStage(source, Settings(), processes=2, expected=expected, threshold=5) as stage:
        for info in source.iter_root_infos():
            stage.submit(premodel.Request(info, None, Action.DISTILL, title=info.title, topic="t"))
            assert stage.pooled == (stage.submitted >= first_pooled)
    source.close()
    assert starts == [first_pooled]


def test_sessions_are_prepared_in_this_process_while_the_pool_starts(tmp_path: Path) -> None:
    db = _varied_db(tmp_path / "opencode.db", sessions=12)
    source = OpenCodeSource(db)
    source.check_schema()
    with premodel.PreModelStage(source, Settings(), processes=2, expected=100, threshold=1) as stage:
        requests = [premodel.Request(info, None, Action.DISTILL, title=info.title, topic="t")
                    for info in source.iter_root_infos()]
        first = stage.submit(requests[0])
        assert first.done() and not first.result().remote and not stage.pooled  # no wait for the processes
        wait(stage._starting)
        later = [(stage.submit(request), request) for request in requests[1:]]
        assert stage.pooled and all(stage.result(future, request).remote for future, request in later)
    source.close()


@pytest.mark.parametrize("processes, expected", [(1, 1), (3, 3), (0, len(os.sched_getaffinity(0)))])
def test_process_count(processes: int, expected: int) -> None:
    assert premodel.process_count(processes) == expected


_CHILD = textwrap.dedent("""
    import sys
    from concurrent.futures import wait
    from pathlib import Path
    from memctl.config import Settings
    from memctl.ingest import premodel
    from memctl.ingest.run import IngestOptions, IngestRun
    from tests.support import premodel_tasks

    if __name__ == "__main__":
        premodel.POOL_THRESHOLD = 0
        real_start = premodel.PreModelStage._start_pool

        def start_and_wait(stage):  # every session to the pool: the workers record their pids
            real_start(stage)
            wait(stage._starting)

        premodel.PreModelStage._start_pool = start_and_wait
        premodel.prepare = premodel_tasks.slow_recording
        settings = Settings(home=Path(sys.argv[2]), transcript_processes=2, settle_minutes=0)
        IngestRun(settings, IngestOptions(db=Path(sys.argv[1]), dry_run=True)).run()
""")


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.serial  # signals timed against the pool workers' progress
# One signal in the fast lane, the other two `slow` (each a real run of pool processes, 17-30 s under load): the
# same code path ends the pool for all three; tests/ingest/test_ingest_premodel_signals.py covers each signal too.
@pytest.mark.parametrize("how", ["sigint-to-the-group", pytest.param("sigterm-to-memctl", marks=pytest.mark.slow),
                                 pytest.param("sigkill-to-memctl", marks=pytest.mark.slow)])
def test_no_process_outlives_an_interrupted_run(tmp_path: Path, how: str) -> None:
    db = _varied_db(tmp_path / "opencode.db", sessions=40)
    pids = tmp_path / "pids"
    pids.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), premodel_tasks.PID_DIR: str(pids), premodel_tasks.SLOW_S: "0.3"}
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(db), str(tmp_path / "var")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        workers = [int(p.name) for p in pids.iterdir()]
        assert len(workers) == 2, proc.stderr.read().decode() if proc.poll() is not None else "no pool started"
        assert all(_alive(pid) for pid in workers)
        if how == "sigterm-to-memctl":
            proc.send_signal(signal.SIGTERM)
        elif how == "sigkill-to-memctl":
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if _alive(pid)] == []
        if how == "sigint-to-the-group":
            stderr = proc.stderr.read().decode()
            assert "KeyboardInterrupt" in stderr and stderr.count("Traceback") == 1  # the workers stayed quiet
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
