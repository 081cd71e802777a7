"""Cognify datasets so that one note Cognee cannot process does not keep the others out.

Cognee 1.6.5 cognifies each dataset as one pipeline run over its documents
not yet processed (incremental loading), and rolls the whole run back when
any document fails (``cognee/modules/cognify/rollback.py``) — so a single
note that always fails kept its whole topic out of the graph, on every run.
With ``RAISE_INCREMENTAL_LOADING_ERRORS=false`` (pinned by
:mod:`memctl.graph.environment`) and ``raise_on_error=False`` every document
finishes, and the errored run reports each failed document with its id and
exception (``PipelineRunErrored.data_ingestion_info``). :func:`cognify` then
takes the documents that failed for their own reason out of the dataset
(with what the run wrote for them; documents completed by earlier runs are
untouched), records them as :class:`NoteRejection`, and runs that dataset
again, at most :data:`MAX_ROUNDS` times. A failure that is the environment's
(:mod:`memctl.graph.failures`) rejects nothing and fails the call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlparse

from memctl.graph.cognify_progress import CognifyWatch
from memctl.graph.configure import quiet, require_configured
from memctl.graph.embedding_batches import coalescing
from memctl.graph.errors import CognifyError, GraphConfigError, validate_dataset_name
from memctl.graph.failures import is_environment_error, reason
from memctl.graph.model_info import register_graph_model_info
from memctl.graph.rejections import NoteRejection, now_iso
from memctl.graph.stores import find_dataset

__all__ = ["MAX_ROUNDS", "CognifyResult", "cognify"]

MAX_ROUNDS = 3


@dataclass
class CognifyResult:
    """Outcome of :func:`cognify`.

    Attributes:
        datasets: the dataset names processed.
        status: dataset name → Cognee pipeline status name of its last run
            (e.g. ``PipelineRunCompleted``, ``PipelineRunAlreadyCompleted``).
        rejected: notes whose documents failed and were taken out of their dataset.
        elapsed_s: wall time in seconds.
    """

    datasets: list[str]
    status: dict[str, str] = field(default_factory=dict)
    rejected: list[NoteRejection] = field(default_factory=list)
    elapsed_s: float = 0.0


@quiet
async def cognify(datasets: list[str], chunks_per_batch: int = 10, data_per_batch: int = 4,
                  on_documents: Callable[[int], None] | None = None) -> CognifyResult:
    """Cognify ``datasets`` with explicit concurrency, rejecting notes one by one (module doc).

    Args:
        datasets: dataset names (deduplicated, order kept); an empty list is a no-op.
        chunks_per_batch: chunks Cognee processes per task batch
            (``cognee.cognify(chunks_per_batch=…)``; Cognee's default is 2000).
        data_per_batch: documents processed concurrently (an asyncio semaphore
            in Cognee's ``run_tasks``; Cognee's default is 20).
        on_documents: called during the run with the number of documents
            newly cognified since its last call (:class:`CognifyWatch`, about
            once a second); None reports nothing.

    Only data not yet cognified is processed, so an unchanged dataset costs no model call.

    Returns:
        :class:`CognifyResult` with a status per dataset and the rejected notes.

    Raises:
        InvalidDatasetName, GraphConfigError (not configured, or a batch
        parameter < 1), CognifyError (a failure no single note explains — the
        model server, a store; the cause is chained; ``rejected`` holds notes
        rejected before it).
    """
    require_configured()
    names = list(dict.fromkeys(validate_dataset_name(d) for d in datasets))
    if chunks_per_batch < 1 or data_per_batch < 1:
        raise GraphConfigError("chunks_per_batch and data_per_batch must be >= 1")
    result = CognifyResult(datasets=names)
    started = time.monotonic()
    pending = names
    await register_graph_model_info()  # one /api/show now instead of ~3 per extraction call
    with coalescing():  # indexing's embedding calls come in bursts: let them share requests
        async with CognifyWatch(names, on_documents):
            pending = await _rounds(pending, chunks_per_batch, data_per_batch, result)
    if pending:
        raise CognifyError(f"cognify of {', '.join(pending)} still failed after {MAX_ROUNDS} rounds of rejecting "
                           "notes", datasets=names, rejected=result.rejected)
    result.elapsed_s = time.monotonic() - started
    return result


async def _rounds(pending: list[str], chunks_per_batch: int, data_per_batch: int,
                  result: CognifyResult) -> list[str]:
    """Up to :data:`MAX_ROUNDS` runs, each over the datasets whose last run rejected notes; returns
    the datasets still failing after the last round ([] when all finished)."""
    names = result.datasets
    for _ in range(MAX_ROUNDS):
        if not pending:
            break
        runs = await _run(pending, chunks_per_batch, data_per_batch, result)
        failed, again = [], []
        for name, info in runs:
            result.status[name] = _status_name(info)
            if "Errored" not in result.status[name]:
                continue
            rejected = await _reject_failed_documents(name, info)
            if rejected:
                result.rejected.extend(rejected)
                again.append(name)
            else:
                failed.append(f"{name}: {getattr(info, 'error_class', None) or result.status[name]}: "
                              f"{getattr(info, 'error_message', None) or getattr(info, 'payload', '')}")
        if failed:
            raise CognifyError("cognify failed for " + "; ".join(failed), datasets=names, rejected=result.rejected)
        pending = again
    return pending


async def _run(names: list[str], chunks_per_batch: int, data_per_batch: int,
               result: CognifyResult) -> list[tuple[str, Any]]:
    import cognee

    try:
        runs = await cognee.cognify(datasets=names, chunks_per_batch=chunks_per_batch,
                                    data_per_batch=data_per_batch, raise_on_error=False)
    except Exception as exc:
        raise CognifyError(f"cognify of {', '.join(names)} failed: {type(exc).__name__}: {exc}",
                           datasets=names, rejected=result.rejected) from exc
    infos = list(runs.values()) if isinstance(runs, dict) else ([runs] if runs is not None else [])
    return [(getattr(i, "dataset_name", None) or str(getattr(i, "dataset_id", "?")), i) for i in infos]


def _status_name(info: Any) -> str:
    status = getattr(info, "status", None)
    return str(status) if status else type(info).__name__


async def _reject_failed_documents(dataset: str, info: Any) -> list[NoteRejection]:
    """Take the documents that failed for their own reason out of ``dataset``; [] when none did
    (no per-document report, or every failure is the environment's)."""
    import cognee

    failures = {}
    for item in getattr(info, "data_ingestion_info", None) or []:
        error = item.get("error") if isinstance(item, dict) else None
        if error is None or item.get("data_id") is None:
            continue
        if is_environment_error(error):
            return []  # the run must be redone anyway, and no note is to blame
        failures[str(item["data_id"])] = error
    ds = await find_dataset(dataset)
    if not failures or ds is None:
        return []
    rejected = []
    for row in await cognee.datasets.list_data(ds.id):
        if str(row.id) in failures:
            await cognee.datasets.delete_data(ds.id, row.id)
            rejected.append(NoteRejection(dataset, _note_path(row), "cognify", reason(failures[str(row.id)]),
                                          now_iso()))
    return rejected


def _note_path(row: Any) -> str:
    """The note a document came from: its ``source_uri`` (the note, also for a plain copy), else
    its origin."""
    meta = getattr(row, "external_metadata", None) or {}
    uri = ((meta.get("_cognee") or {}).get("source_uri") if isinstance(meta, dict) else None) \
        or getattr(row, "original_data_location", None) or str(row.id)
    return str(Path(unquote(urlparse(uri).path))) if str(uri).startswith("file:") else str(uri)
