"""``memctl unmerge``: undo one consolidation of the sleep cycle."""

from __future__ import annotations

from typing import Annotated

import typer

from memctl.cli.app import HomeOption, app, settings_from_flags, stdout


@app.command()
def unmerge(
    path: Annotated[str, typer.Argument(metavar="PATH", help="A consolidated memory, user/…/consolidated-<key>.md.")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Recorded in the audit log.")] = "manual unmerge",
    home: HomeOption = None,
) -> None:
    """Undo a merge: restore its members, delete the merged memory, never merge exactly those again."""
    settings = settings_from_flags(home)
    from memctl.sleep.state import unmerge as run_unmerge

    restored = run_unmerge(settings, path, reason=reason)
    stdout.print(f"restored {len(restored)} memories ({', '.join(restored)}); {path} deleted (audited); "
                 "the next sleep rebuilds the topic")
