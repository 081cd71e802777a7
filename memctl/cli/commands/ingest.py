"""``memctl ingest``: OpenCode / Claude Code / Codex history → distilled notes → the memory store → Cognee. Thin: parse, run, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, WaitOption, app, console, labelled, settings_from_flags, stdout
from memctl.cli.progress import reporter_for
from memctl.cli.tables import print_table
from memctl.ingest.options import Phase
from memctl.ingest.summary import IngestSummary, PlanItem

DbOption = Annotated[Optional[Path], typer.Option(
    "--db", metavar="PATH", help="OpenCode database file, or the directory holding opencode.db / opencode-dev.db (default: "
                 "$OPENCODE_DB, then the opencode_db setting, then $XDG_DATA_HOME/opencode/opencode.db, then "
                 "~/.local/share/opencode/opencode.db).")]


SourceOption = Annotated[Optional[list[str]], typer.Option(
    "--source", metavar="NAME", help="Only this history source (repeatable): opencode, claude-code, codex. Default: every "
                                     "source whose store is found.")]
ClaudeDirOption = Annotated[Optional[Path], typer.Option(
    "--claude-dir", metavar="DIR", help="Claude Code's configuration directory, holding projects/ (default: "
                                        "$CLAUDE_CONFIG_DIR, then ~/.claude).")]
CodexHomeOption = Annotated[Optional[Path], typer.Option(
    "--codex-home", metavar="DIR", help="Codex CLI's home, holding sessions/ and archived_sessions/ (default: "
                                        "$CODEX_HOME, then ~/.codex).")]


def _summary_table(summary: IngestSummary) -> Table:
    """The human summary of one run, from its typed counts (``--json`` prints ``summary.as_dict()`` instead)."""
    table = Table(title="memctl ingest" + (" (dry run)" if summary.dry_run else ""), show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    rows: list[tuple[str, object]] = [
        ("sessions found", summary.found),
        ("already done", summary.already_done),
        ("deferred (still active)", summary.deferred_active),
        ("skipped by threshold", summary.skipped_threshold),
    ]
    if summary.dry_run and summary.phase not in ("all", "distill"):  # --phase add|cognify: nothing is distilled
        rows = [("sessions found", summary.found), ("notes selected", summary.notes_selected),
                (f"notes the graph lacks (would {summary.phase})", summary.would_add_to_graph)]
    elif summary.dry_run:
        rows += [("would distill", summary.would_distill),
                 ("estimated input tokens", f"{summary.estimated_input_tokens:,}")]
    else:
        distilled = f"{summary.distilled} ({summary.recovered} recovered)" if summary.recovered else summary.distilled
        rows += [
            ("skipped as JUNK", summary.skipped_junk),
            ("distilled", distilled),
            ("errors", summary.errors),
            ("published to memory/ (new or changed / removed)",
             f"{summary.notes_published} / {summary.notes_unpublished}"),
            ("notes added (new / offered)", f"{summary.notes_added} / {summary.notes_submitted}"),
            ("datasets", ", ".join(summary.datasets) or "-"),
            ("add", summary.add_status),
            ("cognify", summary.cognify_status),
        ]
    for label, counts in (("secrets redacted", summary.redactions), ("source rows skipped", summary.read_warnings),
                          ("left out (undone / pruned)", summary.left_out)):
        if counts:
            rows.append((label, ", ".join(f"{k} {v}" for k, v in counts.items())))
    if summary.orphaned_sessions:
        rows.append(("orphaned subagent sessions", summary.orphaned_sessions))
    rows.append(("wall time", f"{round(summary.wall_s, 3):.1f} s"))  # the figure --json gives, to one decimal
    if not summary.dry_run:
        rows.append(("sessions/hour", f"{round(summary.sessions_per_hour, 1):,.0f}"))
    for key, value in rows:
        table.add_row(key, str(value))
    return table


def _plan_table(plan: list[PlanItem]) -> Table:
    """The dry run's plan, one row per session (at most the summary's bounded number of rows)."""
    table = Table(title="plan")
    for column in ("session", "topic", "title", "action", "why", "~tokens"):
        table.add_column(column, overflow="fold")
    for item in plan:
        table.add_row(item.source_id, item.topic, item.title[:60], item.action, item.why,
                      str(item.estimated_tokens or ""))
    return table


@app.command()
def ingest(
    db: DbOption = None,
    source: SourceOption = None,
    claude_dir: ClaudeDirOption = None,
    codex_home: CodexHomeOption = None,
    home: HomeOption = None,
    phase: Annotated[Phase, typer.Option("--phase", help="Which phases to run.")] = Phase.all,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Read, normalize, scrub, sample and plan; no model, nothing written.")] = False,
    since: Annotated[Optional[str], typer.Option("--since", metavar="DATE|AGE", help="Only sessions updated since a date (2026-11-01) or age (7d, 12h).")] = None,
    session: Annotated[Optional[list[str]], typer.Option("--session", metavar="ID", help="Only this session id of any source (repeatable; claude-code.<id>, codex.<id> or the bare id); a subagent id selects its parent.")] = None,
    project: Annotated[Optional[str], typer.Option("--project", metavar="NAME", help="Only this project: topic slug or alias, project id, worktree path (current or earlier) or its name.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", metavar="N", min=1, help="At most N top-level sessions.")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="N", min=1, max=64, help="Concurrent model calls (default from config: 2).")] = None,
    batch_size: Annotated[Optional[int], typer.Option("--batch-size", metavar="N", min=1, help="Notes per Cognee add batch.")] = None,
    chunks_per_batch: Annotated[Optional[int], typer.Option("--chunks-per-batch", metavar="N", min=1, help="Cognify chunk concurrency.")] = None,
    data_per_batch: Annotated[Optional[int], typer.Option("--data-per-batch", metavar="N", min=1, help="Cognify document concurrency.")] = None,
    reparse_skipped: Annotated[bool, typer.Option("--reparse-skipped", help="Re-evaluate sessions skipped earlier.")] = False,
    reparse_all: Annotated[bool, typer.Option("--reparse-all", help="Re-distill everything (only into new or empty datasets).")] = False,
    verify_graph: Annotated[bool, typer.Option("--verify-graph", help="Hand every note to Cognee even when the graph ledger says it holds them (Cognee adds only what is missing).")] = False,
    as_json: JsonOption = False,
    wait: WaitOption = False,
) -> None:
    """Read OpenCode, Claude Code and Codex history → distill notes → add to Cognee → cognify. Resumable."""
    from memctl.connectors.registry import source_names
    from memctl.durations import parse_since
    from memctl.exit_codes import UsageError

    unknown = sorted(set(source or ()) - set(source_names()))
    if unknown:
        import difflib

        close = [m for name in unknown for m in difflib.get_close_matches(name, source_names(), n=1)]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(f"unknown --source {', '.join(unknown)}{hint}: choose from {', '.join(source_names())}")

    from memctl.cli.path_options import not_a_file

    not_a_file("--claude-dir", claude_dir)
    not_a_file("--codex-home", codex_home)
    since_dt = parse_since(since) if since else None
    # Settings first: they validate OLLAMA_HOST, which the ollama package reads when it is imported.
    settings = settings_from_flags(home, workers=workers, batch_size=batch_size, chunks_per_batch=chunks_per_batch,
                                   data_per_batch=data_per_batch)
    from memctl.connectors.opencode.source import resolve_db_path
    from memctl.ingest.options import IngestOptions
    from memctl.ingest.run import IngestRun

    options = IngestOptions(
        db=resolve_db_path(db or settings.opencode_db), phase=phase.value, dry_run=dry_run, since=since_dt, session_ids=tuple(session or ()),
        project=project, limit=limit, reparse_skipped=reparse_skipped, reparse_all=reparse_all, verify_graph=verify_graph, wait=wait,
        sources=tuple(dict.fromkeys(source or ())), claude_dir=claude_dir, codex_home=codex_home,
        named=tuple(name for name, given in (("opencode", db or settings.opencode_db), ("claude-code", claude_dir), ("codex", codex_home))
                    if given is not None),
    )
    with reporter_for(console, as_json) as reporter:
        summary = IngestRun(settings, options, reporter).run()
    if as_json:
        stdout.print_json(json.dumps(summary.as_dict()))
    else:
        if dry_run and summary.phase in ("all", "distill") and summary.plan:
            # A session id is copied into `ingest --session`/`show`: never folded (the title and why fold).
            print_table(stdout, _plan_table(summary.plan), whole=("session", "topic", "action"))
            if summary.plan_omitted:
                stdout.print(f"… {summary.plan_omitted} more sessions not listed (counts below include them)")
        print_table(stdout, _summary_table(summary), whole=("",))
        if summary.found == 0 and phase in (Phase.all, Phase.distill) and (since or session or project or limit):
            console.print(labelled("no session matched the filters", "yellow", " (--since/--session/--project); "
                                   "`memctl ingest --dry-run` without them lists what is there"))
        for err in summary.error_details[:10]:
            console.print(labelled(f"session {err['source_id']}", "yellow", f": {err['error']}"))
    raise typer.Exit(summary.exit_code)
