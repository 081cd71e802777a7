"""The store under real processes: races on expected_sha, lost updates, torn reads, SIGKILL at each step."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.store import ConcurrencyError, MemoryStore
from memctl.store.steps import STEPS
from memctl.store.versions import sha256_bytes

REPO = Path(__file__).resolve().parents[2]
CTX = mp.get_context("spawn")  # no inherited locks or file descriptors


def _racer(root: str, rounds: int, barrier, results) -> None:  # noqa: ANN001 - mp primitives
    store = MemoryStore(Path(root))
    for round_no in range(rounds):
        _content, current = store.read_text("user/race.md")
        barrier.wait()  # both have read the same sha
        try:
            store.write_text("user/race.md", f"round {round_no} by {os.getpid()}\n", expected_sha=current,
                             actor="sleep", reason=f"race round {round_no}")
            results.put((round_no, "won"))
        except ConcurrencyError as exc:
            assert exc.current_sha is not None
            results.put((round_no, "lost"))
        barrier.wait()  # nobody reads the next round before both have written


def test_two_processes_with_the_same_expected_sha_exactly_one_wins(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    store.write_text("user/race.md", "start\n", actor="sleep", reason="seed")
    rounds = 60
    barrier, results = CTX.Barrier(2), CTX.Queue()
    procs = [CTX.Process(target=_racer, args=(str(store.root), rounds, barrier, results)) for _ in range(2)]
    for p in procs:
        p.start()
    outcomes: dict[int, list[str]] = {}
    for _ in range(2 * rounds):
        round_no, outcome = results.get(timeout=120)
        outcomes.setdefault(round_no, []).append(outcome)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(sorted(o) == ["lost", "won"] for o in outcomes.values()), outcomes
    assert len(store.history("user/race.md")) == rounds + 1
    assert store.verify(deep=True).ok


PAD = "x" * 1000


def _incrementer(root: str, increments: int) -> None:
    store = MemoryStore(Path(root))
    done = 0
    while done < increments:
        content, current = store.read_text("user/counter.md")
        value = int(content.split("\n", 1)[0])
        try:
            store.write_text("user/counter.md", f"{value + 1}\n{PAD}\n", expected_sha=current, actor="sleep",
                             reason="increment")
            done += 1
        except ConcurrencyError:
            continue


def _reader(root: str, stop, bad) -> None:  # noqa: ANN001 - mp primitives
    store = MemoryStore(Path(root))
    while not stop.is_set():
        content, _ = store.read_text("user/counter.md")
        head, _, rest = content.partition("\n")
        if not head.isdigit() or rest != PAD + "\n":
            bad.put(content[:80])


def test_no_lost_update_and_no_torn_read_under_contention(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    store.write_text("user/counter.md", f"0\n{PAD}\n", actor="sleep", reason="seed")
    writers, increments = 4, 30
    stop, bad = CTX.Event(), CTX.Queue()
    reader = CTX.Process(target=_reader, args=(str(store.root), stop, bad))
    reader.start()
    procs = [CTX.Process(target=_incrementer, args=(str(store.root), increments)) for _ in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
        assert p.exitcode == 0
    stop.set()
    reader.join(timeout=30)
    assert bad.empty(), bad.get()
    content, _ = store.read_text("user/counter.md")
    assert int(content.split("\n", 1)[0]) == writers * increments
    assert len(store.history("user/counter.md")) == writers * increments + 1
    assert store.verify(deep=True).ok


# -- SIGKILL at every step -------------------------------------------------------------------------


def _kill_at(root: Path, op: str, path: str, step: str, arg: str | None = None) -> None:
    cmd = [sys.executable, "-m", "tests.support.store_child", str(root), op, path, step] + ([arg] if arg else [])
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr)


def _state(store: MemoryStore, path: str) -> str | None:
    return store.sha(path)


# A delete renames nothing, so it has no before_rename step.
KILL_POINTS = [(op, step) for op in ("write", "delete", "rollback") for step in (*STEPS, "before_rename")
               if (op, step) != ("delete", "before_rename")]


@pytest.mark.parametrize("op, step", KILL_POINTS)
def test_kill_at_each_step_never_leaves_an_unaudited_change(tmp_path: Path, op: str, step: str) -> None:
    store = MemoryStore(tmp_path / "store")
    path = "user/topic/fact.md"
    v1 = store.write_text(path, "version one\n", actor="sleep", reason="seed")
    v2 = store.write_text(path, "version two\n", actor="sleep", reason="seed 2")
    records_before = store.verify().records
    new_content = "version three\n"
    expected_after = {"write": sha256_bytes(new_content.encode()), "delete": None, "rollback": v1}[op]
    arg = {"write": new_content, "delete": None, "rollback": v1[:10]}[op]

    _kill_at(store.root, op, path, step, arg)

    # Right after the kill, before any repair: a visible change always has its record.
    report = store.verify()
    assert report.ok, report.problem
    committed = report.records == records_before + 1
    current = _state(store, path)
    assert current in (v2, expected_after)
    if current != v2:
        assert committed, "the file changed but the audit log has no record of it"
    if step == "snapshot":
        assert not committed and current == v2
    else:
        assert committed

    # Next open + repair: the committed change is applied, nothing half-done is left.
    recovery = MemoryStore(store.root).recover()
    final = _state(store, path)
    assert final == (expected_after if committed else v2)
    if committed and current == v2:
        assert recovery.rolled_forward is not None
    deep = store.verify(deep=True)
    assert deep.ok and deep.warnings == [], (deep.problem, deep.deep_problems, deep.warnings)
    leftovers = [p for p in store.root.rglob(".*.tmp")]
    assert leftovers == []
    # And the store keeps working: the next write chains on.
    store.write_text(path, "after the crash\n", actor="sleep", reason="next")
    assert store.verify(deep=True).ok


def test_a_writer_waits_for_the_lock_then_times_out_clearly(tmp_path: Path) -> None:
    from memctl.store import StoreBusyError

    store = MemoryStore(tmp_path / "store", lock_timeout=0.5)
    store.write_text("user/a.md", "x", actor="sleep", reason="seed")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from filelock import FileLock; "
         f"l = FileLock({str(store.root / 'audit' / '.lock')!r}); l.acquire(); print('held', flush=True); time.sleep(30)"],
        cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreBusyError, match="locked by another writer"):
            store.write_text("user/a.md", "y", actor="sleep", reason="blocked")
        assert store.read_text("user/a.md")[0] == "x"  # reads never wait for the lock
    finally:
        holder.kill()
        holder.wait()
    store.write_text("user/a.md", "y", actor="sleep", reason="lock free again")
    assert store.read_text("user/a.md")[0] == "y"
