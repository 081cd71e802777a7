"""Where sleep's consolidations run: the engine seam (``memctl sleep --engine local|flyte``).

The driver (:class:`memctl.sleep.run.SleepRun`) keeps load, validation,
promotion, clustering and every store write; an engine only runs
:func:`memctl.sleep.consolidate.consolidate` for a list of tasks and hands
back one :class:`concurrent.futures.Future` per task (a
:class:`~memctl.sleep.consolidate.ConsolidationResult`, or the exception the
task raised — :class:`~memctl.sleep.consolidate.ConsolidationError` for a
failed merge, anything else aborts the run as before).

* :class:`LocalEngine` — a thread pool on this machine, ``concurrency`` calls
  at a time, results in completion order (the default, and the behaviour sleep
  always had).
* ``FlyteEngine`` (:mod:`memctl.sleep.engines.flyte_engine`, optional extra
  the ``flyte`` extra) — each consolidation a Flyte task; results in task order.

:func:`select_engine` picks one by name; a missing extra is a usage error (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memctl.config import Settings
from memctl.exit_codes import UsageError
from memctl.sleep.engines.flyte_sdk import FLYTE_EXTRA_HINT, flyte_installed

if TYPE_CHECKING:  # the consolidation module loads the model client (~0.15 s): only a run with clusters needs it
    from memctl.sleep.consolidate import ConsolidationTask

ENGINES = ("local", "flyte")


class EngineUnavailableError(UsageError):
    """An engine name memctl does not know, or the Flyte engine without its extra (exit 2)."""


class ConsolidationEngine(Protocol):
    """What :meth:`memctl.sleep.run.SleepRun._consolidate` needs from an engine."""

    name: str
    run_url: str | None  # the engine's own record of the run (a Flyte console URL); None when there is none

    def consolidate(self, tasks: list[ConsolidationTask], *, settings: Settings, cache_dir: Path, concurrency: int,
                    log: Callable[[str], None], note: str = "") -> Iterator[tuple[int, Future]]:
        """Yield ``(index into tasks, finished future)`` once per task. Closing the iterator early stops
        queued work (calls already sent may finish into the cache). ``note``: the driver's phases so far,
        for an engine with a report of its own."""
        ...

    def model_settings(self, settings: Settings) -> Settings | None:
        """Settings naming the model server the tasks call, for the driver's check before consolidating;
        None when this machine cannot check it (tasks on a cluster)."""
        ...


class LocalEngine:
    """Consolidations on a thread pool in this process, ``concurrency`` at a time, in completion order."""

    name = "local"
    run_url: str | None = None

    def consolidate(self, tasks: list[ConsolidationTask], *, settings: Settings, cache_dir: Path, concurrency: int,
                    log: Callable[[str], None], note: str = "") -> Iterator[tuple[int, Future]]:
        """See :class:`ConsolidationEngine`; each task is :func:`consolidate` with the data home's cache."""
        from memctl.sleep.consolidate import consolidate

        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="memctl-consolidate")
        pending: dict[Future, int] = {pool.submit(consolidate, t, settings, cache_dir): i for i, t in enumerate(tasks)}
        try:
            while pending:
                done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future
        except BaseException:  # Ctrl-C, an apply that raised (GeneratorExit): drop the queue, let sent calls land
            running = sum(1 for f in pending if f.running())
            if running:
                log(f"stopping: waiting for {running} model call(s) already sent "
                    f"(at most {settings.request_timeout_s:g} s); finished work is cached")
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def model_settings(self, settings: Settings) -> Settings | None:
        """The tasks run here and call ``settings.ollama_host``."""
        return settings


def select_engine(name: str, settings: Settings) -> ConsolidationEngine:
    """The engine called ``name`` (one of :data:`ENGINES`).

    Raises:
        EngineUnavailableError: an unknown name, or ``flyte`` without the extra (the message names
            ``pip install -e '.[flyte]'`` in memctl's checkout).
    """
    if name == "local":
        return LocalEngine()
    if name != "flyte":
        raise EngineUnavailableError(f"unknown sleep engine {name!r}; use one of: {', '.join(ENGINES)}")
    if not flyte_installed():
        raise EngineUnavailableError(f"the flyte engine needs the optional Flyte extra: {FLYTE_EXTRA_HINT}")
    try:
        from memctl.sleep.engines.flyte_engine import FlyteEngine
    except ImportError as exc:  # installed but broken (a partial install, a missing dependency of flyte)
        raise EngineUnavailableError(f"the flyte engine cannot load ({exc}); reinstall it: {FLYTE_EXTRA_HINT}") \
            from exc
    return FlyteEngine(settings)
