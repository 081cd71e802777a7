"""Cognee's database workers are spawned with SIGINT blocked, so a terminal's Ctrl-C (sent to the whole
process group) reaches memctl's process only; a Ctrl-C during the spawn is taken right after it."""

from __future__ import annotations

import multiprocessing
import signal
from pathlib import Path

import pytest
from cognee_db_workers import harness

from memctl.graph.worker_spawn import shield_workers


def blocked_signals(queue) -> None:  # noqa: ANN001 - a multiprocessing queue
    """Child: report the signals this process has blocked (``SigBlk`` of /proc/self/status)."""
    mask = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("SigBlk:"))
    queue.put(int(mask.split()[1], 16))


def _spawned_mask() -> int:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=blocked_signals, args=(queue,), daemon=True)
    with harness.spawn_without_main():
        child.start()
    try:
        return queue.get(timeout=120)
    finally:
        child.join(timeout=30)


def test_a_worker_spawned_after_shield_workers_has_sigint_blocked_and_the_caller_does_not() -> None:
    assert shield_workers() is True and shield_workers() is True  # idempotent
    mask = _spawned_mask()
    assert mask & (1 << (signal.SIGINT - 1)), hex(mask)
    assert not mask & (1 << (signal.SIGTERM - 1)), hex(mask)  # the reaper's terminate() still reaches it
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # this thread: as before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_during_the_spawn_is_raised_once_it_is_over() -> None:
    shield_workers()
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with harness.spawn_without_main():
            signal.raise_signal(signal.SIGINT)  # held: nothing raised here
            steps.append("spawn finished")
    assert steps == ["spawn finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
