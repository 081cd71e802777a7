"""``docs/cli.md``: every command's ``--help``, generated from the app (a test fails when the file is stale).

Regenerate with ``python -m memctl.cli.reference > docs/cli.md``. The text is
the plain help a user sees, rendered at a fixed width so it does not depend
on the terminal.
"""

from __future__ import annotations

from typing import Any, Iterator

WIDTH = 100


def _contexts(ctx: Any) -> Iterator[Any]:
    """``ctx`` and the contexts of every subcommand below it, depth first, in help order."""
    import typer

    yield ctx
    for name, sub in getattr(ctx.command, "commands", {}).items():
        yield from _contexts(typer.Context(sub, info_name=name, parent=ctx, terminal_width=WIDTH,
                                           max_content_width=WIDTH))


def render_reference() -> str:
    """The Markdown reference: one section per command and command group, in help order."""
    import typer
    import typer.main

    from memctl.cli.main import app

    root = typer.Context(typer.main.get_command(app), info_name="memctl", terminal_width=WIDTH,
                         max_content_width=WIDTH)
    sections = ["# memctl command reference\n",
                "Generated from the app by `python -m memctl.cli.reference > docs/cli.md`; do not edit by hand. "
                "Exit codes: README, \"Exit codes\".\n"]
    for ctx in _contexts(root):
        sections.append(f"## `{ctx.command_path}`\n\n```text\n{ctx.command.get_help(ctx).rstrip()}\n```\n")
    return "\n".join(sections)


if __name__ == "__main__":
    print(render_reference(), end="")
