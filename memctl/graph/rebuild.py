"""Rebuild one topic's Cognee dataset from its changed user memories.

:func:`rebuild_topic` is a function of explicit inputs and outputs: the
topic, the memory files to add (absolute paths), the files to remove (merged
originals, deleted from the store), settings and data home in; a
:class:`RebuildResult` out (JSON-able) — so a distributed engine can run each
topic as its own task. Removing first keeps a merged-away fact from being
retrieved next to the consolidated one; Cognee deduplicates re-added
identical files, so a retry adds nothing twice.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memctl.config import DataHome, Settings


@dataclass
class RebuildResult:
    """What one topic's rebuild did; ``error`` set when it failed (other topics go on)."""

    topic: str
    added: int = 0
    removed: int = 0
    cognified: bool = False
    seconds: float = 0.0
    error: str | None = None
    files: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


async def rebuild_topic(topic: str, add: list[Path], remove: list[Path], settings: Settings,
                        home: DataHome) -> RebuildResult:
    """Remove ``remove``, add ``add`` to dataset ``topic``, cognify it. Never raises: failures go in ``error``."""
    from memctl.graph import knowledge_graph

    started = time.monotonic()
    result = RebuildResult(topic=topic, files=[str(p) for p in add])
    try:
        moved = knowledge_graph.graph_store_location_problem(home)
        if moved:  # never cognify into another data home's stores
            raise knowledge_graph.GraphConfigError(moved)
        knowledge_graph.configure(settings, home)
        if remove:
            result.removed = await knowledge_graph.remove_notes(topic, remove)
        existing = [p for p in add if Path(p).is_file()]
        if existing:
            before = await knowledge_graph.dataset_data_count(topic)
            try:
                added = await knowledge_graph.add_notes(topic, existing, settings.batch_size)
            except knowledge_graph.NoteChangedError as exc:
                # A memory file changed in place (a rollback, a repaired file): Cognee's add never
                # updates a document, so take that batch's old documents out and add them again.
                result.removed += await knowledge_graph.remove_notes(topic, exc.paths)
                before -= len(exc.paths)
                added = await knowledge_graph.add_notes(topic, existing, settings.batch_size)
            result.added = max(0, added.data_count - before)
        await knowledge_graph.cognify([topic], settings.chunks_per_batch, settings.data_per_batch)
        result.cognified = True
    except Exception as exc:  # noqa: BLE001 - one topic's failure is reported, the others go on
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.monotonic() - started
    return result
