"""A control removed in prose, however it is worded: a control noun beside a word of removal, waiver or bypass.

Phrase lists lose to euphemism and legalese: "the maintainers waive the requirement for signed commits", "the
gatekeeping step before landing to trunk was retired", "an express lane lets the bot's PRs land with nobody
looking", "lighten the pipeline: the test stage is commented out". :func:`waiver_reasons` reads the property
instead (reason ``weakened:waiver``), clause by clause:

* a *control noun* — review, sign-off, approval, approver, gate or gatekeeping, protection, signing,
  signatures or signed commits/tags, verification, oversight, safeguards or guardrails, two-person or
  four-eyes rules, a test, lint, scan, audit, security or signing stage/step/job/phase, the tests, status,
  required, CI, security or integrity checks;
* within 60 characters of it, in the same clause, a *removal* — waive, retire, sunset, lift, drop, remove,
  disable, relax, make optional, no longer, comment out, turn or switch off, pause, suspend, exempt,
  bypass, skip, circumvent, sidestep, lighten, shelve, decommission, scrap, phase out, abolish, eliminate,
  ditch, strip, do away with, dispense with, grandfather, carve out, not enforced, advisory or
  informational only, non-blocking, rubber-stamp, a threshold lowered to 0, set aside, relieved of, deemed satisfied, not
  sought/required/run, never blocks;
* a control noun right after "without" ("merges without any review");
* or, without a control noun, a push or merge straight to the default branch or production, a forced
  update of the default branch, work that lands with nobody looking ("with nobody looking", "no human in the
  loop"), an express or fast lane for merges, or unreviewed/unapproved/unsigned changes, merges or pushes.

A clause that forbids the removal ("reviews cannot be skipped", "must never be waived") or records its
reversal ("the lint step was restored", "we reverted the commit that removed the gate") or tells what the
removal destroyed (a post-mortem: "a force-push to main erased two commits") is not read as one.
Deterministic; never raises on a ``str``. The text is expected case folded (NFKC, look-alikes folded).
"""

from __future__ import annotations

import re

__all__ = ["waiver_reasons"]

_CONTROL_WORDS = (
    r"(?:(?:code |peer |security |human |manual |pr |pull request |two-person |four-eyes )?reviews?|reviewers?|sign-?offs?"
    r"|approvals?|approvers?|approving|confirmations?|gates?|gatekeep\w*|gatekeepers?|(?:branch |push |tag )?protections?|signing"
    r"|signatures?|signed (?:commits|tags|releases|artifacts|builds)|verification|oversight|safeguards?|guardrails?"
    r"|two-person (?:rule|review)|four-eyes|second pair of eyes"
    r"|(?:test|tests|testing|lint|linting|scan|scanning|security|audit|signing|qa|review|approval|verification) "
    r"(?:stage|step|job|phase|gate|suite|run)s?|the tests|(?:status|required|ci|security|integrity|pre-merge|merge) checks?)")
_CONTROL = re.compile(r"\b" + _CONTROL_WORDS + r"\b")
_REMOVAL = re.compile(
    r"\b(?:waiv\w*|retir(?:e|ed|es|ing)|sunset\w*|lift(?:ed|s|ing)?|dropp?(?:ed|s|ing)?|remov(?:e|ed|es|ing)|disabl(?:e|ed|es|ing)"
    r"|relax(?:ed|es|ing)?|optional|no longer|comment(?:ed|s|ing)? out|(?:turn|switch)(?:ed|s|ing)? off|paus(?:e|ed|es|ing)"
    r"|suspend(?:ed|s|ing)?|exempt\w*|bypass\w*|skipp?(?:ed|s|ing)?|circumvent\w*|side-?step\w*|lighten\w*|shelv(?:e|ed|es)"
    r"|decommission\w*|scrap(?:ped|s)?|phas(?:ed|es|ing) out|aboli\w*|eliminat\w*|ditch\w*|stripp?(?:ed|s|ing)?"
    r"|(?:did|does|do|doing) away with|dispens(?:e|ed|es|ing) with|grandfather\w*|carve[- ]?outs?|not enforced|unenforced"
    r"|advisory(?: only)?|informational only|non-?blocking|rubber[- ]stamp\w*|waivers?"
    r"|(?:lower\w*|reduc\w*|dropp?\w*|set\w*)\b[^.;\n]{0,30}\bto (?:0|zero)(?: ?%)?(?!\.\d)|set aside|reliev\w* of|releas\w* from|(?:deemed|considered|treated as) (?:satisfied|met|approved|reviewed|done|passed)"
    r"|not (?:sought|required|needed|requested|asked for|enforced|run|performed|done|blocking)|never blocks?)\b")
_STANDALONE = re.compile(
    r"\b(?:with|while) (?:nobody|no one|no-one|no human|no person) (?:looking|watching|reviewing|checking|in the loop)"
    r"|\bno (?:human|person|one) (?:in the loop|looks|reviews|checks)\b"
    r"|\b(?:express|fast|priority) lane\b[^.;\n]{0,60}\b(?:land|merge|ship|deploy|prs?|pull requests?|commits?|pushes)"
    r"|\bfast-?track\w*\b[^.;\n]{0,40}\b(?:merge|land|prs?|pull requests?|past)"
    r"|\b(?:push|commit|land|merg|deploy)\w* (?:directly|straight) (?:to|into|onto) (?:the )?(?:main|master|trunk|default branch|production|prod)\b"
    r"|\bforc(?:e|ed|es|ing)[- ](?:update|push|overwrite|rewrite)\w*\b[^.;\n]{0,30}\b(?:main|master|trunk|default branch|release)\b"
    r"|\b(?:main|master|trunk|default branch)\b[^.;\n]{0,60}\(?(?:a )?forc(?:e|ed)[- ](?:update|push|overwrite|rewrite)"
    r"|\bun(?:reviewed|approved|signed|verified) (?:changes?|merges?|pushes|commits?|prs?|pull requests?|releases?|deploys?|code)\b")
_WITHOUT = re.compile(r"\bwithout (?:a |an |any |the |prior |further |human |manual |explicit )*" + _CONTROL_WORDS + r"\b")
_GUARD = re.compile(
    r"\b(?:cannot|can't|can not|must not|mustn't|may not|never|won't|will not|not be|not allowed|nobody may|no one may"
    r"|don't|dont|do not|re-?enabled|restored|reinstated|brought back|back on|revert\w*|rolled back|undid"
    r"|wiped|erased|destroyed|overwrote|lost)\b")
_CLAUSE = re.compile(r"[.;!?]+(?=\s|$)|\n+")


def _near(a: list[tuple[int, int]], b: list[tuple[int, int]], gap: int = 60) -> bool:
    return any(max(s1, s2) - min(e1, e2) <= gap for s1, e1 in a for s2, e2 in b)


def waiver_reasons(folded: str) -> list[str]:
    """``["weakened:waiver"]`` when a clause of ``folded`` (case-folded text, newlines kept or not) removes a
    control (module doc), else ``[]``. Never raises on a ``str``."""
    for clause in _CLAUSE.split(folded):
        if _GUARD.search(clause):
            continue
        if _STANDALONE.search(clause) or _WITHOUT.search(clause):
            return ["weakened:waiver"]
        controls = [m.span() for m in _CONTROL.finditer(clause)]
        if controls and _near(controls, [m.span() for m in _REMOVAL.finditer(clause)]):
            return ["weakened:waiver"]
    return []
