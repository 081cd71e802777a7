"""``memctl config show``: the effective settings and where each came from. Thin: :mod:`memctl.settings_origin`."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, JsonOption, app, given_on_command_line, settings_from_flags, stdout

if TYPE_CHECKING:
    from memctl.settings_origin import Origin

config_app = typer.Typer(help="The effective configuration: every setting, its value and its source.",
                         no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def show(ctx: typer.Context, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Every setting with its value and source (flag, environment variable, config file, model backend or default).

    One `name = value  # source` line per setting, in the config file's TOML (a line can be pasted into it);
    the data home first. The config file is named even when it does not exist (it is optional).
    With --json: {"config_file", "config_file_exists", "settings": [{"name", "value", "source", "where"}]}.
    """
    from memctl.config import DataHome, config_file_path
    from memctl.settings_origin import origins

    settings = settings_from_flags(home)
    config_file = config_file_path()
    backend = None
    if settings.model_backend == "embedded":  # the backend chose the models and bounds for this run
        from memctl.embedded.endpoint import backend_fields

        backend = dict.fromkeys(backend_fields(settings), "embedded")
    found = origins(settings, given_on_command_line(ctx, home=home), config_file, backend=backend)
    found.sort(key=lambda o: o.name != "home")
    found[0] = replace(found[0], value=DataHome(settings.home).root)  # the home as used: absolute
    if as_json:
        stdout.print_json(json.dumps({"config_file": str(config_file), "config_file_exists": config_file.is_file(),
                                      "settings": [o.as_dict() for o in found]}))
        return
    terminal.write_out(f"# config file: {config_file}{'' if config_file.is_file() else ' (absent)'}\n")
    terminal.write_out("".join(origin_lines(found)))


def origin_lines(found: list[Origin]) -> list[str]:
    """``config show``'s lines from the typed origins: ``name = value  # source where`` (the value as TOML, so a
    line can be pasted into the config file), or ``# name (unset)``; the comments aligned."""
    width = max(len(o.name) + len(_toml_value(o.value)) for o in found) + 3
    lines = []
    for origin in found:
        where = origin.source + (f" {origin.where}" if origin.where else "")
        line = f"{origin.name} = {_toml_value(origin.value)}" if origin.value is not None else f"# {origin.name} (unset)"
        lines.append(f"{line.ljust(width)}  # {where}\n")
    return lines


def _toml_value(value: object) -> str:
    """``value`` as TOML (a JSON string is a TOML basic string), so a line can be pasted into the config file."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)
