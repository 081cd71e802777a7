"""Which global memories reach an answer: the ones relevant to the question, within a bounded budget.

Global memories (``user/global/``) apply to every session, so pasting all of them into every answer
would let one promoted text reach every future answer. Instead they are ranked against the question by
Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009;
``k1 = 1.5``, ``b = 0.75``, ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``) over their words
(lowercased runs of letters and digits, English stop words of bm25s removed); a memory sharing no
word with the question scores 0 and is left out. At most :data:`GLOBAL_MAX_ENTRIES` memories and
:data:`GLOBAL_MAX_CHARS` characters of their text are kept, best first (ties by path).
Session and topic memories are already scoped to the conversation and are not ranked here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Protocol, Sequence, TypeVar

GLOBAL_MAX_ENTRIES = 5
GLOBAL_MAX_CHARS = 2000
K1 = 1.5
B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class HasText(Protocol):
    path: str
    text: str


T = TypeVar("T", bound=HasText)


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def terms(text: str) -> list[str]:
    """The words BM25 reads: lowercased letter/digit runs of 2+ characters, stop words removed."""
    stop = _stopwords()
    return [w for w in _WORD.findall(text.lower()) if len(w) >= 2 and w not in stop]


def bm25_scores(question: str, documents: Sequence[str]) -> list[float]:
    """Okapi BM25 score of each document for ``question`` (see the module doc); 0.0 when no word is shared."""
    bags = [Counter(terms(d)) for d in documents]
    if not bags:
        return []
    lengths = [sum(b.values()) for b in bags]
    average = (sum(lengths) / len(lengths)) or 1.0
    query = set(terms(question))
    df = {q: sum(1 for b in bags if q in b) for q in query}
    scores = []
    for bag, length in zip(bags, lengths):
        score = 0.0
        for q in query:
            tf = bag.get(q, 0)
            if tf:
                idf = math.log(1 + (len(bags) - df[q] + 0.5) / (df[q] + 0.5))
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        scores.append(score)
    return scores


def relevant_globals(question: str, memories: Sequence[T], *, max_entries: int = GLOBAL_MAX_ENTRIES,
                     max_chars: int = GLOBAL_MAX_CHARS) -> list[T]:
    """The global memories relevant to ``question``, best first, within the entry and character bounds.

    A memory longer than what is left of ``max_chars`` is skipped (a shorter, less relevant one may still
    fit); ``max_chars`` counts the memories' text, not the quoting around it.
    """
    scored = sorted(((s, m) for s, m in zip(bm25_scores(question, [m.text for m in memories]), memories) if s > 0),
                    key=lambda pair: (-pair[0], pair[1].path))
    chosen: list[T] = []
    left = max_chars
    for _score, memory in scored:
        if len(chosen) >= max_entries:
            break
        if len(memory.text) <= left:
            chosen.append(memory)
            left -= len(memory.text)
    return chosen
