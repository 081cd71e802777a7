"""``memctl schedule install|uninstall|status``. Thin: parse, call :mod:`memctl.schedule.plan`, render.

Exit codes: 0 success; 1 launchctl/systemctl missing or refused a command, or (systemd)
``systemctl --user`` cannot reach the user manager — checked before anything is written, and a
failed load rolls the files back;
2 a bad ``--sleep-every``/``--ingest-at``/``--platform`` value or config;
7 a job file or the log directory could not be written.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, app, console, labelled, settings_from_flags, stdout
from memctl.cli.tables import print_table
from memctl.cli.terminal import write_out
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
    from memctl.cli.path_options import not_a_file

    not_a_file("--unit-dir", unit_dir)
    return resolved, (unit_dir.expanduser().absolute() if unit_dir else default_unit_dir(resolved))


def _apply(plan, dry_run: bool) -> None:  # noqa: ANN001 - a memctl.schedule.jobs.SchedulePlan
    from memctl.schedule.plan import apply_plan

    if dry_run:
        write_out(plan.describe())
        return
    apply_plan(plan)


def _warn(lines: list[str]) -> None:
    for line in lines:
        console.print(labelled("warning:", "yellow", f" {line}"), highlight=False, soft_wrap=True)


def _reachable_user_manager():  # noqa: ANN202 - a memctl.schedule.user_manager.UserManagerState
    """The user manager's state; raises before anything is written when ``systemctl --user`` cannot reach it."""
    from memctl.schedule.plan import user_manager
    from memctl.schedule.user_manager import UserManagerUnreachableError

    state = user_manager(os.getuid())
    if not state.reachable:
        raise UserManagerUnreachableError(state.unreachable_message())
    if state.runtime_dir_set:
        console.print(f"note: XDG_RUNTIME_DIR was not set; using {state.runtime_dir_set}", highlight=False)
    return state


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
    db: Annotated[Optional[Path], typer.Option("--db", metavar="PATH", help="The OpenCode database the ingest job reads (default: OPENCODE_DB, then the opencode_db setting, else OpenCode's own).")] = None,
    home: HomeOption = None,
) -> None:
    """Write the sleep and ingest jobs (absolute paths, PATH with ollama, logs in <home>/logs/) and load them.

    The jobs run with every setting that differs from its default here (flags, MEMCTL_* and OLLAMA_HOST
    variables, MEMCTL_CONFIG, OPENCODE_DB, the opencode_db setting or --db), so a scheduled run sees the memory this shell sees."""
    from memctl.config import DataHome
    from memctl.schedule.jobs import ScheduleConfig, default_program, default_search_path, parse_clock, parse_interval
    from memctl.schedule.plan import plan_install

    every = _flag("--sleep-every", parse_interval, sleep_every)
    at = _flag("--ingest-at", parse_clock, ingest_at)
    resolved, target_dir = _target(platform, unit_dir)
    settings = settings_from_flags(home)
    DataHome(settings.home).refuse_file()
    from memctl.settings_origin import carried_environment

    program = default_program()
    extra_env = {k: v for k, v in carried_environment(settings).items() if k not in ("MEMCTL_HOME", "OLLAMA_HOST")}
    source_db = db if db is not None else settings.opencode_db  # OPENCODE_DB, MEMCTL_OPENCODE_DB or the config file
    extra_env.pop("MEMCTL_OPENCODE_DB", None)
    if source_db is not None:
        source_db = source_db.expanduser().absolute()
        if not source_db.exists():
            raise UsageError(f"--db {source_db}: no such file or directory (the ingest job would find nothing)")
        from memctl.connectors.opencode.source import SourceNotFoundError, locate_database

        try:
            locate_database(source_db)  # a directory must hold the database, as ingest requires
        except SourceNotFoundError as exc:
            raise UsageError(f"--db: {exc}") from exc
        extra_env["OPENCODE_DB"] = str(source_db)
    config = ScheduleConfig(program=program, home=DataHome(settings.home).root, ollama_host=settings.ollama_host,
                            search_path=default_search_path(program), sleep_every_s=every, ingest_at=at,
                            extra_env=extra_env)
    plan = plan_install(config, resolved, target_dir, os.getuid())
    # Check the user manager before writing anything: files it cannot load would look installed and never run.
    manager = _reachable_user_manager() if resolved == "systemd" and not dry_run else None
    _apply(plan, dry_run)
    if dry_run:
        return
    for job in config.jobs:
        stdout.print(f"installed {job.name} ({job.when}) with {resolved}; logs in {config.log_dir}", highlight=False)
    if manager is not None:
        _warn(manager.warnings())
        if manager.linger:
            stdout.print(f"lingering is on for {manager.user}: the timers run also while you are logged out",
                         highlight=False)
    if not any(os.path.exists(os.path.join(d, "ollama")) for d in config.search_path.split(":")):
        _warn([f"ollama is not in any directory of the jobs' PATH ({config.search_path}); "
               "install it or add its directory"])


@schedule_app.command("uninstall")
def uninstall(
    platform: PlatformOption = Platform.auto,
    unit_dir: UnitDirOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be unloaded and removed.")] = False,
) -> None:
    """Unload the sleep and ingest jobs and remove their files (logs stay)."""
    from memctl.schedule.plan import plan_uninstall, user_manager

    resolved, target_dir = _target(platform, unit_dir)
    plan = plan_uninstall(resolved, target_dir, os.getuid())
    manager = user_manager(os.getuid()) if resolved == "systemd" and not dry_run else None
    had_files = any(path.exists() for path in plan.removes)
    if manager is not None and not manager.reachable:
        # Nothing to unload from here: remove the files, and say what a running manager still holds.
        plan = dataclasses.replace(plan, before=(), after=())
    _apply(plan, dry_run)
    if dry_run:
        return
    if not had_files:
        stdout.print(f"no memctl jobs were installed in {resolved} ({target_dir}); nothing to remove", highlight=False)
        return
    stdout.print(f"removed the memctl jobs from {resolved} ({target_dir})", highlight=False)
    if manager is not None and not manager.reachable and had_files:
        _warn([f"systemctl --user cannot reach your user manager ({manager.problem}), so nothing was unloaded: "
               "a user manager running elsewhere keeps the timers until `systemctl --user daemon-reload` "
               "in a session of yours, or until it restarts"])


@schedule_app.command("status")
def status(
    platform: PlatformOption = Platform.auto,
    unit_dir: UnitDirOption = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Which jobs are installed and loaded, what the service manager last reported, where the logs are.

    A job is ``installed`` only when all its files are there and the service manager has loaded (and, on
    systemd, started) it; on systemd the user manager's reachability and lingering are checked too.
    """
    from memctl.config import DataHome
    from memctl.schedule.plan import job_status, user_manager

    resolved, target_dir = _target(platform, unit_dir)
    settings = settings_from_flags(home)
    statuses = job_status(resolved, target_dir, os.getuid(), DataHome(settings.home).root)
    manager = user_manager(os.getuid()) if resolved == "systemd" else None
    if as_json:
        stdout.print_json(json.dumps({"platform": resolved, "jobs": [s.as_dict() for s in statuses],
                                      "user_manager": manager.as_dict() if manager else None}))
        return
    table = Table(title=f"memctl schedule ({resolved})")
    for column in ("job", "state", "loaded", "details", "logs"):
        table.add_column(column, overflow="fold")
    for s in statuses:
        loaded = "?" if s.loaded is None else ("yes" if s.loaded else "no")
        details = ", ".join(f"{k}={v}" for k, v in s.details.items()) or "-"
        table.add_row(s.name, s.state, loaded, details, str(s.logs[0].parent))
    print_table(stdout, table, whole=("job", "logs"))
    for s in statuses:
        if s.next_step and s.state != "absent":
            console.print(f"{s.name}: {s.next_step}", highlight=False, soft_wrap=True)
    if all(s.state == "absent" for s in statuses):
        console.print("no jobs installed: memctl schedule install", highlight=False)
    if manager is not None and any(s.state != "absent" for s in statuses):
        _warn(manager.warnings())
