"""OpenCode in ``memctl hooks``: ``install|uninstall --opencode`` writes and removes memctl's plugin file (diff
first, atomic, mode kept, only memctl's file), the plugin is valid JavaScript that starts memctl's runner on
``session.idle`` (run under node against a stub event), the runner carries the settings to the ingest, and with
the REAL OpenCode 1.18.34 binary a finished ``opencode run`` reaches memory without a manual ingest (skipped, and
reported as skipped, when the binary is not installed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.exit_codes import USAGE
from memctl.hooks import codex_notify as runner_module, opencode as hook

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
SESSION = "ses_1f2e3d4c5bffe0aBcDeFgHiJkL"


def _install(config: Path, *extra: str):
    return CliRunner().invoke(app, ["hooks", "install", "--opencode", "--opencode-config", str(config), *extra])


def test_cli_print_install_idempotent_and_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, home = tmp_path / "oc", ["--home", str(tmp_path / "var")]
    config.mkdir()  # an --opencode-config that does not exist is refused (a typo)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "qwen3:8b")
    path = hook.plugin_path(config)
    printed = _install(config, "--print", *home)
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.startswith(hook.MARKER) and "session.idle" in printed.stdout
    assert '"--env", "OLLAMA_HOST=http://127.0.0.1:9"' in printed.stdout
    assert '"--env", "MEMCTL_DISTILL_MODEL=qwen3:8b"' in printed.stdout
    assert json.dumps(str((tmp_path / "var").absolute())) in printed.stdout
    assert not path.exists()  # --print changes nothing
    refused = _install(config, *home)  # no terminal and no --yes
    assert refused.exit_code == USAGE and not path.exists()
    done = _install(config, "--yes", *home)
    assert done.exit_code == 0, done.output
    assert f"+++ {path} (after)" in done.output  # the diff is shown first
    assert path.read_text() == printed.stdout and path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    assert "nothing to change" in _install(config, "--yes", *home).output
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "llama3:8b")  # a changed setting rewrites the file, mode kept
    changed = _install(config, "--yes", *home)
    assert "-const RUNNER" in changed.output and "MEMCTL_DISTILL_MODEL=llama3:8b" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600
    other = path.parent / "mine.js"
    other.write_text("export const Mine = async () => ({})\n")
    gone = CliRunner().invoke(app, ["hooks", "uninstall", "--opencode", "--opencode-config", str(config), "--yes"])
    assert gone.exit_code == 0 and "removed" in gone.output
    assert not path.exists() and other.exists()  # only memctl's file
    again = CliRunner().invoke(app, ["hooks", "uninstall", "--opencode", "--opencode-config", str(config), "--yes"])
    assert again.exit_code == 0 and "nothing to change" in again.output


def test_default_config_dir_is_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    result = CliRunner().invoke(app, ["hooks", "install", "--opencode", "--yes", "--home", str(tmp_path / "var")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "xdg" / "opencode" / "plugin" / hook.PLUGIN_NAME).read_text().startswith(hook.MARKER)


def test_a_foreign_file_is_left_alone(tmp_path: Path) -> None:
    path = hook.plugin_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("// someone else's plugin\n")
    for command in (["install"], ["uninstall"]):
        result = CliRunner().invoke(app, ["hooks", *command, "--opencode", "--opencode-config", str(tmp_path),
                                          "--yes"])
        assert result.exit_code == USAGE and "not memctl's plugin" in result.output
        assert "Traceback" not in result.output
    assert path.read_text() == "// someone else's plugin\n"


@pytest.mark.parametrize("flags", [["--opencode", "--codex"], ["--opencode", "--claude-code"]])
def test_one_agent_at_a_time(flags: list[str]) -> None:
    result = CliRunner().invoke(app, ["hooks", "install", *flags, "--yes"])
    assert result.exit_code == USAGE and "--opencode" in result.output


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_plugin_is_valid_js_and_starts_the_runner_on_idle_only(tmp_path: Path) -> None:
    """node loads the generated module, calls its plugin like OpenCode does and feeds it events; the runner is
    replaced by a script that records its argv."""
    record = tmp_path / "argv.json"
    fake_runner = tmp_path / "runner.py"
    fake_runner.write_text(f"import json, sys, pathlib\npathlib.Path({str(record)!r}).write_text("
                           "json.dumps(sys.argv[1:]))\n")
    text = hook.plugin_text(tmp_path / "var", python=sys.executable, env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    text = text.replace('"-m", "memctl.hooks.codex_notify"', json.dumps(str(fake_runner)))
    module = tmp_path / "plugin.mjs"  # .mjs: node parses it as the ES module OpenCode loads
    module.write_text(text)
    check = subprocess.run([NODE, "--check", str(module)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    driver = tmp_path / "drive.mjs"
    driver.write_text(f"""import * as mod from {json.dumps(module.as_uri())}
const hooks = await mod.MemctlPlugin({{}})
await hooks.event({{ event: {{ type: "message.updated", properties: {{ sessionID: "ses_wrong" }} }} }})
await hooks.event({{ event: {{ type: "session.idle", properties: {{}} }} }})
await hooks.event({{ event: {{ type: "session.idle", properties: {{ sessionID: "{SESSION}" }} }} }})
""")
    ran = subprocess.run([NODE, str(driver)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not record.exists():
        time.sleep(0.1)
    argv = json.loads(record.read_text())
    assert argv[:2] == ["--source", "opencode"] and argv[-2:] == ["--session", SESSION]
    assert "OLLAMA_HOST=http://127.0.0.1:9" in argv


def test_runner_ingests_the_idle_session_with_the_settings(tmp_path: Path) -> None:
    out = tmp_path / "seen.txt"
    code = (f"import os, sys, pathlib; pathlib.Path({str(out)!r}).write_text("
            "sys.argv[1] + ' ' + os.environ.get('OLLAMA_HOST', '-') + ' ' + os.environ.get('MEMCTL_SETTLE_MINUTES', '-'))")
    home = tmp_path / "home"
    args = ["--home", str(home), "--source", "opencode", "--env", "OLLAMA_HOST=http://127.0.0.1:9"]
    assert runner_module.main([*args, "--ingest", json.dumps([sys.executable, "-c", code, "{session}"]),
                               "--session", SESSION]) == 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (out.exists() and out.read_text()):
        time.sleep(0.1)
    assert out.read_text() == f"{SESSION} http://127.0.0.1:9 0"
    log = home / "logs" / "hooks" / "opencode-idle.log"
    while time.monotonic() < deadline and "ingest exit" not in log.read_text():
        time.sleep(0.1)
    assert f"session {SESSION}: ingest exit 0" in log.read_text()
    assert runner_module.ingest_argv(SESSION, runner_module._Home(home), source="opencode")[3:8] == [
        "ingest", "--source", "opencode", "--session", SESSION]
    assert runner_module.main([*args, "--session", "../../etc"]) == runner_module.BAD_PAYLOAD


# -- the REAL OpenCode binary -------------------------------------------------------------------------------

PROMPT = ("The nightly backup job on host atlas has failed three nights in a row with a write error from tar. "
          "Disk usage on /var/backups shows one hundred percent, and old archives from last quarter are still "
          "there. Explain why the job fails, what rotation policy would keep the volume below its limit, and "
          "how the cron entry should run the rotation before the archive step.")  # over the fake's junk floor
ANSWER = ("The nightly backup on atlas failed because /var/backups was full; rotating old archives with "
          "`find /var/backups -mtime +14 -delete` fixed it, and the cron job now runs that rotation first.")


def _opencode_binary() -> Path | None:
    from tests.fixtures import make_opencode_fixture as F
    from tests.support import opencode_mcp_e2e as E

    binary = F.opencode_binary(E.installed_cache())
    return binary if binary.exists() else None


@pytest.mark.e2e
@pytest.mark.skipif(_opencode_binary() is None, reason="OpenCode 1.18.34 is not installed in ~/.cache/memctl "
                    "(tests download nothing)")
def test_real_opencode_session_reaches_memory_through_the_plugin(tmp_path: Path) -> None:
    from tests.fakes.ollama_server import FakeOllama
    from tests.fakes.scripted import ScriptedTurn
    from tests.fixtures import make_opencode_fixture as F
    from tests.support import opencode_mcp_e2e as E

    def chat(request: dict) -> ScriptedTurn | None:
        messages = request.get("messages") or []
        if not any(PROMPT in json.dumps(m.get("content")) for m in messages if m.get("role") == "user"):
            return None  # memctl's distill prompts: the fake server's own answers
        return ScriptedTurn(text=ANSWER if request.get("tools") else "Backup failure on atlas")

    home, project, data_home = tmp_path / "home", tmp_path / "project", tmp_path / "var"
    project.mkdir()
    with FakeOllama(chat_script=chat) as server:
        F.write_config(home, server.url + "/v1")
        env = {**os.environ, "HOME": str(home), "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO)}
        env.pop("XDG_CONFIG_HOME", None)
        install = subprocess.run([sys.executable, "-m", "memctl.cli", "hooks", "install", "--opencode", "--home",
                                  str(data_home), "--yes"], env=env, cwd=REPO, capture_output=True, text=True,
                                 timeout=120)
        assert install.returncode == 0, install.stdout + install.stderr
        assert (home / ".config" / "opencode" / "plugin" / hook.PLUGIN_NAME).exists()
        run_env = {**F._base_env(home), "PWD": str(project), "PYTHONPATH": str(REPO),
                   "npm_config_registry": E.OFFLINE_REGISTRY}  # no OLLAMA_HOST: the plugin carries it
        proc = subprocess.run([str(_opencode_binary()), "run", "--format", "json"], cwd=project, env=run_env,
                              input=PROMPT.encode(), capture_output=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        session = next((F._find_session_id(json.loads(line)) for line in proc.stdout.decode().splitlines()
                        if line.startswith("{")), None)
        assert session and session.startswith("ses_"), proc.stdout[-2000:]
        key, log = session, data_home / "logs" / "hooks" / "opencode-idle.log"
        deadline, entry = time.monotonic() + 240, {}
        while time.monotonic() < deadline and "ingest exit" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.5)  # the ingest runs on to the graph phases: let it end while the fake model is up
    logged = log.read_text() if log.exists() else "(no log: the plugin did not start the runner)"
    assert "ingest exit 0" in logged, logged[-3000:]
    progress = data_home / "progress.json"
    entry = json.loads(progress.read_text())["sources"].get(key, {}) if progress.exists() else {}
    assert entry.get("status") == "distilled", (entry, logged[-3000:])
    note = (data_home / "distilled" / f"{key}.md").read_text()
    assert "source: opencode" in note and "atlas" in note
