"""Connect memctl's MCP server to Codex CLI: the ``[mcp_servers.memctl]`` table of its ``config.toml``.

Where: ``$CODEX_HOME/config.toml`` (``--codex-home`` > ``CODEX_HOME`` >
``~/.codex``). Codex starts each ``[mcp_servers.<name>]`` as a stdio server
from ``command``, ``args`` and ``env`` (a table of variables), waiting
``startup_timeout_sec`` for it to answer (Codex's ``docs/config.md``, section
``mcp_servers``; ``codex mcp list --json`` of Codex 0.171 shows these fields).
The entry runs ``memctl serve`` with ``MEMCTL_HOME`` and every setting this
environment gives memctl (``OLLAMA_HOST`` and each ``MEMCTL_*`` variable,
:func:`memctl.serve.claude_config.server_env`), so the server Codex starts
reads the same memory with the same settings.

The file is edited with ``tomlkit``: comments, order and every other key and
table stay as they were; only ``mcp_servers.memctl`` is added, replaced or
(uninstall) removed. The diff shown first is of the whole file. The write is
atomic and keeps the file's mode (a new file: 0600).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from memctl.atomic import atomic_write_text
from memctl.exit_codes import UsageError
from memctl.serve.claude_config import server_env
from memctl.serve.opencode_config import SERVER_NAME, memctl_command

__all__ = ["STARTUP_TIMEOUT_S", "CodexPlan", "apply", "plan_install", "plan_uninstall"]

STARTUP_TIMEOUT_S = 60
"""``startup_timeout_sec`` of the entry: ``memctl serve`` loads its stores before it answers (Codex's default is 10 s)."""


@dataclass(frozen=True)
class CodexPlan:
    """One edit of Codex's ``config.toml``: the text ``before`` ('' for a new file) and ``after``."""

    path: Path
    before: str
    after: str

    @property
    def changed(self) -> bool:
        """Whether applying the plan changes the file."""
        return self.before != self.after

    def diff(self) -> str:
        """Unified diff of the file; empty when nothing changes."""
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)" if self.before else "/dev/null",
                                            tofile=f"{self.path} (after)"))


def _load(path: Path) -> tuple[str, tomlkit.TOMLDocument]:
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        doc = tomlkit.parse(before)
    except TOMLKitError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}); fix it or pass another --codex-home") from exc
    servers = doc.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise UsageError(f"{path}: mcp_servers is not a table; fix it first")
    return before, doc


def plan_install(path: Path, home: Path, env: dict[str, str] | None = None) -> CodexPlan:
    """The edit adding (or updating) ``[mcp_servers.memctl]`` in ``path`` (nothing written).

    Args:
        path: Codex's ``config.toml`` (may not exist yet).
        home: memctl's data home (absolute), passed as ``MEMCTL_HOME``.
        env: the environment whose settings are carried (default: this process's).

    Raises:
        UsageError: the file is not TOML, or its ``mcp_servers`` is not a table (exit 2).
        OSError: the file cannot be read.
    """
    before, doc = _load(path)
    command = memctl_command()
    entry = tomlkit.table()
    entry["command"] = command[0]
    entry["args"] = command[1:]
    entry["startup_timeout_sec"] = STARTUP_TIMEOUT_S
    variables = tomlkit.inline_table()
    variables.update(server_env(home, env))
    entry["env"] = variables
    entry.add(tomlkit.nl())  # a blank line before whatever table follows
    current = doc.get("mcp_servers", {}).get(SERVER_NAME)
    if current is not None and current.unwrap() == entry.unwrap():
        return CodexPlan(path, before, before)
    if "mcp_servers" not in doc:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    doc["mcp_servers"][SERVER_NAME] = entry
    return CodexPlan(path, before, tomlkit.dumps(doc))


def plan_uninstall(path: Path) -> CodexPlan:
    """The edit removing ``[mcp_servers.memctl]`` (an emptied ``mcp_servers`` goes too); no change when absent.

    Raises:
        UsageError: the file is not TOML, or its ``mcp_servers`` is not a table (exit 2).
        OSError: the file cannot be read.
    """
    before, doc = _load(path)
    servers = doc.get("mcp_servers")
    if servers is None or SERVER_NAME not in servers:
        return CodexPlan(path, before, before)
    del servers[SERVER_NAME]
    if not servers:
        del doc["mcp_servers"]
    return CodexPlan(path, before, tomlkit.dumps(doc))


def apply(plan: CodexPlan) -> None:
    """Write ``plan.after`` atomically, keeping an existing file's mode (new: 0600, directory made).

    Raises:
        OSError: the directory is not writable.
    """
    if not plan.changed:
        return
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o600
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.path, plan.after, mode=mode)
