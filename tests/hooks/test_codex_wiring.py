"""Codex in memctl's CLI: ``hooks install|uninstall --codex``, ``mcp install|uninstall --codex``, and with the
real Codex 0.171 binary: the MCP entry as Codex reads it, and a session that reaches memory through the
notify hook without a manual ingest (skipped, and reported as skipped, when the binary is not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.exit_codes import USAGE, UsageError
from memctl.hooks import codex as hook
from memctl.serve import codex_config
from tests.fixtures import make_codex_fixture as gen

REPO = Path(__file__).resolve().parents[2]
EXISTING = """# my Codex settings
model = "gpt-5"  # the default model

[mcp_servers.github]
command = "gh-mcp"

[features]
plugins = false
"""


def _codex_binary() -> Path | None:
    cache = Path(os.environ.get("MEMCTL_CODEX_CACHE") or f"~/.cache/memctl/codex-{gen.CODEX_VERSION}").expanduser()
    binary = cache / "node_modules" / ".bin" / "codex"
    return binary if binary.exists() else None


def _codex_env(work: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work / "home"),
            "CODEX_HOME": str(work / "home" / ".codex"), "LANG": "C.UTF-8", "TERM": "dumb",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}  # this checkout for the notify program


# -- hooks --------------------------------------------------------------------------------------------------


def test_hooks_cli_install_print_and_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(EXISTING)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "qwen3:8b")
    runner, home = CliRunner(), ["--home", str(tmp_path / "var")]
    printed = runner.invoke(app, ["hooks", "install", "--codex", "--codex-home", str(codex_home), "--print", *home])
    assert printed.exit_code == 0, printed.output
    notify = tomllib.loads(printed.stdout)["notify"]
    assert notify[1:3] == ["-m", hook.NOTIFY_MODULE] and str((tmp_path / "var").absolute()) in notify
    assert "OLLAMA_HOST=http://127.0.0.1:9" in notify and "MEMCTL_DISTILL_MODEL=qwen3:8b" in notify
    assert (codex_home / "config.toml").read_text() == EXISTING  # --print changes nothing
    refused = runner.invoke(app, ["hooks", "install", "--codex", "--codex-home", str(codex_home), *home])
    assert refused.exit_code == USAGE and (codex_home / "config.toml").read_text() == EXISTING
    done = runner.invoke(app, ["hooks", "install", "--codex", "--codex-home", str(codex_home), "--yes", *home])
    assert done.exit_code == 0, done.output
    text = (codex_home / "config.toml").read_text()
    assert "# my Codex settings" in text and "# the default model" in text
    assert tomllib.loads(text)["notify"] == notify and hook.installed_argv(codex_home) == notify
    again = runner.invoke(app, ["hooks", "install", "--codex", "--codex-home", str(codex_home), "--yes", *home])
    assert "nothing to change" in again.output
    gone = runner.invoke(app, ["hooks", "uninstall", "--codex", "--codex-home", str(codex_home), "--yes"])
    assert gone.exit_code == 0 and tomllib.loads((codex_home / "config.toml").read_text()) == tomllib.loads(EXISTING)


@pytest.mark.parametrize("flags", [[], ["--codex", "--claude-code"]])
def test_hooks_cli_needs_one_agent(tmp_path: Path, flags: list[str]) -> None:
    for command in ("install", "uninstall"):
        result = CliRunner().invoke(app, ["hooks", command, *flags, "--yes"])
        assert result.exit_code == USAGE and "--codex" in result.output


def test_hooks_cli_bad_config_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("notify = 'not a list'\n")
    result = CliRunner().invoke(app, ["hooks", "install", "--codex", "--codex-home", str(tmp_path), "--yes"])
    assert result.exit_code == USAGE and "notify must be an array" in result.output
    assert (tmp_path / "config.toml").read_text() == "notify = 'not a list'\n"


def test_default_codex_home_is_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "envhome"))
    result = CliRunner().invoke(app, ["hooks", "install", "--codex", "--yes", "--home", str(tmp_path / "var")])
    assert result.exit_code == 0, result.output
    assert hook.installed_argv(tmp_path / "envhome") is not None


# -- MCP ----------------------------------------------------------------------------------------------------


def test_mcp_plan_keeps_comments_and_carries_every_setting(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(EXISTING)
    path.chmod(0o640)
    env = {"OLLAMA_HOST": "http://127.0.0.1:9", "MEMCTL_DISTILL_MODEL": "qwen3:8b", "MEMCTL_HOME": "/ignored",
           "PATH": "/bin"}
    plan = codex_config.plan_install(path, tmp_path / "var", env)
    assert plan.changed and "+[mcp_servers.memctl]" in plan.diff() and path.read_text() == EXISTING
    codex_config.apply(plan)
    text = path.read_text()
    assert text.startswith("# my Codex settings\nmodel = \"gpt-5\"  # the default model\n")
    entry = tomllib.loads(text)["mcp_servers"]["memctl"]
    assert entry["env"] == {"MEMCTL_HOME": str(tmp_path / "var"), "MEMCTL_DISTILL_MODEL": "qwen3:8b",
                            "OLLAMA_HOST": "http://127.0.0.1:9"}
    assert entry["args"][-1] == "serve" and Path(entry["command"]).is_absolute()
    assert tomllib.loads(text)["mcp_servers"]["github"] == {"command": "gh-mcp"}
    assert oct(path.stat().st_mode & 0o777) == "0o640"
    assert not codex_config.plan_install(path, tmp_path / "var", env).changed
    moved = codex_config.plan_install(path, tmp_path / "other", env)
    assert moved.changed and str(tmp_path / "other") in moved.diff()
    codex_config.apply(codex_config.plan_uninstall(path))
    assert path.read_text() == EXISTING  # byte for byte
    assert not codex_config.plan_uninstall(path).changed


def test_mcp_new_file_and_broken_ones(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    plan = codex_config.plan_install(path, tmp_path / "var", {})
    assert plan.diff().startswith("--- /dev/null")
    codex_config.apply(plan)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    codex_config.apply(codex_config.plan_uninstall(path))
    assert tomllib.loads(path.read_text()) == {}
    for text in ("[broken", "mcp_servers = 3\n"):
        path.write_text(text)
        with pytest.raises(UsageError):
            codex_config.plan_install(path, tmp_path / "var", {})
        assert path.read_text() == text


def test_mcp_cli_install_and_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    codex_home = tmp_path / "codex"
    runner, home = CliRunner(), ["--home", str(tmp_path / "var")]
    assert runner.invoke(app, ["mcp", "install", "--codex", "--codex-home", str(codex_home), "--yes",
                               *home]).exit_code == USAGE  # a directory named on the command line must exist
    codex_home.mkdir()
    refused = runner.invoke(app, ["mcp", "install", "--codex", "--codex-home", str(codex_home), *home])
    assert refused.exit_code == USAGE and not (codex_home / "config.toml").exists()
    done = runner.invoke(app, ["mcp", "install", "--codex", "--codex-home", str(codex_home), "--yes", *home])
    assert done.exit_code == 0, done.output
    entry = tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]["memctl"]
    assert entry["env"]["OLLAMA_HOST"] == "http://127.0.0.1:9"
    assert Path(entry["env"]["MEMCTL_HOME"]) == (tmp_path / "var").absolute()
    assert "nothing to do" in runner.invoke(app, ["mcp", "install", "--codex", "--codex-home", str(codex_home),
                                                  "--yes", *home]).output
    gone = runner.invoke(app, ["mcp", "uninstall", "--codex", "--codex-home", str(codex_home), "--yes"])
    assert gone.exit_code == 0 and "memctl" not in tomllib.loads((codex_home / "config.toml").read_text()).get(
        "mcp_servers", {})
    assert runner.invoke(app, ["mcp", "uninstall", "--yes"]).exit_code == USAGE


@pytest.mark.skipif(_codex_binary() is None, reason="Codex 0.171.0 not installed (make_codex_fixture installs it)")
def test_real_codex_reads_the_mcp_entry(tmp_path: Path) -> None:
    work = tmp_path / "work"
    codex_home = work / "home" / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(EXISTING)
    codex_config.apply(codex_config.plan_install(codex_home / "config.toml", tmp_path / "var",
                                                 {"OLLAMA_HOST": "http://127.0.0.1:9", "MEMCTL_X": "1"}))
    done = subprocess.run([str(_codex_binary()), "mcp", "list", "--json"], env=_codex_env(work), cwd=work,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    servers = {s["name"]: s for s in json.loads(done.stdout)}
    memctl = servers["memctl"]
    assert memctl["enabled"] and memctl["startup_timeout_sec"] == codex_config.STARTUP_TIMEOUT_S
    assert memctl["transport"]["args"] == ["serve"] and memctl["transport"]["env"] == {
        "MEMCTL_HOME": str(tmp_path / "var"), "MEMCTL_X": "1", "OLLAMA_HOST": "http://127.0.0.1:9"}
    assert "github" in servers


@pytest.mark.skipif(_codex_binary() is None, reason="Codex 0.171.0 not installed (make_codex_fixture installs it)")
def test_real_codex_session_reaches_memory_through_the_notify_hook(tmp_path: Path) -> None:
    from tests.fakes import codex_script as S
    from tests.fakes.ollama_server import FakeOllama

    work, home = tmp_path / "work", tmp_path / "memhome"
    gen.lay_out(work)
    codex_home = work / "home" / ".codex"
    scenario = S.BY_NAME["beta_secrets"]
    with FakeOllama(chat_script=S.responses_script) as server:
        gen.write_config(codex_home, server.url.rstrip("/") + "/v1")
        hook.apply(hook.plan_install(codex_home, home, env={"OLLAMA_HOST": server.url}))
        run = subprocess.run([str(_codex_binary()), "exec", "--skip-git-repo-check", scenario.turns[0]],
                             cwd=work / "beta", env=_codex_env(work), capture_output=True, text=True, timeout=180,
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run.stderr[-2000:]
        key = "codex." + gen._SESSION_ID.search(run.stdout + run.stderr).group(1)
        progress, log = home / "progress.json", home / "logs" / "hooks" / "codex-notify.log"
        deadline = time.monotonic() + 240
        entry: dict = {}
        while time.monotonic() < deadline:
            if progress.exists():
                entry = json.loads(progress.read_text())["sources"].get(key, {})
                if entry.get("status") in ("distilled", "skipped", "error"):
                    break
            time.sleep(0.5)
        while time.monotonic() < deadline and "ingest exit" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.5)  # the hook's ingest goes on to the graph phases: let it end while the model is up
    logged = log.read_text() if log.exists() else "(no log)"
    assert entry.get("status") == "distilled", (entry, logged[-3000:])
    assert "ingest exit 0" in logged, logged[-3000:]
    note = (home / "distilled" / f"{key}.md").read_text()
    assert "source: codex" in note
    for secret in json.loads((REPO / "tests/fixtures/codex-0.171/planted_secrets.json").read_text()):
        assert secret["value"] not in note


def test_notify_carries_the_settings_to_the_ingest(tmp_path: Path) -> None:
    from memctl.hooks import codex_notify as notify

    out = tmp_path / "env.txt"
    code = (f"import os, pathlib; pathlib.Path({str(out)!r}).write_text("
            "os.environ.get('OLLAMA_HOST', '-') + ' ' + os.environ.get('MEMCTL_SETTLE_MINUTES', '-'))")
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": "01a2323d-947d-7270-9516-4c273737fdf6"})
    argv = hook.notify_argv(tmp_path / "home", env=hook.carried_env({"OLLAMA_HOST": "http://127.0.0.1:9",
                                                                       "PATH": "/bin", "MEMCTL_HOME": "/x"}))
    assert argv[3:] == ["--home", str(tmp_path / "home"), "--env", "OLLAMA_HOST=http://127.0.0.1:9"]
    assert notify.main([*argv[3:], "--ingest", json.dumps([sys.executable, "-c", code]), payload]) == 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (out.exists() and out.read_text()):
        time.sleep(0.1)
    assert out.read_text() == "http://127.0.0.1:9 0"
    assert notify.main(["--home", str(tmp_path / "home"), "--env", "no equals sign", payload]) == notify.BAD_PAYLOAD
