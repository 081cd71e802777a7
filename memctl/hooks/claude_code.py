"""Capture while Claude Code works: a ``SessionEnd`` hook in its ``settings.json`` that ingests the session.

Install (:func:`plan_install` → diff → :func:`apply`): ``<claude dir>/settings.json``
gets, under ``hooks.SessionEnd``, one matcher group whose command hook runs
``memctl hooks run claude-code`` (with the data home, the Claude directory and
``OLLAMA_HOST`` when set, so the hook reaches the same memory whatever
environment Claude Code runs in). Format from Claude Code's hooks reference
(``{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": …,
"timeout": s}]}]}}``; the hook gets ``{"session_id", "transcript_path",
"cwd", "hook_event_name", "reason"}`` as JSON on stdin). Every other key
and hook stays as it is; an earlier memctl hook (recognised by
:data:`MARKER` in its command) is replaced, not added twice.
:func:`plan_uninstall` removes only memctl's hooks.

Run (:func:`spawn_ingest`): reads the hook's JSON, starts ``memctl ingest
--source claude-code --session <id> --wait`` detached (own session, stdin
closed, output appended to ``<data home>/logs/hooks.log``) and returns at
once, so the hook never blocks or slows Claude Code. The session has ended, so
it is not left to settle (``MEMCTL_SETTLE_MINUTES=0``). One ingest at a time:
``--wait`` queues it behind a running one on the data-home lock.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_text
from memctl.exit_codes import UsageError

MARKER = "hooks run claude-code"
"""What identifies memctl's hook command in settings.json."""

HOOK_TIMEOUT_S = 10
"""Claude Code's timeout for the hook (seconds); the hook returns in well under one."""

_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


@dataclass(frozen=True)
class HookPlan:
    """One edit of ``settings.json``: its text before (empty: no file) and after."""

    path: Path
    before: str
    after: str

    @property
    def changed(self) -> bool:
        """Whether applying the plan changes the file."""
        return self.before != self.after

    def diff(self) -> str:
        """Unified diff of the edit; empty when nothing changes."""
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)" if self.before else "/dev/null",
                                            tofile=f"{self.path} (after)"))


def hook_command(home: Path, claude_dir: Path, env: dict[str, str] | None = None) -> str:
    """The shell command Claude Code runs at the end of a session."""
    env = os.environ if env is None else env
    prefix = f"OLLAMA_HOST={shlex.quote(env['OLLAMA_HOST'])} " if env.get("OLLAMA_HOST") else ""
    program = f"{shlex.quote(sys.executable)} -m memctl.cli"
    return (f"{prefix}{program} {MARKER} --home {shlex.quote(str(home))} "
            f"--claude-dir {shlex.quote(str(claude_dir))}")


def _load(path: Path) -> tuple[str, dict[str, Any]]:
    if not path.exists():
        return "", {}
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix it first, memctl does not rewrite it") from exc
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise UsageError(f"{path}: the top level or its \"hooks\" is not an object; fix it first")
    return text, data


def _without_ours(groups: Any) -> list[Any]:
    out = []
    for group in groups if isinstance(groups, list) else []:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(hooks, list):
            kept = [h for h in hooks if not (isinstance(h, dict) and MARKER in str(h.get("command", "")))]
            if not kept:
                continue
            group = {**group, "hooks": kept}
        out.append(group)
    return out


def _render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plan_install(claude_dir: Path, home: Path, env: dict[str, str] | None = None) -> HookPlan:
    """The edit adding memctl's ``SessionEnd`` hook to ``<claude_dir>/settings.json`` (nothing written).

    Raises:
        UsageError: the file exists but is not a JSON object (exit 2).
    """
    path = claude_dir / "settings.json"
    before, data = _load(path)
    hooks = dict(data.get("hooks", {}))
    groups = _without_ours(hooks.get("SessionEnd"))
    groups.append({"hooks": [{"type": "command", "command": hook_command(home, claude_dir, env),
                              "timeout": HOOK_TIMEOUT_S}]})
    hooks["SessionEnd"] = groups
    after = _render({**data, "hooks": hooks})
    return HookPlan(path, before, before if before and json.loads(before) == json.loads(after) else after)


def plan_uninstall(claude_dir: Path) -> HookPlan:
    """The edit removing memctl's hooks (only those) from ``<claude_dir>/settings.json``.

    Raises:
        UsageError: the file exists but is not a JSON object (exit 2).
    """
    path = claude_dir / "settings.json"
    before, data = _load(path)
    if not before:
        return HookPlan(path, "", "")
    hooks = dict(data.get("hooks", {}))
    for event in list(hooks):
        groups = _without_ours(hooks[event])
        if groups:
            hooks[event] = groups
        else:
            del hooks[event]
    new = {**data, "hooks": hooks} if hooks else {k: v for k, v in data.items() if k != "hooks"}
    return HookPlan(path, before, before if new == data else _render(new))


def apply(plan: HookPlan) -> None:
    """Write ``plan.after`` atomically, keeping an existing file's permissions.

    Raises:
        OSError: the directory is not writable.
    """
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o600
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.path, plan.after, mode=mode)


def spawn_ingest(stdin_text: str, home: Path, claude_dir: Path | None, log: Path) -> subprocess.Popen:
    """Start the ingest of the hook's session, detached; returns the started process.

    Raises:
        UsageError: the hook input is not JSON with a valid ``session_id`` (exit 2).
    """
    try:
        payload = json.loads(stdin_text or "{}")
    except ValueError as exc:
        raise UsageError(f"hook input is not JSON: {exc}") from exc
    session = payload.get("session_id") if isinstance(payload, dict) else None
    if not isinstance(session, str) or not _SESSION_ID.match(session):
        raise UsageError("hook input has no valid session_id")
    command = [sys.executable, "-m", "memctl.cli", "ingest", "--source", "claude-code", "--session", session,
               "--home", str(home), "--wait"]
    if claude_dir is not None:
        command += ["--claude-dir", str(claude_dir)]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
                                close_fds=True, env={**os.environ, "MEMCTL_SETTLE_MINUTES": "0"})
