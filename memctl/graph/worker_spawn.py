"""One wrapper around every Cognee database worker spawn: the worker starts with SIGINT blocked and with ``HOME``
inside the data home.

Cognee 1.6.5 runs its graph and vector stores in worker processes (``cognee_db_workers``, one ``multiprocessing``
spawn per store: a new interpreter started with the process environment and signal mask as they are at
``Process.start()``), always inside the context manager ``cognee_db_workers.harness.spawn_without_main``, which
holds a lock across the spawn. :func:`shield_workers` and :func:`confine_workers` patch that context manager once,
with one wrapper, and each switches on its own guard:

- **SIGINT shield.** A terminal's Ctrl-C goes to the whole foreground process group; each worker then died with a
  ``KeyboardInterrupt`` traceback of its event loop (~40 lines apiece) before memctl's one-line message, and took its
  store down mid-request. The spawning thread blocks SIGINT around the spawn, so the child inherits the blocked mask
  (the technique CPython's own resource tracker uses, bpo-33613) and Cognee's worker loop never unblocks it. memctl's
  process takes Ctrl-C and shuts the workers down with their SHUTDOWN request at exit
  (:func:`memctl.graph.configure.close`); ``PR_SET_PDEATHSIG`` still ends a worker whose parent died, and SIGTERM is
  left alone so the reaper's ``terminate()`` reaches a hung worker. A SIGINT delivered during the spawn on the main
  thread is held and raised again once the spawn is over, so no ``KeyboardInterrupt`` lands between starting a child
  and handing it its start-up data.
- **Worker home.** The Kuzu worker loads Ladybug's bundled JSON extension, and to find it first runs a deliberately
  failing ``INSTALL JSON FROM '/cognee-nonexistent-extension-repo/'``
  (``cognee_db_workers._kuzu_helpers._requested_extension_relpath``); Ladybug creates
  ``$HOME/.lbdb/extension/<version>/<platform>/json`` before it fails (``ClientContext::getUserHomeDir`` reads
  ``HOME``). A fresh reviewer found those folders in their own home after a ``sleep``; memctl keeps everything under
  the data home, so ``HOME`` is ``<home>/cognee/worker-home`` for the moment of the spawn only (under the harness's
  lock, so two spawns never interleave); memctl's own process keeps the user's ``HOME``. Nothing is downloaded.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

__all__ = ["confine_workers", "shield_workers"]

_MARK = "_memctl_spawn_guard"
_UNTOUCHED = object()  # the spawn ran off the main thread: its SIGINT handler was not replaced
# What later spawns do: "shield" → True once shield_workers ran; "home" → the worker HOME (the last data home's).
_guards: dict[str, Any] = {}


def shield_workers() -> bool:
    """Make every later Cognee worker spawn in this process immune to SIGINT; idempotent.

    Returns:
        False when ``cognee_db_workers`` is not installed (nothing to shield), True otherwise.
    """
    _guards["shield"] = True
    return _install()


def confine_workers(worker_home: Path) -> bool:
    """Make every later Cognee worker spawn in this process start with ``HOME=worker_home`` (created when a worker is
    spawned); a later call changes the folder for later spawns.

    Returns:
        False when ``cognee_db_workers`` is not installed (no workers), True otherwise.

    Raises:
        nothing; a folder that cannot be created leaves ``HOME`` as it is for that spawn.
    """
    _guards["home"] = Path(worker_home)
    return _install()


def _install() -> bool:
    """Wrap ``spawn_without_main``'s enter and exit once; the wrapper reads :data:`_guards` at each spawn."""
    try:
        from cognee_db_workers import harness
    except ImportError:
        return False
    spawn = harness.spawn_without_main
    if getattr(spawn, _MARK, False):
        return True
    enter, leave = spawn.__enter__, spawn.__exit__

    def guarded_enter(self: Any) -> Any:
        if _guards.get("shield"):
            _block_sigint(self)  # before the harness's enter: the spawn happens inside it
        try:
            entered = enter(self)  # takes the harness's spawn lock: HOME changes under it
        except BaseException:
            _release_sigint(self)
            raise
        _enter_home(self)
        return entered

    def guarded_exit(self: Any, *exc: Any) -> Any:
        _leave_home(self)
        try:
            return leave(self, *exc)
        finally:
            _release_sigint(self)

    spawn.__enter__, spawn.__exit__ = guarded_enter, guarded_exit
    setattr(spawn, _MARK, True)
    return True


def _block_sigint(spawn: Any) -> None:
    """Block SIGINT in the spawning thread and hold one delivered meanwhile (main thread only)."""
    held: list[int] = []
    previous: Any = _UNTOUCHED
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda signum, _frame: held.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    spawn._memctl_shield = (held, previous, mask)


def _release_sigint(spawn: Any) -> None:
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


def _enter_home(spawn: Any) -> None:
    """Point ``HOME`` at the worker home for this spawn; remember what to restore."""
    saved = os.environ.get("HOME")
    folder = _guards.get("home")
    try:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            os.environ["HOME"] = str(folder)
    except OSError:
        folder = None
    spawn._memctl_home = (folder is not None, saved)


def _leave_home(spawn: Any) -> None:
    """Put ``HOME`` back as it was before :func:`_enter_home`."""
    changed, saved = spawn.__dict__.pop("_memctl_home", (False, None))
    if changed:
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved
