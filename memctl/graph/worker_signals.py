"""Keep Ctrl-C away from Cognee's database worker processes: only memctl's own process handles it.

A terminal's Ctrl-C sends SIGINT to every process of the foreground process
group: memctl and the graph and vector store workers Cognee 1.6.5 spawns
(``cognee_db_workers``, one ``multiprocessing`` spawn per store). Each worker
then died with a ``KeyboardInterrupt`` traceback of its event loop (~40 lines
apiece) printed before memctl's one-line message, and took its store down in
the middle of a request instead of closing it.

:func:`shield_workers` wraps the context manager every Cognee worker spawn
runs inside (``cognee_db_workers.harness.spawn_without_main``) so that the
spawning thread has SIGINT blocked while the child is created: a spawned
process inherits the signal mask through ``fork``/``exec`` (the technique
CPython's own resource tracker uses for itself, bpo-33613) and Cognee's
worker loop never unblocks it, so the worker never sees Ctrl-C. memctl's
process takes it, stops, and shuts the workers down with their SHUTDOWN
request at exit (:func:`memctl.graph.configure.close`); Cognee's
``PR_SET_PDEATHSIG`` still ends a worker whose parent died. SIGTERM is left
alone: the reaper's ``terminate()`` must still reach a hung worker.

While the main thread spawns, a SIGINT delivered meanwhile is held and raised
again once the spawn is over, so no ``KeyboardInterrupt`` lands between
starting a child and handing it its start-up data (which would leave it to
fail loudly reading it).
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["shield_workers"]

_MARK = "_memctl_sigint_shield"
_UNTOUCHED = object()  # the spawn ran off the main thread: its SIGINT handler was not replaced


def shield_workers() -> bool:
    """Make every later Cognee worker spawn in this process immune to SIGINT; idempotent.

    Returns False when ``cognee_db_workers`` is not installed (nothing to shield), True otherwise.
    """
    try:
        from cognee_db_workers import harness
    except ImportError:
        return False
    spawn = harness.spawn_without_main
    if getattr(spawn, _MARK, False):
        return True
    enter, leave = spawn.__enter__, spawn.__exit__

    def shielded_enter(self: Any) -> Any:
        held: list[int] = []
        previous: Any = _UNTOUCHED
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, lambda signum, _frame: held.append(signum))
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        self._memctl_shield = (held, previous, mask)
        try:
            return enter(self)
        except BaseException:
            _release(self)
            raise

    def shielded_exit(self: Any, *exc: Any) -> Any:
        try:
            return leave(self, *exc)
        finally:
            _release(self)

    spawn.__enter__, spawn.__exit__ = shielded_enter, shielded_exit
    setattr(spawn, _MARK, True)
    return True


def _release(spawn: Any) -> None:
    """Restore the spawning thread's mask and SIGINT handler; raise a SIGINT held meanwhile."""
    state = spawn.__dict__.pop("_memctl_shield", None)
    if state is None:
        return
    held, previous, mask = state
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if previous is not _UNTOUCHED:  # None: a handler not set from Python, so the default
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    if held:
        signal.raise_signal(signal.SIGINT)
