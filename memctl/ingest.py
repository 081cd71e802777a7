"""`memctl ingest`: the three resumable phases over an OpenCode database.

1. distill — connector → normalize/scrub/sample (:mod:`memctl.transcript`) →
   persist transcript → model (:mod:`memctl.distill`) → note → checkpoint.
2. add — persisted notes into one Cognee dataset per topic, bounded batches.
3. cognify — one bounded run over the datasets that received data.

Ordering rules that make a SIGKILL at any point cost at most the sessions in
flight (ingester design, "Failure boundaries"): the transcript is written
before the model call; the note is written (atomically) before its id becomes
``distilled``; a note found on disk whose provenance matches the current
transcript and prompt version is taken over without a model call
("persisted note reloads on restart"). Workers only call the model; the
calling thread is the single checkpoint writer.
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from connectors.model import Session, SessionInfo
from memctl.exit_codes import ExitCodeError
from connectors.opencode import OpenCodeSource, SessionFilter
from memctl.atomic import atomic_write_text
from memctl.config import DataHome, Settings
from memctl.distill import (DistillError, Distiller, DistillOutcome, load_prompt, read_note_meta, render_note,
                            sha256_text, summary_title)
from memctl.progress import Checkpoint
from memctl.scrub import scrub
from memctl.topics import TopicRegistry
from memctl.transcript import Transcript, build_transcript

PHASES = ("all", "distill", "add", "cognify")
PLAN_ROWS_MAX = 200  # a dry run over 20,000 sessions keeps counts for all, rows for the first few


class IngestError(ExitCodeError):
    """An ingest run cannot go on; message and exit code for the user (see :mod:`memctl.exit_codes`)."""


@dataclass
class IngestOptions:
    """What one `memctl ingest` run does. ``since`` is an aware datetime."""

    db: Path
    phase: str = "all"
    dry_run: bool = False
    since: datetime | None = None
    session_ids: tuple[str, ...] = ()
    project: str | None = None
    limit: int | None = None
    reparse_skipped: bool = False
    reparse_all: bool = False
    wait: bool = False  # block on the data-home lock instead of exiting 6


@dataclass
class PlanItem:
    """One line of a dry-run plan."""

    source_id: str
    title: str
    topic: str
    action: str  # distill | skip | done
    why: str
    estimated_tokens: int = 0


@dataclass
class IngestSummary:
    """Figures of one run; ``--json`` prints :meth:`as_dict`."""

    dry_run: bool = False
    phase: str = "all"
    found: int = 0
    already_done: int = 0
    deferred_active: int = 0
    skipped_threshold: int = 0
    skipped_junk: int = 0
    distilled: int = 0
    recovered: int = 0
    errors: int = 0
    error_details: list[dict[str, str]] = field(default_factory=list)
    estimated_input_tokens: int = 0
    would_distill: int = 0
    redactions: dict[str, int] = field(default_factory=dict)
    read_warnings: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)  # undone in the source, or pruned by it
    orphaned_sessions: int = 0  # subagent sessions whose parent no longer exists
    notes_published: int = 0
    notes_unpublished: int = 0
    notes_submitted: int = 0
    notes_added: int = 0
    datasets: list[str] = field(default_factory=list)
    add_status: str = "not run"
    cognify_status: str = "not run"
    wall_s: float = 0.0
    plan: list[PlanItem] = field(default_factory=list)
    plan_omitted: int = 0

    def add_plan(self, item: PlanItem) -> None:
        """Keep a bounded number of plan rows (memory must not grow with the number of sessions)."""
        if item.action == "distill":
            self.would_distill += 1
        if len(self.plan) < PLAN_ROWS_MAX:
            self.plan.append(item)
        else:
            self.plan_omitted += 1

    @property
    def sessions_per_hour(self) -> float:
        handled = self.distilled + self.skipped_junk + self.skipped_threshold + self.errors
        return handled / self.wall_s * 3600 if self.wall_s > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """0 ok; 1 some sessions failed to distill; 4 add failed; 5 cognify failed
        (run-level failures raise :class:`IngestError` with their own code instead)."""
        if self.add_status.startswith("failed"):
            return 4
        if self.cognify_status.startswith("failed"):
            return 5
        return 1 if self.errors else 0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sessions_per_hour"] = round(self.sessions_per_hour, 1)
        data["wall_s"] = round(self.wall_s, 3)
        data["exit_code"] = self.exit_code
        if not self.dry_run:
            for key in ("plan", "plan_omitted", "would_distill", "estimated_input_tokens"):
                data.pop(key)
        return data


class Reporter(Protocol):
    """Progress sink (Rich bar on a TTY, log lines otherwise; see :mod:`memctl.cli`)."""

    def phase(self, name: str, total: int | None) -> None: ...
    def advance(self, n: int = 1) -> None: ...
    def log(self, message: str) -> None: ...
    def done(self) -> None: ...


class SilentReporter:
    """A reporter that shows nothing (library use and tests)."""

    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def log(self, message: str) -> None:
        pass

    def done(self) -> None:
        pass


@dataclass
class _InFlight:
    info: SessionInfo  # for a continuation: the continuation's own id and title
    title: str
    topic: str
    transcript: Transcript
    provenance: dict[str, Any]  # checkpoint fields: session_updated, covered_until, continuation_of
    root_update: dict[str, Any] | None = None  # applied to the root entry once a continuation is handled


def _newest_part_time(session: Session) -> int:
    """Newest part time (epoch ms) in a session tree; its creation time if it has no part."""
    times = [p.time_created for p in session.parts] + [_newest_part_time(c) for c in session.children]
    return max(times, default=session.info.time_created)


def _parts_after(session: Session, since_ms: int) -> Session | None:
    """The parts (and child sessions' parts) created after ``since_ms``; None when there are none."""
    children = [c for c in (_parts_after(child, since_ms) for child in session.children) if c is not None]
    parts = [p for p in session.parts if p.time_created > since_ms]
    if not parts and not children:
        return None
    return Session(info=session.info, parts=parts, children=children)


def _distill_with_retry(distiller: Distiller, text: str, attempts: int) -> DistillOutcome:
    last: DistillError | None = None
    for attempt in range(max(1, attempts)):
        try:
            return distiller.distill(text)
        except DistillError as exc:
            last = exc
            if not exc.retryable:  # e.g. a model that is not pulled will not appear by retrying
                break
            time.sleep(min(2.0, 0.25 * (attempt + 1)))
    assert last is not None
    raise last


class IngestRun:
    """One ingest run over one data home. Create, then call :meth:`run`.

    Raises (from :meth:`run`): IngestError with the exit code (3 source, 6 busy
    home, 2 refused option), SourceError subclasses are converted to it.
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

    def distill_phase(self) -> None:
        """Run phase 1 (or its dry-run plan). Fills ``self.summary``."""
        from connectors.opencode import SourceError

        opts, settings = self.options, self.settings
        try:
            source = OpenCodeSource(opts.db)
        except SourceError as exc:
            raise IngestError(str(exc), 3) from exc
        try:
            source.check_schema()
            registry = TopicRegistry(None) if opts.dry_run else TopicRegistry.load(self.home.root / "topics.json")
            checkpoint = Checkpoint(self.home.progress, self.home.skipped)
            prompt = load_prompt("distill")
            flt = self._filter(registry)
            filtered = self._filtered()
            self.reporter.phase("plan" if opts.dry_run else "distill", source.count_roots(flt))
            distiller = None if opts.dry_run else Distiller(settings, prompt)
            workers = max(1, settings.workers)
            pending: dict[Future, _InFlight] = {}
            preflight_done = False
            now_ms = int(time.time() * 1000)
            settle_ms = int(settings.settle_minutes * 60_000)
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="distill") as pool:
                for info in source.iter_root_infos(flt):
                    self.summary.found += 1
                    self.summary.orphaned_sessions += bool(info.parent_id)
                    if filtered:
                        self.selected_ids.append(info.id)
                    topic = registry.topic_for(info)
                    title = scrub(info.title).text  # titles can hold secrets too; never store them raw
                    decision = checkpoint.decide(
                        info.id, prompt_version=prompt.version,
                        reparse_skipped=opts.reparse_skipped, reparse_all=opts.reparse_all,
                        session_updated=info.time_updated, revert=info.revert_key,
                    )
                    age_ms = now_ms - info.time_updated
                    if decision.action != "done" and 0 <= age_ms < settle_ms:
                        # Still being worked on: its last turn may be half written. Next run takes it.
                        self.summary.deferred_active += 1
                        if opts.dry_run:
                            self.summary.add_plan(PlanItem(info.id, title, topic, "defer", "active: updated "
                                                           f"{age_ms // 1000} s ago (settle {settings.settle_minutes:g} min)"))
                        self.reporter.advance()
                        continue
                    if decision.action == "done":
                        self.summary.already_done += 1
                        if opts.dry_run:
                            self.summary.add_plan(PlanItem(info.id, title, topic, "done", decision.why))
                        self.reporter.advance()
                        continue
                    session = source.read_session(info)
                    root_update = None
                    if decision.action == "continue":
                        # The session grew after its note was accepted: distill only what is new into a
                        # continuation note, so the accepted note (and its content hash in Cognee) stays.
                        entry = checkpoint.entry(info.id)
                        since = _as_int(entry.get("covered_until") or entry.get("session_updated"), "covered_until")
                        newer = _parts_after(session, since)
                        if newer is None:  # only metadata (e.g. the title) changed
                            self.summary.already_done += 1
                            if opts.dry_run:
                                self.summary.add_plan(PlanItem(info.id, title, topic, "done", "no new parts"))
                            else:
                                checkpoint.update(info.id, session_updated=info.time_updated, revert=info.revert_key)
                            self.reporter.advance()
                            continue
                        number = _as_int(entry.get("continuations"), "continuations") + 1
                        cont_info = replace(info, id=f"{info.id}-cont{number}", title=info.title if
                                            info.title_is_placeholder else f"{info.title} (continued)")
                        session = Session(info=cont_info, parts=newer.parts, children=newer.children)
                        title = f"{title} (continued)"
                        root_update = {"session_updated": info.time_updated, "continuations": number,
                                       "revert": info.revert_key}
                    work_info = session.info
                    covered = _newest_part_time(session)
                    provenance = {"session_updated": info.time_updated, "covered_until": covered}
                    if info.revert_key:
                        provenance["revert"] = info.revert_key  # a changed undo re-evaluates the session
                    if root_update is not None:
                        provenance["continuation_of"] = info.id
                        root_update["covered_until"] = covered
                    transcript = build_transcript(session, settings)
                    self.redactions.update(transcript.redactions)
                    self.transcript_warnings.update(transcript.read_warnings)
                    self.compacted_outputs += transcript.compacted_outputs
                    if work_info.title_is_placeholder or not work_info.title.strip():
                        title = transcript.title or title  # the first user text names it
                    if transcript.skip_reason:
                        self.summary.skipped_threshold += 1
                        if opts.dry_run:
                            self.summary.add_plan(PlanItem(work_info.id, title, topic, "skip", transcript.skip_reason))
                        else:
                            checkpoint.mark_skipped(
                                work_info.id, reason=transcript.skip_reason, skip_kind="threshold",
                                title=title, topic=topic, prompt_version=prompt.version, **provenance,
                            )
                            if root_update is not None:
                                self._finish_continuation(checkpoint, _InFlight(
                                    work_info, title, topic, transcript, provenance, root_update), accepted=False)
                        self.reporter.advance()
                        continue
                    self.summary.estimated_input_tokens += transcript.estimated_tokens
                    if opts.dry_run:
                        self.summary.add_plan(
                            PlanItem(work_info.id, title, topic, "distill", decision.why, transcript.estimated_tokens)
                        )
                        self.reporter.advance()
                        continue
                    job = _InFlight(work_info, title, topic, transcript, provenance, root_update)
                    if not opts.reparse_all and self._recover_note(checkpoint, job, prompt.version):
                        self.reporter.advance()
                        continue
                    if not preflight_done:
                        # One check before the first model call: a stopped Ollama or a missing model
                        # fails the run at once instead of marking every session as an error.
                        try:
                            distiller.preflight()
                        except DistillError as exc:
                            raise IngestError(str(exc), 9) from exc
                        preflight_done = True
                    atomic_write_text(self.home.transcript_path(work_info.id), transcript.text)
                    future = pool.submit(_distill_with_retry, distiller, transcript.text, settings.max_attempts_per_run)
                    pending[future] = job
                    # Bounded in-flight work keeps memory flat however many sessions stream by.
                    while len(pending) >= workers * 2:
                        self._drain(pending, checkpoint)
                while pending:
                    self._drain(pending, checkpoint)
            if not opts.dry_run:
                registry.save()
        except SourceError as exc:
            raise IngestError(str(exc), _source_exit_code(exc)) from exc
        finally:
            warnings = Counter(source.stats.skip_counts()) + self.transcript_warnings
            self.summary.read_warnings = dict(sorted(warnings.items()))
            self.summary.left_out = source.stats.left_out_counts() | (
                {"compacted_tool_outputs": self.compacted_outputs} if self.compacted_outputs else {})
            self.summary.redactions = dict(sorted(self.redactions.items()))
            source.close()

    def _recover_note(self, checkpoint: Checkpoint, job: _InFlight, version: str) -> bool:
        """Take over a note a killed run wrote but did not record (same transcript, same prompt)."""
        path = self.home.note_path(job.info.id)
        if not path.exists():
            return False
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        meta = read_note_meta(text)
        if meta.get("transcript_sha256") != job.transcript.sha256 or str(meta.get("prompt_version")) != version:
            return False
        checkpoint.mark_distilled(
            job.info.id, topic=job.topic, title=job.title, prompt_version=version, model=meta.get("model", ""),
            transcript_sha256=job.transcript.sha256, note_sha256=sha256_text(text), **job.provenance,
        )
        self._finish_continuation(checkpoint, job)
        self.summary.recovered += 1
        self.summary.distilled += 1
        return True

    @staticmethod
    def _finish_continuation(checkpoint: Checkpoint, job: _InFlight, *, accepted: bool = True) -> None:
        """Advance the root's coverage after a continuation was handled.

        A skipped continuation (too small, or JUNK) does not advance it: its parts
        stay pending and are distilled together with whatever the session adds next,
        under the same continuation number.
        """
        if job.root_update is None:
            return
        root = job.provenance["continuation_of"]
        if accepted:
            checkpoint.update(root, **job.root_update)
        else:
            checkpoint.update(root, session_updated=job.root_update["session_updated"],
                              revert=job.root_update["revert"])

    def _supersede_continuations(self, checkpoint: Checkpoint, root_id: str) -> int:
        """After a full re-distill (--reparse-all) the new note covers the whole session:
        drop its continuation notes so their content is not added twice. Returns the
        highest continuation number used, so later continuations never reuse a name."""
        highest = _as_int(checkpoint.entry(root_id).get("continuations"), "continuations")
        for cont_id in checkpoint.remove_continuations(root_id):
            self.home.note_path(cont_id).unlink(missing_ok=True)
            self.home.transcript_path(cont_id).unlink(missing_ok=True)
        return highest

    def _drain(self, pending: dict[Future, _InFlight], checkpoint: Checkpoint) -> None:
        """Record every finished model call (waits for at least one)."""
        done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
        for future in done:
            job = pending.pop(future)
            self._record(job, future, checkpoint)
            self.reporter.advance()

    def _record(self, job: _InFlight, future: Future, checkpoint: Checkpoint) -> None:
        info, topic, transcript = job.info, job.topic, job.transcript
        base = {"topic": topic, "title": job.title, "transcript_sha256": transcript.sha256, **job.provenance}
        try:
            outcome: DistillOutcome = future.result()
        except DistillError as exc:
            self.summary.errors += 1
            self.summary.error_details.append({"source_id": info.id, "error": str(exc)})
            checkpoint.mark_error(info.id, error=str(exc), **base)
            self.reporter.log(f"error: session {info.id}: {exc}")
            return
        base |= {"prompt_version": outcome.prompt_version, "model": outcome.model}
        if outcome.junk:
            self.summary.skipped_junk += 1
            checkpoint.mark_skipped(info.id, reason="model answered JUNK", skip_kind="junk", **base)
            self._finish_continuation(checkpoint, job, accepted=False)
            return
        if transcript.title is None:  # a placeholder, and no user text to name it: the summary does
            base["title"] = summary_title(outcome.body) or job.title
        note = render_note(
            info, topic=topic, outcome=outcome, transcript_sha256=transcript.sha256,
            child_session_ids=transcript.child_session_ids, continuation_of=job.provenance.get("continuation_of"),
            title=base["title"], original_title=transcript.original_title,
        )
        atomic_write_text(self.home.note_path(info.id), note)
        if self.options.reparse_all and job.root_update is None:
            base["continuations"] = self._supersede_continuations(checkpoint, info.id)
        checkpoint.mark_distilled(info.id, note_sha256=sha256_text(note), **base)
        self._finish_continuation(checkpoint, job)
        self.summary.distilled += 1

    # -- publish into the store -----------------------------------------------------

    def publish_notes(self) -> None:
        """Make ``memory/<topic>/<source-id>.md`` in the store mirror the accepted notes.

        The store's ``memory/`` prefix is the ground truth that ask reads and
        the graph is built from; only this actor (``ingest``) may write it, and
        every change is versioned and audited. Idempotent: unchanged notes are
        store no-ops, so it also completes the work of a run killed between
        writing a note and publishing it. Notes no longer accepted (continuations
        superseded by --reparse-all) are deleted from ``memory/`` (a versioned
        tombstone). Caller holds the data-home lock.
        """
        from memctl.store import MemoryStore

        store = MemoryStore(self.home.store)
        checkpoint = Checkpoint(self.home.progress, self.home.skipped)
        wanted: dict[str, Path] = {}
        for sid, entry in sorted(checkpoint.sources.items()):
            note = self.home.note_path(sid)
            if entry.get("status") == "distilled" and note.exists():
                wanted[self.memory_path(entry.get("topic") or "misc", sid)] = note
        for store_path, note in wanted.items():
            text = note.read_text(encoding="utf-8")
            current = store.sha(store_path)
            if current != sha256_text(text):
                store.write_text(store_path, text, expected_sha=current, actor="ingest",
                                 reason=f"distilled note of session {note.stem}"
                                 + (" (re-distilled)" if current else ""))
                self.summary.notes_published += 1
        for store_path in store.list("memory"):
            if store_path not in wanted:
                store.delete(store_path, expected_sha=None, actor="ingest",
                             reason="note no longer accepted (superseded by a re-distilled note)")
                self.summary.notes_unpublished += 1

    def _publish_or_fail(self) -> None:
        from memctl.store import AuditIntegrityError, StoreError

        try:
            self.publish_notes()
            self.refresh_indexes()
        except AuditIntegrityError as exc:
            raise IngestError(str(exc), 10) from exc
        except (StoreError, OSError) as exc:
            raise IngestError(f"publishing notes into {self.home.store} failed: {exc}", 7) from exc

    def refresh_indexes(self) -> None:
        """Rewrite the topic index and bring each topic's BM25 note index up to date, so that
        `memctl ask` (routing, provenance, raw-notes fallback) never pays for a rebuild."""
        from memctl.note_search import NoteSearch
        from memctl.store import MemoryStore
        from memctl.topic_index import build_topic_index

        index = build_topic_index(self.home)
        index.save(self.home.topic_index)
        search = NoteSearch(MemoryStore(self.home.store), self.home.note_index)
        for topic in index.slugs:
            search.index_for(topic)

    @staticmethod
    def memory_path(topic: str, source_id: str) -> str:
        """Store path of a session's note: ``memory/<topic>/<source-id>.md``."""
        return f"memory/{topic}/{source_id}.md"

    # -- phases 2 and 3 -----------------------------------------------------------

    def _notes_by_topic(self) -> dict[str, list[Path]]:
        """Selected persisted notes grouped by topic (all notes when no filter was given)."""
        checkpoint = Checkpoint(self.home.progress, self.home.skipped)
        if self._filtered() and self.options.phase in ("add", "cognify"):
            self.selected_ids = self._select_ids()
        if self._filtered():
            selected = set(self.selected_ids)
            ids = [sid for sid, entry in checkpoint.sources.items()
                   if sid in selected or entry.get("continuation_of") in selected]
        else:
            ids = [sid for sid, entry in checkpoint.sources.items() if entry.get("status") == "distilled"]
        groups: dict[str, list[Path]] = {}
        for sid in sorted(set(ids)):
            entry = checkpoint.entry(sid)
            topic = entry.get("topic") or "misc"
            # Cognee reads the published copy: the graph is built from the store's ground truth.
            path = self.home.store / self.memory_path(topic, sid)
            if entry.get("status") == "distilled" and path.exists():
                groups.setdefault(topic, []).append(path)
        return groups

    def _select_ids(self) -> list[str]:
        """Root ids the filters select, without reading any part (for --phase add/cognify)."""
        from connectors.opencode import SourceError

        try:
            source = OpenCodeSource(self.options.db)
        except SourceError as exc:
            raise IngestError(str(exc), 3) from exc
        try:
            source.check_schema()
            registry = TopicRegistry.load(self.home.root / "topics.json")
            return [info.id for info in source.iter_root_infos(self._filter(registry))]
        except SourceError as exc:
            raise IngestError(str(exc), _source_exit_code(exc)) from exc
        finally:
            source.close()

    def graph_phases(self) -> None:
        """Run add and/or cognify as the phase option says. Failures set the summary status."""
        from memctl import knowledge_graph

        groups = self._notes_by_topic()
        self.summary.datasets = sorted(groups)
        if not groups:
            self.summary.add_status = self.summary.cognify_status = "nothing to do"
            return
        knowledge_graph.configure(self.settings, self.home)
        # One event loop for all Cognee work: it keeps loop-bound resources between calls.
        knowledge_graph.run_sync(self._graph_phases_async(groups))

    def _check_graph_models(self) -> None:
        """Fail at once, with the `ollama pull` line, when Cognee's models are missing:
        Cognee itself would report it only after minutes of retries, buried in its logs."""
        from memctl.distill import DistillError, Distiller

        for model in dict.fromkeys((self.settings.graph_model, self.settings.embedding_model)):
            checker = Distiller(self.settings.model_copy(update={"distill_model": model}))
            try:
                checker.preflight()
            except DistillError as exc:
                raise IngestError(str(exc), 9) from exc
        # A wrong dimension would be written into Cognee's vector collections and
        # poison the data home for every later run; refuse before anything is stored.
        try:
            vectors = checker.client.embed(model=self.settings.embedding_model, input=["memctl dimension probe"])
            dims = len(vectors.embeddings[0])
        except Exception as exc:  # noqa: BLE001 - reported with the fix, never a traceback
            raise IngestError(f"embedding probe with {self.settings.embedding_model!r} failed: {exc}", 9) from exc
        if dims != self.settings.embedding_dimensions:
            raise IngestError(
                f"{self.settings.embedding_model!r} returns {dims}-dimensional vectors but embedding_dimensions is "
                f"{self.settings.embedding_dimensions}; set MEMCTL_EMBEDDING_DIMENSIONS={dims} (see `memctl doctor`)",
                9,
            )

    async def _graph_phases_async(self, groups: dict[str, list[Path]]) -> None:
        from memctl import knowledge_graph

        opts, settings = self.options, self.settings
        if opts.phase in ("all", "add"):
            self.reporter.phase("add", sum(len(p) for p in groups.values()))
            try:
                for topic, paths in sorted(groups.items()):
                    before = await knowledge_graph.dataset_data_count(topic)
                    result = await knowledge_graph.add_notes(topic, paths, settings.batch_size)
                    # Cognee deduplicates by content hash: report what is new, not what was offered.
                    self.summary.notes_submitted += len(paths)
                    self.summary.notes_added += max(0, result.data_count - before)
                    self.reporter.advance(len(paths))
                self.summary.add_status = "ok"
            except knowledge_graph.GraphMemoryError as exc:
                self.summary.add_status = f"failed: {exc}"
                self.reporter.log(f"add failed: {exc}")
                return  # cognify over a partial add would hide the failure
        if opts.phase in ("all", "cognify"):
            self.reporter.phase("cognify", len(groups))
            try:
                await knowledge_graph.cognify(sorted(groups), settings.chunks_per_batch, settings.data_per_batch)
                self.reporter.advance(len(groups))
                self.summary.cognify_status = "ok"
            except knowledge_graph.GraphMemoryError as exc:
                self.summary.cognify_status = f"failed: {exc}"
                self.reporter.log(f"cognify failed: {exc}")

    def _refuse_reparse_all_into_used_datasets(self) -> None:
        from memctl import knowledge_graph

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
                2,
            )

    def _check_source_exists(self) -> None:
        from connectors.opencode import SourceError

        try:
            OpenCodeSource(self.options.db).close()
        except SourceError as exc:
            raise IngestError(str(exc), _source_exit_code(exc)) from exc

    def _remove_stale_temp_files(self) -> None:
        """Delete temp files a killed run left mid-write (safe: we hold the data-home lock)."""
        for directory in (self.home.transcripts, self.home.distilled, self.home.root):
            if directory.is_dir():
                for stale in directory.glob(".*.tmp"):
                    stale.unlink(missing_ok=True)

    # -- run -----------------------------------------------------------------------

    def run(self) -> IngestSummary:
        """Execute the selected phases and return the summary (see its ``exit_code``)."""
        from filelock import FileLock, Timeout

        started = time.monotonic()
        opts = self.options
        if opts.phase not in PHASES:
            raise IngestError(f"unknown phase {opts.phase!r}; choose one of {', '.join(PHASES)}", 2)
        if opts.dry_run:
            self.distill_phase()
        else:
            if opts.phase in ("all", "distill"):
                self._check_source_exists()  # before anything is created in the data home
            if self.home.root.exists() and not self.home.root.is_dir():
                raise IngestError(f"the data home {self.home.root} is a file; pass --home DIR (or MEMCTL_HOME) "
                                  "naming a directory", 7)
            self.home.root.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.home.lock))
            try:
                lock.acquire(timeout=-1 if opts.wait else 0)
            except Timeout as exc:
                raise IngestError(
                    f"another memctl run (ingest or sleep) is using {self.home.root} (lock {self.home.lock}); "
                    "wait for it to finish, or pass --wait",
                    6,
                ) from exc
            try:
                self._remove_stale_temp_files()
                if opts.reparse_all and opts.phase in ("all", "distill"):
                    self._refuse_reparse_all_into_used_datasets()
                if opts.phase in ("all", "add", "cognify"):
                    self._check_graph_models()  # before hours of distilling, not after
                if opts.phase in ("all", "distill"):
                    self.distill_phase()
                self._publish_or_fail()
                if opts.phase in ("all", "add", "cognify"):
                    self.graph_phases()
            finally:
                lock.release()
        self.summary.wall_s = time.monotonic() - started
        self.reporter.done()
        return self.summary


def _as_int(value: Any, field_name: str) -> int:
    """A number stored in progress.json; a damaged value is a CheckpointError (exit 7), not a crash."""
    from memctl.progress import CheckpointError

    try:
        return int(value or 0)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"progress.json holds {field_name}={value!r}, not a number; restore the file or "
                              "move it aside (sessions will then be re-evaluated)") from exc


def _source_exit_code(exc: Exception) -> int:
    """3 for a source problem; 2 for an unknown ``--session`` id (the user's input)."""
    from connectors.opencode import UnknownSessionError

    return 2 if isinstance(exc, UnknownSessionError) else 3


def parse_since(value: str) -> datetime:
    """Parse ``--since``: ISO date/datetime (``2026-11-01``, ``2026-11-01T08:00``) or a
    relative age (``7d``, ``12h``, ``30m``). Returns an aware UTC datetime.

    Raises:
        ValueError: with an example of the accepted forms.
    """
    value = value.strip()
    units = {"d": 86400, "h": 3600, "m": 60}
    if value[-1:] in units and value[:-1].isdigit():
        try:
            return datetime.fromtimestamp(time.time() - int(value[:-1]) * units[value[-1]], tz=timezone.utc)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(f"--since {value!r} reaches before the year 1; use a smaller age or a date") from exc
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"cannot read --since {value!r}: use a date like 2026-11-01, a time like 2026-11-01T08:00, or an age like 7d / 12h") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
