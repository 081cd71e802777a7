"""What one ingest run is asked to do: the phases and the options (light: the CLI imports it for ``--help``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path


class Phase(str, Enum):
    """``--phase``: ``distill`` (phase 1), ``add`` (2), ``cognify`` (3), or ``all`` of them in order."""

    all = "all"
    distill = "distill"
    add = "add"
    cognify = "cognify"


PHASES = tuple(p.value for p in Phase)


@dataclass
class IngestOptions:
    """What one `memctl ingest` run does. ``phase`` is a :class:`Phase` value; ``since`` an aware datetime."""

    db: Path
    phase: str = "all"
    dry_run: bool = False
    since: datetime | None = None
    session_ids: tuple[str, ...] = ()
    project: str | None = None
    limit: int | None = None
    reparse_skipped: bool = False
    reparse_all: bool = False
    verify_graph: bool = False  # hand every note to Cognee even when the graph ledger says it holds them
    wait: bool = False  # block on the data-home lock instead of exiting 6
    sources: tuple[str, ...] = ()  # --source: only these (empty: every source found)
    claude_dir: Path | None = None  # --claude-dir (None: CLAUDE_CONFIG_DIR, then ~/.claude)
    codex_home: Path | None = None  # --codex-home (None: CODEX_HOME, then ~/.codex)
    named: tuple[str, ...] = ()  # sources whose location was given on the command line (--db, --claude-dir, --codex-home)

    def source_spec(self) -> tuple[tuple[str, str], ...]:
        """The sources to read and where (:func:`memctl.connectors.registry.discover`)."""
        from memctl.connectors.registry import discover

        return discover(self.sources, {"opencode": self.db, "claude-code": self.claude_dir, "codex": self.codex_home}, self.named)
