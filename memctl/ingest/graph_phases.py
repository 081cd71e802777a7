"""Phases 2 and 3 of ingest: the published notes into one Cognee dataset per topic, then cognify.

A note Cognee rejects (:mod:`memctl.graph.failures`) costs that note only:
the topic's other notes are added and cognified, the note is listed in the
summary's ``notes_rejected`` and in the data home's rejection record
(``doctor`` shows it), and every later run offers it again. Exit codes
(:attr:`memctl.ingest.summary.IngestSummary.exit_code`): 4 when the add phase
failed or rejected a note, else 5 when cognify failed or rejected one — a
partial run exits as its phase's failure, so a script sees that the graph
is incomplete. A failure that is the environment's (the model server, a
store) stops the phase as before: nothing is rejected, everything is retried.
"""

from __future__ import annotations

from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph
from memctl.graph.rejections import NoteRejection, update_rejections
from memctl.ingest.summary import IngestSummary
from memctl.reporting import Reporter

__all__ = ["run_graph_phases"]


def _partial(rejected: int) -> str:
    return f"partial: {rejected} note(s) rejected (listed in notes_rejected and by `memctl doctor`)"


async def run_graph_phases(groups: dict[str, list[Path]], phase: str, settings: Settings, home: DataHome,
                           summary: IngestSummary, reporter: Reporter) -> None:
    """Add (``phase`` ``all``/``add``) and cognify (``all``/``cognify``) the notes of ``groups``
    (topic → note paths in the store), filling ``summary``'s graph fields and the rejection record.

    Never raises for a Cognee failure (the summary's status says it) or for a rejection record
    that cannot be written (the reporter says it).
    """
    rejected: list[NoteRejection] = []
    offered: list[tuple[str, str]] = []
    phases: list[str] = []
    try:
        if phase in ("all", "add"):
            reporter.phase("add", sum(len(p) for p in groups.values()))
            try:
                for topic, paths in sorted(groups.items()):
                    before = await knowledge_graph.dataset_data_count(topic)
                    result = await knowledge_graph.add_notes(topic, paths, settings.batch_size)
                    # Cognee deduplicates by content hash: report what is new, not what was offered.
                    summary.notes_submitted += len(paths)
                    summary.notes_added += max(0, result.data_count - before)
                    rejected += result.rejected
                    offered += [(topic, str(Path(p).resolve())) for p in paths]
                    reporter.advance(len(paths))
            except knowledge_graph.GraphMemoryError as exc:
                summary.add_status = f"failed: {exc}"
                reporter.log(f"add failed: {exc}")
                return  # the environment failed: cognify would fail the same way
            finally:
                phases.append("add")
            summary.add_status = _partial(len(rejected)) if rejected else "ok"
        if phase in ("all", "cognify"):
            offered = sorted(set(offered) | {(t, str(Path(p).resolve())) for t, ps in groups.items() for p in ps})
            try:
                # Progress in documents (notes), read from Cognee's per-document status while it runs.
                pending = (await knowledge_graph.cognify_progress(sorted(groups))).pending
                reporter.phase("cognify", pending)
                shown = _CountingAdvance(reporter)
                done = await knowledge_graph.cognify(sorted(groups), settings.chunks_per_batch,
                                                     settings.data_per_batch, on_documents=shown)
                phases.append("cognify")  # a failed run tried nothing to the end: its old record stays
                _record_embedding(settings, home, reporter)
                rejected += done.rejected
                # A rejected note left its dataset processed but not cognified: the bar still ends full.
                if pending > shown.count:
                    reporter.advance(pending - shown.count)
                summary.cognify_status = _partial(len(done.rejected)) if done.rejected else "ok"
            except knowledge_graph.GraphMemoryError as exc:
                rejected += getattr(exc, "rejected", [])
                summary.cognify_status = f"failed: {exc}"
                reporter.log(f"cognify failed: {exc}")
    finally:
        for r in rejected:
            reporter.log(f"note {_shown(r.path, home)} of topic {r.dataset} rejected at {r.phase}: {r.reason}")
        summary.notes_rejected = [{"topic": r.dataset, "note": _shown(r.path, home), "phase": r.phase,
                                   "reason": r.reason} for r in rejected]
        try:
            update_rejections(home.graph_rejections, offered, phases, rejected)
        except OSError as exc:  # the record is a report: the run's own outcome stands
            reporter.log(f"could not update {home.graph_rejections}: {exc}")


def _record_embedding(settings: Settings, home: DataHome, reporter: Reporter) -> None:
    """The graph now holds this model's vectors: record it (:mod:`memctl.graph.embedding_record`)."""
    from memctl.graph.embedding_record import record_embedding

    try:
        record_embedding(settings, home)
    except OSError as exc:  # the cognify stands; the next one records it
        reporter.log(f"could not write {home.graph_embedding}: {exc}")


class _CountingAdvance:
    """``reporter.advance`` that remembers how many items it was given."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter, self.count = reporter, 0

    def __call__(self, n: int) -> None:
        self.count += n
        self.reporter.advance(n)


def _shown(path: str, home: DataHome) -> str:
    """A note's path relative to the store (``memory/<topic>/<id>.md``) when it is in it."""
    try:
        return Path(path).resolve().relative_to(home.store.resolve()).as_posix()
    except (ValueError, OSError):
        return path
