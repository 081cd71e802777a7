"""The CLI's one error boundary: every domain error becomes one line on stderr and its exit code.

It is the root command group's ``invoke``, so the console script, ``python -m
memctl.cli`` and tests driving the app with Typer's ``CliRunner`` all pass
through it. Each error class carries its code (:class:`memctl.exit_codes.ExitCodeError`);
this module holds no table. An ``OSError`` that reaches it is the data home's
(not writable, disk full, a file where a directory belongs). Anything else is
a bug and keeps its traceback (exit 1).
"""

from __future__ import annotations

import errno
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from memctl.exit_codes import HOME, INTERRUPTED, ExitCodeError

_stderr = Console(stderr=True)


def fail(message: str, exit_code: int) -> typer.Exit:
    """Print ``error: <message>`` on stderr; return the :class:`typer.Exit` to raise."""
    _stderr.print(f"[red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    return typer.Exit(exit_code)


class ErrorBoundaryGroup(TyperGroup):
    """The root ``memctl`` group: runs the chosen command and maps what it raises to an exit code."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ExitCodeError as exc:
            raise fail(str(exc), exc.exit_code) from exc
        except KeyboardInterrupt as exc:
            raise fail("interrupted; what finished is recorded, re-run to continue", INTERRUPTED) from exc
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # the reader went away (`| head`): Typer exits quietly
            raise fail(f"cannot use the data home: {exc}", HOME) from exc
