"""Hand-shaped OpenCode 1.18 databases for tests: sessions, messages and parts with chosen ids.

Rows have the message-v2 shapes of the real fixture (``tests/fixtures/README.md``);
the schema is OpenCode 1.18.34's (``tests/fixtures/opencode_1_18_schema.sql``). Ids
ascend with time, as OpenCode's message and part ids do. Times are epoch ms.

    db = CraftedDb(tmp_path / "opencode.db")
    sid = db.session("ses_a", "Fix the cache")
    u = db.user(sid, "please fix …")
    m, parts = db.assistant(sid, [text("done"), bash("ls", "a b")])
    db.close()
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.fixtures.synthetic_opencode import BASE_MS, add_project, create_schema

PROJECT = ("prj_alpha", "/home/dev/src/alpha")


class CraftedDb:
    """An OpenCode 1.18 database being written (rollback-journal mode unless ``wal``)."""

    def __init__(self, path: Path, *, wal: bool = False) -> None:
        self.path = path
        self.conn = sqlite3.connect(path)
        if wal:
            self.conn.execute("PRAGMA journal_mode=WAL")
        create_schema(self.conn)
        self.t = BASE_MS
        self.n = 0

    @classmethod
    def reopen(cls, path: Path) -> "CraftedDb":
        """Open an existing crafted database to change it (e.g. an undo or redo)."""
        db = cls.__new__(cls)
        db.path, db.conn, db.n = path, sqlite3.connect(path), 0
        db.t = db.conn.execute("SELECT max(time_updated) FROM session").fetchone()[0] or BASE_MS
        return db

    def tick(self, ms: int = 1000) -> int:
        self.t += ms
        return self.t

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.t:013x}{self.n:05d}crafted"

    def session(self, sid: str, title: str, *, project: tuple[str, str] = PROJECT, parent: str | None = None,
                revert: dict[str, Any] | None = None) -> str:
        """Insert a ``session`` row (``revert``: OpenCode's ``session.revert`` JSON)."""
        add_project(self.conn, *project)
        t = self.tick()
        self.conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, "
            "time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (sid, project[0], parent, sid[-8:], project[1], title, "1.18.34",
             json.dumps(revert) if revert is not None else None, t, t))
        return sid

    def message(self, sid: str, role: str, parts: list[dict[str, Any]]) -> tuple[str, list[str]]:
        """Insert a message and its parts; returns (message id, part ids)."""
        t = self.tick()
        mid = self._id("msg")
        data = {"role": role, "time": {"created": t}}
        self.conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                          (mid, sid, t, t, json.dumps(data)))
        pids = []
        for part in parts:
            pt = self.tick(10)
            pid = self._id("prt")
            self.conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                (pid, mid, sid, pt, pt, json.dumps(part)))
            pids.append(pid)
        self.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (self.t, sid))
        return mid, pids

    def user(self, sid: str, words: str) -> str:
        return self.message(sid, "user", [text(words)])[0]

    def assistant(self, sid: str, parts: list[dict[str, Any]]) -> tuple[str, list[str]]:
        wrapped = [{"type": "step-start"}, *parts, {"type": "step-finish", "reason": "stop"}]
        mid, pids = self.message(sid, "assistant", wrapped)
        return mid, pids[1:-1]

    def set_revert(self, sid: str, revert: dict[str, Any] | None, *, touch: bool = False) -> None:
        """Set (or clear) ``session.revert``; ``touch`` also bumps ``time_updated`` as OpenCode's
        ``setRevert`` / ``clearRevert`` do."""
        self.conn.execute("UPDATE session SET revert = ? WHERE id = ?",
                          (json.dumps(revert) if revert is not None else None, sid))
        if touch:
            self.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (self.tick(), sid))
        self.conn.commit()

    def close(self) -> None:
        self.conn.commit()
        self.conn.close()


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def bash(command: str, output: str, *, compacted: int | None = None, title: str | None = None) -> dict[str, Any]:
    """A completed ``bash`` tool part (``compacted``: ``state.time.compacted``, as OpenCode's prune sets it)."""
    times: dict[str, Any] = {"start": 1, "end": 2}
    if compacted is not None:
        times["compacted"] = compacted
    return {"type": "tool", "tool": "bash", "callID": f"call_{abs(hash(command)) % 10**8}",
            "state": {"status": "completed", "input": {"command": command}, "output": output,
                      "title": title if title is not None else command, "metadata": {"exit": 0}, "time": times}}


def task(child_id: str, prompt: str) -> dict[str, Any]:
    """A completed ``task`` tool part that started subagent session ``child_id``."""
    return {"type": "tool", "tool": "task", "callID": f"call_{abs(hash(child_id)) % 10**8}",
            "state": {"status": "completed", "input": {"prompt": prompt, "subagent_type": "explore"},
                      "output": f'<task id="{child_id}" state="completed">done</task>', "title": prompt[:40],
                      "metadata": {"sessionId": child_id}, "time": {"start": 1, "end": 2}}}
