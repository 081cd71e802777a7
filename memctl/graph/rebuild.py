"""Rebuild one topic's Cognee dataset from its changed user memories.

:func:`rebuild_topic` is a function of explicit inputs and outputs: the
topic, the memory files to add (absolute paths), the files to remove (merged
originals, deleted from the store), settings and data home in; a
:class:`RebuildResult` out (JSON-able) — so a distributed engine can run each
topic as its own task. Removing first keeps a merged-away fact from being
retrieved next to the consolidated one; Cognee deduplicates re-added
identical files, so a retry adds nothing twice. A memory Cognee rejects
(:mod:`memctl.graph.failures`) is reported in ``rejected`` and recorded in the
data home's rejection record; the topic's other memories still reach its graph.
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
    rejected: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


async def rebuild_topic(topic: str, add: list[Path], remove: list[Path], settings: Settings,
                        home: DataHome) -> RebuildResult:
    """Remove ``remove``, add ``add`` to dataset ``topic``, cognify it. Never raises: failures go in
    ``error``, memories Cognee rejected in ``rejected`` (and the data home's rejection record)."""
    from memctl.graph import knowledge_graph
    from memctl.graph.rejections import update_rejections

    started = time.monotonic()
    result = RebuildResult(topic=topic, files=[str(p) for p in add])
    rejected: list = []
    phases: list[str] = []
    existing = [Path(p).resolve() for p in add if Path(p).is_file()]
    try:
        moved = knowledge_graph.graph_store_location_problem(home)
        if moved:  # never cognify into another data home's stores
            raise knowledge_graph.GraphConfigError(moved)
        knowledge_graph.configure(settings, home)
        if remove:
            result.removed = await knowledge_graph.remove_notes(topic, remove)
        if existing:
            before = await knowledge_graph.dataset_data_count(topic)
            # A memory file changed in place (a rollback, a repaired file): Cognee's add never
            # updates a document, so its old document is taken out and the new one added.
            added = await knowledge_graph.add_notes(topic, existing, settings.batch_size, replace_changed=True)
            phases.append("add")
            rejected += added.rejected
            result.removed += added.replaced
            result.added = max(0, added.data_count - before + added.replaced)
        try:
            rejected += (await knowledge_graph.cognify([topic], settings.chunks_per_batch,
                                                       settings.data_per_batch)).rejected
        except knowledge_graph.CognifyError as exc:
            rejected += exc.rejected
            raise
        result.cognified = True
        phases.append("cognify")
        from memctl.graph.embedding_record import record_embedding

        record_embedding(settings, home)  # the graph holds this model's vectors (an OSError is this topic's error)
    except Exception as exc:  # noqa: BLE001 - one topic's failure is reported, the others go on
        result.error = f"{type(exc).__name__}: {exc}"
    result.rejected = [r.as_dict() for r in rejected]
    try:
        update_rejections(home.graph_rejections, [(topic, str(p)) for p in existing], phases, rejected)
    except OSError as exc:  # the record is a report: the rebuild's own outcome stands
        result.error = result.error or f"could not update {home.graph_rejections}: {exc}"
    result.seconds = time.monotonic() - started
    return result
