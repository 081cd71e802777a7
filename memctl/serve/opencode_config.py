"""``memctl mcp install --opencode``: memctl as a ``local`` MCP server in OpenCode's config, in the shape it reads.

OpenCode's config (``opencode.json`` or ``opencode.jsonc``; global under
``$XDG_CONFIG_HOME/opencode/`` — ``~/.config/opencode/`` — or in a project
directory) holds MCP servers in one of two shapes, checked against OpenCode's
source (``packages/opencode/src/config/mcp.ts`` and ``config/v2-compat.ts``):

* ``v1`` (OpenCode 1.x): servers directly under ``mcp``:
  ``{"type": "local", "command": [...], "environment": {...}, "enabled": true}``;
* ``v2``: servers under ``mcp.servers``, with ``disabled`` instead of ``enabled``.

The shape is the existing config's when it shows one (``mcp.servers`` holding
servers → v2; servers directly under ``mcp`` → v1), else the installed
OpenCode's (``opencode --version``: major 2 or later → v2), else v1. The file
is edited in place by :mod:`memctl.serve.jsonc_edit` (comments, trailing
commas and every other key kept) and written atomically with its mode kept.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_text
from memctl.serve.jsonc_edit import parse, set_member

SERVER_NAME = "memctl"
CONFIG_NAMES = ("opencode.jsonc", "opencode.json")
SCHEMA_URL = "https://opencode.ai/config.json"
VERSION_TIMEOUT_S = 5.0
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass
class InstallPlan:
    """One edit of one config file: ``before``/``after`` texts (``before`` empty for a new file)."""

    path: Path
    before: str
    after: str
    shape: str
    shape_reason: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """Unified diff (``a/`` = the file now, ``b/`` = after the edit); empty when nothing changes."""
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)" if self.before else "/dev/null",
                                            tofile=f"{self.path} (with memctl)"))


def global_config_dir() -> Path:
    """``$XDG_CONFIG_HOME/opencode`` (``~/.config/opencode`` when unset), where OpenCode reads its global config."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "opencode"


def config_file(directory: Path) -> Path:
    """The config file in ``directory`` to edit: the one naming MCP servers, else ``opencode.jsonc``, else
    ``opencode.json`` (also for a new file)."""
    existing = [directory / name for name in CONFIG_NAMES if (directory / name).is_file()]
    for path in existing:
        try:
            if "mcp" in (parse(path.read_text(encoding="utf-8")) or {}):
                return path
        except (OSError, ValueError, UnicodeDecodeError):
            continue
    return existing[0] if existing else directory / "opencode.json"


def installed_opencode_version() -> str | None:
    """``opencode --version`` of the OpenCode on PATH, or None (not found, failed, or no version in its output)."""
    binary = shutil.which("opencode")
    if not binary:
        return None
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(out.stdout or "")
    return match.group(0) if match else None


def _is_server(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("type"), str)


def detect_shape(config: Any, version: str | None) -> tuple[str, str]:
    """``(shape, why)`` for a parsed config and the installed OpenCode version (see the module doc)."""
    mcp = config.get("mcp") if isinstance(config, dict) else None
    if isinstance(mcp, dict):
        servers = mcp.get("servers")
        if isinstance(servers, dict) and not _is_server(servers) and (
                not servers or all(_is_server(v) for v in servers.values())):
            return "v2", "the config keeps its servers under mcp.servers"
        if any(_is_server(v) for k, v in mcp.items() if k != "servers"):
            return "v1", "the config keeps its servers directly under mcp"
    if version:
        major = int(_VERSION.search(version).group(1))  # type: ignore[union-attr]
        return ("v2", f"OpenCode {version} is installed") if major >= 2 else ("v1", f"OpenCode {version} is installed")
    return "v1", "no OpenCode version found and the config shows no shape: OpenCode 1.x's shape"


def memctl_command() -> list[str]:
    """The absolute command that starts ``memctl serve`` from any directory (the console script beside this
    Python, else ``python -m memctl.cli``)."""
    script = Path(sys.executable).parent / "memctl"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), "serve"]
    found = shutil.which("memctl")
    if found:
        return [str(Path(found).absolute()), "serve"]
    return [sys.executable, "-m", "memctl.cli", "serve"]


def server_entry(shape: str, command: list[str], home: Path, environment: dict[str, str] | None = None) -> dict:
    """OpenCode's ``local`` server entry for memctl in ``shape`` (``v1``: ``enabled``; ``v2``: ``disabled``).

    ``environment``: the variables the server needs (:func:`memctl.settings_origin.carried_environment`:
    ``MEMCTL_HOME`` and every non-default setting); default ``MEMCTL_HOME`` alone."""
    env = {**(environment or {}), "MEMCTL_HOME": str(home)}
    entry: dict[str, Any] = {"type": "local", "command": command, "environment": dict(sorted(env.items()))}
    entry.update({"enabled": True} if shape == "v1" else {"disabled": False})
    return entry


def entry_path(shape: str) -> list[str]:
    """Where the entry lives: ``mcp.memctl`` (v1) or ``mcp.servers.memctl`` (v2)."""
    return ["mcp", SERVER_NAME] if shape == "v1" else ["mcp", "servers", SERVER_NAME]


def plan_install(directory: Path, home: Path, shape: str = "auto", version: str | None = None,
                 environment: dict[str, str] | None = None) -> InstallPlan:
    """The edit that adds (or updates) memctl in ``directory``'s OpenCode config; nothing is written.
    ``environment``: as :func:`server_entry`'s.

    ``shape`` ``auto`` detects it (``version``: the installed OpenCode's, looked up when None).

    Raises:
        memctl.serve.jsonc_edit.JsoncError: the existing file is not JSON/JSONC, or ``mcp`` is no object (2).
        OSError: the file cannot be read.
    """
    path = config_file(directory)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    config = parse(before)
    if shape == "auto":
        shape, why = detect_shape(config, version if version is not None else installed_opencode_version())
    else:
        why = f"--shape {shape}"
    base = before if before.strip() else json.dumps({"$schema": SCHEMA_URL}, indent=2) + "\n"
    after = set_member(base, entry_path(shape), server_entry(shape, memctl_command(), home, environment))
    return InstallPlan(path=path, before=before, after=after, shape=shape, shape_reason=why)


def apply(plan: InstallPlan) -> None:
    """Write ``plan.after`` atomically (temp file, fsync, rename), keeping an existing file's permissions.

    Raises:
        OSError: the directory is not writable.
    """
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o644
    atomic_write_text(plan.path, plan.after, mode=mode)


def configured_entry(directory: Path) -> tuple[Path, dict | None]:
    """``(config file, memctl's entry or None)`` in ``directory``'s OpenCode config (either shape).

    Raises:
        memctl.serve.jsonc_edit.JsoncError: the file is not JSON/JSONC.
        OSError: unreadable.
    """
    path = config_file(directory)
    if not path.is_file():
        return path, None
    mcp = (parse(path.read_text(encoding="utf-8")) or {}).get("mcp")
    if not isinstance(mcp, dict):
        return path, None
    servers = mcp.get("servers")
    entry = mcp.get(SERVER_NAME) or (servers.get(SERVER_NAME) if isinstance(servers, dict) else None)
    return path, entry if isinstance(entry, dict) else None


def other_clients(home: Path, environment: dict[str, str] | None = None) -> tuple[str, str]:
    """``(claude mcp add … line, generic mcpServers JSON)`` for Claude Code and other MCP clients; both carry
    ``environment`` (as :func:`server_entry`'s) so the server runs with the settings memctl runs with here."""
    import shlex

    command = memctl_command()
    env = dict(sorted({**(environment or {}), "MEMCTL_HOME": str(home)}.items()))
    claude = (f"claude mcp add {SERVER_NAME} "
              + " ".join(f"-e {shlex.quote(f'{key}={value}')}" for key, value in env.items()) + " -- "
              + " ".join(shlex.quote(part) for part in command))
    generic = json.dumps({"mcpServers": {SERVER_NAME: {"command": command[0], "args": command[1:],
                                                       "env": env}}}, indent=2)
    return claude, generic


def opencode_status(home: Path, project: Path | None = None) -> tuple[str, str, str]:
    """``(status, detail, fix)`` for ``memctl doctor``: whether OpenCode's global config (and ``project``'s, when
    given) starts memctl's MCP server for ``home``. ``status``: ok (it does, or none is configured: optional) |
    warn (it runs memctl for another data home, or a config cannot be read)."""
    found: list[str] = []
    for directory in [global_config_dir(), *([project] if project is not None else [])]:
        try:
            path, entry = configured_entry(directory)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            return "warn", f"cannot read OpenCode's config in {directory}: {exc}", "fix the file's JSON"
        if entry is None:
            continue
        configured = (entry.get("environment") or {}).get("MEMCTL_HOME")
        if configured and Path(configured).expanduser().absolute() != home:
            return ("warn", f"{path} runs memctl for {configured}, not {home}",
                    f"memctl mcp install --opencode --home {home}")
        off = entry.get("enabled") is False or entry.get("disabled") is True
        found.append(f"{path}{' (disabled)' if off else ''}")
    if found:
        return "ok", "memctl serve configured in " + ", ".join(found), ""
    return "ok", "not configured (optional: `memctl mcp install --opencode` lets OpenCode use this memory)", ""
