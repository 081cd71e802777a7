"""Ctrl-C, SIGTERM and SIGKILL of ``memctl ingest --dry-run`` while its pre-model pool starts or works.

What the terminal shows is memctl's own lines only: its progress lines and, for a stop it
handles, one ``error: …`` line saying what the stop left (a dry run writes nothing). No
traceback from a spawned process still importing, no ``KeyboardInterrupt``, no
``resource_tracker`` warning about leaked semaphores (even after SIGKILL, which memctl
cannot handle), and no process outlives the run. Exit codes: 130 for Ctrl-C, 143 for SIGTERM.

The run is the real CLI (its error boundary) started from a script file, as the console
script is (spawned processes re-import it), with each session's preparation slowed a little
(``tests/premodel_tasks.slow_recording``) so every moment below falls inside the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.config import Settings
from memctl.exit_codes import INTERRUPTED, TERMINATED, Terminated
from memctl.ingest import premodel
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fixtures.synthetic_opencode import build_database
from tests.support import premodel_tasks

# Signals timed against the pool's start (0.03 s per session): another heavy test beside them shifts every moment.
pytestmark = pytest.mark.serial

REPO = Path(__file__).resolve().parents[2]
SESSIONS = 300  # above premodel.POOL_THRESHOLD: the pool starts at the first session

_DRIVER = textwrap.dedent("""
    import sys

    from memctl.cli.main import main
    from memctl.ingest import premodel
    from tests.support import premodel_tasks

    if __name__ == "__main__":
        premodel.prepare = premodel_tasks.slow_recording
        sys.argv = ["memctl", *sys.argv[1:]]
        main()
""")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("signals") / "opencode.db", SESSIONS, turns=4)


def _pool_processes(parent: psutil.Process) -> list[psutil.Process]:
    """The pool's spawned processes (not the resource tracker)."""
    found = []
    for child in parent.children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# (moment, seconds after it): "spawned" = the first pool process exists (it is still importing);
# "working" = a pool process has prepared a session.
# Each case is a real run (a memctl process and its pool, 20-36 s each at a load of 14 on two cores): the fast lane
# keeps one moment per signal ("working" + 0: the pool is up and busy), the other moments are `slow` (whole
# suite only). Every moment tests the same handler; the moments catch a stop while a pool process still imports.
_SLOW_CASE = pytest.mark.slow
MOMENTS = [pytest.param("spawned", 0.0, marks=_SLOW_CASE), pytest.param("spawned", 0.1, marks=_SLOW_CASE),
           pytest.param("spawned", 0.25, marks=_SLOW_CASE), pytest.param("spawned", 0.5, marks=_SLOW_CASE),
           ("working", 0.0), pytest.param("working", 1.0, marks=_SLOW_CASE)]


def _stop_run(db: Path, tmp_path: Path, how: str, moment: str, after: float) -> tuple[int | None, str, str]:
    """Start the dry run, stop it ``how`` at ``moment`` + ``after`` seconds; return (exit code, stdout, stderr)
    once it and every process it started are gone."""
    driver = tmp_path / "driver.py"
    driver.write_text(_DRIVER)
    pids = tmp_path / "pids"
    pids.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "MEMCTL_HOME": str(tmp_path / "home"),
           "MEMCTL_TRANSCRIPT_PROCESSES": "2", premodel_tasks.PID_DIR: str(pids), premodel_tasks.SLOW_S: "0.03"}
    env.pop("MEMCTL_VERBOSE", None)
    proc = subprocess.Popen([sys.executable, str(driver), "ingest", "--dry-run", "--db", str(db), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    seen: dict[int, psutil.Process] = {}
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            for child in parent.children(recursive=True):
                seen.setdefault(child.pid, child)
            workers = _pool_processes(parent)
            if moment == "spawned" and workers:
                break
            if moment == "working" and any(int(p.name) != proc.pid for p in pids.iterdir()):
                break
            time.sleep(0.01)
        assert proc.poll() is None, f"the run ended before the {moment} moment"
        # The processes that made the loop stop may have appeared after its first listing: list again.
        for child in parent.children(recursive=True):
            seen.setdefault(child.pid, child)
        end = time.monotonic() + after
        while time.monotonic() < end:
            for child in parent.children(recursive=True):
                seen.setdefault(child.pid, child)
            time.sleep(0.01)
        assert proc.poll() is None, f"the run ended before {moment} + {after} s"
        if how == "sigint-to-the-group":
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        elif how == "sigterm-to-memctl":
            proc.send_signal(signal.SIGTERM)
        else:
            proc.kill()
        # The pipes close when every process holding them (pool processes, resource tracker) has exited.
        stdout, stderr = proc.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in seen.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p.pid for p in seen.values() if _alive(p)] == [], "a process outlived the run"
        assert len(seen) >= 2, "no pool process was seen"
        return proc.returncode, stdout.decode(), stderr.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for child in seen.values():
            if _alive(child):
                child.kill()


def _only_memctl_lines(stderr: str) -> list[str]:
    """stderr's lines that are not memctl's own (progress ``memctl: …`` and ``error: …``)."""
    return [line for line in stderr.splitlines() if not line.startswith(("memctl: ", "error: "))]


def _assert_quiet(stderr: str) -> None:
    for word in ("Traceback", "KeyboardInterrupt", "resource_tracker", "Warning", "leaked"):
        assert word not in stderr, stderr
    assert _only_memctl_lines(stderr) == [], stderr


@pytest.mark.parametrize(("how", "code", "stopped"), [("sigint-to-the-group", INTERRUPTED, "interrupted"),
                                                      ("sigterm-to-memctl", TERMINATED, "terminated")])
@pytest.mark.parametrize(("moment", "after"), MOMENTS)
def test_a_stopped_dry_run_prints_one_line_and_leaves_no_process(
        db: Path, tmp_path: Path, how: str, code: int, stopped: str, moment: str, after: float) -> None:
    returncode, stdout, stderr = _stop_run(db, tmp_path, how, moment, after)
    assert returncode == code, stderr
    _assert_quiet(stderr)
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {stopped}; a dry run writes nothing"], stderr
    assert json.loads(stdout) == {"error": f"{stopped}; a dry run writes nothing", "exit_code": code}


@pytest.mark.parametrize(("moment", "after"), [pytest.param("spawned", 0.25, marks=_SLOW_CASE), ("working", 0.0),
                                               pytest.param("working", 1.0, marks=_SLOW_CASE)])
def test_sigkill_of_a_dry_run_leaves_no_library_line_and_no_process(
        db: Path, tmp_path: Path, moment: str, after: float) -> None:
    returncode, _stdout, stderr = _stop_run(db, tmp_path, "sigkill-to-memctl", moment, after)
    assert returncode == -signal.SIGKILL
    _assert_quiet(stderr)
    assert [line for line in stderr.splitlines() if line.startswith("error: ")] == []


# -- the pieces, in this process ------------------------------------------------------------------

@pytest.mark.parametrize(("raised", "code", "line"), [
    (KeyboardInterrupt(), INTERRUPTED, "error: interrupted; what finished is recorded, re-run to continue"),
    (Terminated(), TERMINATED, "error: terminated; what finished is recorded, re-run to continue"),
    (KeyboardInterrupt("a dry run writes nothing"), INTERRUPTED, "error: interrupted; a dry run writes nothing"),
    (Terminated("a dry run writes nothing"), TERMINATED, "error: terminated; a dry run writes nothing"),
])
def test_the_boundary_says_how_the_run_stopped_and_what_it_left(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, raised: BaseException, code: int, line: str) -> None:
    def stop(self, *a, **k):  # noqa: ANN001, ANN202
        raise raised

    monkeypatch.setattr("memctl.ingest.run.IngestRun.run", stop)
    result = CliRunner().invoke(app, ["ingest", "--db", str(tmp_path / "x.db"), "--home", str(tmp_path / "var")])
    assert result.exit_code == code
    assert result.output.strip().splitlines()[-1] == line


class _WorkToDo:
    def has_work(self, phase: str) -> bool:
        return True

    def needs_graph(self, phase: str) -> bool:
        return False


@pytest.mark.parametrize("raised", [KeyboardInterrupt, Terminated])
@pytest.mark.parametrize(("dry_run", "left"), [(True, ("a dry run writes nothing",)), (False, ())])
def test_only_a_dry_run_says_it_wrote_nothing(monkeypatch: pytest.MonkeyPatch, db: Path, tmp_path: Path,
                                              raised: type[KeyboardInterrupt], dry_run: bool, left: tuple) -> None:
    def stop(self) -> None:  # noqa: ANN001
        raise raised()

    monkeypatch.setattr(IngestRun, "distill_phase", stop)
    monkeypatch.setattr(IngestRun, "survey", lambda self: _WorkToDo())  # a real run reaches its distill phase
    run = IngestRun(Settings(home=tmp_path / "var"), IngestOptions(db=db, dry_run=dry_run, phase="distill"))
    with pytest.raises(raised) as stopped:
        run.run()
    assert stopped.type is raised and stopped.value.args == left


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_processes_are_spawned_is_taken_afterwards(signum: int) -> None:
    previous = signal.signal(signal.SIGTERM, premodel._terminate)
    reached: list[str] = []
    try:
        with pytest.raises(Terminated if signum == signal.SIGTERM else KeyboardInterrupt):
            with premodel._signals_held():
                signal.raise_signal(signum)
                time.sleep(0.05)  # a handler would run here if the signal were not held
                reached.append("end of the spawning")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) is premodel._terminate
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert reached == ["end of the spawning"]
