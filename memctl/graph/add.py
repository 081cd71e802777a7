"""Add notes to a Cognee dataset, and take them out again — one note's failure is that note's.

Provenance: notes are added as absolute file paths (or, for a note holding
special-token text, as its plain copy with the note's own ``source_uri``,
see :mod:`memctl.graph.plain_text`). Cognee records the document's ``name``
as the file stem (the source id) and ``external_metadata._cognee.source_uri``
as the note's ``file://`` URI; CHUNKS search hits carry both. Adding text
instead would name the document ``text_<md5>``, losing the link to the note.

Idempotence: re-adding identical content is a no-op (dedup by content hash;
no model call on the next cognify). A note whose file is already in the
dataset with other content is refused by Cognee's ``add``
(``DocumentUpdateRequiredError``); :func:`add_notes` then rejects that note
alone, or with ``replace_changed`` takes the old document out and adds the
new one. A note whose text now needs (or no longer needs) its plain copy has its
document from the other representation taken out first (``AddResult.replaced``), so
one note never has two documents; that note is cognified again once.

Failures (rules in :mod:`memctl.graph.failures`): the environment's fail the
batch (:class:`AddBatchError`; earlier batches stay added, later ones are not
tried); a note's own reject that note (:class:`NoteRejection` in
``AddResult.rejected``) — when a batch of several fails that way, its notes
are added one at a time to find which.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from memctl.graph.configure import configured_home, quiet, require_configured
from memctl.graph.errors import AddBatchError, GraphConfigError, GraphMemoryError, validate_dataset_name
from memctl.graph.failures import is_environment_error, reason
from memctl.graph.plain_text import cognee_input, copy_path
from memctl.graph.rejections import NoteRejection, now_iso
from memctl.graph.stores import dataset_data_count, find_dataset

__all__ = ["AddResult", "add_notes", "remove_notes"]


@dataclass
class AddResult:
    """Outcome of :func:`add_notes`.

    Attributes:
        dataset: dataset name.
        dataset_id: Cognee's dataset UUID (string) or None if nothing was added.
        notes: number of distinct paths given.
        batches: number of batches the notes were split into.
        data_ids: Cognee data ids reported for the added notes (deduplicated
            notes report the existing id).
        data_count: data items in the dataset after the call.
        rejected: the notes Cognee refused, with the reason (not added).
        replaced: old documents taken out (a changed note with ``replace_changed``,
            or a note's other representation, see :mod:`memctl.graph.plain_text`).
        elapsed_s: wall time in seconds.
    """

    dataset: str
    dataset_id: str | None
    notes: int
    batches: int
    data_ids: list[str] = field(default_factory=list)
    data_count: int = 0
    rejected: list[NoteRejection] = field(default_factory=list)
    replaced: int = 0
    elapsed_s: float = 0.0


@quiet
async def add_notes(dataset: str, paths: Iterable[Path], batch_size: int = 20, *,
                    replace_changed: bool = False) -> AddResult:
    """Add Markdown notes (by absolute path) to ``dataset`` in bounded batches.

    Args:
        dataset: dataset name (topic slug), see :func:`validate_dataset_name`.
        paths: note files; each must exist. Order is kept; duplicates removed.
        batch_size: notes per ``cognee.add`` call (≥ 1).
        replace_changed: a note already in the dataset with other content
            replaces its old document (sleep's rebuild: a rolled-back or
            repaired memory); otherwise it is rejected.

    Returns:
        :class:`AddResult`; notes Cognee refused are in ``rejected``.

    Raises:
        InvalidDatasetName: bad ``dataset``.
        GraphConfigError: not configured, or ``batch_size`` < 1.
        FileNotFoundError: a path does not exist (checked before any add).
        AddBatchError: a batch failed for the environment's reason (e.g. the
            embedding connection test failing because Ollama is down or
            answers 500), naming the batch (index/count, first and last file)
            and the cause; or a note could not be read.
    """
    require_configured()
    validate_dataset_name(dataset)
    if batch_size < 1:
        raise GraphConfigError(f"batch_size must be >= 1, got {batch_size}")
    unique = _existing_unique(paths)
    started = time.monotonic()
    batches = [unique[i: i + batch_size] for i in range(0, len(unique), batch_size)]
    result = AddResult(dataset=dataset, dataset_id=None, notes=len(unique), batches=len(batches))
    run = _AddRun(dataset, result, replace_changed)
    for index, batch in enumerate(batches, start=1):
        await run.add_batch(batch, index, len(batches))
    result.data_count = await dataset_data_count(dataset)
    result.elapsed_s = time.monotonic() - started
    return result


def _existing_unique(paths: Iterable[Path]) -> list[Path]:
    unique: list[Path] = []
    seen: set[Path] = set()
    for p in paths:
        rp = Path(p).expanduser().resolve()
        if rp in seen:
            continue
        if not rp.is_file():
            raise FileNotFoundError(f"note not found: {rp}")
        seen.add(rp)
        unique.append(rp)
    return unique


def _describe(batch: list[Path]) -> str:
    return batch[0].name if len(batch) == 1 else f"{batch[0].name} … {batch[-1].name}"


class _AddRun:
    """One :func:`add_notes` call: the notes' Cognee inputs, and what happened to them."""

    def __init__(self, dataset: str, result: AddResult, replace_changed: bool) -> None:
        self.dataset = dataset
        self.result = result
        self.replace_changed = replace_changed
        self.cognee_root = configured_home().cognee
        self.inputs: dict[Path, tuple[Any, Path, Path]] = {}
        self.replaced_paths: set[Path] = set()

    def reject(self, path: Path, why: str) -> None:
        self.result.rejected.append(NoteRejection(self.dataset, str(path), "add", why, now_iso()))

    async def prepare(self, batch: list[Path], fail: Any) -> list[Path]:
        """Build each note's Cognee input; drop documents of a note's other representation."""
        ready = []
        for path in batch:
            try:
                self.inputs[path] = cognee_input(self.cognee_root, path)
                ready.append(path)
            except UnicodeDecodeError as exc:
                self.reject(path, f"not UTF-8 text: {exc}")
            except OSError as exc:
                raise fail(f"reading {path.name}: {exc}") from exc
        stale = [self.inputs[p][2] for p in ready]
        self.result.replaced += await remove_locations(self.dataset, stale)
        return ready

    async def add_batch(self, batch: list[Path], index: int, count: int, single: bool = False) -> None:
        """Add one batch (``single``: one note of a batch that failed for a note's reason)."""
        import cognee
        from cognee.api.v1.exceptions.exceptions import DocumentUpdateRequiredError

        what = f"note {batch[0].name} of batch" if single else "batch"
        where = f"adding {what} {index}/{count} ({len(batch)} notes: {_describe(batch)}) to dataset '{self.dataset}' failed"

        def fail(detail: str) -> AddBatchError:
            return AddBatchError(f"{where}: {detail}", dataset=self.dataset, batch_index=index, batch_count=count,
                                 paths=batch)

        pending = await self.prepare(batch, fail)
        while pending:
            try:
                info = await cognee.add([self.inputs[p][0] for p in pending], dataset_name=self.dataset)
            except DocumentUpdateRequiredError as exc:
                pending = await self._changed(pending, exc, fail)
                continue
            except Exception as exc:
                if is_environment_error(exc) or isinstance(exc, GraphMemoryError):
                    raise fail(f"{type(exc).__name__}: {exc}") from exc
                if len(pending) == 1:
                    self.reject(pending[0], reason(exc))
                    return
                for path in pending:  # which of them? one at a time
                    await self.add_batch([path], index, count, single=True)
                return
            status = str(getattr(info, "status", "") or type(info).__name__)
            if "Errored" in status:
                raise fail(f"Cognee reported {status}: {getattr(info, 'payload', None)}")
            self._record(info)
            return

    async def _changed(self, pending: list[Path], exc: Any, fail: Any) -> list[Path]:
        """The notes Cognee refused as changed: replaced or rejected; returns what is left to add."""
        by_location = {self.inputs[p][1].as_uri(): p for p in pending}
        ids = {str(c.get("data_id")) for c in getattr(exc, "conflicts", None) or []}
        changed = [by_location[loc] for loc in await _locations_of(self.dataset, ids) if loc in by_location]
        if not changed:  # cannot tell which note: name them all
            named = set(re.findall(r"'([^']+)' \(data_id", str(exc)))
            changed = [p for p in pending if self.inputs[p][1].name in named]
        if not changed or (self.replace_changed and set(changed) <= self.replaced_paths):
            raise fail(f"{type(exc).__name__}: {exc}")
        if self.replace_changed:
            self.result.replaced += await remove_locations(self.dataset, [self.inputs[p][1] for p in changed])
            self.replaced_paths.update(changed)
            return pending
        for path in changed:
            self.reject(path, "changed content: the dataset holds an older version of this note, and ingest "
                              "never replaces a note's document (re-run with a new or empty dataset to rebuild)")
        return [p for p in pending if p not in changed]

    def _record(self, info: Any) -> None:
        if getattr(info, "dataset_id", None) is not None:
            self.result.dataset_id = str(info.dataset_id)
        for item in getattr(info, "data_ingestion_info", None) or []:
            data_id = item.get("data_id") if isinstance(item, dict) else None
            if data_id is not None and str(data_id) not in self.result.data_ids:
                self.result.data_ids.append(str(data_id))


async def _locations_of(dataset: str, data_ids: set[str]) -> list[str]:
    import cognee

    ds = await find_dataset(dataset)
    if ds is None or not data_ids:
        return []
    return [row.original_data_location for row in await cognee.datasets.list_data(ds.id) if str(row.id) in data_ids]


async def remove_locations(dataset: str, files: Iterable[Path]) -> int:
    """Delete the documents of ``dataset`` that were added from these files (matched by
    ``original_data_location``, the file's ``file://`` URI) with their graph nodes, edges
    and vectors (``cognee.datasets.delete_data``); returns how many.

    Raises:
        GraphMemoryError: Cognee failed to delete.
    """
    import cognee

    wanted = {Path(p).expanduser().resolve().as_uri() for p in files}
    if not wanted:
        return 0
    ds = await find_dataset(dataset)
    if ds is None:
        return 0
    deleted = 0
    try:
        for row in await cognee.datasets.list_data(ds.id):
            if row.original_data_location in wanted:
                await cognee.datasets.delete_data(ds.id, row.id)
                deleted += 1
    except Exception as exc:
        raise GraphMemoryError(f"removing {len(wanted)} document(s) from dataset '{dataset}' failed: {exc}") from exc
    return deleted


@quiet
async def remove_notes(dataset: str, paths: Iterable[Path]) -> int:
    """Delete from ``dataset`` the documents added from these notes (either representation,
    see :mod:`memctl.graph.plain_text`), with their graph nodes, edges and vectors. Returns
    how many were deleted; notes never added are ignored.

    Raises:
        GraphMemoryError: Cognee failed to delete.
    """
    require_configured()
    validate_dataset_name(dataset)
    root = configured_home().cognee
    notes = [Path(p).expanduser().resolve() for p in paths]
    return await remove_locations(dataset, [*notes, *(copy_path(root, n) for n in notes)])
