"""The long-lived state of ``memctl serve``: Cognee imported, the topic index loaded, the stores let go on demand.

One :class:`WarmMemory` per server process. What stays warm and why it never
blocks ingest or sleep:

* Cognee's import and configuration (6–8 s in a CLI run) happen once, at
  start-up, in the background (:meth:`WarmMemory.start`).
* Cognee's graph store workers hold Kuzu's exclusive file lock while their
  engine is cached (:mod:`memctl.graph.release`). A watcher thread checks the
  data home's lock every ``poll_s`` without taking it
  (:mod:`memctl.serve.home_lock`): the moment ingest or sleep holds it, the
  server closes its graph engines, and until the lock is free again every
  tool answers from the raw notes and says so. When the lock is released, all
  store handles are closed once more so the next search sees what ingest or
  sleep wrote. Engines idle for ``release_after_s`` are closed too, so another
  reader (a second server, ``doctor``) is not kept out for long.
* The topic index is re-read when ``topic_index.json`` changes (mtime, size).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Callable

from memctl.ask.api import AskOptions, AskResult, load_index
from memctl.catalog.topic_index import TopicIndex
from memctl.config import DataHome, Settings
from memctl.serve.home_lock import home_busy

BUSY_REASON = ("ingest or sleep is running (the data home {root} is locked), so the graph store was not "
               "opened: answered from the raw notes")
DEFAULT_RELEASE_AFTER_S = 60.0
DEFAULT_POLL_S = 0.25


@dataclass
class _Stamp:
    mtime_ns: int
    size: int


class WarmMemory:
    """Shared state of one server; thread-safe (tools run in worker threads).

    Args:
        settings: memctl settings (``settings.home`` is the data home served).
        release_after_s: close idle graph engines after this many seconds (0: after every call).
        poll_s: how often the watcher looks at the data home's lock.
    """

    def __init__(self, settings: Settings, *, release_after_s: float = DEFAULT_RELEASE_AFTER_S,
                 poll_s: float = DEFAULT_POLL_S) -> None:
        self.settings = settings
        self.home = DataHome(settings.home)
        self.release_after_s = release_after_s
        self.poll_s = poll_s
        self._index: TopicIndex | None = None
        self._index_stamp: _Stamp | None = None
        self._state = threading.Lock()
        self._serial = threading.Lock()
        self._in_flight = 0
        self._last_graph_use: float | None = None
        self._busy = False
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self.releases = 0  # graph-engine closes, for tests and `--debug`

    # -- lifecycle -------------------------------------------------------------------------------------------

    def start(self, prewarm: bool = True) -> None:
        """Start the lock watcher and (``prewarm``) import Cognee and run one search in the background."""
        self._watcher = threading.Thread(target=self._watch, name="memctl-serve-watch", daemon=True)
        self._watcher.start()
        if prewarm:
            threading.Thread(target=self._prewarm, name="memctl-serve-prewarm", daemon=True).start()

    def stop(self) -> None:
        """Stop the watcher and let go of every store handle."""
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        self._release(all_stores=True)

    def _prewarm(self) -> None:
        try:
            index = self.topic_index()
            if index.slugs and self.home.cognee.is_dir():
                from memctl.ask.api import retrieve

                biggest = max(index.slugs, key=lambda s: index.topics[s].note_count)
                self.call(lambda reason: retrieve("warm up", [biggest], self.settings, self.home, index, top_k=1,
                                                  use_graph=reason is None))
        except Exception:  # noqa: BLE001 - a failed warm-up only costs the first call its start-up time
            pass

    # -- the data home ---------------------------------------------------------------------------------------

    def topic_index(self) -> TopicIndex:
        """The topic index, re-read when its file changed since the last call.

        Raises:
            memctl.ask.run.AskError: unreadable index (7) or nothing ingested (12).
        """
        try:
            st = self.home.topic_index.stat()
            stamp = _Stamp(st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        with self._state:
            if self._index is not None and stamp is not None and stamp == self._index_stamp:
                return self._index
        index = load_index(self.home)
        with self._state:
            self._index, self._index_stamp = index, stamp
        return index

    def busy_reason(self) -> str | None:
        """Why the graph store must not be opened now (ingest or sleep holds the data home), or None."""
        if home_busy(self.home.lock_file):
            return BUSY_REASON.format(root=self.home.root)
        return None

    # -- calls -----------------------------------------------------------------------------------------------

    def call(self, work: Callable[[str | None], object]) -> object:
        """Run ``work(busy_reason)`` as one tool call; ``busy_reason`` set means: do not open the graph store.

        A result whose ``method``/``retrieval_method`` is not ``notes`` marks the graph engines as used (the
        idle clock restarts).
        """
        with self._state:
            self._in_flight += 1
        try:
            # One call at a time: two threads opening a dataset's graph store for the first time would start
            # two Kuzu workers on one file, and the second finds it locked (the warm-up search included).
            with self._serial:
                result = work(self.busy_reason())
        finally:
            with self._state:
                self._in_flight -= 1
        # Any retrieval but the raw notes alone ("notes") opened the graph store.
        if getattr(result, "method", getattr(result, "retrieval_method", "notes")) != "notes":
            with self._state:
                self._last_graph_use = time.monotonic()
        if self.release_after_s == 0:
            self._release()
        return result

    def ask(self, options: AskOptions, on_token: Callable[[str], None] | None = None) -> AskResult:
        """``memctl ask``'s own code path (:func:`memctl.ask.run.ask`), never opening a busy graph store.

        Raises:
            memctl.ask.run.AskError: as :func:`memctl.ask.run.ask`.
        """
        from memctl.ask.api import ask as run_ask

        def work(reason: str | None) -> AskResult:
            run_options = replace(options, use_graph=False) if reason and options.use_graph else options
            result = run_ask(self.settings, run_options, on_token=on_token)
            if reason and options.use_graph and result.fallback_used:
                result.fallback_reason = reason
            return result

        return self.call(work)  # type: ignore[return-value]

    # -- releasing the stores --------------------------------------------------------------------------------

    def _release(self, all_stores: bool = False) -> None:
        from memctl.graph.release import release_all_stores, release_graph_stores

        try:
            closed = release_all_stores() if all_stores else release_graph_stores()
        except Exception:  # noqa: BLE001 - Cognee's close bookkeeping; the next search reopens anyway
            closed = 0
        with self._state:
            self.releases += closed
            self._last_graph_use = None

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            busy = home_busy(self.home.lock_file)
            if busy and not self._busy:
                self._busy = True
                self._release()  # at once, even under a running search: it then falls back to the notes
            elif not busy and self._busy:
                self._busy = False
                self._release(all_stores=True)  # what ingest or sleep wrote is read afresh
            else:
                with self._state:
                    idle = (self._last_graph_use is not None and self._in_flight == 0
                            and time.monotonic() - self._last_graph_use >= self.release_after_s)
                if idle:
                    self._release()
