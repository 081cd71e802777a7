"""``memctl hooks``: capture sessions while an agent works (Claude Code's ``SessionEnd`` hook, Codex's ``notify``,
OpenCode's plugin).

Thin: parse, plan the edit (:mod:`memctl.hooks.claude_code`, :mod:`memctl.hooks.codex`),
show the diff on stderr, ask (or ``--yes``), write atomically; ``hooks run`` is
what the Claude Code hook calls (Codex calls :mod:`memctl.hooks.codex_notify`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, app, console, settings_from_flags
from memctl.cli.consent import confirm_write
from memctl.cli.path_options import existing_directory
from memctl.exit_codes import UsageError

hooks_app = typer.Typer(help="Capture sessions while an agent works: Claude Code's SessionEnd hook, Codex's "
                             "notify program, OpenCode's plugin.",
                        no_args_is_help=True)
app.add_typer(hooks_app, name="hooks")

ClaudeCodeFlag = Annotated[bool, typer.Option("--claude-code", help="Claude Code's settings.json (in --claude-dir).")]
ClaudeDir = Annotated[Optional[Path], typer.Option("--claude-dir", metavar="DIR", help="Claude Code's configuration "
                                                   "directory (default: $CLAUDE_CONFIG_DIR, then ~/.claude).")]
CodexFlag = Annotated[bool, typer.Option("--codex", help="Codex CLI's config.toml (in --codex-home): memctl as "
                                         "its notify program (a notify program already there still runs).")]
CodexHome = Annotated[Optional[Path], typer.Option("--codex-home", metavar="DIR", help="Codex CLI's home (default: "
                                                   "$CODEX_HOME, then ~/.codex).")]
OpencodeFlag = Annotated[bool, typer.Option("--opencode", help="OpenCode: memctl's plugin file plugin/"
                                            "memctl-capture.js (in --opencode-config), run when a session goes idle.")]
OpencodeConfig = Annotated[Optional[Path], typer.Option("--opencode-config", metavar="DIR", help="OpenCode's config "
                                                        "directory (default: $XDG_CONFIG_HOME/opencode, then "
                                                        "~/.config/opencode; a project's: DIR/.opencode).")]
YesFlag = Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking (the diff is still shown).")]


def _which(*flags: bool) -> None:
    if sum(flags) != 1:
        raise UsageError("say which agent: --claude-code, --codex or --opencode (one at a time)")


def _given_directories(claude_dir: Path | None, codex_home: Path | None, opencode_config: Path | None) -> None:
    """Refuse an agent directory named on the command line that does not exist (a typo would be written to)."""
    existing_directory("--claude-dir", claude_dir)
    existing_directory("--codex-home", codex_home)
    existing_directory("--opencode-config", opencode_config)


def _opencode_dir(directory: Path | None) -> Path:
    from memctl.serve.opencode_config import global_config_dir

    return (directory if directory is not None else global_config_dir()).absolute()


def _apply(plan, yes: bool, done: str, apply=None) -> None:
    if apply is None:
        from memctl.hooks.claude_code import apply

    if not plan.changed:
        console.print(f"{plan.path}: nothing to change", highlight=False)
        return
    terminal.write_err(plan.diff())
    confirm_write(plan.path, yes=yes)
    apply(plan)
    console.print(f"{'wrote' if plan.after else 'removed'} {plan.path}: {done}", highlight=False)


@hooks_app.command("install")
def install(claude_code: ClaudeCodeFlag = False, claude_dir: ClaudeDir = None,
            codex: CodexFlag = False, codex_home: CodexHome = None,
            opencode: OpencodeFlag = False, opencode_config: OpencodeConfig = None,
            print_only: Annotated[bool, typer.Option("--print", help="Print the settings.json (config.toml, plugin "
                                                     "file) it would write; change nothing.")] = False,
            yes: YesFlag = False, home: HomeOption = None) -> None:
    """Add a SessionEnd hook (Claude Code), the notify program (Codex) or a plugin (OpenCode) that ingests each
    finished session (diff shown first)."""
    from memctl.config import DataHome
    from memctl.connectors.claude_code.source import resolve_claude_dir
    from memctl.hooks.claude_code import plan_install

    _which(claude_code, codex, opencode)
    _given_directories(claude_dir, codex_home, opencode_config)
    settings = settings_from_flags(home)
    if opencode:
        from memctl.hooks import codex as codex_hook, opencode as opencode_hook

        opencode_plan = opencode_hook.plan_install(_opencode_dir(opencode_config), DataHome(settings.home).root,
                                                   env=codex_hook.carried_env())
        if print_only:
            terminal.write_out(opencode_plan.after)
            return
        _apply(opencode_plan, yes, "each session that goes idle is ingested in the background "
               "(log: <home>/logs/hooks/opencode-idle.log)", opencode_hook.apply)
        return
    if codex:
        from memctl.connectors.codex.source import resolve_codex_home
        from memctl.hooks import codex as codex_hook

        codex_plan = codex_hook.plan_install(resolve_codex_home(codex_home).absolute(), DataHome(settings.home).root,
                                             env=codex_hook.carried_env())
        if print_only:
            terminal.write_out(codex_plan.after)
            return
        _apply(codex_plan, yes, "each finished turn's thread is ingested in the background "
               "(log: <home>/logs/hooks/codex-notify.log)", codex_hook.apply)
        return
    directory = resolve_claude_dir(claude_dir).absolute()
    plan = plan_install(directory, DataHome(settings.home).root)
    if print_only:
        terminal.write_out(plan.after)
        return
    _apply(plan, yes, "each finished session is ingested in the background (log: <home>/logs/hooks.log)")


@hooks_app.command("uninstall")
def uninstall(claude_code: ClaudeCodeFlag = False, claude_dir: ClaudeDir = None, codex: CodexFlag = False,
              codex_home: CodexHome = None, opencode: OpencodeFlag = False, opencode_config: OpencodeConfig = None,
              yes: YesFlag = False) -> None:
    """Remove memctl's hooks (only those) from Claude Code's settings.json or Codex's config.toml, or memctl's
    OpenCode plugin file (diff shown first; a notify program memctl chained is put back)."""
    from memctl.connectors.claude_code.source import resolve_claude_dir
    from memctl.hooks.claude_code import plan_uninstall

    _which(claude_code, codex, opencode)
    _given_directories(claude_dir, codex_home, opencode_config)
    if opencode:
        from memctl.hooks import opencode as opencode_hook

        _apply(opencode_hook.plan_uninstall(_opencode_dir(opencode_config)), yes, "memctl's plugin removed",
               opencode_hook.apply)
        return
    if codex:
        from memctl.connectors.codex.source import resolve_codex_home
        from memctl.hooks import codex as codex_hook

        _apply(codex_hook.plan_uninstall(resolve_codex_home(codex_home).absolute()), yes, "memctl's notify removed",
               codex_hook.apply)
        return
    _apply(plan_uninstall(resolve_claude_dir(claude_dir).absolute()), yes, "memctl's hooks removed")


@hooks_app.command("run", hidden=True)
def run(agent: Annotated[str, typer.Argument(metavar="AGENT", help="claude-code")],
        claude_dir: ClaudeDir = None, home: HomeOption = None) -> None:
    """What the hook runs: start the ingest of the session named on stdin, detached, and return."""
    from memctl.config import DataHome
    from memctl.hooks.claude_code import spawn_ingest

    if agent != "claude-code":
        raise UsageError(f"unknown agent {agent!r}: claude-code")
    settings = settings_from_flags(home)
    data_home = DataHome(settings.home)
    spawn_ingest(sys.stdin.read(1_000_000), data_home.root, claude_dir, data_home.logs / "hooks.log")
