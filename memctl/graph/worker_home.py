"""Cognee's database workers run with ``HOME`` inside the data home, so nothing they write lands in the user's home.

Cognee 1.6.5 drives Kuzu through Ladybug in a spawned worker (``cognee_db_workers.kuzu_worker``), which loads
Ladybug's JSON extension from the copy bundled in the wheel. To find which bundled file to load it first asks
Ladybug with a deliberately failing ``INSTALL JSON FROM '/cognee-nonexistent-extension-repo/'``
(``cognee_db_workers._kuzu_helpers._requested_extension_relpath``), and Ladybug creates
``$HOME/.lbdb/extension/<version>/<platform>/json`` before it fails (its ``ClientContext::getUserHomeDir`` reads
``HOME``). A fresh reviewer found those empty folders in their own home after a ``sleep``: memctl promises that
everything it keeps is under the data home. Nothing is downloaded: the bundled binary loads.

A worker is spawned (``multiprocessing``'s spawn: a new interpreter started with the process environment as it is
at ``Process.start()``) inside ``cognee_db_workers.harness.spawn_without_main``. :func:`confine_workers` wraps that
context manager so ``HOME`` is ``<home>/cognee/worker-home`` for the moment of the spawn only; memctl's own
process keeps the user's ``HOME`` (the harness holds a lock across the spawn, so two spawns never interleave).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["confine_workers"]

_MARK = "_memctl_worker_home"
_target: dict[str, Path] = {}  # "home" → the folder later spawns use (the last configured data home's)


def confine_workers(worker_home: Path) -> bool:
    """Make every later Cognee worker spawn in this process start with ``HOME=worker_home`` (created when a
    worker is spawned); a later call changes the folder for later spawns. Returns False when
    ``cognee_db_workers`` is not installed (no workers), True otherwise.

    Raises:
        nothing; a folder that cannot be created leaves ``HOME`` as it is for that spawn.
    """
    _target["home"] = Path(worker_home)
    try:
        from cognee_db_workers import harness
    except ImportError:
        return False
    spawn = harness.spawn_without_main
    if getattr(spawn, _MARK, False):
        return True
    enter, leave = spawn.__enter__, spawn.__exit__

    def confined_enter(self: Any) -> Any:
        entered = enter(self)  # takes the harness's spawn lock first: HOME changes under it
        saved = os.environ.get("HOME")
        folder = _target.get("home")
        try:
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                os.environ["HOME"] = str(folder)
        except OSError:
            folder = None
        self._memctl_home = (folder is not None, saved)
        return entered

    def confined_exit(self: Any, *exc: Any) -> Any:
        changed, saved = self.__dict__.pop("_memctl_home", (False, None))
        if changed:
            if saved is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = saved
        return leave(self, *exc)

    spawn.__enter__, spawn.__exit__ = confined_enter, confined_exit
    setattr(spawn, _MARK, True)
    return True
