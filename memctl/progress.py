"""The ingest checkpoint: ``progress.json`` and ``skipped.json`` in the data home.

State machine (ingester design, "Resume state machine"):
``absent → distilled | skipped | error``; ``error → distilled | skipped``.
A ``distilled`` id is final unless ``--reparse-all``; a ``skipped`` id is
re-evaluated with ``--reparse-skipped``, or when it was skipped as JUNK under
an older distill prompt version.

``progress.json`` shape::

    {"format": 1,
     "sources": {"<source id>": {"status": "distilled"|"skipped"|"error",
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

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_json

STATUSES = ("distilled", "skipped", "error")
FORMAT = 1


class CheckpointError(Exception):
    """A data-home state file (progress.json, skipped.json, topics.json) is unreadable;
    the message names the file and the fix."""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _load(path: Path, key: str | None) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
        value = data.get(key, {}) if key else data
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise ValueError("entries are not objects")
        return value
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"{path} is corrupt ({exc}). It was written atomically, so this is outside damage: "
            f"restore it from a backup or move it aside (sessions will then be re-evaluated)."
        ) from exc


@dataclass
class Decision:
    """What to do with one session given its checkpoint entry: ``action`` is
    ``"process"`` or ``"done"``; ``why`` explains it for the plan/summary."""

    action: str
    why: str


class Checkpoint:
    """progress.json + skipped.json of one data home."""

    def __init__(self, progress_path: Path, skipped_path: Path) -> None:
        self.progress_path = progress_path
        self.skipped_path = skipped_path
        self.sources: dict[str, dict[str, Any]] = _load(progress_path, "sources")
        self.skipped: dict[str, dict[str, Any]] = _load(skipped_path, None)

    def status(self, source_id: str) -> str:
        """``absent`` or one of :data:`STATUSES`."""
        return self.sources.get(source_id, {}).get("status", "absent")

    def entry(self, source_id: str) -> dict[str, Any]:
        """The stored entry (empty dict when absent)."""
        return self.sources.get(source_id, {})

    def decide(
        self, source_id: str, *, prompt_version: str, reparse_skipped: bool, reparse_all: bool,
        session_updated: int | None = None, revert: str | None = None,
    ) -> Decision:
        """Apply the resume rules to one id.

        ``session_updated`` (epoch ms, the source's ``time_updated``) detects a
        session that grew after it was handled ("source grows during the run"
        in the ingester design): a grown skipped session is evaluated again; a
        grown distilled session gets ``action="continue"`` — its new parts are
        distilled into a continuation note, so the accepted note stays stable.
        ``revert`` (the source's undo boundary, ``SessionInfo.revert_key``; ''
        for none) that differs from the recorded one counts as growth too: an
        undo or redo changes what the session holds even where the source
        leaves ``time_updated`` alone.
        """
        entry = self.sources.get(source_id)
        if entry is None:
            return Decision("process", "new")
        status = entry.get("status")
        recorded = entry.get("session_updated")
        try:
            grew = session_updated is not None and recorded is not None and session_updated > int(recorded)
        except (TypeError, ValueError) as exc:
            raise CheckpointError(f"progress.json holds session_updated={recorded!r} for {source_id}, not a number; "
                                  "restore the file or move it aside") from exc
        grew = grew or (revert is not None and str(entry.get("revert") or "") != revert)
        if status == "error":
            return Decision("process", f"retry after error ({entry.get('attempts', 1)} attempts)")
        if status == "distilled":
            if reparse_all:
                return Decision("process", "reparse-all")
            return Decision("continue", "session grew since it was distilled") if grew else Decision("done", "already distilled")
        if status == "skipped":
            if reparse_all or reparse_skipped:
                return Decision("process", "reparse skipped")
            if grew:
                return Decision("process", "session grew since it was skipped")
            if entry.get("skip_kind") == "junk" and entry.get("prompt_version") != prompt_version:
                return Decision("process", f"prompt version {entry.get('prompt_version')} → {prompt_version}")
            return Decision("done", "already skipped")
        return Decision("process", f"unknown status {status!r}")

    def update(self, source_id: str, **fields: Any) -> None:
        """Merge ``fields`` into an existing entry (e.g. a root's coverage after a continuation)."""
        if source_id in self.sources:
            self.sources[source_id] = {**self.sources[source_id], **fields, "updated": _now()}
            self._save()

    def _save(self) -> None:
        atomic_write_json(self.progress_path, {"format": FORMAT, "sources": self.sources})

    def _save_skipped(self) -> None:
        atomic_write_json(self.skipped_path, self.skipped)

    def mark_distilled(self, source_id: str, **fields: Any) -> None:
        """Record a written note (call only after the note file is on disk)."""
        self.sources[source_id] = {"status": "distilled", **fields, "updated": _now()}
        self._save()
        if self.skipped.pop(source_id, None) is not None:
            self._save_skipped()

    def mark_skipped(self, source_id: str, *, reason: str, skip_kind: str, **fields: Any) -> None:
        """Record a skip in both files; ``skip_kind`` is ``threshold`` or ``junk``."""
        entry = {"status": "skipped", "reason": reason, "skip_kind": skip_kind, **fields, "updated": _now()}
        self.sources[source_id] = entry
        self.skipped[source_id] = {k: entry[k] for k in ("reason", "skip_kind", "updated")} | {
            k: fields[k] for k in ("title", "topic", "prompt_version") if k in fields
        }
        self._save_skipped()
        self._save()

    def mark_error(self, source_id: str, *, error: str, **fields: Any) -> None:
        """Record a failed attempt; the attempt count accumulates across runs."""
        attempts = int(self.sources.get(source_id, {}).get("attempts", 0)) + 1
        previous = self.sources.get(source_id, {})
        # An error on a re-evaluation must not erase a good earlier outcome's evidence.
        if previous.get("status") in ("distilled", "skipped"):
            return
        self.sources[source_id] = {"status": "error", "error": error, "attempts": attempts, **fields, "updated": _now()}
        self._save()

    def remove_continuations(self, root_id: str) -> list[str]:
        """Delete the entries of ``root_id``'s continuation notes; returns their ids."""
        ids = [sid for sid, entry in self.sources.items() if entry.get("continuation_of") == root_id]
        for sid in ids:
            del self.sources[sid]
            self.skipped.pop(sid, None)
        if ids:
            self._save()
            self._save_skipped()
        return ids

    def counts(self) -> dict[str, int]:
        """Number of ids per status."""
        out = {s: 0 for s in STATUSES}
        for entry in self.sources.values():
            out[entry.get("status", "error")] = out.get(entry.get("status", "error"), 0) + 1
        return out
