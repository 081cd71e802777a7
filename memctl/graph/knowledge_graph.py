"""memctl's Cognee layer in one name: configure, add, cognify, search, counts.

Callers use this module (``from memctl.graph import knowledge_graph``); the
work is done by the modules it re-exports, each with the sources it was
checked against (the installed Cognee 1.6.5):

* :mod:`memctl.graph.configure` — ``configure`` (offline assets, the pinned
  environment of :mod:`memctl.graph.environment`, ``import cognee``, the same
  values in code), ``run_sync`` (one event loop per process), ``close``;
* :mod:`memctl.graph.add` — ``add_notes`` / ``remove_notes``; a note Cognee
  refuses is rejected alone (:mod:`memctl.graph.failures`), text spelling a
  special token reaches Cognee plain (:mod:`memctl.graph.plain_text`);
* :mod:`memctl.graph.cognify` — ``cognify``, rejecting documents that fail
  for their own reason so the rest of their dataset is cognified;
* :mod:`memctl.graph.search` — ``search`` with provenance;
* :mod:`memctl.graph.stores` — datasets, counts, and whether the stores can
  be used where the data home is;
* :mod:`memctl.graph.rejections` — the data home's record of rejected notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from memctl.graph.add import AddResult, add_notes, remove_notes
from memctl.graph.cognify import CognifyResult, cognify
from memctl.graph.cognify_progress import CognifyProgress, cognify_progress
from memctl.graph.configure import close, configure, is_configured, run_sync
from memctl.graph.environment import cognee_env
from memctl.graph.errors import (
    AddBatchError,
    CognifyError,
    GraphConfigError,
    GraphMemoryError,
    InvalidDatasetName,
    validate_dataset_name,
)
from memctl.graph.rejections import NoteRejection
from memctl.graph.search import SearchHit, search
from memctl.graph.stores import (
    GraphCounts,
    dataset_data_count,
    find_dataset,
    graph_counts,
    graph_store_location_problem,
    list_datasets,
    stored_vector_dimensions,
)

__all__ = [
    "AddBatchError",
    "AddResult",
    "CognifyError",
    "CognifyProgress",
    "CognifyResult",
    "GraphConfigError",
    "GraphCounts",
    "GraphMemoryError",
    "InvalidDatasetName",
    "NoteRejection",
    "SearchHit",
    "add_notes",
    "add_notes_sync",
    "close",
    "cognee_env",
    "cognify",
    "cognify_progress",
    "cognify_sync",
    "configure",
    "dataset_data_count",
    "graph_counts",
    "graph_store_location_problem",
    "is_configured",
    "list_datasets",
    "remove_notes",
    "run_sync",
    "search",
    "stored_vector_dimensions",
    "validate_dataset_name",
]

_find_dataset = find_dataset  # the name scripts and tests have used


def add_notes_sync(dataset: str, paths: Iterable[Path], batch_size: int = 20, *,
                   replace_changed: bool = False) -> AddResult:
    """Blocking :func:`add_notes`."""
    return run_sync(add_notes(dataset, paths, batch_size, replace_changed=replace_changed))


def cognify_sync(datasets: list[str], chunks_per_batch: int = 10, data_per_batch: int = 4) -> CognifyResult:
    """Blocking :func:`cognify`."""
    return run_sync(cognify(datasets, chunks_per_batch, data_per_batch))
