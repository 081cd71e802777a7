"""The memory store a store command works on (from ``--home``), and how its hashes are shown."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from memctl.cli.app import console, labelled, settings_from_flags
from memctl.exit_codes import HomeError

if TYPE_CHECKING:
    from memctl.store import MemoryStore


def store_from_flags(home: Optional[Path]) -> "MemoryStore":
    """The store under the data home ``--home`` names (it may not exist yet: reading an empty store is fine).

    Raises:
        HomeError: the data home or its ``store/`` is a file.
        ConfigError: invalid settings.
    """
    from memctl.config import DataHome
    from memctl.store import MemoryStore

    data_home = DataHome(settings_from_flags(home).home)
    for path in (data_home.root, data_home.store):
        if path.exists() and not path.is_dir():
            raise HomeError(f"{path} is a file, not a data home directory; pass --home DIR (or MEMCTL_HOME)")
    return MemoryStore(data_home.store)


def note_missing_store(store: "MemoryStore") -> None:
    """Say on stderr that no store exists yet (a typo in --home reads as an empty store otherwise)."""
    if not store.root.exists():
        console.print(labelled("note:", "yellow", f" no memory store at {store.root} yet (nothing has been written; "
                                "check --home / MEMCTL_HOME)"), highlight=False)


def short_sha(sha: Optional[str]) -> str:
    """The first 12 hex digits of a sha (``-`` for none), as every store listing shows them."""
    return sha[:12] if sha else "-"
