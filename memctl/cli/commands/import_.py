"""``memctl import``: unpack an export into a new data home. Thin: call :mod:`memctl.archive`, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from memctl.cli.app import HomeOption, JsonOption, app, settings_from_flags, stdout
from memctl.exit_codes import INTEGRITY, OK


@app.command("import")
def import_(
    archive: Annotated[Path, typer.Argument(metavar="PATH", help="An archive written by `memctl export`.")],
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Unpack PATH into a new (or empty) data home; ask and sleep then work there without a re-ingest."""
    from memctl.archive import import_home
    from memctl.config import DataHome

    settings = settings_from_flags(home)
    result = import_home(archive, DataHome(settings.home))
    if as_json:
        stdout.print_json(json.dumps(result.as_dict()))
    else:
        stdout.print(f"imported {result.files} files into {result.home} (exported from {result.exported_from}; "
                     f"{result.relocated_values} stored graph paths moved); audit log "
                     + ("verified" if result.audit_ok else "FAILED verification: run `memctl audit verify`"))
    raise typer.Exit(OK if result.audit_ok else INTEGRITY)
