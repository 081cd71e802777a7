"""CognifyWatch turns Cognee's per-document status readings into forward-only deltas."""

from __future__ import annotations

import asyncio

import pytest

from memctl.graph import cognify_progress as progress_module
from memctl.graph.cognify_progress import CognifyProgress, CognifyWatch


def _readings(monkeypatch: pytest.MonkeyPatch, values: list[object]) -> None:
    """Each call to cognify_progress returns the next value (an int done-count or an exception)."""
    queue = list(values)

    async def fake(datasets: list[str]) -> CognifyProgress:
        value = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(value, Exception):
            raise value
        return CognifyProgress(done=value, total=10)

    monkeypatch.setattr(progress_module, "cognify_progress", fake)


@pytest.mark.parametrize(
    ("readings", "expected"),
    [
        ([2, 2, 5, 9, 10], [3, 4, 1]),          # baseline 2 (earlier runs) is not counted
        ([0, RuntimeError("locked"), 4, 4], [4]),  # a failed reading skips its tick only
        ([3, 6, 5, 8], [3, 2]),                  # a count that falls is never reported backwards
        ([0, 0, 0], []),                         # nothing finished, nothing reported
    ],
)
def test_watch_reports_documents_finished_since_entry(monkeypatch: pytest.MonkeyPatch, readings: list[object],
                                                      expected: list[int]) -> None:
    _readings(monkeypatch, readings)
    seen: list[int] = []

    async def run() -> None:
        async with CognifyWatch(["alpha"], seen.append, interval_s=0.001):
            while len(seen) < len(expected) or not expected:
                await asyncio.sleep(0.005)
                if not expected:
                    break
            await asyncio.sleep(0.02)

    asyncio.run(run())
    assert seen == expected


def test_watch_without_callback_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    async def fake(datasets: list[str]) -> CognifyProgress:
        calls.append(datasets)
        return CognifyProgress(0, 0)

    monkeypatch.setattr(progress_module, "cognify_progress", fake)

    async def run() -> None:
        async with CognifyWatch(["alpha"], None, interval_s=0.001):
            await asyncio.sleep(0.01)

    asyncio.run(run())
    assert calls == []


def test_pending_is_total_minus_done() -> None:
    assert CognifyProgress(done=3, total=7).pending == 4
