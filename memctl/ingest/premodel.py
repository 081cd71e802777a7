"""The pre-model stage of ``memctl ingest``: read a session, plan its work, build its transcript.

For each session the plan (:func:`memctl.ingest.plan.decide`) says to distill or continue,
:func:`prepare` reads it from the read-only source, cuts it to the work
(:func:`memctl.ingest.plan.plan_work`) and normalizes, scrubs and samples it
(:func:`memctl.ingest.transcript.build_transcript`). That is CPU work with no shared
state, so :class:`PreModelStage` runs it on a process pool (one process per usable
core) while the caller keeps the model calls on its own threads. Results are taken
back in submission order (the caller holds them in a bounded window), so the plan
rows, the checkpoint writes and the model calls come in the same order as when one
process does everything.

Processes are started with ``spawn`` (no inherited threads or connections): each
opens its own read-only connection to the database. They ignore SIGINT from birth
(the parent handles Ctrl-C and shuts the pool down; a process still importing
prints no traceback) and exit as soon as the parent is gone, however it died, so
no process outlives the run. While the pool runs, SIGTERM stops the parent as
Ctrl-C does (:class:`~memctl.exit_codes.Terminated`), and multiprocessing's
resource tracker keeps its leak warnings to itself (see :func:`_start_resource_tracker`). Below
:data:`POOL_THRESHOLD` sessions to read the stage runs in the calling process:
starting the processes costs more than it saves (``bench/bench_preprocess.py``
measures both).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing import resource_tracker
from types import TracebackType
from typing import Any

from memctl.catalog.checkpoint import Entry
from memctl.config import Settings
from memctl.connectors.model import ReadStats, Session, SessionInfo
from memctl.connectors.registry import CombinedSource, open_sources
from memctl.exit_codes import FAILED_ITEMS, ExitCodeError, Terminated
from memctl.ingest.memory_tools import memory_tool_session
from memctl.ingest.plan import Action, Work, plan_work
from memctl.ingest.transcript import Transcript, build_transcript

__all__ = ["BATCH", "POOL_THRESHOLD", "PreModelCrash", "PreModelStage", "Prepared", "Request", "prepare", "process_count"]

POOL_THRESHOLD = 256
"""Sessions to read from which a pool pays. Measured (``bench/bench_preprocess.py``, 2 cores): a
``spawn`` process costs 0.36-0.45 s of CPU to start (interpreter and imports), what ~200 sessions
cost to prepare (~2.2 ms each, the same in a pool process as in this one), and taking a result
back costs this process ~0.2 ms per session; a run too short to use the processes still waits
for them to start before it can stop. A daily run of a few new sessions starts none."""


@dataclass(frozen=True, slots=True)
class Request:
    """One session to prepare: its metadata, checkpoint entry, the planned action
    (distill or continue), its scrubbed title and its topic."""

    info: SessionInfo
    entry: Entry | None
    action: Action
    title: str
    topic: str


@dataclass(slots=True)
class Prepared:
    """What :func:`prepare` made of a :class:`Request`.

    Attributes:
        work: the work, its ``session`` reduced to the metadata (the parts stay where they
            were read: the caller needs only ``session.info``); None when the session grew
            by metadata only (no new part).
        transcript: the transcript of ``work`` (None with ``work``).
        read_counts: the connector's :class:`~memctl.connectors.model.ReadStats` counters
            this session added (non-zero only), and ``read_warnings`` its warning lines.
        remote: prepared in a pool process (its counters are not in the caller's source yet).
    """

    work: Work | None
    transcript: Transcript | None
    read_counts: dict[str, int] = field(default_factory=dict)
    read_warnings: list[str] = field(default_factory=list)
    remote: bool = False


_COUNTERS = ("sessions", "parts", *ReadStats.SKIP_COUNTERS, *ReadStats.LEFT_OUT_COUNTERS)


def prepare(source: CombinedSource, settings: Settings, request: Request) -> Prepared:
    """Read, plan and build the transcript of one session (see the module doc).

    Raises:
        SourceError: the source could not be read (busy, unreadable), as
            :meth:`~memctl.connectors.registry.CombinedSource.read_session` raises it.
    """
    stats = source.stats
    before = [getattr(stats, name) for name in _COUNTERS]
    warned = len(stats.warnings)
    work = plan_work(source.read_session(request.info), request.entry, request.action,
                     title=request.title, topic=request.topic)
    transcript = build_transcript(work.session, settings) if work is not None else None
    if transcript is not None and work is not None and not transcript.skip_reason:
        transcript.skip_reason = memory_tool_session(work.session)  # memctl's or a peer's memory work only
    if work is not None:
        work = replace(work, session=Session(info=work.session.info))
    counts = {name: getattr(stats, name) - was for name, was in zip(_COUNTERS, before) if getattr(stats, name) != was}
    return Prepared(work, transcript, counts, stats.warnings[warned:])


def source_spec(source: Any) -> tuple[tuple[str, str], ...]:
    """What a pool worker reopens: a combined source's ``spec``, or a lone OpenCode reader's database."""
    spec = getattr(source, "spec", None)
    return spec if spec else (("opencode", str(source.db_path)),)


def merge_read_stats(stats: ReadStats, prepared: Prepared) -> None:
    """Add what a session read in another process counted to the caller's ``stats``."""
    for name, n in prepared.read_counts.items():
        setattr(stats, name, getattr(stats, name) + n)
    room = ReadStats.MAX_WARNINGS - len(stats.warnings)
    stats.warnings.extend(prepared.read_warnings[:max(0, room)])


def process_count(configured: int) -> int:
    """Processes for the pre-model stage: ``configured``, or with 0 one per core this process
    may run on (``os.sched_getaffinity``; ``os.cpu_count()`` where that does not exist)."""
    if configured > 0:
        return configured
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class PreModelCrash(ExitCodeError):
    """A pre-model process died (killed, out of memory, a crash in a C library) while it
    prepared a session; the sessions not yet recorded are retried by the next run (exit 1)."""

    exit_code = FAILED_ITEMS


# -- the worker process -----------------------------------------------------------------------

BATCH = 4
"""Requests sent to a process together: a round trip costs the calling process ~0.3 ms of CPU
(queues, pickling, thread wake-ups), an eighth of what preparing a session costs; in batches
of 4 it measured 0.15 ms per session."""

_worker: dict[str, object] = {}


def _exit_with_parent() -> None:
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    # The sentinel becomes ready when the parent exits, whatever killed it: no orphan keeps reading.
    multiprocessing.connection.wait([parent.sentinel])
    os._exit(1)


def _start_worker(spec: tuple[tuple[str, str], ...], settings: Settings, task: Callable[..., Prepared]) -> None:
    # Ctrl-C reaches the whole group: the parent decides. SIGINT was blocked since this process was
    # spawned (_signals_held); ignoring it drops one pending, then it can be unblocked.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    _worker.update(spec=spec, settings=settings, task=task)


def _run_in_worker(requests: list[Request]) -> list[Prepared | Exception]:
    """Prepare a batch; a request that raises gives its exception in its place (the others go on)."""
    source = _worker.get("source")
    if source is None:
        source = open_sources(_worker["spec"])  # type: ignore[arg-type]
        source.check_schema()
        _worker["source"] = source
    task = _worker["task"]
    assert callable(task)
    out: list[Prepared | Exception] = []
    for request in requests:
        try:
            prepared = task(source, _worker["settings"], request)
        except Exception as exc:  # sent back and raised where the caller takes this request's result
            out.append(exc)
            continue
        prepared.remote = True
        out.append(prepared)
    return out


# -- signals around the pool --------------------------------------------------------------------

_QUIET_TRACKER = "ignore:resource_tracker:UserWarning:multiprocessing.resource_tracker"


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that unlinks the pool's named semaphores
    if this one dies without doing it) with its leak warnings off.

    The tracker writes to the stderr it inherits, the terminal; when this process is killed
    (SIGKILL; SIGTERM outside the pool) it warns "There appear to be N leaked semaphore objects to
    clean up at shutdown" there, after this process is gone and cannot route the line to the
    library log, and then unlinks them all the same. It is started with the parent's ``-W``
    options (``subprocess._args_from_interpreter_flags``), so the filter is one of them for the
    moment it starts. A tracker already running (started earlier in this process) is kept.
    """
    sys.warnoptions.append(_QUIET_TRACKER)
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(_QUIET_TRACKER)


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the pool's processes are spawned.

    SIGINT is blocked in this thread: a spawned process inherits the mask through ``exec`` (as
    CPython's resource tracker does for itself, bpo-33613) and unblocks it only once it ignores it
    (:func:`_start_worker`), so a Ctrl-C while it starts Python and imports memctl prints no
    traceback. A signal this process gets meanwhile is taken once every process is spawned, by its
    handler of before: an exception between spawning a process and sending it its start-up data
    would leave that process to fail, loudly, reading it. Handlers are changed in the main thread only.
    """
    held: list[int] = []
    previous: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda n, _frame: held.append(n))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)  # type: ignore[arg-type]
        if held:
            signal.raise_signal(held[0])


def _settle(batch: list[Future], done: Future) -> None:
    """Hand a batch's outcome to the futures of its requests."""
    try:
        results = done.result()
    except BaseException as exc:  # the process died (BrokenProcessPool), or the batch was cancelled
        for future in batch:
            future.set_exception(exc)
        return
    for future, result in zip(batch, results):
        if isinstance(result, Exception):
            future.set_exception(result)
        else:
            future.set_result(result)


class PreModelStage:
    """Prepares sessions on ``processes`` spawned processes, or in the calling process for
    small runs. Use as a context manager.

    The pool starts at the first request when ``expected`` (the caller's estimate of the
    sessions to read) reaches ``threshold`` (default :data:`POOL_THRESHOLD`), else at the
    ``threshold``-th request; until every process has started (imported its modules), the
    calling process goes on preparing requests itself, so start-up overlaps useful work.

    :meth:`submit` returns a :class:`~concurrent.futures.Future` of a :class:`Prepared`; take
    the results in submission order for a deterministic run. A request prepared in the calling
    process is done at once (its exception, if any, set on the future). A request whose
    process died fails with :class:`PreModelCrash`. Leaving the context cancels what has
    not started and waits for the rest (milliseconds), so no process outlives the run.

    ``task`` replaces :func:`prepare` (tests: a task that crashes); it must be importable by
    name (the processes are spawned). So must the caller's ``__main__``: a script that starts
    a run needs the ``if __name__ == "__main__":`` guard (as ``memctl`` itself has).
    """

    def __init__(self, source: CombinedSource, settings: Settings, *, processes: int, expected: int = 0,
                 threshold: int | None = None, task: Callable[..., Prepared] | None = None) -> None:
        self.source, self.settings = source, settings
        self.task = task if task is not None else prepare
        self.processes = processes
        self.threshold = threshold if threshold is not None else POOL_THRESHOLD
        self.expected = expected
        self.submitted = 0
        self.pool: ProcessPoolExecutor | None = None
        self._starting: list[Future] = []
        self._batch: list[tuple[Request, Future]] = []
        self._sigterm: object = None  # SIGTERM's handler before the pool started (main thread only)

    def __enter__(self) -> "PreModelStage":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Cancel what has not started, wait for the running requests and stop the processes."""
        for _, future in self._batch:
            future.cancel()
        self._batch = []
        if self._sigterm is not None:  # a second SIGTERM while the pool stops does what it did before
            signal.signal(signal.SIGTERM, self._sigterm)  # type: ignore[arg-type]
            self._sigterm = None
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    @property
    def pooled(self) -> bool:
        """True once requests go to the process pool (every process started)."""
        return self.pool is not None and not self._starting

    def _start_pool(self) -> None:
        _start_resource_tracker()  # before _signals_held: starting it unblocks SIGINT
        if threading.current_thread() is threading.main_thread():
            # Killed by SIGTERM, this process would leave the pool's semaphores to the tracker; stop as for Ctrl-C.
            previous = signal.signal(signal.SIGTERM, _terminate)
            self._sigterm = previous if previous is not None else signal.SIG_DFL
        with _signals_held():
            self.pool = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker, initargs=(source_spec(self.source), self.settings, self.task))
            # One no-op per process makes the executor spawn them all now, not one per later request.
            # (With spawn they are spawned in this thread, inside submit: the held signals cover them.)
            self._starting = [self.pool.submit(os.getpid) for _ in range(self.processes)]

    def _started(self) -> bool:
        if not all(future.done() for future in self._starting):
            return False
        for future in self._starting:
            if isinstance(future.exception(), BrokenProcessPool):
                raise PreModelCrash(
                    f"a process for reading sessions died while starting ({future.exception()}). If the run was "
                    "started from a Python script, the script needs an `if __name__ == \"__main__\":` guard; "
                    "or run with MEMCTL_TRANSCRIPT_PROCESSES=1 to read sessions in memctl's own process.")
        self._starting = []
        return True

    def submit(self, request: Request) -> Future:
        """Queue one request (see the class doc).

        Raises:
            PreModelCrash: a pool process died while starting.
        """
        self.submitted += 1
        if self.pool is None and self.processes > 1 and max(self.submitted, self.expected) >= self.threshold:
            self._start_pool()
        future: Future = Future()
        if self.pool is not None and self._started():
            self._batch.append((request, future))
            if len(self._batch) >= BATCH:
                self._send()
            return future
        try:
            future.set_result(self.task(self.source, self.settings, request))
        except Exception as exc:  # raised where the result is taken, in order, as from a process
            future.set_exception(exc)
        return future

    def _send(self) -> None:
        if not self._batch:
            return
        assert self.pool is not None
        requests, futures = [r for r, _ in self._batch], [f for _, f in self._batch]
        self._batch = []
        try:
            done = self.pool.submit(_run_in_worker, requests)
        except BrokenProcessPool as exc:
            for future in futures:
                future.set_exception(exc)
            return
        done.add_done_callback(lambda d: _settle(futures, d))

    def result(self, future: Future, request: Request) -> Prepared:
        """The :class:`Prepared` of ``future`` (submitted for ``request``), its read counters
        merged into the caller's source when it came from another process.

        Raises:
            PreModelCrash: the process preparing it died.
            SourceError: the source could not be read (as in the calling process).
        """
        if not future.done():
            self._send()  # the caller waits for it: a part-filled batch goes now
        try:
            prepared: Prepared = future.result()
        except BrokenProcessPool as exc:
            raise PreModelCrash(
                f"a process reading sessions died before session {request.info.id} was prepared ({exc}); "
                "that session and the ones after it were not recorded and are retried by the next run. "
                "If it happens again, run with MEMCTL_TRANSCRIPT_PROCESSES=1 to read them in memctl's own process."
            ) from exc
        if prepared.remote:
            merge_read_stats(self.source.stats, prepared)
        return prepared
