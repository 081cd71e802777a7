"""CLI commands over the memory store: ``audit``, ``audit verify``, ``history``, ``show``, ``rollback``.

Thin: parse, call :class:`memctl.store.MemoryStore`, render with Rich, exit
with the documented codes (see :mod:`memctl.cli`). Registered by ``cli.py``.
"""

from __future__ import annotations

import difflib
import json
import sys
from contextlib import contextmanager
from datetime import timezone
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.table import Table

from memctl.config import DataHome

from memctl.exit_codes import CONFLICT as EXIT_CONFLICT, FAILED_ITEMS as EXIT_DECLINED, HOME as EXIT_HOME  # noqa: E402
from memctl.exit_codes import INTEGRITY as EXIT_INTEGRITY, USAGE as EXIT_USAGE  # noqa: E402

HOME_OPTION = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var).")

audit_app = typer.Typer(help="Read and verify the append-only, hash-chained audit log of the memory store.",
                        no_args_is_help=False, invoke_without_command=True)


def _cli():
    # Late import: cli.py imports this module at its end, after these names exist.
    from memctl.cli import app as cli

    return cli


def _store(home: Optional[Path]):
    from memctl.store import MemoryStore

    cli = _cli()
    settings = cli._settings(home)
    data_home = DataHome(settings.home)
    for path in (data_home.root, data_home.store):
        if path.exists() and not path.is_dir():
            cli._fail(f"{path} is a file, not a data home directory; pass --home DIR (or MEMCTL_HOME)", EXIT_HOME)
    return MemoryStore(data_home.store)


def _note_missing_store(store) -> None:  # noqa: ANN001
    if not store.root.exists():
        _cli().console.print(f"[yellow]note:[/] no memory store at {store.root} yet (nothing has been written; "
                             "check --home / MEMCTL_HOME)", highlight=False)


@contextmanager
def _store_errors() -> Iterator[None]:
    """Map store exceptions to a one-line message and an exit code (never a traceback)."""
    from memctl import store as s

    fail = _cli()._fail
    try:
        yield
    except (s.AuditIntegrityError, s.CorruptVersionError) as exc:
        fail(str(exc), EXIT_INTEGRITY)
    except s.ChangeNotAppliedError as exc:
        fail(str(exc), EXIT_HOME)
    except (s.ConcurrencyError, s.StoreBusyError) as exc:
        fail(str(exc), EXIT_CONFLICT)
    except s.StoreError as exc:
        fail(str(exc), EXIT_USAGE)
    except OSError as exc:
        fail(f"cannot use the memory store: {exc}", EXIT_HOME)


def _short(sha: Optional[str]) -> str:
    return sha[:12] if sha else "-"


@audit_app.callback()
def audit(
    ctx: typer.Context,
    path: Optional[str] = typer.Option(None, "--path", help="Only store paths matching this glob (user/*, memory/alpha/*)."),
    actor: Optional[str] = typer.Option(None, "--actor", help="Only this actor (ingest, sleep, ask, remember, cli)."),
    since: Optional[str] = typer.Option(None, "--since", help="Only records since a date (2026-11-01) or age (7d, 12h)."),
    limit: int = typer.Option(50, "--limit", min=1, help="Show the newest N matching records."),
    as_json: bool = typer.Option(False, "--json", help="Print the records as JSON (with their hashes)."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """List audit records, oldest first (the newest --limit of those that match)."""
    if ctx.invoked_subcommand is not None:
        return
    from memctl.ingest.run import parse_since

    cli = _cli()
    since_iso = None
    if since:
        try:
            since_iso = parse_since(since).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        except ValueError as exc:
            cli._fail(str(exc), EXIT_USAGE)
    store = _store(home)
    with _store_errors():
        records = store.audit.query(path_glob=path, actor=actor, since=since_iso, limit=limit)
    if as_json:
        cli.stdout.print_json(json.dumps([r.as_dict() for r in records]))
        return
    if not records:
        cli.console.print("no audit records match" if store.audit.log.exists() else
                          f"no audit log yet at {store.audit.log} (nothing has been written to the store)")
        return
    table = Table(title=f"audit log ({store.audit.log})")
    for column in ("seq", "time", "op", "path", "actor", "reason", "old → new"):
        table.add_column(column, overflow="fold")
    for r in records:
        table.add_row(str(r["seq"]), r["time"][:19].replace("T", " "), r["op"], r["path"], r["actor"], r["reason"],
                      f"{_short(r['old_sha'])} → {_short(r['new_sha'])}")
    cli.stdout.print(table)


@audit_app.command("verify")
def audit_verify(
    deep: bool = typer.Option(False, "--deep", help="Also check every version blob and every current file against the log."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Walk the hash chain: exit 0 when intact, 10 naming the first bad record."""
    cli = _cli()
    store = _store(home)
    _note_missing_store(store)
    with _store_errors():
        report = store.verify(deep=deep)
    if as_json:
        cli.stdout.print_json(json.dumps({
            "ok": report.ok, "records": report.records, "problem": report.problem, "bad_line": report.bad_line,
            "bad_seq": report.bad_seq, "warnings": report.warnings, "deep_problems": report.deep_problems,
        }))
    else:
        for warning in report.warnings:
            cli.console.print(f"[yellow]warning:[/] {warning}", highlight=False)
        if report.ok:
            cli.stdout.print(f"audit log intact: {report.records} records" + (", versions and files match" if deep else ""))
        elif not report.chain_ok:
            cli.console.print(f"[red]audit log broken[/] at {report.problem}", highlight=False)
        else:
            for problem in report.deep_problems:
                cli.console.print(f"[red]mismatch:[/] {problem}", highlight=False)
    raise typer.Exit(0 if report.ok else EXIT_INTEGRITY)


@audit_app.command("repair")
def audit_repair(home: Optional[Path] = HOME_OPTION) -> None:
    """Apply a recorded change a failed or killed writer left unapplied; remove its temp files."""
    cli = _cli()
    store = _store(home)
    if not store.root.exists():
        cli.stdout.print(f"no memory store at {store.root}; nothing to repair")
        return
    with _store_errors():
        report = store.recover()
    done = []
    if report.rolled_forward:
        done.append(f"applied {report.rolled_forward}")
    if report.torn_bytes:
        done.append(f"removed a torn, uncommitted audit line ({report.torn_bytes} bytes)")
    if report.temp_files_removed:
        done.append(f"removed {report.temp_files_removed} temp file(s)")
    cli.stdout.print("; ".join(done) if done else "nothing to repair: the store is consistent")
    if report.out_of_band:
        cli.console.print(f"[yellow]warning:[/] {report.out_of_band}; see `memctl audit verify --deep`",
                          highlight=False)


def history(
    path: str = typer.Argument(..., help="Store path, e.g. user/global/editor.md."),
    as_json: bool = typer.Option(False, "--json", help="Print the versions as JSON."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Every recorded change of one file, oldest first, with its version ids."""
    cli = _cli()
    store = _store(home)
    with _store_errors():
        versions = store.history(path)
    if as_json:
        cli.stdout.print_json(json.dumps([v.as_dict() for v in versions]))
        if not versions:
            raise typer.Exit(EXIT_USAGE)
        return
    if not versions:
        cli._fail(f"{path} has no recorded history (see `memctl audit` for what exists)", EXIT_USAGE)
    table = Table(title=f"history of {versions and path}")
    for column in ("version", "seq", "time", "op", "actor", "reason"):
        table.add_column(column, overflow="fold")
    for v in versions:
        label = _short(v.version) if v.version else "(deleted)"
        if v.rollback_of:
            label += " ↩"
        table.add_row(label, str(v.seq), v.time[:19].replace("T", " "), v.op, v.actor, v.reason)
    cli.stdout.print(table)


def show(
    path: str = typer.Argument(..., help="Store path."),
    version: Optional[str] = typer.Option(None, "--version", "-v", help="A version id (≥ 6 chars) from `memctl history`."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Print a file's current content, or one of its versions, verbatim on stdout."""
    store = _store(home)
    with _store_errors():
        content = store.read_version(path, version) if version else store.read_text(path)[0]
    sys.stdout.write(content)
    sys.stdout.flush()


def rollback(
    path: str = typer.Argument(..., help="Store path."),
    to: str = typer.Option(..., "--to", help="The version id (≥ 6 chars) to restore, from `memctl history`."),
    reason: str = typer.Option("manual rollback", "--reason", help="Recorded in the audit log."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (required when stdin is not a terminal)."),
    as_ingest: bool = typer.Option(False, "--as-ingest", help="Required for memory/: act with ingest's privilege."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Restore a file to an earlier version: a new, audited write (itself undoable). Shows the diff first."""
    from memctl.store import ABSENT_SHA, InvalidContentError
    from memctl.store.policy import check_reason, normalize_path

    cli = _cli()
    store = _store(home)
    with _store_errors():
        canonical = normalize_path(path)
        check_reason(reason)
        if canonical.startswith("memory/") and not as_ingest:
            cli._fail(f"{canonical} is in memory/, the read-only ground truth written by ingest; "
                      "pass --as-ingest to roll it back with ingest's privilege", EXIT_USAGE)
        target_sha = store.resolve_version(canonical, to)
        target = store.read_version(canonical, target_sha)
        current_sha = store.sha(canonical)
        if current_sha == target_sha:
            cli.stdout.print(f"{canonical} already holds version {target_sha[:12]}; nothing to do")
            return
        try:
            current = store.read_text(canonical)[0] if current_sha else ""
            label = f"{canonical} (now{', deleted' if current_sha is None else ''})"
        except InvalidContentError:  # binary junk: exactly what a rollback is for
            current, label = "", f"{canonical} (now: not UTF-8 text, replaced entirely)"
        diff = difflib.unified_diff(current.splitlines(keepends=True), target.splitlines(keepends=True),
                                    fromfile=label, tofile=f"{canonical} (version {target_sha[:12]})")
        sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
        sys.stdout.flush()
        if not yes:
            if not sys.stdin.isatty():
                cli._fail("not on a terminal: re-run with --yes to apply this rollback", EXIT_USAGE)
            if not typer.confirm(f"Roll {canonical} back to {target_sha[:12]}?", default=False):
                cli.console.print("nothing changed")
                raise typer.Exit(EXIT_DECLINED)
        actor = "ingest" if as_ingest else "cli"
        recorded = reason if not as_ingest else f"manual rollback via memctl rollback --as-ingest: {reason}"
        # The state shown in the diff is the precondition: a change made meanwhile (even re-creating
        # a deleted file) makes this a conflict (exit 11), never a silent overwrite.
        store.rollback(canonical, target_sha, actor=actor, reason=recorded, expected_sha=current_sha or ABSENT_SHA)
    cli.stdout.print(f"rolled {canonical} back to {target_sha[:12]} (audited; undo with "
                     f"`memctl rollback {canonical} --to {current_sha[:12]}`)" if current_sha else
                     f"restored {canonical} at version {target_sha[:12]} (audited)")


def register(app: typer.Typer) -> None:
    """Add the store commands to the root ``memctl`` app."""
    app.add_typer(audit_app, name="audit")
    app.command()(history)
    app.command()(show)
    app.command()(rollback)
