"""The Codex connector on the real binary's fixture and on crafted rollouts of the same shapes."""

from __future__ import annotations

import json
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from memctl.connectors.codex import project as project_mod
from memctl.connectors.codex.lines import iter_records
from memctl.connectors.codex.rollout import MAX_TOOL_OUTPUT_CHARS
from memctl.connectors.codex.source import CodexSource, SessionFilter, resolve_codex_home
from memctl.connectors.model import ReadStats, Session
from memctl.connectors.opencode.errors import SourceNotFoundError, UnknownSessionError
from tests.support import crafted_codex as C

FIXTURE = C.FIXTURE
MANIFEST = json.loads((FIXTURE / "sessions.json").read_text())


def ids(name: str) -> str:
    return MANIFEST[name]["id"]


def texts(session: Session, role: str | None = None) -> list[str]:
    return [p.data["text"] for p in session.parts if p.type == "text" and (role is None or p.role == role)]


def all_sessions(source: CodexSource) -> dict[str, Session]:
    found: dict[str, Session] = {}

    def walk(s: Session) -> None:
        found[s.info.id] = s
        for child in s.children:
            walk(child)

    for root in source.iter_sessions():
        walk(root)
    return found


@pytest.fixture()
def fixture_home(tmp_path: Path) -> Path:
    home = tmp_path / "codex-home"
    shutil.copytree(FIXTURE, home)
    return home


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    (path / "sessions").mkdir(parents=True)
    return path


# -- the real binary's files ------------------------------------------------------------------


def test_fixture_threads_roots_and_children(fixture_home: Path) -> None:
    source = CodexSource(fixture_home)
    layout = source.check_schema()
    assert layout.versions == ("0.171.0",)
    assert layout.files == len(MANIFEST)
    roots = {info.id: info for info in source.iter_root_infos()}
    children = {ids("alpha_fork"), ids("beta_helper")}
    assert set(roots) == {entry["id"] for entry in MANIFEST.values()} - children
    assert source.count_roots() == len(roots)
    sessions = all_sessions(source)
    assert [c.info.id for c in sessions[ids("alpha_tests")].children] == [ids("alpha_fork")]
    assert [c.info.id for c in sessions[ids("beta_subagent")].children] == [ids("beta_helper")]
    assert ids("scratch_hello") in roots  # the archived thread is read too


def test_fixture_turns_tools_and_resume(fixture_home: Path) -> None:
    sessions = all_sessions(CodexSource(fixture_home))
    tests = sessions[ids("alpha_tests")]
    assert texts(tests, "user") == ["Run the calc tests and tell me what fails.", "Show me the last commit, please."]
    tools = [p for p in tests.parts if p.type == "tool"]
    assert [t.data["state"]["input"]["cmd"] for t in tools] == [
        "python3 -m unittest test_calc 2>&1 | tail -n 4", "git log --oneline -1"]
    assert all(t.data["state"]["status"] == "completed" for t in tools)
    assert "FAILED" in tools[0].data["state"]["output"] and "init alpha" in tools[1].data["state"]["output"]
    # each prompt once: the event stream's repeats (item_completed) are not a second copy
    everything = [t for s in sessions.values() for t in texts(s)]
    assert everything.count("Run the calc tests and tell me what fails.") == 1
    assert everything.count("The helper counted 2 lines in app.py.") == 1


def test_fixture_injected_context_and_encrypted_reasoning_left_out(fixture_home: Path) -> None:
    sessions = all_sessions(CodexSource(fixture_home))
    dumped = json.dumps([[p.data for p in s.parts] for s in sessions.values()])
    for marker in ("<environment_context>", "<skills_instructions>", "<subagent_notification>", "gAAAAAB",
                   "You are a coding agent"):
        assert marker not in dumped
    reasons = [p.data["text"] for s in sessions.values() for p in s.parts if p.type == "reasoning"]
    assert "Running the unit tests first." in reasons and "A small exec cell can grep for me." in reasons


def test_fixture_code_mode_cell_and_subagent_copy(fixture_home: Path) -> None:
    source = CodexSource(fixture_home)
    sessions = all_sessions(source)
    cell = next(p for p in sessions[ids("beta_code_mode")].parts if p.type == "tool")
    assert cell.data["tool"] == "exec" and "tools.exec_command" in cell.data["state"]["input"]["code"]
    assert "TODO: read settings" in cell.data["state"]["output"]
    spawn = next(p for p in sessions[ids("beta_subagent")].parts if p.type == "tool")
    assert spawn.data["tool"] == "spawn_agent"
    assert spawn.data["state"]["metadata"] == {"sessionId": ids("beta_helper")}
    helper = sessions[ids("beta_helper")]
    # the child's rollout starts with a copy of the parent's prompt: removed, counted
    assert texts(helper, "user") == ["[subagent task] Count the lines of app.py and report the number."]
    assert source.stats.duplicate_items >= 1
    assert helper.info.parent_id == ids("beta_subagent")  # a child names its parent, as OpenCode children do


def test_fixture_fork_and_long_output(fixture_home: Path) -> None:
    sessions = all_sessions(CodexSource(fixture_home))
    assert texts(sessions[ids("alpha_fork")], "user") == ["Instead, explain why mul() has a TODO."]
    long_tool = next(p for p in sessions[ids("alpha_long_output")].parts if p.type == "tool")
    out = long_tool.data["state"]["output"]
    assert len(out) <= MAX_TOOL_OUTPUT_CHARS + 200 and "\n6000\n" in out and "\n1\n" in out


def test_fixture_session_filter(fixture_home: Path) -> None:
    source = CodexSource(fixture_home)
    # a child id selects its root
    assert [i.id for i in source.iter_root_infos(SessionFilter(session_ids=(ids("beta_helper"),)))] == [
        ids("beta_subagent")]
    assert source.count_roots(SessionFilter(session_ids=(ids("alpha_fork"), ids("alpha_tests")))) == 1
    with pytest.raises(UnknownSessionError):
        list(source.iter_root_infos(SessionFilter(session_ids=("01a20000-dead-7000-8000-000000000000",))))
    infos = list(source.iter_root_infos())
    assert [i.time_created for i in infos] == sorted(i.time_created for i in infos)
    latest = max(i.time_updated for i in infos)
    assert [i.id for i in source.iter_root_infos(SessionFilter(since_ms=latest))] == [
        i.id for i in infos if i.time_updated >= latest]
    assert len(list(source.iter_root_infos(SessionFilter(limit=2)))) == 2
    beta = list(source.iter_root_infos(SessionFilter(accept=lambda i: i.directory.endswith("/beta"))))
    assert {i.id for i in beta} == {ids("beta_secrets"), ids("beta_code_mode"), ids("beta_subagent")}


# -- strictly read-only -----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["all", "one_session", "schema_only"])
def test_nothing_is_created_or_changed_under_codex_home(fixture_home: Path, how: str) -> None:
    before = C.tree_state(fixture_home)
    source = CodexSource(fixture_home)
    source.check_schema()
    if how == "all":
        list(source.iter_sessions())
    elif how == "one_session":
        list(source.iter_sessions(SessionFilter(session_ids=(ids("beta_helper"),))))
    source.close()
    assert C.tree_state(fixture_home) == before


def test_missing_home_is_one_clear_error(tmp_path: Path) -> None:
    for path in (tmp_path / "absent", tmp_path):
        with pytest.raises(SourceNotFoundError, match="no Codex history"):
            CodexSource(path)
    assert not (tmp_path / "absent").exists()


def test_codex_home_resolution() -> None:
    assert resolve_codex_home("/x/y", {"CODEX_HOME": "/a"}) == Path("/x/y")
    assert resolve_codex_home(None, {"CODEX_HOME": "/a"}) == Path("/a")
    assert resolve_codex_home(None, {}) == Path("~/.codex").expanduser()


# -- torn, glued, oversized lines ---------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 17, -2])
def test_torn_last_line_is_counted_and_the_rest_read(home: Path, cut: int) -> None:
    sid = C.new_id(1)
    body = "".join(C.line(r) for r in C.simple(sid, "first prompt", "first answer"))
    last = json.dumps(C.user("a prompt being written", 5))
    C.write_rollout(home, sid, body + last[:cut])
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session) == ["first prompt", "first answer"]
    assert source.stats.torn_lines == 1 and source.stats.skip_counts() == {"torn_lines": 1}


def test_complete_last_line_without_newline_is_read(home: Path) -> None:
    sid = C.new_id(2)
    body = "".join(C.line(r) for r in C.simple(sid, "p", "a"))
    C.write_rollout(home, sid, body + json.dumps(C.user("last words", 5)))
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session)[-1] == "last words" and source.stats.torn_lines == 0


@pytest.mark.parametrize("pair", [
    (C.user("glued prompt", 3), C.assistant("glued answer", 4)),
    (C.call("c1", "ls", 3), C.output("c1", "a.txt", 4)),
    (C.reasoning("glued thought", 3), C.assistant("after thought", 4)),
])
def test_glued_records_are_both_read_and_counted(home: Path, pair) -> None:
    sid = C.new_id(3)
    head = "".join(C.line(r) for r in C.simple(sid, "p", "a"))
    C.write_rollout(home, sid, head + json.dumps(pair[0]) + json.dumps(pair[1]) + "\n" + C.line(C.assistant("end", 9)))
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert source.stats.glued_lines == 1
    kinds = [p.type for p in session.parts]
    assert len(kinds) >= 4 and texts(session)[-1] == "end"
    if pair[0]["payload"]["type"] == "function_call":
        tool = next(p for p in session.parts if p.type == "tool")
        assert tool.data["state"]["status"] == "completed" and "a.txt" in tool.data["state"]["output"]


def test_interrupted_write_fragment_then_record(home: Path) -> None:
    sid = C.new_id(4)
    head = "".join(C.line(r) for r in C.simple(sid, "p", "a"))
    fragment = json.dumps(C.assistant("never finished", 3))[:40]
    C.write_rollout(home, sid, head + fragment + json.dumps(C.assistant("written after", 4)) + "\n")
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session) == ["p", "a", "written after"]
    assert source.stats.malformed_json == 1


def _big_image_record(mb: int, second: int) -> dict:
    data = "data:image/png;base64," + "A" * (mb * 1024 * 1024)
    return C.rec("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "what is in this screenshot?"}, {"type": "input_image", "image_url": data}]},
        second)


@pytest.mark.parametrize("where", ["middle", "last_without_newline"])
def test_5mb_line_skipped_in_bounded_memory_with_a_low_bound(home: Path, where: str) -> None:
    sid = C.new_id(5)
    records = C.simple(sid, "before", "answer")
    big = json.dumps(_big_image_record(5, 3))
    tail = C.line(C.assistant("after", 4)) if where == "middle" else ""
    C.write_rollout(home, sid, "".join(C.line(r) for r in records) + big + ("\n" if tail else "") + tail)
    source = CodexSource(home, max_line_bytes=512 * 1024)
    tracemalloc.start()
    [session] = list(source.iter_sessions())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 3 * 1024 * 1024, peak  # the 5 MB line was never held whole
    assert source.stats.oversized_lines == 1
    assert texts(session)[:2] == ["before", "answer"]
    assert (texts(session)[-1] == "after") == (where == "middle")


def test_5mb_line_read_with_the_default_bound_and_its_image_dropped(home: Path) -> None:
    sid = C.new_id(6)
    C.write_rollout(home, sid, C.simple(sid, "before", "answer") + [_big_image_record(5, 3), C.assistant("ok", 4)])
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert source.stats.oversized_lines == 0
    assert "what is in this screenshot?\n[image]" in texts(session, "user")
    assert "AAAAAAAA" not in json.dumps([p.data for p in session.parts])


def test_line_reader_counts_invalid_utf8_and_non_objects(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": "caf\xe9"}\n[1, 2]\n{"b": 1}\n')
    stats = ReadStats()
    values = [r.value for r in iter_records(path, stats)]
    assert values == [{"a": "caf\ufffd"}, {"b": 1}]
    assert stats.undecodable_text == 1 and stats.malformed_json == 1


# -- early rollouts, echoes, compaction, unknown kinds ----------------------------------------------


@pytest.mark.parametrize("with_git", [True, False])
def test_early_unwrapped_rollouts(home: Path, with_git: bool) -> None:
    sid = C.new_id(7)
    first = {"id": sid, "timestamp": "2025-05-01T09:00:00.000Z", "instructions": "be brief"}
    if with_git:
        first["git"] = {"commit_hash": "abc", "branch": "main", "repository_url": "https://example.com/r.git"}
    lines = [first, {"record_type": "state"},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old prompt"}]},
             {"type": "reasoning", "id": "rs1", "summary": [{"type": "summary_text", "text": "thinking"}],
              "encrypted_content": "gAAAAAB..."},
             {"type": "function_call", "name": "shell", "call_id": "c9", "arguments": '{"command": ["ls"]}'},
             {"type": "function_call_output", "call_id": "c9", "output": {"content": "README.md", "success": True}},
             {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "old answer"}]},
             {"record_type": "state"}]
    C.write_rollout(home, sid, "".join(C.line(v) for v in lines))
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert session.info.id == sid and session.info.time_created == 1746090000000
    assert [p.type for p in session.parts] == ["text", "reasoning", "tool", "text"]
    tool = session.parts[2].data
    assert tool["tool"] == "shell" and tool["state"]["output"] == "README.md"
    assert source.stats.skipped_rows == 0


def test_early_failed_call_is_an_error(home: Path) -> None:
    sid = C.new_id(8)
    lines = [{"id": sid, "timestamp": "2025-05-01T09:00:00.000Z"},
             {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{not json"},
             {"type": "function_call_output", "call_id": "c1", "output": {"content": "boom", "success": False}}]
    C.write_rollout(home, sid, "".join(C.line(v) for v in lines))
    [session] = list(CodexSource(home).iter_sessions())
    state = session.parts[0].data["state"]
    assert state["status"] == "error" and state["error"] == "boom" and state["input"] == {"raw": "{not json"}


def test_event_echoes_dropped_event_only_text_kept_once(home: Path) -> None:
    sid = C.new_id(9)
    C.write_rollout(home, sid, [
        C.meta(sid), C.echo_user("echoed prompt", 1), C.user("echoed prompt", 1), C.echo_agent("echoed answer", 2),
        C.assistant("echoed answer", 2), C.echo_user("only in the event stream", 3),
        C.echo_agent("answer only in events", 4)])
    [session] = list(CodexSource(home).iter_sessions())
    assert texts(session) == ["echoed prompt", "echoed answer", "only in the event stream", "answer only in events"]
    assert [p.role for p in session.parts] == ["user", "assistant", "user", "assistant"]


def test_compaction_summary_kept_once(home: Path) -> None:
    sid = C.new_id(10)
    summary = "Summary: fixed the parser, tests pass."
    compacted = C.rec("compacted", {"message": summary, "replacement_history": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old prompt"}]}]}, 5)
    C.write_rollout(home, sid, C.simple(sid, "old prompt", "old answer") + [compacted, compacted,
                                                                            C.user("new prompt", 6)])
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert [p.type for p in session.parts] == ["text", "text", "compaction", "text", "text"]
    assert texts(session) == ["old prompt", "old answer", summary, "new prompt"]
    assert source.stats.duplicate_items == 1


def test_unknown_kinds_ignored_and_counted(home: Path) -> None:
    sid = C.new_id(11)
    C.write_rollout(home, sid, C.simple(sid, "p", "a") + [
        C.rec("future_kind", {"x": 1}, 3), C.rec("response_item", {"type": "future_item", "x": 2}, 4),
        C.rec("response_item", {"type": "message", "role": "tool", "content": []}, 5),
        C.rec("world_state", {"full": True}, 6), C.rec("token_usage_record", {"usage": {}}, 7),
        C.rec("response_item", {"type": "function_call_output", "call_id": "nobody", "output": "x"}, 8),
        C.assistant("still read", 9)])
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session)[-1] == "still read"
    assert source.stats.skip_counts() == {"unknown_types": 2, "unknown_roles": 1, "orphan_parts": 1}


def test_exec_output_cut_at_10000_chars_head_and_tail(home: Path) -> None:
    sid = C.new_id(12)
    big = "\n".join(f"line {n:05d} " + "x" * 40 for n in range(2000))
    C.write_rollout(home, sid, C.simple(sid, "p", "a") + [C.call("c1", "cat big.log", 3), C.output("c1", big, 4)])
    [session] = list(CodexSource(home).iter_sessions())
    out = session.parts[-1].data["state"]["output"]
    assert len(out) <= MAX_TOOL_OUTPUT_CHARS + 100
    assert "line 00000" in out and "line 01999" in out and "chars of tool output cut" in out


# -- forks and subagents copying their parent's history -------------------------------------------


def _parent_and_fork(home: Path, n: int, *, copy_meta: bool, key: str) -> tuple[str, str]:
    parent, child = C.new_id(100 + n), C.new_id(200 + n)
    parent_records = C.simple(parent, "parent prompt", "parent answer") + [
        C.call("p1", "ls", 3), C.output("p1", "a.txt", 4)]
    C.write_rollout(home, parent, parent_records)
    extra = {"forked_from_id": parent} if key == "fork" else {
        "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}}
    copied = ([parent_records[0]] if copy_meta else []) + parent_records[1:]
    C.write_rollout(home, child, [C.meta(child, second=10, **extra)] + copied + [
        C.user("child prompt", 11), C.assistant("child answer", 12)])
    return parent, child


@pytest.mark.parametrize("copy_meta", [True, False])
@pytest.mark.parametrize("key", ["fork", "subagent"])
def test_child_copy_of_parent_history_removed_and_linked(home: Path, copy_meta: bool, key: str) -> None:
    parent, child = _parent_and_fork(home, 1, copy_meta=copy_meta, key=key)
    source = CodexSource(home)
    [root] = list(source.iter_sessions())
    assert root.info.id == parent and [c.info.id for c in root.children] == [child]
    assert texts(root.children[0]) == ["child prompt", "child answer"]
    assert source.stats.duplicate_items == 3  # prompt, answer, tool call with its output


def test_fork_of_a_fork_and_an_orphan(home: Path) -> None:
    parent, child = _parent_and_fork(home, 2, copy_meta=False, key="fork")
    grandchild = C.new_id(300)
    C.write_rollout(home, grandchild, [C.meta(grandchild, second=20, forked_from_id=child),
                                       C.user("child prompt", 11), C.user("grandchild prompt", 21)])
    orphan = C.new_id(301)
    C.write_rollout(home, orphan, [C.meta(orphan, second=30, forked_from_id=C.new_id(999)),
                                   C.user("orphan prompt", 31)])
    source = CodexSource(home)
    roots = list(source.iter_sessions())
    assert [r.info.id for r in roots] == [parent, orphan]
    assert texts(roots[0].children[0].children[0]) == ["grandchild prompt"]
    assert roots[1].info.parent_id == C.new_id(999)  # an orphan keeps its parent id
    assert [i.id for i in source.iter_root_infos(SessionFilter(session_ids=(grandchild,)))] == [parent]


def test_thread_in_sessions_and_archive_read_once(home: Path) -> None:
    sid = C.new_id(13)
    C.write_rollout(home, sid, C.simple(sid, "p", "a"))
    C.write_rollout(home, sid, C.simple(sid, "p", "a") + [C.user("more", 5)], archived=True)
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session) == ["p", "a", "more"]


# -- working directories and project identity ------------------------------------------------------


def _repo(path: Path, message: str) -> str:
    path.mkdir(parents=True)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(path)}
    subprocess.run(["git", "init", "-q"], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=path, check=True, env=env)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, check=True, env=env, capture_output=True,
                          text=True).stdout.strip()


def test_project_is_the_git_root_of_cwd(home: Path, tmp_path: Path) -> None:
    project_mod.git_root.cache_clear()
    project_mod.root_commit.cache_clear()
    one, two = tmp_path / "repos" / "one", tmp_path / "repos" / "two"
    first, second = _repo(one, "one"), _repo(two, "two")
    (one / "src" / "deep").mkdir(parents=True)
    plain = tmp_path / "plain"
    plain.mkdir()
    cases = {C.new_id(20): (str(one / "src" / "deep"), first, str(one)), C.new_id(21): (str(one), first, str(one)),
             C.new_id(22): (str(two), second, str(two)), C.new_id(23): (str(plain), "global", "/")}
    for n, (sid, (cwd, _, _)) in enumerate(cases.items()):
        C.write_rollout(home, sid, C.simple(sid, "p", "a", cwd=cwd, second=n * 10))
    for info in CodexSource(home).iter_root_infos():
        cwd, project_id, worktree = cases[info.id]
        assert (info.directory, info.project_id, info.project_worktree) == (cwd, project_id, worktree)


def test_gone_directory_uses_the_remote_without_credentials(home: Path, tmp_path: Path) -> None:
    sid = C.new_id(24)
    git = {"repository_url": "https://bot:hunter2-FAKE@git.example.com/acme/app.git", "branch": "main"}
    C.write_rollout(home, sid, [C.meta(sid, cwd=str(tmp_path / "gone" / "app"), git=git), C.user("p", 1)])
    [info] = list(CodexSource(home).iter_root_infos())
    assert info.project_id == "remote:https://git.example.com/acme/app.git"
    assert "hunter2" not in info.project_id


@pytest.mark.parametrize("context_after_prompt", [False, True])  # 0.171 order, 0.50 order
def test_cwd_changes_between_turns_are_kept_per_part(home: Path, context_after_prompt: bool) -> None:
    sid = C.new_id(25)
    turns = [("/work/a", "in a", "done in a"), ("/work/b", "in b", "done in b"), ("/work/a", "back in a", "ok")]
    records = [C.meta(sid, cwd="/work/a")]
    for n, (cwd, prompt, answer) in enumerate(turns):
        context = C.rec("turn_context", {"cwd": cwd}, n * 10)
        pair = [C.user(prompt, n * 10 + 1), C.echo_user(prompt, n * 10 + 1)]
        records += (pair + [context] if context_after_prompt else [context] + pair) + [C.assistant(answer, n * 10 + 2)]
    C.write_rollout(home, sid, records)
    [session] = list(CodexSource(home).iter_sessions())
    assert session.info.directory == "/work/a"
    assert [(p.data["text"], p.data["cwd"]) for p in session.parts] == [
        (text, cwd) for cwd, prompt, answer in turns for text in (prompt, answer)]


def test_synthetic_history_reads_as_generated(tmp_path: Path) -> None:
    from tests.fixtures.synthetic_codex import build_codex_home, thread_id

    build_codex_home(tmp_path / "h", 3, turns=2, instructions_chars=500)
    source = CodexSource(tmp_path / "h")
    sessions = list(source.iter_sessions())
    assert [s.info.id for s in sessions] == [thread_id(n) for n in range(3)]
    for session in sessions:
        # per turn: prompt, reasoning summary, exec_command, apply_patch, answer -- no echo, no injected context
        assert [p.type for p in session.parts] == ["text", "reasoning", "tool", "tool", "text"] * 2
        assert all(p.data["state"]["status"] == "completed" for p in session.parts if p.type == "tool")
    assert source.stats.skipped_rows == 0 and source.stats.duplicate_items == 0


@pytest.mark.parametrize("size", [1, 2, 3])
def test_parent_cycles_read_each_thread_once(home: Path, size: int) -> None:
    members = [C.new_id(400 + n) for n in range(size)]
    for n, sid in enumerate(members):
        C.write_rollout(home, sid, [C.meta(sid, second=n * 10, forked_from_id=members[(n + 1) % size]),
                                    C.user(f"prompt {n}", n * 10 + 1)])
    source = CodexSource(home)
    roots = list(source.iter_sessions())
    assert [r.info.id for r in roots] == [members[0]]  # the oldest member stands for the cycle
    assert sorted(all_sessions(source)) == sorted(members)
    assert source.count_roots() == 1


def test_fixture_compaction_kept_once_and_cwd_change(fixture_home: Path) -> None:
    source = CodexSource(fixture_home)
    sessions = all_sessions(source)
    compact = sessions[ids("alpha_compact")]
    assert [p.type for p in compact.parts].count("compaction") == 1
    summaries = [t for t in texts(compact) if t.startswith("SUMMARY:")]
    assert summaries == ["SUMMARY: the user asked about calc.py (add subtracts, mul has a TODO) and its tests."]
    assert not any(t.startswith("Another language model") for s in sessions.values() for t in texts(s))
    assert texts(compact, "user") == ["Summarise what calc.py does.", "Now what does test_calc.py check?"]
    moved = sessions[ids("alpha_then_beta")]
    assert moved.info.directory.endswith("/alpha")
    assert [(p.data["text"], p.data["cwd"].rsplit("/", 1)[1]) for p in moved.parts if p.type == "text" and
            p.role == "user"] == [("Which tests does alpha have?", "alpha"), ("And what does beta's app.py print?", "beta")]


@pytest.mark.parametrize("answer_first", [True, False])
def test_compaction_hand_off_prefix_dropped_and_its_answer_once(home: Path, answer_first: bool) -> None:
    sid = C.new_id(14)
    summary = "SUMMARY: parser fixed."
    hand_off = ("Another language model started to solve this problem and produced a summary of its thinking "
                "process. Here is the summary produced by the other language model, use it:\n" + summary)
    records = C.simple(sid, "fix the parser", "fixed") + ([C.assistant(summary, 4)] if answer_first else []) + [
        C.rec("compacted", {"message": hand_off, "replacement_history": []}, 5), C.user("next", 6)]
    C.write_rollout(home, sid, records)
    source = CodexSource(home)
    [session] = list(source.iter_sessions())
    assert texts(session) == ["fix the parser", "fixed", summary, "next"]
    assert source.stats.duplicate_items == (1 if answer_first else 0)


EARLY = FIXTURE.parent / "codex-0.20"


def test_real_early_rollouts_without_the_wrapper(tmp_path: Path) -> None:
    home = tmp_path / "early"
    shutil.copytree(EARLY, home)
    manifest = json.loads((EARLY / "sessions.json").read_text())
    first_line = json.loads(next(home.glob("sessions/**/*.jsonl")).read_text().splitlines()[0])
    assert "payload" not in first_line and "instructions" in first_line  # really the early shape
    source = CodexSource(home)
    sessions = {s.info.id: s for s in source.iter_sessions()}
    assert set(sessions) == {e["id"] for e in manifest.values()}
    secrets = sessions[manifest["beta_secrets"]["id"]]
    assert [p.type for p in secrets.parts] == ["text", "reasoning", "tool", "text"]
    tool = secrets.parts[2].data
    assert tool["tool"] == "shell" and tool["state"]["input"]["command"] == ["bash", "-lc", "cat deploy.env"]
    assert tool["state"]["output"].startswith("# deploy settings")  # the {"output": …} envelope decoded
    long_out = next(p for p in sessions[manifest["alpha_long_output"]["id"]].parts if p.type == "tool")
    assert len(long_out.data["state"]["output"]) <= MAX_TOOL_OUTPUT_CHARS + 200
    assert "gAAAAAB" not in json.dumps([p.data for s in sessions.values() for p in s.parts])
    # early rollouts record no working directory: filed by directory '' under the global project
    assert {(s.info.directory, s.info.project_id) for s in sessions.values()} == {("", "global")}
    assert source.stats.skipped_rows == 0


MIDDLE = FIXTURE.parent / "codex-0.50"


def test_real_050_event_echoes_once_and_cwd_change(tmp_path: Path) -> None:
    home = tmp_path / "mid"
    shutil.copytree(MIDDLE, home)
    manifest = json.loads((MIDDLE / "sessions.json").read_text())
    raw = "".join(p.read_text() for p in home.glob("sessions/**/*.jsonl"))
    for echo in ('"type":"user_message"', '"type":"agent_message"', '"type":"agent_reasoning"'):
        assert echo in raw  # this version repeats every text in the event stream
    sessions = {s.info.id: s for s in CodexSource(home).iter_sessions()}
    tests = sessions[manifest["alpha_tests"]["id"]]
    assert texts(tests, "user") == ["Run the calc tests and tell me what fails.", "Show me the last commit, please."]
    assert [p.type for p in tests.parts].count("reasoning") == 1
    every = [t for s in sessions.values() for t in texts(s)]
    assert len(every) == len(set(every))  # no text twice
    moved = sessions[manifest["alpha_then_beta"]["id"]]
    assert [p.data["cwd"].rsplit("/", 1)[1] for p in moved.parts if p.role == "user"] == ["alpha", "beta"]
    assert {s.info.version for s in sessions.values()} == {"0.50.0"}
