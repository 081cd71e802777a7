"""Can ``systemctl --user`` reach this user's systemd manager, and does that manager outlive a logout?

Two facts decide whether systemd user timers will ever run (systemd-logind(8),
loginctl(1), systemctl(1)):

* **The user bus.** ``systemctl --user`` talks to the user's manager over
  ``$XDG_RUNTIME_DIR/bus`` (or ``$DBUS_SESSION_BUS_ADDRESS``). A shell without
  a login session — ``sudo -u``, ``su -``, ssh without pam_systemd, cron, a
  container — has neither set, and every call fails with ``Failed to connect to
  bus``. When only the variable is missing (``/run/user/<uid>/bus`` exists),
  setting ``XDG_RUNTIME_DIR=/run/user/<uid>`` is enough.
* **Lingering.** Without it (``Linger=no``, the default) logind stops the
  user's manager when the last session ends: timers do not fire while the
  user is logged out, and ``Persistent=true`` makes up one missed run only
  when the manager starts again at the next login. ``loginctl enable-linger
  <user>`` starts the manager at boot and keeps it running.

:func:`check_user_manager` asks both through a runner (the same callable
:mod:`memctl.schedule.plan` uses), so tests answer with fakes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass

from memctl.schedule.jobs import Runner, ServiceManagerError

BUS_PROBE = ("systemctl", "--user", "show-environment")
LINGER_DIR = "/var/lib/systemd/linger"  # logind keeps one empty file per lingering user here
_NOT_LINGERING = "not logged in or lingering"  # loginctl's answer for a user with no session and no linger


class UserManagerUnreachableError(ServiceManagerError):
    """``systemctl --user`` cannot reach the user's manager; nothing was written (exit code 1)."""


@dataclass(frozen=True)
class UserManagerState:
    """What :func:`check_user_manager` found.

    Attributes:
        user: the login name checked.
        uid: its numeric id.
        reachable: ``systemctl --user`` answered.
        problem: systemctl's first error line when not reachable (else None).
        runtime_dir_set: the ``XDG_RUNTIME_DIR`` value the check set because it
            was unset and ``/run/user/<uid>/bus`` exists (else None).
        linger: ``True``/``False`` from loginctl (or logind's linger directory);
            None when neither could tell.
        linger_problem: why lingering is unknown (else None).
    """

    user: str
    uid: int
    reachable: bool
    problem: str | None = None
    runtime_dir_set: str | None = None
    linger: bool | None = None
    linger_problem: str | None = None

    def warnings(self) -> list[str]:
        """One line per fact that keeps the timers from running (empty when both are fine)."""
        lines: list[str] = []
        if not self.reachable:
            lines.append(f"systemctl --user cannot reach your user manager ({self.problem}): the timers are not "
                         "loaded and will not run")
        if self.linger is False:
            lines.append(f"lingering is off for {self.user}: the timers run only while you are logged in, and a run "
                         f"missed meanwhile is made up once at your next login; to run them while you are logged "
                         f"out: sudo loginctl enable-linger {self.user}")
        elif self.linger is None:
            lines.append(f"could not check lingering ({self.linger_problem}); unless it is on, the timers stop when "
                         f"you log out (check: loginctl show-user {self.user} --property=Linger; "
                         f"turn on: sudo loginctl enable-linger {self.user})")
        return lines

    def unreachable_message(self) -> str:
        """The error for an install that cannot load its units: the cause and every way forward."""
        runtime = f"/run/user/{self.uid}"
        return (f"systemctl --user cannot reach your user manager: {self.problem}. This shell has no login session "
                f"(sudo -u, su, ssh without pam_systemd, cron, a container). Nothing was written. Next step, one of: "
                f"log in to a real session as {self.user} (desktop or ssh) and run this again; "
                f"`export XDG_RUNTIME_DIR={runtime}` if {runtime} exists; "
                f"`sudo loginctl enable-linger {self.user}` so the user manager runs without a login, then run this "
                f"again; or run `memctl sleep --wait` and `memctl ingest --wait` from cron "
                f"(`memctl schedule install --dry-run` shows the commands and environment)")

    def as_dict(self) -> dict:
        return {"user": self.user, "reachable": self.reachable, "problem": self.problem,
                "runtime_dir_set": self.runtime_dir_set, "linger": self.linger,
                "linger_problem": self.linger_problem, "warnings": self.warnings()}


def _first_line(result) -> str:  # noqa: ANN001 - a CommandResult
    text = (result.stderr or result.stdout or "").strip()
    return text.splitlines()[0] if text else f"exit code {result.returncode}"


def _probe(runner: Runner) -> str | None:
    """None when ``systemctl --user`` answers, else its error line."""
    try:
        result = runner(BUS_PROBE)
    except ServiceManagerError as exc:  # systemctl missing or hung
        return str(exc)
    return None if result.returncode == 0 else _first_line(result)


def _linger(runner: Runner, user: str, exists: Callable[[str], bool]) -> tuple[bool | None, str | None]:
    try:
        result = runner(("loginctl", "show-user", user, "--property=Linger"))
    except ServiceManagerError as exc:
        problem = str(exc)
    else:
        for line in (result.stdout or "").splitlines():
            key, _, value = line.strip().partition("=")
            if key == "Linger" and value in ("yes", "no"):
                return value == "yes", None
        problem = _first_line(result)
        if _NOT_LINGERING in problem:
            return False, None
    if exists(LINGER_DIR):  # logind's own record, readable without a bus
        return exists(os.path.join(LINGER_DIR, user)), None
    return None, problem


def check_user_manager(runner: Runner, uid: int, user: str, environ: MutableMapping[str, str] | None = None,
                       exists: Callable[[str], bool] = os.path.exists) -> UserManagerState:
    """Probe the user bus (``systemctl --user show-environment``) and lingering (``loginctl show-user``).

    When the probe fails, ``XDG_RUNTIME_DIR`` is unset and
    ``/run/user/<uid>/bus`` exists, the variable is set in ``environ`` (default
    ``os.environ``, so later ``systemctl`` calls inherit it) and the probe is
    repeated. Never raises: a missing tool is a finding.
    """
    environ = os.environ if environ is None else environ
    problem = _probe(runner)
    runtime_dir_set = None
    runtime = f"/run/user/{uid}"
    if problem is not None and not environ.get("XDG_RUNTIME_DIR") and exists(os.path.join(runtime, "bus")):
        environ["XDG_RUNTIME_DIR"] = runtime
        runtime_dir_set = runtime
        problem = _probe(runner)
        if problem is not None:  # the variable did not help: leave the environment as it was
            del environ["XDG_RUNTIME_DIR"]
            runtime_dir_set = None
    linger, linger_problem = _linger(runner, user, exists)
    return UserManagerState(user=user, uid=uid, reachable=problem is None, problem=problem,
                            runtime_dir_set=runtime_dir_set, linger=linger, linger_problem=linger_problem)


def login_name(uid: int) -> str:
    """The login name of ``uid`` (``pwd``), else ``$USER``/``$LOGNAME``, else the number as text."""
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a uid with no passwd entry (containers)
        return os.environ.get("USER") or os.environ.get("LOGNAME") or str(uid)
