"""Proposals: candidate memories quarantined in ``staging/`` until the sleep cycle validates them.

Neither ``ask`` nor ``remember`` may change trusted memory; both can only
*propose*. A proposal is one JSON file written through the store by an
untrusted actor (``ask`` or ``remember``) at
``staging/sessions/<session>/inbox/<id>.json``::

    {"id": "20261130T054512Z-a1b2c3", "session": "ses_x", "target": "user",
     "path": "user/sessions/ses_x/20261130T054512Z-a1b2c3.md",
     "content": "Prefers pnpm over npm in this repo.", "topic": "alpha" | null,
     "kind": "preference" | "decision" | "note", "created": "2026-11-30T05:45:12.345Z",
     "source": "remember" | "ask" | "mcp", "redactions": 0,
     "provenance": {"origin": "person" | "agent", "channel": "remember" | "mcp" | "ask",
                    "session": "ses_x", "source": "file notes.md" | null, "time": "2026-11-30T05:45:12.345Z"}}

``provenance`` (:mod:`memctl.store.provenance`) says who asked for the memory: ``origin`` ``person``
only for ``memctl remember`` on an interactive terminal, ``agent`` otherwise; sleep carries it into
the promoted memory's front matter, and the audit record of every write names it.

``path`` is where sleep would promote it: ``user/global/…`` (``--global``),
``user/topics/<topic>/…`` (a topic given), else ``user/sessions/<session>/…``.
Content is secret-scrubbed before it is written (``redactions`` counts the
markers); sleep's validator still checks everything.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Callable

from memctl.exit_codes import UsageError
from memctl.store import MemoryStore
from memctl.store.provenance import CHANNELS, ORIGINS, Provenance, clean_source

SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
TOPIC_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_PROPOSAL_CHARS = 4000
DEFAULT_SESSION = "cli"


class ProposalError(UsageError, ValueError):
    """A proposal that cannot be staged (bad session id, empty or oversize content)."""


@dataclass(frozen=True)
class Proposal:
    """A staged proposal (see the module doc for the JSON shape)."""

    id: str
    session: str
    target: str
    path: str
    content: str
    topic: str | None
    kind: str
    created: str
    source: str
    redactions: int
    provenance: dict | None = None

    @property
    def staged_path(self) -> str:
        return f"staging/sessions/{self.session}/inbox/{self.id}.json"

    def as_dict(self) -> dict:
        return asdict(self)


def stage_proposal(store: MemoryStore, *, session: str, content: str, source: str, topic: str | None = None,
                   kind: str = "note", global_scope: bool = False, max_bytes: int = MAX_PROPOSAL_CHARS,
                   max_lines: int | None = None, origin: str = "agent", taken_from: str | None = None,
                   before_write: Callable[[], None] | None = None) -> Proposal:
    """Scrub and write one proposal into the session's inbox (actor = ``source``); return it.

    ``source`` is the channel (``remember``, ``mcp``, ``ask``); ``origin`` is ``person`` only when the
    caller knows a person typed it at a terminal (``memctl remember`` on a TTY), else ``agent``;
    ``taken_from`` is the tool output or file the text came from, when the caller says so (one line,
    at most 300 characters). All three go into the proposal's ``provenance``. ``before_write`` is
    called once the proposal passed every check, just before it is written (it may raise to refuse).

    ``max_bytes``/``max_lines`` should be sleep's limits (``proposal_max_bytes``,
    ``proposal_max_lines``) so an oversize memory is refused now, not at sleep.

    Raises:
        ProposalError: bad session id or topic slug, empty content, over the size limits, or
            refused by sleep's validator (injection or secret material, …) — then nothing is written.
        memctl.store.StoreError: the store refused the write.
    """
    if origin not in ORIGINS or source not in CHANNELS:
        raise ProposalError(f"invalid origin {origin!r} or channel {source!r}")
    if not SESSION_ID.match(session or ""):
        raise ProposalError(f"invalid session id {session!r}: use letters, digits, '_', '.', '-' (max 128)")
    if topic is not None and not TOPIC_SLUG.match(topic):
        raise ProposalError(f"invalid topic {topic!r}: a topic is a slug such as 'alpha' (see `memctl ask --help`)")
    text = (content or "").strip()
    if not text:
        raise ProposalError("nothing to remember: the text is empty")
    size = len(text.encode("utf-8"))
    if size > min(max_bytes, MAX_PROPOSAL_CHARS):
        raise ProposalError(f"the text is {size} bytes; a memory is at most {min(max_bytes, MAX_PROPOSAL_CHARS)} "
                            "(setting proposal_max_bytes): keep one fact or preference per memory")
    lines = text.count("\n") + 1
    if max_lines is not None and lines > max_lines:
        raise ProposalError(f"the text has {lines} lines; a memory is at most {max_lines} (setting proposal_max_lines)")
    from memctl.scrub.core import scrub  # its engines load here, not when ask starts (~0.4 s)

    cleaned = scrub(text)
    now = datetime.now(timezone.utc)
    proposal_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"
    if global_scope:
        target_path = f"user/global/{proposal_id}.md"
    elif topic:
        target_path = f"user/topics/{topic}/{proposal_id}.md"
    else:
        target_path = f"user/sessions/{session}/{proposal_id}.md"
    created = now.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    taken = scrub(clean_source(taken_from)).text if clean_source(taken_from) else None
    provenance = Provenance(origin=origin, channel=source, session=session, source=taken, time=created)
    proposal = Proposal(id=proposal_id, session=session, target="user", path=target_path, content=cleaned.text,
                        topic=topic, kind=kind, created=created, source=source,
                        redactions=sum(cleaned.counts.values()), provenance=provenance.as_dict())
    # The same gate sleep applies, now: a user gets the reason at once, and memctl itself never
    # writes a secret (even one the scrubber's patterns miss, such as a password in prose) to disk.
    from memctl.validator.core import ValidationLimits, validate_proposal

    verdict = validate_proposal(proposal.as_dict(), limits=ValidationLimits(
        max_bytes=min(max_bytes, MAX_PROPOSAL_CHARS), max_lines=max_lines or ValidationLimits.max_lines))
    if not verdict.ok:
        raise ProposalError(f"not staged: {verdict.reason}: {verdict.detail}")
    if before_write is not None:
        before_write()
    store.write_text(proposal.staged_path, json.dumps(proposal.as_dict(), indent=2, ensure_ascii=False) + "\n",
                     actor=source, reason=f"proposal {proposal_id} from {source}, origin {origin} (session {session})")
    return proposal
