"""``memctl mcp install|uninstall``: connect memctl's MCP server (``memctl serve``) to OpenCode, Claude Code or
Codex, or print the lines for other clients.

Thin: parse, plan the edit (:mod:`memctl.serve.opencode_config`,
:mod:`memctl.serve.claude_config`, :mod:`memctl.serve.codex_config`), show the
diff on stderr, ask (or ``--yes``), write atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, app, console, settings_from_flags
from memctl.cli.consent import confirm_write
from memctl.cli.path_options import existing_directory
from memctl.exit_codes import UsageError

mcp_app = typer.Typer(help="Connect memctl's MCP server (`memctl serve`) to coding agents: OpenCode, Claude Code, "
                           "Codex, …",
                      no_args_is_help=True)
app.add_typer(mcp_app, name="mcp")

CodexFlag = Annotated[bool, typer.Option("--codex", help="Add memctl to Codex CLI's config.toml "
                                         "([mcp_servers.memctl] in --codex-home), with OLLAMA_HOST and every "
                                         "MEMCTL_* setting of this environment.")]
CodexHome = Annotated[Optional[Path], typer.Option("--codex-home", metavar="DIR", help="Codex CLI's home (default: "
                                                   "$CODEX_HOME, then ~/.codex).")]
YesFlag = Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking (the diff is still shown).")]


@mcp_app.command("install")
def install(
    opencode: Annotated[bool, typer.Option("--opencode", help="Add memctl to OpenCode's config (opencode.json or "
                                           "opencode.jsonc) as a local MCP server.")] = False,
    claude_code: Annotated[bool, typer.Option("--claude-code", help="Add memctl to Claude Code's user-scope MCP "
                                              "servers ($CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json), with "
                                              "OLLAMA_HOST and every MEMCTL_* setting of this environment.")] = False,
    codex: CodexFlag = False,
    codex_home: CodexHome = None,
    global_scope: Annotated[bool, typer.Option("--global", help="OpenCode's global config "
                                               "($XDG_CONFIG_HOME/opencode, default ~/.config/opencode); the default.")] = False,
    project: Annotated[Optional[Path], typer.Option("--project", metavar="DIR", help="The config of the OpenCode "
                                                    "project in DIR instead.")] = None,
    print_only: Annotated[bool, typer.Option("--print", help="Print a `claude mcp add` line and generic MCP JSON "
                                             "for other clients; change nothing.")] = False,
    yes: YesFlag = False,
    shape: Annotated[str, typer.Option("--shape", metavar="auto|v1|v2", help="OpenCode's config shape: v1 servers "
                                       "under mcp with enabled, v2 under mcp.servers with disabled (default: "
                                       "detected from the config, then `opencode --version`).")] = "auto",
    home: HomeOption = None,
) -> None:
    """Add memctl to OpenCode's, Claude Code's or Codex's config (diff shown first), or print the lines for other clients."""
    from memctl.config import DataHome
    from memctl.serve import opencode_config

    if shape not in ("auto", "v1", "v2"):
        raise UsageError("--shape must be auto, v1 or v2")
    if global_scope and project is not None:
        raise UsageError("--global and --project exclude each other")
    if not (opencode or claude_code or codex or print_only):
        raise UsageError("say where: --opencode, --claude-code or --codex (edit that agent's config) or --print "
                         "(lines for other clients)")
    from memctl.settings_origin import carried_environment

    existing_directory("--codex-home", codex_home)
    existing_directory("--project", project)
    settings = settings_from_flags(home)
    data_home = DataHome(settings.home).root
    environment = carried_environment(settings)  # OLLAMA_HOST and every other non-default setting travel too
    if claude_code:
        _install_claude_code(data_home, yes)
    if codex:
        _install_codex(data_home, codex_home, yes)
    if (claude_code or codex) and not (opencode or print_only):
        return
    if print_only:
        claude, generic = opencode_config.other_clients(data_home, environment)
        terminal.write_out(f"# Claude Code\n{claude}\n\n# Other MCP clients (mcpServers JSON)\n{generic}\n")
        if not opencode:
            return
    existing_directory("--project", project)
    directory = project.absolute() if project is not None else opencode_config.global_config_dir()
    plan = opencode_config.plan_install(directory, data_home, shape, environment=environment)
    if not plan.changed:
        console.print(f"{plan.path} already runs memctl for {data_home} ({plan.shape} shape); nothing to do",
                      highlight=False)
        return
    terminal.write_err(plan.diff())
    console.print(f"OpenCode config shape {plan.shape}: {plan.shape_reason}", highlight=False)
    if print_only:  # --print changes nothing: the diff is what --opencode would write
        console.print("--print: nothing changed (without --print, this diff is applied)", highlight=False)
        return
    confirm_write(plan.path, yes=yes)
    directory.mkdir(parents=True, exist_ok=True)
    opencode_config.apply(plan)
    console.print(f"wrote {plan.path}: OpenCode starts `memctl serve` for {data_home} in its next session",
                  highlight=False)


def _install_codex(data_home: Path, codex_home: Path | None, yes: bool) -> None:
    """Add memctl to Codex's ``config.toml`` (:mod:`memctl.serve.codex_config`), diff first."""
    from memctl.connectors.codex.source import resolve_codex_home
    from memctl.hooks.codex import config_path
    from memctl.serve import codex_config

    plan = codex_config.plan_install(config_path(resolve_codex_home(codex_home).absolute()), data_home)
    if not plan.changed:
        console.print(f"{plan.path} already runs memctl for {data_home}; nothing to do", highlight=False)
        return
    terminal.write_err(plan.diff())
    confirm_write(plan.path, yes=yes)
    codex_config.apply(plan)
    console.print(f"wrote {plan.path}: Codex starts `memctl serve` for {data_home} in its next session",
                  highlight=False)


def uninstall_codex(codex_home: Path | None, yes: bool) -> None:
    """Remove memctl's MCP server (only it) from Codex's config.toml (diff shown first); ``memctl mcp uninstall
    --codex`` (:mod:`memctl.cli.commands.mcp_uninstall`) calls it."""
    from memctl.connectors.codex.source import resolve_codex_home
    from memctl.hooks.codex import config_path
    from memctl.serve import codex_config

    existing_directory("--codex-home", codex_home)
    plan = codex_config.plan_uninstall(config_path(resolve_codex_home(codex_home).absolute()))
    if not plan.changed:
        console.print(f"{plan.path}: memctl is not there; nothing to do", highlight=False)
        return
    terminal.write_err(plan.diff())
    confirm_write(plan.path, yes=yes)
    codex_config.apply(plan)
    console.print(f"wrote {plan.path}: memctl's MCP server removed", highlight=False)


def _install_claude_code(data_home: Path, yes: bool) -> None:
    """Add memctl to Claude Code's user-scope MCP servers (:mod:`memctl.serve.claude_config`), diff first."""
    from memctl.serve import claude_config

    plan = claude_config.plan_install(claude_config.claude_json_path(), data_home)
    if not plan.changed:
        console.print(f"{plan.path} already runs memctl for {data_home}; nothing to do", highlight=False)
        return
    terminal.write_err(plan.diff())
    confirm_write(plan.path, yes=yes)
    claude_config.apply(plan)
    console.print(f"wrote {plan.path}: Claude Code starts `memctl serve` for {data_home} in its next session",
                  highlight=False)
