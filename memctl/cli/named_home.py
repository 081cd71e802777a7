"""Which command may start a data home that does not exist yet, and which must refuse one.

A data home **named** by ``--home``, ``MEMCTL_HOME`` or the config file that does not exist is most often
a typo. Only ``ingest`` (the command that fills a home) and ``serve`` (an agent's MCP server, configured
before the first ingest, answers "nothing ingested yet" until then) start one there, and only when the
parent directory exists (``--home /typo/deeper/home`` is refused rather than created path and all). Commands
that write only configuration pointing at a home (``mcp``, ``hooks``, ``schedule``), ``doctor`` and
``config`` (which report on it) and ``import`` (which restores a home) accept it as it is. Every other
command refuses it with exit 7 before it reads or writes anything. The per-user default home is created
on first use by whichever command writes to it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from memctl.exit_codes import HomeError

if TYPE_CHECKING:
    from memctl.config import Settings

CREATES = frozenset({"ingest", "serve"})
ACCEPTS_MISSING = frozenset({"doctor", "config", "mcp", "hooks", "schedule", "import"})


_running: list[str] = []  # the top-level command the CLI is running (set by the error boundary)


def set_command(name: Optional[str]) -> None:
    """Record the top-level command being run (``"ask"``, ``"mcp"``); None when it ends."""
    _running[:] = [name] if name else []


def current_command() -> Optional[str]:
    """The top-level command the running CLI invoked, or None outside the CLI (library use, tests)."""
    return _running[0] if _running else None


def refuse_missing_named_home(settings: "Settings", home_flag: Optional[Path], command: Optional[str]) -> None:
    """Apply the module's rule to ``settings.home`` for ``command`` (None: not the CLI, nothing checked).

    Raises:
        HomeError: (exit 7) a named home that does not exist, for a command that may not start it, or for
            ``ingest`` when its parent directory does not exist either.
    """
    root = Path(settings.home).absolute()
    if command is None or command in ACCEPTS_MISSING or root.exists():
        return
    from memctl.config import config_file_path
    from memctl.settings_origin import origin_of

    chosen = origin_of("home", settings, {"home": home_flag}, config_file_path())
    if chosen.source == "default":
        return
    if command in CREATES:
        if root.parent.is_dir():
            return
        raise HomeError(f"the data home {root} (from {chosen.where}) cannot be started: its parent {root.parent} "
                        "does not exist; check the path")
    raise HomeError(f"the data home {root} (from {chosen.where}) does not exist; check the path, or start a "
                    f"home there with `memctl ingest --home {shlex.quote(str(root))}`")
