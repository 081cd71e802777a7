"""``memctl show``: a store file now, or at one of its versions, verbatim on stdout."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from memctl.cli.app import HomeOption, app
from memctl.cli.store_flags import store_from_flags
from memctl.cli.terminal import write_out


@app.command()
def show(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Store path.")],
    version: Annotated[Optional[str], typer.Option("--version", "-v", metavar="VERSION", help="A version id (≥ 6 chars) from `memctl history`.")] = None,
    home: HomeOption = None,
) -> None:
    """Print a file's current content, or one of its versions, verbatim on stdout."""
    store = store_from_flags(home)
    content = store.read_version(path, version) if version else store.read_text(path)[0]
    write_out(content)
