"""`mcp install` carries every non-default setting to the client; `--print` changes nothing; `mcp uninstall`
takes memctl out of OpenCode's config again, every other byte kept."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.exit_codes import USAGE
from memctl.serve.jsonc_edit import parse, remove_member

runner = CliRunner()
V1_CONFIG = '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {}\n}\n'


def _cli(*args: str):  # noqa: ANN202
    return runner.invoke(app, list(args))


def _claude_env(stdout: str) -> dict[str, str]:
    line = next(line for line in stdout.splitlines() if line.startswith("claude mcp add"))
    words = shlex.split(line.split(" -- ", 1)[0])
    return dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-e")


def test_print_carries_ollama_host_and_every_non_default_setting(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "qwen3:4b")
    monkeypatch.setenv("MEMCTL_ASK_TOP_K", "9")
    result = _cli("mcp", "install", "--print", "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    expected = {"MEMCTL_ASK_TOP_K": "9", "MEMCTL_DISTILL_MODEL": "qwen3:4b", "MEMCTL_HOME": str(tmp_path / "h"),
                "OLLAMA_HOST": "gpu-box:11434"}
    assert _claude_env(result.stdout) == expected
    generic = json.loads(result.stdout.split("(mcpServers JSON)\n", 1)[1])
    assert generic["mcpServers"]["memctl"]["env"] == expected


def test_defaults_and_config_file_values_are_not_carried_but_the_config_path_is(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST")
    config = tmp_path / "memctl.toml"
    config.write_text('answer_model = "phi4"\n', encoding="utf-8")
    monkeypatch.setenv("MEMCTL_CONFIG", str(config))
    monkeypatch.setenv("MEMCTL_ROUTER_MODEL", "llama3.1:8b")  # set, but to the default: nothing to carry
    result = _cli("mcp", "install", "--print", "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    assert _claude_env(result.stdout) == {"MEMCTL_CONFIG": str(config), "MEMCTL_HOME": str(tmp_path / "h")}


def test_opencode_entry_carries_the_settings(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0")
    (tmp_path / "opencode.json").write_text(V1_CONFIG, encoding="utf-8")
    result = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--yes", "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    entry = parse((tmp_path / "opencode.json").read_text())["mcp"]["memctl"]
    assert entry["environment"] == {"MEMCTL_HOME": str(tmp_path / "h"), "OLLAMA_HOST": "0.0.0.0"}


def test_opencode_with_print_changes_nothing_and_asks_nothing(tmp_path: Path) -> None:
    (tmp_path / "opencode.json").write_text(V1_CONFIG, encoding="utf-8")
    result = _cli("mcp", "install", "--opencode", "--print", "--project", str(tmp_path), "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "opencode.json").read_text() == V1_CONFIG
    assert any(line.startswith("+") and '"memctl"' in line for line in result.stderr.splitlines())  # the diff
    assert "nothing changed" in result.stderr
    assert "claude mcp add memctl" in result.stdout


def test_uninstall_removes_only_memctl_and_keeps_the_rest(tmp_path: Path) -> None:
    original = ('{\n  // my servers\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n'
                '    "other": {"type": "remote", "url": "http://127.0.0.1:1"}, // keep me\n  },\n}\n')
    (tmp_path / "opencode.jsonc").write_text(original, encoding="utf-8")
    assert _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--yes", "--shape", "v1",
                "--home", str(tmp_path / "h")).exit_code == 0
    assert "memctl" in parse((tmp_path / "opencode.jsonc").read_text())["mcp"]
    result = _cli("mcp", "uninstall", "--opencode", "--project", str(tmp_path))
    assert result.exit_code == USAGE and "--yes" in result.stderr  # off a terminal: never asks, never writes
    assert "memctl" in parse((tmp_path / "opencode.jsonc").read_text())["mcp"]
    result = _cli("mcp", "uninstall", "--opencode", "--project", str(tmp_path), "--yes")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "opencode.jsonc").read_text() == original
    again = _cli("mcp", "uninstall", "--opencode", "--project", str(tmp_path), "--yes")
    assert again.exit_code == 0 and "nothing to do" in again.stderr


def test_uninstall_print_names_the_claude_line_and_changes_nothing(tmp_path: Path) -> None:
    result = _cli("mcp", "uninstall", "--print")
    assert result.exit_code == 0 and "claude mcp remove memctl" in result.stdout
    assert _cli("mcp", "uninstall").exit_code == USAGE


@pytest.mark.parametrize(("text", "path", "expected"), [
    ('{"mcp": {"o": 1, "memctl": 2}}', ["mcp", "memctl"], '{"mcp": {"o": 1}}'),
    ('{"mcp": {"memctl": 2, "o": 1}}', ["mcp", "memctl"], '{"mcp": {"o": 1}}'),
    ('{"mcp": {"memctl": 2}}', ["mcp", "memctl"], '{"mcp": {}}'),
    ('{\n  "mcp": {\n    "servers": {\n      "a": 1,\n      "memctl": {"x": 1}\n    }\n  }\n}\n',
     ["mcp", "servers", "memctl"], '{\n  "mcp": {\n    "servers": {\n      "a": 1\n    }\n  }\n}\n'),
    ('{"mcp": {"o": 1}}', ["mcp", "memctl"], '{"mcp": {"o": 1}}'),
])
def test_remove_member_cases(text: str, path: list[str], expected: str) -> None:
    assert remove_member(text, path) == expected
