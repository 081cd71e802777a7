"""Phase 1's executor: model calls on a thread pool, every outcome recorded by one checkpoint writer.

Ordering rules that make a SIGKILL at any point cost at most the sessions in
flight: the transcript is written before the model call; the note is written
(atomically) before its id becomes ``distilled``; a note found on disk whose
provenance matches the current transcript and prompt version is taken over
without a model call. Workers only call the model; the thread that owns the
executor is the only one that writes the checkpoint, notes and transcripts.
In-flight work is bounded (twice the workers), so memory stays flat however
many sessions stream by.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from types import TracebackType

from memctl.atomic import atomic_write_text
from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome
from memctl.ingest.distill import Distiller, DistillOutcome, read_note_meta, render_note, summary_title
from memctl.ingest.plan import Work
from memctl.ingest.summary import IngestSummary
from memctl.ingest.transcript import Transcript
from memctl.ollama_client import ModelError
from memctl.reporting import Reporter
from memctl.store.versions import sha256_text


def distill_with_retry(distiller: Distiller, text: str, attempts: int) -> DistillOutcome:
    """``distiller.distill(text)``, tried up to ``attempts`` times with a short backoff (≤ 2 s).

    Raises:
        ModelError: the last failure, at once when retrying cannot help (a model that is not pulled).
    """
    last: ModelError | None = None
    for attempt in range(max(1, attempts)):
        try:
            return distiller.distill(text)
        except ModelError as exc:
            last = exc
            if not exc.retryable:
                break
            time.sleep(min(2.0, 0.25 * (attempt + 1)))
    assert last is not None
    raise last


@dataclass(frozen=True)
class _Job:
    work: Work
    transcript: Transcript


class DistillExecutor:
    """Distils :class:`~memctl.ingest.plan.Work` on ``workers`` threads and records every outcome.

    Use as a context manager; :meth:`submit` each unit, :meth:`finish` to wait for the rest.
    ``reparse_all`` makes an accepted whole-session note supersede the session's continuations.
    """

    def __init__(self, distiller: Distiller, checkpoint: Checkpoint, home: DataHome, summary: IngestSummary,
                 reporter: Reporter, *, workers: int, attempts: int, reparse_all: bool) -> None:
        self.distiller, self.checkpoint, self.home = distiller, checkpoint, home
        self.summary, self.reporter = summary, reporter
        self.workers, self.attempts, self.reparse_all = max(1, workers), attempts, reparse_all
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="distill")
        self.pending: dict[Future, _Job] = {}
        self.preflight_done = False

    def __enter__(self) -> "DistillExecutor":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.pool.shutdown(wait=True)  # calls already queued still finish and are recorded by the next run

    # -- recorded without a model call ------------------------------------------------------------

    def skip_small(self, work: Work, transcript: Transcript) -> None:
        """Record a session below the substance threshold (``transcript.skip_reason``) as skipped."""
        self.checkpoint.mark_skipped(work.source_id, reason=transcript.skip_reason or "", skip_kind="threshold",
                                     title=work.title, topic=work.topic,
                                     prompt_version=self.distiller.prompt.version, **work.provenance.as_fields())
        self._finish_continuation(work, accepted=False)

    def note_unchanged(self, root_id: str, session_updated: int, revert: str) -> None:
        """A distilled session whose update brought no new part (e.g. a new title, or an undo): remember
        the update and the undo boundary (``''``: none), so an undo after distilling costs no model call."""
        self.checkpoint.update(root_id, session_updated=session_updated, revert=revert)

    def recover(self, work: Work, transcript: Transcript) -> bool:
        """Take over a note a killed run wrote but did not record (same transcript, same prompt)."""
        path = self.home.note_path(work.source_id)
        if not path.exists():
            return False
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        version = self.distiller.prompt.version
        meta = read_note_meta(text)
        if meta.get("transcript_sha256") != transcript.sha256 or str(meta.get("prompt_version")) != version:
            return False
        self.checkpoint.mark_distilled(
            work.source_id, topic=work.topic, title=work.title, prompt_version=version,
            model=str(meta.get("model", "")), transcript_sha256=transcript.sha256, note_sha256=sha256_text(text),
            **work.provenance.as_fields(),
        )
        self._finish_continuation(work)
        self.summary.recovered += 1
        self.summary.distilled += 1
        return True

    # -- model calls ------------------------------------------------------------------------------

    def submit(self, work: Work, transcript: Transcript) -> None:
        """Persist the transcript, then queue its model call; blocks while the in-flight bound is reached.

        Raises:
            ModelError: before the first call, when Ollama is down or the model is not pulled
                (one check fails the run at once instead of marking every session as an error).
        """
        if not self.preflight_done:
            self.distiller.preflight()
            self.preflight_done = True
        atomic_write_text(self.home.transcript_path(work.source_id), transcript.text)
        future = self.pool.submit(distill_with_retry, self.distiller, transcript.text, self.attempts)
        self.pending[future] = _Job(work, transcript)
        while len(self.pending) >= self.workers * 2:
            self._drain()

    def finish(self) -> None:
        """Wait for every queued call and record it."""
        while self.pending:
            self._drain()

    def _drain(self) -> None:
        done, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
        for future in done:
            self._record(self.pending.pop(future), future)
            self.reporter.advance()

    def _record(self, job: _Job, future: Future) -> None:
        work, transcript = job.work, job.transcript
        sid = work.source_id
        base = {"topic": work.topic, "title": work.title, "transcript_sha256": transcript.sha256,
                **work.provenance.as_fields()}
        try:
            outcome: DistillOutcome = future.result()
        except ModelError as exc:
            self.summary.errors += 1
            self.summary.error_details.append({"source_id": sid, "error": str(exc)})
            self.checkpoint.mark_error(sid, error=str(exc), **base)
            self.reporter.log(f"error: session {sid}: {exc}")
            return
        base |= {"prompt_version": outcome.prompt_version, "model": outcome.model}
        if outcome.junk:
            self.summary.skipped_junk += 1
            self.checkpoint.mark_skipped(sid, reason="model answered JUNK", skip_kind="junk", **base)
            self._finish_continuation(work, accepted=False)
            return
        if transcript.title is None:  # a placeholder, and no user text to name it: the summary does
            base["title"] = summary_title(outcome.body) or work.title
        note = render_note(work.session.info, topic=work.topic, outcome=outcome, transcript_sha256=transcript.sha256,
                           child_session_ids=transcript.child_session_ids,
                           continuation_of=work.provenance.continuation_of,
                           title=base["title"], original_title=transcript.original_title)
        atomic_write_text(self.home.note_path(sid), note)
        if self.reparse_all and work.root is None:
            base["continuations"] = self._supersede_continuations(sid)
        self.checkpoint.mark_distilled(sid, note_sha256=sha256_text(note), **base)
        self._finish_continuation(work)
        self.summary.distilled += 1

    # -- continuations ----------------------------------------------------------------------------

    def _finish_continuation(self, work: Work, *, accepted: bool = True) -> None:
        """Advance the root's coverage after a continuation was handled.

        A skipped continuation (too small, or JUNK) does not advance it: its parts
        stay pending and are distilled together with whatever the session adds next,
        under the same continuation number.
        """
        root = work.root
        if root is None:
            return
        if accepted:
            self.checkpoint.update(root.root_id, session_updated=root.session_updated,
                                   continuations=root.continuations, covered_until=root.covered_until,
                                   revert=root.revert)
        else:
            self.checkpoint.update(root.root_id, session_updated=root.session_updated, revert=root.revert)

    def _supersede_continuations(self, root_id: str) -> int:
        """After a full re-distill (--reparse-all) the new note covers the whole session:
        drop its continuation notes so their content is not added twice. Returns the
        highest continuation number used, so later continuations never reuse a name."""
        entry = self.checkpoint.entry(root_id)
        highest = (entry.continuations or 0) if entry else 0
        for cont_id in self.checkpoint.remove_continuations(root_id):
            self.home.note_path(cont_id).unlink(missing_ok=True)
            self.home.transcript_path(cont_id).unlink(missing_ok=True)
        return highest
