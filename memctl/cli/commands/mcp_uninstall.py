"""``memctl mcp uninstall``: take memctl's MCP server out of OpenCode's, Claude Code's or Codex's config, or print
how for other clients.

Thin: plan the edit (:mod:`memctl.serve.opencode_uninstall`), show the diff on stderr, ask (or ``--yes``),
write atomically. The opposite of ``memctl mcp install``; nothing of the data home is touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from memctl.cli import terminal
from memctl.cli.app import console
from memctl.cli.commands.mcp import CodexHome, mcp_app, uninstall_codex
from memctl.cli.consent import confirm_write
from memctl.cli.path_options import existing_directory
from memctl.exit_codes import UsageError


@mcp_app.command("uninstall")
def uninstall(
    opencode: Annotated[bool, typer.Option("--opencode", help="Remove memctl from OpenCode's config "
                                           "(opencode.json or opencode.jsonc).")] = False,
    global_scope: Annotated[bool, typer.Option("--global", help="OpenCode's global config "
                                               "($XDG_CONFIG_HOME/opencode, default ~/.config/opencode); the default.")] = False,
    project: Annotated[Optional[Path], typer.Option("--project", metavar="DIR", help="The config of the OpenCode "
                                                    "project in DIR instead.")] = None,
    print_only: Annotated[bool, typer.Option("--print", help="Print the `claude mcp remove` line and what to delete "
                                             "for other clients; change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking (the diff is still shown).")] = False,
    codex: Annotated[bool, typer.Option("--codex", help="Remove memctl's MCP server (only it) from Codex CLI's "
                                        "config.toml (in --codex-home).")] = False,
    codex_home: CodexHome = None,
    claude_code: Annotated[bool, typer.Option("--claude-code", help="Remove memctl's MCP server (only it) from "
                                              "Claude Code's user-scope servers ($CLAUDE_CONFIG_DIR/.claude.json, "
                                              "else ~/.claude.json), what `mcp install --claude-code` added.")] = False,
) -> None:
    """Remove memctl from OpenCode's, Claude Code's or Codex's config (diff shown first), or print how to remove it from other
    clients."""
    from memctl.serve.opencode_config import apply, global_config_dir
    from memctl.serve.opencode_uninstall import UNINSTALL_PRINT, plan_uninstall

    if global_scope and project is not None:
        raise UsageError("--global and --project exclude each other")
    if not (opencode or codex or claude_code or print_only):
        raise UsageError("say where: --opencode, --claude-code or --codex (edits that agent's config) or --print "
                         "(lines for other clients)")
    if claude_code:
        _uninstall_claude_code(yes)
    if codex:
        uninstall_codex(codex_home, yes)
    if (claude_code or codex) and not (opencode or print_only):
        return
    if print_only:
        terminal.write_out(UNINSTALL_PRINT)
        if not opencode:
            return
    existing_directory("--project", project)
    directory = project.absolute() if project is not None else global_config_dir()
    plan = plan_uninstall(directory)
    if not plan.changed:
        console.print(f"{plan.path} does not run memctl; nothing to do", highlight=False)
        return
    terminal.write_err(plan.diff())
    if print_only:
        console.print("--print: nothing changed", highlight=False)
        return
    confirm_write(plan.path, yes=yes)
    apply(plan)
    console.print(f"wrote {plan.path}: OpenCode no longer starts `memctl serve` (from its next session)",
                  highlight=False)


def _uninstall_claude_code(yes: bool) -> None:
    """Remove memctl's entry from Claude Code's user-scope ``mcpServers`` (:mod:`memctl.serve.claude_config`)."""
    from memctl.serve import claude_config

    plan = claude_config.plan_uninstall(claude_config.claude_json_path())
    if not plan.changed:
        console.print(f"{plan.path}: memctl is not there; nothing to do", highlight=False)
        return
    terminal.write_err(plan.diff())
    confirm_write(plan.path, yes=yes)
    claude_config.apply(plan)
    console.print(f"wrote {plan.path}: Claude Code no longer starts `memctl serve` (from its next session)",
                  highlight=False)
