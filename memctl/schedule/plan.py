"""Scheduled runs: the sleep cycle every few hours and a daily ingest, under launchd or systemd --user.

The sleep cycle runs on a schedule (every 6 hours by default), with no human
in the loop (README, "Scheduled runs"). Two
jobs, both running the memctl console script (or ``python -m memctl.cli``)
with absolute paths:

=========  ======================  =============================================
job        command                 when (defaults; ``--sleep-every``, ``--ingest-at``)
=========  ======================  =============================================
sleep      ``memctl sleep``        every 6 hours
ingest     ``memctl ingest``       daily at 03:00 local time
=========  ======================  =============================================

macOS — launchd.plist(5): one agent per job in ``~/Library/LaunchAgents``
(``com.memctl.sleep.plist``, ``com.memctl.ingest.plist``) with
``ProgramArguments``, ``WorkingDirectory`` (the data home),
``EnvironmentVariables`` (``PATH`` including the directory of ``ollama``,
``MEMCTL_HOME``, ``OLLAMA_HOST``), ``StartInterval`` (sleep) or
``StartCalendarInterval`` (ingest; launchd runs a calendar job missed while
the Mac slept at wake) and ``StandardOutPath``/``StandardErrorPath`` under
``<home>/logs/``; loaded with ``launchctl bootstrap gui/<uid> <plist>``
(launchctl(1)). The plists are rendered here with :mod:`plistlib` — the one
source of truth; ``launchd/*.plist`` in the repository are these renderings
for example paths (a test keeps them identical).

Linux — systemd.service(5), systemd.timer(5): ``memctl-<job>.service``
(``Type=oneshot``) and ``memctl-<job>.timer`` in ``~/.config/systemd/user``,
then ``systemctl --user daemon-reload`` and ``enable --now`` of the timers.
Both timers use ``OnCalendar=`` because ``Persistent=true`` (a run missed
while the machine was off or asleep happens at the next start) only applies
to calendar timers: every 6 h is ``*-*-* 00/6:00:00``, daily at 03:00 is
``*-*-* 03:00:00``. That is why an interval must divide a day (30m, 90m, 6h,
1d, …) on both platforms: ``--sleep-every`` means the same clock times
everywhere.

Everything that touches the system goes through a ``runner`` callable and an
explicit unit directory, so tests render, install and uninstall without
loading anything.
"""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Protocol

from memctl.atomic import atomic_write_bytes
from memctl.durations import DurationError, parse_duration
from memctl.exit_codes import FAILED_ITEMS, HOME, USAGE, ExitCodeError

JOB_NAMES = ("sleep", "ingest")
PLATFORMS = ("launchd", "systemd")


class Platform(str, Enum):
    """``--platform``: ``auto`` (launchd on macOS, systemd on Linux) or one of :data:`PLATFORMS`."""

    auto = "auto"
    launchd = "launchd"
    systemd = "systemd"

MIN_INTERVAL_S = 5 * 60
DAY_S = 24 * 3600
MAX_CALENDAR_LINES = 48
FALLBACK_BIN_DIRS = ("/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")
_CLOCK = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")


class ScheduleError(ExitCodeError):
    """A schedule operation failed; ``str(exc)`` is the user-facing message, ``exit_code`` the CLI's code."""

    exit_code = FAILED_ITEMS


class ScheduleInputError(ScheduleError):
    """A bad ``--sleep-every``/``--ingest-at``/``--platform`` value or an unusable path (exit code 2)."""

    exit_code = USAGE


class ServiceManagerError(ScheduleError):
    """launchctl or systemctl is missing or refused a command (exit code 1)."""

    exit_code = FAILED_ITEMS


class JobFileError(ScheduleError):
    """A job file or the log directory could not be written or removed (exit code 7)."""

    exit_code = HOME


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def parse_interval(text: str) -> int:
    """Parse ``"90m"``, ``"6h"`` or ``"1d"`` into seconds.

    Raises:
        ScheduleInputError: not ``<number><m|h|d>``, under 5 minutes, over one
            day, or not dividing a day evenly (systemd calendar timers, see the
            module doc; e.g. 7h would drift against midnight).
    """
    try:
        seconds = parse_duration(text)
    except DurationError as exc:
        raise ScheduleInputError(str(exc)) from exc
    if seconds < MIN_INTERVAL_S:
        raise ScheduleInputError(f"{text!r} is too short: the interval is at least 5m")
    if seconds > DAY_S:
        raise ScheduleInputError(f"{text!r} is too long: the interval is at most 1d")
    if DAY_S % seconds:
        raise ScheduleInputError(f"{text!r} does not divide a day; choose e.g. 30m, 1h, 90m, 2h, 3h, 4h, 6h, 8h, 12h or 1d "
                                 "(runs happen at the same clock times every day)")
    return seconds


def parse_clock(text: str) -> tuple[int, int]:
    """Parse ``"HH:MM"`` (24-hour, local time) into ``(hour, minute)``.

    Raises:
        ScheduleInputError: not ``H:MM``/``HH:MM`` or out of range.
    """
    match = _CLOCK.match(text or "")
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ScheduleInputError(f"{text!r} is not a time of day; use HH:MM in 24-hour local time, e.g. 03:00")
    return int(match.group(1)), int(match.group(2))


def format_interval(seconds: int) -> str:
    """``21600`` → ``"6h"``, ``5400`` → ``"90m"``, ``86400`` → ``"1d"``."""
    if seconds % DAY_S == 0:
        return f"{seconds // DAY_S}d"
    if seconds % 3600 == 0:
        return f"{seconds // 3600}h"
    return f"{seconds // 60}m"


def calendar_times(every_s: int) -> list[str]:
    """systemd ``OnCalendar=`` values (systemd.time(7)) for "every ``every_s`` seconds from midnight".

    Compact forms where one exists (``*-*-* 00/6:00:00``, ``*-*-* *:00/30:00``),
    else one line per run (90m → 16 lines).

    Raises:
        ScheduleInputError: the interval does not divide a day, or would need
            more than 48 lines.
    """
    if every_s <= 0 or DAY_S % every_s or every_s % 60:
        raise ScheduleInputError(f"an interval of {every_s} s does not divide a day into whole minutes")
    minutes = every_s // 60
    if minutes == 1440:
        return ["*-*-* 00:00:00"]
    if minutes % 60 == 0:
        return [f"*-*-* 00/{minutes // 60}:00:00"]
    if 60 % minutes == 0:
        return [f"*-*-* *:00/{minutes}:00"]
    count = 1440 // minutes
    if count > MAX_CALENDAR_LINES:
        raise ScheduleInputError(f"every {format_interval(every_s)} needs {count} calendar entries; "
                                 "choose an interval that divides an hour (e.g. 15m, 30m) or is at least 30m")
    return [f"*-*-* {(i * minutes) // 60:02d}:{(i * minutes) % 60:02d}:00" for i in range(count)]


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One scheduled job.

    Attributes:
        name: ``"sleep"`` or ``"ingest"`` (also the memctl subcommand).
        every_s: run every this many seconds (sleep), or None.
        at: run daily at ``(hour, minute)`` local time (ingest), or None.
    """

    name: str
    every_s: int | None = None
    at: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        """launchd label, e.g. ``com.memctl.sleep``."""
        return f"com.memctl.{self.name}"

    @property
    def unit(self) -> str:
        """systemd unit base name, e.g. ``memctl-sleep``."""
        return f"memctl-{self.name}"

    @property
    def when(self) -> str:
        """Human description: ``every 6h`` or ``daily at 03:00``."""
        if self.every_s is not None:
            return f"every {format_interval(self.every_s)}"
        assert self.at is not None
        return f"daily at {self.at[0]:02d}:{self.at[1]:02d}"


@dataclass(frozen=True)
class ScheduleConfig:
    """Everything the job files depend on, explicit so rendering is pure.

    Attributes:
        program: absolute argv prefix that runs memctl, e.g.
            ``("/Users/me/memctl/.venv/bin/memctl",)`` or
            ``("/usr/bin/python3.11", "-m", "memctl.cli")``.
        home: absolute data home (``WorkingDirectory``, ``MEMCTL_HOME``; logs
            go to ``<home>/logs/``).
        ollama_host: ``OLLAMA_HOST`` for the jobs.
        search_path: ``PATH`` for the jobs (must include ollama's directory).
        sleep_every_s: the sleep job's interval in seconds.
        ingest_at: the ingest job's ``(hour, minute)``.
        extra_env: more environment variables (e.g. ``MEMCTL_CONFIG``).
    """

    program: tuple[str, ...]
    home: Path
    ollama_host: str
    search_path: str
    sleep_every_s: int = 6 * 3600
    ingest_at: tuple[int, int] = (3, 0)
    extra_env: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.program or not os.path.isabs(self.program[0]):
            raise ScheduleInputError(f"the program must be an absolute path (got {self.program!r})")
        if not Path(self.home).is_absolute():
            raise ScheduleInputError(f"the data home must be an absolute path (got {self.home})")
        for value in (*self.program, str(self.home), self.ollama_host, self.search_path, *self.extra_env.values()):
            if any(ch in value for ch in "\n\r\x00"):
                raise ScheduleInputError(f"{value!r} holds a line break or NUL; it cannot go into a job file")

    @property
    def jobs(self) -> tuple[Job, Job]:
        """The sleep and the ingest job."""
        return Job("sleep", every_s=self.sleep_every_s), Job("ingest", at=self.ingest_at)

    @property
    def log_dir(self) -> Path:
        return Path(self.home) / "logs"

    def log_paths(self, job: Job) -> tuple[Path, Path]:
        """``(<home>/logs/<job>.out.log, <home>/logs/<job>.err.log)``."""
        return self.log_dir / f"{job.name}.out.log", self.log_dir / f"{job.name}.err.log"

    def environment(self) -> dict[str, str]:
        """The jobs' environment: PATH, MEMCTL_HOME, OLLAMA_HOST, PYTHONUNBUFFERED, then ``extra_env``."""
        env = {"PATH": self.search_path, "MEMCTL_HOME": str(self.home), "OLLAMA_HOST": self.ollama_host,
               "PYTHONUNBUFFERED": "1"}
        env.update(self.extra_env)
        return env

    def argv(self, job: Job) -> list[str]:
        # --wait: the jobs share one lock on the data home; a sleep that starts while the nightly
        # ingest runs waits for it instead of exiting 6 and skipping a whole interval.
        return [*self.program, job.name, "--wait"]


def default_program(executable: str = sys.executable, which: Callable[[str], str | None] = shutil.which) -> tuple[str, ...]:
    """The absolute command that runs this memctl.

    The ``memctl`` console script beside the running interpreter (a venv's
    ``bin/``), else ``memctl`` on PATH, else ``<interpreter> -m memctl.cli``.
    Paths are made absolute but symlinks are kept (a venv's python is one).
    """
    beside = Path(executable).parent / "memctl"
    if beside.is_file() and os.access(beside, os.X_OK):
        return (os.path.abspath(beside),)
    found = which("memctl")
    if found:
        return (os.path.abspath(found),)
    return (os.path.abspath(executable), "-m", "memctl.cli")


def default_search_path(program: Sequence[str], which: Callable[[str], str | None] = shutil.which) -> str:
    """``PATH`` for the jobs: ollama's directory, the program's, Homebrew's and the system's, no duplicates.

    launchd starts agents with a minimal PATH (``/usr/bin:/bin:/usr/sbin:/sbin``),
    which misses Homebrew's ``/opt/homebrew/bin`` where ``ollama`` usually is.
    """
    dirs: list[str] = []
    ollama = which("ollama")
    if ollama:
        dirs.append(os.path.dirname(os.path.abspath(ollama)))
    dirs.append(os.path.dirname(program[0]))
    dirs.extend(FALLBACK_BIN_DIRS)
    return ":".join(dict.fromkeys(d for d in dirs if d))


def detect_platform(name: str = "auto", sys_platform: str = sys.platform) -> str:
    """``"launchd"`` on macOS, ``"systemd"`` on Linux; an explicit name is checked and returned.

    Raises:
        ScheduleInputError: unknown name, or ``auto`` on another OS.
    """
    if name in PLATFORMS:
        return name
    if name != "auto":
        raise ScheduleInputError(f"--platform must be auto, launchd or systemd (got {name!r})")
    if sys_platform == "darwin":
        return "launchd"
    if sys_platform.startswith("linux"):
        return "systemd"
    raise ScheduleInputError(f"no scheduler support on {sys_platform}; memctl schedules with launchd (macOS) "
                             "or systemd --user (Linux). Run `memctl sleep` from your own scheduler instead")


def default_unit_dir(platform: str, user_home: Path | None = None, env: Mapping[str, str] = os.environ) -> Path:
    """``~/Library/LaunchAgents`` (launchd) or ``$XDG_CONFIG_HOME/systemd/user`` (default ``~/.config``)."""
    home = Path(user_home) if user_home is not None else Path.home()
    if platform == "launchd":
        return home / "Library" / "LaunchAgents"
    config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(config) / "systemd" / "user"


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def render_plist(config: ScheduleConfig, job: Job) -> bytes:
    """The launchd agent for ``job`` as XML plist bytes (keys per launchd.plist(5))."""
    out_log, err_log = config.log_paths(job)
    agent: dict[str, object] = {
        "Label": job.label,
        "ProgramArguments": config.argv(job),
        "WorkingDirectory": str(config.home),
        "EnvironmentVariables": config.environment(),
        "StandardOutPath": str(out_log),
        "StandardErrorPath": str(err_log),
        "RunAtLoad": False,
        "ProcessType": "Background",
    }
    if job.every_s is not None:
        agent["StartInterval"] = job.every_s
    else:
        assert job.at is not None
        agent["StartCalendarInterval"] = {"Hour": job.at[0], "Minute": job.at[1]}
    return plistlib.dumps(agent, fmt=plistlib.FMT_XML, sort_keys=True)


def _systemd_escape(value: str) -> str:
    """Escape specifiers (``%`` → ``%%``, systemd.unit(5)) in a value that takes the rest of the line."""
    return value.replace("%", "%%")


def _systemd_word(value: str, *, command: bool = False) -> str:
    """One word of ``ExecStart=``/``Environment=`` (systemd.syntax(7) quoting; ``$`` → ``$$`` in commands)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    if command:
        escaped = escaped.replace("$", "$$")
    needs_quotes = escaped != value or not value or any(ch.isspace() or ch in "'\";" for ch in value)
    return f'"{escaped}"' if needs_quotes else escaped


_DESCRIPTIONS = {
    "sleep": "memctl sleep: validate and promote staged memories, consolidate, rebuild",
    "ingest": "memctl ingest: OpenCode history to distilled notes and graph memory",
}


def render_service(config: ScheduleConfig, job: Job) -> str:
    """``memctl-<job>.service`` (systemd.service(5), ``Type=oneshot``; logs appended under ``<home>/logs``)."""
    out_log, err_log = config.log_paths(job)
    env = " ".join(_systemd_word(f"{k}={v}") for k, v in config.environment().items())
    return "\n".join([
        "# Written by `memctl schedule install`; remove with `memctl schedule uninstall`.",
        "[Unit]",
        f"Description={_DESCRIPTIONS[job.name]}",
        "",
        "[Service]",
        "Type=oneshot",
        f"WorkingDirectory={_systemd_escape(str(config.home))}",
        f"Environment={env}",
        f"ExecStart={' '.join(_systemd_word(arg, command=True) for arg in config.argv(job))}",
        f"StandardOutput=append:{_systemd_escape(str(out_log))}",
        f"StandardError=append:{_systemd_escape(str(err_log))}",
        "Nice=10",
        "",
    ])


def render_timer(config: ScheduleConfig, job: Job) -> str:
    """``memctl-<job>.timer`` (systemd.timer(5)): ``OnCalendar=`` lines and ``Persistent=true``."""
    if job.every_s is not None:
        calendar = calendar_times(job.every_s)
    else:
        assert job.at is not None
        calendar = [f"*-*-* {job.at[0]:02d}:{job.at[1]:02d}:00"]
    return "\n".join([
        "# Written by `memctl schedule install`; remove with `memctl schedule uninstall`.",
        "[Unit]",
        f"Description=Run {job.unit}.service {job.when}",
        "",
        "[Timer]",
        *(f"OnCalendar={line}" for line in calendar),
        "# A run missed while the machine was off or asleep happens at the next start (OnCalendar only).",
        "Persistent=true",
        f"Unit={job.unit}.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ])


# ---------------------------------------------------------------------------
# Plans: what install / uninstall write, remove and run
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """One service-manager call. ``tolerate_failure``: a non-zero exit is expected (e.g. "not loaded")."""

    argv: tuple[str, ...]
    tolerate_failure: bool = False

    def __str__(self) -> str:
        return " ".join(self.argv) + ("   (may fail: not loaded)" if self.tolerate_failure else "")


@dataclass(frozen=True)
class SchedulePlan:
    """The steps of an install or uninstall, in order: ``before``, file writes/removals, ``after``.

    Attributes:
        platform: ``launchd`` or ``systemd``.
        writes: ``(path, content)`` pairs written atomically.
        removes: paths deleted if present.
        before: commands run before touching files (e.g. ``launchctl bootout``).
        after: commands run after (e.g. ``launchctl bootstrap``, ``systemctl --user enable --now``).
        log_dir: created before loading (launchd and systemd open log files, not directories).
    """

    platform: str
    writes: tuple[tuple[Path, bytes], ...] = ()
    removes: tuple[Path, ...] = ()
    before: tuple[Command, ...] = ()
    after: tuple[Command, ...] = ()
    log_dir: Path | None = None

    def describe(self) -> str:
        """What the plan would do, for ``--dry-run``: every file's full content and every command."""
        lines: list[str] = []
        for command in self.before:
            lines.append(f"would run: {command}")
        if self.log_dir is not None:
            lines.append(f"would create: {self.log_dir}/")
        for path, content in self.writes:
            lines.append(f"would write: {path}")
            lines.append(content.decode("utf-8").rstrip("\n"))
            lines.append("")
        for path in self.removes:
            lines.append(f"would remove: {path}")
        for command in self.after:
            lines.append(f"would run: {command}")
        return "\n".join(lines) + "\n"


def _gui_domain(uid: int) -> str:
    return f"gui/{uid}"


def plan_install(config: ScheduleConfig, platform: str, unit_dir: Path, uid: int) -> SchedulePlan:
    """The files and commands that install both jobs (re-installing replaces them)."""
    unit_dir = Path(unit_dir)
    if platform == "launchd":
        writes = tuple((unit_dir / f"{job.label}.plist", render_plist(config, job)) for job in config.jobs)
        before = tuple(Command(("launchctl", "bootout", f"{_gui_domain(uid)}/{job.label}"), tolerate_failure=True)
                       for job in config.jobs)
        after = tuple(Command(("launchctl", "bootstrap", _gui_domain(uid), str(path))) for path, _ in writes)
        return SchedulePlan(platform, writes=writes, before=before, after=after, log_dir=config.log_dir)
    writes = tuple(pair for job in config.jobs for pair in (
        (unit_dir / f"{job.unit}.service", render_service(config, job).encode("utf-8")),
        (unit_dir / f"{job.unit}.timer", render_timer(config, job).encode("utf-8")),
    ))
    after = (
        Command(("systemctl", "--user", "daemon-reload")),
        Command(("systemctl", "--user", "enable", "--now", *(f"{job.unit}.timer" for job in config.jobs))),
    )
    return SchedulePlan(platform, writes=writes, after=after, log_dir=config.log_dir)


def plan_uninstall(platform: str, unit_dir: Path, uid: int) -> SchedulePlan:
    """Unload both jobs (failures tolerated: they may not be loaded) and remove their files."""
    unit_dir = Path(unit_dir)
    jobs = [Job(name) for name in JOB_NAMES]
    if platform == "launchd":
        return SchedulePlan(
            platform,
            removes=tuple(unit_dir / f"{job.label}.plist" for job in jobs),
            before=tuple(Command(("launchctl", "bootout", f"{_gui_domain(uid)}/{job.label}"), tolerate_failure=True)
                         for job in jobs),
        )
    return SchedulePlan(
        platform,
        removes=tuple(unit_dir / f"{job.unit}.{kind}" for job in jobs for kind in ("timer", "service")),
        before=(Command(("systemctl", "--user", "disable", "--now", *(f"{job.unit}.timer" for job in jobs)),
                        tolerate_failure=True),),
        after=(Command(("systemctl", "--user", "daemon-reload")),),
    )


class CommandResult(Protocol):
    """What a runner returns (``subprocess.CompletedProcess`` fits)."""

    returncode: int
    stdout: str
    stderr: str


Runner = Callable[[Sequence[str]], CommandResult]


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


def apply_plan(plan: SchedulePlan, runner: Runner | None = None) -> None:
    """Carry out a plan: ``before`` commands, log dir, atomic writes, removals, ``after`` commands.

    ``runner`` defaults to :func:`run_command` (looked up at call time, so tests can replace it).

    Raises:
        ServiceManagerError: a command that must succeed failed (files already
            written stay, so a re-run or ``uninstall`` can clean up).
        JobFileError: a file could not be written or removed.
    """
    runner = runner or run_command
    for command in plan.before:
        _run(command, runner)
    try:
        if plan.log_dir is not None:
            plan.log_dir.mkdir(parents=True, exist_ok=True)
        for path, content in plan.writes:
            atomic_write_bytes(path, content)
        for path in plan.removes:
            path.unlink(missing_ok=True)
    except OSError as exc:
        raise JobFileError(f"cannot write the job files or the log directory: {exc}") from exc
    for command in plan.after:
        _run(command, runner)


# ---------------------------------------------------------------------------
# Status
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class JobStatus:
    """One job's state.

    Attributes:
        name: ``sleep`` or ``ingest``.
        files: the job's files (plist, or service + timer).
        installed: all of them exist.
        loaded: the service manager knows the job (None: could not ask).
        details: what the service manager reports (launchd ``state``,
            ``runs``, ``last exit code``; systemd timer ``ActiveState``,
            ``NextElapseUSecRealtime``, ``LastTriggerUSec`` and the service's
            ``Result``).
        logs: the job's log files.
    """

    name: str
    files: tuple[Path, ...]
    installed: bool
    loaded: bool | None
    details: dict[str, str]
    logs: tuple[Path, ...]

    def as_dict(self) -> dict:
        return {"name": self.name, "files": [str(p) for p in self.files], "installed": self.installed,
                "loaded": self.loaded, "details": self.details, "logs": [str(p) for p in self.logs]}


_LAUNCHCTL_FIELDS = re.compile(r"^\s*(state|runs|last exit code|pid)\s*=\s*(.+?)\s*$", re.MULTILINE)


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
        details: dict[str, str] = {}
        loaded: bool | None
        if platform == "launchd":
            files: tuple[Path, ...] = (unit_dir / f"{job.label}.plist",)
        else:
            files = (unit_dir / f"{job.unit}.service", unit_dir / f"{job.unit}.timer")
        try:
            if platform == "launchd":
                result = runner(("launchctl", "print", f"{_gui_domain(uid)}/{job.label}"))
                loaded = result.returncode == 0
                if loaded:
                    details = {k: v for k, v in _LAUNCHCTL_FIELDS.findall(result.stdout or "")}
            else:
                timer = runner(("systemctl", "--user", "show", f"{job.unit}.timer",
                                "--property=LoadState,ActiveState,NextElapseUSecRealtime,LastTriggerUSec"))
                service = runner(("systemctl", "--user", "show", f"{job.unit}.service", "--property=Result"))
                for line in ((timer.stdout or "") + "\n" + (service.stdout or "")).splitlines():
                    key, sep, value = line.partition("=")
                    if sep and value:
                        details[key.strip()] = value.strip()
                if timer.returncode != 0:  # `show` of an unknown unit succeeds (LoadState=not-found): this is the bus
                    loaded = None
                    details["error"] = ((timer.stderr or timer.stdout or "").strip().splitlines() or ["no output"])[0]
                else:
                    loaded = details.get("LoadState") == "loaded"
        except ServiceManagerError as exc:
            loaded, details = None, {"error": str(exc)}
        statuses.append(JobStatus(name=name, files=files, installed=all(p.is_file() for p in files), loaded=loaded,
                                  details=details, logs=logs))
    return statuses


# ---------------------------------------------------------------------------
# The checked-in examples (launchd/*.plist)
# ---------------------------------------------------------------------------

EXAMPLE_CONFIG = ScheduleConfig(
    program=("/Users/you/memctl/.venv/bin/memctl",),
    home=Path("/Users/you/memctl-data"),
    ollama_host="http://127.0.0.1:11434",
    search_path=":".join(dict.fromkeys(("/Users/you/memctl/.venv/bin", *FALLBACK_BIN_DIRS))),
)
"""The inputs behind ``launchd/com.memctl.*.plist`` (documentation; ``install`` fills in real paths)."""


def write_example_plists(directory: Path) -> list[Path]:
    """Re-render ``launchd/com.memctl.{sleep,ingest}.plist`` from :data:`EXAMPLE_CONFIG`."""
    paths = []
    for job in EXAMPLE_CONFIG.jobs:
        path = Path(directory) / f"{job.label}.plist"
        atomic_write_bytes(path, render_plist(EXAMPLE_CONFIG, job))
        paths.append(path)
    return paths
