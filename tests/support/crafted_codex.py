"""Crafted Codex rollouts in the shapes the real binary writes (tests only).

Records follow the fixture ``tests/fixtures/codex-0.171/`` (written by Codex
0.171.0): ``{"timestamp", "type", "payload"}`` lines with ``session_meta``,
``response_item`` (``message``, ``reasoning``, ``function_call``,
``function_call_output``…), ``event_msg``, ``turn_context``, ``compacted``.
The early, unwrapped shape (bare meta on the first line, bare response items,
``{"record_type": "state"}``) follows the format Codex documented before the
wrapper. Everything here is CRAFTED: tests on it show the reader's handling
of a shape, never that real files have it -- the fixture does that.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "codex-0.171"


def stamp(second: int) -> str:
    """An ISO time ``second`` seconds after 2026-11-30T10:00:00Z."""
    minutes, sec = divmod(second, 60)
    return f"2026-11-30T1{minutes // 60}:{minutes % 60:02d}:{sec:02d}.000Z"


def new_id(n: int) -> str:
    """A stable uuid-shaped thread id."""
    return str(uuid.UUID(int=0x01A2_0000_0000_7000_8000_000000000000 + n))


def rec(kind: str, payload: dict[str, Any], second: int = 0) -> dict[str, Any]:
    """One wrapped rollout record."""
    return {"timestamp": stamp(second), "type": kind, "payload": payload}


def meta(sid: str, cwd: str = "/work/proj", second: int = 0, **extra: Any) -> dict[str, Any]:
    """A ``session_meta`` record (0.171 field names)."""
    return rec("session_meta", {"id": sid, "session_id": sid, "timestamp": stamp(second), "cwd": cwd,
                                "originator": "codex_exec", "cli_version": "0.171.0", "source": "exec",
                                "model_provider": "fake", "git": {}, **extra}, second)


def user(text: str, second: int = 1) -> dict[str, Any]:
    """A user ``message`` response item."""
    return rec("response_item", {"type": "message", "role": "user", "id": f"msg_u{second}",
                                 "content": [{"type": "input_text", "text": text}]}, second)


def assistant(text: str, second: int = 2) -> dict[str, Any]:
    """An assistant ``message`` response item."""
    return rec("response_item", {"type": "message", "role": "assistant", "id": f"msg_a{second}", "status": "completed",
                                 "content": [{"type": "output_text", "text": text, "annotations": []}]}, second)


def reasoning(summary: str, second: int = 2) -> dict[str, Any]:
    """A reasoning item: readable summary plus opaque encrypted content."""
    return rec("response_item", {"type": "reasoning", "id": f"rs_{second}",
                                 "summary": [{"type": "summary_text", "text": summary}], "content": None,
                                 "encrypted_content": "gAAAAABencrypted" + "x" * 200}, second)


def call(call_id: str, cmd: str, second: int = 3) -> dict[str, Any]:
    """An ``exec_command`` function call."""
    return rec("response_item", {"type": "function_call", "name": "exec_command", "call_id": call_id,
                                 "arguments": json.dumps({"cmd": cmd})}, second)


def output(call_id: str, text: str, second: int = 4) -> dict[str, Any]:
    """A ``function_call_output`` in 0.171's exec_command shape."""
    return rec("response_item", {"type": "function_call_output", "call_id": call_id,
                                 "output": f"Process exited with code 0\nOutput:\n{text}"}, second)


def echo_user(text: str, second: int = 1) -> dict[str, Any]:
    """The event stream's repeat of a user prompt (pre-0.171 ``user_message``)."""
    return rec("event_msg", {"type": "user_message", "message": text, "images": []}, second)


def echo_agent(text: str, second: int = 2) -> dict[str, Any]:
    """The event stream's repeat of an assistant answer (pre-0.171 ``agent_message``)."""
    return rec("event_msg", {"type": "agent_message", "message": text}, second)


def line(value: dict[str, Any]) -> str:
    """One JSON line with its newline."""
    return json.dumps(value) + "\n"


def write_rollout(home: Path, sid: str, records: list[dict[str, Any]] | str, *, archived: bool = False,
                  day: str = "2026/11/30") -> Path:
    """Write a rollout file for ``sid`` (records, or raw text) under ``home``; returns its path."""
    folder = home / "archived_sessions" if archived else home / "sessions" / day
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-11-30T10-00-00-{sid}.jsonl"
    text = records if isinstance(records, str) else "".join(line(r) for r in records)
    path.write_text(text, encoding="utf-8")
    return path


def simple(sid: str, prompt: str, answer: str, cwd: str = "/work/proj", second: int = 0) -> list[dict[str, Any]]:
    """A one-turn thread: meta, prompt, answer."""
    return [meta(sid, cwd, second), user(prompt, second + 1), assistant(answer, second + 2)]


def tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under ``root`` with (size, mtime_ns, mode): equal before and after = nothing written."""
    state = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        state[str(path.relative_to(root))] = (st.st_size if path.is_file() else 0, st.st_mtime_ns, st.st_mode)
    return state


FIXTURE_ROOT = "/tmp/memctl-codex-fixture/"
"""Where the fixture's generator made its projects (the ``cwd`` its records carry)."""


def relocated_fixture(target: Path, projects: Path) -> tuple[Path, dict[str, dict]]:
    """A copy of the real fixture under ``target/codex`` whose working directories point into ``projects``.

    The rollouts name ``/tmp/memctl-codex-fixture/<alpha|beta|scratch>``,
    which is gone on another machine (and whose repositories had their own
    root commits). The copy's paths are rewritten to ``projects/<name>`` --
    e.g. the OpenCode fixtures' repositories made again by
    :func:`tests.support.crafted_claude_code.relocated_fixture` -- so that the same
    repository is seen from every agent. Only paths change; every record
    stays as the binary wrote it. Returns (the copy's CODEX_HOME, its manifest).
    """
    import shutil

    home = target / "codex"
    shutil.copytree(FIXTURE, home)
    new_root = f"{projects}/"
    for path in [*home.rglob("*.jsonl"), *home.rglob("*.json")]:
        text = path.read_text(encoding="utf-8")
        if FIXTURE_ROOT in text:
            path.write_text(text.replace(FIXTURE_ROOT, new_root), encoding="utf-8")
    return home, json.loads((home / "sessions.json").read_text())
