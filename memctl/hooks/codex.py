"""Capture Codex sessions while the agent works: memctl as Codex's ``notify`` program.

Codex CLI runs the program named by the top-level ``notify`` array of
``$CODEX_HOME/config.toml`` after every agent turn, with one more argument: a
JSON object (``{"type": "agent-turn-complete", "thread-id": …, "turn-id": …,
"cwd": …, "input-messages": […], "last-assistant-message": …}``; Codex's
``docs/config.md``, section ``notify``). memctl's program is
:mod:`memctl.hooks.codex_notify`: it returns at once and leaves a detached
``memctl ingest --source codex --session <thread id>`` behind.

This module only plans the config edit: :func:`plan_install` and
:func:`plan_uninstall` return a :class:`HookPlan` (the file now and after,
with a unified diff to show first) and :func:`apply` writes it atomically,
keeping the file's mode. The file is edited with ``tomlkit``, so comments,
order and every other key stay as they were. Codex has one ``notify``
program: a program already there is kept and run after memctl's (its argv is
carried behind ``--then``), and uninstalling puts it back.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from memctl.atomic import atomic_write_text
from memctl.exit_codes import USAGE, ExitCodeError

__all__ = ["HookConfigError", "HookPlan", "NOTIFY_MODULE", "apply", "config_path", "installed_argv", "is_ours",
           "notify_argv", "plan_install", "plan_uninstall"]

NOTIFY_MODULE = "memctl.hooks.codex_notify"
THEN_FLAG = "--then"
ENV_FLAG = "--env"


class HookConfigError(ExitCodeError):
    """``config.toml`` cannot be edited: not TOML, or ``notify`` is not an array of strings (exit 2)."""

    exit_code = USAGE


@dataclass
class HookPlan:
    """One edit of Codex's ``config.toml``: ``before`` ('' for a new file) and ``after``."""

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


def config_path(codex_home: Path) -> Path:
    """``<CODEX_HOME>/config.toml``."""
    return Path(codex_home) / "config.toml"


def carried_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The settings the ingest needs from this environment: ``OLLAMA_HOST`` and every ``MEMCTL_*`` variable but
    ``MEMCTL_HOME`` (given as ``--home``). Codex starts ``notify`` with its own environment, which may lack them."""
    env = os.environ if env is None else env
    out = {name: value for name, value in sorted(env.items())
           if name.startswith("MEMCTL_") and name != "MEMCTL_HOME" and value}
    if env.get("OLLAMA_HOST"):
        out["OLLAMA_HOST"] = env["OLLAMA_HOST"]
    return out


def notify_argv(home: Path | None, python: str | None = None, env: dict[str, str] | None = None) -> list[str]:
    """memctl's notify program: ``<python> -m memctl.hooks.codex_notify [--home DIR] [--env NAME=VALUE …]``
    (absolute python; ``--env``: :func:`carried_env` of ``env``, none when ``env`` is None)."""
    argv = [python or sys.executable, "-m", NOTIFY_MODULE]
    if home is not None:
        argv += ["--home", str(Path(home).expanduser().absolute())]
    for name, value in (env or {}).items():
        argv += [ENV_FLAG, f"{name}={value}"]
    return argv


def is_ours(value: object) -> bool:
    """Whether a ``notify`` value is memctl's program."""
    return isinstance(value, list) and NOTIFY_MODULE in [str(v) for v in value]


def _load(path: Path) -> tuple[str, tomlkit.TOMLDocument]:
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        doc = tomlkit.parse(before)
    except TOMLKitError as exc:
        raise HookConfigError(f"{path} is not valid TOML ({exc}); fix it or pass another --codex-home") from exc
    notify = doc.get("notify")
    if notify is not None and not (isinstance(notify, list) and all(isinstance(v, str) for v in notify)):
        raise HookConfigError(f"{path}: notify must be an array of strings (the program and its arguments)")
    return before, doc


def installed_argv(codex_home: Path) -> list[str] | None:
    """The ``notify`` argv when it is memctl's, else None.

    Raises:
        HookConfigError: the file is not TOML or ``notify`` has the wrong type.
    """
    _, doc = _load(config_path(codex_home))
    notify = doc.get("notify")
    return [str(v) for v in notify] if is_ours(notify) else None


def _previous(argv: list[str]) -> list[str] | None:
    """The program memctl's argv carries behind ``--then`` (JSON), or None."""
    if THEN_FLAG in argv and argv.index(THEN_FLAG) + 1 < len(argv):
        try:
            value = json.loads(argv[argv.index(THEN_FLAG) + 1])
        except ValueError:
            return None
        if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
            return value
    return None


def _array(values: list[str]):
    array = tomlkit.array()
    array.extend(values)
    return array


def plan_install(codex_home: Path, home: Path | None, *, python: str | None = None,
                 env: dict[str, str] | None = None) -> HookPlan:
    """The edit that makes memctl Codex's ``notify`` program (nothing is written).

    An existing non-memctl ``notify`` program is chained (run after memctl's);
    an older memctl entry is replaced, keeping what it chained. ``env``: the
    settings carried to the ingest (``--env NAME=VALUE``; None: none; the CLI
    passes :func:`carried_env`).

    Raises:
        HookConfigError: the file is not TOML or ``notify`` has the wrong type (exit 2).
        OSError: the file cannot be read.
    """
    path = config_path(codex_home)
    before, doc = _load(path)
    current = doc.get("notify")
    current_list = [str(v) for v in current] if current is not None else None
    chained = _previous(current_list) if is_ours(current_list) else current_list
    argv = notify_argv(home, python, env)
    if chained:
        argv += [THEN_FLAG, json.dumps(chained)]
    if current is not None:
        doc["notify"] = _array(argv)
    else:
        # A top-level key must come before the first table: put it first in the file.
        fresh = tomlkit.document()
        fresh["notify"] = _array(argv)
        after = tomlkit.dumps(fresh) + ("\n" + before if before.strip() else "")
        return HookPlan(path=path, before=before, after=after)
    return HookPlan(path=path, before=before, after=tomlkit.dumps(doc))


def plan_uninstall(codex_home: Path) -> HookPlan:
    """The edit that removes memctl's ``notify`` (restoring a chained program); no change when it is not there.

    Raises:
        HookConfigError: the file is not TOML or ``notify`` has the wrong type (exit 2).
        OSError: the file cannot be read.
    """
    path = config_path(codex_home)
    before, doc = _load(path)
    current = doc.get("notify")
    if not is_ours(current):
        return HookPlan(path=path, before=before, after=before)
    chained = _previous([str(v) for v in current])
    if chained:
        doc["notify"] = _array(chained)
    else:
        del doc["notify"]
    return HookPlan(path=path, before=before, after=tomlkit.dumps(doc))


def apply(plan: HookPlan) -> None:
    """Write ``plan.after`` atomically (temp file, fsync, rename), keeping an existing file's mode.

    Raises:
        OSError: the directory is not writable.
    """
    if not plan.changed:
        return
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o600
    atomic_write_text(plan.path, plan.after, mode=mode)
