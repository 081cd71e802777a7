"""Connect memctl's MCP server to Claude Code: its user-scope ``mcpServers`` entry.

Where: Claude Code keeps user-scope MCP servers in ``.claude.json`` — in
``$CLAUDE_CONFIG_DIR`` when that is set, else in the home directory
(``~/.claude.json``) — under ``mcpServers.<name>`` as ``{"type": "stdio",
"command", "args", "env"}`` (what ``claude mcp add --scope user`` writes;
Claude Code's MCP documentation). The entry runs ``memctl serve`` with
``MEMCTL_HOME`` and every setting this environment gives memctl
(``OLLAMA_HOST`` and each ``MEMCTL_*`` variable), so the server Claude Code
starts reads the same memory with the same settings. Every other key of the
file is kept; the file is written atomically with its permissions. Uninstalling
removes that one entry (what ``claude mcp remove --scope user memctl`` does).
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_text
from memctl.exit_codes import UsageError
from memctl.serve.opencode_config import SERVER_NAME, memctl_command


def claude_json_path(env: dict[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser() / ".claude.json"
    return Path("~/.claude.json").expanduser()


def server_env(home: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment memctl's server needs: ``MEMCTL_HOME`` and every setting set here."""
    env = os.environ if env is None else env
    out = {name: value for name, value in sorted(env.items())
           if name.startswith("MEMCTL_") and name != "MEMCTL_HOME" and value}
    if env.get("OLLAMA_HOST"):
        out["OLLAMA_HOST"] = env["OLLAMA_HOST"]
    return {"MEMCTL_HOME": str(home), **out}


@dataclass(frozen=True)
class ClaudePlan:
    """The memctl entry of ``.claude.json`` before and after (None: none), and the whole file's new text."""

    path: Path
    entry_before: dict[str, Any] | None
    entry_after: dict[str, Any] | None
    text_after: str

    @property
    def changed(self) -> bool:
        """Whether applying the plan changes the entry."""
        return self.entry_before != self.entry_after

    def diff(self) -> str:
        """Unified diff of memctl's entry (the rest of the file is not changed)."""
        def lines(entry: dict[str, Any] | None) -> list[str]:
            return [] if entry is None else (json.dumps({SERVER_NAME: entry}, indent=2) + "\n").splitlines(True)
        return "".join(difflib.unified_diff(lines(self.entry_before), lines(self.entry_after),
                                            fromfile=f"{self.path} mcpServers (now)",
                                            tofile=f"{self.path} mcpServers "
                                                   f"({'with' if self.entry_after is not None else 'without'} memctl)"))


def plan_install(path: Path, home: Path, env: dict[str, str] | None = None) -> ClaudePlan:
    """The edit adding (or updating) memctl under ``mcpServers`` of ``path`` (nothing written).

    Raises:
        UsageError: the file exists but is not a JSON object, or its ``mcpServers`` is not one (exit 2).
    """
    data = _load(path)
    command = memctl_command()
    entry = {"type": "stdio", "command": command[0], "args": command[1:], "env": server_env(home, env)}
    servers = dict(data.get("mcpServers", {}))
    before = servers.get(SERVER_NAME)
    servers[SERVER_NAME] = entry
    return ClaudePlan(path, before if isinstance(before, dict) else None, entry,
                      json.dumps({**data, "mcpServers": servers}, indent=2, ensure_ascii=False) + "\n")


def plan_uninstall(path: Path) -> ClaudePlan:
    """The edit removing memctl (only it) from ``mcpServers`` of ``path``; unchanged when it is not there.

    Raises:
        UsageError: as :func:`plan_install`.
    """
    data = _load(path)
    servers = dict(data.get("mcpServers", {}))
    before = servers.pop(SERVER_NAME, None)
    return ClaudePlan(path, before if isinstance(before, dict) else None, None,
                      json.dumps({**data, "mcpServers": servers}, indent=2, ensure_ascii=False) + "\n")


def _load(path: Path) -> dict[str, Any]:
    """``path`` as a JSON object (``{}`` when the file does not exist).

    Raises:
        UsageError: not valid JSON, or the top level or ``mcpServers`` is not an object.
    """
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise UsageError(f"{path} is not valid JSON ({exc}); fix it first") from exc
        if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
            raise UsageError(f"{path}: the top level or its \"mcpServers\" is not an object; fix it first")
    return data


def apply(plan: ClaudePlan) -> None:
    """Write the new file atomically, keeping an existing file's permissions (new: 0600).

    Raises:
        OSError: the directory is not writable.
    """
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o600
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.path, plan.text_after, mode=mode)
