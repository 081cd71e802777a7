"""Ctrl-C and SIGTERM reaching a real ``memctl`` process in the middle of a Cognee phase or a server.

A terminal's Ctrl-C goes to the whole foreground process group: memctl and the
database worker processes Cognee spawns. What the user must see is memctl's
own lines and one line saying what the stop left, exit 130 (SIGINT) or 143
(SIGTERM); no traceback from any process, no ``BaseExceptionGroup``, no temp
file left in the data home, and no process outliving the run.

Each phase is reached for real: the fake model server answers slowly
(``latency_s``) and the signal is sent once memctl's progress line for the
phase has been printed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from memctl.exit_codes import INTERRUPTED, TERMINATED
from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import FIXTURE_118, env_for, run_memctl

# Not `serial`: the signal is sent while the fake server holds one of the child's model requests
# (Watched.hold_a_model_call), a moment the test observes and that no load beside it can move; each test has its
# own home copy, its own process group, and ports chosen by the OS. `spread`: the six tests take minutes each
# (1,270 s in one worker at load 16), so both workers take them and each builds the distilled home once.
pytestmark = pytest.mark.spread

_CODES = {signal.SIGINT: INTERRUPTED, signal.SIGTERM: TERMINATED}
HELD_S = 15.0  # how long the fake server holds a model request once the test wants the child inside a phase


class Watched:
    """A ``memctl`` child in its own process group whose stderr is read line by line as it comes."""

    def __init__(self, server: FakeOllama, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "memctl.cli", *args], env=env_for(server),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
        self.lines: list[str] = []
        self._seen = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._seen:
                self.lines.append(line)
                self._seen.notify_all()
        with self._seen:
            self.lines.append("")  # end of stream
            self._seen.notify_all()

    def wait_for(self, text: str, timeout: float = 300) -> None:
        """Block until a stderr line holds ``text``; fail if the process ends first."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while not any(text in line for line in self.lines):
                assert "" not in self.lines, f"ended before {text!r}:\n{''.join(self.lines)}"
                assert time.monotonic() < deadline, f"no {text!r} in {timeout} s:\n{''.join(self.lines)}"
                self._seen.wait(1.0)

    def wait_for_workers(self, timeout: float = 300) -> None:
        """Block until the process has a spawned child (Cognee's store workers), not only the resource tracker."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "".join(self.lines)
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                try:
                    if "spawn_main" in " ".join(child.cmdline()):
                        time.sleep(1.0)  # past its start-up: inside its worker loop
                        return
                except psutil.NoSuchProcess:
                    continue
            time.sleep(0.1)
        raise AssertionError(f"no worker process in {timeout} s:\n{''.join(self.lines)}")

    def hold_a_model_call(self, server: FakeOllama, timeout: float = 300) -> None:
        """Make every model request from now on wait :data:`HELD_S` in the server and block until one has arrived:
        the process is then inside its phase, waiting for that answer, for as long as a signal takes to reach it
        at any load. (Sending the signal a fixed time after the phase's line raced the phase's end: a 7-item
        cognify at 0.5 s a request could finish first under load, exit 0, test_cognify_phase[sigterm].)"""
        server.latency_s = HELD_S
        seen = len(server.calls)
        deadline = time.monotonic() + timeout
        while len(server.calls) == seen:
            assert self.proc.poll() is None, f"ended before a model call was held:\n{''.join(self.lines)}"
            assert time.monotonic() < deadline, f"no model call in {timeout} s:\n{''.join(self.lines)}"
            time.sleep(0.05)

    def stop(self, signum: int, *, group: bool) -> tuple[int, str, str]:
        """Send ``signum`` (to the whole group, as a terminal's Ctrl-C does, when ``group``); return
        (exit code, stdout, stderr) once the process and every process of its group are gone."""
        family = [psutil.Process(self.proc.pid), *psutil.Process(self.proc.pid).children(recursive=True)]
        os.killpg(self.proc.pid, signum) if group else self.proc.send_signal(signum)
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=30)
        _, alive = psutil.wait_procs(family, timeout=30)
        assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive
        return code, out, "".join(self.lines)


def _assert_one_clean_line(code: int, signum: int, err: str, phase_line: str) -> None:
    assert code == _CODES[signum], err[-4000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "ExceptionGroup" not in err, err[-4000:]
    last = err.strip().splitlines()[-1]
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert last.startswith(f"error: {word}; "), err[-2000:]
    assert phase_line in err  # the signal did arrive inside the phase


def _no_temp_files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*.tmp") if p.is_file()]


@pytest.fixture(scope="module")
def server():
    with FakeOllama() as fake:
        yield fake


@pytest.fixture(scope="module")
def distilled(tmp_path_factory: pytest.TempPathFactory, server: FakeOllama) -> Path:
    """A data home whose fixture sessions are distilled and added, with cognify still to run."""
    base = tmp_path_factory.mktemp("distilled")
    (base / "opencode").mkdir()
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        if (FIXTURE_118 / name).exists():
            shutil.copy2(FIXTURE_118 / name, base / "opencode" / name)
    for phase in ("distill", "add"):
        done = run_memctl(server, "ingest", "--db", str(base / "opencode" / "opencode.db"), "--home",
                          str(base / "var"), "--phase", phase)
        assert done.returncode == 0, done.stderr[-3000:]
    return base


def _copy(distilled: Path, tmp_path: Path) -> tuple[Path, Path]:
    shutil.copytree(distilled, tmp_path / "w", symlinks=True)
    return tmp_path / "w" / "opencode" / "opencode.db", tmp_path / "w" / "var"


@pytest.mark.parametrize(("signum", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c-to-the-group", "sigterm"])
def test_cognify_phase(distilled: Path, server: FakeOllama, tmp_path: Path, signum: int, group: bool) -> None:
    db, home = _copy(distilled, tmp_path)
    server.latency_s = 0.5
    try:
        run = Watched(server, "ingest", "--db", str(db), "--home", str(home), "--phase", "cognify")
        run.wait_for("memctl: phase cognify started")
        run.wait_for_workers()
        run.hold_a_model_call(server)
        code, _, err = run.stop(signum, group=group)
    finally:
        server.latency_s = 0.0
    _assert_one_clean_line(code, signum, err, "phase cognify started")
    assert _no_temp_files(home) == []
    again = run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--phase", "cognify")
    assert again.returncode == 0, again.stderr[-3000:]  # the rest is done on the next run


@pytest.mark.parametrize(("signum", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c-to-the-group", "sigterm"])
def test_sleep_rebuild_phase(distilled: Path, server: FakeOllama, tmp_path: Path, signum: int, group: bool) -> None:
    db, home = _copy(distilled, tmp_path)
    done = run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--phase", "cognify")
    assert done.returncode == 0, done.stderr[-3000:]
    staged = run_memctl(server, "remember", "--home", str(home), "--kind", "decision", "--topic", "alpha",
                        "We decided to run the migrations with alembic before every deploy.")
    assert staged.returncode == 0, staged.stderr[-2000:]
    server.latency_s = 0.5
    try:
        run = Watched(server, "sleep", "--home", str(home))
        run.wait_for("memctl: phase rebuild started")
        run.wait_for_workers()
        run.hold_a_model_call(server)
        code, _, err = run.stop(signum, group=group)
    finally:
        server.latency_s = 0.0
    _assert_one_clean_line(code, signum, err, "phase rebuild started")
    assert _no_temp_files(home) == []


@pytest.mark.parametrize(("signum", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c-to-the-group", "sigterm"])
def test_serve_http(server: FakeOllama, tmp_path: Path, signum: int, group: bool) -> None:
    run = Watched(server, "serve", "--http", "--port", "0", "--home", str(tmp_path / "var"))
    run.wait_for("memctl serve: MCP on http://127.0.0.1:")
    code, out, err = run.stop(signum, group=group)
    assert code == _CODES[signum], err[-4000:]
    assert out == "" and err.strip().splitlines()[1:] == ["memctl serve: stopped"], err[-4000:]
