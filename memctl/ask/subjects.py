"""Same subject, newer first: which retrieved notes talk about the same thing, and which is newer.

Two notes are on the same subject when they belong to the same topic and
their titles share at least :data:`SAME_SUBJECT_MIN_JACCARD` of their
content words (Jaccard index of the lower-cased word sets, words of three
or more characters, :data:`STOP_WORDS` left out). Titles are what the
distiller and OpenCode write as "what the session was about", so a session
that changes an earlier decision ("Raise the orders cache TTL to 15 minutes"
after "Set the orders cache TTL to 5 minutes") usually titles itself alike.

Used twice: retrieval moves the newer of two same-subject notes ahead of the
older (the newer is what holds now) unless the question asks for the older
one (:func:`asks_for_older`), and the context marks each such
excerpt ``newer than [n]`` / ``older than [n]`` so the answer model, told by
``prompts/answer.md``, prefers the newer one when they disagree.
"""

from __future__ import annotations

import re
from typing import Sequence, TypeVar

SAME_SUBJECT_MIN_JACCARD = 0.5
STOP_WORDS = frozenset(
    "the and for with from into onto that this these those was were are our out not but all any its use using "
    "via per how what why when where which who add fix set get run make new old".split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

H = TypeVar("H")

# Words by which a question asks what held before a change (memctl's rule, from the quality set's "older"
# questions: "What did we set the orders cache TTL to first?", "Why were the billing logs too noisy at first?").
EARLIER_WORDS = frozenset("first originally initially previously formerly original earlier".split())
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _numbers(text: str) -> set[str]:
    """The numeric tokens of ``text`` (``5``, ``0``, ``72``: values, versions, sizes), as written."""
    return {t for t in _TOKEN.findall(text or "") if t.isdigit()}


def asks_for_older(question: str, older_title: str, newer_title: str) -> bool:
    """True when ``question`` asks for the older of two same-subject notes rather than what holds now: it
    holds a word of :data:`EARLIER_WORDS` ("at first", "originally"), or a number the older title holds and
    the newer does not (the value that was changed: "Which session set the orders cache TTL to 5 minutes?"
    against "Set … to 5 minutes" / "Raise … to 15 minutes"). A question about the current value ("What is
    the CACHE_TTL_SECONDS of the orders service cache?") holds neither, and the newer note goes first."""
    words = {t.lower() for t in _TOKEN.findall(question or "")}
    return bool(words & EARLIER_WORDS) or bool(_numbers(question) & (_numbers(older_title) - _numbers(newer_title)))


def subject_words(title: str) -> frozenset[str]:
    """Content words of a title (lower-case, >= 3 characters, no :data:`STOP_WORDS`)."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(title or "")) if len(w) >= 3 and w not in STOP_WORDS)


def same_subject(topic_a: str, title_a: str, topic_b: str, title_b: str) -> bool:
    """True when both notes are in one topic and their titles' content words overlap enough (module doc)."""
    if topic_a != topic_b:
        return False
    a, b = subject_words(title_a), subject_words(title_b)
    return bool(a and b) and len(a & b) / len(a | b) >= SAME_SUBJECT_MIN_JACCARD


def newer_first(hits: Sequence[H], question: str | None = None) -> list[H]:
    """``hits`` (with ``source.topic``, ``.title``, ``.date``) reordered so that no note comes after an older
    note on the same subject: a newer one moves up to just before the first older same-subject note, unless
    ``question`` asks for that older one (:func:`asks_for_older`). Otherwise the order is kept. Dates are
    ``YYYY-MM-DD`` strings (compared as text; undated is oldest)."""
    out: list[H] = []
    for hit in hits:
        src = hit.source  # type: ignore[attr-defined]
        slot = next((i for i, seen in enumerate(out)
                     if (seen.source.date or "") < (src.date or "")  # type: ignore[attr-defined]
                     and same_subject(seen.source.topic, seen.source.title, src.topic, src.title)  # type: ignore[attr-defined]
                     and not (question and asks_for_older(question, seen.source.title, src.title))),  # type: ignore[attr-defined]
                    len(out))
        out.insert(slot, hit)
    return out
