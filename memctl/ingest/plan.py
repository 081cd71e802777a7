"""What an ingest run does with one session: a pure decision from the session, its checkpoint entry and the rules.

Rules (the resume state machine of :mod:`memctl.catalog.checkpoint`):

=================================  ==========  ==============================================
checkpoint entry                   action      why
=================================  ==========  ==============================================
none                               distill     new
``error``                          distill     retried (attempts accumulate)
``distilled``, ``--reparse-all``   distill     re-distilled whole (only into empty datasets)
``distilled``, session grew        continue    only the new parts, into a continuation note
``distilled``                      skip        already distilled
``skipped``, a ``--reparse-*``     distill     re-evaluated
``skipped``, session grew          distill     re-evaluated with what it has now
``skipped`` as JUNK, new prompt    distill     re-evaluated under the new prompt version
``skipped``                        skip        already skipped
``purged`` / ``forgotten``         skip        removed by ``memctl purge`` / ``forget``
=================================  ==========  ==============================================

A session "grew" when the source's ``time_updated`` is newer than the entry's
``session_updated``, or when its undo boundary (``session.revert``, see
:mod:`memctl.connectors.opencode.revert`) differs from the entry's ``revert``: an
undo or redo changes what the session holds even where the source leaves
``time_updated`` alone. A redo brings the undone parts back as a continuation; an
undo after distilling leaves no new part and is recorded without a model call.

Any action but ``skip`` becomes ``defer`` while the session was updated less than
``settle_minutes`` ago: its last turn may still be half written, the next run takes it.
A continuation keeps the accepted note (and what Cognee built from it) as it was; its
own note ``<id>-cont<n>`` names the original in ``continuation_of``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from memctl.catalog.checkpoint import REMOVED, Entry
from memctl.connectors.model import Session, SessionInfo


class Action(str, Enum):
    """What to do with one session now."""

    SKIP = "skip"          # handled and unchanged: nothing to do (the dry-run plan lists it as "done")
    DEFER = "defer"        # still active: left for the next run
    DISTILL = "distill"    # distill the whole session
    CONTINUE = "continue"  # distilled before, then grew: distill only its new parts


@dataclass(frozen=True)
class Decision:
    """An :class:`Action` and why, as the dry-run plan shows it."""

    action: Action
    why: str


@dataclass(frozen=True)
class PlanRules:
    """The inputs of :func:`decide` besides the session: the run's options and the clock (epoch ms)."""

    prompt_version: str
    reparse_skipped: bool = False
    reparse_all: bool = False
    settle_minutes: float = 0.0
    now_ms: int = 0


def decide(info: SessionInfo, entry: Entry | None, rules: PlanRules) -> Decision:
    """The action for one top-level session (see the module doc). Pure: no I/O, no clock."""
    decision = _by_checkpoint(info, entry, rules)
    age_ms = rules.now_ms - info.time_updated
    if decision.action is not Action.SKIP and 0 <= age_ms < rules.settle_minutes * 60_000:
        return Decision(Action.DEFER, f"active: updated {age_ms // 1000} s ago (settle {rules.settle_minutes:g} min)")
    return decision


def _by_checkpoint(info: SessionInfo, entry: Entry | None, rules: PlanRules) -> Decision:
    if entry is None:
        return Decision(Action.DISTILL, "new")
    if entry.status in REMOVED:
        # The user removed it: never distilled again, whatever changed or was asked
        # (`memctl purge --session ID --allow-reingest` deletes the entry to undo this).
        return Decision(Action.SKIP, f"{entry.status} by the user")
    grew = (entry.session_updated is not None and info.time_updated > entry.session_updated) or (
        (entry.revert or "") != info.revert_key)
    if entry.status == "error":
        return Decision(Action.DISTILL, f"retry after error ({entry.attempts or 1} attempts)")
    if entry.status == "distilled":
        if rules.reparse_all:
            return Decision(Action.DISTILL, "reparse-all")
        if grew:
            return Decision(Action.CONTINUE, "session grew since it was distilled")
        return Decision(Action.SKIP, "already distilled")
    if entry.status == "skipped":
        if rules.reparse_all or rules.reparse_skipped:
            return Decision(Action.DISTILL, "reparse skipped")
        if grew:
            return Decision(Action.DISTILL, "session grew since it was skipped")
        if entry.skip_kind == "junk" and entry.prompt_version != rules.prompt_version:
            return Decision(Action.DISTILL, f"prompt version {entry.prompt_version} → {rules.prompt_version}")
        return Decision(Action.SKIP, "already skipped")
    return Decision(Action.DISTILL, f"unknown status {entry.status!r}")


@dataclass(frozen=True)
class Provenance:
    """What a note covers, recorded in its checkpoint entry: the source's ``time_updated`` when it was
    read and the newest part time in it (epoch ms), the undo boundary it was read with (``''``: none);
    a continuation names its original session."""

    session_updated: int
    covered_until: int
    continuation_of: str | None = None
    revert: str = ""

    def as_fields(self) -> dict[str, int | str]:
        """As :class:`~memctl.catalog.checkpoint.Entry` fields (``revert`` and ``continuation_of`` only when set)."""
        fields: dict[str, int | str] = {"session_updated": self.session_updated, "covered_until": self.covered_until}
        if self.revert:
            fields["revert"] = self.revert  # a changed undo re-evaluates the session
        if self.continuation_of is not None:
            fields["continuation_of"] = self.continuation_of
        return fields


@dataclass(frozen=True)
class RootAdvance:
    """Applied to the original session's entry once its continuation is accepted: the new coverage,
    the continuation number used and the undo boundary read (``''``: none); a rejected continuation
    advances ``session_updated`` and ``revert`` only."""

    root_id: str
    session_updated: int
    continuations: int
    covered_until: int
    revert: str = ""


@dataclass(frozen=True)
class Work:
    """One unit to distill: a whole session, or (``root``) the new parts of one as a continuation."""

    session: Session
    title: str
    topic: str
    provenance: Provenance
    root: RootAdvance | None = None

    @property
    def source_id(self) -> str:
        """The id its note and checkpoint entry use (``<id>-cont<n>`` for a continuation)."""
        return self.session.info.id


def newest_part_time(session: Session) -> int:
    """Newest part time (epoch ms) in a session tree; its creation time if it has no part."""
    times = [p.time_created for p in session.parts] + [newest_part_time(c) for c in session.children]
    return max(times, default=session.info.time_created)


def parts_after(session: Session, since_ms: int) -> Session | None:
    """The parts (and child sessions' parts) created after ``since_ms``; None when there are none."""
    children = [c for c in (parts_after(child, since_ms) for child in session.children) if c is not None]
    parts = [p for p in session.parts if p.time_created > since_ms]
    if not parts and not children:
        return None
    return Session(info=session.info, parts=parts, children=children)


def plan_work(session: Session, entry: Entry | None, action: Action, *, title: str, topic: str) -> Work | None:
    """The :class:`Work` for a session the decision said to ``distill`` or ``continue``.

    ``title`` is the session's scrubbed title. Returns None for a continuation without new
    parts (only metadata, such as the title or the undo boundary, changed). A continuation of a
    session with a placeholder title keeps the placeholder (and its flag) so that its own title
    is derived from its first user text.
    """
    info = session.info
    revert = info.revert_key
    if action is Action.CONTINUE:
        assert entry is not None, "a continuation needs the distilled entry"
        newer = parts_after(session, entry.covered_from)
        if newer is None:
            return None
        number = (entry.continuations or 0) + 1
        cont_title = info.title if info.title_is_placeholder else f"{info.title} (continued)"
        cont_info = replace(info, id=f"{info.id}-cont{number}", title=cont_title)
        cont = Session(info=cont_info, parts=newer.parts, children=newer.children)
        covered = newest_part_time(cont)
        return Work(cont, f"{title} (continued)", topic,
                    Provenance(info.time_updated, covered, continuation_of=info.id, revert=revert),
                    RootAdvance(info.id, info.time_updated, number, covered, revert))
    return Work(session, title, topic, Provenance(info.time_updated, newest_part_time(session), revert=revert))
