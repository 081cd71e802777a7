"""``memctl audit`` (list), ``audit verify``, ``audit repair``: the store's hash-chained audit log."""

from __future__ import annotations

import json
from datetime import timezone
from typing import Annotated, Optional

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, app, console, labelled, stdout
from memctl.cli.store_flags import note_missing_store, short_sha, store_from_flags
from memctl.cli.tables import print_table
from memctl.exit_codes import INTEGRITY, OK, UsageError

audit_app = typer.Typer(help="Read and verify the append-only, hash-chained audit log of the memory store.",
                        no_args_is_help=False, invoke_without_command=True)
app.add_typer(audit_app, name="audit")


@audit_app.callback()
def audit(
    ctx: typer.Context,
    path: Annotated[Optional[str], typer.Option("--path", metavar="GLOB", help="Only store paths matching this glob (user/*, memory/alpha/*).")] = None,
    actor: Annotated[Optional[str], typer.Option("--actor", metavar="ACTOR", help="Only this actor (ingest, sleep, ask, remember, cli).")] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="DATE|AGE", help="Only records since a date (2026-11-01) or age (7d, 12h).")] = None,
    limit: Annotated[int, typer.Option("--limit", metavar="N", min=1, help="Show the newest N matching records.")] = 50,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """List audit records, oldest first (the newest --limit of those that match)."""
    if ctx.invoked_subcommand is not None:
        return
    from memctl.durations import parse_since

    since_iso = parse_since(since).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if since else None
    store = store_from_flags(home)
    records = store.audit.query(path_glob=path, actor=actor, since=since_iso, limit=limit)
    if actor is not None and not records and store.audit.log.exists():
        actors = sorted({r["actor"] for r in store.audit.records()})
        if actor not in actors:  # a typo must not read as "nothing happened"
            raise UsageError(f"--actor {actor}: no record in {store.audit.log} is by that actor; "
                             f"actors in the log: {', '.join(actors) or 'none'}")
    if as_json:
        stdout.print_json(json.dumps([r.as_dict() for r in records]))
        return
    if not records:
        console.print("no audit records match" if store.audit.log.exists() else
                      f"no audit log yet at {store.audit.log} (nothing has been written to the store)")
        return
    table = Table(title=f"audit log ({store.audit.log})")
    for column in ("seq", "time", "op", "path", "actor", "reason", "old → new"):
        table.add_column(column, overflow="fold")
    for r in records:
        table.add_row(str(r["seq"]), r["time"][:19].replace("T", " "), r["op"], r["path"], r["actor"], r["reason"],
                      f"{short_sha(r['old_sha'])} → {short_sha(r['new_sha'])}")
    print_table(stdout, table, whole=("seq", "time", "op", "path", "old → new"))


@audit_app.command("verify")
def audit_verify(
    deep: Annotated[bool, typer.Option("--deep", help="Also check every version blob and every current file against the log.")] = False,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Walk the hash chain: exit 0 when intact, 10 naming the first bad record."""
    store = store_from_flags(home)
    note_missing_store(store)
    report = store.verify(deep=deep)
    if as_json:
        stdout.print_json(json.dumps({
            "ok": report.ok, "records": report.records, "problem": report.problem, "bad_line": report.bad_line,
            "bad_seq": report.bad_seq, "warnings": report.warnings, "deep_problems": report.deep_problems,
        }))
    else:
        for warning in report.warnings:
            console.print(labelled("warning:", "yellow", f" {warning}"), highlight=False)
        if report.ok:
            stdout.print(f"audit log intact: {report.records} records" + (", versions and files match" if deep else ""))
        elif not report.chain_ok:
            console.print(labelled("audit log broken", "red", f" at {report.problem}"), highlight=False)
        else:
            for problem in report.deep_problems:
                console.print(labelled("mismatch:", "red", f" {problem}"), highlight=False)
    raise typer.Exit(OK if report.ok else INTEGRITY)


@audit_app.command("repair")
def audit_repair(home: HomeOption = None) -> None:
    """Apply a recorded change a failed or killed writer left unapplied; remove its temp files."""
    store = store_from_flags(home)
    if not store.root.exists():
        stdout.print(f"no memory store at {store.root}; nothing to repair")
        return
    report = store.recover()
    done = []
    if report.rolled_forward:
        done.append(f"applied {report.rolled_forward}")
    if report.torn_bytes:
        done.append(f"removed a torn, uncommitted audit line ({report.torn_bytes} bytes)")
    if report.temp_files_removed:
        done.append(f"removed {report.temp_files_removed} temp file(s)")
    stdout.print("; ".join(done) if done else "nothing to repair: the store is consistent")
    if report.out_of_band:
        console.print(labelled("warning:", "yellow", f" {report.out_of_band}; see `memctl audit verify --deep`"), highlight=False)
