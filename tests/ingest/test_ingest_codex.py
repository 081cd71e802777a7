"""Ingest over three sources: the real Codex 0.171 fixture beside the real Claude Code and OpenCode ones.

Checks: every source found is read (``codex.<uuid>`` keys, forks and spawned threads folded into
their parent); one topic per git repository across the three agents (the Codex and Claude Code
fixtures' working directories are rewritten to the OpenCode fixture's repositories, made again with
the same root commits: only paths change); notes and transcripts name the source; planted secrets of
each source reach no transcript, note or model request; ``--source codex``, ``--codex-home`` and
``--session`` with a bare, keyed or child id; doctor's codex check; sessions of memory tools skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome, Settings
from memctl.connectors.registry import discover, key_of, split_key
from memctl.doctor import check_codex, run_checks
from memctl.ingest.distill import read_note_meta
from memctl.ingest.memory_tools import memory_server, memory_tool_session
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support import crafted_claude_code as CC, crafted_codex as C

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
OPENCODE = FIXTURES / "opencode-1.14"
CODEX_MANIFEST = json.loads((C.FIXTURE / "sessions.json").read_text())
FOLDED = {"alpha_fork", "beta_helper"}  # a fork and a spawned subagent: children of another thread
PLANTED = {name: [s["value"] for s in json.loads((FIXTURES / name / "planted_secrets.json").read_text())]
           for name in ("codex-0.171", "claude-code-2.1", "opencode-1.14")}


def codex_key(name: str) -> str:
    return key_of("codex", CODEX_MANIFEST[name]["id"])


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("three")
    claude, _ = CC.relocated_fixture(base)  # makes base/projects/{alpha,beta,scratch} (OpenCode's root commits)
    codex, _ = C.relocated_fixture(base, base / "projects")
    shutil.copytree(OPENCODE, base / "opencode")
    return {"db": base / "opencode" / "opencode.db", "claude": claude, "codex": codex, "base": base}


@pytest.fixture(scope="module")
def distilled(sources: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("home") / "var"
    with FakeOllama() as server:
        summary = IngestRun(Settings(home=home, ollama_host=server.url, settle_minutes=0),
                            IngestOptions(db=sources["db"], claude_dir=sources["claude"], codex_home=sources["codex"],
                                          phase="distill")).run()
        bodies = [json.dumps(body) for _, _, body in server.calls]
    entries = Checkpoint(DataHome(home).progress, DataHome(home).skipped).entries
    return home, summary, bodies, entries


def test_codex_threads_are_read_beside_the_other_sources(distilled) -> None:
    _, summary, _, entries = distilled
    roots = {codex_key(name) for name in CODEX_MANIFEST if name not in FOLDED}
    assert {k for k in entries if k.startswith("codex.")} == roots
    assert not {codex_key(name) for name in FOLDED} & set(entries)  # folded into their parent, not sessions
    by_source: dict[str | None, int] = {}
    for key in entries:
        by_source[split_key(key)[0]] = by_source.get(split_key(key)[0], 0) + 1
    assert set(by_source) == {None, "claude-code", "codex"} and summary.found == len(entries)
    assert entries[codex_key("alpha_tests")].status == "distilled"


def test_one_topic_per_repository_across_the_three_agents(distilled) -> None:
    home, _, _, entries = distilled
    for repo in ("alpha", "beta"):
        topics = {split_key(k)[0] or "opencode": set() for k in entries}
        for key, entry in entries.items():
            if entry.status == "distilled" and entry.topic.split("-")[0] == repo:
                topics[split_key(key)[0] or "opencode"].add(entry.topic)
        assert topics == {"opencode": {repo}, "claude-code": {repo}, "codex": {repo}}, topics
    projects = json.loads(DataHome(home).topics.read_text())["projects"]
    assert sorted(p["topic"] for p in projects.values()) == ["alpha", "beta"]  # one project per root commit


def test_notes_and_transcripts_name_codex(distilled) -> None:
    home, _, _, entries = distilled
    key = codex_key("alpha_tests")
    meta = read_note_meta(DataHome(home).note_path(key).read_text())
    assert (meta["source"], meta["source_id"], meta["source_version"]) == ("codex", key, "0.171.0")
    transcript = DataHome(home).transcript_path(key).read_text()
    assert transcript.startswith("# Codex session: ") and f"- Source id: {key}\n" in transcript
    fork = CODEX_MANIFEST["alpha_fork"]["id"]
    assert fork in meta["child_sessions"] or key_of("codex", fork) in meta["child_sessions"]


def test_planted_secrets_of_every_source_reach_nothing(distilled) -> None:
    home, summary, bodies, _ = distilled
    assert summary.redactions
    written = "\n".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())
    for fixture, secrets in PLANTED.items():
        for secret in secrets:
            assert secret not in written, (fixture, secret)
            assert not any(secret in body for body in bodies), (fixture, secret)


def test_source_option_and_codex_session_ids(sources: dict[str, Path], tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "var", settle_minutes=0)

    def run(**kw) -> IngestRun:
        job = IngestRun(settings, IngestOptions(db=sources["db"], claude_dir=sources["claude"],
                                                codex_home=sources["codex"], dry_run=True, **kw))
        job.run()
        return job

    only = run(sources=("codex",), since=datetime(2020, 1, 1, tzinfo=timezone.utc))  # since: a filter, ids kept
    assert sorted(only.selected_ids) == sorted(codex_key(n) for n in CODEX_MANIFEST if n not in FOLDED)
    assert only.summary.found == len(CODEX_MANIFEST) - len(FOLDED)
    raw = CODEX_MANIFEST["beta_secrets"]["id"]
    for spelled in (raw, key_of("codex", raw)):
        assert run(session_ids=(spelled,)).selected_ids == [key_of("codex", raw)]
    helper = CODEX_MANIFEST["beta_helper"]["id"]  # a spawned subagent's id selects its parent
    assert run(session_ids=(helper,)).selected_ids == [codex_key("beta_subagent")]


def test_discover_and_environment(sources: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = {"opencode": tmp_path / "none.db", "claude-code": tmp_path / "none", "codex": sources["codex"]}
    assert [n for n, _ in discover((), paths)] == ["codex"]
    assert [n for n, _ in discover((), {**paths, "codex": tmp_path})] == ["opencode"]  # nothing there
    monkeypatch.setenv("CODEX_HOME", str(sources["codex"]))
    assert discover(("codex",), {}) == (("codex", str(sources["codex"])),)
    named = discover((), {**paths, "codex": tmp_path / "gone"}, ("codex",))
    assert named == (("codex", str(tmp_path / "gone")),)  # given on the command line: read, so its error shows


def test_cli_codex_home(sources: dict[str, Path], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "memctl.cli", "ingest", "--home", str(tmp_path / "var"), "--dry-run", "--json"]
    missing = subprocess.run([*cmd, "--codex-home", str(tmp_path / "nothing")], env=env, capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 3 and "no Codex history" in missing.stderr + missing.stdout
    assert "Traceback" not in missing.stderr
    found = subprocess.run([*cmd, "--source", "codex", "--codex-home", str(sources["codex"])], env=env,
                           capture_output=True, text=True, timeout=300)
    assert found.returncode == 0, found.stderr[-2000:]
    assert f'"found": {len(CODEX_MANIFEST) - len(FOLDED)}' in found.stdout


def test_doctor_lists_codex(sources: dict[str, Path], tmp_path: Path) -> None:
    check = check_codex(sources["codex"])
    roots = len(CODEX_MANIFEST) - len(FOLDED)
    assert check.status == "ok" and f": {roots} sessions (2 subagent or fork threads folded in)" in check.detail
    assert "version 0.171.0" in check.detail and str(sources["codex"]) in check.detail
    assert "(not read)" in check_codex(tmp_path).detail
    checks = {c.name: c for c in run_checks(Settings(home=tmp_path / "var"), tmp_path / "none.db", tmp_path / "nc",
                                            sources["codex"])}
    assert checks["codex history"].status == "ok"
    assert checks["opencode db"].status == "warn" if "opencode db" in checks else True
    broken = tmp_path / "broken"
    (broken / "sessions").mkdir(parents=True)
    (broken / "sessions").chmod(0)
    try:
        result = check_codex(broken)
        assert result.status in ("ok", "fail") and "sessions" in result.detail
    finally:
        (broken / "sessions").chmod(0o755)


# -- sessions of memory tools -----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "server"), [
    ("mcp__memctl__memory_ask", "memctl"), ("memctl__memory_remember", "memctl"), ("memctl_memory_search", "memctl"),
    ("mcp__claude-mem__search", "claude-mem"), ("claude_mem_search", "claude_mem"),
    ("mcp__memory__create_entities", "memory"), ("basic_memory_read_note", "basic_memory"),
    ("exec_command", None), ("Bash", None), ("mcp__github__search", None), ("memctl", None), ("memorize", None),
    ("mcp__memctlx__ask", None),
])
def test_memory_server_names(name: str, server: str | None) -> None:
    assert memory_server(name) == server


def _mcp_call(call_id: str, name: str, second: int) -> list[dict]:
    return [C.rec("response_item", {"type": "function_call", "name": name, "call_id": call_id,
                                    "arguments": json.dumps({"question": "how do we deploy beta?"})}, second),
            C.rec("response_item", {"type": "function_call_output", "call_id": call_id,
                                    "output": "Beta deploys with deploy.sh after the tests pass. " * 8}, second + 1)]


def test_memory_tool_sessions_are_skipped_and_mixed_ones_distilled(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    only_memory, mixed, plain = C.new_id(1), C.new_id(2), C.new_id(3)
    prompt = "What did we decide about deploying beta last week? Please look it up in memory."
    C.write_rollout(home, only_memory, [C.meta(only_memory, second=0), C.user(prompt, 1),
                                        *_mcp_call("c1", "mcp__memctl__memory_ask", 2),
                                        *_mcp_call("c2", "mcp__memctl__memory_remember", 4), C.assistant("Found it.", 6)])
    C.write_rollout(home, mixed, [C.meta(mixed, second=10), C.user(prompt, 11), *_mcp_call("c3", "mcp__memctl__ask", 12),
                                  C.call("c4", "./deploy.sh --dry-run", 14), C.output("c4", "ok " * 100, 15),
                                  C.assistant("Ran the dry run.", 16)])
    C.write_rollout(home, plain, C.simple(plain, prompt, "No tools were needed for this answer. " * 10, second=20))
    claude = tmp_path / "claude"
    claude_sid = "22222222-3333-4444-8555-666666666666"
    CC.write(CC.session_file(claude, claude_sid), [
        CC.user("u1", None, prompt, 0, claude_sid),
        CC.assistant("a1", "u1", "msg_x1", {"type": "tool_use", "id": "toolu_m1", "name": "mcp__memctl__memory_search",
                                            "input": {"question": "deploy beta"}}, 1, claude_sid),
        CC.user("u2", "a1", [CC.tool_result("toolu_m1", "Beta deploys with deploy.sh. " * 10)], 2, claude_sid),
        CC.assistant("a2", "u2", "msg_x2", CC.text("Beta deploys with deploy.sh."), 3, claude_sid)])
    with FakeOllama() as server:
        IngestRun(Settings(home=tmp_path / "var", ollama_host=server.url, settle_minutes=0),
                  IngestOptions(db=tmp_path / "none.db", claude_dir=claude, codex_home=home, phase="distill")).run()
    entries = Checkpoint(DataHome(tmp_path / "var").progress, DataHome(tmp_path / "var").skipped).entries
    skipped = {k: e.reason for k, e in entries.items() if e.status == "skipped" and "memory tool" in (e.reason or "")}
    assert set(skipped) == {key_of("codex", only_memory), key_of("claude-code", claude_sid)}, skipped
    assert all(reason.startswith("memory tool session") and "(memctl)" in reason for reason in skipped.values())
    assert entries[key_of("codex", mixed)].status == "distilled"
    # no tool calls: the model decides (the fake answers JUNK for a short question without tools)
    assert entries[key_of("codex", plain)].reason == "model answered JUNK"
    from memctl.connectors.codex.source import CodexSource

    [session] = [s for s in CodexSource(home).iter_sessions() if s.info.id == mixed]
    assert memory_tool_session(session) is None


# -- ask over the three sources ------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "topic"), [
    ("Which unit test fails in calc.py, and what does the last commit say?", "alpha"),
    ("What does deploy.env hold and how should app.py read its settings?", "beta"),
])
def test_ask_cites_sessions_of_each_source_and_names_it(distilled, question: str, topic: str) -> None:
    from tests.cli.test_cli import memctl

    home, _, _, entries = distilled
    with FakeOllama() as server:
        proc = memctl("ask", question, "--topic", topic, "--top-k", "20", "--no-graph", "--json", "--home",
                      str(home), env={"OLLAMA_HOST": server.url})
        table = memctl("ask", question, "--topic", topic, "--top-k", "20", "--no-graph", "--home", str(home),
                       env={"OLLAMA_HOST": server.url, "COLUMNS": "200"})
    assert proc.returncode == 0 and table.returncode == 0, proc.stderr[-2000:] + table.stderr[-2000:]
    sources = json.loads(proc.stdout)["sources"]
    cited = {s["source_id"]: s["agent"] for s in sources}
    expected = {key: {None: "OpenCode", "claude-code": "Claude Code", "codex": "Codex"}[split_key(key)[0]]
                for key, e in entries.items() if e.status == "distilled" and e.topic == topic}
    assert cited and set(cited) <= set(expected) and all(cited[k] == expected[k] for k in cited)
    assert set(cited.values()) == {"OpenCode", "Claude Code", "Codex"}, cited
    codex_cited = next(k for k, agent in cited.items() if agent == "Codex")
    row = next(line for line in table.stdout.splitlines() if codex_cited in line)
    assert "Codex" in row.replace(codex_cited, "")  # the table names the agent beside the session


def test_source_agent_from_the_key() -> None:
    from memctl.ask.retrieval import Source

    def agent(key: str, path: str = "memory/t/x.md") -> str:
        return Source(key, path, "t", "2026-12-01", "t").agent

    assert agent("ses_dd509941affeQszmw8e5sGLM8D") == "OpenCode"
    assert agent("claude-code.4ed8bb17-be13-4f4c-8906-a9f0211de90f") == "Claude Code"
    assert agent("codex.01a2324a-e936-7bc3-9ba2-453456236b83") == "Codex"
    assert agent("ses_1", "user/topics/alpha/m.md") == "memory"
    assert Source("codex.x", "memory/t/x.md", "t", "d", "t").as_dict()["agent"] == "Codex"


def test_pool_workers_reopen_the_codex_source(sources: dict[str, Path], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ingest.test_ingest_premodel_pool import _start_and_wait

    started = _start_and_wait(monkeypatch)

    def plan(processes: int) -> dict:
        settings = Settings(home=tmp_path / f"var{processes}", transcript_processes=processes, settle_minutes=0)
        summary = IngestRun(settings, IngestOptions(db=sources["db"], claude_dir=sources["claude"],
                                                    codex_home=sources["codex"], dry_run=True)).run().as_dict()
        return {k: v for k, v in summary.items() if k not in ("wall_s", "sessions_per_hour")}

    serial = plan(1)
    pooled = plan(2)
    assert started == [2] and pooled == serial
    assert any(row["source_id"].startswith("codex.") and row["action"] == "distill" for row in serial["plan"])
