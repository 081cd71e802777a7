"""Claude Code's SessionEnd hook: the settings edit (diff, atomic, uninstall) and, with the real binary,
a session that reaches memory without a manual ingest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memctl.exit_codes import UsageError
from memctl.hooks.claude_code import MARKER, apply as apply_plan, plan_install, plan_uninstall, spawn_ingest
from tests.fakes import claude_code_script as S
from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parents[2]
BINARY = Path.home() / ".cache" / "memctl" / "claude-code-2.1.332" / "node_modules" / "@anthropic-ai" / \
    "claude-code-linux-x64" / "claude"


def _settings(path: Path) -> dict:
    return json.loads((path / "settings.json").read_text())


def test_install_keeps_every_other_setting_and_is_idempotent(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps({"model": "opus", "cleanupPeriodDays": 90, "hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo stop"}]}]}}))
    plan = plan_install(claude, tmp_path / "home", env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert plan.changed and "+++" in plan.diff() and (claude / "settings.json").read_text() == plan.before
    apply_plan(plan)
    data = _settings(claude)
    assert (data["model"], data["cleanupPeriodDays"]) == ("opus", 90)
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "echo stop"
    commands = [h["command"] for g in data["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert commands[0] == "notify-send done" and MARKER in commands[1]
    assert "OLLAMA_HOST=http://127.0.0.1:9" in commands[1] and str(tmp_path / "home") in commands[1]
    again = plan_install(claude, tmp_path / "home", env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert not again.changed
    moved = plan_install(claude, tmp_path / "other-home", env={})
    apply_plan(moved)  # a new home replaces memctl's hook, never adds a second one
    commands = [h["command"] for g in _settings(claude)["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert sum(MARKER in c for c in commands) == 1 and str(tmp_path / "other-home") in commands[1]
    apply_plan(plan_uninstall(claude))
    data = _settings(claude)
    assert data["hooks"]["SessionEnd"] == [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    assert not plan_uninstall(claude).changed


def test_install_creates_the_file_and_refuses_a_broken_one(tmp_path: Path) -> None:
    plan = plan_install(tmp_path / "claude", tmp_path / "home", env={})
    assert plan.before == "" and plan.diff().startswith("--- /dev/null")
    apply_plan(plan)
    assert oct((tmp_path / "claude" / "settings.json").stat().st_mode & 0o777) == "0o600"
    apply_plan(plan_uninstall(tmp_path / "claude"))
    assert _settings(tmp_path / "claude") == {}
    (tmp_path / "claude" / "settings.json").write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        plan_install(tmp_path / "claude", tmp_path / "home", env={})


@pytest.mark.parametrize("payload", ["", "[]", '{"session_id": "../../etc"}', '{"session_id": 3}', "nope"])
def test_hook_input_without_a_valid_session_is_refused(tmp_path: Path, payload: str) -> None:
    with pytest.raises(UsageError):
        spawn_ingest(payload, tmp_path / "home", None, tmp_path / "home" / "logs" / "hooks.log")
    assert not (tmp_path / "home").exists()


def test_hook_returns_at_once_and_the_ingest_runs_detached(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "memctl.cli", "hooks", "run", "claude-code", "--home",
                           str(tmp_path / "home"), "--claude-dir", str(tmp_path / "none")],
                          input=json.dumps({"session_id": "abc-123", "hook_event_name": "SessionEnd"}),
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    log = tmp_path / "home" / "logs" / "hooks.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "no Claude Code history" not in (log.read_text() if log.exists() else ""):
        time.sleep(0.2)
    assert "no Claude Code history" in log.read_text()  # the detached ingest ran and said why it stopped
    assert time.monotonic() - start < 60


@pytest.mark.skipif(not BINARY.is_file(), reason=f"the real Claude Code binary is not installed at {BINARY} "
                    "(python -m tests.fixtures.make_claude_code_fixture installs it)")
def test_real_binary_session_reaches_memory_through_the_hook(tmp_path: Path) -> None:
    from tests.fixtures.make_claude_code_fixture import OFFLINE_ENV

    claude, home, project = tmp_path / "claude", tmp_path / "memhome", tmp_path / "alpha"
    project.mkdir()
    (project / "config.env").write_text(S.CONFIG_ENV)
    with FakeOllama() as server:
        server.anthropic_script = S.anthropic_script
        apply_plan(plan_install(claude, home, env={"OLLAMA_HOST": server.url}))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
               "CLAUDE_CONFIG_DIR": str(claude), "ANTHROPIC_BASE_URL": server.url,
               "ANTHROPIC_API_KEY": "sk-ant-api03-test-not-a-key", **OFFLINE_ENV}
        run = subprocess.run([str(BINARY), "-p", "--output-format", "json", "--allowedTools", "Bash", "--",
                              S.SCENARIOS[0]["turns"][0]], cwd=project, env=env, capture_output=True, text=True,
                             timeout=180)
        assert run.returncode == 0, run.stderr
        key = "claude-code." + json.loads(run.stdout)["session_id"]
        progress = home / "progress.json"
        deadline = time.monotonic() + 240
        entry: dict = {}
        while time.monotonic() < deadline:
            if progress.exists():
                entry = json.loads(progress.read_text())["sources"].get(key, {})
                if entry.get("status") in ("distilled", "skipped", "error"):
                    break
            time.sleep(0.5)
        log = home / "logs" / "hooks.log"
        while time.monotonic() < deadline and "wall time" not in log.read_text():
            time.sleep(0.5)  # the hook's ingest goes on to the graph phases: let it end while the model is up
    assert "wall time" in log.read_text()
    assert entry.get("status") == "distilled", (entry, (home / "logs" / "hooks.log").read_text())
    note = (home / "distilled" / f"{key}.md").read_text()
    assert "source: claude-code" in note and S.AWS_KEY not in note
