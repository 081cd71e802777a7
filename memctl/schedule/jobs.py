"""What the scheduled jobs are: their inputs, the values users type for them, and a plan's shape.

Shared by :mod:`memctl.schedule.launchd`, :mod:`memctl.schedule.systemd` and
:mod:`memctl.schedule.plan`. An interval must divide a day (30m, 90m, 6h, 1d,
…) on both platforms, so ``--sleep-every`` means the same clock times
everywhere (systemd's calendar timers need it; see :mod:`memctl.schedule.systemd`).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Protocol

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
# A plan: what install / uninstall write, remove and run
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
        undo: when an ``after`` command fails, run (failures tolerated) before the
            written files are put back as they were (e.g. unload what did load).
        reload: then, when the files were new and are now removed, run (failures
            tolerated) so the service manager forgets them (``daemon-reload``).
            Files that replaced earlier ones are put back and loaded with ``after``.
    """

    platform: str
    writes: tuple[tuple[Path, bytes], ...] = ()
    removes: tuple[Path, ...] = ()
    before: tuple[Command, ...] = ()
    after: tuple[Command, ...] = ()
    log_dir: Path | None = None
    undo: tuple[Command, ...] = ()
    reload: tuple[Command, ...] = ()

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


class CommandResult(Protocol):
    """What a runner returns (``subprocess.CompletedProcess`` fits)."""

    returncode: int
    stdout: str
    stderr: str


Runner = Callable[[Sequence[str]], CommandResult]
