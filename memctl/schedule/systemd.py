"""systemd --user (Linux): ``memctl-<job>.service`` (``Type=oneshot``) and ``memctl-<job>.timer``.

systemd.service(5), systemd.timer(5): the units go to ``~/.config/systemd/user``,
then ``systemctl --user daemon-reload`` and ``enable --now`` of the timers.
Both timers use ``OnCalendar=`` because ``Persistent=true`` (a run missed
while the user manager was not running happens once when it starts again)
only applies to calendar timers: every 6 h is ``*-*-* 00/6:00:00``, daily at
03:00 is ``*-*-* 03:00:00``. That is why an interval must divide a day. The
user manager runs while the user is logged in, or from boot with lingering
(:mod:`memctl.schedule.user_manager`).
"""

from __future__ import annotations

from pathlib import Path

from memctl.schedule.jobs import (
    DAY_S,
    MAX_CALENDAR_LINES,
    Command,
    CommandResult,
    Job,
    ScheduleConfig,
    ScheduleInputError,
    SchedulePlan,
    format_interval,
)


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
        "# A run missed while your user manager was not running (machine off, or logged out without",
        "# lingering: loginctl enable-linger) happens once when it starts again (OnCalendar only).",
        "Persistent=true",
        f"Unit={job.unit}.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ])



def _disable(jobs) -> Command:  # noqa: ANN001 - Job objects
    return Command(("systemctl", "--user", "disable", "--now", *(f"{job.unit}.timer" for job in jobs)),
                   tolerate_failure=True)


DAEMON_RELOAD = ("systemctl", "--user", "daemon-reload")


def install_plan(config: ScheduleConfig, unit_dir: Path) -> SchedulePlan:
    """Write both jobs' service and timer, reload systemd, enable and start the timers.

    If reloading or enabling fails, the timers are disabled again (``undo``)
    and, once the new files are removed, systemd reloads (``reload``).
    """
    writes = tuple(pair for job in config.jobs for pair in (
        (unit_dir / f"{job.unit}.service", render_service(config, job).encode("utf-8")),
        (unit_dir / f"{job.unit}.timer", render_timer(config, job).encode("utf-8")),
    ))
    after = (
        Command(DAEMON_RELOAD),
        Command(("systemctl", "--user", "enable", "--now", *(f"{job.unit}.timer" for job in config.jobs))),
    )
    return SchedulePlan("systemd", writes=writes, after=after, log_dir=config.log_dir,
                        undo=(_disable(config.jobs),), reload=(Command(DAEMON_RELOAD, tolerate_failure=True),))


def uninstall_plan(jobs: list[Job], unit_dir: Path) -> SchedulePlan:
    """Disable and stop the timers (failures tolerated), remove the units and their ``timers.target.wants``
    links (``enable`` made them; ``disable`` removes them only when it reaches the manager), reload systemd."""
    return SchedulePlan(
        "systemd",
        removes=tuple(unit_dir / f"{job.unit}.{kind}" for job in jobs for kind in ("timer", "service"))
        + tuple(unit_dir / "timers.target.wants" / f"{job.unit}.timer" for job in jobs),
        before=(_disable(jobs),),
        after=(Command(DAEMON_RELOAD),),
    )


def job_files(job: Job, unit_dir: Path) -> tuple[Path, ...]:
    """The job's service and timer."""
    return unit_dir / f"{job.unit}.service", unit_dir / f"{job.unit}.timer"


def read_status(job: Job, run) -> tuple[bool | None, dict[str, str]]:  # noqa: ANN001 - a plan.Runner
    """``(loaded, details)`` from ``systemctl --user show`` of the timer and the service."""
    timer: CommandResult = run(("systemctl", "--user", "show", f"{job.unit}.timer",
                                "--property=LoadState,ActiveState,NextElapseUSecRealtime,LastTriggerUSec"))
    service: CommandResult = run(("systemctl", "--user", "show", f"{job.unit}.service", "--property=Result"))
    details: dict[str, str] = {}
    for line in ((timer.stdout or "") + "\n" + (service.stdout or "")).splitlines():
        key, sep, value = line.partition("=")
        if sep and value:
            details[key.strip()] = value.strip()
    if timer.returncode != 0:  # `show` of an unknown unit succeeds (LoadState=not-found): this is the bus
        details["error"] = ((timer.stderr or timer.stdout or "").strip().splitlines() or ["no output"])[0]
        return None, details
    return details.get("LoadState") == "loaded", details
