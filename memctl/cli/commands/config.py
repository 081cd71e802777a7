"""``memctl config show``: the effective settings and where each came from. Thin: :mod:`memctl.settings_origin`."""

from __future__ import annotations

import json

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, JsonOption, app, given_on_command_line, settings_from_flags, stdout

config_app = typer.Typer(help="The effective configuration: every setting, its value and its source.",
                         no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def show(ctx: typer.Context, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Every setting with its value and source (flag, environment variable, config file or default).

    One `name = value  # source` line per setting, in the config file's TOML (a line can be pasted into it);
    the data home first. The config file is named even when it does not exist (it is optional).
    With --json: {"config_file", "config_file_exists", "settings": [{"name", "value", "source", "where"}]}.
    """
    from memctl.config import DataHome, config_file_path
    from memctl.settings_origin import origins

    settings = settings_from_flags(home)
    config_file = config_file_path()
    found = origins(settings, given_on_command_line(ctx, home=home), config_file)
    found.sort(key=lambda o: o.name != "home")
    rows = [o.as_dict() for o in found]
    rows[0]["value"] = str(DataHome(settings.home).root)
    if as_json:
        stdout.print_json(json.dumps({"config_file": str(config_file), "config_file_exists": config_file.is_file(),
                                      "settings": rows}))
        return
    terminal.write_out(f"# config file: {config_file}{'' if config_file.is_file() else ' (absent)'}\n")
    width = max(len(row["name"]) + len(_toml_value(row["value"])) for row in rows) + 3
    for row in rows:
        where = row["source"] + (f" {row['where']}" if row["where"] else "")
        line = f"{row['name']} = {_toml_value(row['value'])}" if row["value"] is not None else f"# {row['name']} (unset)"
        terminal.write_out(f"{line.ljust(width)}  # {where}\n")


def _toml_value(value: object) -> str:
    """``value`` as TOML (a JSON string is a TOML basic string), so a line can be pasted into the config file."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)
