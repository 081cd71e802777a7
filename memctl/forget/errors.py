"""The error a forget or purge raises for a user's mistake or an unfinished run."""

from __future__ import annotations

from memctl.exit_codes import ExitCodeError


class ForgetError(ExitCodeError):
    """Forget/purge cannot run as asked; the message says what to do; ``exit_code`` from memctl.exit_codes."""
