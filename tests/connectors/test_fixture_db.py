"""Assertions on the committed real-OpenCode fixture (tests/fixtures/opencode-1.18).

The fixture was produced by ``python -m tests.fixtures.make_opencode_fixture``
(real ``opencode-linux-x64@1.18.34`` against the fake model server). These
tests only read it: each test works on a temporary COPY of the three files
(opened with ``mode=ro``), and a final check proves the originals were not
touched. They pin down the data shapes the OpenCode connector is written
against; see tests/fixtures/README.md.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import struct
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"
DB_FILES = ("opencode.db", "opencode.db-wal", "opencode.db-shm")
MANIFEST = json.loads((FIXTURE / "sessions.json").read_text())
SESSIONS: dict[str, dict[str, Any]] = MANIFEST["sessions"]
PLANTED = json.loads((FIXTURE / "planted_secrets.json").read_text())


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


ORIGINAL_HASHES = {f: _sha(FIXTURE / f) for f in DB_FILES}


def _copy(tmp: Path, files: tuple[str, ...] = DB_FILES) -> Path:
    for f in files:
        shutil.copy2(FIXTURE / f, tmp / f)
    return tmp / "opencode.db"


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    db = _copy(tmp_path_factory.mktemp("ocdb"))
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    c.row_factory = sqlite3.Row
    yield c
    c.close()


def sid(name: str) -> str:
    return SESSIONS[name]["session_id"]


def parts(con: sqlite3.Connection, session: str) -> list[dict[str, Any]]:
    """Parts of a session in conversation order, each with the message role."""
    rows = con.execute(
        "SELECT p.id, p.message_id, m.data AS mdata, p.data AS pdata FROM part p "
        "JOIN message m ON m.id = p.message_id WHERE p.session_id = ? "
        "ORDER BY m.time_created, m.id, p.id", (session,)).fetchall()
    out = []
    for r in rows:
        p = json.loads(r["pdata"])
        p["_role"] = json.loads(r["mdata"])["role"]
        p["_id"], p["_message_id"] = r["id"], r["message_id"]
        out.append(p)
    return out


def tools(ps: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(p["tool"], p["state"]["status"]) for p in ps if p["type"] == "tool"]


def user_texts(ps: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in ps if p["_role"] == "user" and p["type"] == "text" and not p.get("synthetic")]


# --------------------------------------------------------------------------- files & WAL


def test_three_files_and_live_wal() -> None:
    for f in DB_FILES:
        assert (FIXTURE / f).is_file(), f
    raw = (FIXTURE / "opencode.db-wal").read_bytes()
    magic, _version, page, *_ = struct.unpack(">8I", raw[:32])
    assert magic in (0x377F0682, 0x377F0683)  # SQLite WAL magic
    assert page == 4096
    assert len(raw) > 32 + 24 + page, "the -wal must hold committed frames"
    assert sum(f.stat().st_size for f in FIXTURE.glob("opencode.db*")) < 2_500_000


def test_journal_mode_is_wal(con: sqlite3.Connection) -> None:
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_last_turn_lives_only_in_the_wal(tmp_path: Path) -> None:
    """The final OpenCode run (third turn of junk_ping) was not checkpointed:
    a reader that ignores the -wal sees one turn less."""
    main_only = _copy(tmp_path, ("opencode.db",))
    c = sqlite3.connect(f"file:{main_only}?mode=ro&immutable=1", uri=True)
    try:
        n_main = c.execute("SELECT count(*) FROM message WHERE session_id = ?", (sid("junk_ping"),)).fetchone()[0]
    finally:
        c.close()
    assert SESSIONS["junk_ping"]["in_wal_only"] == "last turn"
    assert n_main == 4  # two user + two assistant messages


def test_schema_tables(con: sqlite3.Connection) -> None:
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"project", "session", "message", "part", "event", "event_sequence",
            "session_message", "migration"} <= tables
    cols = {r[1] for r in con.execute("PRAGMA table_info(part)")}
    assert cols == {"id", "message_id", "session_id", "time_created", "time_updated", "data"}
    cols = {r[1] for r in con.execute("PRAGMA table_info(message)")}
    assert cols == {"id", "session_id", "time_created", "time_updated", "data"}


# --------------------------------------------------------------------------- projects & sessions


def test_projects(con: sqlite3.Connection) -> None:
    rows = {r["id"]: dict(r) for r in con.execute("SELECT * FROM project")}
    assert len(rows) == 3
    assert rows["global"]["worktree"] == "/" and rows["global"]["vcs"] is None
    for name in ("junk_hi", "secrets"):  # alpha, beta: git repos, id = root commit
        info = SESSIONS[name]
        row = rows[info["project_id"]]
        assert len(row["id"]) == 40 and row["vcs"] == "git"
        assert row["worktree"] == info["directory"]
    assert SESSIONS["global_script"]["project_id"] == "global"


def test_sessions_match_manifest(con: sqlite3.Connection) -> None:
    rows = {r["id"]: dict(r) for r in con.execute("SELECT * FROM session")}
    assert len(rows) == len(SESSIONS) == 11
    for name, info in SESSIONS.items():
        row = rows[info["session_id"]]
        assert row["title"] == info["title"], name
        assert row["project_id"] == info["project_id"], name
        assert row["directory"] == info["directory"], name
        assert row["version"] == "1.18.34"
        assert row["time_archived"] is None
    # git projects store path "" (relative to the worktree); global stores the dir without "/"
    assert rows[sid("junk_hi")]["path"] == ""
    assert rows[sid("global_script")]["path"] == SESSIONS["global_script"]["directory"].lstrip("/")
    expected_titles = {"junk_hi": "Greeting", "junk_ping": "Quick check-in",
                       "tools_fix_add": "Fix add() bug in calc.py"}
    for name, title in expected_titles.items():
        assert rows[sid(name)]["title"] == title


def test_session_message_and_side_tables_are_empty(con: sqlite3.Connection) -> None:
    for table in ("session_message", "session_input", "session_context_epoch", "todo",
                  "workspace", "session_share"):
        assert con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == 0, table


# --------------------------------------------------------------------------- message shapes


def test_message_shapes(con: sqlite3.Connection) -> None:
    for r in con.execute("SELECT id, session_id, data FROM message"):
        m = json.loads(r["data"])
        assert "id" not in m and "sessionID" not in m  # columns, not in data
        assert m["role"] in ("user", "assistant")
        assert isinstance(m["time"]["created"], int)
        if m["role"] == "assistant":
            assert {"parentID", "mode", "agent", "path", "modelID", "providerID", "tokens", "finish"} <= m.keys()
            assert set(m["path"]) == {"cwd", "root"}
            assert m["finish"] in ("stop", "tool-calls")
            parent = con.execute("SELECT data FROM message WHERE id = ?", (m["parentID"],)).fetchone()
            assert json.loads(parent[0])["role"] == "user"
        else:
            assert {"agent", "model"} <= m.keys()


def test_part_types_overall(con: sqlite3.Connection) -> None:
    types = Counter(json.loads(d)["type"] for (d,) in con.execute("SELECT data FROM part"))
    assert set(types) == {"text", "reasoning", "tool", "step-start", "step-finish", "patch", "file", "subtask"}
    assert types["step-start"] == types["step-finish"]
    for (d,) in con.execute("SELECT data FROM part"):
        p = json.loads(d)
        assert "id" not in p and "messageID" not in p and "sessionID" not in p


# --------------------------------------------------------------------------- scenarios


def test_junk_hi(con: sqlite3.Connection) -> None:
    ps = parts(con, sid("junk_hi"))
    assert user_texts(ps) == ["hi"]
    assert [p["text"] for p in ps if p["_role"] == "assistant" and p["type"] == "text"] == ["Hello! How can I help?"]
    assert [p["type"] for p in ps] == ["text", "step-start", "text", "step-finish"]


def test_junk_ping(con: sqlite3.Connection) -> None:
    ps = parts(con, sid("junk_ping"))
    assert user_texts(ps) == ["ping", "are you there?", "ok nevermind, thanks"]
    assert not tools(ps)


def test_multi_step_tool_session(con: sqlite3.Connection) -> None:
    ps = parts(con, sid("tools_fix_add"))
    assert tools(ps) == [("read", "completed"), ("grep", "completed"), ("edit", "error"),
                         ("edit", "completed"), ("bash", "completed"), ("write", "completed"),
                         ("bash", "completed")]
    assert sum(p["type"] == "reasoning" for p in ps) >= 5
    bad = next(p for p in ps if p["type"] == "tool" and p["state"]["status"] == "error")
    assert "Could not find oldString" in bad["state"]["error"] and "output" not in bad["state"]
    test_run = next(p for p in ps if p["type"] == "tool" and p["tool"] == "bash")
    st = test_run["state"]
    assert st["input"]["command"] == "python3 -m unittest -v test_calc"
    assert "Ran 3 tests" in st["output"] and st["output"].rstrip().endswith("OK")
    assert st["metadata"]["exit"] == 0 and st["metadata"]["output"] == st["output"]
    patches = [p for p in ps if p["type"] == "patch"]
    assert any(f.endswith("/calc.py") for p in patches for f in p["files"])
    assert any(f.endswith("/CHANGELOG.md") for p in patches for f in p["files"])
    assert all(len(p["hash"]) == 40 for p in patches)
    edit = next(p for p in ps if p["type"] == "tool" and p["tool"] == "edit" and p["state"]["status"] == "completed")
    assert "+    return a + b" in edit["state"]["metadata"]["diff"]
    final = [p["text"] for p in ps if p["_role"] == "assistant" and p["type"] == "text"]
    assert final[0].startswith("Fixed the bug in `calc.py:5`")
    assert len(user_texts(ps)) == 2


def test_subagent_session(con: sqlite3.Connection) -> None:
    parent, child = sid("subagent_todos"), sid("subagent_child")
    row = con.execute("SELECT parent_id, agent FROM session WHERE id = ?", (child,)).fetchone()
    assert row["parent_id"] == parent and row["agent"] == "explore"
    task = next(p for p in parts(con, parent) if p["type"] == "tool")
    assert task["tool"] == "task" and task["state"]["status"] == "completed"
    assert task["state"]["metadata"]["sessionId"] == child
    assert task["state"]["metadata"]["parentSessionId"] == parent
    assert task["state"]["output"].startswith(f'<task id="{child}" state="completed">')
    cps = parts(con, child)
    assert tools(cps) == [("grep", "completed")]
    assert "calc.py:9" in task["state"]["output"]


def test_subtask_command_session(con: sqlite3.Connection) -> None:
    parent, child = sid("subtask_command"), sid("subtask_child")
    ps = parts(con, parent)
    first = ps[0]
    assert first["_role"] == "user" and first["type"] == "subtask"
    assert first["agent"] == "explore" and first["command"] == "find-todos"
    assert first["prompt"] == "Find TODO comments in app.py and report them as file:line."
    assert tools(ps) == [("task", "completed")]
    synthetic = [p for p in ps if p["_role"] == "user" and p["type"] == "text"]
    assert synthetic and synthetic[0]["synthetic"] is True
    assert con.execute("SELECT parent_id FROM session WHERE id = ?", (child,)).fetchone()[0] == parent


def test_long_session(con: sqlite3.Connection) -> None:
    ps = parts(con, sid("long_logs"))
    assert len(user_texts(ps)) == 8
    outputs = [p["state"]["output"] for p in ps if p["type"] == "tool"]
    assert len(outputs) == 8
    assert sum(len(o) for o in outputs) > 48_000
    assert sum(len(p.get("text", "")) for p in ps) + sum(len(o) for o in outputs) > 70_000
    cut = [p for p in ps if p["type"] == "tool" and p["state"]["metadata"].get("truncated")]
    assert len(cut) == 1
    st = cut[0]["state"]
    assert st["output"].startswith("...output truncated...\n\nFull output saved to: ")
    assert st["output"].rstrip().endswith("2500")  # the tail is kept
    assert st["metadata"]["outputPath"] in st["output"]
    # two tool calls in one assistant message (parallel)
    per_msg = Counter(p["_message_id"] for p in ps if p["type"] == "tool")
    assert max(per_msg.values()) == 2


def test_second_project_and_global(con: sqlite3.Connection) -> None:
    beta = {SESSIONS[n]["project_id"] for n in ("junk_ping", "beta_explain", "secrets", "subtask_command")}
    alpha = {SESSIONS[n]["project_id"] for n in ("junk_hi", "tools_fix_add", "long_logs", "subagent_todos")}
    assert len(beta) == len(alpha) == 1 and beta != alpha
    ps = parts(con, sid("beta_explain"))
    user = [p for p in ps if p["_role"] == "user"]
    assert [p["type"] for p in user] == ["text", "text", "file", "text"]
    assert user[0]["synthetic"] and user[0]["text"].startswith("Called the Read tool")
    assert user[2]["mime"] == "text/plain" and user[2]["url"].startswith("file:///")
    assert user[3]["text"] == "What does this script do, and when was it added?"
    g = parts(con, sid("global_script"))
    assert tools(g) == [("write", "completed"), ("bash", "completed")]
    assert not any(p["type"] == "patch" for p in g)  # no snapshots outside git
    assert all("snapshot" not in p for p in g if p["type"] == "step-start")


# --------------------------------------------------------------------------- secrets & events


def test_planted_secrets_are_in_the_fixture(con: sqlite3.Connection) -> None:
    blob = "\n".join(d for (d,) in con.execute("SELECT data FROM part WHERE session_id = ?", (sid("secrets"),)))
    kinds = {s["kind"] for s in PLANTED}
    assert {"github_token", "aws_access_key_id", "aws_secret_access_key", "openai_api_key",
            "slack_webhook", "private_key", "jwt", "url_credentials", "bearer_token", "password"} <= kinds
    for s in PLANTED:
        # JSON-escaped in part.data (the PEM block has newlines)
        assert json.dumps(s["value"])[1:-1] in blob, s["kind"]
    ps = parts(con, sid("secrets"))
    assert PLANTED[0]["value"] in next(p["state"]["output"] for p in ps
                                       if p["type"] == "tool" and "cat config" in p["state"]["input"].get("command", ""))
    prompt = user_texts(ps)[0]
    assert "sk-proj-" in prompt and "postgres://admin:" in prompt


def test_event_table_repeats_every_part(con: sqlite3.Connection) -> None:
    types = {r[0] for r in con.execute("SELECT DISTINCT type FROM event")}
    assert types == {"session.created.1", "session.updated.1", "message.updated.1", "message.part.updated.1"}
    last: dict[str, dict[str, Any]] = {}
    for (d,) in con.execute("SELECT data FROM event WHERE type = 'message.part.updated.1' ORDER BY aggregate_id, seq"):
        p = json.loads(d)["part"]
        last[p["id"]] = p
    rows = con.execute("SELECT id, message_id, session_id, data FROM part").fetchall()
    for r in rows:
        ev = dict(last[r["id"]])
        assert ev.pop("sessionID") == r["session_id"] and ev.pop("messageID") == r["message_id"]
        ev.pop("id")
        assert ev == json.loads(r["data"])
    # ...including the secrets
    ev_blob = "\n".join(d for (d,) in con.execute("SELECT data FROM event WHERE aggregate_id = ?", (sid("secrets"),)))
    assert PLANTED[0]["value"] in ev_blob
    # aggregate = session; seq is per session and dense
    for agg, n, mx in con.execute("SELECT aggregate_id, count(*), max(seq) FROM event GROUP BY aggregate_id"):
        assert agg.startswith("ses_") and n == mx + 1


def test_originals_untouched() -> None:
    assert {f: _sha(FIXTURE / f) for f in DB_FILES} == ORIGINAL_HASHES
