"""``memctl export``: the data home as one ``.tar.zst`` file. Thin: call :mod:`memctl.archive`, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from memctl.cli.app import HomeOption, JsonOption, WaitOption, app, settings_from_flags, stdout


@app.command()
def export(
    archive: Annotated[Path, typer.Argument(metavar="PATH", help="The archive to write, ending in .tar.zst or .tzst, e.g. memory.tar.zst.")],
    home: HomeOption = None,
    force: Annotated[bool, typer.Option("--force", help="Replace PATH if it exists.")] = False,
    wait: WaitOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write the memory store, notes, checkpoint and graph to PATH (tar + zstd) — no logs, reports or transcripts."""
    from memctl.archive import export_home
    from memctl.config import DataHome

    settings = settings_from_flags(home)
    result = export_home(DataHome(settings.home), archive, wait=wait, overwrite=force)
    if as_json:
        stdout.print_json(json.dumps(result.as_dict()))
    else:
        stdout.print(f"exported {result.files} files ({result.bytes_in / 1e6:.1f} MB) from {result.home} to "
                     f"{result.archive} ({result.archive_bytes / 1e6:.1f} MB); restore with "
                     f"`memctl import {result.archive} --home DIR`")
