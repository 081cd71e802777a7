"""`memctl mcp install --claude-code`: memctl's entry in Claude Code's user-scope MCP servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.exit_codes import USAGE, UsageError
from memctl.serve import claude_config


def test_entry_carries_every_setting_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text(json.dumps({"numStartups": 4, "projects": {"/x": {"allowedTools": []}},
                                "mcpServers": {"other": {"type": "stdio", "command": "other"}}}))
    env = {"OLLAMA_HOST": "http://127.0.0.1:9", "MEMCTL_DISTILL_MODEL": "qwen3:8b", "MEMCTL_HOME": "/ignored",
           "PATH": "/bin"}
    plan = claude_config.plan_install(path, tmp_path / "home", env)
    assert plan.changed and plan.entry_before is None and "+++" in plan.diff()
    assert plan.entry_after["env"] == {"MEMCTL_HOME": str(tmp_path / "home"), "MEMCTL_DISTILL_MODEL": "qwen3:8b",
                                       "OLLAMA_HOST": "http://127.0.0.1:9"}
    assert plan.entry_after["type"] == "stdio" and plan.entry_after["args"][-1] == "serve"
    path.chmod(0o600)
    claude_config.apply(plan)
    data = json.loads(path.read_text())
    assert data["numStartups"] == 4 and data["projects"] == {"/x": {"allowedTools": []}}
    assert set(data["mcpServers"]) == {"other", "memctl"}
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert not claude_config.plan_install(path, tmp_path / "home", env).changed
    assert claude_config.plan_install(path, tmp_path / "other", env).entry_before == plan.entry_after


@pytest.mark.parametrize("text", ["{broken", "[]", '{"mcpServers": []}'])
def test_a_broken_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".claude.json"
    path.write_text(text)
    with pytest.raises(UsageError):
        claude_config.plan_install(path, tmp_path / "home", {})
    assert path.read_text() == text


def test_cli_writes_where_claude_config_dir_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    runner = CliRunner()
    refused = runner.invoke(app, ["mcp", "install", "--claude-code", "--home", str(tmp_path / "home")])
    assert refused.exit_code == USAGE and not (tmp_path / "claude" / ".claude.json").exists()
    done = runner.invoke(app, ["mcp", "install", "--claude-code", "--yes", "--home", str(tmp_path / "home")])
    assert done.exit_code == 0, done.output
    entry = json.loads((tmp_path / "claude" / ".claude.json").read_text())["mcpServers"]["memctl"]
    assert entry["env"]["OLLAMA_HOST"] == "http://127.0.0.1:9"
    assert Path(entry["env"]["MEMCTL_HOME"]) == (tmp_path / "home").absolute()
