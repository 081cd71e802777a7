"""launchd (macOS): one agent per job in ``~/Library/LaunchAgents``, loaded with ``launchctl bootstrap``.

launchd.plist(5): ``com.memctl.sleep.plist`` and ``com.memctl.ingest.plist``
with ``ProgramArguments``, ``WorkingDirectory`` (the data home),
``EnvironmentVariables`` (``PATH`` including the directory of ``ollama``,
``MEMCTL_HOME``, ``OLLAMA_HOST``), ``StartInterval`` (sleep) or
``StartCalendarInterval`` (ingest; launchd runs a calendar job missed while
the Mac slept at wake) and ``StandardOutPath``/``StandardErrorPath`` under
``<home>/logs/``; loaded with ``launchctl bootstrap gui/<uid> <plist>``
(launchctl(1)). The plists are rendered here with :mod:`plistlib` — the one
source of truth; ``launchd/*.plist`` in the repository are these renderings
for example paths (a test keeps them identical).
"""

from __future__ import annotations

import plistlib
import re
from pathlib import Path

from memctl.atomic import atomic_write_bytes
from memctl.schedule.jobs import FALLBACK_BIN_DIRS, Command, CommandResult, Job, ScheduleConfig, SchedulePlan


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



def gui_domain(uid: int) -> str:
    """The launchd domain of the user's GUI session, ``gui/<uid>``."""
    return f"gui/{uid}"


def install_plan(config: ScheduleConfig, unit_dir: Path, uid: int) -> SchedulePlan:
    """Write both agents, unloading a previous install first (that may fail: not loaded), then load them.

    If loading fails, the agents that did load are booted out again (``undo``).
    """
    writes = tuple((unit_dir / f"{job.label}.plist", render_plist(config, job)) for job in config.jobs)
    before = tuple(Command(("launchctl", "bootout", f"{gui_domain(uid)}/{job.label}"), tolerate_failure=True)
                   for job in config.jobs)
    after = tuple(Command(("launchctl", "bootstrap", gui_domain(uid), str(path))) for path, _ in writes)
    return SchedulePlan("launchd", writes=writes, before=before, after=after, log_dir=config.log_dir, undo=before)


def uninstall_plan(jobs: list[Job], unit_dir: Path, uid: int) -> SchedulePlan:
    """Unload the agents (failures tolerated) and remove their files."""
    return SchedulePlan(
        "launchd",
        removes=tuple(unit_dir / f"{job.label}.plist" for job in jobs),
        before=tuple(Command(("launchctl", "bootout", f"{gui_domain(uid)}/{job.label}"), tolerate_failure=True)
                     for job in jobs),
    )


def job_files(job: Job, unit_dir: Path) -> tuple[Path, ...]:
    """The agent's plist."""
    return (unit_dir / f"{job.label}.plist",)


_LAUNCHCTL_FIELDS = re.compile(r"^\s*(state|runs|last exit code|pid)\s*=\s*(.+?)\s*$", re.MULTILINE)


def read_status(job: Job, uid: int, run) -> tuple[bool | None, dict[str, str]]:  # noqa: ANN001 - a plan.Runner
    """``(loaded, details)`` from ``launchctl print`` (``state``, ``runs``, ``last exit code``, ``pid``)."""
    result: CommandResult = run(("launchctl", "print", f"{gui_domain(uid)}/{job.label}"))
    loaded = result.returncode == 0
    return loaded, (dict(_LAUNCHCTL_FIELDS.findall(result.stdout or "")) if loaded else {})


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
