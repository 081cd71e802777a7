"""``memctl schedule install/status/uninstall`` against fake service managers: no bus, lingering off and on,
a load that fails midway (rolled back), half-installed files (never called installed).

Every ``systemctl``/``loginctl``/``launchctl`` call goes to :class:`ServiceManager`, a table of answers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import memctl.schedule.plan as schedule
from memctl.cli.main import app
from memctl.exit_codes import FAILED_ITEMS, HOME, OK
from memctl.schedule.jobs import JobFileError, ServiceManagerError
from memctl.schedule.plan import JOB_STATES, apply_plan, job_status, plan_install
from memctl.schedule.user_manager import login_name
from tests.schedule.test_schedule import UID, FakeRunner, _config

USER = login_name(os.getuid())
UNIT_FILES = ["memctl-ingest.service", "memctl-ingest.timer", "memctl-sleep.service", "memctl-sleep.timer"]
NO_BUS = "Failed to connect to bus: No medium found"


class ServiceManager:
    """Answers like systemd does: ``bus`` None = reachable, else every ``systemctl --user`` fails with it;
    ``linger``: loginctl's ``Linger=`` value; ``fail``: argv prefixes that fail (with their stderr)."""

    def __init__(self, bus: str | None = None, linger: str = "yes", fail: dict[tuple[str, ...], str] | None = None,
                 loaded: bool = True):
        self.bus, self.linger, self.fail, self.loaded = bus, linger, fail or {}, loaded
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv):
        argv = tuple(argv)
        self.calls.append(argv)
        if argv[:2] == ("loginctl", "show-user"):
            return SimpleNamespace(returncode=0, stdout=f"Linger={self.linger}\n", stderr="")
        if argv[:2] == ("systemctl", "--user") and self.bus is not None:
            return SimpleNamespace(returncode=1, stdout="", stderr=self.bus + "\n")
        for prefix, err in self.fail.items():
            if argv[:len(prefix)] == prefix:
                return SimpleNamespace(returncode=1, stdout="", stderr=err + "\n")
        if argv[:3] == ("systemctl", "--user", "show") and argv[3].endswith(".timer"):
            state = "LoadState=loaded\nActiveState=active\n" if self.loaded else "LoadState=not-found\nActiveState=inactive\n"
            return SimpleNamespace(returncode=0, stdout=state, stderr="")
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    def ran(self, *words: str) -> bool:
        return any(call[:len(words)] == words for call in self.calls)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Run ``memctl schedule …`` in-process with a given fake service manager; returns (result, manager)."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    units, home = tmp_path / "units", tmp_path / "home"

    def run(manager: ServiceManager, *args: str):
        monkeypatch.setattr(schedule, "run_command", manager)
        extra = ["--platform", "systemd", "--unit-dir", str(units)]
        if args[0] != "uninstall":
            extra += ["--home", str(home)]
        return CliRunner().invoke(app, ["schedule", *args, *extra])

    run.units = units  # type: ignore[attr-defined]
    return run


def _unit_names(units: Path) -> list[str]:
    return sorted(p.name for p in units.iterdir() if p.is_file()) if units.is_dir() else []


@pytest.mark.parametrize("error", [NO_BUS, "Failed to connect to bus: No such file or directory",
                                   "Failed to connect to bus: $DBUS_SESSION_BUS_ADDRESS and $XDG_RUNTIME_DIR not defined"])
def test_no_bus_writes_nothing_and_says_the_next_step(cli, error):
    manager = ServiceManager(bus=error)
    result = cli(manager, "install")
    assert result.exit_code == FAILED_ITEMS
    assert _unit_names(cli.units) == []
    assert error in result.stderr and "Nothing was written" in result.stderr
    assert f"loginctl enable-linger {USER}" in result.stderr and "XDG_RUNTIME_DIR=/run/user/" in result.stderr
    assert not manager.ran("systemctl", "--user", "daemon-reload") and not manager.ran("systemctl", "--user", "enable")
    assert "Traceback" not in result.output

    status = cli(manager, "status", "--json")
    data = json.loads(status.stdout)  # --json on stdout, and only there
    assert "{" not in status.stderr
    assert [j["state"] for j in data["jobs"]] == ["absent", "absent"]
    assert data["user_manager"]["reachable"] is False and data["user_manager"]["problem"] == error


def test_linger_off_installs_and_says_what_to_do(cli):
    manager = ServiceManager(linger="no")
    result = cli(manager, "install")
    assert result.exit_code == OK, result.output
    assert _unit_names(cli.units) == UNIT_FILES
    assert f"sudo loginctl enable-linger {USER}" in result.stderr and "only while you are logged in" in result.stderr
    status = cli(manager, "status")
    assert status.exit_code == OK
    assert f"sudo loginctl enable-linger {USER}" in status.stderr
    data = json.loads(cli(manager, "status", "--json").stdout)
    assert data["user_manager"]["linger"] is False and [j["installed"] for j in data["jobs"]] == [True, True]


def test_linger_on_installs_without_a_warning(cli):
    manager = ServiceManager(linger="yes")
    result = cli(manager, "install")
    assert result.exit_code == OK, result.output
    assert "linger" not in result.stderr and "user manager" not in result.stderr
    assert f"lingering is on for {USER}" in result.stdout
    assert manager.ran("systemctl", "--user", "enable", "--now", "memctl-sleep.timer", "memctl-ingest.timer")
    status = cli(manager, "status")
    assert "enable-linger" not in status.output


@pytest.mark.parametrize("failing", [("systemctl", "--user", "daemon-reload"), ("systemctl", "--user", "enable")])
def test_a_load_failing_midway_rolls_back_every_file(cli, failing):
    manager = ServiceManager(fail={failing: "Failed to reload daemon: Access denied"})
    result = cli(manager, "install")
    assert result.exit_code == FAILED_ITEMS
    assert _unit_names(cli.units) == []
    assert "Access denied" in result.stderr and "Rolled back: removed the 4 job files" in result.stderr
    after_failure = manager.calls[manager.calls.index(next(c for c in manager.calls if c[:len(failing)] == failing)) + 1:]
    assert ("systemctl", "--user", "disable", "--now", "memctl-sleep.timer", "memctl-ingest.timer") in after_failure
    assert after_failure[-1] == ("systemctl", "--user", "daemon-reload")


def test_a_failed_reinstall_puts_the_earlier_units_back(cli):
    assert cli(ServiceManager(), "install", "--sleep-every", "3h").exit_code == OK
    before = {name: (cli.units / name).read_bytes() for name in UNIT_FILES}
    manager = ServiceManager(fail={("systemctl", "--user", "enable"): "Failed to enable unit: Transport endpoint"})
    result = cli(manager, "install", "--sleep-every", "6h")
    assert result.exit_code == FAILED_ITEMS and "put the 4 earlier job files back" in result.stderr
    assert {name: (cli.units / name).read_bytes() for name in UNIT_FILES} == before
    assert b"00/3:00:00" in before["memctl-sleep.timer"]
    assert manager.calls.count(("systemctl", "--user", "daemon-reload")) == 2  # the failed load, then the restore


@pytest.mark.parametrize("present,manager,state", [
    (UNIT_FILES, ServiceManager(bus=NO_BUS), "unverified"),
    (UNIT_FILES, ServiceManager(loaded=False), "not loaded"),
    (["memctl-sleep.service", "memctl-ingest.timer"], ServiceManager(), "partial"),
    (["memctl-sleep.timer", "memctl-ingest.service"], ServiceManager(bus=NO_BUS), "partial"),
])
def test_status_never_calls_half_installed_units_installed(cli, present, manager, state):
    cli.units.mkdir(parents=True)
    for name in present:
        (cli.units / name).write_text("[Unit]\n")
    data = json.loads(cli(manager, "status", "--json").stdout)
    assert [j["state"] for j in data["jobs"]] == [state, state]
    assert [j["installed"] for j in data["jobs"]] == [False, False]
    assert all(j["next_step"] for j in data["jobs"])
    human = cli(manager, "status")
    rows = [line for line in human.stdout.splitlines() if line.startswith(("│ sleep ", "│ ingest "))]
    assert human.exit_code == OK and len(rows) == 2
    assert all(f"│ {state.split()[0]}" in row and "│ installed" not in row for row in rows), rows
    assert f"sleep: {JOB_STATES[state]}" in " ".join(human.stderr.split())


def test_uninstall_without_bus_removes_the_files_and_says_what_remains(cli):
    assert cli(ServiceManager(), "install").exit_code == OK
    wants = cli.units / "timers.target.wants"
    wants.mkdir()
    (wants / "memctl-sleep.timer").symlink_to(cli.units / "memctl-sleep.timer")
    manager = ServiceManager(bus=NO_BUS)
    result = cli(manager, "uninstall")
    assert result.exit_code == OK, result.output
    assert _unit_names(cli.units) == [] and list(wants.iterdir()) == []
    assert "nothing was unloaded" in result.stderr and "daemon-reload" in result.stderr
    assert not any(call[0] == "systemctl" and call[2] != "show-environment" for call in manager.calls)


@pytest.mark.parametrize("bus", [None, NO_BUS])
def test_uninstall_with_nothing_installed_says_so(cli, bus):
    manager = ServiceManager() if bus is None else ServiceManager(bus=bus)
    result = cli(manager, "uninstall")
    assert result.exit_code == OK, result.output
    assert "nothing to remove" in result.stdout and "removed the memctl jobs" not in result.stdout
    assert "daemon-reload" not in result.stderr  # nothing was there for a manager to keep


def test_launchd_bootstrap_failing_for_the_second_agent_unloads_the_first(tmp_path):
    agents = tmp_path / "agents"
    runner = FakeRunner({("launchctl", "bootstrap", f"gui/{UID}", str(agents / "com.memctl.ingest.plist")):
                         (5, "", "Bootstrap failed: 5: Input/output error")})
    with pytest.raises(ServiceManagerError, match="Rolled back: removed the 2 job files"):
        apply_plan(plan_install(_config(tmp_path), "launchd", agents, UID), runner)
    assert list(agents.iterdir()) == []
    failed = runner.calls.index(("launchctl", "bootstrap", f"gui/{UID}", str(agents / "com.memctl.ingest.plist")))
    assert runner.calls[failed + 1:] == [("launchctl", "bootout", f"gui/{UID}/com.memctl.sleep"),
                                         ("launchctl", "bootout", f"gui/{UID}/com.memctl.ingest")]


def test_a_write_failing_midway_leaves_no_file(tmp_path):
    units = tmp_path / "units"
    units.mkdir()
    (units / "memctl-ingest.service").mkdir()  # a directory where the third file goes
    runner = FakeRunner()
    with pytest.raises(JobFileError) as info:
        apply_plan(plan_install(_config(tmp_path), "systemd", units, UID), runner)
    assert info.value.exit_code == HOME
    assert sorted(p.name for p in units.iterdir()) == ["memctl-ingest.service"] and runner.calls == []
    statuses = job_status("systemd", units, UID, tmp_path, FakeRunner())
    assert [s.state for s in statuses] == ["absent", "absent"]
