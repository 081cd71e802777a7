"""The ingest checkpoint: ``progress.json`` and ``skipped.json`` in the data home.

State machine: ``absent → distilled | skipped | error``; ``error → distilled |
skipped``; any → ``purged`` (``memctl purge --session``: never distilled again) or
``forgotten`` (``memctl forget`` of its ``memory/`` note: never published again). What a run does with each state is :func:`memctl.ingest.plan.decide`.

``progress.json`` shape (keys without a value are left out; see :class:`Entry`)::

    {"format": 1,
     "sources": {"<source id>": {"status": "distilled"|"skipped"|"error"|"purged"|"forgotten",
                                 "session_updated": int,  # source time_updated (ms) when handled
                                 "covered_until": int,    # newest part time (ms) in its notes
                                 "revert": str,           # the undo boundary when handled (absent: none)
                                 "continuations": int,    # continuation notes so far
                                 "continuation_of": str,  # on a continuation's own entry
                                 "topic": str, "title": str,
                                 "reason": str,          # skipped
                                 "skip_kind": "threshold"|"junk",
                                 "error": str, "attempts": int,   # error
                                 "prompt_version": str, "model": str,
                                 "transcript_sha256": str, "note_sha256": str,
                                 "updated": ISO-8601 UTC}}}

``skipped.json`` mirrors the skipped ids with their reasons for review:
``{"<source id>": {"reason", "skip_kind", "title", "topic", "prompt_version", "updated"}}``.

One writer: only the thread that owns a :class:`Checkpoint` mutates it; every
change is persisted atomically before the call returns, so a SIGKILL never
loses a recorded outcome and never leaves a torn file.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import RootModel

from memctl.state_file import StateFileError, StateModel, read_state, write_state

STATUSES = ("distilled", "skipped", "error")
REMOVED = ("purged", "forgotten")  # set by `memctl purge --session` / `memctl forget` (memctl.forget)
FORMAT = 1


class CheckpointError(StateFileError):
    """A data-home state file (progress.json, skipped.json, topics.json) is unreadable;
    the message names the file and the fix."""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_INT_FIELDS = ("session_updated", "covered_until", "continuations", "attempts")


@dataclass(frozen=True)
class Entry:
    """One session's record in ``progress.json``. ``None`` means the key is absent from the file.

    Times are epoch milliseconds of the source; ``updated`` is when the entry was written (UTC).
    ``revert`` is the source's undo boundary when the session was handled
    (:attr:`memctl.connectors.model.SessionInfo.revert_key`; ``''`` or absent: nothing undone).
    Keys this version does not know are kept in ``extra`` and written back unchanged.
    """

    status: str
    session_updated: int | None = None
    covered_until: int | None = None
    revert: str | None = None
    continuations: int | None = None
    continuation_of: str | None = None
    topic: str | None = None
    title: str | None = None
    reason: str | None = None
    skip_kind: str | None = None
    error: str | None = None
    attempts: int | None = None
    prompt_version: str | None = None
    model: str | None = None
    transcript_sha256: str | None = None
    note_sha256: str | None = None
    updated: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def covered_from(self) -> int:
        """Parts created after this time (ms) are new since the entry's notes: ``covered_until``,
        else ``session_updated`` (entries written before coverage was recorded), else 0."""
        return self.covered_until or self.session_updated or 0

    @classmethod
    def from_json(cls, source_id: str, raw: dict[str, Any], path: Path) -> "Entry":
        """Read one stored entry.

        Raises:
            CheckpointError: a number that is not a number, naming the file, the id and the key.
        """
        known = {f.name for f in fields(cls)} - {"extra"}
        values: dict[str, Any] = {"status": str(raw.get("status", ""))}
        for key, value in raw.items():
            if key not in known or key == "status" or value is None:
                continue
            if key in _INT_FIELDS:
                try:
                    values[key] = int(value)
                except (TypeError, ValueError) as exc:
                    raise CheckpointError(f"{path} holds {key}={value!r} for {source_id}, not a number; restore the "
                                          "file or move it aside (sessions will then be re-evaluated)") from exc
            else:
                values[key] = value if isinstance(value, str) else str(value)
        return cls(**values, extra={k: v for k, v in raw.items() if k not in known})

    def to_json(self) -> dict[str, Any]:
        """The stored shape: set keys only, unknown keys kept."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        return {**self.extra, **{k: v for k, v in data.items() if v is not None}}


class ProgressFile(StateModel):
    """``progress.json``'s shape as read: ``sources`` maps each source id to an entry object (see :class:`Entry`)."""

    sources: dict[str, dict[str, Any]] = {}


class SkippedFile(RootModel[dict[str, dict[str, Any]]]):
    """``skipped.json``'s shape as read: each skipped source id to an object of its reason and title."""


_DAMAGE_FIX = ("it was written atomically, so this is outside damage: restore it from a backup or move it aside "
               "(sessions will then be re-evaluated)")


def _load(path: Path, key: str | None) -> dict[str, Any]:
    """``progress.json``'s sources (``key`` "sources") or ``skipped.json``'s entries ({} when the file is absent).

    Raises:
        CheckpointError: the file is damaged (:func:`memctl.state_file.read_state`), naming it.
    """
    state = read_state(path, ProgressFile if key else SkippedFile, problem="is corrupt", fix=_DAMAGE_FIX,
                       error=CheckpointError)
    if state is None:
        return {}
    return state.sources if isinstance(state, ProgressFile) else state.root


def _scrubbed_title(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with its ``title`` through :func:`memctl.scrub.title.scrub_title` (the one scrub
    every stored title passes; a caller's scrubbed title comes back unchanged)."""
    from memctl.scrub.title import scrub_title

    title = fields.get("title")
    return fields if not isinstance(title, str) or not title else {**fields, "title": scrub_title(title)}

class Checkpoint:
    """progress.json + skipped.json of one data home.

    Raises (on load): CheckpointError for a corrupt file or a damaged entry.
    """

    def __init__(self, progress_path: Path, skipped_path: Path) -> None:
        self.progress_path = progress_path
        self.skipped_path = skipped_path
        self.entries: dict[str, Entry] = {sid: Entry.from_json(sid, raw, progress_path)
                                          for sid, raw in _load(progress_path, "sources").items()}
        self.skipped: dict[str, dict[str, Any]] = _load(skipped_path, None)

    def status(self, source_id: str) -> str:
        """``absent``, one of :data:`STATUSES` or of :data:`REMOVED`."""
        entry = self.entries.get(source_id)
        return entry.status if entry else "absent"

    def entry(self, source_id: str) -> Entry | None:
        """The stored entry, ``None`` when absent."""
        return self.entries.get(source_id)

    def distilled(self) -> dict[str, Entry]:
        """The entries whose note was accepted, by source id."""
        return {sid: e for sid, e in self.entries.items() if e.status == "distilled"}

    def update(self, source_id: str, **changes: Any) -> None:
        """Change fields of an existing entry (e.g. a root's coverage after a continuation); no-op when absent."""
        if source_id in self.entries:
            self.entries[source_id] = replace(self.entries[source_id], **changes, updated=_now())
            self._save()

    def _save(self) -> None:
        write_state(self.progress_path, {"format": FORMAT,
                                               "sources": {sid: e.to_json() for sid, e in self.entries.items()}})

    def _save_skipped(self) -> None:
        write_state(self.skipped_path, self.skipped)

    def mark_distilled(self, source_id: str, **fields: Any) -> None:
        """Record a written note (call only after the note file is on disk). ``fields``: :class:`Entry` fields."""
        self.entries[source_id] = Entry(status="distilled", **_scrubbed_title(fields), updated=_now())
        self._save()
        if self.skipped.pop(source_id, None) is not None:
            self._save_skipped()

    def mark_skipped(self, source_id: str, *, reason: str, skip_kind: str, **fields: Any) -> None:
        """Record a skip in both files; ``skip_kind`` is ``threshold`` or ``junk``."""
        entry = Entry(status="skipped", reason=reason, skip_kind=skip_kind, **_scrubbed_title(fields), updated=_now())
        self.entries[source_id] = entry
        self.skipped[source_id] = {"reason": reason, "skip_kind": skip_kind, "updated": entry.updated} | {
            k: v for k in ("title", "topic", "prompt_version") if (v := getattr(entry, k)) is not None
        }
        self._save_skipped()
        self._save()

    def mark_error(self, source_id: str, *, error: str, **fields: Any) -> None:
        """Record a failed attempt; the attempt count accumulates across runs. An error on a
        re-evaluation never erases a good earlier outcome (``distilled`` or ``skipped`` stays)."""
        previous = self.entries.get(source_id)
        if previous is not None and previous.status in ("distilled", "skipped"):
            return
        attempts = (previous.attempts or 0) + 1 if previous else 1
        self.entries[source_id] = Entry(status="error", error=error, attempts=attempts, **fields, updated=_now())
        self._save()

    def mark_removed(self, source_id: str, status: str) -> None:
        """Record that the user removed the session (``purged``) or its note (``forgotten``), keeping
        only its topic (the entry's title and reasons may hold what was removed); ingest never
        distills a purged session again nor publishes a forgotten note (:func:`memctl.ingest.plan.decide`).

        Raises:
            ValueError: ``status`` is neither ``purged`` nor ``forgotten``.
        """
        if status not in REMOVED:
            raise ValueError(f"not a removal status: {status!r}")
        previous = self.entries.get(source_id)
        self.entries[source_id] = Entry(status=status, topic=previous.topic if previous else None,
                                        continuation_of=previous.continuation_of if previous else None,
                                        session_updated=previous.session_updated if previous else None,
                                        updated=_now())
        self._save()
        if self.skipped.pop(source_id, None) is not None:
            self._save_skipped()

    def forget_entry(self, source_id: str) -> None:
        """Delete the entry altogether (``purge --allow-reingest``: the next ingest treats the session as new)."""
        removed = self.entries.pop(source_id, None) is not None
        if removed:
            self._save()
        if self.skipped.pop(source_id, None) is not None:
            self._save_skipped()

    def remove_continuations(self, root_id: str) -> list[str]:
        """Delete the entries of ``root_id``'s continuation notes; returns their ids."""
        ids = [sid for sid, entry in self.entries.items() if entry.continuation_of == root_id]
        for sid in ids:
            del self.entries[sid]
            self.skipped.pop(sid, None)
        if ids:
            self._save()
            self._save_skipped()
        return ids

    def counts(self) -> dict[str, int]:
        """Number of ids per status (an unknown status counts under its own name)."""
        out = {s: 0 for s in STATUSES}
        for entry in self.entries.values():
            out[entry.status or "error"] = out.get(entry.status or "error", 0) + 1
        return out
