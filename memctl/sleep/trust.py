"""Sleep's three-way outcome for a proposal the validator accepted: promote it, or hold it for a person.

The validator (:func:`memctl.validator.core.validate_proposal`) refuses what must never be trusted
(secrets, forged structure, injections, bad paths). What it accepts is promoted without a person only
when it is low-risk; :func:`hold_reasons` lists why it is not (README "What memctl trusts, and why"):

* ``action:<reason>`` — an *agent* proposal that :func:`memctl.validator.action.classify_action` marks
  action-bearing (it would make the agent run, install, fetch, trust, … something, or it carries a
  command, URL, host or package name);
  — except a note whose only carried objects are project-tooling commands or documentation links
  (:mod:`memctl.validator.dev_tooling`: "`make lint` runs ruff", "the reference is at
  https://docs.python.org/…") or a choice between package managers with no place code comes from
  (:mod:`memctl.validator.tool_choice`: "we use pnpm instead of npm"), which is judged by the low-risk recogniser below like any fact;
* ``unrecognised:<reason>`` — an *agent* proposal that :func:`memctl.validator.low_risk.assess_low_risk`
  does not positively recognise as low-risk (a descriptive fact, preference or decision about the project
  whose subject is not security, trust and provenance, instructions, people's wishes, the agent's
  behaviour, data handling, the supply chain, money or execution, with no weakening claim): the default
  for an agent is to hold, and only a recognised low-risk text is promoted without a person;
* ``affects:<class>`` — an *agent* proposal otherwise recognised low-risk whose subject changes what an
  agent would do (security posture, where code comes from, who has authority, what runs, a location,
  a cost: :mod:`memctl.validator.affects`) and that no person-chosen memory on the same subject already
  covers (:func:`uncovered_classes`);
* ``displaces_person:<path>`` — a merge (:func:`decide_merge`) that would replace a person's memory with
  text from a member that was not a person's choice;
* ``uncorroborated:transcript`` — an *agent* proposal, given its session's scrubbed transcript, that says
  something about the state of a control which the person's own messages in that session do not state
  (:mod:`memctl.sleep.corroboration`); only checked when a transcript is given;
* ``supersedes:<path>`` — an *agent* proposal that would replace an existing memory: the same target
  path, or a memory of the same scope (global, one topic, one session) on the same subject
  (:func:`memctl.sleep.clustering.related`, the relation consolidation merges by — where the newest
  member wins) that the proposal adds words to.

A person's own proposal (``origin: person``, :mod:`memctl.store.provenance`) is promoted as their
choice, with the classification recorded in the memory's front matter — except ``trust_claim``: a text
about memctl's own trust, review or provenance, or one that claims an origin or an approval
(:func:`memctl.validator.low_risk.claims_trust`), is held whatever its origin.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from memctl.sleep.clustering import related, subject_words
from memctl.sleep.corroboration import corroborated
from memctl.store.user_memory import UserMemoryFile
from memctl.validator.action import classify_action
from memctl.validator.affects import affected_classes
from memctl.validator.dev_tooling import reference_links_only, tooling_only, without_links
from memctl.validator.low_risk import assess_low_risk, claims_trust
from memctl.validator.readme_badges import badges_only
from memctl.validator.scoped_git import own_branch_lease
from memctl.validator.tool_choice import package_manager_choice


@dataclass(frozen=True)
class TrustDecision:
    """``held`` with its ``reasons``; ``action`` the classifier's reasons (recorded even when promoted);
    ``superseded`` the existing memories the proposal would replace."""

    held: bool
    reasons: tuple[str, ...] = ()
    action: tuple[str, ...] = ()
    superseded: tuple[UserMemoryFile, ...] = field(default=())


_NON_LATIN_WORD = re.compile(r"[^\W\d_a-z]{3,}")
_SPACELESS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")


def note_words(text: str) -> frozenset[str]:
    """The subject words of a note in any script: :func:`memctl.sleep.clustering.subject_words` (Latin) plus
    words of three or more letters of other spaced scripts (Cyrillic, Greek, …, case-folded) and character
    pairs of the scripts written without spaces (Chinese, Japanese kana, Korean), so that a Russian or
    Japanese note on a memory's subject is seen to replace it. Deterministic; never raises on a ``str``."""
    folded = text.casefold()
    words = set(subject_words(text))
    words.update(w for w in _NON_LATIN_WORD.findall(folded) if not _SPACELESS.fullmatch(w))
    for run in _SPACELESS.findall(folded):
        words.update(run[i:i + 2] for i in range(len(run) - 1))
    return frozenset(words)


def superseded_by(content: str, path: str, memories: list[UserMemoryFile]) -> list[UserMemoryFile]:
    """Existing memories ``content`` (to be written at ``path``) would replace: one at ``path`` itself with
    other text, or one of the same scope on the same subject (:func:`note_words`, any script) that the new
    text adds subject words to."""
    scope = path.rsplit("/", 1)[0]
    peers = [m for m in memories if m.scope == scope and m.path != path]
    words = note_words(content)
    bags = [note_words(m.text) for m in peers]
    df: dict[str, int] = {}
    for bag in [words, *bags]:
        for w in bag:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log(1 + (len(peers) + 1) / n) for w, n in df.items()}
    found = [m for m in memories if m.path == path and m.text.strip() != content.strip()]
    found += [m for m, bag in zip(peers, bags) if related(words, bag, idf) and words - bag]
    return found


def uncovered_classes(content: str, memories: list[UserMemoryFile]) -> list[str]:
    """The subject classes of :func:`memctl.validator.affects.affected_classes` that ``content`` affects and
    that no person-chosen memory (:attr:`UserMemoryFile.person_chosen`) already covers: a person's memory
    covers a class when it affects the same class and shares subject words with ``content``
    (:func:`memctl.sleep.clustering.subject_words`). A ``location`` found only in documentation links
    (:func:`memctl.validator.dev_tooling.reference_links_only`) does not count, nor does any class found only in
    the addresses of README status badges (:func:`memctl.validator.readme_badges.badges_only`). Deterministic; never raises
    on ``str`` content."""
    classes = affected_classes(content)
    if "location" in classes and reference_links_only(content) and "location" not in affected_classes(without_links(content)):
        # the only places it names are documentation pages (dev_tooling): the agent would read them, not go there
        classes = tuple(c for c in classes if c != "location")
    if badges_only(content):
        # README status badges (readme_badges): what the text affects is read without the badge addresses
        unlinked = affected_classes(without_links(content))
        classes = tuple(c for c in classes if c in unlinked)
    if not classes:
        return []
    words = subject_words(content)
    people = [m for m in memories if m.person_chosen]
    return [c for c in classes
            if not any(c in affected_classes(m.text) and words & subject_words(m.text) for m in people)]


_HOW_TO = re.compile(r"\s*(?:run|use|try)\b", re.IGNORECASE)
"""A how-to that opens with "Run"/"Use"/"Try" a kept command ("Run the unit tests with `pytest -q`")."""


def _kept_by_a_developer(content: str, action: tuple[str, ...]) -> bool:
    """True when the classifier's only reasons are a command (or "run" directive) that is project tooling or a
    force-with-lease push kept to one's own branches (:mod:`memctl.validator.scoped_git`), README status badges
    (:mod:`memctl.validator.readme_badges`), a
    URL or host that is a documentation link (:mod:`memctl.validator.dev_tooling`), or the supply-chain subject
    of a choice between package managers (:mod:`memctl.validator.tool_choice`): such a note is then
    judged by the low-risk recogniser like any fact instead of being held for what it carries."""
    found = set(action)
    # "directive:<lang>" is a directive in another language (action's doc): with only tooling spans it is the
    # same how-to as "Run `go test ./...`" ("testler `go test ./...` ile çalıştırılır")
    directives = {r for r in found if r.startswith("directive:") and len(r) == len("directive:") + 2}
    return bool(found) and ((found <= {"command", "directive:run"} | directives
                             and (tooling_only(content) or own_branch_lease(content)))
                            or (found <= {"url", "host"} and reference_links_only(content))
                            or (found <= {"url", "host", "markdown_template"} and badges_only(content))
                            or (found <= {"subject:supply_chain"} and package_manager_choice(content)))


def decide(content: str, *, origin: str, path: str, memories: list[UserMemoryFile],
           transcript: str | None = None) -> TrustDecision:
    """Promote or hold one validated proposal (see the module doc). ``transcript``: the scrubbed transcript of
    the proposal's session when one is kept (None: no corroboration). Deterministic; never raises."""
    action = classify_action(content)
    if origin == "person":
        if claims_trust(content):
            return TrustDecision(held=True, reasons=("trust_claim",), action=action.reasons)
        return TrustDecision(held=False, action=action.reasons)
    kept = _kept_by_a_developer(content, action.reasons)
    reasons = [f"action:{r}" for r in action.reasons] if action.action_bearing and not kept else []
    if not reasons:
        # a lease kept to one's own branches is a rule for the reader's own work: "your"/"Use" is its scope
        lease = kept and own_branch_lease(content)
        reasons = [f"unrecognised:{r}" for r in assess_low_risk(content).reasons
                   if not (kept and r == "form:imperative" and _HOW_TO.match(content))
                   and not (lease and r in ("form:imperative", "sensitive:addressed"))]
        reasons += [f"affects:{c}" for c in uncovered_classes(content, memories)]
    if transcript is not None and not corroborated(content, transcript):
        reasons.append("uncorroborated:transcript")
    superseded = superseded_by(content, path, memories)
    reasons += [f"supersedes:{m.path}" for m in superseded]
    return TrustDecision(held=bool(reasons), reasons=tuple(reasons), action=action.reasons,
                         superseded=tuple(superseded))


def decide_merge(text: str, members: list[UserMemoryFile]) -> TrustDecision:
    """Promote or hold a merge the gate accepted (:func:`memctl.validator.merge_gate.check_merged`).

    The merged text is classified like a new proposal; when any member was not a person's choice
    (:attr:`UserMemoryFile.person_chosen`) it is held unless it is recognised low-risk (not
    action-bearing and :func:`memctl.validator.low_risk.assess_low_risk` says so), so a merge is never
    trusted as more than its least trusted member; a merge that claims trust or an origin is held even
    when every member was a person's. A merge of a person's memory with any member that was not a person's
    choice is held (``displaces_person:<path>``) whatever its text when the newest member is not a person's:
    consolidation keeps the newest wording, so an agent's "correction" merged with a person's memory would
    otherwise replace it; held, the members stay in ``user/`` and are still served until a person decides.
    When a person's member is strictly the newest (a person approved a correction of an agent's fact), the merge keeps
    their wording and is judged as above. Deterministic; never raises.
    """
    action = classify_action(text)
    if claims_trust(text):
        return TrustDecision(held=True, reasons=("trust_claim",), action=action.reasons)
    if all(m.person_chosen for m in members):
        return TrustDecision(held=False, action=action.reasons)
    # Consolidation keeps the newest member's wording on a conflict: when that member is a person's, the merge
    # keeps what the person chose (their approved correction of an agent's fact merges as usual); when it is an
    # agent's, the person's memory would be replaced.
    person_newest = max((m.created for m in members if m.person_chosen), default="")
    others_newest = max((m.created for m in members if not m.person_chosen), default="")
    # A tie is not the person's: which wording consolidation keeps is then not theirs to rely on.
    displaced = tuple(m for m in members if m.person_chosen) if others_newest >= person_newest else ()
    if displaced:  # a person's memory is never replaced by a merge with an agent's text without a person
        return TrustDecision(held=True, reasons=tuple(f"displaces_person:{m.path}" for m in displaced),
                             action=action.reasons, superseded=displaced)
    reasons = [f"action:{r}" for r in action.reasons] if action.action_bearing else \
        [f"unrecognised:{r}" for r in assess_low_risk(text).reasons]
    if not reasons:  # a merge's subject is covered only by a person's memory outside the merge
        reasons = [f"affects:{c}" for c in affected_classes(text)
                   if not any(m.person_chosen and c in affected_classes(m.text) for m in members)]
    return TrustDecision(held=bool(reasons), reasons=tuple(reasons), action=action.reasons)
