"""The data home's layout and its lock: every state path memctl keeps, and one ingest or sleep at a time.

The root comes from the settings (:mod:`memctl.config`, ``home``); this module only computes paths and holds the
lock, so that a dry run touches nothing.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from memctl.exit_codes import HOME, LOCKED, ExitCodeError, HomeBusyError, HomeError

_held_locks: set[Path] = set()  # data-home roots whose lock this process holds


def _normal_root(root: Path) -> Path:
    """``root`` without ``..`` segments (``Path.absolute`` keeps them, so one directory had many spellings and
    its recorded location changed with each). Collapsed lexically when that names the directory the kernel
    reaches; resolved when a symlink before the ``..`` makes them differ. A trailing slash is already gone."""
    if ".." not in root.parts:
        return root
    lexical = Path(os.path.normpath(root))
    return lexical if os.path.realpath(lexical) == os.path.realpath(root) else Path(os.path.realpath(root))


class DataHome:
    """The layout of the data home (:func:`memctl.config.default_home` by default; README "Where data goes"), and its lock.

    Every state path of the data home is a property here. Only computes
    paths; creating directories is the writer's job so that a dry run touches
    nothing.
    """

    def __init__(self, root: Path) -> None:
        self.root = _normal_root(Path(root).expanduser().absolute())

    @property
    def progress(self) -> Path:
        """The ingest checkpoint (:mod:`memctl.catalog.checkpoint`)."""
        return self.root / "progress.json"

    @property
    def skipped(self) -> Path:
        """Skipped session ids with their reasons, for review."""
        return self.root / "skipped.json"

    @property
    def topics(self) -> Path:
        """Project path → topic slug (:class:`memctl.catalog.topics.TopicRegistry`)."""
        return self.root / "topics.json"

    @property
    def transcripts(self) -> Path:
        """``<id>.md`` per session: the normalized, bounded, scrubbed model input."""
        return self.root / "transcripts"

    @property
    def distilled(self) -> Path:
        """``<id>.md`` per session: the accepted note, with provenance front matter."""
        return self.root / "distilled"

    @property
    def cognee(self) -> Path:
        """Cognee's stores: the Kuzu graph, LanceDB vectors, SQLite metadata (:mod:`memctl.graph.environment`)."""
        return self.root / "cognee"

    @property
    def store(self) -> Path:
        """Root of the memory store (memory/, user/, staging/, audit/, versions/)."""
        return self.root / "store"

    @property
    def topic_index(self) -> Path:
        """Per-topic name, description, note count and note list (maintained by ingest; read by ask)."""
        return self.root / "topic_index.json"

    @property
    def note_index(self) -> Path:
        """Per-topic BM25 indexes over the raw notes (a cache; rebuilt when stale)."""
        return self.root / "index" / "notes"

    @property
    def turn_index(self) -> Path:
        """Per-topic turn indexes of the scrubbed transcripts, BM25 and vectors (:mod:`memctl.catalog.turn_index`;
        built by ingest, read by ask; holds transcript excerpts: forget and purge delete it)."""
        return self.root / "index" / "turns"

    @property
    def sleep_state(self) -> Path:
        """Topics sleep must still rebuild, and merges ``unmerge`` declined (:class:`memctl.sleep.state.SleepState`)."""
        return self.root / "sleep_state.json"

    @property
    def graph_rejections(self) -> Path:
        """Notes Cognee rejected, with the reason (:mod:`memctl.graph.rejections`; shown by ``doctor``)."""
        return self.root / "graph_rejections.json"

    @property
    def consolidate_cache(self) -> Path:
        """Consolidation results by content key (a cache: unchanged clusters cost no model call)."""
        return self.root / "cache" / "consolidate"

    @property
    def chunk_cache(self) -> Path:
        """The graph's chunk rows read without Cognee, one file per dataset (:mod:`memctl.ask.chunk_reader`; a
        cache holding note text: forget and purge delete it)."""
        return self.root / "cache" / "chunks"

    @property
    def route_cache(self) -> Path:
        """The embedding router's topic profiles, one file per topic (:mod:`memctl.catalog.topic_profiles`; a cache)."""
        return self.root / "cache" / "route"

    @property
    def reports(self) -> Path:
        """Each sleep's report, ``sleep-<time>.html`` and ``.json`` (:mod:`memctl.sleep.report`)."""
        return self.root / "reports"

    @property
    def logs(self) -> Path:
        """Log files: the libraries' output, the scheduled jobs' and the capture hooks' (listed below)."""
        return self.root / "logs"

    @property
    def graph_embedding(self) -> Path:
        """The embedding model the graph's vectors were made with (:mod:`memctl.graph.embedding_record`)."""
        return self.root / "graph_embedding.json"

    @property
    def location(self) -> Path:
        """Where this data home was last opened, and where before (:mod:`memctl.graph.relocate`)."""
        return self.root / "location.json"

    @property
    def lock_file(self) -> Path:
        """The lock one ingest or sleep holds at a time (the file behind :meth:`lock`)."""
        return self.root / ".memctl.lock"

    def refuse_file(self, error: Callable[[str, int], ExitCodeError] | None = None) -> None:
        """Raise when the data home's path is a file (a typo in ``--home``), before anything reads or writes under it.

        Raises:
            HomeError: the data home is a file (exit 7), or ``error(message, 7)`` when given.
        """
        if self.root.exists() and not self.root.is_dir():
            message = f"the data home {self.root} is a file; pass --home DIR (or MEMCTL_HOME) naming a directory"
            raise error(message, HOME) if error else HomeError(message)

    @contextmanager
    def lock(self, *, wait: bool, offer_wait: bool = True,
             error: Callable[[str, int], ExitCodeError] | None = None) -> Iterator[None]:
        """Hold the data home's exclusive lock for the block: one ingest or sleep at a time (``ask`` never
        takes it). Creates the data home directory, and removes it again when the block wrote nothing
        into it (:meth:`_remove_if_untouched`). ``wait`` blocks until the lock is free.

        ``error`` builds the exception from a message and an exit code (a run's own error type,
        e.g. ``IngestError``); by default :class:`HomeError` / :class:`HomeBusyError`.

        Raises:
            HomeError: the data home is a file (exit 7).
            HomeBusyError: another run holds the lock and ``wait`` is false (exit 6; the message
                suggests ``--wait`` when ``offer_wait``).
        """
        from filelock import FileLock, Timeout

        self.refuse_file(error)
        created = not self.root.exists()
        self.root.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.lock_file))
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout as exc:
            message = (f"another memctl run (ingest or sleep) is using {self.root} (lock {self.lock_file}); "
                       "wait for it to finish" + (", or pass --wait" if offer_wait else ""))
            raise (error(message, LOCKED) if error else HomeBusyError(message)) from exc
        _held_locks.add(self.root)
        try:
            yield
        finally:
            _held_locks.discard(self.root)
            lock.release()
            if created:
                self._remove_if_untouched()

    def _remove_if_untouched(self) -> None:
        """Remove the data home :meth:`lock` created when the run wrote nothing into it (it failed first,
        e.g. Ollama down): no empty home holding only a lock file is left behind, so a typo in ``--home`` or
        a failed first run leaves no trace. Anything else in it keeps it."""
        try:
            if [p.name for p in self.root.iterdir()] == [self.lock_file.name]:
                self.lock_file.unlink()
                self.root.rmdir()
        except OSError:
            pass  # another run started using it meanwhile: it stays

    def holds_lock(self) -> bool:
        """Whether this process holds :meth:`lock` now (a second ``flock`` on the same file from
        the same process would wait for itself; :mod:`memctl.graph.relocate` asks first)."""
        return self.root in _held_locks

    def transcript_path(self, source_id: str) -> Path:
        return self.transcripts / f"{source_id}.md"

    def note_path(self, source_id: str) -> Path:
        return self.distilled / f"{source_id}.md"
