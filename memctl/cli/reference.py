"""``docs/cli.md``, ``docs/config.md`` and ``docs/data-home.md``, generated from the code (a test fails when one is stale).

Regenerate with ``python -m memctl.cli.reference > docs/cli.md`` (every
command's ``--help``: the plain help a user sees, rendered at a fixed width so
it does not depend on the terminal), ``python -m memctl.cli.reference
config > docs/config.md`` (every setting of :class:`memctl.config.Settings`:
its keys, type, default, bounds and ``Field(description=…)``) and ``python -m
memctl.cli.reference data-home > docs/data-home.md`` (every path of
:class:`memctl.data_home.DataHome` with its docstring, and the files other
modules keep under those paths).
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


def _plain(docstring: str) -> str:
    """A docstring as one Markdown line: reST roles and double backquotes become code spans, ``|`` is escaped."""
    import re

    text = " ".join(docstring.split())
    text = re.sub(r":(?:mod|class|func|meth|attr):`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`").replace("|", "\\|")


def data_home_extras() -> list[tuple[str, str]]:
    """Paths under the data home that other modules name, as ``(path relative to the home, meaning)``, each
    computed by the module that owns it where it has a function for it."""
    from pathlib import Path

    from memctl.cli.log_routing import BACKUP_COUNT, MAX_BYTES, log_path
    from memctl.data_home import DataHome
    from memctl.forget.journal import journal_path
    from memctl.ingest.graph_ledger import ledger_path
    from memctl.serve.http_auth import token_path
    from memctl.serve.relay import socket_path

    home = DataHome(Path("/home"))

    def rel(path: Path) -> str:
        return path.relative_to(home.root).as_posix()

    store = home.store
    return [
        (rel(store / "memory") + "/<topic>/<id>.md", "A note published into the memory store: the ground truth, "
         "what Cognee reads; written by `ingest` only."),
        (rel(store / "user") + "/", "Promoted memories and preferences (`global/`, `topics/<topic>/`, "
         "`sessions/<session>/`), written by `sleep`, your rollbacks and your review decisions."),
        (rel(store / "staging") + "/", "Untrusted proposals (`remember`, `ask --propose`, MCP `memory_remember`) "
         "waiting for `sleep`; `staging/rejected/` keeps what it refused."),
        (rel(store / "review") + "/", "Memories held for a person's review (`memctl review`); nothing that "
         "answers reads it."),
        (rel(store / "versions") + "/", "Every content the store ever held, content-addressed, read-only."),
        (rel(store / "audit" / "log.jsonl"), "The append-only, hash-chained log of every change; "
         "`audit/head.json` pins its last record."),
        (rel(home.cognee / "logs") + "/", "Cognee's log directory: memctl tells Cognee to write no log file "
         "there; its records go to `logs/library.log`."),
        (rel(home.root / "cache" / "embedded") + "/", "The embedded backend's working files (WordLlama's tokenizer "
         "copy), when `model_backend = \"embedded\"`."),
        (rel(home.root / "cache" / "flyte") + "/", "Flyte's task cache in local mode (`memctl sleep --engine flyte`)."),
        (rel(log_path(home.root)), "What Cognee, litellm, LanceDB, alembic … print or log (rotating at "
         f"{MAX_BYTES // 2**20} MB, {BACKUP_COUNT} old files kept)."),
        (rel(home.logs) + "/<job>.out.log", "Output of the scheduled sleep and ingest jobs (`memctl schedule`), "
         "with `<job>.err.log`."),
        (rel(home.logs / "hooks.log"), "Output of the Claude Code `SessionEnd` hook's ingests."),
        (rel(home.logs / "hooks") + "/", "Output of the Codex notify program (`codex-notify.log`) and OpenCode's "
         "plugin (`opencode-idle.log`)."),
        (rel(ledger_path(home)), "Which notes the graph holds, by content hash (a no-op ingest skips them)."),
        (rel(journal_path(home)), "The plan of a `forget` or `purge` while it runs (a killed run is finished by "
         "the same command)."),
        (rel(socket_path(home)), "The socket of a running `memctl serve`, through which `ask` answers."),
        (rel(token_path(home)), "The bearer token of `memctl serve --http` (mode 0600, new at each start)."),
    ]


def render_data_home_reference() -> str:
    """The Markdown table of the data home: every property of :class:`memctl.data_home.DataHome` in definition
    order with its docstring, each followed by the :func:`data_home_extras` under it; the rest at the end."""
    import inspect
    from pathlib import Path

    from memctl.data_home import DataHome

    home = DataHome(Path("/home"))
    extras = data_home_extras()
    rows = ["| path | what it holds |", "|---|---|"]
    for name, member in vars(DataHome).items():
        if not isinstance(member, property):
            continue
        path = getattr(home, name)
        relative = path.relative_to(home.root).as_posix() + ("/" if not path.suffix else "")
        rows.append(f"| `{relative}` | {_plain(inspect.getdoc(member) or '')} |")
        for child, meaning in [e for e in extras if e[0].startswith(relative) and relative.endswith("/")]:
            rows.append(f"| `{child}` | {meaning} |")
            extras.remove((child, meaning))
    rows += [f"| `{path}` | {meaning} |" for path, meaning in extras]
    intro = ("# Where data goes\n\n"
             "Generated from `memctl/data_home.py` by `python -m memctl.cli.reference data-home > docs/data-home.md`; "
             "do not edit by hand.\n\n"
             "Everything memctl keeps lives in one data home: one per user (`$XDG_DATA_HOME/memctl`, default "
             "`~/.local/share/memctl`; on macOS `~/Library/Application Support/memctl`) unless `--home DIR` or "
             "`MEMCTL_HOME` names another. `memctl config show` and `memctl doctor` say which. Paths below are "
             "relative to it. Every file is written atomically (temp file, fsync, rename); a run killed at any "
             "point repeats at most the sessions that were in flight.\n\n")
    return intro + "\n".join(rows) + "\n"


if __name__ == "__main__":
    import sys

    renderers = {("config",): render_config_reference, ("data-home",): render_data_home_reference}
    print(renderers.get(tuple(sys.argv[1:]), render_reference)(), end="")
