"""memctl schedule: rendered launchd plists and systemd units, install/uninstall/status with a fake runner.

Nothing is loaded: every launchctl/systemctl call goes to a recording fake.
"""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import memctl.schedule.plan as schedule
from memctl.schedule.jobs import (
    ScheduleConfig,
    ScheduleInputError,
    ServiceManagerError,
    default_program,
    default_search_path,
    default_unit_dir,
    detect_platform,
    parse_clock,
    parse_interval,
)
from memctl.schedule.launchd import EXAMPLE_CONFIG, render_plist
from memctl.schedule.plan import apply_plan, job_status, plan_install, plan_uninstall, run_command
from memctl.schedule.systemd import calendar_times, render_service, render_timer

REPO = Path(__file__).resolve().parents[2]
UID = 501


class FakeRunner:
    """Records argv; answers from a {prefix tuple: (rc, stdout, stderr)} table (default rc 0)."""

    def __init__(self, answers: dict[tuple[str, ...], tuple[int, str, str]] | None = None):
        self.calls: list[tuple[str, ...]] = []
        self.answers = answers or {}

    def __call__(self, argv):
        argv = tuple(argv)
        self.calls.append(argv)
        for prefix, (rc, out, err) in self.answers.items():
            if argv[:len(prefix)] == prefix:
                return SimpleNamespace(returncode=rc, stdout=out, stderr=err)
        return SimpleNamespace(returncode=0, stdout="", stderr="")


def _config(tmp_path: Path, **overrides) -> ScheduleConfig:
    program = ("/opt/memctl/.venv/bin/memctl",)
    values = dict(
        program=program, home=tmp_path / "data home", ollama_host="http://127.0.0.1:11434",
        search_path=default_search_path(program, which=lambda name: "/opt/ollama/bin/ollama" if name == "ollama" else None),
    )
    values.update(overrides)
    return ScheduleConfig(**values)


# --- parsing ---------------------------------------------------------------

@pytest.mark.parametrize("text,seconds", [("6h", 21600), ("90m", 5400), ("1d", 86400), ("30min", 1800), (" 2H ", 7200),
                                          ("5m", 300), ("24h", 86400)])
def test_parse_interval(text, seconds):
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("text,message", [("", "not a duration"), ("6", "not a duration"), ("6x", "not a duration"),
                                          ("1.5h", "not a duration"), ("-1h", "not a duration"), ("0h", "too short"),
                                          ("4m", "too short"), ("2d", "too long"), ("7h", "does not divide a day")])
def test_parse_interval_rejects(text, message):
    with pytest.raises(ScheduleInputError, match=message) as info:
        parse_interval(text)
    assert info.value.exit_code == 2


@pytest.mark.parametrize("text,clock", [("03:00", (3, 0)), ("3:05", (3, 5)), ("23:59", (23, 59)), ("00:00", (0, 0))])
def test_parse_clock(text, clock):
    assert parse_clock(text) == clock


@pytest.mark.parametrize("text", ["24:00", "3:60", "3pm", "0300", "", "03:0"])
def test_parse_clock_rejects(text):
    with pytest.raises(ScheduleInputError, match="HH:MM"):
        parse_clock(text)


def test_calendar_times():
    assert calendar_times(21600) == ["*-*-* 00/6:00:00"]
    assert calendar_times(86400) == ["*-*-* 00:00:00"]
    assert calendar_times(1800) == ["*-*-* *:00/30:00"]
    ninety = calendar_times(5400)
    assert len(ninety) == 16 and ninety[:2] == ["*-*-* 00:00:00", "*-*-* 01:30:00"] and ninety[-1] == "*-*-* 22:30:00"
    with pytest.raises(ScheduleInputError):
        calendar_times(8 * 60)  # 180 entries
    with pytest.raises(ScheduleInputError):
        calendar_times(7 * 3600)


# --- inputs ----------------------------------------------------------------

def test_default_program_prefers_console_script_beside_interpreter(tmp_path):
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    python = bindir / "python"
    python.write_text("")
    assert default_program(str(python), which=lambda n: "/usr/bin/memctl") == ("/usr/bin/memctl",)
    script = bindir / "memctl"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert default_program(str(python), which=lambda n: None) == (str(script),)


def test_default_program_falls_back_to_module(tmp_path):
    python = tmp_path / "python"
    assert default_program(str(python), which=lambda n: None) == (str(python), "-m", "memctl.cli")


def test_search_path_has_ollama_dir_first_and_no_duplicates():
    path = default_search_path(("/usr/local/bin/memctl",), which=lambda n: "/opt/homebrew/bin/ollama")
    dirs = path.split(":")
    assert dirs[0] == "/opt/homebrew/bin" and "/usr/local/bin" in dirs and "/usr/bin" in dirs
    assert len(dirs) == len(set(dirs))
    no_ollama = default_search_path(("/x/bin/memctl",), which=lambda n: None).split(":")
    assert no_ollama[:3] == ["/x/bin", "/opt/homebrew/bin", "/usr/local/bin"]


def test_detect_platform():
    assert detect_platform("auto", "darwin") == "launchd"
    assert detect_platform("auto", "linux") == "systemd"
    assert detect_platform("systemd", "darwin") == "systemd"
    with pytest.raises(ScheduleInputError, match="no scheduler support on win32"):
        detect_platform("auto", "win32")
    with pytest.raises(ScheduleInputError, match="--platform"):
        detect_platform("cron", "linux")


def test_default_unit_dir(tmp_path):
    assert default_unit_dir("launchd", tmp_path) == tmp_path / "Library" / "LaunchAgents"
    assert default_unit_dir("systemd", tmp_path, env={}) == tmp_path / ".config" / "systemd" / "user"
    assert default_unit_dir("systemd", tmp_path, env={"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/systemd/user")


@pytest.mark.parametrize("overrides,message", [
    ({"program": ("memctl",)}, "absolute"),
    ({"home": Path("var")}, "absolute"),
    ({"ollama_host": "http://x\nExecStart=/bin/evil"}, "line break"),
])
def test_config_refuses_relative_paths_and_line_breaks(tmp_path, overrides, message):
    with pytest.raises(ScheduleInputError, match=message):
        _config(tmp_path, **overrides)


# --- launchd ---------------------------------------------------------------

def test_sleep_plist(tmp_path):
    config = _config(tmp_path)
    sleep, _ = config.jobs
    agent = plistlib.loads(render_plist(config, sleep))
    assert agent["Label"] == "com.memctl.sleep"
    assert agent["StartInterval"] == 21600 and "StartCalendarInterval" not in agent
    assert agent["ProgramArguments"] == ["/opt/memctl/.venv/bin/memctl", "sleep", "--wait"]
    assert all(os.path.isabs(a) for a in agent["ProgramArguments"][:1])
    assert agent["WorkingDirectory"] == str(tmp_path / "data home")
    env = agent["EnvironmentVariables"]
    assert "/opt/ollama/bin" in env["PATH"].split(":")
    assert env["MEMCTL_HOME"] == str(tmp_path / "data home") and env["OLLAMA_HOST"] == "http://127.0.0.1:11434"
    assert agent["StandardOutPath"] == str(tmp_path / "data home" / "logs" / "sleep.out.log")
    assert agent["StandardErrorPath"] == str(tmp_path / "data home" / "logs" / "sleep.err.log")
    assert agent["RunAtLoad"] is False


def test_ingest_plist_runs_daily_at_the_given_time(tmp_path):
    config = _config(tmp_path, ingest_at=(4, 30))
    agent = plistlib.loads(render_plist(config, config.jobs[1]))
    assert agent["Label"] == "com.memctl.ingest"
    assert agent["StartCalendarInterval"] == {"Hour": 4, "Minute": 30} and "StartInterval" not in agent
    assert agent["ProgramArguments"][-2:] == ["ingest", "--wait"]
    assert agent["StandardOutPath"].endswith("/logs/ingest.out.log")


def test_plist_carries_extra_env_and_escapes_xml(tmp_path):
    config = _config(tmp_path, home=tmp_path / "a&b <c>", extra_env={"MEMCTL_CONFIG": "/etc/memctl.toml"})
    agent = plistlib.loads(render_plist(config, config.jobs[0]))
    assert agent["WorkingDirectory"].endswith("a&b <c>")
    assert agent["EnvironmentVariables"]["MEMCTL_CONFIG"] == "/etc/memctl.toml"


def test_checked_in_plists_are_the_renderer_output():
    for job in EXAMPLE_CONFIG.jobs:
        path = REPO / "launchd" / f"{job.label}.plist"
        assert path.read_bytes() == render_plist(EXAMPLE_CONFIG, job), (
            f"{path} is stale: run python -c 'from pathlib import Path; from memctl.schedule.launchd import "
            "write_example_plists; write_example_plists(Path(\"launchd\"))'")


# --- systemd ---------------------------------------------------------------

def test_systemd_units(tmp_path):
    config = _config(tmp_path)
    sleep, ingest = config.jobs
    service = render_service(config, sleep)
    assert "Type=oneshot" in service
    assert "ExecStart=/opt/memctl/.venv/bin/memctl sleep --wait\n" in service
    assert f'"MEMCTL_HOME={tmp_path / "data home"}"' in service  # quoted: the path has a space
    assert re.search(r"^Environment=PATH=/opt/ollama/bin:", service, re.MULTILINE)
    assert "OLLAMA_HOST=http://127.0.0.1:11434" in service
    assert f"StandardOutput=append:{tmp_path / 'data home' / 'logs' / 'sleep.out.log'}\n" in service
    assert f"WorkingDirectory={tmp_path / 'data home'}\n" in service
    timer = render_timer(config, sleep)
    assert re.findall(r"^OnCalendar=(.*)$", timer, re.MULTILINE) == ["*-*-* 00/6:00:00"]
    assert "\nPersistent=true\n" in timer and "Unit=memctl-sleep.service" in timer and "WantedBy=timers.target" in timer
    ingest_timer = render_timer(config, ingest)
    assert re.findall(r"^OnCalendar=(.*)$", ingest_timer, re.MULTILINE) == ["*-*-* 03:00:00"]
    assert "\nPersistent=true\n" in ingest_timer
    assert "ExecStart=/opt/memctl/.venv/bin/memctl ingest --wait\n" in render_service(config, ingest)


def test_systemd_escapes_specifiers_and_dollars(tmp_path):
    config = _config(tmp_path, program=("/opt/my tools/$py%", "-m", "memctl.cli"), home=tmp_path / "100%")
    service = render_service(config, config.jobs[0])
    assert 'ExecStart="/opt/my tools/$$py%%" -m memctl.cli sleep --wait' in service
    assert f"WorkingDirectory={tmp_path}/100%%\n" in service


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_systemd_analyze_accepts_the_units(tmp_path):
    config = _config(tmp_path, program=("/bin/true",), home=tmp_path / "home 100%", sleep_every_s=5400)
    unit_dir = tmp_path / "units"
    unit_dir.mkdir()
    for job in config.jobs:
        (unit_dir / f"{job.unit}.service").write_text(render_service(config, job))
        (unit_dir / f"{job.unit}.timer").write_text(render_timer(config, job))
    result = subprocess.run(["systemd-analyze", "verify", *map(str, sorted(unit_dir.iterdir()))],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    for line in calendar_times(21600) + calendar_times(5400)[:2] + ["*-*-* 03:00:00"]:
        check = subprocess.run(["systemd-analyze", "calendar", line], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stderr


# --- install / uninstall / status -----------------------------------------

def test_launchd_install_writes_plists_and_bootstraps(tmp_path):
    config = _config(tmp_path)
    agents = tmp_path / "LaunchAgents"
    runner = FakeRunner({("launchctl", "bootout"): (3, "", "Boot-out failed: 3: No such process")})
    apply_plan(plan_install(config, "launchd", agents, UID), runner)
    sleep_plist, ingest_plist = agents / "com.memctl.sleep.plist", agents / "com.memctl.ingest.plist"
    assert plistlib.loads(sleep_plist.read_bytes())["StartInterval"] == 21600
    assert plistlib.loads(ingest_plist.read_bytes())["StartCalendarInterval"] == {"Hour": 3, "Minute": 0}
    assert runner.calls == [
        ("launchctl", "bootout", f"gui/{UID}/com.memctl.sleep"),
        ("launchctl", "bootout", f"gui/{UID}/com.memctl.ingest"),
        ("launchctl", "bootstrap", f"gui/{UID}", str(sleep_plist)),
        ("launchctl", "bootstrap", f"gui/{UID}", str(ingest_plist)),
    ]
    assert (config.home / "logs").is_dir()


def test_launchd_bootstrap_failure_is_a_clear_error(tmp_path):
    runner = FakeRunner({("launchctl", "bootstrap"): (5, "", "Bootstrap failed: 5: Input/output error")})
    with pytest.raises(ServiceManagerError, match="launchctl bootstrap gui/501 .* exit code 5: Bootstrap failed"):
        apply_plan(plan_install(_config(tmp_path), "launchd", tmp_path / "agents", UID), runner)


def test_systemd_install_writes_units_and_enables_timers(tmp_path):
    units = tmp_path / "systemd" / "user"
    runner = FakeRunner()
    apply_plan(plan_install(_config(tmp_path), "systemd", units, UID), runner)
    assert sorted(p.name for p in units.iterdir()) == ["memctl-ingest.service", "memctl-ingest.timer",
                                                       "memctl-sleep.service", "memctl-sleep.timer"]
    assert runner.calls == [("systemctl", "--user", "daemon-reload"),
                            ("systemctl", "--user", "enable", "--now", "memctl-sleep.timer", "memctl-ingest.timer")]


def test_uninstall_unloads_and_removes(tmp_path):
    agents, units = tmp_path / "agents", tmp_path / "units"
    apply_plan(plan_install(_config(tmp_path), "launchd", agents, UID), FakeRunner())
    apply_plan(plan_install(_config(tmp_path), "systemd", units, UID), FakeRunner())
    runner = FakeRunner()
    apply_plan(plan_uninstall("launchd", agents, UID), runner)
    assert list(agents.iterdir()) == []
    assert runner.calls == [("launchctl", "bootout", f"gui/{UID}/com.memctl.sleep"),
                            ("launchctl", "bootout", f"gui/{UID}/com.memctl.ingest")]
    runner = FakeRunner({("systemctl", "--user", "disable"): (1, "", "Unit file memctl-sleep.timer does not exist.")})
    apply_plan(plan_uninstall("systemd", units, UID), runner)
    assert list(units.iterdir()) == []
    assert runner.calls == [("systemctl", "--user", "disable", "--now", "memctl-sleep.timer", "memctl-ingest.timer"),
                            ("systemctl", "--user", "daemon-reload")]
    apply_plan(plan_uninstall("launchd", agents, UID), FakeRunner({("launchctl",): (113, "", "not found")}))  # twice: fine


def test_status_launchd(tmp_path):
    agents = tmp_path / "agents"
    apply_plan(plan_install(_config(tmp_path), "launchd", agents, UID), FakeRunner())
    printed = "com.memctl.sleep = {\n\tstate = not running\n\truns = 3\n\tlast exit code = 0\n}\n"
    runner = FakeRunner({("launchctl", "print", f"gui/{UID}/com.memctl.sleep"): (0, printed, ""),
                         ("launchctl", "print", f"gui/{UID}/com.memctl.ingest"): (113, "", "Could not find service")})
    sleep, ingest = job_status("launchd", agents, UID, tmp_path / "home", runner)
    assert sleep.installed and sleep.loaded and sleep.details == {"state": "not running", "runs": "3", "last exit code": "0"}
    assert sleep.state == "installed"
    # its file is there but launchd does not know it: not installed (it would never run)
    assert not ingest.installed and ingest.loaded is False and ingest.state == "not loaded"
    assert sleep.logs[0] == tmp_path / "home" / "logs" / "sleep.out.log"


def test_status_systemd_and_missing_tool(tmp_path):
    shown = "LoadState=loaded\nActiveState=active\nNextElapseUSecRealtime=Mon 2026-11-30 12:00:00 UTC\nLastTriggerUSec=n/a\n"
    runner = FakeRunner({("systemctl", "--user", "show", "memctl-sleep.timer"): (0, shown, ""),
                         ("systemctl", "--user", "show", "memctl-sleep.service"): (0, "Result=success\n", ""),
                         ("systemctl", "--user", "show", "memctl-ingest.timer"): (0, "LoadState=not-found\n", "")})
    sleep, ingest = job_status("systemd", tmp_path, UID, tmp_path, runner)
    assert sleep.loaded and sleep.details["ActiveState"] == "active" and sleep.details["Result"] == "success"
    assert not sleep.installed and ingest.loaded is False

    no_bus = FakeRunner({("systemctl",): (1, "", "Failed to connect to bus: No medium found\n")})
    statuses = job_status("systemd", tmp_path, UID, tmp_path, no_bus)
    assert statuses[0].loaded is None and statuses[0].details["error"] == "Failed to connect to bus: No medium found"

    def missing(argv):
        raise ServiceManagerError("systemctl is not available on this machine")

    statuses = job_status("systemd", tmp_path, UID, tmp_path, missing)
    assert [s.loaded for s in statuses] == [None, None] and "not available" in statuses[0].details["error"]


def test_run_command_names_a_missing_tool():
    with pytest.raises(ServiceManagerError, match="memctl-no-such-tool-xyz is not available"):
        run_command(["memctl-no-such-tool-xyz", "print"])


def test_dry_run_describes_and_writes_nothing(tmp_path):
    plan = plan_install(_config(tmp_path), "launchd", tmp_path / "agents", UID)
    text = plan.describe()
    assert f"would write: {tmp_path / 'agents' / 'com.memctl.sleep.plist'}" in text
    assert f"would run: launchctl bootstrap gui/{UID}" in text and "<key>StartInterval</key>" in text
    assert not (tmp_path / "agents").exists() and not (tmp_path / "data home").exists()


# --- CLI -------------------------------------------------------------------

def _cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMCTL_")}
    env.update(HOME=str(tmp_path / "user"), XDG_CONFIG_HOME=str(tmp_path / "user" / ".config"))
    return env


def _memctl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env=_cli_env(tmp_path))


def test_cli_dry_run_prints_a_valid_plist_and_writes_nothing(tmp_path):
    agents = tmp_path / "agents"
    result = _memctl(tmp_path, "schedule", "install", "--dry-run", "--platform", "launchd", "--unit-dir", str(agents),
                     "--home", str(tmp_path / "home"), "--sleep-every", "3h", "--ingest-at", "04:15")
    assert result.returncode == 0, result.stderr
    block = result.stdout.split(f"would write: {agents / 'com.memctl.sleep.plist'}\n", 1)[1]
    agent = plistlib.loads(block[:block.index("</plist>") + len("</plist>")].encode())
    assert agent["StartInterval"] == 3 * 3600
    assert os.path.isabs(agent["ProgramArguments"][0]) and agent["ProgramArguments"][-2:] == ["sleep", "--wait"]
    assert agent["EnvironmentVariables"]["MEMCTL_HOME"] == str(tmp_path / "home")
    assert "<key>Hour</key>\n\t\t<integer>4</integer>" in result.stdout
    assert not agents.exists() and not (tmp_path / "home").exists()


def test_cli_dry_run_systemd(tmp_path):
    result = _memctl(tmp_path, "schedule", "install", "--dry-run", "--platform", "systemd", "--home", str(tmp_path / "h"))
    assert result.returncode == 0, result.stderr
    assert f"would write: {tmp_path / 'user' / '.config' / 'systemd' / 'user' / 'memctl-sleep.timer'}" in result.stdout
    assert "OnCalendar=*-*-* 00/6:00:00" in result.stdout and "OnCalendar=*-*-* 03:00:00" in result.stdout
    assert "would run: systemctl --user enable --now memctl-sleep.timer memctl-ingest.timer" in result.stdout
    assert not (tmp_path / "user" / ".config" / "systemd").exists()


@pytest.mark.parametrize("args,message", [
    (("--sleep-every", "6x"), "--sleep-every: '6x' is not a duration"),
    (("--sleep-every", "7h"), "does not divide a day"),
    (("--ingest-at", "25:00"), "--ingest-at: '25:00' is not a time of day"),
    (("--platform", "cron"), "Invalid value for '--platform': Value error, 'cron' is not one of 'auto', 'launchd', 'systemd'"),
])
def test_cli_bad_values_exit_2(tmp_path, args, message):
    result = _memctl(tmp_path, "schedule", "install", "--dry-run", *args)
    assert result.returncode == 2
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr


def test_cli_install_status_uninstall_with_fake_service_manager(tmp_path, monkeypatch):
    from memctl.cli.main import app

    runner = FakeRunner({("systemctl", "--user", "show", "memctl-sleep.timer"): (0, "LoadState=loaded\nActiveState=active\n", "")})
    monkeypatch.setattr(schedule, "run_command", runner)
    for key, value in _cli_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MEMCTL_HOME", raising=False)
    units, home = tmp_path / "units", tmp_path / "home"
    cli = CliRunner()
    result = cli.invoke(app, ["schedule", "install", "--platform", "systemd", "--unit-dir", str(units), "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert (units / "memctl-sleep.timer").is_file() and (home / "logs").is_dir()
    assert ("systemctl", "--user", "enable", "--now", "memctl-sleep.timer", "memctl-ingest.timer") in runner.calls
    result = cli.invoke(app, ["schedule", "status", "--platform", "systemd", "--unit-dir", str(units), "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    assert '"installed": true' in result.output and '"loaded": true' in result.output
    result = cli.invoke(app, ["schedule", "uninstall", "--platform", "systemd", "--unit-dir", str(units)])
    assert result.exit_code == 0, result.output
    assert list(units.iterdir()) == []
