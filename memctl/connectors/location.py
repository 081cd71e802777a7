"""Where a connector finds its agent's history: one precedence rule shared by the file-based connectors.

The rule is each agent's own: an explicit option, then the agent's environment variable
(``CLAUDE_CONFIG_DIR`` for Claude Code, ``CODEX_HOME`` for Codex), then the agent's default folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["history_location"]


def history_location(explicit: str | Path | None, env: Mapping[str, str] | None, variable: str, default: str) -> Path:
    """``explicit`` > ``env[variable]`` > ``default`` (``~`` expanded in each; nothing is checked on disk).

    ``env`` None means the process environment. Returns an absolute or ``~``-expanded path; raises nothing.
    """
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    if env.get(variable):
        return Path(env[variable]).expanduser()
    return Path(default).expanduser()
