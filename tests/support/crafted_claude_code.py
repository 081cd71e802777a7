"""Crafted Claude Code histories in the shapes the real 2.1 binary writes (see tests/fixtures/claude-code-2.1).

The real fixture cannot show the pitfalls a user's directory holds after months
of use (torn and glued lines, compactions, rewinds, resume copies, 2.0-style
subagent files, images, lines of megabytes); these builders write them with
the field names and record kinds of the real files. Everything here is
crafted: it tests the reader's handling, not the format's truth.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

SESSION = "11111111-2222-4333-8444-555555555555"
CWD = "/tmp/crafted-claude/app"
BASE_MS = 1_796_000_000_000


def stamp(n: int) -> str:
    """An ISO time ``n`` seconds after the base time."""
    from datetime import datetime, timezone

    return datetime.fromtimestamp(BASE_MS / 1000 + n, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def user(uuid: str, parent: str | None, content: Any, n: int, session: str = SESSION, **extra: Any) -> dict:
    """A ``user`` record (content: a string or blocks)."""
    return {"parentUuid": parent, "isSidechain": False, "type": "user", "message": {"role": "user", "content": content},
            "uuid": uuid, "timestamp": stamp(n), "cwd": CWD, "sessionId": session, "version": "2.1.332",
            "gitBranch": "main", **extra}


def assistant(uuid: str, parent: str | None, message_id: str, block: dict, n: int, session: str = SESSION,
              **extra: Any) -> dict:
    """One ``assistant`` record holding one content block of message ``message_id``."""
    return {"parentUuid": parent, "isSidechain": False, "type": "assistant",
            "message": {"id": message_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                        "content": [block], "stop_reason": None},
            "uuid": uuid, "timestamp": stamp(n), "cwd": CWD, "sessionId": session, "version": "2.1.332", **extra}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, command: str) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command, "description": "run"}}


def tool_result(tool_id: str, content: Any, is_error: bool = False) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}


def write(path: Path, records: list[Any]) -> Path:
    """Write records one a line (a ``str`` item is written as is: a torn or glued line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record if isinstance(record, str) else json.dumps(record) + "\n")
    return path


def session_file(claude_dir: Path, session: str = SESSION, project: str = "-tmp-crafted-claude-app") -> Path:
    """``<claude dir>/projects/<project>/<session>.jsonl``."""
    return claude_dir / "projects" / project / f"{session}.jsonl"


def simple_turn(session: str = SESSION, n: int = 0, prompt: str = "Fix the failing parser test in app/parser.py") -> list[dict]:
    """One user prompt, a Bash call with its result and a final answer (four records)."""
    a, b, c, d = (f"{session[:8]}-{k}" for k in "abcd")
    return [
        user(a, None, prompt, n, session),
        assistant(b, a, f"msg_{session[:6]}1", tool_use(f"toolu_{session[:6]}", "pytest -q"), n + 1, session),
        user(c, b, [tool_result(f"toolu_{session[:6]}", "1 failed, 3 passed")], n + 2, session,
             toolUseResult={"stdout": "1 failed, 3 passed", "stderr": ""}),
        assistant(d, c, f"msg_{session[:6]}2", text("The parser test fails on empty input; fixed the guard."), n + 3,
                  session),
    ]


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-2.1"
FIXTURE_ROOT = "/tmp/memctl-claude-fixture/projects/"
"""Where the fixture's generator made the projects (the ``cwd`` its records carry)."""


def relocated_fixture(target: Path) -> tuple[Path, dict[str, dict]]:
    """A copy of the real fixture whose projects exist again, under ``target``.

    The records name their working directories under :data:`FIXTURE_ROOT`,
    which is gone on another machine; project identity comes from the
    repository there. The copy's paths are rewritten to ``target/projects/``
    where the same repositories are made again (the OpenCode fixtures' files
    and fixed commit: the same root commits). Returns (the copy's Claude
    directory, its sessions manifest with the new directories).
    """
    from tests.fakes import opencode_script
    from tests.fixtures.make_opencode_fixture import make_projects

    claude = target / "claude"
    shutil.copytree(FIXTURE, claude)
    make_projects(target, opencode_script.PROJECTS)
    new_root = f"{target}/projects/"
    for path in [*claude.rglob("*.jsonl"), *claude.rglob("*.json")]:
        text = path.read_text(encoding="utf-8")
        if FIXTURE_ROOT in text:
            path.write_text(text.replace(FIXTURE_ROOT, new_root), encoding="utf-8")
    sessions = json.loads((claude / "sessions.json").read_text())
    return claude, sessions
