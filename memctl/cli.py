"""memctl command line (Typer + Rich). Thin: parse, call the core, render, exit.

Heavy imports (Cognee takes seconds) happen inside the commands that need them,
so `memctl --help` stays fast.

Exit codes (scripts may rely on them; also in README):
    0  success
    1  some sessions failed to distill (recorded as ``error``; retried next run)
    2  usage error or refused option (bad flag value, --reparse-all into used datasets)
    3  source error: OpenCode DB missing, unreadable, locked or unsupported layout
    4  add phase failed (Cognee add)
    5  cognify phase failed
    6  another memctl run holds the data home's lock
    7  data home problem (corrupt checkpoint, not writable)
    8  doctor found a failing check
    9  the model server is unusable: Ollama unreachable or the distill model missing
   10  the store's audit log or a version blob failed verification (tampered or damaged)
   11  the store file changed concurrently (stale expected sha) or its lock stayed busy
   12  ask: nothing has been ingested yet
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from memctl.config import Settings

from memctl.exit_codes import DOCTOR as EXIT_DOCTOR, HOME as EXIT_HOME, INTERRUPTED as EXIT_INTERRUPTED  # noqa: E402
from memctl.exit_codes import OK as EXIT_OK, USAGE as EXIT_USAGE  # noqa: E402

app = typer.Typer(
    name="memctl",
    help="Local-first memory for coding agents: OpenCode history → distilled notes → Cognee graph memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
stdout = Console()


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        stdout.print(f"memctl {version('memctl')}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Local-first memory for coding agents: OpenCode history → distilled notes → Cognee graph memory."""


def _settings(home: Optional[Path], **overrides) -> Settings:
    from pydantic import ValidationError

    from memctl.config import config_file_path

    source = config_file_path()
    if os.environ.get("MEMCTL_CONFIG") and not source.is_file():
        _fail(f"MEMCTL_CONFIG points at {source}, which is not a file", EXIT_USAGE)
    update = {k: v for k, v in overrides.items() if v is not None}
    if home is not None:
        update["home"] = home
    try:
        # Validate flags together with the file and environment (model_copy would skip validation).
        return Settings(**update)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        _fail(f"invalid configuration (flags, MEMCTL_* environment, {source}): {problems}", EXIT_USAGE)
    except ValueError as exc:  # TOML syntax errors
        _fail(f"cannot read the config file {source}: {exc}", EXIT_USAGE)
    raise AssertionError("unreachable")


def _fail(message: str, code: int) -> None:
    console.print(f"[red]error:[/] {message}", soft_wrap=True, markup=True, highlight=False)
    raise typer.Exit(code)


class LineReporter:
    """Plain log lines on stderr (non-TTY: cron, launchd, CI)."""

    def __init__(self) -> None:
        self.name, self.total, self.count, self.step = "", None, 0, 1

    def phase(self, name: str, total: int | None) -> None:
        self.name, self.total, self.count = name, total, 0
        self.step = max(1, (total or 0) // 20)
        print(f"memctl: phase {name} started" + (f" ({total} items)" if total is not None else ""), file=sys.stderr, flush=True)

    def advance(self, n: int = 1) -> None:
        self.count += n
        if self.count % self.step == 0 or (self.total and self.count >= self.total):
            print(f"memctl: {self.name} {self.count}/{self.total if self.total is not None else '?'}", file=sys.stderr, flush=True)

    def log(self, message: str) -> None:
        print(f"memctl: {message}", file=sys.stderr, flush=True)

    def done(self) -> None:
        pass


class RichReporter:
    """A Rich progress bar per phase: done/total, sessions per hour, ETA."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        class RateColumn(TextColumn):
            def render(self, task):  # items per hour reads better than per second for LLM work
                speed = task.finished_speed or task.speed
                return TextColumn.render(self, task) if speed is None else f"{speed * 3600:,.0f}/h"

        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            RateColumn(""), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console, transient=False,
        )
        self.task = None
        self.progress.start()

    def phase(self, name: str, total: int | None) -> None:
        if self.task is not None:
            self.progress.stop_task(self.task)
        self.task = self.progress.add_task(name, total=total)

    def advance(self, n: int = 1) -> None:
        if self.task is not None:
            self.progress.advance(self.task, n)

    def log(self, message: str) -> None:
        self.progress.console.print(message)

    def done(self) -> None:
        self.progress.stop()


def _summary_table(data: dict) -> Table:
    table = Table(title="memctl ingest" + (" (dry run)" if data["dry_run"] else ""), show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    rows = [
        ("sessions found", data["found"]),
        ("already done", data["already_done"]),
        ("deferred (still active)", data["deferred_active"]),
        ("skipped by threshold", data["skipped_threshold"]),
    ]
    if data["dry_run"]:
        rows += [("would distill", data["would_distill"]), ("estimated input tokens", f"{data['estimated_input_tokens']:,}")]
    else:
        rows += [
            ("skipped as JUNK", data["skipped_junk"]),
            ("distilled", f"{data['distilled']} ({data['recovered']} recovered)" if data["recovered"] else data["distilled"]),
            ("errors", data["errors"]),
            ("published to memory/ (new or changed / removed)",
             f"{data['notes_published']} / {data['notes_unpublished']}"),
            ("notes added (new / offered)", f"{data['notes_added']} / {data['notes_submitted']}"),
            ("datasets", ", ".join(data["datasets"]) or "-"),
            ("add", data["add_status"]),
            ("cognify", data["cognify_status"]),
        ]
    if data["redactions"]:
        rows.append(("secrets redacted", ", ".join(f"{k} {v}" for k, v in data["redactions"].items())))
    if data["read_warnings"]:
        rows.append(("source rows skipped", ", ".join(f"{k} {v}" for k, v in data["read_warnings"].items())))
    if data["left_out"]:
        rows.append(("left out (undone / pruned)", ", ".join(f"{k} {v}" for k, v in data["left_out"].items())))
    if data["orphaned_sessions"]:
        rows.append(("orphaned subagent sessions", data["orphaned_sessions"]))
    rows.append(("wall time", f"{data['wall_s']:.1f} s"))
    if not data["dry_run"]:
        rows.append(("sessions/hour", f"{data['sessions_per_hour']:,.0f}"))
    for key, value in rows:
        table.add_row(key, str(value))
    return table


def _plan_table(plan: list[dict]) -> Table:
    table = Table(title="plan")
    for column in ("session", "topic", "title", "action", "why", "~tokens"):
        table.add_column(column, overflow="fold")
    for item in plan:
        table.add_row(item["source_id"], item["topic"], item["title"][:60], item["action"], item["why"],
                      str(item["estimated_tokens"] or ""))
    return table


@app.command()
def ingest(
    db: Optional[Path] = typer.Option(None, "--db", help="OpenCode database file, or the directory holding opencode.db / opencode-dev.db (default: $OPENCODE_DB, then $XDG_DATA_HOME/opencode/opencode.db, then ~/.local/share/opencode/opencode.db)."),
    home: Optional[Path] = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var)."),
    phase: str = typer.Option("all", "--phase", help="distill | add | cognify | all"),
    dry_run: bool = typer.Option(False, "--dry-run", help="Read, normalize, scrub, sample and plan; no model, nothing written."),
    since: Optional[str] = typer.Option(None, "--since", help="Only sessions updated since a date (2026-11-01) or age (7d, 12h)."),
    session: list[str] = typer.Option([], "--session", help="Only this session id (repeatable); a subagent id selects its parent."),
    project: Optional[str] = typer.Option(None, "--project", help="Only this project: topic slug, project id, worktree path or its name."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="At most N top-level sessions."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, max=64, help="Concurrent model calls (default from config: 2)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", min=1, help="Notes per Cognee add batch."),
    chunks_per_batch: Optional[int] = typer.Option(None, "--chunks-per-batch", min=1, help="Cognify chunk concurrency."),
    data_per_batch: Optional[int] = typer.Option(None, "--data-per-batch", min=1, help="Cognify document concurrency."),
    reparse_skipped: bool = typer.Option(False, "--reparse-skipped", help="Re-evaluate sessions skipped earlier."),
    reparse_all: bool = typer.Option(False, "--reparse-all", help="Re-distill everything (only into new or empty datasets)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
    wait: bool = typer.Option(False, "--wait", help="If a sleep or another ingest holds the data home, wait for it instead of exiting 6."),
) -> None:
    """Read OpenCode history → distill notes → add to Cognee → cognify. Resumable."""
    from connectors.opencode import resolve_db_path
    from memctl.ingest import PHASES, IngestError, IngestOptions, IngestRun, parse_since
    from memctl.progress import CheckpointError

    if phase not in PHASES:
        _fail(f"--phase must be one of {', '.join(PHASES)} (got {phase!r})", EXIT_USAGE)
    try:
        since_dt = parse_since(since) if since else None
    except ValueError as exc:
        _fail(str(exc), EXIT_USAGE)
    settings = _settings(home, workers=workers, batch_size=batch_size, chunks_per_batch=chunks_per_batch, data_per_batch=data_per_batch)
    options = IngestOptions(
        db=resolve_db_path(db), phase=phase, dry_run=dry_run, since=since_dt, session_ids=tuple(session),
        project=project, limit=limit, reparse_skipped=reparse_skipped, reparse_all=reparse_all, wait=wait,
    )
    reporter = RichReporter() if console.is_terminal and not as_json else LineReporter()
    try:
        summary = IngestRun(settings, options, reporter).run()
    except IngestError as exc:
        reporter.done()
        _fail(str(exc), exc.exit_code)
    except CheckpointError as exc:
        reporter.done()
        _fail(str(exc), EXIT_HOME)
    except OSError as exc:  # home is a file, not writable, disk full, …
        reporter.done()
        _fail(f"cannot use the data home {settings.home}: {exc}", EXIT_HOME)
    except KeyboardInterrupt:
        reporter.done()
        _fail("interrupted; finished sessions are recorded, re-run to continue", EXIT_INTERRUPTED)
    data = summary.as_dict()
    if as_json:
        stdout.print_json(json.dumps(data))
    else:
        if dry_run and data["plan"]:
            stdout.print(_plan_table(data["plan"]))
            if data["plan_omitted"]:
                stdout.print(f"… {data['plan_omitted']} more sessions not listed (counts below include them)")
        stdout.print(_summary_table(data))
        if data["found"] == 0 and phase in ("all", "distill") and (since or session or project or limit):
            console.print("[yellow]no session matched the filters[/] (--since/--session/--project); "
                          "`memctl ingest --dry-run` without them lists what is there")
        for err in data["error_details"][:10]:
            console.print(f"[yellow]session {err['source_id']}[/]: {err['error']}")
    raise typer.Exit(summary.exit_code)


@app.command()
def doctor(
    db: Optional[Path] = typer.Option(None, "--db", help="OpenCode database to check."),
    home: Optional[Path] = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var)."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
) -> None:
    """Check Ollama, models, embedding dimensions, the OpenCode DB, the data home and disk — with fixes."""
    from connectors.opencode import resolve_db_path
    from memctl.doctor import run_checks

    settings = _settings(home)
    checks = run_checks(settings, resolve_db_path(db))
    if as_json:
        stdout.print_json(json.dumps([c.as_dict() for c in checks]))
    else:
        table = Table(title="memctl doctor")
        for column in ("check", "status", "detail", "fix"):
            table.add_column(column, overflow="fold")
        style = {"ok": "green", "warn": "yellow", "fail": "red"}
        for c in checks:
            table.add_row(c.name, f"[{style[c.status]}]{c.status}[/]", c.detail, c.fix or "")
        stdout.print(table)
    raise typer.Exit(EXIT_DOCTOR if any(c.status == "fail" for c in checks) else EXIT_OK)


from memctl import cli_store  # noqa: E402 - registers audit/history/show/rollback; needs the names above

cli_store.register(app)
from memctl import cli_wake  # noqa: E402 - registers ask/remember

cli_wake.register(app)
from memctl import cli_sleep  # noqa: E402 - registers sleep

cli_sleep.register(app)
from memctl import cli_schedule  # noqa: E402 - registers schedule install/uninstall/status

cli_schedule.register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
