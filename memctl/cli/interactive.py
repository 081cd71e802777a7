"""Is a person at this terminal? The one test for decisions only a person may take.

``memctl remember`` records ``origin: person`` and ``memctl review`` approves, edits or rejects only
when both stdin and stderr are terminals (``isatty``): an agent that runs the CLI through a tool call
has pipes there. This cannot tell a person from a program that allocates a pseudo-terminal on purpose
(README "What memctl trusts, and why", what the rules cannot judge).
"""

from __future__ import annotations

import sys

from memctl.cli import terminal
from memctl.exit_codes import NotInteractiveError


def at_terminal() -> bool:
    """True when stdin and stderr (the command's own, :mod:`memctl.cli.terminal`) are both TTYs."""
    try:
        return bool(sys.stdin is not None and sys.stdin.isatty() and terminal.ERR.isatty())
    except (ValueError, OSError):  # a closed or detached stream is no terminal
        return False


def require_terminal(what: str) -> None:
    """Raise unless a person is at an interactive terminal.

    Raises:
        NotInteractiveError: stdin or stderr is not a TTY (exit 13); the message names ``what`` was refused.
    """
    if not at_terminal():
        raise NotInteractiveError(f"{what} needs a person at an interactive terminal (stdin and stderr are not "
                                  "both terminals); no flag, MCP tool or schedule can do it")
