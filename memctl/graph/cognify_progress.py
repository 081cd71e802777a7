"""How far a cognify run is, in documents, from Cognee's own per-document pipeline status.

Cognee 1.6.5 records, for every document (``Data`` row) and pipeline, the
datasets it finished in: ``Data.pipeline_status["cognify_pipeline"][str(dataset_id)]
== "DATA_ITEM_PROCESSING_COMPLETED"``, committed as each document's tasks end
(``cognee/modules/pipelines/operations/run_tasks_data_item.py``). The run
itself reports nothing until its dataset is done, so :class:`CognifyWatch`
reads that status on a timer while :func:`memctl.graph.cognify.cognify` runs
and reports the documents newly finished — what lets ``memctl ingest`` show
a bar with a rate and an ETA inside the cognify phase instead of one step
per topic.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, Callable

from memctl.graph.configure import require_configured
from memctl.graph.stores import find_dataset

__all__ = ["COGNIFY_PIPELINE", "POLL_INTERVAL_S", "CognifyProgress", "CognifyWatch", "cognify_progress"]

COGNIFY_PIPELINE = "cognify_pipeline"  # cognee/api/v1/cognify/cognify.py: run_pipeline(pipeline_name=…)
_COMPLETED = "DATA_ITEM_PROCESSING_COMPLETED"  # cognee/modules/pipelines/models/DataItemStatus.py
POLL_INTERVAL_S = 1.0  # one small read of the relational store per second: nothing next to a model call


@dataclass(frozen=True)
class CognifyProgress:
    """Documents in the datasets (``total``) and how many of them are cognified (``done``)."""

    done: int
    total: int

    @property
    def pending(self) -> int:
        """Documents a cognify run still has to process."""
        return self.total - self.done


async def cognify_progress(datasets: list[str]) -> CognifyProgress:
    """Count the documents of ``datasets`` and those Cognee has finished cognifying (module doc).

    A dataset that does not exist counts as empty. Not wrapped in ``quiet``:
    it runs beside a cognify (:class:`CognifyWatch`), and interleaved
    ``redirect_stdout`` contexts of two tasks can leave stdout redirected.

    Raises:
        GraphConfigError when the graph layer is not configured; whatever
        Cognee's relational store raises (callers that only display progress
        catch it).
    """
    require_configured()
    import cognee

    done = total = 0
    for name in datasets:
        ds = await find_dataset(name)
        if ds is None:
            continue
        for row in await cognee.datasets.list_data(ds.id):
            total += 1
            done += _is_cognified(row, str(ds.id))
    return CognifyProgress(done, total)


def _is_cognified(row: Any, dataset_id: str) -> bool:
    status = getattr(row, "pipeline_status", None) or {}
    return isinstance(status, dict) and (status.get(COGNIFY_PIPELINE) or {}).get(dataset_id) == _COMPLETED


class CognifyWatch:
    """While a cognify runs, call ``on_documents(n)`` with the ``n`` documents finished since the last call.

    Use as ``async with CognifyWatch(datasets, on_documents):`` around the run;
    the count at entry is the baseline, so documents finished by earlier runs
    are not counted, and a last reading is taken on exit. A failed reading
    skips that tick: progress is a display and never fails the run.
    """

    def __init__(self, datasets: list[str], on_documents: Callable[[int], None] | None,
                 interval_s: float | None = None) -> None:
        self.datasets = datasets
        self.on_documents = on_documents
        self.interval_s = POLL_INTERVAL_S if interval_s is None else interval_s
        self._seen: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> CognifyWatch:
        if self.on_documents is not None:
            self._seen = await self._read()
            self._task = asyncio.create_task(self._poll())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self._tick()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self._tick()

    async def _tick(self) -> None:
        done = await self._read()
        if done is None or self._seen is None:
            self._seen = self._seen if done is None else done
            return
        if done > self._seen and self.on_documents is not None:
            self.on_documents(done - self._seen)
        # A rejected document leaves the dataset: the count can fall; never report backwards.
        self._seen = max(self._seen, done)

    async def _read(self) -> int | None:
        try:
            return (await cognify_progress(self.datasets)).done
        except Exception:  # noqa: BLE001 - a display must not fail the run it displays
            return None
