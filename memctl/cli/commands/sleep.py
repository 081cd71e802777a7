"""``memctl sleep``: the sleep cycle. Thin: parse, call :mod:`memctl.sleep.run`, render."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, WaitOption, app, console, engine_option, labelled, settings_from_flags, stdout
from memctl.cli.progress import reporter_for
from memctl.cli.tables import print_table

if TYPE_CHECKING:
    from memctl.sleep.summary import SleepSummary


@app.command()
def sleep(
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", metavar="N", min=1, max=32, help="Parallel consolidations and topic rebuilds (default 3; config sleep_concurrency).")] = None,
    wait: WaitOption = False,
    no_rebuild: Annotated[bool, typer.Option("--no-rebuild", help="Skip the Cognee rebuild (changed topics stay pending for the next run).")] = False,
    engine: engine_option("Where consolidations run: local (a thread pool, the default) or flyte (Flyte tasks; needs the flyte extra: pip install -e '.[flyte]' in memctl's checkout). Config sleep_engine.") = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Validate and promote proposals → cluster → consolidate → rebuild changed topics. Reports to var/reports/."""
    settings = settings_from_flags(home)  # before importing the ollama client: it reads OLLAMA_HOST at import
    from memctl.exit_codes import HomeError
    from memctl.sleep.run import SleepOptions, SleepRun
    from memctl.store import AuditIntegrityError, StoreError

    with reporter_for(console, as_json) as reporter:
        try:
            summary = SleepRun(settings, SleepOptions(concurrency=concurrency, wait=wait, rebuild=not no_rebuild,
                                                      engine=engine.value if engine else None), reporter).run()
        except AuditIntegrityError:
            raise
        except (StoreError, OSError) as exc:
            # Whatever the store refused, to sleep it means the data home cannot be worked on now.
            from memctl.os_errors import describe

            raise HomeError(f"sleep stopped: {describe(exc) if isinstance(exc, OSError) else exc}") from exc
    if as_json:
        stdout.print_json(json.dumps(summary.as_dict()))
    else:
        table = summary_table(summary)
        print_table(stdout, table, whole=("",))  # the report path is what a scheduled log keeps: never cut
        for error in summary.errors[:10]:
            console.print(labelled("error:", "yellow", f" {error}"), highlight=False)
        for topic, error in summary.topics_failed.items():
            console.print(labelled(f"topic {topic}:", "yellow", f" {error}"), highlight=False)
        if summary.model_unavailable:
            console.print(labelled("skipped for want of a model (retried next run):", "red", f" {summary.model_unavailable}"),
                          highlight=False)
    raise typer.Exit(summary.exit_code)


def summary_table(summary: "SleepSummary") -> Table:
    """The human summary of one sleep, from its typed fields (``--json`` prints ``summary.as_dict()`` instead):
    one ``label  value`` row per count; the report path is the last row (print it with ``whole=("",)``)."""
    table = Table(title="memctl sleep", show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(summary.rejected_reasons.items()))
    from memctl.sleep.review_reasons import family_label

    # the count of held memories by their first reason's family, in words (`memctl review` has each reason)
    held = ", ".join(f"{family_label(k)} {v}" for k, v in sorted(summary.held_reasons.items()))
    for key, value in (
        ("proposals", summary.proposals),
        ("promoted", summary.promoted),
        ("rejected", f"{summary.rejected}" + (f" ({reasons})" if reasons else "")),
        ("held for review", f"{summary.held}" + (f" ({held})" if held else "")),
        ("review queue", f"{summary.review_queue}" + (" (memctl review)" if summary.review_queue else "")),
        ("clusters found / consolidated", f"{summary.clusters_found} / {summary.clusters_consolidated}"),
        ("memories merged", summary.memories_merged),
        ("model calls / cache hits", f"{summary.model_calls} / {summary.cache_hits}"),
        ("topics rebuilt", ", ".join(summary.topics_rebuilt) or "-"),
        ("topics failed", ", ".join(summary.topics_failed) or "-"),
        ("wall time", f"{round(summary.wall_s, 3):.1f} s"),  # the figure --json gives, to one decimal
        ("report", summary.report_html),
    ):
        table.add_row(key, str(value))
    return table
