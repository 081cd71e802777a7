"""Promoted user memories: the Markdown files under ``user/`` and what they are about.

A memory file is YAML front matter + the memory text::

    ---
    kind: preference            # preference | decision | note | consolidated
    created: '2026-11-30T05:45:12Z'   # when the fact was stated (newest wins on conflict)
    session: ses_123
    topic: alpha                # or null
    proposal: 20261130T054512Z-a1b2c3   # or members: [...] for a consolidated memory
    provenance: {origin: agent, channel: mcp, session: ses_123, source: null, time: '…'}
                                # a list of the members' records for a consolidated memory
    action: [url]               # the action classification, when the memory is action-bearing
    approved_by: person         # only when a person approved it in `memctl review`
    ---
    Use pnpm, not npm, in this repo.

The bytes depend only on the proposal (no promotion time), so promoting the
same proposal twice writes identical content: a store no-op.

Scope comes from the path: ``user/global/…``, ``user/topics/<topic>/…`` or
``user/sessions/<session>/…``; a memory only ever merges with others of the
same scope, and its topic (path or front matter) decides which Cognee dataset
the rebuild adds it to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memctl.front_matter import read_front_matter, render_front_matter, strip_front_matter
from memctl.store.provenance import Provenance, trusted_origin


@dataclass(frozen=True)
class UserMemoryFile:
    """One memory file as sleep sees it: store path, sha, text, front matter fields."""

    path: str
    sha: str
    text: str
    kind: str
    created: str
    topic: str | None
    session: str | None
    provenance: Any = field(default=None, compare=False, hash=False)
    person_chosen: bool = False

    @property
    def dataset(self) -> str | None:
        """The Cognee dataset this memory belongs to: its topic, only for ``user/topics/<topic>/`` files.

        Session memories stay private to their session and global ones reach
        every answer through ``[USER_MEMORY]``; neither goes into a shared
        topic graph, where other sessions' searches would find them.
        """
        parts = self.path.split("/")
        return parts[2] if len(parts) > 3 and parts[1] == "topics" else None

    @property
    def scope(self) -> str:
        """``user/global``, ``user/topics/<t>`` or ``user/sessions/<s>`` (the directory it lives in)."""
        return self.path.rsplit("/", 1)[0]


def render_memory(text: str, *, kind: str, created: str, session: str | None, topic: str | None,
                  extra: dict[str, Any] | None = None) -> str:
    """The file content of a memory (deterministic; see the module doc)."""
    meta: dict[str, Any] = {"kind": kind, "created": created, "session": session, "topic": topic, **(extra or {})}
    return render_front_matter(meta, text, blank_line=False)


def parse_memory(path: str, sha: str, content: str) -> UserMemoryFile:
    """Read a memory file; files without front matter (written by hand, or older) are plain notes."""
    meta = read_front_matter(content)
    parts = path.split("/")
    topic = meta.get("topic") or (parts[2] if len(parts) > 3 and parts[1] == "topics" else None)
    session = meta.get("session") or (parts[2] if len(parts) > 3 and parts[1] == "sessions" else None)
    return UserMemoryFile(path=path, sha=sha, text=strip_front_matter(content).strip(),
                          kind=str(meta.get("kind") or "note"), created=str(meta.get("created") or ""),
                          topic=str(topic) if topic else None, session=str(session) if session else None,
                          provenance=member_provenance(meta), person_chosen=trusted_origin(meta))


def member_provenance(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """A memory's provenance records as a list (one for a promoted proposal, the members' for a merge);
    a file without any (written by hand, or before provenance existed) reads as one ``agent`` record."""
    records = meta.get("provenance")
    if isinstance(records, list):
        return [_with_approval(Provenance.from_dict(r).as_dict(), r) for r in records] or [
            Provenance.from_dict(None).as_dict()]
    record = Provenance.from_dict(records, session=str(meta.get("session") or ""), time=str(meta.get("created") or ""))
    return [_with_approval(record.as_dict(), meta)]


def _with_approval(record: dict[str, Any], source: object) -> dict[str, Any]:
    """``record`` plus ``approved_by: person`` when ``source`` (front matter or a member record) says so."""
    if isinstance(source, dict) and source.get("approved_by") == "person":
        return {**record, "approved_by": "person"}
    return record


def provenance_lines(content: str) -> list[str]:
    """One line per provenance record in ``content``'s front matter (a merge has one per member), for
    ``memctl show`` and ``history``; none when there is no ``provenance`` (a note, a hand-written memory)."""
    meta = read_front_matter(content)
    if "provenance" not in meta:
        return []
    return [Provenance.from_dict(r).describe() + (", approved by person" if r.get("approved_by") == "person" else "")
            for r in member_provenance(meta)]
