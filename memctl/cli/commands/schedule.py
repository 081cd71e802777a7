"""CLI commands ``memctl schedule install|uninstall|status``. Thin: parse, call :mod:`memctl.schedule.plan`, render.

Exit codes: 0 success; 1 launchctl/systemctl missing or refused a command;
2 a bad ``--sleep-every``/``--ingest-at``/``--platform`` value or config;
7 a job file or the log directory could not be written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from memctl.exit_codes import HOME as EXIT_HOME  # noqa: E402
HOME_OPTION = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home the jobs use (default ./var, made absolute).")
PLATFORM_OPTION = typer.Option("auto", "--platform", help="auto (launchd on macOS, systemd on Linux), launchd or systemd.")
UNIT_DIR_OPTION = typer.Option(None, "--unit-dir", help="Where the job files go (default ~/Library/LaunchAgents or ~/.config/systemd/user).")

schedule_app = typer.Typer(
    help="Install, remove or inspect the scheduled jobs: sleep every 6h and a daily ingest "
         "(launchd on macOS, systemd --user on Linux).",
    no_args_is_help=True,
)


def _cli():
    from memctl.cli import app as cli  # late: cli.py imports this module at its end

    return cli


def _target(platform: str, unit_dir: Optional[Path]):
    from memctl.schedule.plan import ScheduleError, default_unit_dir, detect_platform

    try:
        resolved = detect_platform(platform)
    except ScheduleError as exc:
        _cli()._fail(str(exc), exc.exit_code)
    return resolved, (unit_dir.expanduser().absolute() if unit_dir else default_unit_dir(resolved))


def _apply(plan, dry_run: bool) -> None:
    from memctl.schedule.plan import ScheduleError, apply_plan

    cli = _cli()
    if dry_run:
        sys.stdout.write(plan.describe())
        sys.stdout.flush()
        return
    try:
        apply_plan(plan)
    except ScheduleError as exc:
        cli._fail(str(exc), exc.exit_code)
    except OSError as exc:
        cli._fail(f"cannot write the job files or the log directory: {exc}", EXIT_HOME)


@schedule_app.command("install")
def install(
    sleep_every: str = typer.Option("6h", "--sleep-every", help="Sleep interval: minutes, hours or days dividing a day (30m, 90m, 6h, 1d)."),
    ingest_at: str = typer.Option("03:00", "--ingest-at", help="Daily ingest time, HH:MM local time."),
    platform: str = PLATFORM_OPTION,
    unit_dir: Optional[Path] = UNIT_DIR_OPTION,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the files and commands; write and load nothing."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Write the sleep and ingest jobs (absolute paths, PATH with ollama, logs in <home>/logs/) and load them."""
    from memctl.config import DataHome
    from memctl.schedule.plan import (ScheduleConfig, ScheduleError, default_program, default_search_path, parse_clock,
                                 parse_interval, plan_install)

    cli = _cli()
    try:
        every = parse_interval(sleep_every)
    except ScheduleError as exc:
        cli._fail(f"--sleep-every: {exc}", exc.exit_code)
    try:
        at = parse_clock(ingest_at)
    except ScheduleError as exc:
        cli._fail(f"--ingest-at: {exc}", exc.exit_code)
    resolved, target_dir = _target(platform, unit_dir)
    settings = cli._settings(home)
    program = default_program()
    extra_env = {}
    if os.environ.get("MEMCTL_CONFIG"):
        extra_env["MEMCTL_CONFIG"] = os.path.abspath(os.path.expanduser(os.environ["MEMCTL_CONFIG"]))
    try:
        config = ScheduleConfig(program=program, home=DataHome(settings.home).root, ollama_host=settings.ollama_host,
                                search_path=default_search_path(program), sleep_every_s=every, ingest_at=at,
                                extra_env=extra_env)
    except ScheduleError as exc:
        cli._fail(str(exc), exc.exit_code)
    plan = plan_install(config, resolved, target_dir, os.getuid())
    _apply(plan, dry_run)
    if not dry_run:
        for job in config.jobs:
            cli.stdout.print(f"installed {job.name} ({job.when}) with {resolved}; logs in {config.log_dir}", highlight=False)
        if not any(os.path.exists(os.path.join(d, "ollama")) for d in config.search_path.split(":")):
            cli.console.print(f"[yellow]warning:[/] ollama is not in any directory of the jobs' PATH "
                              f"({config.search_path}); install it or add its directory", highlight=False)


@schedule_app.command("uninstall")
def uninstall(
    platform: str = PLATFORM_OPTION,
    unit_dir: Optional[Path] = UNIT_DIR_OPTION,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be unloaded and removed."),
) -> None:
    """Unload the sleep and ingest jobs and remove their files (logs stay)."""
    from memctl.schedule.plan import plan_uninstall

    resolved, target_dir = _target(platform, unit_dir)
    plan = plan_uninstall(resolved, target_dir, os.getuid())
    _apply(plan, dry_run)
    if not dry_run:
        _cli().stdout.print(f"removed the memctl jobs from {resolved} ({target_dir})", highlight=False)


@schedule_app.command("status")
def status(
    platform: str = PLATFORM_OPTION,
    unit_dir: Optional[Path] = UNIT_DIR_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Which jobs are installed and loaded, what the service manager last reported, where the logs are."""
    from memctl.config import DataHome
    from memctl.schedule.plan import job_status

    cli = _cli()
    resolved, target_dir = _target(platform, unit_dir)
    settings = cli._settings(home)
    statuses = job_status(resolved, target_dir, os.getuid(), DataHome(settings.home).root)
    if as_json:
        cli.stdout.print_json(json.dumps({"platform": resolved, "jobs": [s.as_dict() for s in statuses]}))
        return
    table = Table(title=f"memctl schedule ({resolved})")
    for column in ("job", "installed", "loaded", "details", "logs"):
        table.add_column(column, overflow="fold")
    for s in statuses:
        loaded = "?" if s.loaded is None else ("yes" if s.loaded else "no")
        details = ", ".join(f"{k}={v}" for k, v in s.details.items()) or "-"
        table.add_row(s.name, "yes" if s.installed else "no", loaded, details, str(s.logs[0].parent))
    cli.stdout.print(table)


def register(app: typer.Typer) -> None:
    """Add ``memctl schedule`` to the root app."""
    app.add_typer(schedule_app, name="schedule")
