"""What an ingest run has to do, found before it creates, locks or calls anything.

A run first validates the OpenCode database (exists, is SQLite, a known
layout: :meth:`memctl.connectors.opencode.source.OpenCodeSource.check_schema`)
and surveys the work reading only that database's session list (no part is
read) and the data home's state files (``progress.json``, ``topics.json``,
the store's ``memory/``). Only when there is work does it take the data-home
lock, which creates the home, and only a phase with input contacts the model
server. A bad database therefore leaves no trace, and a run with nothing to
do writes nothing and makes no request.

Work is: a session whose :func:`~memctl.ingest.plan.decide` action is
``distill`` or ``continue``; a moved project whose new path is not yet
recorded as an alias of its topic (a first assignment alone is not: it is
recorded with the project's first session that is read);
an accepted note not (or no longer) mirrored in the store; for the graph
phases, an accepted note of the selected sessions that the graph does not
hold yet (:mod:`memctl.ingest.graph_ledger`; every such note with
``--verify-graph``) — so a run with nothing new does not start Cognee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memctl.catalog.checkpoint import Checkpoint
from memctl.catalog.topics import TopicRegistry
from memctl.config import DataHome
from memctl.connectors.opencode.source import SessionFilter
from memctl.connectors.registry import CombinedSource
from memctl.ingest.graph_ledger import unsettled_notes
from memctl.ingest.plan import Action, PlanRules, decide
from memctl.ingest.publish import memory_path

GRAPH_PHASES = ("all", "add", "cognify")
DISTILL_PHASES = ("all", "distill")


@dataclass
class Survey:
    """Counts of one survey. ``root_ids``: the root sessions the filters selected, in order."""

    found: int = 0
    already_done: int = 0
    deferred_active: int = 0
    orphaned_sessions: int = 0
    to_read: int = 0
    topics_changed: bool = False
    unpublished: int = 0
    notes: int = 0
    graph_pending: int = 0  # of ``notes``: those the graph does not hold yet
    root_ids: list[str] = field(default_factory=list)

    def has_work(self, phase: str) -> bool:
        """True when a run of ``phase`` (a :class:`~memctl.ingest.options.Phase` value) would change or add anything."""
        return bool(self.unpublished or (phase in DISTILL_PHASES and (self.to_read or self.topics_changed))
                    or self.needs_graph(phase))

    def needs_graph(self, phase: str) -> bool:
        """True when a run of ``phase`` would hand notes to Cognee (so its models must be checked first)."""
        return phase in GRAPH_PHASES and bool(self.graph_pending or (phase == "all" and self.to_read))


def survey_sessions(source: CombinedSource, registry: TopicRegistry, checkpoint: Checkpoint, flt: SessionFilter,
                    rules: PlanRules) -> Survey:
    """Decide every selected root session without reading its parts.

    ``registry`` should not be saved (a :meth:`TopicRegistry.load` with ``read_only``): the
    aliases it records tell whether a project moved since the last run.

    Raises:
        SourceError: the database cannot be listed (busy, unreadable, an unknown ``--session``).
    """
    survey = Survey()
    for info in source.iter_root_infos(flt):
        survey.found += 1
        survey.root_ids.append(info.id)
        survey.orphaned_sessions += bool(info.parent_id)
        registry.topic_for(info)
        action = decide(info, checkpoint.entry(info.id), rules).action
        if action is Action.DEFER:
            survey.deferred_active += 1
        elif action is Action.SKIP:
            survey.already_done += 1
        else:
            survey.to_read += 1
    survey.topics_changed = bool(registry.new_aliases)
    return survey


def survey_notes(survey: Survey, home: DataHome, checkpoint: Checkpoint, selected: set[str] | None,
                 verify_graph: bool = False) -> None:
    """Count the accepted notes (of the ``selected`` roots and their continuations; all when None),
    those the store does not mirror yet, and those the graph does not hold yet (all of them when
    ``verify_graph``), into ``survey``."""
    wanted: set[str] = set()
    offered: list[tuple[str, Path, Path]] = []
    for sid, entry in checkpoint.distilled().items():
        if not home.note_path(sid).exists():
            continue
        wanted.add(memory_path(entry.topic, sid))
        if selected is None or sid in selected or entry.continuation_of in selected:
            survey.notes += 1
            offered.append((entry.topic or "misc", home.store / memory_path(entry.topic, sid), home.note_path(sid)))
    survey.graph_pending = survey.notes if verify_graph else unsettled_notes(home, offered)
    memory = home.store / "memory"
    present = {p.relative_to(home.store).as_posix() for p in memory.glob("*/*.md")} if memory.is_dir() else set()
    survey.unpublished = len(wanted ^ present)
