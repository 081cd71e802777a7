"""How a command that removes data asks first: the plan shown, then ``--dry-run`` / ``--yes`` / a question.

Shared by ``memctl forget`` and ``memctl purge``; :func:`confirm_write` is the same question for the commands
that write another program's configuration (``mcp install|uninstall``, ``hooks install|uninstall``). The plan goes to stderr as lines before a removal
(stdout stays for its result); a dry run's plan is its result, so it goes to stdout (as ``ingest
--dry-run``'s) and the command stops there; without ``--yes`` a terminal is asked and anything else
is refused with a usage error, so a script never removes data by accident.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Protocol

import typer

from memctl.cli.app import console, stdout
from memctl.cli.terminal import interactive
from memctl.exit_codes import FAILED_ITEMS, UsageError

DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Only show what would be removed.")]
YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask (required when stdin is not a terminal).")]


class RemovalPlan(Protocol):
    """What forget and purge plan: :mod:`memctl.forget.plan`'s plans."""

    def as_dict(self) -> dict[str, Any]:
        """The plan for ``--json``."""
        ...

    def lines(self) -> list[str]:
        """One line per thing the plan removes."""
        ...


def dry_run_result(command: str, plan: RemovalPlan, *, as_json: bool) -> dict[str, Any] | None:
    """A dry run's result: with ``--json`` the document ``{"dry_run": true, "plan": …, "removes": [lines]}``
    (the caller prints it), else the plan shown on stdout under ``"<command> would:"`` and None."""
    if as_json:
        return {"dry_run": True, "plan": plan.as_dict(), "removes": plan.lines()}
    show_plan(f"{command} would:", plan.lines(), dry_run=True)
    return None


def confirm_plan(command: str, plan: RemovalPlan, question: str, *, yes: bool) -> None:
    """The plan on stderr under ``"<command> will:"``, then :func:`confirm_or_exit` with ``question``."""
    show_plan(f"{command} will:", plan.lines())
    confirm_or_exit(question, yes=yes)


def show_plan(title: str, lines: list[str], *, dry_run: bool = False) -> None:
    """Print what will be removed: on stderr before a removal, on stdout for a dry run (the plan is its result)."""
    target = stdout if dry_run else console
    target.print(title, highlight=False, markup=False)
    for line in lines:
        target.print(f"  - {line}", highlight=False, markup=False, soft_wrap=True)


def confirm_or_exit(question: str, *, yes: bool,
                    refusal: str = "re-run with --yes to remove this (or --dry-run to only see the plan)",
                    declined: str = "nothing removed") -> None:
    """Return when the change may go ahead.

    ``refusal`` completes "not on a terminal: …"; ``declined`` is printed when the person says no.

    Raises:
        UsageError: stdin is not a terminal and ``yes`` is false (exit 2).
        typer.Exit: the person declined (exit 1: nothing was done, which a script must not take for success).
    """
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(f"not on a terminal: {refusal}")
    with interactive():
        confirmed = typer.confirm(question, default=False)
    if not confirmed:
        console.print(declined)
        raise typer.Exit(FAILED_ITEMS)


def confirm_write(path: object, *, yes: bool) -> None:
    """Ask "Write <path>?" before changing another program's configuration, as :func:`confirm_or_exit` does.

    Raises: as :func:`confirm_or_exit` (exit 2 off a terminal without ``yes``; exit 1 when declined).
    """
    confirm_or_exit(f"Write {path}?", yes=yes, refusal="re-run with --yes to apply this change",
                    declined="nothing changed")
