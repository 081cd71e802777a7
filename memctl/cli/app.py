"""The root Typer app, the two consoles, the options every command shares, and settings from flags.

Command modules (:mod:`memctl.cli.commands`) import this module and register
themselves on :data:`app`; :mod:`memctl.cli.main` imports them all. Nothing
here imports a command, so there is no import circle. Heavy imports (Cognee
takes seconds) happen inside the commands that need them, so ``memctl
--help`` stays fast.

Errors: commands raise the domain's errors; :mod:`memctl.cli.boundary` (the
root group's ``invoke``) turns each into one line on stderr and its exit code.

Output: :data:`stdout` (results, ``--json``) and :data:`console` (progress,
notes, warnings) write to the streams the command started with
(:mod:`memctl.cli.terminal`), never to whatever ``sys.stdout``/``sys.stderr``
are at the time: those carry library output to ``<home>/logs/library.log``
(:mod:`memctl.cli.log_routing`; :func:`settings_from_flags` names the home).
"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import click
import typer
from rich.console import Console
from rich.text import Text

from memctl.cli import log_routing, terminal
from memctl.cli.boundary import ErrorBoundaryGroup
from memctl.exit_codes import OK, UsageError

if TYPE_CHECKING:  # pydantic-settings costs ~100 ms: imported when a command runs, not for --help
    from memctl.config import Settings

HELP = "Local-first memory for coding agents: OpenCode history → distilled notes → Cognee graph memory."

app = typer.Typer(
    name="memctl",
    help=HELP,
    cls=ErrorBoundaryGroup,
    # Plain help: Typer's Rich help prints a type such as <bool> after every flag (its --help too).
    rich_markup_mode=None,
    no_args_is_help=True,
    # --install-completion / --show-completion (bash, zsh, fish, PowerShell; Typer's, shell found by shellingham)
    add_completion=True,
    pretty_exceptions_enable=False,
)
# soft_wrap: a line is never cut by Rich (a pipe is 80 columns to Rich, and a path split across two
# lines breaks every script that greps it); a terminal wraps long lines itself. Tables keep their layout.
# markup and emoji off: printed text holds paths, topics and model output, and Rich would read `[bold]` in
# a path as a style and `:smile:` as an emoji. A styled label goes through :func:`labelled`.
console = Console(file=terminal.ERR, soft_wrap=True, markup=False, emoji=False)
stdout = Console(file=terminal.OUT, soft_wrap=True, markup=False, emoji=False)


def labelled(label: str, style: str, rest: str = "") -> Text:
    """``label`` in the Rich ``style`` (e.g. ``"yellow"``) followed by ``rest`` as literal text: nothing
    in either is read as markup or emoji, so a path such as ``/tmp/a:smile:[b].db`` prints unchanged."""
    return Text.assemble((label, style), rest)

HomeOption = Annotated[Optional[Path], typer.Option(
    "--home", envvar="MEMCTL_HOME", show_envvar=False, metavar="DIR", help="Data home (default: one per user, `memctl config show` says where; also MEMCTL_HOME).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
WaitOption = Annotated[bool, typer.Option(
    "--wait", help="If another ingest or sleep holds the data home, wait for it instead of exiting 6.")]


class EngineName(str, Enum):
    """Sleep's engines by name, the values of the ``sleep_engine`` setting (a test holds them equal)."""

    local = "local"
    flyte = "flyte"


def engine_option(help_text: str) -> Any:
    """The ``--engine local|flyte`` option type of ``sleep`` and ``doctor``, with the command's own help; an
    unknown name is a usage error (exit 2) before the command runs."""
    return Annotated[Optional[EngineName], typer.Option("--engine", metavar="local|flyte", help=help_text)]


def _version(value: bool) -> None:
    if value:
        from memctl.about import installed_version

        stdout.print(f"memctl {installed_version()}")
        raise typer.Exit(OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Also show the libraries' log lines (Cognee, litellm, "
                                          "LanceDB, …) on stderr; they always go to <home>/logs/library.log. "
                                          "Accepted after the command too (memctl ingest --verbose).")] = False,
) -> None:
    """Local-first memory for coding agents: OpenCode history → distilled notes → Cognee graph memory."""


def given_on_command_line(ctx: typer.Context, **values: object) -> dict[str, object]:
    """The ``values`` (option name -> value) the command line gave, without those Click filled from an
    environment variable (``--home`` reads ``MEMCTL_HOME``) or a default: what ``config show`` calls a flag."""
    return {name: value for name, value in values.items() if value is not None
            and getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"}


class ConfigError(UsageError):
    """The flags, ``MEMCTL_*`` environment or config file hold an invalid value (exit 2)."""


def settings_from_flags(home: Optional[Path], **overrides: object) -> "Settings":
    """Settings from flags (``None`` = not given) over the environment, the config file and defaults.

    Validate before importing the ollama client: it reads ``OLLAMA_HOST`` at import. The data home's
    ``logs/`` receives library output from here on (:func:`memctl.cli.log_routing.attach`). With
    ``model_backend = "embedded"`` the embedded endpoint is started for the run and the settings point at it
    (:func:`memctl.embedded.endpoint.attach`).

    Raises:
        ConfigError: naming every invalid key and the flag, variable or file that set it; a ``MEMCTL_HOME``
            of only whitespace (exit 2).
    """
    from pydantic import ValidationError

    from memctl.config import Settings, config_file_path

    source = config_file_path()
    if os.environ.get("MEMCTL_CONFIG") and not source.is_file():
        raise ConfigError(f"MEMCTL_CONFIG points at {source}, which is not a file")
    update = {k: v for k, v in overrides.items() if v is not None}
    if home is not None and not str(home).strip():
        # The command line's blank values are refused before the command runs; this one came from the variable.
        raise ConfigError(f"MEMCTL_HOME is only whitespace ({str(home)!r}): give a path, or unset it for the default home")
    if home is not None:
        update["home"] = home
    try:
        # Validate flags together with the file and environment (model_copy would skip validation).
        settings = Settings(**update)
    except ValidationError as exc:
        from memctl.cli.config_problems import invalid_configuration

        raise ConfigError(invalid_configuration(exc, update, source)) from exc
    except ValueError as exc:  # TOML syntax errors
        raise ConfigError(f"cannot read the config file {source}: {exc}") from exc
    from memctl.cli.named_home import current_command, refuse_missing_named_home

    # Click fills --home from MEMCTL_HOME too: only a value typed on the command line is named as the flag. The
    # command body may run off Click's thread (no current context): then a value equal to MEMCTL_HOME is its.
    context = click.get_current_context(silent=True)
    if context is not None:
        typed = home if getattr(context.get_parameter_source("home"), "name", "") == "COMMANDLINE" else None
    else:
        from_env = os.environ.get("MEMCTL_HOME")
        typed = None if home is not None and from_env and Path(from_env) == Path(home) else home
    refuse_missing_named_home(settings, typed, current_command())  # before anything is written under it
    log_routing.attach(Path(settings.home).absolute())
    if settings.model_backend == "embedded":  # serve the embedded models on loopback for this run
        from memctl.embedded.endpoint import attach

        settings = attach(settings)
    return settings
