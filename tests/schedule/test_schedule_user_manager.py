"""The systemd user manager check: is the user bus reachable, is lingering on — answered by fake runners.

Nothing here talks to systemd: every ``systemctl``/``loginctl`` call goes to a
table of answers, the way a shell without a session, a container or a
desktop login would answer.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from memctl.schedule.jobs import ServiceManagerError
from memctl.schedule.user_manager import LINGER_DIR, check_user_manager

UID = 1000
USER = "ada"
RUNTIME = f"/run/user/{UID}"

# What `systemctl --user` prints without a user bus, as seen in the field (sudo -u, su -, ssh, containers).
NO_BUS_ERRORS = [
    "Failed to connect to bus: No medium found",
    "Failed to connect to bus: No such file or directory",
    "Failed to connect to bus: $DBUS_SESSION_BUS_ADDRESS and $XDG_RUNTIME_DIR not defined "
    "(consider using --machine=<user>@.host --user to connect to bus of other user)",
    "Failed to connect to user scope bus via local transport: Permission denied",
]


def answer(rc: int = 0, out: str = "", err: str = "") -> SimpleNamespace:
    return SimpleNamespace(returncode=rc, stdout=out, stderr=err)


class Machine:
    """A fake runner: ``bus`` is systemctl's error (None: reachable), ``linger`` loginctl's stdout/stderr.

    ``bus_with_runtime_dir``: the bus answers once ``XDG_RUNTIME_DIR`` is set in ``environ``.
    """

    def __init__(self, bus: str | None = None, linger: tuple[int, str, str] = (0, "Linger=yes\n", ""),
                 environ: dict | None = None, bus_with_runtime_dir: bool = False, missing: tuple[str, ...] = ()):
        self.bus, self.linger, self.environ = bus, linger, environ if environ is not None else {}
        self.bus_with_runtime_dir, self.missing = bus_with_runtime_dir, missing
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv):
        argv = tuple(argv)
        self.calls.append(argv)
        if argv[0] in self.missing:
            raise ServiceManagerError(f"{argv[0]} is not available on this machine")
        if argv[0] == "systemctl":
            if self.bus is None or (self.bus_with_runtime_dir and self.environ.get("XDG_RUNTIME_DIR") == RUNTIME):
                return answer(0, "HOME=/home/ada\nLANG=C.UTF-8\n")
            return answer(1, "", self.bus + "\n")
        if argv[:2] == ("loginctl", "show-user"):
            assert argv[2] == USER and argv[3] == "--property=Linger"
            return answer(*self.linger)
        raise AssertionError(f"unexpected call {argv}")


def no_paths(path: str) -> bool:
    return False


@pytest.mark.parametrize("linger,expected", [
    ((0, "Linger=yes\n", ""), True),
    ((0, "Linger=no\n", ""), False),
    ((0, "Linger=no", ""), False),
    ((1, "", f"Failed to get user: User ID {UID} is not logged in or lingering\n"), False),
])
def test_reachable_bus_and_lingering(linger, expected):
    machine = Machine(linger=linger)
    state = check_user_manager(machine, UID, USER, environ={}, exists=no_paths)
    assert state.reachable and state.problem is None and state.linger is expected and state.runtime_dir_set is None
    assert machine.calls[0] == ("systemctl", "--user", "show-environment")
    if expected:
        assert state.warnings() == []
    else:
        (warning,) = state.warnings()
        assert f"sudo loginctl enable-linger {USER}" in warning and "only while you are logged in" in warning


@pytest.mark.parametrize("error", NO_BUS_ERRORS)
def test_no_bus_is_unreachable_with_the_cause_and_every_next_step(error):
    state = check_user_manager(Machine(bus=error), UID, USER, environ={}, exists=no_paths)
    assert not state.reachable and state.problem == error
    message = state.unreachable_message()
    assert error in message and "Nothing was written" in message
    for step in (f"export XDG_RUNTIME_DIR={RUNTIME}", f"sudo loginctl enable-linger {USER}", "log in to a real session",
                 "cron", "memctl schedule install --dry-run"):
        assert step in message, step
    assert any("cannot reach your user manager" in w for w in state.warnings())


def test_missing_systemctl_is_unreachable_not_a_crash():
    state = check_user_manager(Machine(missing=("systemctl",)), UID, USER, environ={}, exists=no_paths)
    assert not state.reachable and "systemctl is not available" in state.problem


@pytest.mark.parametrize("error", NO_BUS_ERRORS[:3])
def test_runtime_dir_is_set_when_only_the_variable_is_missing(error):
    environ: dict[str, str] = {}
    machine = Machine(bus=error, environ=environ, bus_with_runtime_dir=True)
    state = check_user_manager(machine, UID, USER, environ=environ, exists=lambda p: p == f"{RUNTIME}/bus")
    assert state.reachable and state.runtime_dir_set == RUNTIME and environ["XDG_RUNTIME_DIR"] == RUNTIME
    assert machine.calls.count(("systemctl", "--user", "show-environment")) == 2


def test_runtime_dir_is_left_unset_when_it_does_not_help():
    environ: dict[str, str] = {}
    machine = Machine(bus=NO_BUS_ERRORS[0], environ=environ)
    state = check_user_manager(machine, UID, USER, environ=environ, exists=lambda p: p == f"{RUNTIME}/bus")
    assert not state.reachable and state.runtime_dir_set is None and "XDG_RUNTIME_DIR" not in environ


def test_a_set_runtime_dir_is_never_replaced():
    environ = {"XDG_RUNTIME_DIR": "/somewhere/else"}
    state = check_user_manager(Machine(bus=NO_BUS_ERRORS[0], environ=environ, bus_with_runtime_dir=True), UID, USER,
                               environ=environ, exists=lambda p: True)
    assert not state.reachable and environ == {"XDG_RUNTIME_DIR": "/somewhere/else"}


@pytest.mark.parametrize("linger_files,expected", [
    ({LINGER_DIR, f"{LINGER_DIR}/{USER}"}, True),
    ({LINGER_DIR, f"{LINGER_DIR}/someone-else"}, False),
    ({LINGER_DIR}, False),
])
def test_lingering_from_logind_directory_when_loginctl_cannot_answer(linger_files, expected):
    machine = Machine(linger=(1, "", "Failed to connect to bus: Host is down\n"))
    state = check_user_manager(machine, UID, USER, environ={}, exists=lambda p: p in linger_files)
    assert state.linger is expected and state.linger_problem is None


@pytest.mark.parametrize("machine", [
    Machine(linger=(1, "", "System has not been booted with systemd as init system (PID 1). Can't operate.\n")),
    Machine(linger=(1, "", "Failed to connect to bus: Host is down\n")),
    Machine(missing=("loginctl",)),
])
def test_unknown_lingering_is_said_with_how_to_check(machine):
    state = check_user_manager(machine, UID, USER, environ={}, exists=no_paths)
    assert state.linger is None and state.linger_problem
    (warning,) = state.warnings()
    assert "could not check lingering" in warning and f"loginctl show-user {USER} --property=Linger" in warning
    assert state.as_dict()["linger"] is None and state.as_dict()["warnings"] == [warning]
