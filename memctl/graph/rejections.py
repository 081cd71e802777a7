"""Notes Cognee rejected, and the data home's record of them.

A rejected note stays in the memory store as it is; it only did not reach
its topic's graph. It is offered again by every later run (a rejection can
be transient, and a changed note may pass), and its record is replaced by
that run's outcome: dropped when the note got through, kept (with the new
reason) when it was rejected again. ``memctl ingest`` shows this run's
rejections in its summary (``notes_rejected``); ``memctl doctor`` lists the
record.

The record is ``<home>/graph_rejections.json`` (``DataHome.graph_rejections``):
``{"version": 1, "rejections": [NoteRejection.as_dict(), …]}``, written
atomically by the run holding the data-home lock.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from pydantic import BaseModel, ConfigDict, StrictStr

from memctl.state_file import StateFileError, StateModel, read_state, write_state

__all__ = ["NoteRejection", "load_rejections", "update_rejections"]

VERSION = 1


@dataclass(frozen=True)
class NoteRejection:
    """One note Cognee refused.

    Attributes:
        dataset: the topic's dataset.
        path: the note's absolute path.
        phase: ``add`` (the document was not stored) or ``cognify`` (it was
            stored, processing it raised; its document was taken out again so the
            dataset's other notes could be cognified).
        reason: ``<error class>: <first line>`` (see :func:`memctl.graph.failures.reason`).
        at: when, ISO 8601 UTC.
    """

    dataset: str
    path: str
    phase: str
    reason: str
    at: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _RejectionRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: StrictStr
    path: StrictStr
    phase: StrictStr
    reason: StrictStr
    at: StrictStr = ""


class RejectionsFile(StateModel):
    """``graph_rejections.json``'s shape as read: ``{"version": 1, "rejections": [NoteRejection fields, …]}``."""

    rejections: list[_RejectionRecord] = []


def load_rejections(path: Path) -> list[NoteRejection]:
    """The recorded rejections ([] when there is no record or it cannot be read — it is a
    report, rebuilt by the next run, never a reason to stop)."""
    try:
        state = read_state(Path(path), RejectionsFile)
    except StateFileError:
        return []
    return [NoteRejection(**row.model_dump()) for row in state.rejections] if state else []


def update_rejections(path: Path, offered: Iterable[tuple[str, str]], phases: Iterable[str],
                      rejected: Iterable[NoteRejection]) -> list[NoteRejection]:
    """Replace the record of what this run tried: entries for ``offered`` ``(dataset, note path)``
    pairs in one of ``phases`` are dropped, then ``rejected`` is added; other entries stay.
    Writes only when the record changes; returns the new record.

    Raises:
        OSError: the record cannot be written.
    """
    tried, ran = set(offered), set(phases)
    before = load_rejections(path)
    kept = [r for r in before if not ((r.dataset, r.path) in tried and r.phase in ran)]
    fresh = {(r.dataset, r.path, r.phase): r for r in rejected}
    after = [r for r in kept if (r.dataset, r.path, r.phase) not in fresh] + list(fresh.values())
    after.sort(key=lambda r: (r.dataset, r.path, r.phase))
    if after != before and (after or Path(path).exists()):
        write_state(path, {"version": VERSION, "rejections": [r.as_dict() for r in after]})
    return after
