"""The CLI's one error boundary: every domain error becomes one line on stderr and its exit code.

It is the root command group's ``invoke``, so the console script, ``python -m
memctl.cli`` and tests driving the app with Typer's ``CliRunner`` all pass
through it. Each error class carries its code (:class:`memctl.exit_codes.ExitCodeError`);
this module holds no table; Ctrl-C exits 130, and SIGTERM 143: while a command runs, SIGTERM
raises :class:`memctl.exit_codes.Terminated` (a ``KeyboardInterrupt``) in the main thread, so
every clean-up written for Ctrl-C runs and the process ends with the same one line. An ``OSError`` that reaches it is the data home's
(not writable, disk full, a file where a directory belongs). Anything else is
a bug and keeps its traceback (exit 1).

Before the command runs, the boundary pins memctl's own streams
(:mod:`memctl.cli.terminal`) and prepares the routing of library output to
the data home's log (:mod:`memctl.cli.log_routing`; it starts when the
command reads its settings and ends here). With ``--json`` among the command's
arguments, an error is also printed as ``{"error": <message>, "exit_code":
<code>}`` on stdout (the human line stays on stderr), so a script reading
stdout always gets JSON.
"""

from __future__ import annotations

import errno
import json
import signal
import sys
import threading
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from memctl.cli import log_routing, named_home, terminal
from memctl.cli.path_options import blank_value
from memctl.exit_codes import HOME, INTERRUPTED, USAGE, ExitCodeError, Terminated, UsageError
from memctl.os_errors import describe

# emoji off: Rich would turn text such as :smile: in a path into an emoji (markup is escaped in fail()).
_stderr = Console(file=terminal.ERR, emoji=False)
_json_errors = False  # the running command was given --json


def json_error(message: str, exit_code: int) -> str:
    """The JSON document of a failed ``--json`` command: ``{"error": message, "exit_code": exit_code}``."""
    return json.dumps({"error": message, "exit_code": exit_code})


def fail(message: str, exit_code: int) -> typer.Exit:
    """Print ``error: <message>`` on stderr (and its JSON on stdout under ``--json``); return the Exit to raise."""
    if _json_errors:
        terminal.write_out(json_error(message, exit_code) + "\n")
    _stderr.print(f"[red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    return typer.Exit(exit_code)


def _words(ctx: typer.Context) -> list[str]:
    """The command line's words after the root options (the command's name first)."""
    return [*(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", None) or ()), *ctx.args]


def _json_requested(ctx: typer.Context) -> bool:
    """``--json`` among the command line's words after the root options (up to a ``--``)."""
    args = _words(ctx)
    return "--json" in (args[:args.index("--")] if "--" in args else args)


# Commands that only read the data home: an interrupted one left nothing to resume. (`ask` stages a
# proposal only at its very end, atomically.)
READ_ONLY_COMMANDS = frozenset({"ask", "search", "topics", "list", "show", "history", "doctor", "config"})
ROOT_FLAGS = ("--verbose",)  # root options also accepted after the command name (`memctl ingest --verbose`)


def hoist_root_flags(args: list[str]) -> list[str]:
    """``args`` with every :data:`ROOT_FLAGS` word that comes after the command name moved before it, so
    ``memctl ingest --verbose`` means ``memctl --verbose ingest``. Words after a ``--`` (text such as
    ``remember -- --verbose``) stay where they are."""
    end = args.index("--") if "--" in args else len(args)
    hoisted = [a for a in args[:end] if a in ROOT_FLAGS]
    if not hoisted:
        return list(args)
    return [*dict.fromkeys(hoisted), *(a for a in args[:end] if a not in ROOT_FLAGS), *args[end:]]


COMPLETION_SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")  # Typer's completion scripts (typer Shells)


def unsupported_completion_shell(args: list[str]) -> str | None:
    """The shell ``--install-completion SHELL`` / ``--show-completion SHELL`` names when Typer has no script for
    it (Typer would install its bash script for ``tcsh`` and exit 0), else None."""
    for i, word in enumerate(args):
        name, equals, value = word.partition("=")
        if name not in ("--install-completion", "--show-completion"):
            continue
        if not equals:
            value = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("-") else ""
        if value and value not in COMPLETION_SHELLS:
            return value
    return None


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def _catch_sigterm() -> object:
    """Turn SIGTERM into :class:`Terminated` (main thread only); return the handler to restore, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.signal(signal.SIGTERM, _terminate)
    return previous if previous is not None else signal.SIG_DFL


class ErrorBoundaryGroup(TyperGroup):
    """The root ``memctl`` group: runs the chosen command and maps what it raises to an exit code."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        shell = unsupported_completion_shell(args)
        if shell is not None:
            raise fail(f"no shell completion for {shell!r}: choose from {', '.join(COMPLETION_SHELLS)}", USAGE)
        return super().parse_args(ctx, hoist_root_flags(args))

    def invoke(self, ctx: typer.Context) -> Any:
        global _json_errors
        _json_errors = _json_requested(ctx)
        terminal.pin(sys.stdout, sys.stderr)
        routing = log_routing.prepare(sys.stdout, sys.stderr, verbose=bool(ctx.params.get("verbose")))
        sigterm = _catch_sigterm()
        try:
            named_home.set_command(next(iter(_words(ctx)), None))
            blank = blank_value(self, ctx, _words(ctx))
            if blank is not None:
                raise UsageError(blank)
            return super().invoke(ctx)
        except ExitCodeError as exc:
            raise fail(str(exc), exc.exit_code) from exc
        except KeyboardInterrupt as exc:
            # Ctrl-C, or SIGTERM where a command stops cleanly (Terminated). A command may say in the
            # exception's message what the stop left (a dry run: nothing).
            stopped, code = ("terminated", exc.exit_code) if isinstance(exc, Terminated) else ("interrupted", INTERRUPTED)
            read_only = ctx.invoked_subcommand in READ_ONLY_COMMANDS
            left = str(exc) or (f"{ctx.invoked_subcommand} only reads the data home: nothing changed" if read_only
                                else "what finished is recorded, re-run to continue")
            raise fail(f"{stopped}; {left}", code) from exc
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # the reader went away (`| head`): Typer exits quietly
            if isinstance(exc.__context__, BrokenPipeError):
                # Rich's own broken-pipe handler calls sys.stdout.fileno(), which our routed stdout lacks
                # (io.UnsupportedOperation): it is the same gone reader, not a data home problem
                raise exc.__context__ from None
            raise fail(f"cannot use the data home: {describe(exc)}", HOME) from exc
        except Exception as exc:
            if _json_errors and isinstance(getattr(exc, "exit_code", None), int) and hasattr(exc, "format_message"):
                # Click's usage errors: JSON here, Click prints its usage message on stderr afterwards
                terminal.write_out(json_error(exc.format_message(), exc.exit_code) + "\n")
            raise
        finally:
            if sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)  # type: ignore[arg-type]
            routing.end()
            terminal.unpin()
            named_home.set_command(None)
            _json_errors = False
