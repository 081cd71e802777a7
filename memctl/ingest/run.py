"""`memctl ingest`: the three resumable phases over the history sources (OpenCode, Claude Code…).

0. survey — validate the database and find the work, read-only
   (:mod:`memctl.ingest.survey`): a bad database or a run with nothing to do
   creates, locks and calls nothing.
1. distill — connector → per session a :func:`~memctl.ingest.plan.decide` →
   read + normalize/scrub/sample on a process pool (:mod:`memctl.ingest.premodel`,
   :mod:`memctl.ingest.transcript`), taken back in order → the executor
   (:mod:`memctl.ingest.executor`: model calls on a pool, one checkpoint
   writer) → notes; then :mod:`memctl.ingest.publish` mirrors the accepted
   notes into the store's ``memory/`` and refreshes the topic and note indexes.
2. add — the published notes into one Cognee dataset per topic, bounded batches.
3. cognify — one bounded run over the datasets that received data.

A SIGKILL at any point costs at most the sessions in flight (see the executor).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.catalog.checkpoint import Checkpoint
from memctl.catalog.refresh import refresh_indexes
from memctl.catalog.topics import TopicRegistry
from memctl.config import DataHome, Settings
from memctl.connectors.model import SessionInfo
from memctl.connectors.opencode.source import SessionFilter
from memctl.connectors.registry import CombinedSource, open_sources
from memctl.exit_codes import HOME, MODEL, USAGE, ExitCodeError
from memctl.ingest.graph_ledger import ledger_path, record_settled
from memctl.ingest.options import PHASES, IngestOptions
from memctl.ingest.plan import Action, Decision, PlanRules, decide
from memctl.ingest.publish import memory_path, publish_notes
from memctl.ingest.summary import IngestSummary, PlanItem
from memctl.ingest.survey import DISTILL_PHASES, GRAPH_PHASES, Survey, survey_notes, survey_sessions
from memctl.prompts import load_prompt
from memctl.reporting import Reporter, SilentReporter

if TYPE_CHECKING:
    from memctl.ingest.executor import DistillExecutor
    from memctl.ingest.premodel import PreModelStage, Request

# The distill machinery (model client, scrubber, transcript builder) is imported by the phase that
# uses it: a run with nothing to do stops after the survey, in about the time Python starts.

__all__ = ["IngestError", "IngestOptions", "IngestRun", "IngestSummary", "PHASES"]


@dataclass(slots=True)
class _Pending:
    """One session in the window between its decision and its handling, in the source's order."""

    info: SessionInfo
    topic: str
    title: str
    decision: Decision
    request: Request | None = None
    future: Future | None = None  # of a Prepared; None: nothing to read (defer or done)

    def ready(self) -> bool:
        return self.future is None or self.future.done()


class IngestError(ExitCodeError):
    """An ingest run cannot go on; message and exit code for the user (see :mod:`memctl.exit_codes`)."""


class IngestRun:
    """One ingest run over one data home. Create, then call :meth:`run`.

    Raises (from :meth:`run`): an :class:`~memctl.exit_codes.ExitCodeError` with the exit code, mapped by
    the CLI boundary: IngestError (2 refused option or unknown ``--session``, 6 busy home, 7 home unusable,
    9 model server), the source's SourceError (3), the model client's ModelError (9), the store's
    AuditIntegrityError (10), CheckpointError (7) for a corrupt checkpoint.
    """

    def __init__(self, settings: Settings, options: IngestOptions, reporter: Reporter | None = None) -> None:
        self.settings = settings
        self.options = options
        self.home = DataHome(settings.home)
        self.reporter = reporter or SilentReporter()
        self.summary = IngestSummary(dry_run=options.dry_run, phase=options.phase)
        self.redactions: Counter[str] = Counter()
        self.transcript_warnings: Counter[str] = Counter()
        self.compacted_outputs = 0
        self.selected_ids: list[str] = []

    # -- phase 1 -------------------------------------------------------------------

    def _filtered(self) -> bool:
        opts = self.options
        return bool(opts.session_ids or opts.project or opts.since or opts.limit is not None)

    def _filter(self, registry: TopicRegistry) -> SessionFilter:
        since_ms = int(self.options.since.timestamp() * 1000) if self.options.since else None
        accept = (lambda info: registry.matches(info, self.options.project)) if self.options.project else None
        return SessionFilter(since_ms=since_ms, session_ids=self.options.session_ids, accept=accept, limit=self.options.limit)

    def _open_source(self) -> CombinedSource:
        return open_sources(self.options.source_spec())

    def _rules(self, prompt_version: str) -> PlanRules:
        opts = self.options
        return PlanRules(prompt_version=prompt_version, reparse_skipped=opts.reparse_skipped,
                         reparse_all=opts.reparse_all, settle_minutes=self.settings.settle_minutes,
                         now_ms=int(time.time() * 1000))

    def _registry(self, source: CombinedSource, checkpoint: Checkpoint, *, read_only: bool) -> TopicRegistry:
        """``topics.json``; in a data home written before topics were keyed by project id, its projects
        are first bound to the topics the checkpoint already filed their sessions under."""
        registry = TopicRegistry.load(self.home.topics, read_only=read_only)
        if not registry.keyed_by_project and checkpoint.entries:
            entries = checkpoint.entries
            registry.adopt((info, entries[info.id].topic or "") for info in source.iter_root_infos()
                           if info.id in entries)
        return registry

    def survey(self) -> Survey:
        """Validate the database and find the work, creating and calling nothing (:mod:`memctl.ingest.survey`).

        Raises:
            IngestError: the database is missing, not SQLite, of an unknown layout or busy (3), or
                ``--session`` names no session (2); CheckpointError (7) for an unreadable state file.
        """
        opts = self.options
        checkpoint = Checkpoint(self.home.progress, self.home.skipped)
        found, selected = Survey(), None
        if opts.phase in DISTILL_PHASES or self._filtered():
            source = self._open_source()
            try:
                source.check_schema()
                registry = self._registry(source, checkpoint, read_only=True)
                found = survey_sessions(source, registry, checkpoint, self._filter(registry),
                                        self._rules(load_prompt("distill").version))
            finally:
                source.close()
            selected = set(found.root_ids) if self._filtered() else None
        survey_notes(found, self.home, checkpoint, selected, verify_graph=opts.verify_graph)
        return found

    def _nothing_to_do(self, found: Survey) -> None:
        summary = self.summary
        summary.found, summary.already_done = found.found, found.already_done
        summary.deferred_active, summary.orphaned_sessions = found.deferred_active, found.orphaned_sessions
        if self.options.phase in GRAPH_PHASES:
            summary.add_status = summary.cognify_status = "nothing to do"

    def distill_phase(self) -> None:
        """Run phase 1 (or its dry-run plan). Fills ``self.summary``."""
        opts, settings = self.options, self.settings
        source = self._open_source()
        try:
            source.check_schema()
            checkpoint = Checkpoint(self.home.progress, self.home.skipped)
            registry = self._registry(source, checkpoint, read_only=opts.dry_run)
            prompt = load_prompt("distill")
            flt = self._filter(registry)
            roots = source.count_roots(flt)
            self.reporter.phase("plan" if opts.dry_run else "distill", roots)
            rules = self._rules(prompt.version)
            # Sessions without an entry are surely read; the estimate decides whether a pool pays from the start.
            expected = max(0, roots - len(checkpoint.entries))
            if opts.dry_run:
                self._plan_sessions(source, flt, registry, checkpoint, rules, None, expected)
            else:
                from memctl.ingest.distill import Distiller  # the model client: not needed for a plan
                from memctl.ingest.executor import DistillExecutor

                with DistillExecutor(Distiller(settings, prompt), checkpoint, self.home, self.summary, self.reporter,
                                     workers=settings.workers, attempts=settings.max_attempts_per_run,
                                     reparse_all=opts.reparse_all) as executor:
                    self._plan_sessions(source, flt, registry, checkpoint, rules, executor, expected)
                    executor.finish()
                registry.save()
                for slug, alias in registry.new_aliases:
                    self.reporter.log(f"topic {slug}: its project is now at {alias.path}; "
                                      f"recorded {alias.name!r} as another name of the topic")
        finally:
            warnings = Counter(source.stats.skip_counts()) + self.transcript_warnings
            self.summary.read_warnings = dict(sorted(warnings.items()))
            self.summary.left_out = source.stats.left_out_counts() | (
                {"compacted_tool_outputs": self.compacted_outputs} if self.compacted_outputs else {})
            self.summary.redactions = dict(sorted(self.redactions.items()))
            source.close()

    def _plan_sessions(self, source: CombinedSource, flt: SessionFilter, registry: TopicRegistry,
                       checkpoint: Checkpoint, rules: PlanRules, executor: DistillExecutor | None,
                       expected: int) -> None:
        """Decide each selected session and hand its work to ``executor`` (None: a dry run, plan rows only).

        Sessions to read (about ``expected``) are prepared (:mod:`memctl.ingest.premodel`) on a
        process pool, in a window of a few per process; every session is handled in the source's order.
        """
        from memctl.ingest.premodel import BATCH, PreModelStage, Request, process_count
        from memctl.scrub.title import scrub_title

        processes = process_count(self.settings.transcript_processes)
        window: deque[_Pending] = deque()
        limit = 2 * BATCH * processes  # bounds memory: transcripts prepared ahead of their turn
        summary = self.summary
        with PreModelStage(source, self.settings, processes=processes, expected=expected) as stage:
            for info in source.iter_root_infos(flt):
                summary.found += 1
                summary.orphaned_sessions += bool(info.parent_id)  # a root with a parent: the parent is gone
                if self._filtered():
                    self.selected_ids.append(info.id)
                topic = registry.topic_for(info)
                title = scrub_title(info.title)  # titles can hold secrets too; never store them raw
                entry = checkpoint.entry(info.id)
                decision = decide(info, entry, rules)
                pending = _Pending(info, topic, title, decision)
                if decision.action not in (Action.DEFER, Action.SKIP):
                    pending.request = Request(info, entry, decision.action, title=title, topic=topic)
                    pending.future = stage.submit(pending.request)
                window.append(pending)
                while window and (len(window) > limit or window[0].ready()):
                    self._handle(stage, executor, window.popleft())
            while window:
                self._handle(stage, executor, window.popleft())

    def _handle(self, stage: PreModelStage, executor: DistillExecutor | None, pending: _Pending) -> None:
        """Record one session: a plan row (dry run), or its skip, recovery or model call."""
        summary, dry_run = self.summary, executor is None
        info, topic, title, decision, request = pending.info, pending.topic, pending.title, pending.decision, pending.request
        if request is None or pending.future is None:
            deferred = decision.action is Action.DEFER
            if deferred:
                summary.deferred_active += 1
            else:
                summary.already_done += 1
            if dry_run:
                summary.add_plan(PlanItem(info.id, title, topic, "defer" if deferred else "done", decision.why))
            self.reporter.advance()
            return
        prepared = stage.result(pending.future, request)
        work, transcript = prepared.work, prepared.transcript
        if work is None or transcript is None:  # the session grew by metadata only (e.g. its title)
            summary.already_done += 1
            if dry_run:
                summary.add_plan(PlanItem(info.id, title, topic, "done", "no new parts"))
            else:
                executor.note_unchanged(info.id, info.time_updated, info.revert_key)
            self.reporter.advance()
            return
        self.redactions.update(transcript.redactions)
        self.transcript_warnings.update(transcript.read_warnings)
        self.compacted_outputs += transcript.compacted_outputs
        work_info = work.session.info
        if work_info.title_is_placeholder or not work_info.title.strip():
            work = replace(work, title=transcript.title or work.title)  # the first user text names it
        if transcript.skip_reason:
            summary.skipped_threshold += 1
            if dry_run:
                summary.add_plan(PlanItem(work.source_id, work.title, topic, "skip", transcript.skip_reason))
            else:
                executor.skip_small(work, transcript)
            self.reporter.advance()
            return
        summary.estimated_input_tokens += transcript.estimated_tokens
        if dry_run:
            summary.add_plan(PlanItem(work.source_id, work.title, topic, "distill", decision.why,
                                      transcript.estimated_tokens))
            self.reporter.advance()
            return
        if not self.options.reparse_all and executor.recover(work, transcript):
            self.reporter.advance()
            return
        executor.submit(work, transcript)  # a ModelError (exit 9) reaches the CLI boundary as it is

    # -- publish into the store -----------------------------------------------------

    def _publish_or_fail(self) -> None:
        from memctl.store import AuditIntegrityError, StoreError

        try:
            published = publish_notes(self.home)
            self.summary.notes_published += published.written
            self.summary.notes_unpublished += published.removed
            refresh_indexes(self.home)
        except AuditIntegrityError:
            raise  # its own exit code (10, store damaged), not the data home's 7 below
        except (StoreError, OSError) as exc:
            raise IngestError(f"publishing notes into {self.home.store} failed: {exc}", HOME) from exc
        if published.written or published.removed:
            self._refresh_route_profiles()
        self._refresh_turns()

    def _refresh_turns(self) -> None:
        """Bring the turn index (:mod:`memctl.catalog.turn_index`) up to date: topics whose notes or
        transcripts changed are cut into turns again, new turns embedded. Best-effort: a failure is one
        line, and ask answers without turn evidence for those topics until the next ingest."""
        from memctl.catalog.topic_index import TopicIndex, TopicIndexError
        from memctl.catalog.topic_profiles import TopicProfiles
        from memctl.catalog.turn_index import TurnIndex

        try:
            index = TopicIndex.load(self.home.topic_index)
            embed = (TopicProfiles(self.settings, self.home).embed_texts
                     if self.settings.fusion_turn_dense_weight > 0 else None)
            TurnIndex(self.home, self.settings).refresh(index, embed)
        except (TopicIndexError, OSError) as exc:
            self.reporter.log(f"turn index not refreshed ({exc}); ask answers without turn evidence meanwhile")

    def _refresh_route_profiles(self) -> None:
        """Embed the new notes into the embedding router's topic profiles now (batched requests), so the
        first `ask` after a large ingest does not wait for them. Best-effort: a model or file failure is
        one line, and the next question builds what is missing."""
        if self.settings.route_embedding_weight <= 0:
            return
        from memctl.catalog.topic_index import TopicIndex, TopicIndexError
        from memctl.catalog.topic_profiles import TopicProfiles
        from memctl.ollama_client import ModelError
        from memctl.store import StoreError

        try:
            index = TopicIndex.load(self.home.topic_index)
            if index.topics:
                TopicProfiles(self.settings, self.home).refresh(index)
        except (ModelError, TopicIndexError, StoreError, OSError) as exc:
            self.reporter.log(f"routing profiles not refreshed ({exc}); the next `memctl ask` builds them")

    # -- phases 2 and 3 -----------------------------------------------------------

    def _notes_by_topic(self) -> dict[str, list[Path]]:
        """Selected published notes grouped by topic (all notes when no filter was given)."""
        distilled = Checkpoint(self.home.progress, self.home.skipped).distilled()
        if self._filtered() and self.options.phase in ("add", "cognify"):
            self.selected_ids = self._select_ids()
        ids = list(distilled)
        if self._filtered():
            selected = set(self.selected_ids)
            ids = [sid for sid, entry in distilled.items() if sid in selected or entry.continuation_of in selected]
        groups: dict[str, list[Path]] = {}
        for sid in sorted(ids):
            entry = distilled[sid]
            # Cognee reads the published copy: the graph is built from the store's ground truth.
            path = self.home.store / memory_path(entry.topic, sid)
            if path.exists():
                groups.setdefault(entry.topic or "misc", []).append(path)
        return groups

    def _select_ids(self) -> list[str]:
        """Root ids the filters select, without reading any part (for --phase add/cognify)."""
        source = self._open_source()
        try:
            source.check_schema()
            registry = TopicRegistry.load(self.home.topics, read_only=True)
            return [info.id for info in source.iter_root_infos(self._filter(registry))]
        finally:
            source.close()

    def graph_phases(self) -> None:
        """Run add and/or cognify as the phase option says. Failures set the summary status."""
        from memctl.graph import knowledge_graph

        groups = self._notes_by_topic()
        self.summary.datasets = sorted(groups)
        if not groups:
            self.summary.add_status = self.summary.cognify_status = "nothing to do"
            return
        knowledge_graph.configure(self.settings, self.home)
        # One event loop for all Cognee work: it keeps loop-bound resources between calls.
        knowledge_graph.run_sync(self._graph_phases_async(groups))
        summary = self.summary
        if self.options.phase == "all" and summary.add_status == "ok" and summary.cognify_status == "ok":
            try:  # every offered note was added and cognified: the next run need not start Cognee for them
                record_settled(self.home, groups)
            except OSError as exc:
                self.reporter.log(f"could not update {ledger_path(self.home)}: {exc} (the next run re-checks the graph)")

    def _check_graph_models(self) -> None:
        """Fail at once, with the `ollama pull` line, when Cognee's models are missing:
        Cognee itself would report it only after minutes of retries, buried in its logs."""
        from memctl.ollama_client import ModelError, check_model, client_for, embed

        settings = self.settings
        client = client_for(settings, settings.request_timeout_s)
        for model in dict.fromkeys((settings.graph_model, settings.embedding_model)):
            check_model(client, settings, model, settings.request_timeout_s)
        # A wrong dimension would be written into Cognee's vector collections and
        # poison the data home for every later run; refuse before anything is stored.
        try:
            dims = len(embed(client, settings, settings.embedding_model, ["memctl dimension probe"],
                             settings.request_timeout_s)[0])
        except ModelError as exc:
            raise IngestError(f"embedding probe with {settings.embedding_model!r} failed: {exc}", MODEL) from exc
        if dims != settings.embedding_dimensions:
            raise IngestError(
                f"{settings.embedding_model!r} returns {dims}-dimensional vectors but embedding_dimensions is "
                f"{settings.embedding_dimensions}; set MEMCTL_EMBEDDING_DIMENSIONS={dims} (see `memctl doctor`)",
                MODEL,
            )
        from memctl.graph.embedding_record import embedding_mismatch

        if (mismatch := embedding_mismatch(settings, self.home)) is not None:  # before any note is distilled
            raise IngestError(mismatch, MODEL)

    async def _graph_phases_async(self, groups: dict[str, list[Path]]) -> None:
        from memctl.ingest.graph_phases import run_graph_phases

        await run_graph_phases(groups, self.options.phase, self.settings, self.home, self.summary, self.reporter)

    def _refuse_reparse_all_into_used_datasets(self) -> None:
        from memctl.graph import knowledge_graph

        knowledge_graph.configure(self.settings, self.home)

        async def used_datasets() -> dict[str, int]:
            counts = {name: await knowledge_graph.dataset_data_count(name) for name in await knowledge_graph.list_datasets()}
            return {name: n for name, n in counts.items() if n}

        used = knowledge_graph.run_sync(used_datasets())
        if used:
            listing = ", ".join(f"{k} ({v} items)" for k, v in sorted(used.items()))
            raise IngestError(
                "--reparse-all only runs into new or empty datasets: re-distilled notes would sit next to the "
                f"old ones (old and new note hashes must never coexist). Non-empty: {listing}. "
                "Use a fresh --home, or remove the data home's cognee/ directory to rebuild the graph.",
                USAGE,
            )

    def _refuse_unknown_project(self) -> None:
        """Raise when ``--project`` names no project of the source (listing the known ones), as ``ask --topic``.

        Raises:
            IngestError: no such project (2); the database cannot be read (3).
        """
        from memctl.ingest.project_check import unknown_project_message

        source = self._open_source()
        try:
            source.check_schema()
            registry = TopicRegistry.load(self.home.topics, read_only=True) if self.home.topics.is_file() \
                else TopicRegistry(None)
            problem = unknown_project_message(source, registry, self.options.project or "")
        finally:
            source.close()
        if problem:
            raise IngestError(problem, USAGE)

    def _plan_graph_phase(self) -> None:
        """The dry run of ``--phase add|cognify``: the notes selected and those the graph lacks; nothing written."""
        found = self.survey()
        summary = self.summary
        summary.found, summary.already_done = found.found, found.already_done
        summary.notes_selected, summary.would_add_to_graph = found.notes, found.graph_pending

    def _remove_stale_temp_files(self) -> None:
        """Delete temp files a killed run left mid-write (safe: we hold the data-home lock)."""
        for directory in (self.home.transcripts, self.home.distilled, self.home.root):
            if directory.is_dir():
                for stale in directory.glob(".*.tmp"):
                    stale.unlink(missing_ok=True)

    # -- run -----------------------------------------------------------------------

    def run(self) -> IngestSummary:
        """Execute the selected phases and return the summary (see its ``exit_code``)."""
        started = time.monotonic()
        opts = self.options
        if opts.phase not in PHASES:
            raise IngestError(f"unknown phase {opts.phase!r}; choose one of {', '.join(PHASES)}", USAGE)
        if opts.project:
            self._refuse_unknown_project()
        if opts.dry_run and opts.phase not in DISTILL_PHASES:
            self._plan_graph_phase()  # --phase add/cognify distills nothing: its plan is the notes for the graph
        elif opts.dry_run:
            try:
                self.distill_phase()
            except KeyboardInterrupt as exc:  # Ctrl-C or Terminated: the CLI's line says what the stop left
                exc.args = ("a dry run writes nothing",)
                raise
        elif not (found := self.survey()).has_work(opts.phase):
            self._nothing_to_do(found)
        else:
            with self.home.lock(wait=opts.wait, error=IngestError):
                self._remove_stale_temp_files()
                if opts.reparse_all and opts.phase in ("all", "distill"):
                    self._refuse_reparse_all_into_used_datasets()
                warm = None
                if found.needs_graph(opts.phase):
                    self._check_graph_models()  # before hours of distilling, not after
                    # Cognee's import (6-8 s cold) runs while the sessions are distilled, not after.
                    from memctl.graph import knowledge_graph
                    from memctl.graph.configure import BackgroundConfigure

                    warm = BackgroundConfigure(self.settings, self.home, knowledge_graph.configure)
                try:
                    if opts.phase in ("all", "distill"):
                        self.distill_phase()
                    self._publish_or_fail()
                    if opts.phase in ("all", "add", "cognify"):
                        self.graph_phases()
                finally:
                    if warm is not None:
                        warm.wait()  # a daemon thread stopped mid-import can crash the interpreter's exit
        self.summary.wall_s = time.monotonic() - started
        self.reporter.done()
        return self.summary
