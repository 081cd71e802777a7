"""OpenCode's placeholder session titles: recognised so that they never become a note's title.

OpenCode gives a session a placeholder title when it is created and replaces
it only when its title-generation model call succeeds (with a small local
model it often does not). The patterns, from OpenCode's source:

* ``New session - <ISO time>`` and, for subagent sessions, ``Child session -
  <ISO time>``: ``packages/opencode/src/session/index.ts``
  (``createDefaultTitle``: the prefix + ``new Date().toISOString()``, i.e.
  ``2026-11-29T22:06:41.123Z``; ``isDefaultTitle`` matches exactly that);
* ``ACP Session <uuid>``: ``packages/opencode/src/acp/session.ts``
  (``ACPSessionManager.create``: ``title: `ACP Session ${crypto.randomUUID()}```,
  never replaced);
* a fork of a session keeps its title with `` (fork #N)`` appended
  (``getForkedTitle`` in ``session/index.ts``), so a fork of an untitled
  session is still a placeholder.
"""

from __future__ import annotations

import re

_ISO_TIME = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_FORK = r"(?: \(fork #\d+\))*"

PLACEHOLDER_TITLE = re.compile(
    rf"(?:(?:New|Child) session - {_ISO_TIME}|ACP Session {_UUID}){_FORK}"
)
"""A whole title that is one of OpenCode's placeholders (match with ``fullmatch`` after ``strip``)."""


def is_placeholder_title(title: str) -> bool:
    """True when ``title`` is empty or one of OpenCode's automatic placeholders (see the module doc)."""
    stripped = title.strip()
    return not stripped or PLACEHOLDER_TITLE.fullmatch(stripped) is not None
