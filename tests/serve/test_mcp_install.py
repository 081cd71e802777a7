"""`memctl mcp install --opencode`: OpenCode's config gains memctl in the shape OpenCode reads, with comments,
trailing commas, indentation and every other key kept; idempotent; the diff first; atomic; `--print`; doctor."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.config import DataHome
from memctl.doctor import check_opencode_mcp
from memctl.exit_codes import FAILED_ITEMS, USAGE
from memctl.serve import opencode_config
from memctl.serve.jsonc_edit import JsoncError, parse, set_member

# (name, file name, text, expected shape): several instances of each kind of config
CONFIGS = [
    ("jsonc line comments + trailing commas, v1 servers", "opencode.jsonc",
     '{\n  // my setup\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "dark", // dark!\n'
     '  "mcp": {\n    "other": {"type": "local", "command": ["x"], "enabled": true,},\n  },\n}\n', "v1"),
    ("jsonc block comments, no trailing commas, v1", "opencode.jsonc",
     '/* head */\n{\n    "model": "ollama/llama3.1", /* the model */\n    "mcp": {\n        "gh": {\n'
     '            "type": "remote",\n            "url": "https://example.invalid/mcp"\n        }\n    }\n}\n', "v1"),
    ("tabs, comment after the last member", "opencode.json",
     '{\n\t"theme": "light",\n\t"mcp": {\n\t\t"a": {"type": "local", "command": ["a"]} // keep me\n\t}\n}\n', "v1"),
    ("v2 envelope with disabled, trailing commas", "opencode.jsonc",
     '{\n  "mcp": {\n    // servers live here\n    "servers": {\n      "b": {"type": "local", "command": ["b"], '
     '"disabled": false,},\n    },\n  },\n}\n', "v2"),
    ("v2 empty envelope", "opencode.json", '{\n  "mcp": {"servers": {}}\n}\n', "v2"),
    ("no mcp key, comments", "opencode.jsonc", '{\n  // only a theme\n  "theme": "dark",\n}\n', "v1"),
    ("empty mcp object", "opencode.json", '{"theme": "x", "mcp": {}}\n', "v1"),
    ("one-line object", "opencode.json", '{"autoupdate": false}', "v1"),
]
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _without(config: dict, shape: str, had_mcp: bool) -> dict:
    """``config`` without memctl's entry (and without the ``mcp`` key the install added)."""
    config = json.loads(json.dumps(config))
    (config["mcp"] if shape == "v1" else config["mcp"]["servers"]).pop("memctl")
    if not had_mcp:
        config.pop("mcp")
    return config


@pytest.mark.parametrize("name,filename,text,shape", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_install_keeps_everything_else_and_is_idempotent(tmp_path: Path, name: str, filename: str, text: str,
                                                         shape: str) -> None:
    (tmp_path / filename).write_text(text)
    home = tmp_path / "var"
    plan = opencode_config.plan_install(tmp_path, home, version=None)
    assert plan.path == tmp_path / filename and plan.shape == shape and plan.changed
    after = parse(plan.after)
    entry = after["mcp"]["memctl"] if shape == "v1" else after["mcp"]["servers"]["memctl"]
    assert entry["type"] == "local" and entry["command"][-1] == "serve" and Path(entry["command"][0]).is_absolute()
    assert entry["environment"] == {"MEMCTL_HOME": str(home)}
    assert (entry.get("enabled"), entry.get("disabled")) == ((True, None) if shape == "v1" else (None, False))
    before = parse(text)
    assert _without(after, shape, "mcp" in before) == before  # every other key and value kept
    assert COMMENT.findall(plan.after) == COMMENT.findall(text)  # every comment kept, in order
    after_lines = [line.replace(",", "") for line in plan.after.splitlines()]
    assert all(line.replace(",", "") in after_lines for line in text.splitlines() if "{}" not in line
               and not line.endswith("}")), plan.after  # one-line objects grow in place
    assert plan.after.count(",}") + plan.after.count(",\n}") >= text.count(",}") + text.count(",\n}")
    assert plan.diff().startswith(f"--- {plan.path} (now)")
    opencode_config.apply(plan)
    again = opencode_config.plan_install(tmp_path, home, version=None)
    assert not again.changed and again.after == plan.after


@pytest.mark.parametrize("version,shape", [("1.18.34", "v1"), ("1.2.0", "v1"), ("2.0.0", "v2"), ("2.3.11", "v2")])
def test_shape_follows_the_installed_opencode_when_the_config_shows_none(tmp_path: Path, version: str,
                                                                          shape: str) -> None:
    plan = opencode_config.plan_install(tmp_path, tmp_path / "var", version=version)
    assert plan.shape == shape and version in plan.shape_reason
    assert plan.path == tmp_path / "opencode.json" and not plan.before
    assert parse(plan.after)["$schema"] == opencode_config.SCHEMA_URL


@pytest.mark.parametrize("version", ["1.18.34", "2.1.0"])
def test_the_config_shape_wins_over_the_version(tmp_path: Path, version: str) -> None:
    (tmp_path / "opencode.json").write_text('{"mcp": {"x": {"type": "local", "command": ["x"]}}}')
    assert opencode_config.plan_install(tmp_path, tmp_path / "var", version=version).shape == "v1"
    (tmp_path / "opencode.json").write_text('{"mcp": {"servers": {"x": {"type": "local", "command": ["x"]}}}}')
    assert opencode_config.plan_install(tmp_path, tmp_path / "var", version=version).shape == "v2"


def test_a_changed_home_replaces_only_the_entry(tmp_path: Path) -> None:
    text = '{\n  // c\n  "mcp": {\n    "memctl": {"type": "local", "command": ["old"], "enabled": true},\n    "z": 1,\n  },\n}\n'
    (tmp_path / "opencode.jsonc").write_text(text)
    plan = opencode_config.plan_install(tmp_path, tmp_path / "new-home", version=None)
    after = parse(plan.after)
    assert after["mcp"]["memctl"]["environment"]["MEMCTL_HOME"] == str(tmp_path / "new-home")
    assert after["mcp"]["z"] == 1 and "// c" in plan.after and plan.after.count('"memctl"') == 1


@pytest.mark.parametrize("text", ['{"a": 1', '{"a": 1} x', '{"a" 1}', "{/* open", '{"mcp": [1]}', '{"mcp": "x"}'])
def test_broken_or_odd_configs_are_refused_not_rewritten(tmp_path: Path, text: str) -> None:
    (tmp_path / "opencode.json").write_text(text)
    with pytest.raises(JsoncError):
        opencode_config.plan_install(tmp_path, tmp_path / "var", shape="v1", version=None)
    assert (tmp_path / "opencode.json").read_text() == text


def test_set_member_inserts_at_depth_and_replaces_in_place() -> None:
    assert set_member('{"a": {"b": {}}}', ["a", "b", "c"], [1]) == '{"a": {"b": {"c": [1]}}}'
    assert set_member('{"a": 1,}', ["b"], True) == '{"a": 1, "b": true,}'
    assert set_member('{"a": 1}', ["b"], {"c": None}) == '{"a": 1, "b": {"c": null}}'
    replaced = set_member('{\n  "a": 1, // one\n  "b": 2\n}', ["a"], 5)
    assert replaced == '{\n  "a": 5, // one\n  "b": 2\n}'


def _cli(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def test_cli_project_yes_writes_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    config = tmp_path / "opencode.jsonc"
    config.write_text(CONFIGS[0][2])
    config.chmod(0o600)
    result = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--home", str(tmp_path / "var"), "--yes")
    assert result.exit_code == 0, result.output
    assert "+    \"memctl\": {" in result.stderr and "wrote" in result.stderr
    assert parse(config.read_text())["mcp"]["memctl"]["type"] == "local"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left
    again = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--home", str(tmp_path / "var"), "--yes")
    assert again.exit_code == 0 and "nothing to do" in again.stderr


def test_cli_without_yes_off_a_terminal_changes_nothing(tmp_path: Path) -> None:
    result = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--home", str(tmp_path / "var"))
    assert result.exit_code == USAGE and "--yes" in result.stderr
    assert "+  \"mcp\"" in result.stderr  # the diff was shown first
    assert not (tmp_path / "opencode.json").exists()


def test_cli_declined_prompt_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from memctl.cli import consent

    monkeypatch.setattr(consent, "sys", SimpleNamespace(stdin=SimpleNamespace(isatty=lambda: True)))
    monkeypatch.setattr("typer.confirm", lambda *a, **k: False)
    result = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--home", str(tmp_path / "var"))
    assert result.exit_code == FAILED_ITEMS and not (tmp_path / "opencode.json").exists()


def test_cli_global_uses_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no opencode: the 1.x shape
    result = _cli("mcp", "install", "--opencode", "--global", "--home", str(tmp_path / "var"), "--yes")
    assert result.exit_code == 0, result.output
    assert parse((xdg / "opencode" / "opencode.json").read_text())["mcp"]["memctl"]["enabled"] is True
    assert check_opencode_mcp(DataHome(tmp_path / "var")).detail.startswith("memctl serve configured in")
    other = check_opencode_mcp(DataHome(tmp_path / "elsewhere"))
    assert other.status == "warn" and "--home" in other.fix


def test_cli_detects_a_v2_opencode_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "opencode"
    fake.write_text("#!/bin/sh\necho 2.0.4\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = _cli("mcp", "install", "--opencode", "--project", str(tmp_path), "--home", str(tmp_path / "var"), "--yes")
    assert result.exit_code == 0, result.output
    assert parse((tmp_path / "opencode.json").read_text())["mcp"]["servers"]["memctl"]["disabled"] is False
    assert "OpenCode 2.0.4 is installed" in result.stderr


def test_cli_print_gives_claude_and_generic_lines(tmp_path: Path) -> None:
    result = _cli("mcp", "install", "--print", "--home", str(tmp_path / "var"))
    assert result.exit_code == 0, result.output
    claude = next(line for line in result.stdout.splitlines() if line.startswith("claude mcp add"))
    # The tests' OLLAMA_HOST differs from the default, so it travels with the command.
    assert claude.startswith(f"claude mcp add memctl -e MEMCTL_HOME={tmp_path / 'var'} -e OLLAMA_HOST=127.0.0.1:9 -- ")
    assert claude.endswith(" serve")
    generic = json.loads(result.stdout.split("(mcpServers JSON)\n", 1)[1])
    assert generic["mcpServers"]["memctl"]["args"][-1] == "serve"
    assert not list(tmp_path.glob("**/opencode.json*"))


@pytest.mark.parametrize("args", [["--opencode", "--global", "--project", "."], [], ["--opencode", "--shape", "v3"]])
def test_cli_usage_errors(tmp_path: Path, args: list[str]) -> None:
    result = _cli("mcp", "install", *args, "--home", str(tmp_path / "var"))
    assert result.exit_code == USAGE
