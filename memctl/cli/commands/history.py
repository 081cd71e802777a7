"""``memctl history``: every recorded change of one store file, with its version ids.

Each record's reason names the provenance of what was written (sleep and review write it there); for a
memory that exists now, its current provenance is also printed below the table (stderr)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, app, console, stdout
from memctl.cli.store_flags import short_sha, store_from_flags
from memctl.cli.tables import print_table
from memctl.exit_codes import UsageError


@app.command()
def history(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Store path, e.g. user/global/editor.md.")],
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Every recorded change of one file, oldest first, with its version ids."""
    store = store_from_flags(home)
    versions = store.history(path)
    if not versions:  # under --json the error boundary prints {"error", "exit_code"} on stdout
        raise UsageError(f"{path} has no recorded history (see `memctl audit` for what exists)")
    if as_json:
        stdout.print_json(json.dumps([v.as_dict() for v in versions]))
        return
    table = Table(title=f"history of {path}")
    for column in ("version", "seq", "time", "op", "actor", "reason"):
        table.add_column(column, overflow="fold")
    for v in versions:
        label = short_sha(v.version) if v.version else "(deleted)"
        if v.rollback_of:
            label += " ↩"
        table.add_row(label, str(v.seq), v.time[:19].replace("T", " "), v.op, v.actor, v.reason)
    print_table(stdout, table, whole=("version", "seq", "time", "op"))
    from memctl.store import StoreError
    from memctl.store.user_memory import provenance_lines

    try:
        current = store.read_text(path)[0] if versions[-1].version else ""
    except StoreError:
        current = ""
    for line in provenance_lines(current):
        console.print(f"provenance now: {line}", highlight=False, markup=False)
