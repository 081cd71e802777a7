"""The Claude Code connector on files the real binary wrote, and on crafted pitfalls in the same shapes."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tracemalloc
from pathlib import Path

import pytest

from memctl.connectors.claude_code.lines import iter_records
from memctl.connectors.claude_code.source import ClaudeCodeSource, SessionFilter, resolve_claude_dir
from memctl.connectors.model import ReadStats, Session
from memctl.connectors.opencode.errors import SourceNotFoundError, UnknownSessionError
from tests.support import crafted_claude_code as C

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-2.1"
SESSIONS = json.loads((FIXTURE / "sessions.json").read_text())
PLANTED = json.loads((FIXTURE / "planted_secrets.json").read_text())


def _all_text(session: Session) -> str:
    out = [json.dumps(p.data) for p in session.parts]
    out += [_all_text(child) for child in session.children]
    return "\n".join(out)


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() + str(p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()} | {"": str(sorted(
                (str(p), p.stat().st_mtime_ns) for p in root.rglob("*")))}


@pytest.fixture()
def fixture_copy(tmp_path: Path) -> Path:
    claude, sessions = C.relocated_fixture(tmp_path)
    assert sessions.keys() == SESSIONS.keys()
    return claude


def _read_all(claude_dir: Path, **kwargs) -> tuple[ClaudeCodeSource, list[Session]]:
    source = ClaudeCodeSource(claude_dir, **kwargs)
    source.check_schema()
    return source, list(source.iter_sessions())


# -- the real binary's files -------------------------------------------------------


def test_real_fixture_sessions_projects_and_versions(fixture_copy: Path) -> None:
    source, sessions = _read_all(fixture_copy)
    by_id = {s.info.id: s for s in sessions}
    assert set(by_id) == {v["session_id"] for v in SESSIONS.values()}
    root = fixture_copy.parent / "projects"
    for name, meta in SESSIONS.items():
        info = by_id[meta["session_id"]].info
        assert info.directory == str(root / meta["project"]), name
        assert info.version == "2.1.332"
        assert info.time_created > 1_700_000_000_000 and info.time_updated >= info.time_created
    # The repositories have the OpenCode fixtures' root commits: the same project ids as OpenCode gives them.
    alpha = by_id[SESSIONS["bash_secret"]["session_id"]].info
    assert alpha.project_id == "c27d62d6ee48a212f9d239e4ce29184f051979f3"
    assert alpha.project_worktree == str(root / "alpha")
    scratch = by_id[SESSIONS["junk_hi"]["session_id"]].info
    assert (scratch.project_id, scratch.project_worktree) == ("global", "/")
    assert source.stats.unknown_types == 0 and source.stats.torn_lines == 0


def test_real_fixture_tool_call_joined_with_its_output(fixture_copy: Path) -> None:
    _, sessions = _read_all(fixture_copy)
    session = next(s for s in sessions if s.info.id == SESSIONS["bash_secret"]["session_id"])
    kinds = [(p.role, p.type) for p in session.parts]
    assert kinds == [("user", "text"), ("assistant", "reasoning"), ("assistant", "tool"), ("assistant", "text")]
    tool = session.parts[2].data
    assert tool["tool"] == "Bash" and tool["state"]["status"] == "completed"
    assert tool["state"]["input"]["command"] == "cat config.env"
    assert "REGION=eu-west-1" in tool["state"]["output"]
    assert session.parts[1].message_id == session.parts[2].message_id  # one response over several lines


def test_real_fixture_secrets_read_once_not_from_request_copies(fixture_copy: Path) -> None:
    """The token is in the prompt and again in the api-request records: the reader sees it once."""
    raw = "".join(p.read_text() for p in (fixture_copy / "projects").rglob("*.jsonl"))
    _, sessions = _read_all(fixture_copy)
    text = "\n".join(_all_text(s) for s in sessions)
    for secret in PLANTED:
        assert raw.count(secret["value"]) > 1, secret  # the binary wrote it more than once
        assert text.count(secret["value"]) == 1, secret


def test_real_fixture_subagent_is_a_linked_child(fixture_copy: Path) -> None:
    _, sessions = _read_all(fixture_copy)
    root = next(s for s in sessions if s.info.id == SESSIONS["subagent"]["session_id"])
    assert len(root.children) == 1
    child = root.children[0]
    assert child.info.id.startswith("agent-") and child.info.parent_id == root.info.id
    assert child.info.title == "Survey beta tests"
    call = next(p for p in root.parts if p.type == "tool")
    assert call.data["tool"] in ("Agent", "Task")
    assert call.data["state"]["metadata"]["sessionId"] == child.info.id
    assert any(p.type == "tool" and p.data["state"]["input"]["command"] == "ls tests" for p in child.parts)


def test_real_fixture_fork_copy_left_out(fixture_copy: Path) -> None:
    source, sessions = _read_all(fixture_copy)
    fork = next(s for s in sessions if s.info.id == SESSIONS["fork"]["session_id"])
    users = [p.data["text"] for p in fork.parts if p.role == "user" and p.type == "text"]
    assert users and users[0].startswith("Given that survey")
    assert not any("[cc:agent]" in u for u in users)
    assert source.stats.copied_records > 0


def test_real_fixture_moved_output_read_bounded_from_its_side_file(fixture_copy: Path) -> None:
    _, sessions = _read_all(fixture_copy)
    session = next(s for s in sessions if s.info.id == SESSIONS["big_output"]["session_id"])
    output = next(p for p in session.parts if p.type == "tool").data["state"]["output"]
    assert output.startswith("1\n2\n3\n") and output.rstrip().endswith("99999\n100000")  # head and tail
    assert "bytes not read" in output and len(output) < 300_000
    assert "<persisted-output>" not in output


def test_real_fixture_compaction_kept_once_with_the_turns_before_it(fixture_copy: Path) -> None:
    _, sessions = _read_all(fixture_copy)
    session = next(s for s in sessions if s.info.id == SESSIONS["compact"]["session_id"])
    types = [p.type for p in session.parts]
    assert types.count("compaction") == 1 and session.parts[types.index("compaction")].data["auto"] is False
    users = [p.data["text"] for p in session.parts if p.type == "text" and p.role == "user"
             and not p.data.get("synthetic")]
    assert users[0].startswith("Explain how beta's parser") and users[-1].startswith("After the compaction")
    summaries = [p for p in session.parts if "continued from a previous conversation" in p.data.get("text", "")]
    assert len(summaries) == 1 and summaries[0].data["synthetic"] is True


def test_reading_creates_and_changes_nothing(fixture_copy: Path) -> None:
    before = _snapshot(fixture_copy)
    opened: list[tuple[str, str]] = []

    def audit(event: str, args: tuple) -> None:
        if event == "open" and isinstance(args[0], str) and args[0].startswith(str(fixture_copy)):
            opened.append((args[0], str(args[1])))

    sys.addaudithook(audit)
    source, sessions = _read_all(fixture_copy)
    source.read_session(sessions[0].info)
    list(source.iter_sessions(SessionFilter(session_ids=(sessions[0].info.id,))))
    assert _snapshot(fixture_copy) == before
    assert opened and all(mode in ("r", "rb", "None") for _, mode in opened), opened
    fixture_copy_list = {p.name for p in fixture_copy.iterdir()}
    assert fixture_copy_list == {"projects", "sessions.json", "planted_secrets.json", "versions.json"}


def test_session_filter_resolves_subagents_and_refuses_unknown(fixture_copy: Path) -> None:
    source, sessions = _read_all(fixture_copy)
    root = next(s for s in sessions if s.children)
    child_id = root.children[0].info.id
    assert [i.id for i in source.iter_root_infos(SessionFilter(session_ids=(child_id,)))] == [root.info.id]
    with pytest.raises(UnknownSessionError):
        list(source.iter_root_infos(SessionFilter(session_ids=("no-such-session",))))
    assert len(list(source.iter_root_infos(SessionFilter(limit=2)))) == 2
    assert source.count_roots(SessionFilter(since_ms=10**15)) == 0


def test_missing_dir_and_resolution(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="CLAUDE_CONFIG_DIR"):
        ClaudeCodeSource(tmp_path / "nothing")
    assert resolve_claude_dir(None, {"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path
    assert resolve_claude_dir(tmp_path / "x", {"CLAUDE_CONFIG_DIR": "/elsewhere"}) == tmp_path / "x"
    assert resolve_claude_dir(None, {}) == Path("~/.claude").expanduser()
    assert not (tmp_path / "nothing").exists()


# -- crafted pitfalls ----------------------------------------------------------------


def _one(tmp_path: Path, records: list, **kwargs) -> tuple[ClaudeCodeSource, Session]:
    C.write(C.session_file(tmp_path), records)
    source, sessions = _read_all(tmp_path, **kwargs)
    assert len(sessions) == 1
    return source, sessions[0]


@pytest.mark.parametrize("tail", [
    '{"parentUuid":"x-d","isSidechain":false,"type":"assistant","message":{"id":"m9","role":"assis',  # torn, no newline
    '{"parentUuid":"x-d","type":"user","message":{"role":"user","content":"half\n',  # torn with a newline
    '{"type":"user"\n{"type":\n',  # two torn lines
])
def test_torn_lines_counted_never_fatal(tmp_path: Path, tail: str) -> None:
    source, session = _one(tmp_path, C.simple_turn() + [tail])
    assert source.stats.torn_lines == tail.count("\n") + (0 if tail.endswith("\n") else 1)
    assert len(session.parts) == 3  # user text, tool, answer


@pytest.mark.parametrize("count", [2, 3])
def test_glued_objects_all_read(tmp_path: Path, count: int) -> None:
    records = C.simple_turn()
    glued = "".join(json.dumps(r) for r in records[:count]) + "\n"
    source, session = _one(tmp_path, [glued] + records[count:])
    assert source.stats.glued_lines == 1 and source.stats.torn_lines == 0
    assert [p.type for p in session.parts] == ["text", "tool", "text"]


def test_glued_after_a_torn_piece(tmp_path: Path) -> None:
    records = C.simple_turn()
    line = '{"type":"user","message":{"ro' + json.dumps(records[0]) + "\n"
    source, session = _one(tmp_path, [line] + records[1:])
    assert source.stats.torn_lines == 1
    assert session.parts[0].data["text"].startswith("Fix the failing parser")


@pytest.mark.parametrize("position", ["middle", "last-without-newline"])
def test_line_over_the_limit_skipped_in_bounded_memory(tmp_path: Path, position: str) -> None:
    records = C.simple_turn()
    big = C.user("big-1", records[1]["uuid"], [C.tool_result("toolu_big", "x" * 20_000_000)], 5)
    lines: list = [*records[:2], big, *records[2:]] if position == "middle" else [*records, json.dumps(big)]
    path = C.write(C.session_file(tmp_path), lines)
    stats = ReadStats()
    tracemalloc.start()
    try:
        read = list(iter_records(path, stats, max_line_bytes=1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert stats.oversized_lines == 1 and len(read) == 4
    assert peak < 5 * 1024 * 1024, peak  # the limit and one drain piece, not the 20 MB line


def test_five_megabyte_line_read_within_the_limit(tmp_path: Path) -> None:
    records = C.simple_turn()
    output = "line of build output\n" * 250_000  # 5.25 MB
    records[2] = C.user(records[2]["uuid"], records[1]["uuid"], [C.tool_result("toolu_111111", output)], 2)
    path = C.write(C.session_file(tmp_path), records)
    assert path.stat().st_size > 5_000_000
    stats = ReadStats()
    tracemalloc.start()
    try:
        read = list(iter_records(path, stats))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(read) == 4 and stats.oversized_lines == 0
    assert peak < 6 * path.stat().st_size, peak
    session = _read_all(tmp_path)[1][0]
    assert session.parts[1].data["state"]["output"] == output


def test_one_response_over_several_lines_and_a_block_written_twice(tmp_path: Path) -> None:
    a = C.user("u1", None, "Explain the retry loop in app/net.py", 0)
    b = C.assistant("a1", "u1", "msg_1", {"type": "thinking", "thinking": "Look at the loop", "signature": "s"}, 1)
    c = C.assistant("a2", "a1", "msg_1", C.text("The loop backs off exponentially."), 2)
    d = C.assistant("a3", "a2", "msg_1", C.text("The loop backs off exponentially."), 3)  # the same block again
    e = C.assistant("a4", "a3", "msg_1", C.tool_use("toolu_r", "grep -n retry app/net.py"), 4)
    f = C.user("u2", "a4", [C.tool_result("toolu_r", "12: for attempt in range(5):")], 5)
    _, session = _one(tmp_path, [a, b, c, d, e, f])
    assert [p.type for p in session.parts] == ["text", "reasoning", "text", "tool"]
    assert {p.message_id for p in session.parts[1:]} == {"msg_1"}
    assert session.parts[3].data["state"]["output"] == "12: for attempt in range(5):"


def test_active_branch_after_a_rewind(tmp_path: Path) -> None:
    records = [
        C.user("u1", None, "Add a --verbose flag to the CLI", 0),
        C.assistant("a1", "u1", "m1", C.text("Added it."), 1),
        C.user("u2", "a1", "Now make it print timings (abandoned)", 2),
        C.assistant("a2", "u2", "m2", C.text("Timings printed (abandoned)."), 3),
        C.user("u3", "a1", "Now make it print the config path instead", 4),
        C.assistant("a3", "u3", "m3", C.text("It prints the config path."), 5),
    ]
    source, session = _one(tmp_path, records)
    texts = [p.data["text"] for p in session.parts]
    assert texts == ["Add a --verbose flag to the CLI", "Added it.", "Now make it print the config path instead",
                     "It prints the config path."]
    assert source.stats.inactive_branch_records == 2


def test_resume_duplicates_read_once(tmp_path: Path) -> None:
    records = C.simple_turn()
    more = [C.user("u9", records[-1]["uuid"], "And add a regression test for it", 10),
            C.assistant("a9", "u9", "m9", C.text("Added tests/test_parser.py::test_empty."), 11)]
    source, session = _one(tmp_path, records + records[:3] + more)
    assert source.stats.duplicate_items == 3
    assert [p.type for p in session.parts] == ["text", "tool", "text", "text", "text"]


def test_compaction_kept_once_with_the_earlier_turns(tmp_path: Path) -> None:
    before = C.simple_turn()
    boundary = {"parentUuid": None, "logicalParentUuid": before[-1]["uuid"], "isSidechain": False, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 160000}, "uuid": "cb1",
                "timestamp": C.stamp(20), "cwd": C.CWD, "sessionId": C.SESSION}
    summary = C.user("s1", "cb1", "This session is being continued from a previous conversation. Summary: parser fix.",
                     21, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    after = [C.user("u5", "s1", "Now update the changelog", 22), C.assistant("a5", "u5", "m5", C.text("Done."), 23)]
    source, session = _one(tmp_path, before + [boundary, summary] + after + [summary])
    types = [p.type for p in session.parts]
    assert types.count("compaction") == 1 and session.parts[types.index("compaction")].data["auto"] is True
    assert session.parts[0].data["text"].startswith("Fix the failing parser")  # the compacted turns are kept
    summaries = [p for p in session.parts if "continued from a previous" in p.data.get("text", "")]
    assert len(summaries) == 1 and summaries[0].data["synthetic"] is True
    assert source.stats.duplicate_items == 1


def test_in_file_sidechains_and_legacy_subagent_files_are_children(tmp_path: Path) -> None:
    records = C.simple_turn()
    side = [C.user("s1", None, "Search for TODOs", 5, isSidechain=True),
            C.assistant("s2", "s1", "ms", C.text("Found 3 TODOs."), 6, isSidechain=True)]
    C.write(C.session_file(tmp_path), records + side)
    legacy = C.session_file(tmp_path, "agent-0a1b2c3d")
    C.write(legacy, [C.user("l1", None, "List the modules", 7, isSidechain=True),
                     C.assistant("l2", "l1", "ml", C.text("app, tests"), 8, isSidechain=True)])
    _, sessions = _read_all(tmp_path)
    assert len(sessions) == 1  # an agent-*.jsonl file is never a root
    children = sessions[0].children
    assert [c.info.id for c in children] == [f"{C.SESSION}-sidechain-1", "agent-0a1b2c3d"]
    assert all(c.info.parent_id == C.SESSION for c in children)
    assert [p.data["text"] for p in children[1].parts] == ["List the modules", "app, tests"]
    assert [p.type for p in sessions[0].parts] == ["text", "tool", "text"]  # the sidechain stays out of the root


def test_tool_output_side_file_read_bounded(tmp_path: Path) -> None:
    records = C.simple_turn()
    side = C.session_file(tmp_path).parent / C.SESSION / "tool-results" / "toolu_111111.txt"
    side.parent.mkdir(parents=True)
    side.write_text("HEAD " + "y" * 600_000 + " TAIL")
    records[1] = C.assistant(records[1]["uuid"], records[0]["uuid"], "m", C.tool_use("toolu_111111", "make"), 1)
    records[2] = C.user(records[2]["uuid"], records[1]["uuid"],
                        [C.tool_result("toolu_111111", "Output too large; saved to tool-results/toolu_111111.txt")], 2)
    _, session = _one(tmp_path, records)
    output = session.parts[1].data["state"]["output"]
    assert output.startswith("HEAD ") and output.endswith(" TAIL") and "bytes not read" in output
    assert len(output) < 300_000


def test_persisted_output_marker_names_only_a_file_of_the_session(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "tool-results" / "x1.txt"
    outside.parent.mkdir(parents=True)
    outside.write_text("OUTSIDE")
    records = C.simple_turn()
    marker = f"<persisted-output>\nOutput too large (1MB). Full output saved to: {outside}\n\nPreview (first 2KB):\nPREVIEW"
    records[2] = C.user(records[2]["uuid"], records[1]["uuid"], [C.tool_result("toolu_111111", marker)], 2)
    _, session = _one(tmp_path / "a", records)
    assert session.parts[1].data["state"]["output"] == marker  # not in this session's tool-results: kept as is
    side = C.session_file(tmp_path / "a").parent / C.SESSION / "tool-results" / "x1.txt"
    side.parent.mkdir(parents=True)
    side.write_text("INSIDE " * 10)
    session = _read_all(tmp_path / "a")[1][0]
    assert session.parts[1].data["state"]["output"] == "INSIDE " * 10


def test_base64_images_dropped(tmp_path: Path) -> None:
    blob = "iVBORw0KGgo" + "A" * 40_000
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": blob}}
    records = C.simple_turn()
    records[0] = C.user(records[0]["uuid"], None, [C.text("What is wrong in this screenshot?"), image], 0)
    records[2] = C.user(records[2]["uuid"], records[1]["uuid"], [C.tool_result("toolu_111111", [C.text("ok"), image])], 2)
    source, session = _one(tmp_path, records)
    assert blob[:40] not in _all_text(session)
    assert source.stats.images_dropped == 2
    assert session.parts[1].data["state"]["output"].startswith("ok")


def test_request_copies_not_decoded_and_unknown_kinds_counted(tmp_path: Path) -> None:
    records = C.simple_turn()
    copy = '{"type":"api-request-blob","message":{"content":"sk-ant-api03-SECRET' + "\n"  # not even valid JSON
    unknown = {"type": "brand-new-kind", "sessionId": C.SESSION}
    source, session = _one(tmp_path, records + [copy, unknown, {"type": "tools-used", "sessionId": C.SESSION}])
    assert source.stats.torn_lines == 0 and source.stats.malformed_json == 0
    assert source.stats.unknown_types == 1
    assert "SECRET" not in _all_text(session)


def test_fork_copies_across_files_left_out(tmp_path: Path) -> None:
    origin = C.simple_turn()
    fork_id = "99999999-2222-4333-8444-555555555555"
    copied = [dict(r, sessionId=fork_id, timestamp=C.stamp(30 + i)) for i, r in enumerate(origin)]
    new = [C.user("f1", origin[-1]["uuid"], "Continue on a branch: try a regex parser", 40, fork_id)]
    C.write(C.session_file(tmp_path), origin)
    C.write(C.session_file(tmp_path, fork_id), copied + new)
    source, sessions = _read_all(tmp_path)
    fork = next(s for s in sessions if s.info.id == fork_id)
    assert [p.data.get("text") for p in fork.parts] == ["Continue on a branch: try a regex parser"]
    assert source.stats.copied_records == 4


def test_doctor_lists_the_history_and_warns_before_claude_code_deletes_unread_sessions(tmp_path: Path) -> None:
    from memctl.doctor import check_claude_code

    path = C.session_file(tmp_path)
    C.write(path, C.simple_turn())
    os.utime(path, (C.BASE_MS / 1000, C.BASE_MS / 1000))  # the file's own time, not today's: no clock in the test
    now = C.BASE_MS + 26 * 86_400_000  # the session is 26 days old
    ok = check_claude_code(tmp_path, {f"claude-code.{C.SESSION}"}, now_ms=now)
    assert ok.status == "ok" and "1 sessions" in ok.detail and "2.1.332" in ok.detail
    warn = check_claude_code(tmp_path, set(), now_ms=now)
    assert warn.status == "warn" and "30 days" in warn.detail and warn.fix.startswith("memctl ingest")
    (tmp_path / "settings.json").write_text('{"cleanupPeriodDays": 90}')
    assert check_claude_code(tmp_path, set(), now_ms=now).status == "ok"
    assert check_claude_code(tmp_path / "absent", set()).detail.endswith("(not read)")
