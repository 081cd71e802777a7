"""Codex's notify hook: the config.toml plan (diff, atomic write, chaining, uninstall), the notify
program, and the real Codex binary calling it after a turn.

The end-to-end test needs Codex 0.171.0 installed by the fixture generator
(``~/.cache/memctl/codex-0.171.0`` or ``$MEMCTL_CODEX_CACHE``); nothing is
downloaded: it is skipped (and reported as skipped) when the binary is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from filelock import FileLock

from memctl.config import DataHome
from memctl.hooks import codex as hook, codex_notify as notify
from memctl.hooks.codex import HookConfigError
from tests.fixtures import make_codex_fixture as gen

PYTHON = "/usr/bin/python3-test"
TID = "01a2323d-947d-7270-9516-4c273737fdf6"
PAYLOAD = json.dumps({"type": "agent-turn-complete", "thread-id": TID, "turn-id": "t1", "cwd": "/w",
                      "input-messages": ["hi"], "last-assistant-message": "hello"})
EXISTING = """# my Codex settings
model = "gpt-5"  # the default model

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:1234/v1"

[features]
plugins = false
"""


def parsed(text: str) -> dict:
    return tomllib.loads(text)


def test_install_into_a_missing_config(tmp_path: Path) -> None:
    plan = hook.plan_install(tmp_path, tmp_path / "home", python=PYTHON)
    assert plan.before == "" and plan.changed
    assert parsed(plan.after)["notify"] == [PYTHON, "-m", hook.NOTIFY_MODULE, "--home", str(tmp_path / "home")]
    assert plan.diff().startswith("--- /dev/null")
    hook.apply(plan)
    assert (tmp_path / "config.toml").read_text() == plan.after
    assert (tmp_path / "config.toml").stat().st_mode & 0o777 == 0o600
    again = hook.plan_install(tmp_path, tmp_path / "home", python=PYTHON)
    assert not again.changed and again.diff() == ""


def test_install_keeps_comments_tables_and_mode(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(EXISTING)
    path.chmod(0o640)
    plan = hook.plan_install(tmp_path, tmp_path / "home", python=PYTHON)
    after = parsed(plan.after)
    assert after["notify"][:3] == [PYTHON, "-m", hook.NOTIFY_MODULE]
    assert {k: v for k, v in after.items() if k != "notify"} == parsed(EXISTING)
    assert "# my Codex settings" in plan.after and "# the default model" in plan.after
    assert "+notify = [" in plan.diff()
    assert path.read_text() == EXISTING  # a plan writes nothing
    hook.apply(plan)
    assert path.stat().st_mode & 0o777 == 0o640
    assert hook.installed_argv(tmp_path) == after["notify"]
    undo = hook.plan_uninstall(tmp_path)
    hook.apply(undo)
    assert parsed(path.read_text()) == parsed(EXISTING) and "# the default model" in path.read_text()
    assert hook.installed_argv(tmp_path) is None


@pytest.mark.parametrize("previous", [["notify-send", "Codex"], ["/opt/bin/ping me", "--json"]])
def test_a_foreign_notify_is_chained_and_restored(tmp_path: Path, previous: list[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"notify = {json.dumps(previous)}\n" + EXISTING)
    hook.apply(hook.plan_install(tmp_path, tmp_path / "home", python=PYTHON))
    argv = parsed(path.read_text())["notify"]
    assert argv[-2:] == [hook.THEN_FLAG, json.dumps(previous)]
    # installing again (a new home) keeps the chained program once
    hook.apply(hook.plan_install(tmp_path, tmp_path / "other", python=PYTHON))
    argv = parsed(path.read_text())["notify"]
    assert argv.count(hook.THEN_FLAG) == 1 and str(tmp_path / "other") in argv
    hook.apply(hook.plan_uninstall(tmp_path))
    assert parsed(path.read_text())["notify"] == previous


def test_uninstall_without_memctl_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('notify = ["notify-send"]\n' + EXISTING)
    assert not hook.plan_uninstall(tmp_path).changed
    assert not hook.plan_uninstall(tmp_path / "absent").changed


@pytest.mark.parametrize("text", ["model = \n", 'notify = "a string"\n', "notify = [1, 2]\n"])
def test_bad_config_is_one_clear_usage_error(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(HookConfigError) as info:
        hook.plan_install(tmp_path, tmp_path / "home")
    assert info.value.exit_code == 2 and "config.toml" in str(info.value)


# -- the notify program -----------------------------------------------------------------------------


def test_paths_match_the_data_home(tmp_path: Path) -> None:
    ours, theirs = notify._Home(tmp_path), DataHome(tmp_path)
    assert (ours.logs, ours.lock_file) == (theirs.logs, theirs.lock_file)


def test_payload_parsing() -> None:
    assert notify.thread_id(PAYLOAD) == TID
    assert notify.thread_id(json.dumps({"type": "approval-requested", "thread-id": TID})) is None
    for bad in ("[]", "not json", json.dumps({"type": "agent-turn-complete", "thread-id": "--help"})):
        with pytest.raises(ValueError):
            notify.thread_id(bad)


@pytest.mark.parametrize("argv", [[], ["{oops"], [json.dumps({"type": "agent-turn-complete", "thread-id": "x; rm"})]])
def test_bad_payload_exits_2_with_one_line(tmp_path: Path, argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", hook.NOTIFY_MODULE, "--home", str(tmp_path), *argv],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.returncode == notify.BAD_PAYLOAD
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "logs").exists()


def _recorder(out: Path) -> str:
    code = f"import sys, pathlib; pathlib.Path({str(out)!r}).open('a').write(sys.argv[1] + '\\n')"
    return json.dumps([sys.executable, "-c", code, "{session}"])


def _wait_for(path: Path, seconds: float = 30.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{path} not written within {seconds} s")


def test_notify_returns_at_once_and_the_detached_runner_ingests(tmp_path: Path) -> None:
    out = tmp_path / "ingested.txt"
    start = time.monotonic()
    code = notify.main(["--home", str(tmp_path / "home"), "--ingest", _recorder(out), PAYLOAD])
    assert code == 0 and time.monotonic() - start < 5
    assert _wait_for(out).split() == [TID]
    log = _wait_for(notify.log_file(notify._Home(tmp_path / "home")))
    assert TID in log


def test_runner_bounded_one_queued_per_thread_and_waits_for_the_lock(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = notify._Home(tmp_path / "home")
    (home.logs / "hooks").mkdir(parents=True)
    out = tmp_path / "ingested.txt"
    template = json.loads(_recorder(out))
    with FileLock(str(home.logs / "hooks" / f"codex-{TID}.pending")):
        assert notify._run(TID, home, template) == 0
    assert not out.exists() and "already queued" in notify.log_file(home).read_text()
    monkeypatch.setattr(notify, "MAX_WAIT_S", 0.2)
    with FileLock(str(home.lock_file)):
        assert notify._run(TID, home, template) == 0
    assert not out.exists() and "stayed locked" in notify.log_file(home).read_text()
    assert notify._run(TID, home, template) == 0
    assert out.read_text().split() == [TID]


def test_the_previous_program_still_runs(tmp_path: Path) -> None:
    out, prev = tmp_path / "ingested.txt", tmp_path / "previous.txt"
    code = f"import sys, pathlib; pathlib.Path({str(prev)!r}).write_text(sys.argv[1])"
    assert notify.main(["--home", str(tmp_path / "home"), "--ingest", _recorder(out),
                        "--then", json.dumps([sys.executable, "-c", code]), PAYLOAD]) == 0
    assert json.loads(_wait_for(prev))["thread-id"] == TID
    assert _wait_for(out).split() == [TID]


# -- the real Codex binary --------------------------------------------------------------------------


def _codex_binary() -> Path | None:
    cache = Path(os.environ.get("MEMCTL_CODEX_CACHE") or f"~/.cache/memctl/codex-{gen.CODEX_VERSION}").expanduser()
    binary = cache / "node_modules" / ".bin" / "codex"
    return binary if binary.exists() else None


@pytest.mark.skipif(_codex_binary() is None, reason="Codex 0.171.0 not installed (make_codex_fixture installs it)")
def test_real_codex_calls_the_hook_after_a_turn(tmp_path: Path) -> None:
    from tests.fakes import codex_script
    from tests.fakes.ollama_server import FakeOllama

    work = tmp_path / "work"
    codex_home = work / "home" / ".codex"
    codex_home.mkdir(parents=True)
    (work / "scratch").mkdir()
    out = tmp_path / "ingested.txt"
    with FakeOllama(chat_script=codex_script.responses_script) as fake:
        gen.write_config(codex_home, fake.url.rstrip("/") + "/v1")
        plan = hook.plan_install(codex_home, tmp_path / "memhome")
        hook.apply(plan)
        # the tests run the hook with this checkout first on the path, and a recorder as the ingest
        text = (codex_home / "config.toml").read_text()
        argv = parsed(text)["notify"] + ["--ingest", _recorder(out)]
        runner = [sys.executable, "-c", "import os, sys; os.environ['PYTHONPATH'] = " + repr(os.getcwd()) +
                  "; os.execv(sys.executable, [sys.executable, *sys.argv[1:]])", *argv[1:]]
        hook.apply(hook.HookPlan(plan.path, text, f"notify = {json.dumps(runner)}\n" + text.split("\n", 1)[1]))
        output = gen.run_codex(_codex_binary(), work, work / "scratch", ["exec", "--skip-git-repo-check", "hello there"],
                               tmp_path / "codex.log")
    session = gen._SESSION_ID.search(output).group(1)
    assert _wait_for(out).split() == [session]
