"""One pass per text that says which of the scrubber's gate literals it holds.

A rule that cannot match without a literal (``whsec_``, ``/p:``, ``git config``)
declares it, and :func:`memctl.scrub.core.find_secrets` asks a
:class:`GateIndex` once per text which declared literals are present: a rule
whose literals are all absent costs nothing.

Why not one regex alternation of every literal: Python's ``re`` has no
multi-literal search (no Aho-Corasick); an alternation of ~60 literals scans a
41 KB session in ~2 ms, a hundred times a single ``str.find``. What is fast is
``str.find`` of one character (``memchr``). So a literal holding a punctuation
character that is rare in transcripts (``_``, ``-``, ``:``, ``>``…) is found
from the positions of that character: each position costs a dict lookup on the
character before it and a ``startswith`` for the few literals filed there. A
literal of letters only costs one substring test (shared by every rule that
declares it).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

__all__ = ["FOREIGN_SCAN_CHARS", "HIT_WORDS", "GateIndex", "positions"]

# Rarest first in coding transcripts; "." and "/" are in every path and URL, so never anchors.
_ANCHOR_ORDER = ">$@+=:_-"


class GateIndex:
    """Presence test for a fixed set of lowercase literals.

    ``GateIndex(literals).present(lowered)`` returns the frozenset of the
    literals that occur in ``lowered`` (a ``str.lower()`` of the text; rules
    match case-sensitively or not, a lowered haystack is a superset for both).
    Cost: one ``str.find`` loop per anchor character in use, plus one substring
    test per literal without an anchor. Never raises.

    ``foreign``: literals (words of other languages in ASCII) tested only in a text with a
    non-ASCII character or shorter than :data:`FOREIGN_SCAN_CHARS`.

    Attributes:
        literals: every indexed literal (what :meth:`present` can report).
    """

    def __init__(self, literals: Iterable[str], *, foreign: Iterable[str] = ()) -> None:
        self._foreign = frozenset(foreign)
        self._scanned: list[str] = []
        # anchor char -> character before it -> [(offset of the anchor in the literal, literal)]
        self._anchored: dict[str, dict[str, list[tuple[int, str]]]] = {}
        for literal in sorted(set(literals)):
            if literal != literal.lower() or not literal:
                raise ValueError(f"gate literal must be non-empty lower case: {literal!r}")
            offset = next((i for ch in _ANCHOR_ORDER if (i := literal.find(ch, 1)) != -1), -1)
            if offset == -1:
                self._scanned.append(literal)
            else:
                by_before = self._anchored.setdefault(literal[offset], {})
                by_before.setdefault(literal[offset - 1], []).append((offset, literal))
        self._ascii = [literal for literal in self._scanned if literal.isascii() and literal not in self._foreign]
        self._ascii_foreign = [literal for literal in self._scanned if literal.isascii() and literal in self._foreign]
        self.literals = frozenset(self._scanned) | frozenset(
            literal for by_before in self._anchored.values() for entries in by_before.values() for _, literal in entries
        )

    def present(self, lowered: str) -> frozenset[str]:
        """The indexed literals that occur in ``lowered``."""
        # str.isascii() is O(1) (a flag of the string object): an ASCII text holds no non-ASCII
        # literal, and "ö" in an ASCII text would otherwise cost a full scan (Latin-1 shares its kind).
        # Words of other languages written in ASCII (senha, wachtwoord) are tested in a text that
        # holds any non-ASCII character (prose in those languages nearly always does) or in a
        # short one (under FOREIGN_SCAN_CHARS): a long English session does not pay ~20 scans.
        if not lowered.isascii():
            scanned = self._scanned
        elif len(lowered) <= FOREIGN_SCAN_CHARS:
            scanned = self._ascii + self._ascii_foreign
        else:
            scanned = self._ascii
        found = {literal for literal in scanned if literal in lowered}
        for anchor, by_before in self._anchored.items():
            pos = lowered.find(anchor, 1)
            while pos != -1:
                entries = by_before.get(lowered[pos - 1])
                if entries is not None:
                    for offset, literal in entries:
                        if pos >= offset and lowered.startswith(literal, pos - offset):
                            found.add(literal)
                pos = lowered.find(anchor, pos + 1)
        return frozenset(found)


FOREIGN_SCAN_CHARS = 8192
"""Below this length an all-ASCII text is also tested for ASCII words of other languages."""

HIT_WORDS = frozenset({"pass", "secret", "token", "key"})
"""Common words several rules walk hit by hit: their presence is decided by :func:`positions`
(one scan that also gives every hit), not by a :class:`GateIndex` substring test."""


@lru_cache(maxsize=16)
def positions(lowered: str, word: str) -> tuple[int, ...]:
    """Every start of ``word`` in ``lowered``, found once per text and shared by the rules that
    walk the same word's hits (the last few texts are remembered; a text's hash is cached by
    Python, so a repeat lookup costs a comparison by identity)."""
    found: list[int] = []
    pos = lowered.find(word)
    while pos != -1:
        found.append(pos)
        pos = lowered.find(word, pos + 1)
    return tuple(found)
