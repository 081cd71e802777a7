"""Configure Cognee for one data home, and run its coroutines.

Nothing outside :mod:`memctl.graph` imports ``cognee``; this module imports
it lazily (in :func:`configure`), so ``memctl --help`` never pays Cognee's
6–8 s import. Order matters: offline assets and the pinned environment
first (:mod:`memctl.graph.offline`, :mod:`memctl.graph.environment`), then
``import cognee``, then the same values through ``cognee.config`` so that
configuration objects Cognee already built (a second call with another home
in the same process) follow.

``LOG_LEVEL`` defaults to ``ERROR`` (only if unset): Cognee configures the
root logger at import and would otherwise print INFO lines and a
multi-screen traceback for the expected tokenizer fallback on stderr.
Cognee's database migrations ``print()`` to stdout on first use; every
Cognee call made through :func:`quiet` runs with ``sys.stdout`` sent to
``sys.stderr`` so memctl's stdout (``--json``) stays clean.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import json
import os
import sys
import threading
from typing import Any, Awaitable, TypeVar

from memctl.config import DataHome, Settings
from memctl.graph.embedding_batches import install as batched_embeddings
from memctl.graph.embedding_record import embedding_mismatch
from memctl.graph.environment import pin_environment
from memctl.graph.errors import GraphConfigError, GraphMemoryError
from memctl.graph.offline import ensure_offline_assets
from memctl.graph.relocate import ensure_location
from memctl.graph.worker_spawn import confine_workers, shield_workers

__all__ = ["BackgroundConfigure", "close", "configure", "configured_home", "is_configured", "quiet", "require_configured",
           "run_sync"]

T = TypeVar("T")

_state_lock = threading.Lock()
_configured: tuple[Any, ...] | None = None
_home: DataHome | None = None


def is_configured() -> bool:
    """Whether :func:`configure` has run in this process."""
    return _configured is not None


def configured_home() -> DataHome:
    """The data home of the last :func:`configure`.

    Raises:
        GraphConfigError: not configured.
    """
    require_configured()
    assert _home is not None
    return _home


def require_configured() -> None:
    """Raise :class:`GraphConfigError` unless :func:`configure` has run."""
    if _configured is None:
        raise GraphConfigError("knowledge_graph.configure(settings, home) must be called first")


def configure(settings: Settings, home: DataHome) -> None:
    """Configure Cognee for ``settings`` with its data under ``home.cognee``.

    Idempotent: a repeated call with equal settings and home does nothing.
    Creates ``home.cognee``, its tiktoken cache and its ``cognee.env``.

    A data home that was moved, copied or restored elsewhere is relocated
    first (:func:`memctl.graph.relocate.ensure_location`).

    Raises:
        GraphConfigError: invalid settings (e.g. non-positive dimensions) or
            Cognee rejected the configuration.
        memctl.graph.relocate.RelocationError: the stores point outside every place the home has been (exit 7).
        HomeBusyError: the home moved and another run holds its lock (exit 6).
        memctl.graph.offline.OfflineAssetError: the tiktoken file is unavailable.
        OSError: ``home.cognee`` cannot be written.
    """
    global _configured, _home
    key = (
        settings.model_provider, settings.model_endpoint, settings.graph_model, settings.embedding_model,
        settings.embedding_dimensions, settings.graph_provider, settings.graph_num_ctx, str(home.root),
        settings.embedding_batch_size,
    )
    with _state_lock:
        if _configured == key:
            return
        if settings.embedding_dimensions <= 0:
            raise GraphConfigError(f"embedding_dimensions must be positive, got {settings.embedding_dimensions}")
        if settings.graph_provider not in ("kuzu", "ladybug"):
            raise GraphConfigError(f"graph_provider must be 'kuzu' or 'ladybug', got {settings.graph_provider!r}")
        if (mismatch := embedding_mismatch(settings, home)) is not None:  # vectors of two models never mix
            raise GraphConfigError(mismatch)
        ensure_location(home)  # a moved or copied home: Cognee's stored paths follow it first
        home.cognee.mkdir(parents=True, exist_ok=True)
        ensure_offline_assets(home.cognee / "tiktoken")
        os.environ.setdefault("LOG_LEVEL", "ERROR")
        env = pin_environment(settings, home)
        try:
            with _stdout_to_stderr():
                _apply_in_code(env)
                batched_embeddings(settings.embedding_batch_size)
        except GraphMemoryError:
            raise
        except Exception as exc:  # pragma: no cover - depends on Cognee internals
            raise GraphConfigError(f"Cognee rejected the configuration: {exc}") from exc
        _register_worker_shutdown()
        shield_workers()
        confine_workers(home.cognee / "worker-home")  # Ladybug's extension probe writes under $HOME
        _configured, _home = key, home


class BackgroundConfigure:
    """:func:`configure` started on a daemon thread, so Cognee's import (6–8 s of a cold process) overlaps
    the caller's own work: a sleep's validation, promotion and consolidation calls, an ingest's distill.

    The caller still calls :func:`configure` before using Cognee: it waits on the module's state lock
    while this thread holds it, then returns at once (same key), or raises the real error when the
    background attempt failed — so a failure here is never lost, only reported on the caller's thread.
    While it runs, ``sys.stdout`` is sent to stderr (:func:`configure` does so around Cognee's import):
    callers start it only where the main thread writes nothing to stdout until :meth:`wait`.
    """

    def __init__(self, settings: Settings, home: DataHome, configure_fn: Any = None) -> None:
        self.error: BaseException | None = None
        self._configure = configure_fn or configure  # the caller's own reference (tests replace it there)
        self._thread = threading.Thread(target=self._run, args=(settings, home), name="memctl-graph-configure",
                                         daemon=True)
        self._thread.start()

    def _run(self, settings: Settings, home: DataHome) -> None:
        try:
            self._configure(settings, home)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the caller's own configure()
            self.error = exc

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the background configure has finished (or ``timeout`` seconds); whether it finished.

        Call before the process exits: a daemon thread stopped mid-import can crash interpreter shutdown.
        """
        self._thread.join(timeout)
        return not self._thread.is_alive()


def _apply_in_code(env: dict[str, str]) -> None:
    """Push the configuration into Cognee's (possibly cached) config objects."""
    import cognee
    from cognee.base_config import get_base_config
    from cognee.infrastructure.databases.cache.config import get_cache_config
    from cognee.infrastructure.llm.config import get_llm_config

    cfg = cognee.config
    base = get_base_config()  # data/cache roots and logs (the system root cascades to the DB paths)
    base.cache_root_directory = env["CACHE_ROOT_DIRECTORY"]
    base.logs_root_directory = env["COGNEE_LOGS_DIR"]
    base.repos_root_directory = env["COGNEE_REPOS_DIR"]
    cfg.set_graph_database_provider(env["GRAPH_DATABASE_PROVIDER"])
    cfg.set_vector_db_provider(env["VECTOR_DB_PROVIDER"])
    cfg.set_relational_db_config({"db_provider": env["DB_PROVIDER"], "db_name": env["DB_NAME"]})
    cfg.system_root_directory(env["SYSTEM_ROOT_DIRECTORY"])
    cfg.data_root_directory(env["DATA_ROOT_DIRECTORY"])
    llm_args = {**(get_llm_config().llm_args or {}), **json.loads(env["LLM_ARGS"])}
    cfg.set_llm_config({
        "llm_args": llm_args,
        "llm_provider": env["LLM_PROVIDER"],
        "llm_model": env["LLM_MODEL"],
        "llm_endpoint": env["LLM_ENDPOINT"],
        "llm_api_key": env["LLM_API_KEY"],
        "structured_output_framework": env["STRUCTURED_OUTPUT_FRAMEWORK"],
    })
    cfg.set_embedding_config({
        "embedding_provider": env["EMBEDDING_PROVIDER"],
        "embedding_model": env["EMBEDDING_MODEL"],
        "embedding_dimensions": int(env["EMBEDDING_DIMENSIONS"]),
        "embedding_endpoint": env["EMBEDDING_ENDPOINT"],
        **({"embedding_api_key": env["EMBEDDING_API_KEY"]} if "EMBEDDING_API_KEY" in env else {}),
    })
    cache = get_cache_config()
    cache.caching = False
    cache.auto_feedback = False


_shutdown_registered = False


def _register_worker_shutdown() -> None:
    """Run :func:`close` at interpreter exit, before Cognee's own worker reaper.

    ``atexit`` runs handlers last-in first-out, so the harness module (which
    registers Cognee's reaper on import) is imported first, then ours.
    """
    global _shutdown_registered
    if _shutdown_registered:
        return
    try:
        import cognee_db_workers.harness  # noqa: F401 - registers Cognee's reaper first
    except ImportError:
        pass
    atexit.register(close)
    _shutdown_registered = True


@contextlib.contextmanager
def _stdout_to_stderr() -> Any:
    """Send stray ``print()`` output of Cognee/alembic/litellm to stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def quiet(fn: Any) -> Any:
    """Decorator: run an async function with stdout sent to stderr."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _stdout_to_stderr():
            return await fn(*args, **kwargs)

    return wrapper


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run ``awaitable`` on this module's private event loop and return its result.

    One loop is reused for the whole process because Cognee keeps
    loop-bound resources (async SQLAlchemy engines, DB worker handles)
    between calls; ``asyncio.run`` per call would strand them. Must not be
    called from inside a running event loop (``RuntimeError``); calls are
    serialized.
    """
    global _loop
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("run_sync() called from a running event loop; await the coroutine instead")
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
        return _loop.run_until_complete(awaitable)


def close() -> None:
    """Shut Cognee's database worker processes down gracefully (registered to run at exit).

    Cognee 1.6.5 runs its graph and vector stores in spawned worker processes
    (``cognee_db_workers``). Left alone, its ``atexit`` reaper never sends them
    the SHUTDOWN request: it joins each for 2 s before terminating it, which
    added ~15 s to every `memctl ingest`. ``SubprocessSession.shutdown`` sends
    SHUTDOWN first, so each worker closes its store and exits at once.
    Best-effort: a failure here never hides the run's result.
    """
    try:
        from cognee_db_workers import harness
    except ImportError:
        return

    def shutdown(session: Any) -> None:
        try:
            session.shutdown(timeout=5.0)
        except Exception:  # noqa: BLE001 - teardown must not mask the run's outcome
            pass

    # In parallel (one at a time costs up to a second per worker). Plain threads: an
    # executor refuses new work once the interpreter is shutting down (atexit).
    threads = [threading.Thread(target=shutdown, args=(session,), daemon=True) for session in list(harness._all_sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10.0)
