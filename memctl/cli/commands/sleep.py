"""CLI command of the sleep cycle: ``memctl sleep``. Thin: parse, call :mod:`memctl.sleep.run`, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from memctl.exit_codes import HOME as EXIT_HOME, INTERRUPTED as EXIT_INTERRUPTED  # noqa: E402


def _cli():
    from memctl.cli import app as cli  # late: cli.py imports this module at its end

    return cli


def sleep(
    concurrency: Optional[int] = typer.Option(None, "--concurrency", min=1, max=32, help="Parallel consolidations and topic rebuilds (default 3; config sleep_concurrency)."),
    wait: bool = typer.Option(False, "--wait", help="If an ingest or another sleep holds the data home, wait instead of exiting 6."),
    no_rebuild: bool = typer.Option(False, "--no-rebuild", help="Skip the Cognee rebuild (changed topics stay pending for the next run)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
    home: Optional[Path] = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var)."),
) -> None:
    """Validate and promote proposals → cluster → consolidate → rebuild changed topics. Reports to var/reports/."""
    cli = _cli()
    settings = cli._settings(home)  # before importing the ollama client: it reads OLLAMA_HOST at import
    from memctl.sleep.run import SleepError, SleepOptions, SleepRun
    from memctl.store import AuditIntegrityError, StoreError

    reporter = cli.RichReporter() if cli.console.is_terminal and not as_json else cli.LineReporter()
    try:
        summary = SleepRun(settings, SleepOptions(concurrency=concurrency, wait=wait, rebuild=not no_rebuild),
                           reporter).run()
    except SleepError as exc:
        reporter.done()
        cli._fail(str(exc), exc.exit_code)
    except AuditIntegrityError as exc:
        reporter.done()
        cli._fail(str(exc), 10)
    except (StoreError, OSError) as exc:
        reporter.done()
        cli._fail(f"sleep stopped: {exc}", EXIT_HOME)
    except KeyboardInterrupt:
        reporter.done()
        cli._fail("interrupted; what finished is recorded and cached, re-run to continue", EXIT_INTERRUPTED)
    data = summary.as_dict()
    if as_json:
        cli.stdout.print_json(json.dumps(data))
    else:
        table = Table(title="memctl sleep", show_header=False)
        table.add_column("", style="bold")
        table.add_column("", justify="right")
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(data["rejected_reasons"].items()))
        for key, value in (
            ("proposals", data["proposals"]),
            ("promoted", data["promoted"]),
            ("rejected", f"{data['rejected']}" + (f" ({reasons})" if reasons else "")),
            ("clusters found / consolidated", f"{data['clusters_found']} / {data['clusters_consolidated']}"),
            ("memories merged", data["memories_merged"]),
            ("model calls / cache hits", f"{data['model_calls']} / {data['cache_hits']}"),
            ("topics rebuilt", ", ".join(data["topics_rebuilt"]) or "-"),
            ("topics failed", ", ".join(data["topics_failed"]) or "-"),
            ("wall time", f"{data['wall_s']:.1f} s"),
            ("report", data["report_html"]),
        ):
            table.add_row(key, str(value))
        cli.stdout.print(table)
        for error in data["errors"][:10]:
            cli.console.print(f"[yellow]error:[/] {error}", highlight=False)
        for topic, error in data["topics_failed"].items():
            cli.console.print(f"[yellow]topic {topic}:[/] {error}", highlight=False)
        if data["model_unavailable"]:
            cli.console.print(f"[red]consolidation skipped:[/] {data['model_unavailable']}", highlight=False)
    raise typer.Exit(summary.exit_code)


def unmerge(
    path: str = typer.Argument(..., help="A consolidated memory, user/…/consolidated-<key>.md."),
    reason: str = typer.Option("manual unmerge", "--reason", help="Recorded in the audit log."),
    home: Optional[Path] = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var)."),
) -> None:
    """Undo a merge: restore its members, delete the merged memory, never merge exactly those again."""
    cli = _cli()
    settings = cli._settings(home)
    from memctl.sleep.run import SleepError
    from memctl.sleep.run import unmerge as run_unmerge
    from memctl.store import StoreError

    try:
        restored = run_unmerge(settings, path, reason=reason)
    except SleepError as exc:
        cli._fail(str(exc), exc.exit_code)
    except StoreError as exc:
        cli._fail(str(exc), 2)
    cli.stdout.print(f"restored {len(restored)} memories ({', '.join(restored)}); {path} deleted (audited); "
                     "the next sleep rebuilds the topic")


def register(app: typer.Typer) -> None:
    """Add ``sleep`` and ``unmerge`` to the root ``memctl`` app."""
    app.command()(sleep)
    app.command()(unmerge)
