"""The sleep cycle (`memctl sleep`): load → promote → cluster → consolidate → rebuild → done.

Slow, careful work off the interactive path (README, "Sleep: memctl sleep"):

* **load** — the proposals waiting in ``staging/sessions/<session>/inbox/``.
* **promote** — each through ONE gate, :func:`memctl.validator.core.validate_proposal`:
  rejected → ``staging/rejected/<session>/<id>.json`` with the reason;
  accepted → promoted to ``user/…`` (actor ``sleep``, reason naming the
  proposal and its origin), or *held* in the review queue
  (:mod:`memctl.sleep.review_queue`) when :func:`memctl.sleep.trust.decide`
  says a person must decide (an agent's action-bearing or superseding
  proposal); the inbox file is then deleted (a versioned tombstone).
  Promotion renders the memory deterministically (provenance included), so
  a run killed between the two steps repeats as a no-op.
* **cluster** — related memories of one scope (:mod:`memctl.sleep.clustering`).
  First, consolidated memories whose recorded members still exist unchanged
  (a run killed while applying) have those members deleted.
* **consolidate** — each cluster of 2+ through the model, ``concurrency`` at
  a time (:func:`memctl.sleep.consolidate.consolidate`, cached by content) on
  the engine chosen (:mod:`memctl.sleep.engines.select`: a local thread pool, or Flyte
  tasks); each
  result is applied as it arrives: the merged memory must keep the members'
  substance, add no URL, host, command or package they lacked, and pass the
  validator like a proposal (:func:`memctl.validator.merge_gate.check_merged`);
  then it is written to ``<scope>/consolidated-<key>.md`` with every member's
  provenance and the members deleted (versioned) — or, when it is
  action-bearing and a member was not a person's choice, held for review
  (:func:`memctl.sleep.trust.decide_merge`). A cluster that fails either check keeps its
  members, is listed in ``clusters_failed`` with the reason (exit 1), its
  cache entry is dropped, and the next sleep tries it again.
* **rebuild** — every topic whose user memories changed: merged-away files
  removed from its Cognee dataset, current ones added, cognify — in
  parallel with bounded concurrency; a failing topic is reported and stays
  pending for the next run (``<home>/sleep_state.json``), the others go on.

Ingest and sleep share one exclusive lock on the data home. Everything is
reported live (Rich on a TTY) and to ``<home>/reports/sleep-<ts>.html|json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.config import DataHome, Settings
from memctl.reporting import Reporter, SilentReporter
from memctl.sleep.engines.select import select_engine
from memctl.sleep.report import SleepReport
from memctl.sleep.review_queue import ReviewEntry, hold, queue_size
from memctl.sleep.state import SleepError, SleepState, recorded_members
from memctl.sleep.summary import SleepSummary
from memctl.state_file import decode_json
from memctl.store import (
    ABSENT_SHA,
    ConcurrencyError,
    InvalidPathError,
    MemoryStore,
    MissingFileError,
    ReadOnlyPrefixError,
    StoreError,
)
from memctl.store.user_memory import UserMemoryFile, parse_memory, render_memory
from memctl.store.versions import sha256_text

if TYPE_CHECKING:
    from memctl.sleep.clustering import Cluster
    from memctl.validator.core import ValidationLimits

# A no-op sleep must stay under a second cold: the validator (~0.45 s), clustering, consolidation and Cognee are
# imported where used (bench/bench_cold_start.py measures it; tests/sleep/test_sleep_cold_start.py checks the modules).


HELD = "held for review"  # the detail _promote_accepted returns for a held proposal


@dataclass
class SleepOptions:
    """``concurrency`` None → ``settings.sleep_concurrency``; ``wait`` → block on the data-home lock;
    ``engine`` None → ``settings.sleep_engine`` (:mod:`memctl.sleep.engines.select`)."""

    concurrency: int | None = None
    wait: bool = False
    rebuild: bool = True
    engine: str | None = None


class SleepRun:
    """One sleep cycle over a data home. :meth:`run` returns the summary; see the module doc."""

    def __init__(self, settings: Settings, options: SleepOptions | None = None, reporter: Reporter | None = None):
        self.settings = settings
        self.options = options or SleepOptions()
        self.reporter = reporter or SilentReporter()
        self.home = DataHome(settings.home)
        self.store = MemoryStore(self.home.store)
        self.summary = SleepSummary()
        self._limits: ValidationLimits | None = None
        # Chosen before the lock is taken: a missing extra is a usage error, not a failed run.
        self.engine = select_engine(self.options.engine or settings.sleep_engine, settings)

    @property
    def limits(self) -> ValidationLimits:
        """The validator's limits from the settings (the validator is imported on first use)."""
        if self._limits is None:
            from memctl.validator.core import ValidationLimits

            self._limits = ValidationLimits.from_settings(self.settings)
        return self._limits

    # -- run ---------------------------------------------------------------------------------------

    def run(self) -> SleepSummary:
        """Take the data-home lock, run every phase, write the report.

        Raises:
            SleepError: the lock is held by another run (6, unless ``wait``), or
                the data home is unusable (7).
        """
        started = time.monotonic()
        with self.home.lock(wait=self.options.wait, error=SleepError):
            state = SleepState(self.home.sleep_state)
            report = SleepReport(self.home.reports, self.home.root, engine=self.engine.name)
            self.summary.report_html, self.summary.report_json = str(report.html_path), str(report.json_path)
            try:
                self._phases(report, state)
                self.summary.review_queue = queue_size(self.store)
                status = "done"
            except BaseException:
                status = "failed"
                raise
            finally:
                self.summary.wall_s = time.monotonic() - started
                report.complete(self.summary.as_dict(), self.summary.wall_s, status)
        self.reporter.done()
        return self.summary

    def _phases(self, report: SleepReport, state: SleepState) -> None:
        inbox = self._load(report)
        warm = self._start_graph(bool(inbox))
        try:
            self._promote(report, state, inbox)
            clusters = self._cluster(report, state)
            warm = warm or self._start_graph(bool(clusters or state.dirty))
            self._consolidate(report, state, clusters)
            self._rebuild(report, state)
        finally:
            if warm is not None:
                warm.wait()
        report.start("done")
        report.finish("done")

    def _start_graph(self, likely: bool):  # noqa: ANN202 - BackgroundConfigure | None
        """Start Cognee's import (6–8 s cold) on a thread when this run will likely rebuild a topic, so it
        overlaps promotion and the consolidation calls instead of following them. A run with nothing to
        promote, merge or rebuild never imports Cognee."""
        if not (likely and self.options.rebuild) or self._graph_models_problem() is not None:
            return None  # without the models the rebuild is skipped: Cognee's configure would only wait
        from memctl.graph import knowledge_graph
        from memctl.graph.configure import BackgroundConfigure

        return BackgroundConfigure(self.settings, self.home, knowledge_graph.configure)

    # -- load and promote --------------------------------------------------------------------------

    def _load(self, report: SleepReport) -> list[str]:
        report.start("load")
        self.reporter.phase("load", None)
        # A change a killed run committed but did not apply is applied first (the store's own repair).
        repaired = self.store.recover() if self.store.root.exists() else None
        if repaired is not None and repaired.rolled_forward:
            self.reporter.log(f"store: applied {repaired.rolled_forward} left by an interrupted run")
        inbox = [p for p in self.store.list("staging/sessions") if "/inbox/" in p and p.endswith(".json")]
        self.summary.proposals = len(inbox)
        report.finish("load", proposals=len(inbox))
        return inbox

    def _promote(self, report: SleepReport, state: SleepState, inbox: list[str]) -> None:
        report.start("promote")
        self.reporter.phase("promote", len(inbox))
        self._known = self._memories() if inbox else []
        for staged in inbox:
            try:
                self._promote_one(report, state, staged)
            except StoreError as exc:
                self.summary.errors.append(f"{staged}: {exc}")
                report.error("promote", f"{staged}: {exc}")
            self.reporter.advance()
        report.finish("promote", promoted=self.summary.promoted, rejected=self.summary.rejected,
                      held=self.summary.held, review_queue=queue_size(self.store) if inbox else None,
                      **{f"rejected {k}": v for k, v in sorted(self.summary.rejected_reasons.items())})

    def _promote_one(self, report: SleepReport, state: SleepState, staged: str) -> None:
        parts = staged.split("/")  # staging/sessions/<session>/inbox/<id>.json
        session, stem = parts[2], Path(parts[-1]).stem
        raw = (self.store.root / staged).read_bytes()  # bytes: the validator judges encoding too
        staged_sha = self.store.sha(staged)
        from memctl.validator.core import validate_proposal

        verdict = validate_proposal(raw, limits=self.limits)
        proposal_id = verdict.proposal_id or stem
        reason, detail = verdict.reason, verdict.detail
        if verdict.ok:
            reason, detail = self._promote_accepted(report, state, verdict, raw, session, proposal_id, staged)
        if reason is not None:
            self._archive_rejected(report, raw, session, stem, proposal_id, staged, reason, detail)
        outcome = "rejected" if reason else ("held for review" if detail == HELD else "promoted")
        self.store.delete(staged, expected_sha=staged_sha, actor="sleep", reason=f"proposal {proposal_id} {outcome}")

    def _promote_accepted(self, report: SleepReport, state: SleepState, verdict, raw: bytes, session: str,
                          proposal_id: str, staged: str) -> tuple[str | None, str]:
        """Write a validated proposal into ``user/``, or hold it for review; returns ``(reason, detail)`` when it
        must be rejected after all, ``(None, HELD)`` when it was held, ``(None, "")`` when promoted.

        Held (:func:`memctl.sleep.trust.decide`): an agent's action-bearing proposal, or one that would
        supersede an existing memory (the same path, or the same subject in its scope).

        Beyond the validator (which judges one proposal alone), promotion checks it against the store:
        a session-scoped target must be the inbox's own session (an inbox cannot write another
        session's memories); the target is a new ``.md`` file (a proposal never overwrites a trusted
        memory — a repeat after a crash, same content, is fine); the statement time is not in the
        future (it decides who wins a contradiction).
        """
        from memctl.sleep.corroboration import session_transcript
        from memctl.sleep.trust import decide
        from memctl.store.provenance import Provenance

        path = verdict.path
        scope = path.split("/")
        if scope[1] == "sessions" and (len(scope) < 4 or scope[2] != session):
            return "target_other_session", f"{path} belongs to another session than the inbox's ({session})"
        if scope[1] == "topics" and len(scope) < 4:
            return "bad_path", f"{path} names no topic directory"
        if not path.endswith(".md"):
            return "target_not_markdown", f"{path}: memories are Markdown files (.md)"
        proposal = decode_json(raw)
        created = _sane_time(proposal.get("created"))
        kind = proposal.get("kind") if proposal.get("kind") in ("preference", "decision", "note") else "note"
        topic = scope[2] if scope[1] == "topics" else None
        provenance = Provenance.from_dict(proposal.get("provenance"), session=session, time=created)
        if provenance.origin == "person" and not self._staged_by_person(staged):
            provenance = replace(provenance, origin="agent")
        text = verdict.content or ""
        trust = decide(text, origin=provenance.origin, path=path, memories=self._known, transcript=session_transcript(self.home, session))
        content = render_memory(text, kind=kind, created=created, session=session, topic=topic,
                                extra={"proposal": proposal_id, "source": str(proposal.get("source") or ""),
                                       "provenance": provenance.as_dict(),
                                       **({"action": list(trust.action)} if trust.action else {})})
        current = self.store.sha(path) if self._addressable(path) else None
        if trust.held and current != sha256_text(content):
            self._hold(report, ReviewEntry(
                id=proposal_id, kind="proposal", session=session, path=path, content=text, memory_kind=kind,
                created=created, topic=topic, provenance=provenance.as_dict(), reasons=list(trust.reasons),
                action=list(trust.action), extra={"source": str(proposal.get("source") or "")},
                supersedes=[{"path": m.path, "sha": m.sha, "text": m.text} for m in trust.superseded]))
            return None, HELD
        if current is not None and current != sha256_text(content):
            return "target_exists", f"{path} already holds a memory; a proposal never overwrites one"
        if topic:
            state.mark(topic)
        try:
            self.store.write_text(path, content, expected_sha=current or ABSENT_SHA, actor="sleep",
                                  reason=f"promote proposal {proposal_id} (session {session}); provenance: "
                                         f"{provenance.describe()}" + (f"; action-bearing ({', '.join(trust.action)}), "
                                                                      "a person's choice" if trust.action else ""))
        except (InvalidPathError, ReadOnlyPrefixError) as exc:
            return "store_refused", str(exc)
        self.summary.promoted += 1
        self._known.append(parse_memory(path, sha256_text(content), content))
        report.add("promoted", {"id": proposal_id, "session": session, "path": path, "content": verdict.content,
                                "origin": provenance.origin, "action": ", ".join(trust.action)})
        return None, ""

    def _staged_by_person(self, staged: str) -> bool:
        """A proposal's ``origin: person`` holds only when the store's own record of the staged file says so:
        its last write by ``memctl remember`` on a terminal. A file dropped into the inbox, or written by
        any other actor, is an agent's whatever its JSON claims."""
        last = next(reversed(self.store.history(staged)), None)
        return bool(last and last.op == "write" and last.actor == "remember" and "origin person" in last.reason)

    def _hold(self, report: SleepReport, entry: ReviewEntry) -> None:
        """Put ``entry`` in the review queue and count it (by its first reason's kind) unless it already waits."""
        if not hold(self.store, entry):
            return  # already waiting from an earlier run
        self.summary.held += 1
        code = entry.reasons[0].split(":")[0] if entry.reasons else "review"
        self.summary.held_reasons[code] = self.summary.held_reasons.get(code, 0) + 1
        report.add("held", {"id": entry.id, "kind": entry.kind, "session": entry.session, "path": entry.path,
                            "reasons": ", ".join(entry.reasons), "content": entry.content})

    def _addressable(self, path: str) -> bool:
        try:
            self.store.resolve(path)
            return True
        except StoreError:
            return False

    def _archive_rejected(self, report: SleepReport, raw: bytes, session: str, stem: str, proposal_id: str,
                          staged: str, reason: str, detail: str) -> None:
        # A secret never gets a second copy: the archive keeps the reason, not the text.
        original = ("[withheld: the proposal contained secret material]" if reason.startswith("secret")
                    else raw.decode("utf-8", errors="replace"))
        archive = {"proposal_id": proposal_id, "session": session, "reason": reason, "detail": detail,
                   "staged": staged, "original": original}
        self.store.write_text(f"staging/rejected/{session}/{stem}.json",
                              json.dumps(archive, indent=2, ensure_ascii=False) + "\n", actor="sleep",
                              reason=f"reject proposal {proposal_id}: {reason}")
        self.summary.rejected += 1
        code = reason.split(":")[0]
        self.summary.rejected_reasons[code] = self.summary.rejected_reasons.get(code, 0) + 1
        report.add("rejected", {"id": proposal_id, "session": session, "reason": reason, "detail": detail,
                                "preview": original[:300]})

    # -- cluster and consolidate -------------------------------------------------------------------

    def _memories(self) -> list[UserMemoryFile]:
        memories = []
        for path in self.store.list("user"):
            if not path.endswith(".md"):
                continue
            try:
                content, sha = self.store.read_text(path)
            except StoreError:
                continue
            memories.append(parse_memory(path, sha, content))
        return memories

    def _finish_interrupted_applies(self, report: SleepReport, state: SleepState) -> None:
        """A consolidated memory whose members still exist unchanged, with no change recorded to them
        since the merge was written: a run was killed mid-apply. (A member restored or edited after
        the merge — e.g. by ``memctl rollback`` — is the user's choice and is left alone.)"""
        for path in self.store.list("user"):
            if "/consolidated-" not in path:
                continue
            try:
                content, _sha = self.store.read_text(path)
            except StoreError:
                continue
            candidates = []
            for member in recorded_members(content):
                try:
                    if self.store.sha(member["path"]) == member["sha"]:
                        candidates.append((member["path"], member["sha"]))
                except StoreError:
                    continue  # not a file the store can address (any more): nothing to finish
            if not candidates:
                continue  # the usual case: every member is gone; no audit-log scan needed
            merged_at = min((v.seq for v in self.store.history(path)), default=0)
            leftovers = [(p, sha) for p, sha in candidates
                         if not any(v.seq > merged_at for v in self.store.history(p))]
            if not leftovers:
                continue
            dataset = parse_memory(path, "", content).dataset
            if dataset:
                state.mark(dataset, [str(self.store.root / p) for p, _ in leftovers])
            for member_path, member_sha in leftovers:
                try:
                    self.store.delete(member_path, expected_sha=member_sha, actor="sleep",
                                      reason=f"merged into {path} (finishing an interrupted sleep)")
                except MissingFileError:
                    pass  # gone meanwhile: nothing left to finish
                except ConcurrencyError as exc:
                    if exc.current_sha is not None:  # changed by someone else: keep it, say so
                        self.summary.errors.append(f"{member_path} changed since it was merged; kept: {exc}")
                        continue
                self.summary.memories_merged += 1
            self.summary.interrupted_applies_finished += 1
            self.reporter.log(f"finished an interrupted merge into {path} ({len(leftovers)} member(s))")

    def _cluster(self, report: SleepReport, state: SleepState) -> list[Cluster]:
        report.start("cluster")
        self.reporter.phase("cluster", None)
        self._finish_interrupted_applies(report, state)
        memories = self._memories()
        if len(memories) < 2:
            clustered = []  # nothing to relate: the clustering module stays unloaded
        else:
            from memctl.sleep.clustering import cluster_memories

            clustered = cluster_memories(memories)
        clusters = [c for c in clustered
                    if len(c.members) >= 2 and not state.is_declined([m.path for m in c.members])]
        self.summary.clusters_found = len(clusters)
        report.finish("cluster", clusters=len(clusters), memories_in_clusters=sum(len(c.members) for c in clusters),
                      interrupted_merges_finished=self.summary.interrupted_applies_finished)
        return clusters

    def _consolidate(self, report: SleepReport, state: SleepState, clusters: list[Cluster]) -> None:
        report.start("consolidate")
        self.reporter.phase("consolidate", len(clusters))
        if not clusters:  # nothing to send: the consolidation module and its model client stay unloaded
            report.engine_run(self.engine.run_url)
            report.finish("consolidate", consolidated=0, merged=self.summary.memories_merged, model_calls=0,
                          cache_hits=0)
            return
        from memctl.sleep.consolidate import is_cached, task_for

        cache_dir = self.home.consolidate_cache
        if any(not is_cached(task_for(c), self.settings, cache_dir) for c in clusters) and not self._model_ready(report):
            report.finish("consolidate", skipped=len(clusters))
            return
        concurrency = self.options.concurrency or self.settings.sleep_concurrency
        outcomes = self.engine.consolidate([task_for(c) for c in clusters], settings=self.settings, cache_dir=cache_dir,
                                           concurrency=concurrency, log=self.reporter.log,
                                           note=f"{self.summary.proposals} proposal(s): {self.summary.promoted} "
                                                f"promoted, {self.summary.held} held for review, "
                                                f"{self.summary.rejected} rejected; "
                                                f"{len(clusters)} cluster(s) to consolidate")
        try:
            with contextlib.closing(outcomes):
                for index, future in outcomes:
                    self._apply(report, state, clusters[index], future)
                    self.reporter.advance()
        finally:
            report.engine_run(self.engine.run_url)
        report.finish("consolidate", consolidated=self.summary.clusters_consolidated,
                      merged=self.summary.memories_merged, model_calls=self.summary.model_calls,
                      cache_hits=self.summary.cache_hits)

    def _model_ready(self, report: SleepReport) -> bool:
        from memctl.ollama_client import ModelError, check_model, client_for

        model_settings = self.engine.model_settings(self.settings)
        if model_settings is None:
            return True  # the engine's tasks reach a model this machine may not: their errors are per cluster
        try:
            check_model(client_for(model_settings, 30), model_settings, model_settings.consolidate_model, 30)
            return True
        except ModelError as exc:
            self.summary.model_unavailable = str(exc)
            report.error("consolidate", f"consolidation skipped: {exc}")
            self.reporter.log(f"consolidation skipped: {exc}")
            return False

    def _apply(self, report: SleepReport, state: SleepState, cluster: Cluster, future: Future) -> None:
        from memctl.sleep.consolidate import ConsolidationError, ConsolidationResult
        from memctl.sleep.trust import decide_merge
        from memctl.validator.merge_gate import check_merged

        members = [m.path for m in cluster.members]
        try:
            result: ConsolidationResult = future.result()
        except ConsolidationError as exc:
            self.summary.model_calls += exc.model_called
            self._failed(report, cluster, str(exc), text=None)
            return
        if result.model_called:
            self.summary.model_calls += 1
        else:
            self.summary.cache_hits += 1
        target, refusal = check_merged(cluster.key, cluster.scope, result.text, self.limits, cluster.members)
        if refusal:
            # Not cached either: a refused merge is asked for again next run, like a lossy one.
            (self.home.consolidate_cache / f"{result.cache_key}.json").unlink(missing_ok=True)
            self._failed(report, cluster, refusal, text=result.text)
            return
        datasets = {m.dataset for m in cluster.members if m.dataset}
        session = cluster.members[0].session if len({m.session for m in cluster.members}) == 1 else None
        topic = datasets.pop() if len(datasets) == 1 else None
        provenance = [record for m in cluster.members for record in (m.provenance or [])]
        trust = decide_merge(result.text, list(cluster.members))
        if trust.held:
            self._hold(report, ReviewEntry(
                id=f"consolidated-{cluster.key[:16]}", kind="merge", session=session or "sleep", path=target,
                content=result.text, memory_kind="consolidated", created=result.created, topic=topic,
                provenance=provenance, reasons=list(trust.reasons), action=list(trust.action),
                supersedes=[{"path": m.path, "sha": m.sha, "text": m.text} for m in cluster.members],
                members=[{"path": m.path, "sha": m.sha} for m in cluster.members],
                extra={"members": [{"path": m.path, "sha": m.sha} for m in cluster.members], "model": result.model,
                       "prompt_version": result.prompt_version}))
            report.add("clusters", {"scope": cluster.scope, "members": members, "outcome": "held for review",
                                    "text": result.text})
            return
        content = render_memory(result.text, kind="consolidated", created=result.created, session=session,
                                topic=topic,
                                extra={"members": [{"path": m.path, "sha": m.sha} for m in cluster.members],
                                       "model": result.model, "prompt_version": result.prompt_version,
                                       "provenance": provenance,
                                       **({"action": list(trust.action)} if trust.action else {})})
        for dataset in {m.dataset for m in cluster.members if m.dataset}:
            state.mark(dataset, [str(self.store.root / m.path) for m in cluster.members if m.dataset == dataset])
        self.store.write_text(target, content, actor="sleep",
                              reason=f"consolidate {len(members)} memories (cluster {cluster.key[:12]})")
        merged = 0
        for member in cluster.members:
            try:
                self.store.delete(member.path, expected_sha=member.sha, actor="sleep",
                                  reason=f"merged into {target}")
                merged += 1
            except MissingFileError:
                merged += 1  # already gone: a repeat of an interrupted apply
            except ConcurrencyError as exc:
                if exc.current_sha is None:
                    merged += 1  # its recorded delete was just applied by the store's repair
                else:
                    self.summary.errors.append(f"{member.path} changed during sleep; kept: {exc}")
        self.summary.clusters_consolidated += 1
        self.summary.memories_merged += merged
        report.add("clusters", {"scope": cluster.scope, "members": members,
                                "outcome": "merged" + (" (cache hit)" if not result.model_called else ""),
                                "text": result.text})

    def _failed(self, report: SleepReport, cluster: Cluster, reason: str, *, text: str | None) -> None:
        """Record a cluster whose merge was not applied (members untouched; retried next run)."""
        members = [m.path for m in cluster.members]
        self.summary.errors.append(reason)
        self.summary.clusters_failed.append({"scope": cluster.scope, "members": members, "reason": reason})
        report.error("consolidate", reason)
        report.add("clusters", {"scope": cluster.scope, "members": members, "outcome": f"failed: {reason}",
                                "text": text})

    # -- rebuild -------------------------------------------------------------------------------------

    def _graph_models_ready(self, report: SleepReport) -> bool:
        """Whether Ollama has the rebuild's models (the graph model and the embedding model), asked in
        seconds before Cognee is configured: Cognee would first wait out its own connection test (30-48 s)
        and then advise an unrelated variable. A missing one names itself and its ``ollama pull``."""
        problem = self._graph_models_problem()
        if problem is None:
            return True
        self.summary.model_unavailable = problem
        report.error("rebuild", f"rebuild skipped: {problem}")
        self.reporter.log(f"rebuild skipped: {problem}")
        return False

    def _graph_models_problem(self) -> str | None:
        """The first of the rebuild's models Ollama cannot serve, as its error (with the fix), or None."""
        from memctl.ollama_client import ModelError, check_model, client_for

        try:
            client = client_for(self.settings, 30)
            for model in dict.fromkeys((self.settings.graph_model, self.settings.embedding_model)):
                check_model(client, self.settings, model, 30)
        except ModelError as exc:
            return str(exc)
        return None

    def _rebuild(self, report: SleepReport, state: SleepState) -> None:
        report.start("rebuild")
        topics = sorted(state.dirty)
        self.reporter.phase("rebuild", len(topics))
        if not topics or not self.options.rebuild:
            report.finish("rebuild", topics=0, pending=len(topics))
            return
        from memctl.graph import knowledge_graph
        from memctl.graph.rebuild import rebuild_topic

        if not self._graph_models_ready(report):
            report.finish("rebuild", topics=len(topics), pending=len(topics))
            return  # the topics stay marked: the next sleep rebuilds them
        memories = self._memories()
        concurrency = self.options.concurrency or self.settings.sleep_concurrency

        async def run_all() -> list:
            gate = asyncio.Semaphore(concurrency)

            async def one(topic: str):
                files = [self.store.root / m.path for m in memories if m.dataset == topic]
                async with gate:
                    result = await rebuild_topic(topic, files, [Path(p) for p in state.dirty[topic]],
                                                 self.settings, self.home)
                self.reporter.advance()
                return result

            return await asyncio.gather(*(one(t) for t in topics))

        knowledge_graph.configure(self.settings, self.home)
        for result in knowledge_graph.run_sync(run_all()):
            self.summary.cognify_runs += 1
            report.add("topics", result.as_dict())
            if result.error:
                self.summary.topics_failed[result.topic] = result.error
                report.error("rebuild", f"{result.topic}: {result.error}")
            else:
                self.summary.topics_rebuilt.append(result.topic)
                state.clear(result.topic)
        report.finish("rebuild", topics=len(topics), rebuilt=len(self.summary.topics_rebuilt),
                      failed=len(self.summary.topics_failed))


def _sane_time(value: object) -> str:
    """The proposal's statement time if it is an ISO-8601 time not in the future, else now (UTC)."""
    from datetime import datetime, timedelta, timezone

    now = datetime.now(timezone.utc)
    try:
        stated = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        if stated.tzinfo is None:
            stated = stated.replace(tzinfo=timezone.utc)
        if stated <= now + timedelta(minutes=5):
            return str(value)
    except ValueError:
        pass
    return now.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

