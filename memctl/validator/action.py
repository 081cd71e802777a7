"""What a memory would make the agent do: a fact, or an action-bearing memory.

Sleep promotes low-risk memories without a person; an *action-bearing* memory from an agent (one that
tells the agent to run, install, fetch, send, open, grant, trust, disable, bypass, prefer a host, index
or package, change a security setting, override instructions, or say something later; or that carries a
command, URL, host or package name) waits in the review queue instead (README "What memctl
trusts, and why").

This module is the contract the sleep cycle and the review queue rely on:
:func:`classify_action` is deterministic, calls no model, reads no file and never raises on any ``str``.

How a text is read (:mod:`memctl.validator.action_views`): NFKC, invisibles removed, look-alikes folded
per Unicode TR39 (:mod:`memctl.validator.confusables`), hyphenation and CamelCase run-ons undone,
leetspeak, and decoded views (base64 also split in runs, hex also spaced, Caesar shifts, Morse, decimal
character codes, double URL encoding, reversed text and the decoders of :mod:`memctl.validator.encoded`).
Each view is checked, in order, for (the reason codes):

* carried objects — ``command``, ``url``, ``host``, ``email``, ``package_source`` (``--extra-index-url``,
  a preferred package, fork or mirror, a ``==`` pin), ``markdown_template`` (a markdown image, or a link
  whose query has a templated value);
* statements that direct — ``security_setting`` (``verify=False``, "TLS verification may be disabled", a
  security control removed, relaxed or not needed), ``override`` ("memories override the user", "ignore
  previous instructions", "counts as the user's consent", "whatever the table says"), ``persistence``
  (``authorized_keys``, crontab, shell profiles, systemd units, login hooks), ``trigger`` ("when the user
  next asks… tell them", "whenever an invoice is mentioned", "from now on"), ``credential_request``,
  ``credential_handling`` (a password or key stored in memory, placed in public, set to a value),
  ``send_public``, ``payment`` (an IBAN, a sum to wire), ``grant`` ("add … to the org owners"),
  ``concealment`` ("never mention…", "keep … out of answers"), ``ai_addressed``, ``output_directive``,
  ``evasion_request`` ("how to bypass…"), ``agent_norm`` / ``passive_norm`` (the agent or its answers
  "should say", "may pay", "must be sent" — only with an action verb);
* ``directive:<verb class>`` — a clause that, after fillers ("please", "always", "before any build,"),
  starts with an action verb (run, install, send, open, grant, trust, disable, bypass, delete, say,
  change, book, read: :data:`memctl.validator.action_lexicon.ACTION_VERBS`); a negated clause ("don't
  delete failing tests") is a restriction, not a directive, unless it conceals;
* ``directive:<lang>`` — the same directives in de, fr, es, it, pt, nl, pl, ru, uk, tr, ja, zh, ko;
* ``subject:<subject>``, ``authority``, ``typosquat:<name>~<package>``, ``unknown_package:<name>`` — on
  the plain reading, what the memory is ABOUT (:mod:`memctl.validator.subjects`): security posture, the
  supply chain, the release and review process, the agent's own behaviour and what it says, data and
  where it goes, with a word that makes the statement steer (a permission, an absence, a rule, a choice,
  a date from which it applies); a statement of authority about memory or instructions; a name one edit
  from a most-downloaded PyPI/npm package, or an unknown name where a package name sits. These read
  statements with no instruction, command or host ("Root SSH login is enabled on the staging hosts",
  "for YAML we went with pyyamll"), in the 14 languages;
* ``weakened:<kind>`` — on the plain reading, a control turned off written as data or euphemism
  (:mod:`memctl.validator.weakened_controls`: ``env``, ``setting``, ``ci_noop``, ``absent_control``,
  ``accepts_invalid``, ``self_update``, ``workspace``, ``waiver``);
* ``validator:<kind>`` — on the plain reading, a finding of the validator's poisoning recognisers
  (:mod:`memctl.validator.poisoning`, :mod:`memctl.validator.phrasings`, :mod:`memctl.validator.languages`),
  which hold rather than reject.

A reason found in a decoded view carries its encoding: ``encoded:<encoding>:<reason>``.

What the rules cannot judge: a hostile claim about a subject the lists do not name (a thermostat setting,
a subscription tier, a false claim about a competitor), a steer phrased with none of the listed words, and
whether a statement about a subject weakens it or records a protection ("root SSH login is disabled" is
held like "... is enabled"); docs/benchmarks.md records how many fresh phrasings pass and how many benign
notes wait for a person.
"""

from __future__ import annotations

from dataclasses import dataclass

from memctl.validator.action_lexicon import ACTION_VERBS, CODE_CUES, FILLER, LANGUAGE_CUES, STATEMENT_CUES
from memctl.validator.action_views import CLAUSE_SPLIT, NEGATION, WORD, reading_views
from memctl.validator.core import poisoning_finding
from memctl.validator.proposal_views import ProposalViews, proposal_views
from memctl.validator.subjects import subject_reasons
from memctl.validator.weakened_controls import weakened_control_reasons

__all__ = ["ActionAssessment", "classify_action"]


@dataclass(frozen=True, slots=True)
class ActionAssessment:
    """The classification of one memory text.

    Attributes:
        action_bearing: True when the memory would change what the agent does (see the module doc).
        reasons: stable reason codes, most specific first (e.g. ``"command"``, ``"url"``,
            ``"directive:install"``); empty when ``action_bearing`` is False.
        view: the reading the reasons were found in (``"plain"``, ``"hyphenation"``, ``"base64"``, …);
            empty when ``action_bearing`` is False.
    """

    action_bearing: bool
    reasons: tuple[str, ...] = ()
    view: str = ""


# Verbs that are also nouns or phrasal verbs: an instruction only with one of these next words
# ("skip the checks", not "skip to the section"; "end every answer with", not "end users").
_NEEDS_NEXT: dict[str, frozenset[str]] = {
    "skip": frozenset("the all any every this these those tls ssl verification review reviews checks check tests hooks".split()),
    "turn": frozenset(["off"]),
    "switch": frozenset(["off"]),
    "end": frozenset("with your every each all the".split()),
    "stop": frozenset("the all any verifying checking reporting logging".split()),
    "state": frozenset("that to".split()),
    "point": frozenset("the all to".split()),
    "search": frozenset("the for all my your every".split()),
}


def _action_verb(word: str) -> str | None:
    """The verb class of ``word`` or of its inflected form (``disables``, ``disabled``, ``sending``, ``dropped``)."""
    forms = [word]
    for suffix in ("s", "es", "d", "ed", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            forms += [stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem]
    for form in forms:
        if form and form in ACTION_VERBS:
            return ACTION_VERBS[form]
    return None


def _directives(folded: str) -> list[str]:
    found: list[str] = []
    for clause in CLAUSE_SPLIT.split(folded):
        clause = clause.strip(" \"'`*_()[]")
        if not clause:
            continue
        rest = FILLER.sub("", clause, count=1)
        if NEGATION.match(rest):
            continue
        words = rest.split()
        first = WORD.match(rest)
        if first and len(words) > 1:
            reason = ACTION_VERBS.get(first.group(0))
            follow = _NEEDS_NEXT.get(first.group(0))
            if reason and (follow is None or words[1] in follow):
                found.append(f"directive:{reason}")
    return found


def _reasons(folded: str) -> list[str]:
    reasons = [name for name, pattern in CODE_CUES if pattern.search(folded)]
    for name, pattern in STATEMENT_CUES:
        if name in ("agent_norm", "passive_norm"):  # "answers should say …", "must be sent …": only with an action verb
            if any(_action_verb(m.group("verb")) for m in pattern.finditer(folded)):
                reasons.append(name)
        elif pattern.search(folded):
            reasons.append(name)
    reasons += _directives(folded)
    return list(dict.fromkeys(reasons))


def _validator_findings(views: ProposalViews) -> list[str]:
    """The validator's poisoning recognisers on its own folding of the text (the kinds it holds rather than
    refuses); their answers are cached, so after ``validate_proposal`` this costs nothing."""
    finding = poisoning_finding(views.folded)
    return [f"validator:{finding[0].partition(':')[2] or finding[0]}"] if finding else []


def classify_action(text: str) -> ActionAssessment:
    """Classify ``text`` (a memory's content) as a fact or an action-bearing memory.

    Args:
        text: the memory body, any ``str`` (unnormalised; the classifier folds it itself).

    Returns:
        An :class:`ActionAssessment`: ``action_bearing`` with the reason codes of the first reading
        (plain first, decoded views after) that has any, else not action-bearing. Never raises.
    """
    if not isinstance(text, str) or not text.strip():
        return ActionAssessment(action_bearing=False)
    try:
        views = proposal_views(text)  # the readings the validator built for the same content
        for view, folded in reading_views(text):
            reasons = _reasons(folded)
            if view == "plain":
                native = views.native
                reasons += [name for name, pattern in LANGUAGE_CUES if pattern.search(native)]
                reasons += _validator_findings(views)
                reasons += subject_reasons(views.reading)
                reasons += weakened_control_reasons(text)  # controls turned off as data or in euphemism
            if reasons:
                if view not in ("plain", "hyphenation", "camel_case", "confusables"):
                    reasons = [f"encoded:{view}:{reason}" for reason in reasons]
                return ActionAssessment(action_bearing=True, reasons=tuple(reasons), view=view)
    except Exception:  # noqa: BLE001 - the classifier fails closed: an unreadable text waits for a person
        return ActionAssessment(action_bearing=True, reasons=("classifier_error",), view="plain")
    return ActionAssessment(action_bearing=False)
