"""Did a merged memory keep its members' substance? A deterministic check run before a merge is applied.

A consolidation model can answer ``JUNK``, nothing, a fragment, or a copy of
an older (superseded) member. Applied blindly, that deletes the members and
keeps the loss. :func:`substance_problem` compares the merged text with the
members, by tokens, and returns why it is unusable (or ``None``):

Tokens: runs of letters, digits and ``_ . + / @ : ~ -`` (lowercased, outer
punctuation stripped). A token is *name-like* when it holds a digit or an
inner ``. _ / @ : + -``, has a capital after its first letter (``PostgreSQL``,
``CI``), or sits inside backticks: versions, paths, packages, identifiers,
commands. *Content words* are the other tokens of 3+ characters that are not
English function words. A member's *distinctive tokens* are both kinds.
Matching is case-insensitive; a plain word also matches its simple
inflections (``install``/``installs``); the merged text's name-like tokens
also count by their parts (``--frozen-lockfile`` keeps ``frozen``).

Rules, in order (the first failing one is the reason):

1. not empty or whitespace, and not a bare non-answer (``JUNK``, ``none``,
   ``n/a``, …);
2. the *newest* member (latest statement time; ties all count) above all:
   every name-like token present, at least half of its distinctive tokens,
   and at least half of the words it adds to the older members (``pnpm``
   in "install with pnpm, not npm") — so a merge that only repeats an older
   member fails, and says so;
3. every older member whose subject no newer member restates (fewer than
   60% of its distinctive tokens appear in one newer member) keeps at least
   half of its distinctive tokens and at least half of those no other
   member has (``pnpm-lock.yaml``); an older member a newer one restates may
   be dropped — newest wins, as ``memctl/prompts/consolidate.md`` asks;
4. nothing invented or flipped: every number (version, port, time) of the
   newest member is kept; a number no member holds is a fabrication; a word
   of the newest member that follows "never"/"not" (or "always"/"only")
   there must not follow only the opposite in the merge; at most
   ``NEW_NAMES_ALLOWANCE`` name-like tokens no member holds;
5. a length floor: at least half of the longest member that must survive
   (the newest and the non-restated older ones) and 30% of their total.

The thresholds are this project's choice, tuned on the consolidation
cases in ``tests/validator/test_consolidation_check.py``.
"""

from __future__ import annotations

import re
from typing import Protocol, Sequence

RESTATED_SHARE = 0.6     # an older member this much restated by a newer one may be dropped
KEEP_SHARE = 0.5         # share of a member's distinctive tokens a merge must keep
NEW_WORDS_SHARE = 0.5    # share of the words the newest member adds that a merge must keep
LONGEST_FLOOR = 0.5      # merged length / longest surviving member
TOTAL_FLOOR = 0.3        # merged length / total of the surviving members
MAX_LISTED = 5
NEW_NAMES_ALLOWANCE = 1  # name-like tokens a merge may add that no member holds (a rephrasing's "CI")

_TOKEN = re.compile(r"[\w.+/@:~-]+")
_BACKTICKED = re.compile(r"`+([^`]+)`+")
_OUTER = ".,;:!?-+'\"()[]{}<>*"
_NON_ANSWERS = frozenset({"junk", "none", "null", "nil", "n a", "na", "empty", "nothing", "no memory",
                          "no merged memory", "skip", "unknown"})
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "and/or", "a.k.a"})
_FUNCTION_WORDS = frozenset("""
about above after again against all also always and any are aren because been before being below between both
but can cannot could did does doing done down during each even ever every few for from further had has have
having her here hers him his how however into its itself just let may might more most much must never nor not
now off once only other ought our ours out over own per same she should since some such than that the their
theirs them then there these they this those through too under until upon very was were what when where which
while who whom why will with within without would yet you your yours instead still already really
""".split())


class MemberLike(Protocol):
    """What the check reads of a member: ``path``, ``created`` (ISO-8601, sortable) and ``text``."""

    path: str
    created: str
    text: str


def _forms(word: str) -> set[str]:
    """``word`` and what it may be an inflection of (``packages`` → ``package``, ``packag``)."""
    forms = {word}
    if word.isalpha():
        for suffix, repl in (("ies", "y"), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", "")):
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                forms.add(word[: -len(suffix)] + repl)
    return forms


def _is_name(raw: str, token: str) -> bool:
    return (any(c.isdigit() for c in token) or any(c in "._/@:+-" for c in token)
            or any(c.isupper() for c in raw[1:]))


def _tokens(text: str) -> tuple[set[str], set[str]]:
    """(name-like tokens, content words) of ``text``, lowercased; see the module doc."""
    quoted = {t.strip(_OUTER).lower() for span in _BACKTICKED.findall(text) for t in _TOKEN.findall(span)}
    names: set[str] = set()
    words: set[str] = set()
    for raw in _TOKEN.findall(text):
        raw = raw.strip(_OUTER)
        token = raw.lower()
        if not token or token in _ABBREVIATIONS:
            continue
        if token in quoted or _is_name(raw, token):
            names.add(token)
        elif len(token) >= 3 and token not in _FUNCTION_WORDS:
            words.add(token)
    return names, words


def _vocabulary(text: str) -> set[str]:
    """Everything in ``text`` a member token can match: its tokens, their parts, and their inflection forms."""
    found: set[str] = set()
    for raw in _TOKEN.findall(text):
        token = raw.strip(_OUTER).lower()
        for part in {token, *re.split(r"[._/@:+~-]+", token)}:
            if part:
                found |= _forms(part)
    return found


def _present(token: str, vocabulary: set[str]) -> bool:
    return bool(_forms(token) & vocabulary)


def _distinctive(text: str) -> set[str]:
    names, words = _tokens(text)
    return names | words


def _listed(tokens: Sequence[str]) -> str:
    shown = sorted(tokens)[:MAX_LISTED]
    return ", ".join(shown) + (f" (+{len(tokens) - MAX_LISTED} more)" if len(tokens) > MAX_LISTED else "")


def _share(tokens: set[str], vocabulary: set[str]) -> float:
    return sum(_present(t, vocabulary) for t in tokens) / len(tokens) if tokens else 1.0


def _restated(older: MemberLike, newer: Sequence[MemberLike]) -> bool:
    """True when one newer member restates ``older``'s subject (≥ ``RESTATED_SHARE`` of its tokens)."""
    tokens = _distinctive(older.text)
    return any(_share(tokens, _vocabulary(n.text)) >= RESTATED_SHARE for n in newer)


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.:]\d+)*(?!\w)")
_LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)]\s")
_NEGATOR = re.compile(r"^(?:never|not|no|don't|dont|do not|doesn't|isn't|without|nor)$")
_AFFIRMER = re.compile(r"^(?:always|only|must|should|do)$")
_WINDOW = 3  # words after a negator or "always" that it governs


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(_LIST_MARKER.sub(" ", text)))


def _polarity(text: str) -> dict[str, set[str]]:
    """token → {"neg", "pos"}: whether it follows (within a few words) a negator or an "always"/"only"."""
    words = [w.strip(_OUTER).lower() for w in _TOKEN.findall(text.replace("n't", " not"))]
    seen: dict[str, set[str]] = {}
    for i, word in enumerate(words):
        for before in words[max(0, i - _WINDOW):i]:
            if _NEGATOR.match(before):
                seen.setdefault(word, set()).add("neg")
            elif _AFFIRMER.match(before):
                seen.setdefault(word, set()).add("pos")
    return seen


def _fabrication(members: Sequence[MemberLike], newest: Sequence[MemberLike], text: str) -> str | None:
    """Numbers dropped or invented, a negation flipped on the newest member's words, invented names."""
    merged_numbers = _numbers(text)
    member_numbers = set().union(*(_numbers(m.text) for m in members))
    for member in newest:
        lost = sorted(_numbers(member.text) - merged_numbers)
        if lost:
            return f"it drops numbers of the newest member {member.path}: {_listed(lost)}"
    invented = sorted(merged_numbers - member_numbers)
    if invented:
        return f"it states numbers no member holds: {_listed(invented)}"
    merged_polarity = _polarity(text)
    for member in newest:
        names, words = _tokens(member.text)
        for token, marks in _polarity(member.text).items():
            if token not in names | words or len(marks) != 1:
                continue
            flipped = {"neg": "pos", "pos": "neg"}[next(iter(marks))]
            if merged_polarity.get(token) == {flipped}:
                return f"it flips a negation of the newest member {member.path} on: {token}"
    vocabulary = set().union(*(_vocabulary(m.text) for m in members))
    new_names = sorted(t for t in _tokens(text)[0] if not _present(t, vocabulary)
                       and not all(_present(p, vocabulary) for p in re.split(r"[._/@:+~-]+", t) if p))
    if len(new_names) > NEW_NAMES_ALLOWANCE:
        return f"it adds names no member holds: {_listed(new_names)}"
    return None


def substance_problem(members: Sequence[MemberLike], merged: str) -> str | None:
    """Why ``merged`` may not replace ``members`` (2+), as one sentence; ``None`` when it kept their substance.

    Deterministic, no model call; the rules are in the module doc.
    """
    text = (merged or "").strip()
    if not text:
        return "the merged text is empty"
    if re.sub(r"[\W_]+", " ", text).strip().lower() in _NON_ANSWERS:
        return f"the model answered {text[:20]!r} instead of a merged memory"
    vocabulary = _vocabulary(text)
    newest_time = max(m.created for m in members)
    newest = [m for m in members if m.created == newest_time]
    older = sorted((m for m in members if m.created != newest_time), key=lambda m: (m.created, m.path))
    older_words = set().union(*(_distinctive(o.text) for o in older)) if older else set()
    for member in newest:
        names, words = _tokens(member.text)
        older_vocabulary = set().union(*(_forms(t) for t in older_words))
        added = {w for w in names | words if not _present(w, older_vocabulary)}
        lost_added = sorted(t for t in added if not _present(t, vocabulary))
        if added and len(lost_added) > len(added) * (1 - NEW_WORDS_SHARE):
            copied = next((o for o in older if _share(_distinctive(text), _vocabulary(o.text)) >= 0.9), None)
            if copied is not None:
                return (f"it repeats the older member {copied.path} and drops what the newest member "
                        f"{member.path} states: {_listed(lost_added)}")
            return f"it drops what the newest member {member.path} adds: {_listed(lost_added)}"
        lost_names = sorted(t for t in names if not _present(t, vocabulary))
        if lost_names:
            return f"it drops names of the newest member {member.path}: {_listed(lost_names)}"
        if _share(names | words, vocabulary) < KEEP_SHARE:
            lost = sorted(t for t in names | words if not _present(t, vocabulary))
            return f"it keeps less than half of the newest member {member.path}: missing {_listed(lost)}"
    surviving = list(newest)
    for index, member in enumerate(older):
        if _restated(member, [*older[index + 1:], *newest]):
            continue
        surviving.append(member)
        tokens = _distinctive(member.text)
        others = set().union(*(_vocabulary(m.text) for m in members if m is not member))
        own = {t for t in tokens if not _present(t, others)}
        lost_own = sorted(t for t in own if not _present(t, vocabulary))
        if _share(tokens, vocabulary) < KEEP_SHARE or (own and len(lost_own) > len(own) * (1 - KEEP_SHARE)):
            lost = lost_own or sorted(t for t in tokens if not _present(t, vocabulary))
            return f"it drops the facts of {member.path}: missing {_listed(lost)}"
    problem = _fabrication(members, newest, text)
    if problem:
        return problem
    size = len(" ".join(text.split()))
    sizes = [len(" ".join(m.text.split())) for m in surviving]
    if size < LONGEST_FLOOR * max(sizes) or size < TOTAL_FLOOR * sum(sizes):
        return (f"it is {size} characters for members of {sum(sizes)} (longest {max(sizes)}): "
                "too short to hold their facts")
    return None
