"""How a command that removes data asks first: the plan shown, then ``--dry-run`` / ``--yes`` / a question.

Shared by ``memctl forget`` and ``memctl purge``. The plan goes to stderr as lines before a removal
(stdout stays for its result); a dry run's plan is its result, so it goes to stdout (as ``ingest
--dry-run``'s) and the command stops there; without ``--yes`` a terminal is asked and anything else
is refused with a usage error, so a script never removes data by accident.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memctl.cli.app import console, stdout
from memctl.cli.terminal import interactive
from memctl.exit_codes import FAILED_ITEMS, UsageError

DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Only show what would be removed.")]
YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask (required when stdin is not a terminal).")]


def show_plan(title: str, lines: list[str], *, dry_run: bool = False) -> None:
    """Print what will be removed: on stderr before a removal, on stdout for a dry run (the plan is its result)."""
    target = stdout if dry_run else console
    target.print(title, highlight=False, markup=False)
    for line in lines:
        target.print(f"  - {line}", highlight=False, markup=False, soft_wrap=True)


def confirm_or_exit(question: str, *, yes: bool) -> None:
    """Return when the removal may go ahead.

    Raises:
        UsageError: stdin is not a terminal and ``yes`` is false (exit 2).
        typer.Exit: the person declined (exit 1: nothing was done, which a script must not take for success).
    """
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("not on a terminal: re-run with --yes to remove this (or --dry-run to only see the plan)")
    with interactive():
        confirmed = typer.confirm(question, default=False)
    if not confirmed:
        console.print("nothing removed")
        raise typer.Exit(FAILED_ITEMS)
