"""``docs/cli.md`` and ``docs/config.md``, generated from the code (a test fails when either file is stale).

Regenerate with ``python -m memctl.cli.reference > docs/cli.md`` (every
command's ``--help``: the plain help a user sees, rendered at a fixed width so
it does not depend on the terminal) and ``python -m memctl.cli.reference
config > docs/config.md`` (every setting of :class:`memctl.config.Settings`:
its keys, type, default, bounds and ``Field(description=…)``).
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


def _bounds(field: Any) -> str:
    """A field's constraints (``annotated_types`` metadata: ``>= 1``, ``< 1``, ``length >= 1``, ``matches …``)."""
    signs = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    parts = []
    for item in field.metadata:
        for attribute, sign in signs.items():
            if getattr(item, attribute, None) is not None:
                parts.append(f"{sign} {getattr(item, attribute)}")
        if getattr(item, "min_length", None) is not None:
            parts.append("not empty" if item.min_length == 1 else f"length >= {item.min_length}")
        if getattr(item, "pattern", None) is not None:
            parts.append(f"matches `{item.pattern}`")
    return ", ".join(parts)


def _type_name(annotation: Any) -> str:
    """``int``, ``Path | None``, ``"kuzu" | "ladybug"``: the type a user writes a value in."""
    import typing

    if typing.get_origin(annotation) is typing.Literal:
        return " \\| ".join(f'"{value}"' for value in typing.get_args(annotation))
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("pathlib.", "").replace("|", "\\|")


def _toml_value(value: Any) -> str:
    """A default as a TOML file spells it (``"llama3.1:8b"``, ``false``, ``0.4``); ``unset`` for None."""
    import json

    if value is None:
        return "unset"
    return f"`{json.dumps(value)}`" if isinstance(value, (str, bool)) else f"`{value}`"


def render_config_reference() -> str:
    """The Markdown reference of the settings: one row per field of :class:`memctl.config.Settings`, in order."""
    from memctl.config import Settings
    from memctl.settings_origin import env_names

    rows = ["| setting (TOML key) | environment | type | default | bounds | meaning |", "|---|---|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = "platformdirs' user data dir" if field.default_factory else _toml_value(field.default)
        environment = ", ".join(f"`{variable.upper()}`" for variable in env_names(name, field))
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | {environment} | {_type_name(field.annotation)} | {default} | "
                    f"{_bounds(field)} | {meaning} |")
    intro = ("# memctl settings\n\n"
             "Generated from the settings' descriptions by `python -m memctl.cli.reference config > docs/config.md`; "
             "do not edit by hand.\n\n"
             "Settings come from (highest first): flags, environment variables, the TOML file `$MEMCTL_CONFIG` "
             "(default `~/.config/memctl/config.toml`), defaults. Unknown keys and out-of-range values are refused "
             "with exit code 2, naming the file and the key; `memctl config show` prints each effective value and "
             "where it came from. Sizes are characters unless named `*_bytes`; `*_s` are seconds.\n\n"
             "Example `~/.config/memctl/config.toml`:\n\n```toml\ndistill_model = \"llama3.1:8b\"\nworkers = 4\n```\n\n")
    return intro + "\n".join(rows) + "\n"


if __name__ == "__main__":
    import sys

    print(render_config_reference() if sys.argv[1:] == ["config"] else render_reference(), end="")
