"""``memctl rollback``: restore a store file to an earlier version (a new, audited write)."""

from __future__ import annotations

import difflib
import sys
from typing import Annotated

import typer

from memctl.cli.app import HomeOption, app, console, stdout
from memctl.cli.store_flags import store_from_flags
from memctl.cli.terminal import interactive, write_out
from memctl.exit_codes import FAILED_ITEMS, UsageError


@app.command()
def rollback(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Store path.")],
    to: Annotated[str, typer.Option("--to", metavar="VERSION", help="The version id (≥ 6 chars) to restore, from `memctl history`.")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Recorded in the audit log.")] = "manual rollback",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask (required when stdin is not a terminal).")] = False,
    as_ingest: Annotated[bool, typer.Option("--as-ingest", help="Required for memory/: act with ingest's privilege.")] = False,
    home: HomeOption = None,
) -> None:
    """Restore a file to an earlier version: a new, audited write (itself undoable). Shows the diff first."""
    from memctl.store import ABSENT_SHA, InvalidContentError
    from memctl.store.policy import check_reason, normalize_path

    store = store_from_flags(home)
    canonical = normalize_path(path)
    check_reason(reason)
    if canonical.startswith("memory/") and not as_ingest:
        raise UsageError(f"{canonical} is in memory/, the read-only ground truth written by ingest; "
                         "pass --as-ingest to roll it back with ingest's privilege")
    target_sha = store.resolve_version(canonical, to)
    target = store.read_version(canonical, target_sha)
    current_sha = store.sha(canonical)
    if current_sha == target_sha:
        stdout.print(f"{canonical} already holds version {target_sha[:12]}; nothing to do")
        return
    try:
        current = store.read_text(canonical)[0] if current_sha else ""
        label = f"{canonical} (now{', deleted' if current_sha is None else ''})"
    except InvalidContentError:  # binary junk: exactly what a rollback is for
        current, label = "", f"{canonical} (now: not UTF-8 text, replaced entirely)"
    diff = difflib.unified_diff(current.splitlines(keepends=True), target.splitlines(keepends=True),
                                fromfile=label, tofile=f"{canonical} (version {target_sha[:12]})")
    write_out("".join(line if line.endswith("\n") else line + "\n" for line in diff))
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError("not on a terminal: re-run with --yes to apply this rollback")
        with interactive():
            confirmed = typer.confirm(f"Roll {canonical} back to {target_sha[:12]}?", default=False)
        if not confirmed:
            console.print("nothing changed")
            raise typer.Exit(FAILED_ITEMS)  # declined: nothing done, and a script must not take it for success
    actor = "ingest" if as_ingest else "cli"
    recorded = reason if not as_ingest else f"manual rollback via memctl rollback --as-ingest: {reason}"
    # The state shown in the diff is the precondition: a change made meanwhile (even re-creating
    # a deleted file) makes this a conflict (exit 11), never a silent overwrite.
    store.rollback(canonical, target_sha, actor=actor, reason=recorded, expected_sha=current_sha or ABSENT_SHA)
    stdout.print(f"rolled {canonical} back to {target_sha[:12]} (audited; undo with "
                 f"`memctl rollback {canonical} --to {current_sha[:12]}`)" if current_sha else
                 f"restored {canonical} at version {target_sha[:12]} (audited)")
