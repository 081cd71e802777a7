"""Let go of Cognee's store handles between calls, so a long-lived process never blocks ingest or sleep.

Cognee 1.6.5 runs each dataset's graph store (Kuzu, through the ``ladybug``
fork) in a worker process that holds the store's exclusive file lock for as
long as the engine stays in Cognee's engine cache
(``cognee/infrastructure/databases/utils/closing_lru_cache.py``; entries are
closed on eviction by ``ClosingLRUCache.evict_and_close``). A CLI run exits
and the lock goes with it; ``memctl serve`` stays, so it must evict the
engines itself when ingest or sleep wants the stores. Reopening costs about
1.7 s per search (a new worker per dataset), which is why the server does it
only when needed, not after every call.

Nothing here imports Cognee: when it was never imported there is nothing to release.
"""

from __future__ import annotations

import sys

__all__ = ["release_graph_stores", "release_all_stores"]


def _graph_engine_cache():  # noqa: ANN202 - Cognee's ClosingLRUCache
    module = sys.modules.get("cognee.infrastructure.databases.graph.get_graph_engine")
    factory = getattr(module, "_create_graph_engine", None)
    info = getattr(factory, "cache_info", None)
    return getattr(info, "__self__", None)  # the bound method's owner is the cache itself


def release_graph_stores() -> int:
    """Close every cached graph engine now (their workers release the file locks); returns how many.

    0 when Cognee is not imported or holds no graph engine. Best-effort: a Cognee
    layout this does not know releases nothing (the caller's next search still works).
    """
    cache = _graph_engine_cache()
    if cache is None or not hasattr(cache, "evict_and_close_idle"):
        return 0
    return int(cache.evict_and_close_idle(0.0))


def release_all_stores() -> int:
    """Close every cached subprocess-backed engine (graph and vector); returns how many.

    After an ingest or sleep, the next search opens the stores afresh and sees what they wrote.
    """
    module = sys.modules.get("cognee.infrastructure.databases.utils.closing_lru_cache")
    sweep = getattr(module, "evict_and_close_idle_all", None)
    return int(sweep(0.0)) if sweep is not None else 0
