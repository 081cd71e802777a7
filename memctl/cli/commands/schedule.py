"""``memctl schedule install|uninstall|status``. Thin: parse, call :mod:`memctl.schedule.plan`, render.

Exit codes: 0 success; 1 launchctl/systemctl missing or refused a command;
2 a bad ``--sleep-every``/``--ingest-at``/``--platform`` value or config;
7 a job file or the log directory could not be written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, app, console, settings_from_flags, stdout
from memctl.exit_codes import UsageError
from memctl.schedule.jobs import Platform

PlatformOption = Annotated[Platform, typer.Option("--platform", help="auto: launchd on macOS, systemd on Linux.")]
UnitDirOption = Annotated[Optional[Path], typer.Option(
    "--unit-dir", metavar="DIR", help="Where the job files go (default ~/Library/LaunchAgents or ~/.config/systemd/user).")]

schedule_app = typer.Typer(
    help="Install, remove or inspect the scheduled jobs: sleep every 6h and a daily ingest "
         "(launchd on macOS, systemd --user on Linux).",
    no_args_is_help=True,
)
app.add_typer(schedule_app, name="schedule")


def _target(platform: Platform, unit_dir: Optional[Path]) -> tuple[str, Path]:
    from memctl.schedule.jobs import default_unit_dir, detect_platform

    resolved = detect_platform(platform.value)
    return resolved, (unit_dir.expanduser().absolute() if unit_dir else default_unit_dir(resolved))


def _apply(plan, dry_run: bool) -> None:  # noqa: ANN001 - a memctl.schedule.jobs.SchedulePlan
    from memctl.schedule.plan import apply_plan

    if dry_run:
        sys.stdout.write(plan.describe())
        sys.stdout.flush()
        return
    apply_plan(plan)


def _flag(name: str, parse, text: str):  # noqa: ANN001, ANN202
    """``parse(text)``, its error message prefixed with the flag that was given."""
    from memctl.schedule.jobs import ScheduleError

    try:
        return parse(text)
    except ScheduleError as exc:
        raise UsageError(f"{name}: {exc}") from exc


@schedule_app.command("install")
def install(
    sleep_every: Annotated[str, typer.Option("--sleep-every", metavar="INTERVAL", help="Sleep interval: minutes, hours or days dividing a day (30m, 90m, 6h, 1d).")] = "6h",
    ingest_at: Annotated[str, typer.Option("--ingest-at", metavar="HH:MM", help="Daily ingest time, HH:MM local time.")] = "03:00",
    platform: PlatformOption = Platform.auto,
    unit_dir: UnitDirOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the files and commands; write and load nothing.")] = False,
    home: HomeOption = None,
) -> None:
    """Write the sleep and ingest jobs (absolute paths, PATH with ollama, logs in <home>/logs/) and load them."""
    from memctl.config import DataHome
    from memctl.schedule.jobs import ScheduleConfig, default_program, default_search_path, parse_clock, parse_interval
    from memctl.schedule.plan import plan_install

    every = _flag("--sleep-every", parse_interval, sleep_every)
    at = _flag("--ingest-at", parse_clock, ingest_at)
    resolved, target_dir = _target(platform, unit_dir)
    settings = settings_from_flags(home)
    program = default_program()
    extra_env = {}
    if os.environ.get("MEMCTL_CONFIG"):
        extra_env["MEMCTL_CONFIG"] = os.path.abspath(os.path.expanduser(os.environ["MEMCTL_CONFIG"]))
    config = ScheduleConfig(program=program, home=DataHome(settings.home).root, ollama_host=settings.ollama_host,
                            search_path=default_search_path(program), sleep_every_s=every, ingest_at=at,
                            extra_env=extra_env)
    plan = plan_install(config, resolved, target_dir, os.getuid())
    _apply(plan, dry_run)
    if not dry_run:
        for job in config.jobs:
            stdout.print(f"installed {job.name} ({job.when}) with {resolved}; logs in {config.log_dir}", highlight=False)
        if not any(os.path.exists(os.path.join(d, "ollama")) for d in config.search_path.split(":")):
            console.print(f"[yellow]warning:[/] ollama is not in any directory of the jobs' PATH "
                          f"({config.search_path}); install it or add its directory", highlight=False)


@schedule_app.command("uninstall")
def uninstall(
    platform: PlatformOption = Platform.auto,
    unit_dir: UnitDirOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be unloaded and removed.")] = False,
) -> None:
    """Unload the sleep and ingest jobs and remove their files (logs stay)."""
    from memctl.schedule.plan import plan_uninstall

    resolved, target_dir = _target(platform, unit_dir)
    plan = plan_uninstall(resolved, target_dir, os.getuid())
    _apply(plan, dry_run)
    if not dry_run:
        stdout.print(f"removed the memctl jobs from {resolved} ({target_dir})", highlight=False)


@schedule_app.command("status")
def status(
    platform: PlatformOption = Platform.auto,
    unit_dir: UnitDirOption = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Which jobs are installed and loaded, what the service manager last reported, where the logs are."""
    from memctl.config import DataHome
    from memctl.schedule.plan import job_status

    resolved, target_dir = _target(platform, unit_dir)
    settings = settings_from_flags(home)
    statuses = job_status(resolved, target_dir, os.getuid(), DataHome(settings.home).root)
    if as_json:
        stdout.print_json(json.dumps({"platform": resolved, "jobs": [s.as_dict() for s in statuses]}))
        return
    table = Table(title=f"memctl schedule ({resolved})")
    for column in ("job", "installed", "loaded", "details", "logs"):
        table.add_column(column, overflow="fold")
    for s in statuses:
        loaded = "?" if s.loaded is None else ("yes" if s.loaded else "no")
        details = ", ".join(f"{k}={v}" for k, v in s.details.items()) or "-"
        table.add_row(s.name, "yes" if s.installed else "no", loaded, details, str(s.logs[0].parent))
    stdout.print(table)
