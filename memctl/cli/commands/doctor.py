"""``memctl doctor``: environment checks, each with its fix. Thin: run :mod:`memctl.doctor`, render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from memctl.cli.app import HomeOption, JsonOption, app, engine_option, given_on_command_line, settings_from_flags, stdout
from memctl.cli.tables import print_table
from memctl.exit_codes import DOCTOR, OK


@app.command()
def doctor(
    ctx: typer.Context,
    db: Annotated[Optional[Path], typer.Option("--db", metavar="PATH", help="OpenCode database to check.")] = None,
    claude_dir: Annotated[Optional[Path], typer.Option("--claude-dir", metavar="DIR", help="Claude Code's configuration directory to check (default: $CLAUDE_CONFIG_DIR, then ~/.claude).")] = None,
    codex_home: Annotated[Optional[Path], typer.Option("--codex-home", metavar="DIR", help="Codex CLI's home to check (default: $CODEX_HOME, then ~/.codex).")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
    engine: engine_option("Also check this sleep engine (flyte: the extra, the Flyte config, the tasks' model endpoint). Default: config sleep_engine.") = None,
) -> None:
    """Check Ollama, models, embedding dimensions, each history source (OpenCode DB, Claude Code, Codex), the data home and disk — with fixes."""
    from memctl.config import config_file_path
    from memctl.connectors.claude_code.source import resolve_claude_dir
    from memctl.connectors.codex.source import resolve_codex_home
    from memctl.connectors.opencode.source import resolve_db_path
    from memctl.doctor import run_checks
    from memctl.settings_origin import origin_of

    settings = settings_from_flags(home)
    chosen = origin_of("home", settings, given_on_command_line(ctx, home=home), config_file_path())
    checks = run_checks(settings, resolve_db_path(db or settings.opencode_db), resolve_claude_dir(claude_dir), resolve_codex_home(codex_home),
                        home_origin=f"{chosen.source} {chosen.where}".strip())
    if (engine.value if engine else settings.sleep_engine) == "flyte":
        from memctl.sleep.engines.doctor import check_flyte_engine

        checks.extend(check_flyte_engine(settings))
    if as_json:
        stdout.print_json(json.dumps([c.as_dict() for c in checks]))
    else:
        table = Table(title="memctl doctor")
        for column in ("check", "status", "detail", "fix"):
            table.add_column(column, overflow="fold")
        style = {"ok": "green", "warn": "yellow", "fail": "red"}
        for c in checks:
            table.add_row(c.name, Text(c.status, style=style[c.status]), c.detail, c.fix or "")
        print_table(stdout, table, whole=("check", "detail", "fix"))  # URLs, paths and commands stay whole
    raise typer.Exit(DOCTOR if any(c.status == "fail" for c in checks) else OK)
