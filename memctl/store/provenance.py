"""Where a memory came from: its provenance, kept from the proposal to the promoted file and the audit log.

A proposal and every memory promoted from it carry one provenance record (JSON in the proposal, YAML in
the memory's front matter under ``provenance``)::

    {"origin": "person" | "agent",    # who asked for it to be remembered (see below)
     "channel": "remember" | "mcp" | "ask" | "review",   # the way it came in ("unknown" if unstated)
     "session": "ses_123",            # the session it belongs to
     "source": "tool output of `pytest -q`" | null,     # what it was taken from, when the caller said so
     "time": "2026-11-30T05:45:12.345Z"}                # when it was proposed (UTC, ISO-8601)

Origins (README "What memctl trusts, and why"):

* ``person`` — ``memctl remember`` run on an interactive terminal (stdin and stderr are TTYs), or a
  decision a person took in ``memctl review`` (``channel: review``);
* ``agent`` — everything else: the MCP tool ``memory_remember``, ``ask``'s own proposals, and
  ``memctl remember`` without a TTY (an agent with a shell can run the CLI too).

A record that is missing or unreadable is read as ``agent``: trust is never inferred from absence.
A consolidated memory keeps the list of its members' records (``provenance: [...]``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

ORIGINS = ("person", "agent")
CHANNELS = ("remember", "mcp", "ask", "review", "sleep", "unknown")
MAX_SOURCE_CHARS = 300
_SOURCE_BAD = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


@dataclass(frozen=True)
class Provenance:
    """One provenance record (see the module doc for the fields and their meaning)."""

    origin: str
    channel: str
    session: str
    source: str | None
    time: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """One line for people: ``origin agent via mcp, session ses_1, 2026-11-30T05:45:12Z, from "…"``."""
        line = f"origin {self.origin} via {self.channel}, session {self.session}, {self.time or 'unknown time'}"
        return line + (f", from {self.source!r}" if self.source else "")

    @classmethod
    def from_dict(cls, data: object, *, session: str = "", time: str = "") -> "Provenance":
        """Read a stored record; anything missing or malformed is the least trusted value (``agent``)."""
        raw = data if isinstance(data, dict) else {}
        origin = raw.get("origin") if raw.get("origin") in ORIGINS else "agent"
        channel = raw.get("channel") if raw.get("channel") in CHANNELS else "unknown"
        source = raw.get("source")
        return cls(origin=str(origin), channel=str(channel), session=str(raw.get("session") or session),
                   source=clean_source(source) if isinstance(source, str) else None,
                   time=str(raw.get("time") or time))


def clean_source(value: str | None) -> str | None:
    """A caller's ``source`` as stored: one line, control characters removed, at most 300 characters.

    The source is shown to people and quoted into answer contexts, never trusted; None or blank gives None.
    """
    if value is None:
        return None
    text = " ".join(_SOURCE_BAD.sub(" ", str(value)).split())
    return text[:MAX_SOURCE_CHARS] or None


def origin_of(proposal: dict[str, Any]) -> str:
    """``person`` or ``agent`` for a parsed proposal or front matter (``agent`` when unstated)."""
    return Provenance.from_dict(proposal.get("provenance")).origin


def trusted_origin(meta: dict[str, Any]) -> bool:
    """True when a memory's front matter says a person chose it: its own provenance is ``person``, or a
    person approved it in review. A consolidated memory is person-chosen only when every member was."""
    records = meta.get("provenance")
    if isinstance(records, list):
        return bool(records) and all(Provenance.from_dict(r).origin == "person"
                                     or (isinstance(r, dict) and r.get("approved_by") == "person") for r in records)
    return Provenance.from_dict(records).origin == "person" or bool(meta.get("approved_by") == "person")
