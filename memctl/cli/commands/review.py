"""``memctl review``: the memories sleep held for a person — list, show, approve, edit, reject.

Listing and showing work anywhere (``--json`` too). Approve, edit and reject are a person's decisions:
they run only on an interactive terminal (:func:`memctl.cli.interactive.require_terminal`, else exit 13
with one line), ask for confirmation there, take the data home's lock (no sleep runs meanwhile) and are
audited store writes by actor ``person`` (:mod:`memctl.sleep.review_queue`). There is deliberately no
``--yes``: no flag, MCP tool or schedule can approve.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from memctl.cli.app import HomeOption, JsonOption, app, console, settings_from_flags, stdout
from memctl.cli.interactive import require_terminal
from memctl.cli.tables import print_table
from memctl.cli.terminal import interactive
from memctl.exit_codes import FAILED_ITEMS, UsageError

review_app = typer.Typer(help="The memories sleep held for a person: list them (default), show, approve, edit, reject.",
                         no_args_is_help=False, invoke_without_command=True)
app.add_typer(review_app, name="review")

IdArgument = Annotated[str, typer.Argument(metavar="ID", help="An entry id from `memctl review` (or 6+ leading characters).")]


def _store(home: Path | None) -> Any:
    from memctl.cli.store_flags import store_from_flags

    return store_from_flags(home)


def _described(entry: Any) -> list[str]:
    """The entry's provenance as lines (one per record; a merge has one per member)."""
    from memctl.store.provenance import Provenance

    records = entry.provenance if isinstance(entry.provenance, list) else [entry.provenance]
    return [Provenance.from_dict(r).describe() + (" (approved by person)" if isinstance(r, dict) and
                                                  r.get("approved_by") == "person" else "") for r in records]


def _document(entry: Any) -> dict[str, Any]:
    from memctl.sleep.review_queue import diff
    from memctl.sleep.review_reasons import explain

    # "reasons" stay the stable codes scripts match on; "why" is what each means, in the same order
    return {**entry.as_dict(), "why": [explain(r) for r in entry.reasons], "diff": diff(entry)}


@review_app.callback()
def review(ctx: typer.Context, as_json: JsonOption = False, home: HomeOption = None) -> None:
    """List the review queue: what each held memory is, where it came from, why it waits."""
    if ctx.invoked_subcommand is not None:
        return
    from memctl.sleep.review_queue import entries

    queue = entries(_store(home))
    if as_json:
        stdout.print_json(json.dumps([_document(e) for e in queue]))
        return
    if not queue:
        console.print("the review queue is empty")
        return
    table = Table(title=f"review queue ({len(queue)})", title_justify="left")
    for column in ("id", "kind", "provenance", "why held", "to", "memory"):
        table.add_column(column, overflow="fold", no_wrap=column == "id")
    from memctl.sleep.review_reasons import explain_all

    for e in queue:
        table.add_row(e.id, e.kind, "\n".join(_described(e)), "\n".join(explain_all(e.reasons)), e.path,
                      e.content if len(e.content) <= 200 else e.content[:200] + " …")
    # Ids, store paths and the reasons naming them are copied into `review show` and `history`: never cut.
    print_table(stdout, table, whole=("id", "kind", "provenance", "why held", "to"))
    console.print("decide with `memctl review approve|edit|reject ID` (on a terminal); `memctl review show ID` "
                  "shows one with its diff", highlight=False)


@review_app.command("show")
def review_show(entry_id: IdArgument, as_json: JsonOption = False, home: HomeOption = None) -> None:
    """One held memory: provenance, why it was held, its text and the diff against what it would supersede."""
    from memctl.sleep.review_queue import find, held_at
    from memctl.sleep.review_reasons import explain_all

    store = _store(home)
    entry = find(store, entry_id)
    document = {**_document(entry), "held": held_at(store, entry)}
    if as_json:
        stdout.print_json(json.dumps(document))
        return
    lines = [f"entry     {entry.id} ({entry.kind})", f"to        {entry.path}",
             *(f"from      {d}" for d in _described(entry)), f"held      {document['held']}",
             *(f"why held  {line}" for line in explain_all(entry.reasons)), "", "--- memory ---", entry.content, "",
             "--- diff against what it would supersede ---", document["diff"]]
    stdout.print("\n".join(lines), markup=False, highlight=False)


def _decide(home: Path | None, entry_id: str, what: str, act: Any) -> None:
    """Common frame of a decision: a terminal, the data home's lock, the entry, the person's confirmation.

    An approval that writes a topic's memory marks that topic for the next sleep's rebuild (with a merge's
    removed members), as sleep does for its own promotions, so the graph learns of it."""
    require_terminal(f"`memctl review {what}`")
    from memctl.config import DataHome
    from memctl.sleep.review_queue import find

    settings = settings_from_flags(home)
    data_home = DataHome(settings.home)
    with data_home.lock(wait=False, offer_wait=False):
        store = _store(home)
        entry = find(store, entry_id)
        review_show(entry.id, as_json=False, home=home)
        act(store, entry, settings)
        if what != "reject" and entry.topic:
            from memctl.sleep.state import SleepState

            SleepState(data_home.sleep_state).mark(entry.topic, [str(store.root / m["path"]) for m in entry.members])


def _confirm(question: str) -> None:
    with interactive():
        confirmed = typer.confirm(question, default=False)
    if not confirmed:
        console.print("nothing decided")
        raise typer.Exit(FAILED_ITEMS)


@review_app.command("approve")
def review_approve(entry_id: IdArgument, home: HomeOption = None) -> None:
    """Approve a held memory as it is (interactive terminal only; asks first)."""
    from memctl.sleep.review_queue import approve

    def act(store: Any, entry: Any, settings: Any) -> None:
        from memctl.validator.core import ValidationLimits

        _confirm(f"approve {entry.id} into {entry.path}?")
        path = approve(store, entry, limits=ValidationLimits.from_settings(settings))
        console.print(f"approved: {path} (recorded as approved by person)", highlight=False)

    _decide(home, entry_id, "approve", act)


@review_app.command("reject")
def review_reject(entry_id: IdArgument, home: HomeOption = None) -> None:
    """Reject a held memory (archived under staging/rejected/; interactive terminal only; asks first)."""
    from memctl.sleep.review_queue import reject

    def act(store: Any, entry: Any, settings: Any) -> None:
        _confirm(f"reject {entry.id}?")
        archive = reject(store, entry)
        console.print(f"rejected: archived at {archive}", highlight=False)

    _decide(home, entry_id, "reject", act)


@review_app.command("edit")
def review_edit(entry_id: IdArgument, home: HomeOption = None) -> None:
    """Edit a held memory's text, then approve it (in $VISUAL/$EDITOR, else typed on the terminal)."""
    from memctl.sleep.review_queue import approve

    def act(store: Any, entry: Any, settings: Any) -> None:
        from memctl.validator.core import ValidationLimits

        text = _edited_text(entry.content)
        if text.strip() == entry.content.strip():
            console.print("the text is unchanged; use `memctl review approve` to approve it as it is")
            raise typer.Exit(FAILED_ITEMS)
        stdout.print("--- edited memory ---\n" + text.strip(), markup=False, highlight=False)
        _confirm(f"approve the edited text into {entry.path}?")
        path = approve(store, entry, edited_text=text, limits=ValidationLimits.from_settings(settings))
        console.print(f"approved (edited): {path}", highlight=False)

    _decide(home, entry_id, "edit", act)


def _edited_text(current: str) -> str:
    """The person's new text: from ``$VISUAL``/``$EDITOR`` on a temp file holding ``current``, else typed
    line by line on the terminal and ended by a line holding only ``.`` (or end of input).

    Raises:
        UsageError: the editor cannot be started or exits non-zero.
    """
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        console.print("type the new text; end with a line holding only '.'", highlight=False)
        lines = []
        for line in sys.stdin:
            if line.rstrip("\r\n") == ".":
                break
            lines.append(line.rstrip("\r\n"))
        return "\n".join(lines)
    with tempfile.TemporaryDirectory(prefix="memctl-review-") as scratch:
        file = Path(scratch) / "memory.md"
        file.write_text(current.strip() + "\n", encoding="utf-8")
        try:
            done = subprocess.run([*shlex.split(editor), str(file)], check=False)
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot start the editor {editor!r}: {exc}") from None
        if done.returncode != 0:
            raise UsageError(f"the editor {editor!r} exited {done.returncode}; nothing approved")
        return file.read_text(encoding="utf-8")
