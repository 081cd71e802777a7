"""Capture OpenCode sessions while the agent works: a plugin file that ingests each session that goes idle.

OpenCode loads every ``*.js``/``*.ts`` file in ``plugin/`` (or ``plugins/``) of
its global config directory (``$XDG_CONFIG_HOME/opencode``) or of a project's
``.opencode/`` as a plugin: a module exporting an async function that returns
hooks; the ``event`` hook receives every bus event, and ``session.idle``
(properties ``{sessionID}``) is published when the agent finishes its work on
a session (OpenCode's ``packages/plugin`` ``Hooks.event`` and its
``session.idle`` bus event; checked against OpenCode 1.18.34).

memctl's plugin (:data:`PLUGIN_NAME`) starts, detached and without waiting,
``<python> -m memctl.hooks.codex_notify --source opencode --session <id>
[--home DIR] [--env NAME=VALUE …]``: that program returns at once and leaves
the bounded runner behind (one queued run per session, waits for the data
home's lock, ``memctl ingest --source opencode --session <id> --wait`` with
``MEMCTL_SETTLE_MINUTES=0``; log ``<home>/logs/hooks/opencode-idle.log``).

:func:`plan_install` and :func:`plan_uninstall` return a
:class:`~memctl.hooks.codex.HookPlan` (``after`` empty: the file is removed);
:func:`apply` writes atomically (mode kept) or removes only memctl's file.
"""

from __future__ import annotations

import json
from pathlib import Path

from memctl.atomic import atomic_write_text
from memctl.exit_codes import USAGE, ExitCodeError
from memctl.hooks.codex import HookPlan, notify_argv

__all__ = ["MARKER", "PLUGIN_NAME", "OpencodePluginError", "apply", "plan_install", "plan_uninstall", "plugin_path",
           "plugin_text"]

PLUGIN_NAME = "memctl-capture.js"
MARKER = "// memctl: capture OpenCode sessions"

_TEMPLATE = """{marker} (written by `memctl hooks install --opencode`;
// `memctl hooks uninstall --opencode` removes this file). On each session.idle event it starts memctl's
// detached runner for that session and returns at once; the runner logs to <home>/logs/hooks/opencode-idle.log.
import {{ spawn }} from "node:child_process"

const RUNNER = {argv}

export const MemctlPlugin = async () => ({{
  event: async ({{ event }}) => {{
    if (event?.type !== "session.idle") return
    const id = event.properties?.sessionID
    if (typeof id !== "string" || !id) return
    try {{
      const child = spawn(RUNNER[0], [...RUNNER.slice(1), "--session", id], {{ detached: true, stdio: "ignore" }})
      child.on("error", () => {{}})
      child.unref()
    }} catch {{
      // never break OpenCode over a missed capture
    }}
  }},
}})
"""


class OpencodePluginError(ExitCodeError):
    """The plugin path holds a file that is not memctl's (exit 2): it is left alone."""

    exit_code = USAGE


def plugin_path(config_dir: Path) -> Path:
    """``<config_dir>/plugin/memctl-capture.js`` (``config_dir``: OpenCode's global config dir or a project's
    ``.opencode``)."""
    return Path(config_dir) / "plugin" / PLUGIN_NAME


def plugin_text(home: Path | None, *, python: str | None = None, env: dict[str, str] | None = None) -> str:
    """The plugin's JavaScript source (an ES module; ``env``: the settings carried as ``--env NAME=VALUE``)."""
    argv = notify_argv(home, python, env)
    argv[3:3] = ["--source", "opencode"]
    return _TEMPLATE.format(marker=MARKER, argv=json.dumps(argv))


def _read(path: Path) -> str:
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    if before and not before.startswith(MARKER):
        raise OpencodePluginError(f"{path} exists and is not memctl's plugin; move it or pass another "
                                  "--opencode-config")
    return before


def plan_install(config_dir: Path, home: Path | None, *, python: str | None = None,
                 env: dict[str, str] | None = None) -> HookPlan:
    """The plugin file to write (nothing is written); an older memctl plugin is replaced.

    Raises:
        OpencodePluginError: a file not written by memctl is at :func:`plugin_path` (exit 2).
        OSError: the file cannot be read.
    """
    path = plugin_path(config_dir)
    return HookPlan(path=path, before=_read(path), after=plugin_text(home, python=python, env=env))


def plan_uninstall(config_dir: Path) -> HookPlan:
    """Removing memctl's plugin file (``after`` empty); no change when it is absent.

    Raises:
        OpencodePluginError: the file there is not memctl's (exit 2).
    """
    path = plugin_path(config_dir)
    return HookPlan(path=path, before=_read(path), after="")


def apply(plan: HookPlan) -> None:
    """Write ``plan.after`` atomically keeping an existing file's mode (new: 0644), or remove the file when
    ``plan.after`` is empty.

    Raises:
        OSError: the directory is not writable.
    """
    if not plan.changed:
        return
    if not plan.after:
        plan.path.unlink(missing_ok=True)
        return
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o644
    atomic_write_text(plan.path, plan.after, mode=mode)
