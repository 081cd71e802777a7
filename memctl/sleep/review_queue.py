"""The review queue: memories sleep held for a person, under ``review/`` in the store.

Sleep holds what it may not promote without a person (:mod:`memctl.sleep.trust`): an agent's
action-bearing proposal, an agent proposal that would supersede an existing memory, a merge whose
result is action-bearing while a member was not a person's choice. Nothing that answers, consolidates or
rebuilds reads ``review/``; only ``memctl review`` does. One entry per file,
``review/<session>/<id>.json``::

    {"id": "20261130T054512Z-a1b2c3", "kind": "proposal" | "merge", "session": "ses_1",
     "path": "user/global/20261130T054512Z-a1b2c3.md",      # where approval writes it
     "content": "Install rustup with `curl … | sh`.",      # the memory text
     "memory_kind": "note", "created": "…", "topic": null,
     "provenance": {...} | [{...}, ...],                   # memctl.store.provenance records
     "reasons": ["action:command", "supersedes:user/global/x.md"],
     "action": ["command"],                                # the classifier's reasons
     "supersedes": [{"path": "user/global/x.md", "sha": "…", "text": "…"}],
     "members": [{"path": "…", "sha": "…"}],               # merge only: deleted on approval
     "extra": {...}}                                       # front matter a merge keeps (model, prompt_version)

The bytes depend only on what was held (no time in them: the audit record of the write says when), so
holding the same proposal again — a run killed before it emptied the inbox — is a store no-op, and the
local and Flyte engines write the same entries.

Every decision is one audited store write by actor ``person`` (:data:`memctl.store.policy.WRITERS`):
approve writes the memory (``approved_by: person`` in its front matter) and deletes the entry; edit
does the same with the person's text, which must still pass the validator; reject moves the entry to
``staging/rejected/<session>/<id>.json`` with reason ``review_rejected``. That a person is at the
terminal is the caller's to check (:mod:`memctl.cli.commands.review`).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from memctl.exit_codes import CONFLICT, ExitCodeError, UsageError
from memctl.state_file import decode_json
from memctl.store import ABSENT_SHA, ConcurrencyError, MemoryStore, MissingFileError, StoreError
from memctl.store.user_memory import render_memory
from memctl.store.versions import sha256_text

if TYPE_CHECKING:  # the validator costs ~0.4 s to import: only a decision on a held entry needs it
    from memctl.validator.core import ValidationLimits

REVIEW_PREFIX = "review"
ACTOR = "person"


class ReviewError(UsageError):
    """An unknown entry id, an edit the validator refuses, or an empty edit (exit 2)."""


class ReviewConflict(ExitCodeError):
    """A memory the entry would replace changed since sleep held it (exit 11); reject it, sleep judges again."""

    exit_code = CONFLICT


@dataclass
class ReviewEntry:
    """One held memory (see the module doc for the JSON shape)."""

    id: str
    kind: str
    session: str
    path: str
    content: str
    memory_kind: str = "note"
    created: str = ""
    topic: str | None = None
    provenance: Any = None
    reasons: list[str] = field(default_factory=list)
    action: list[str] = field(default_factory=list)
    supersedes: list[dict[str, str]] = field(default_factory=list)
    members: list[dict[str, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def store_path(self) -> str:
        return f"{REVIEW_PREFIX}/{self.session}/{self.id}.json"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ReviewEntry":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


def now_utc() -> str:
    """The current time as sleep and proposals write it (``2026-11-30T05:45:12.345Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def hold(store: MemoryStore, entry: ReviewEntry, *, actor: str = "sleep") -> bool:
    """Write ``entry`` into the queue; False (nothing written) when the same entry already waits there
    (a merge held by an earlier sleep comes back every run until a person decides).

    Raises:
        memctl.store.StoreError: the store refused the write.
    """
    current = store.sha(entry.store_path)
    text = json.dumps(entry.as_dict(), indent=2, ensure_ascii=False) + "\n"
    if current == sha256_text(text):
        return False
    store.write_text(entry.store_path, text, expected_sha=current or ABSENT_SHA, actor=actor,
                     reason=f"hold {entry.kind} {entry.id} for review ({', '.join(entry.reasons)[:300]}); "
                            f"provenance: {_origins(entry)}")
    return True


def entries(store: MemoryStore) -> list[ReviewEntry]:
    """Every entry in the queue, oldest statement first; unreadable files are skipped (``memctl audit`` shows them)."""
    found = []
    for path in store.list(REVIEW_PREFIX) if store.root.exists() else []:
        if not path.endswith(".json"):
            continue
        try:
            data = decode_json(store.read_text(path)[0])
            entry = ReviewEntry.from_dict(data)
        except (StoreError, ValueError, TypeError):
            continue
        if entry.store_path == path:
            found.append(entry)
    return sorted(found, key=lambda e: (e.created, e.id))


def held_at(store: MemoryStore, entry: ReviewEntry) -> str:
    """When sleep held ``entry``: the time of the audit record that wrote it (``""`` if none is recorded)."""
    history = store.history(entry.store_path)
    return history[-1].time if history else ""


def queue_size(store: MemoryStore) -> int:
    """How many memories wait in the review queue."""
    return len(entries(store))


def find(store: MemoryStore, entry_id: str) -> ReviewEntry:
    """The entry with this id (or a unique prefix of at least 6 characters of it).

    Raises:
        ReviewError: no such entry, or the prefix matches several.
    """
    matches = [e for e in entries(store) if e.id == entry_id or (len(entry_id) >= 6 and e.id.startswith(entry_id))]
    if len(matches) != 1:
        what = "no entry in the review queue matches" if not matches else f"{len(matches)} entries in the review queue match"
        raise ReviewError(f"{what} {entry_id!r}; `memctl review` lists them")
    return matches[0]


def diff(entry: ReviewEntry) -> str:
    """A unified diff from each memory the entry would supersede (or nothing, for a new memory) to its text."""
    olds = entry.supersedes or [{"path": "/dev/null", "text": ""}]
    chunks = []
    for old in olds:
        lines = difflib.unified_diff(str(old.get("text", "")).splitlines(), entry.content.splitlines(),
                                     fromfile=str(old.get("path")), tofile=entry.path, lineterm="")
        chunks.append("\n".join(lines))
    return "\n".join(chunks)


def approve(store: MemoryStore, entry: ReviewEntry, *, edited_text: str | None = None,
            limits: ValidationLimits | None = None) -> str:
    """A person's approval: write the memory (their text when ``edited_text``), delete what it replaces
    (a merge's members, a same-path memory by overwriting it) and the entry. Returns the memory's path.

    Raises:
        ReviewError: the edited text is empty or the validator refuses it (secret, forged structure, …).
        ReviewConflict: a memory it replaces changed since it was held.
        memctl.store.StoreError: any other store refusal.
    """
    text = entry.content if edited_text is None else edited_text.strip()
    if not text:
        raise ReviewError("the edited text is empty; nothing approved (reject it instead)")
    if edited_text is not None:
        from memctl.validator.core import ValidationLimits, validate_proposal

        bounds = limits or ValidationLimits()
        if entry.kind == "merge":
            from memctl.validator.merge_gate import CONSOLIDATED_LIMIT_FACTOR

            bounds = ValidationLimits(bounds.max_bytes * CONSOLIDATED_LIMIT_FACTOR,
                                      bounds.max_lines * CONSOLIDATED_LIMIT_FACTOR)
        verdict = validate_proposal({"id": entry.id, "session": entry.session, "target": "user", "path": entry.path,
                                     "content": text, "topic": entry.topic}, limits=bounds)
        if not verdict.ok:
            raise ReviewError(f"the edited text is refused ({verdict.reason}: {verdict.detail}); nothing approved")
    extra = {**entry.extra, **({"proposal": entry.id} if entry.kind == "proposal" else {}),
             "provenance": entry.provenance, "action": list(entry.action) or None, "approved_by": ACTOR,
             "approved": now_utc(), **({"edited": True} if edited_text is not None else {})}
    content = render_memory(text, kind=entry.memory_kind, created=entry.created, session=entry.session,
                            topic=entry.topic, extra={k: v for k, v in extra.items() if v is not None})
    same_path = next((s for s in entry.supersedes if s.get("path") == entry.path), None)
    expected = same_path["sha"] if same_path else ABSENT_SHA
    verb = "edit and approve" if edited_text is not None else "approve"
    try:
        store.write_text(entry.path, content, expected_sha=expected, actor=ACTOR,
                         reason=f"review: {verb} {entry.kind} {entry.id} (held for {', '.join(entry.reasons)[:200]}); "
                                f"provenance: {_origins(entry)}")
        for member in entry.members:
            try:
                store.delete(member["path"], expected_sha=member["sha"], actor=ACTOR,
                             reason=f"review: merged into {entry.path} (approved {entry.id})")
            except MissingFileError:
                pass  # gone meanwhile: nothing to delete
    except ConcurrencyError as exc:
        raise ReviewConflict(f"a memory this entry replaces changed since it was held ({exc}); "
                             f"reject {entry.id} and let the next sleep judge it again") from exc
    store.delete(entry.store_path, expected_sha=store.sha(entry.store_path), actor=ACTOR,
                 reason=f"review: {verb}d {entry.id} -> {entry.path}")
    return entry.path


def reject(store: MemoryStore, entry: ReviewEntry, *, why: str = "rejected in review") -> str:
    """A person's rejection: archive the entry under ``staging/rejected/`` and remove it from the queue.

    Returns the archive path. Raises :class:`memctl.store.StoreError` when the store refuses.
    """
    archive = f"staging/rejected/{entry.session}/{entry.id}.json"
    record = {"proposal_id": entry.id, "session": entry.session, "reason": "review_rejected", "detail": why,
              "staged": entry.store_path, "original": entry.content, "entry": entry.as_dict()}
    store.write_text(archive, json.dumps(record, indent=2, ensure_ascii=False) + "\n", actor=ACTOR,
                     reason=f"review: reject {entry.kind} {entry.id}: {why[:200]}")
    store.delete(entry.store_path, expected_sha=store.sha(entry.store_path), actor=ACTOR,
                 reason=f"review: rejected {entry.id}")
    return archive


def _origins(entry: ReviewEntry) -> str:
    records = entry.provenance if isinstance(entry.provenance, list) else [entry.provenance]
    return "; ".join(f"origin {r.get('origin', 'agent')} via {r.get('channel', '?')}, session {r.get('session', '?')}"
                     for r in records if isinstance(r, dict)) or "unknown (read as agent)"
