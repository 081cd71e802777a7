"""``memctl show``: a store file now, or at one of its versions, verbatim on stdout.

A memory's provenance (who asked for it, how, in which session, when; :mod:`memctl.store.provenance`)
is in its front matter, which is printed as it is; a one-line summary also goes to stderr."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from memctl.cli.app import HomeOption, app, console
from memctl.cli.store_flags import store_from_flags
from memctl.cli.terminal import write_out


@app.command()
def show(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Store path.")],
    version: Annotated[Optional[str], typer.Option("--version", "-v", metavar="VERSION", help="A version id (≥ 6 chars) from `memctl history`.")] = None,
    home: HomeOption = None,
) -> None:
    """Print a file's current content, or one of its versions, verbatim on stdout."""
    from memctl.store import MissingFileError

    store = store_from_flags(home)
    try:
        content = store.read_version(path, version) if version else store.read_text(path)[0]
    except MissingFileError as exc:
        versions = [] if version else store.history(path)
        if not versions:
            raise
        raise MissingFileError(f"{path} was deleted ({versions[-1].op} by {versions[-1].actor}, "
                               f"{versions[-1].time[:19].replace('T', ' ')}); its versions: `memctl history {path}`, "
                               f"one of them: `memctl show {path} --version VERSION`") from exc
    write_out(content)
    from memctl.store.user_memory import provenance_lines

    for line in provenance_lines(content):
        console.print(f"provenance: {line}", highlight=False, markup=False)

