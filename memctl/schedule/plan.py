"""Scheduled runs: the sleep cycle every few hours and a daily ingest, under launchd or systemd --user.

The sleep cycle runs on a schedule (every 6 hours by default), with no human
in the loop (README, "Scheduled runs"). Two jobs, both running the memctl
console script (or ``python -m memctl.cli``) with absolute paths:

=========  ======================  =============================================
job        command                 when (defaults; ``--sleep-every``, ``--ingest-at``)
=========  ======================  =============================================
sleep      ``memctl sleep``        every 6 hours
ingest     ``memctl ingest``       daily at 03:00 local time
=========  ======================  =============================================

What a job is: :mod:`memctl.schedule.jobs`. The files and commands per
platform: :mod:`memctl.schedule.launchd` (macOS agents) and
:mod:`memctl.schedule.systemd` (Linux user units). This module plans an
install or uninstall, carries a plan out and reports the jobs' status.
Everything that touches the system goes through a ``runner`` callable and an
explicit unit directory, so tests render, install and uninstall without
loading anything.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memctl.atomic import atomic_write_bytes
from memctl.schedule import launchd, systemd
from memctl.schedule.jobs import (
    JOB_NAMES,
    Command,
    CommandResult,
    Job,
    JobFileError,
    Runner,
    ScheduleConfig,
    SchedulePlan,
    ServiceManagerError,
)
from memctl.schedule.user_manager import UserManagerState, check_user_manager, login_name


def user_manager(uid: int, runner: Runner | None = None) -> UserManagerState:
    """:func:`memctl.schedule.user_manager.check_user_manager` for ``uid`` with this module's runner
    (:func:`run_command`, looked up at call time so tests can replace it)."""
    return check_user_manager(runner or run_command, uid, login_name(uid))


def plan_install(config: ScheduleConfig, platform: str, unit_dir: Path, uid: int) -> SchedulePlan:
    """The files and commands that install both jobs (re-installing replaces them)."""
    if platform == "launchd":
        return launchd.install_plan(config, Path(unit_dir), uid)
    return systemd.install_plan(config, Path(unit_dir))


def plan_uninstall(platform: str, unit_dir: Path, uid: int) -> SchedulePlan:
    """Unload both jobs (failures tolerated: they may not be loaded) and remove their files."""
    jobs = [Job(name) for name in JOB_NAMES]
    if platform == "launchd":
        return launchd.uninstall_plan(jobs, Path(unit_dir), uid)
    return systemd.uninstall_plan(jobs, Path(unit_dir))


def run_command(argv: Sequence[str]) -> CommandResult:
    """The real runner: ``subprocess.run`` with captured text output and a 60 s timeout.

    Raises:
        ServiceManagerError: the program is not installed, or timed out.
    """
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError as exc:
        raise ServiceManagerError(
            f"{argv[0]} is not available on this machine: scheduling needs launchd (macOS) or systemd --user (Linux); "
            "`memctl schedule install --dry-run` shows the files") from exc
    except subprocess.TimeoutExpired as exc:
        raise ServiceManagerError(f"`{' '.join(argv)}` did not finish within 60 s") from exc


def _run(command: Command, runner: Runner) -> CommandResult:
    result = runner(command.argv)
    if result.returncode != 0 and not command.tolerate_failure:
        output = (result.stderr or result.stdout or "").strip()
        raise ServiceManagerError(f"`{' '.join(command.argv)}` failed with exit code {result.returncode}"
                                  + (f": {output[:500]}" if output else ""))
    return result


def _tolerated(command: Command, runner: Runner) -> None:
    try:
        runner(command.argv)
    except ServiceManagerError:  # rolling back: a missing or hung tool must not hide the first error
        pass


def _put_back(previous: dict[Path, bytes | None]) -> None:
    """Each path as it was before: its earlier bytes, or absent."""
    for path, content in previous.items():
        if content is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write_bytes(path, content)


def _roll_back(plan: SchedulePlan, previous: dict[Path, bytes | None], runner: Runner) -> str:
    """Undo an install whose loading failed; return what was done, for the error message."""
    for command in plan.undo:
        _tolerated(command, runner)
    try:
        _put_back(previous)
    except OSError as exc:
        raise JobFileError(f"could not put the job files back as they were: {exc}; "
                           "run `memctl schedule uninstall` to remove them") from exc
    replaced = [path for path, content in previous.items() if content is not None]
    for command in (plan.after if replaced else plan.reload):
        _tolerated(command, runner)
    if replaced:
        return f"put the {len(replaced)} earlier job files back and loaded them again"
    return f"removed the {len(previous)} job files it had written; nothing is installed"


def apply_plan(plan: SchedulePlan, runner: Runner | None = None) -> None:
    """Carry out a plan: ``before`` commands, log dir, atomic writes, removals, ``after`` commands.

    All or nothing for the files: when a write or an ``after`` command fails,
    ``plan.undo`` runs, every written file is put back as it was (earlier
    content, or removed) and ``plan.reload`` (new files) or ``plan.after``
    (replaced files) runs again, failures tolerated. ``runner`` defaults to
    :func:`run_command` (looked up at call time, so tests can replace it).

    Raises:
        ServiceManagerError: a command that must succeed failed (the message
            says what was rolled back).
        JobFileError: a file could not be written, removed or put back.
    """
    runner = runner or run_command
    for command in plan.before:
        _run(command, runner)
    previous: dict[Path, bytes | None] = {}
    try:
        if plan.log_dir is not None:
            plan.log_dir.mkdir(parents=True, exist_ok=True)
        for path, content in plan.writes:
            previous[path] = path.read_bytes() if path.is_file() else None
            atomic_write_bytes(path, content)
        for path in plan.removes:
            path.unlink(missing_ok=True)
    except OSError as exc:
        try:
            _put_back(previous)
        except OSError:
            pass  # the first error is the one to report
        raise JobFileError(f"cannot write the job files or the log directory: {exc}") from exc
    try:
        for command in plan.after:
            _run(command, runner)
    except ServiceManagerError as exc:
        if not plan.writes:
            raise
        raise ServiceManagerError(f"{exc}. Rolled back: {_roll_back(plan, previous, runner)}") from exc


# ---------------------------------------------------------------------------
# Status
# ---------------------------------------------------------------------------


JOB_STATES = {
    "installed": "",
    "absent": "memctl schedule install",
    "partial": "some of its files are missing: run `memctl schedule install` again (or `uninstall`)",
    "not loaded": "its files are there but the service manager does not know them: run `memctl schedule install` again",
    "inactive": "loaded but its timer is not running: run `memctl schedule install` again",
    "unverified": "its files are there but the service manager could not be asked (see details); "
                  "it is not known to run",
}
"""Each job state and the next step it calls for (``installed`` needs none)."""


def job_state(files_present: int, files_total: int, loaded: bool | None, details: dict[str, str]) -> str:
    """A key of :data:`JOB_STATES`: only a job whose files are all there and that the service manager has loaded
    (and, for a systemd timer, started: ``ActiveState=active``) is ``installed``."""
    if files_present == 0:
        return "absent"
    if files_present < files_total:
        return "partial"
    if loaded is None:
        return "unverified"
    if not loaded:
        return "not loaded"
    if details.get("ActiveState", "active") != "active":
        return "inactive"
    return "installed"


@dataclass(frozen=True)
class JobStatus:
    """One job's state.

    Attributes:
        name: ``sleep`` or ``ingest``.
        files: the job's files (plist, or service + timer).
        state: a key of :data:`JOB_STATES` (see :func:`job_state`).
        loaded: the service manager knows the job (None: could not ask).
        details: what the service manager reports (launchd ``state``,
            ``runs``, ``last exit code``; systemd timer ``ActiveState``,
            ``NextElapseUSecRealtime``, ``LastTriggerUSec`` and the service's
            ``Result``; ``error`` when it could not be asked).
        logs: the job's log files.
    """

    name: str
    files: tuple[Path, ...]
    state: str
    loaded: bool | None
    details: dict[str, str]
    logs: tuple[Path, ...]

    @property
    def installed(self) -> bool:
        """All files there and loaded (and started): the job will run."""
        return self.state == "installed"

    @property
    def next_step(self) -> str:
        return JOB_STATES[self.state]

    def as_dict(self) -> dict:
        return {"name": self.name, "files": [str(p) for p in self.files], "installed": self.installed,
                "state": self.state, "next_step": self.next_step or None,
                "files_present": [str(p) for p in self.files if p.is_file()],
                "loaded": self.loaded, "details": self.details, "logs": [str(p) for p in self.logs]}


def job_status(platform: str, unit_dir: Path, uid: int, home: Path, runner: Runner | None = None) -> list[JobStatus]:
    """Installed files and the service manager's view of both jobs; never raises for a missing tool.

    ``runner`` defaults to :func:`run_command` (looked up at call time).
    """
    runner = runner or run_command
    unit_dir = Path(unit_dir)
    statuses: list[JobStatus] = []
    for name in JOB_NAMES:
        job = Job(name)
        logs = (Path(home) / "logs" / f"{name}.out.log", Path(home) / "logs" / f"{name}.err.log")
        files = launchd.job_files(job, unit_dir) if platform == "launchd" else systemd.job_files(job, unit_dir)
        loaded: bool | None
        try:
            loaded, details = (launchd.read_status(job, uid, runner) if platform == "launchd"
                               else systemd.read_status(job, runner))
        except ServiceManagerError as exc:
            loaded, details = None, {"error": str(exc)}
        state = job_state(sum(p.is_file() for p in files), len(files), loaded, details)
        statuses.append(JobStatus(name=name, files=files, state=state, loaded=loaded, details=details, logs=logs))
    return statuses
