"""One pass per text that says which of the scrubber's gate literals it holds.

A rule that cannot match without a literal (``whsec_``, ``/p:``, ``git config``)
declares it, and :func:`memctl.scrub.core.find_secrets` asks a
:class:`GateIndex` once per text which declared literals are present: a rule
whose literals are all absent costs nothing.

The pass is one Hyperscan scan (PyPI ``hyperscan``, the python-hyperscan
binding with the Hyperscan/Vectorscan library in its wheel; Intel's pure-literal
compiler, ``hs_compile_lit_multi``, with ``HS_FLAG_SINGLEMATCH`` so each literal
is reported once: https://intel.github.io/hyperscan/dev-reference/compilation.html).
Python's ``re`` has no multi-literal search, and a substring test per letters-only
literal (``in``) cost ~100 µs each on a 41 KB session on the shared bench
machine: with ~60 of them that was a third of a typical session's scrub. The
scan costs ~65 µs for all ~440 literals together (bench/bench_scrub_corpus.py).
Every literal, words of other languages included, is tested in every text.

When the library cannot be loaded (a platform without a wheel), the index falls
back to one substring test per literal: slower, the same answer.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["HIT_WORDS", "GateIndex", "line_breaks", "positions", "run_heads"]


class GateIndex:
    """Presence test for a fixed set of lowercase literals.

    ``GateIndex(literals).present(lowered)`` returns the frozenset of the
    literals that occur in ``lowered`` (a ``str.lower()`` of the text; rules
    match case-sensitively or not, a lowered haystack is a superset for both).
    The literals are compiled into one Hyperscan database on the first call
    (~10 ms), not at import. Never raises on any ``str`` (lone surrogates are
    encoded with ``surrogatepass``).

    Raises:
        ValueError: at construction, for an empty or not lower-case literal.

    Attributes:
        literals: every indexed literal (what :meth:`present` can report).
    """

    def __init__(self, literals: Iterable[str]) -> None:
        ordered = sorted(set(literals))
        for literal in ordered:
            if literal != literal.lower() or not literal:
                raise ValueError(f"gate literal must be non-empty lower case: {literal!r}")
        self._ordered = tuple(ordered)
        self.literals = frozenset(ordered)
        self._database: object | None = None
        self._local = threading.local()
        self._lock = threading.Lock()

    def present(self, lowered: str) -> frozenset[str]:
        """The indexed literals that occur in ``lowered``."""
        if not self._ordered or not lowered:
            return frozenset()
        scratch = self._scratch()
        if scratch is None:
            return frozenset(literal for literal in self._ordered if literal in lowered)
        found: set[int] = set()

        def on_match(literal_id: int, start: int, end: int, flags: int, context: object) -> None:
            found.add(literal_id)

        data = lowered.encode("utf-8", "surrogatepass")
        self._database.scan(data, match_event_handler=on_match, scratch=scratch)  # type: ignore[attr-defined]
        ordered = self._ordered
        return frozenset(ordered[i] for i in found)

    def _scratch(self) -> object | None:
        """This thread's Hyperscan scratch space (one per thread, as the library requires), or
        None when the library is unavailable; the database is compiled on first use."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is not None:
            return scratch
        with self._lock:
            if self._database is None:
                self._database = _compile(self._ordered)
        if self._database is False:
            return None
        import hyperscan

        scratch = hyperscan.Scratch(self._database)
        self._local.scratch = scratch
        return scratch


def _compile(literals: tuple[str, ...]) -> object:
    """A block-mode literal database of ``literals`` (id = index), or False when the
    ``hyperscan`` package or its library cannot be loaded."""
    try:
        import hyperscan
    except ImportError:
        return False
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=[literal.encode("utf-8", "surrogatepass") for literal in literals],
        ids=list(range(len(literals))),
        elements=len(literals),
        flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(literals),
        literal=True,
    )
    return database


HIT_WORDS = frozenset({"pass", "secret", "token", "key"})
"""Common words several rules walk hit by hit. Their presence comes from the one
:class:`GateIndex` scan like every literal's; their hits from :func:`positions`, found once per
text by the first rule that walks them and shared by the others (a typical session holds ~140
hits of "token" and none of the other three, whose absent scans are then skipped)."""


@lru_cache(maxsize=16)
def positions(lowered: str, word: str) -> tuple[int, ...]:
    """Every start of ``word`` in ``lowered``, found once per text and shared by the rules that
    walk the same word's hits (the last few texts are remembered; a text's hash is cached by
    Python, so a repeat lookup costs a comparison by identity). Overlapping hits are all
    reported (``positions("aaa", "aa") == (0, 1)``)."""
    finder = _word_finder(word)
    if finder is not None:  # no two hits of a border-free word can overlap: one C-level scan
        return tuple([hit.start() for hit in finder.finditer(lowered)])
    found: list[int] = []
    pos = lowered.find(word)
    while pos != -1:
        found.append(pos)
        pos = lowered.find(word, pos + 1)
    return tuple(found)


_NEWLINE = re.compile(r"\n")
_ESCAPED_NEWLINE = re.compile(r"\\n")


@lru_cache(maxsize=16)
def line_breaks(lowered: str) -> tuple[int, ...]:
    """Sorted offsets of every line break of ``lowered``: a newline, or the backslash of an escaped
    ``\\n`` (JSON inside a string), found once per text and shared like :func:`positions`."""
    # two literal scans (C's fast search) cost ~25 µs on a 41 KB session, one alternation ~180 µs
    found = [hit.start() for hit in _NEWLINE.finditer(lowered)]
    escaped = [hit.start() for hit in _ESCAPED_NEWLINE.finditer(lowered)]
    return tuple(sorted(found + escaped) if escaped and found else found or escaped)


@lru_cache(maxsize=512)
def _word_finder(word: str) -> re.Pattern[str] | None:
    """A literal pattern for ``word`` when no proper prefix of it is also a suffix (then its
    occurrences never overlap and ``finditer`` finds them all), else None. ``finditer`` of a
    literal is ~3x faster than a ``str.find`` loop over the ~140 hits a typical session holds."""
    if not word or any(word[:n] == word[-n:] for n in range(1, len(word))):
        return None
    return re.compile(re.escape(word))


# Run heads (memctl.scrub.entropy._RUN_HEAD) from one byte translation: every run character becomes
# "x", everything else a space; a run of 20 is then a plain substring search (C's fast search, no
# per-position regex or automaton work), and the heads of a run are its start and each "=" in it
# (the one run character that may precede a head). tests/scrub/test_scrub_gates.py compares them.
_RUN_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789+/_=.~-")
_RUN_MASK = bytes(ord("x") if byte in _RUN_BYTES else ord(" ") for byte in range(256))
_RUN_OF_20 = b"x" * 20
_HEAD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_EQUALS = re.compile(rb"=")


class _HeadIndex:
    """Every run head (a start of ``memctl.scrub.entropy._RUN_HEAD``: an ASCII letter or digit after a character
    outside ``[A-Za-z0-9+/_.~-]``, then 19 of ``[A-Za-z0-9+/_=.~-]``) of a lowered ASCII text.

    ``starts(lowered)`` returns the sorted head offsets, or None when the text is not ASCII (the
    callers then walk every hit). A hit whose reach holds no head cannot yield a span, so only hits
    with a head within the entropy rule's reach after them are walked (a typical session has ~140
    hits of "token" and a few heads, mostly file paths). The text is translated once
    (``bytes.translate``) to a mask in which a run of 20 is a substring search: ~15 µs on a 41 KB
    session where a Hyperscan scan of the head regex took ~130 µs (bench/bench_scrub_corpus.py,
    the scrubber's cost target). Never raises.
    """

    def starts(self, lowered: str) -> list[int] | None:
        if not lowered.isascii():
            return None
        data = lowered.encode("ascii")
        mask = data.translate(_RUN_MASK)
        heads: list[int] = []
        size = len(mask)
        pos = mask.find(_RUN_OF_20)
        while pos != -1:
            run_start = mask.rfind(b" ", 0, pos) + 1
            run_end = mask.find(b" ", pos)
            if run_end == -1:
                run_end = size
            last = run_end - 20  # a head needs 20 run characters from it
            if data[run_start] in _HEAD_BYTES:
                heads.append(run_start)
            if b"=" in data[run_start:run_end]:
                for equals in _EQUALS.finditer(data, run_start, last):
                    after = equals.end()
                    if data[after] in _HEAD_BYTES:
                        heads.append(after)
            pos = mask.find(_RUN_OF_20, run_end)
        return heads


_HEADS = _HeadIndex()


@lru_cache(maxsize=16)
def run_heads(lowered: str) -> tuple[int, ...] | None:
    """Sorted starts of every run of 20+ token characters in ``lowered`` (see :class:`_HeadIndex`),
    found once per text and shared by the rules that look for long random runs (the entropy
    backstop, WIF keys); None when not known (non-ASCII text, no Hyperscan)."""
    starts = _HEADS.starts(lowered)
    return None if starts is None else tuple(starts)
