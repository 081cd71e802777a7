"""The shape of a low-risk memory: checks of form, not of subject, that fail closed on kinds nobody listed.

:func:`memctl.validator.low_risk.assess_low_risk` finds sensitive *subjects* through word lists; a hostile
text about a subject no list names reads as a plain fact. These checks ask instead whether the text has
the shape of a descriptive fact the recogniser can read at all, and hold it (``form:<kind>``) when not:

* ``form:script`` — letters of a script the subject lexicons do not cover. They cover Latin-script
  languages (but not Vietnamese, whose tone letters are outside Latin-1/Extended-A), Cyrillic, Chinese,
  Japanese and Korean, and Greek letters as mathematics (fewer than eight in a text; more is Greek prose); an Arabic, Hebrew, Devanagari, Thai … text, or Vietnamese, cannot be judged, so it
  waits for a person (held, never lost);
* ``form:code`` — what would configure or run something rather than describe it: a call with a string
  argument (``x.exec("…")``), an SQL statement or injection shape (``' OR 1=1``, ``; --``, a statement
  ending in ``;``), an environment
  assignment of a path, flag, quote or substitution (``NODE_OPTIONS='--require …'``, ``X=~/…``; a plain
  ``HUSKY=0`` is a fact), a system path (``/etc/``, ``/tmp/``,
  ``/usr/``, ``/var/``), a code span holding ``=``, ``;``, ``(`` or ``|`` (spans paired left to right; a
  function named with empty parentheses, ``handle()``, is a name), a sudoers or
  ``import`` line;
* ``form:run_on`` — a CamelCase run of five or more capitalised words ("AlwaysSkipCiChecksOnHotfix…"):
  a sentence written without spaces to pass word lists (an identifier of that length in a fact is rare
  and a person can approve it);
* ``form:imperative`` — a sentence that opens (after an optional label such as "Note:", "Important:",
  "TeamRule:") with a verb in the imperative: a memory describes the project, an order is an action. A
  prohibition of an act that is not protective, with no exception ("Never commit .env", "Don't force-push
  to main") restricts the agent and is not counted; "never mention", "don't verify", "never … unless" are;
* ``form:supersedes`` — a text that presents itself as replacing what was known ("correction", "no
  longer", "any more", "from now on", "newer", "obsolete", "we followed suit"): a replacement of a fact
  is a decision a person takes, whatever its subject.

Deterministic, no model, never raises on a ``str``. The verb list is English plus the imperatives of
the lexicons' other languages that appeared in notes; it is a grammar class (bounded), not a list of bad
instructions. "Use", "prefer" and "ignore" are left out: "Prefer pathlib over os.path", "Ignore the old
checkpoints" are preferences and notes a person writes every day (the action classifier judges what they name).
"""

from __future__ import annotations

import re

__all__ = ["form_reasons"]

# Scripts the subject lexicons read: Latin (basic, Latin-1, Extended-A/B), Greek letters used in maths,
# Cyrillic, CJK ideographs, Japanese kana, Korean Hangul. Anything else with letters is a script the rules cannot judge.
_READABLE_RANGES = ((0x0000, 0x024F), (0x0370, 0x03FF), (0x0400, 0x052F), (0x1100, 0x11FF), (0x2000, 0x2BFF),
                    (0x3000, 0x30FF), (0x3130, 0x318F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF),
                    (0xF900, 0xFAFF), (0xFF00, 0xFFEF))
_UNREADABLE_SHARE = 0.05
"""Share of a text's letters outside the readable scripts above which it is held (a Japanese brand name
in an English fact stays readable)."""

_CODE = re.compile(
    r"(?:^|[\s`'\"(])(?:export\s+)?[A-Z][A-Z0-9_]{2,}=[^\s]*[/~$('\"-]"  # NODE_OPTIONS='--require …', X=~/…
    r"|(?:^|[\s`'\"(=])(?:/etc|/tmp|/usr|/var|/opt|/root|/dev|/proc|/bin|/sbin|/boot|/lib)/"  # system paths
    r"|(?:^|[\s`'\"(=])/dev/null\b"
    r"|\bNOPASSWD\b|\bsudoers\b"
    r"|(?:^|[;`\s])import\s+[\w.]+\s*;"
    r"|\w\.\w+\(\s*['\"]"                                                # a call with a string: x.exec("…")
    r"|(?i:'\s*(?:or|and)\s+['\"]?\w+['\"]?\s*=\s*['\"]?\w+|;\s*--|\b(?:select|insert|update|delete|drop|union|shutdown)\b[^.\n]*(?:;|--)\s*$)",
    re.MULTILINE)

_SPAN = re.compile(r"`([^`]+)`")
_SPAN_ACTS = re.compile(r"[=;(|]")
_NAME_MENTION = re.compile(r"[\w.:]+\(\)")
"""A function named in prose (``handle()``, ``Base.run()``): a name, not a call that does something."""


def _code_span(text: str) -> bool:
    # spans are paired left to right: the prose between two spans ("`make build` gebaut; … `make test`") is no span
    return any(_SPAN_ACTS.search(span) and not _NAME_MENTION.fullmatch(span.strip()) for span in _SPAN.findall(text))


_RUN_ON = re.compile(r"(?:[A-Z][a-z]+){5,}")

_LABEL = r"(?:[\w\s()'-]{1,30}:\s*)?"
_IMPERATIVE_VERBS = (
    "act add allow always append apply approve ask assume avoid block bump call change check commit configure copy "
    "create delete deploy disable do don't download drop echo edit email enable ensure exclude export fetch fix "
    "follow forward give grant hide import include inject insert install keep kill leave let log make mark "
    "merge message mount move never notify omit open overwrite override paste patch pin pipe point post "
    "prepend print propose push put reply report remember remove rename replace repeat reset respond restart "
    "rotate route run save say schedule send set share skip source start stop store submit suppress switch tell "
    "treat trust turn update upload write "
    # imperatives of the other languages the lexicons read, as they open notes
    "installiere nutze verwende füge setze deaktiviere ignoriere sende speichere "
    "installez utilisez ajoutez désactivez ignorez envoyez "
    "instala usa utiliza añade desactiva ignora envía guarda "
    "installa usa aggiungi disattiva ignora invia salva "
    "instale adicione desative envie salve"
).split()
_IMPERATIVE = re.compile(
    r"(?:^|[.!?\n]\s*|;\s+|\b(?:when|whenever|if|before|after)\b[^.;:]{0,80},\s*)" + _LABEL + r"(?:please\s+|bitte\s+|por favor\s+|s'il vous plaît\s+)?(?:"
    + "|".join(sorted((re.escape(v) for v in set(_IMPERATIVE_VERBS)), key=len, reverse=True)) + r")(?![\w-])(?!\s*[:=])",
    re.IGNORECASE)
_SUBJECT_AFTER = re.compile(r"(?:\s+(?!(?:the|a|an|this|that|these|those|all|every|any|our|your|my|its|their)\b)[\w-]+)?\s+(?:is|are|was|were|has|have|had|follow|follows|start|starts|live|need|get|gets|step|steps|job|jobs|command|script|stage|target|"
                            r"rule|rules|hook|hooks|flag|option|call|calls|logs?|file|files|runs|ran|broke|breaks|"
                            r"fails|takes|took|needs|lives|goes|went|uses|\w+ed)\b"
                            # a plural noun then a plural present verb: "Commit messages use …", "Push notifications include …"
                            r"|\s+(?!(?:the|this|these|those|its|their|our|your)\b)[\w-]+s\s+(?:use|contain|include|reference"
                            r"|describe|end|begin|stay|show|match)\b", re.IGNORECASE)
"""Words after the verb that make it a noun ("deploy failed", "Commit messages are written"): not an order."""

_SUPERSEDES = re.compile(
    r"\bcorrection\b|\bno longer\b|\bany ?more\b|\bfrom now on\b|\b(?:is|are) now\b.{0,40}\binstead\b"
    r"|\(newer\)|\bnewer\b.{0,20}\b(?:rule|note|policy|version of this)\b|\bobsolete\b|\bsuperseded?\b"
    r"|\bfollowed suit\b|\bmost (?:top |popular |big )?(?:repos|projects|teams|companies)\b"
    # a correction of an earlier memory (a poisoned correction pushes the real one out)
    r"|\b(?:update|updates|addendum|amendment|erratum|errata|fix|revision) (?:to|of|for) (?:the|this|that|our|my) \w+"
    r"|\boutdated\b|\bout of date\b|\b(?:was|were|is|are|had it|got it) (?:wrong|incorrect|mistaken|inaccurate)"
    r"|\berrat(?:um|a)\b|^\s*actually\b|\breplaces?\b|\bsupersedes?\b|\binstead of what\b"
    r"|\b(?:earlier|previous|prior|older|old|last|other) (?:memory|note|entry|rule|statement|version)\b"
    r"|\bcontrary to\b|\bcorrect(?:ed|ing|s)? (?:the|an|my|our) (?:earlier|previous|old|note|memory)"
    r"|\bberichtigung\b|\bkorrektur\b|\bstimmt nicht mehr\b|\bveraltet\b|\bmise à jour de la\b|\brectificatif\b"
    r"|\bn'est plus\b|\bcorrecci[oó]n\b|\bya no\b|\bcorrezione\b|\bnon più\b|\bисправлени\w*|\bпоправк\w*"
    r"|\bустарел\w*|\bбольше не\b|訂正|更正|已过时|古い情報"
    r"|^\W*(?:revised|updated|amended|corrected|new version|update|revision|nachtrag|aktualisiert|mise à jour|actualizado"
    r"|aggiornato|обновлено)\s*[:\-—]|\b(?:withdrawn|rescinded|retracted|no longer applies|does not apply any)\b"
    r"|\b(?:ältere|frühere|vorige)[nmrs]? notiz|\bnote (?:précédente|antérieure)|\bancienne note"
    r"|\bnota (?:anterior|previa|precedente)|\bпредыдущ\w+ заметк|\bпрежн\w+ заметк",
    re.IGNORECASE | re.MULTILINE)


_GREEK_PROSE = 8
"""Greek letters are read as mathematics (σ, λ, Δ) up to this many in a text; past it the text is Greek prose,
which no lexicon reads."""


def _unreadable_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    greek_prose = sum(0x0370 <= ord(c) <= 0x03FF for c in letters) >= _GREEK_PROSE
    outside = 0
    for c in letters:
        code = ord(c)
        if not any(lo <= code <= hi for lo, hi in _READABLE_RANGES) or greek_prose and 0x0370 <= code <= 0x03FF:
            outside += 1
        elif c in "ơưƠƯđĐ":
            outside += 1  # Vietnamese letters inside Latin Extended-A/B (its tone letters lie outside it)
    return outside / len(letters)


_ADVERBS = ("always", "never")
_CLAUSE_END = re.compile(r"[.;,:!?\n]|\s(?:so|because|since|when|that|which|and then)\s", re.IGNORECASE)
_OBJECT_NEXT = re.compile(r"\s*(?:the|a|an|this|that|these|those|it|them|me|us|him|her|every|all|any|each|our|your"
                          r"|my)\b", re.IGNORECASE)
"""A verb followed by one of these has an object: an order, whatever clause follows ("Tell the reviewer it was …")."""
_COPULA = re.compile(r"\b(?:is|are|was|were|has|have|had|will|would)\b", re.IGNORECASE)
_FINITE_AFTER = re.compile(r"\s+\w+(?:s|ed)\b", re.IGNORECASE)


_PROHIBITION = re.compile(r"(?:never|don't|do not|do n't)\s*$", re.IGNORECASE)
_PROTECTIVE_ACTS = frozenset(
    "mention report warn tell flag ask confirm check verify validate test tests review scan sign audit log alert notify "
    "escalate disclose show cite quote include wait backup back lint pin lock encrypt hash rotate revoke patch update "
    "run require enforce block protect restrict limit rely trust".split())
_NEXT_WORD = re.compile(r"\s*(?:ever\s+|just\s+|directly\s+|really\s+)?([\w'-]+)")
_EXCEPTION = re.compile(r"\b(?:except|unless|without|but|only|other than|instead)\b", re.IGNORECASE)


def _prohibits_a_risky_act(text: str, match: re.Match[str]) -> bool:
    """True when ``match`` opens a prohibition ("Never commit .env", "Don't force-push to main") of an act that
    is not protective (:data:`_PROTECTIVE_ACTS`) and its clause carries no exception: forbidding an act restricts
    what an agent does, so it is not an order; forbidding a protective act ("never mention", "don't verify")
    or with an exception ("never … unless") is."""
    if not _PROHIBITION.search(match.group(0)):
        return False
    verb = _NEXT_WORD.match(text, match.end())
    clause = _CLAUSE_END.split(text[match.end(): match.end() + 240], maxsplit=1)[0]
    return bool(verb) and verb.group(1).lower() not in _PROTECTIVE_ACTS and not _EXCEPTION.search(clause)


def _imperative(text: str) -> bool:
    for match in _IMPERATIVE.finditer(text):
        if _prohibits_a_risky_act(text, match):
            continue  # "Never commit .env": a restriction, not an order
        if _SUBJECT_AFTER.match(text, match.end()):
            continue  # "Run steps are cached" is a noun, not an order
        if match.group(0).lower().rstrip().endswith(_ADVERBS) and _FINITE_AFTER.match(text, match.end()):
            continue  # "Always wins?", "Never failed": an adverb before a finite verb, not an order
        clause = _CLAUSE_END.split(text[match.end() : match.end() + 240], maxsplit=1)[0]
        if not _OBJECT_NEXT.match(clause) and _COPULA.search(clause):
            continue  # "Deploy windows for the service are on Thursdays": the verb was a noun's first word
        return True
    return False


def form_reasons(text: str) -> list[str]:
    """The ``form:<kind>`` reasons (module doc) found in ``text``, in the doc's order; ``[]`` when its shape
    is that of a descriptive fact. Never raises on a ``str``."""
    reasons: list[str] = []
    if _unreadable_share(text) > _UNREADABLE_SHARE:
        reasons.append("form:script")
    if _CODE.search(text) or _code_span(text):
        reasons.append("form:code")
    if _RUN_ON.search(text):
        reasons.append("form:run_on")
    if _imperative(text):
        reasons.append("form:imperative")
    if _SUPERSEDES.search(text):
        reasons.append("form:supersedes")
    return reasons
