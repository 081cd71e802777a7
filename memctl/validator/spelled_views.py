"""Spelled-out readings of a memory's text: reversed words, NATO phonetic spelling, Braille, pig latin.

:mod:`memctl.validator.encoded` and :mod:`memctl.validator.action_views` decode byte-level encodings
(base64, hex, escapes, Morse, Caesar shifts). A rule can also be spelled so that no byte decoder sees it:

* ``reversed_words`` — words written backwards in place ("piks edoc weiver dna"; then every word whose
  reverse is a common word is put back), and ``reversed_whole`` — the whole text backwards ("metsys eht ni
  llatsni"): read only when two or more words of three or more letters are not common words forwards but
  are backwards, and they are at least a quarter of the words;
* ``nato`` — the NATO/ICAO spelling alphabet (ICAO Annex 10, vol. II: "alfa bravo charlie …", with the
  common "alpha", "juliet", "x-ray" spellings and digit words), a run of four or more code words decoded in
  place ("charlie uniform romeo lima" → "curl"); "space", "stop", a slash or a comma between code words
  ends a word, "dash", "dot", "slash", "colon", "pipe" and "tilde" are those characters;
* ``braille`` — Unicode Braille patterns (U+2800–U+28FF) read as Grade 1 (uncontracted) English Braille
  (the letters a–z of the Braille Authority of North America's chart, the number sign ⠼ with a–j as
  digits, the capital sign dropped, U+2800 as a space), when six or more Braille cells are present;
* ``pig_latin`` — words ending in "ay" put back (``eviewsray`` → ``reviews``, ``areway`` → ``are``,
  ``anyway`` → ``any``), when three or more such words are not common words themselves and words ending in
  "ay" are at least two fifths of the words.

Each view is only built when the text's shape calls for it, so an ordinary note costs one pass over its
words. The common words are wordfreq's list shipped in ``data/common_words.txt.gz``
(:func:`memctl.validator.subjects._common`). Deterministic; never raises on a ``str``.
"""

from __future__ import annotations

import re
from typing import Iterator

from memctl.validator.subjects import _common

__all__ = ["spelled_views"]

_WORD = re.compile(r"[A-Za-z]{3,}")
_LETTER_RUN = re.compile(r"[A-Za-z]{2,}")
_TOKEN = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)?|[/,;|]")

# ICAO spelling alphabet (Annex 10, vol. II) with its common variant spellings, and digit words
_NATO = {"alfa": "a", "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e", "foxtrot": "f",
         "golf": "g", "hotel": "h", "india": "i", "juliett": "j", "juliet": "j", "kilo": "k", "lima": "l",
         "mike": "m", "november": "n", "oscar": "o", "papa": "p", "quebec": "q", "romeo": "r", "sierra": "s",
         "tango": "t", "uniform": "u", "victor": "v", "whiskey": "w", "whisky": "w", "xray": "x", "x-ray": "x",
         "yankee": "y", "zulu": "z"}
_NATO_EXTRA = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
               "seven": "7", "eight": "8", "nine": "9", "niner": "9", "dash": "-", "hyphen": "-", "dot": ".",
               "period": ".", "point": ".", "slash": "/", "colon": ":", "pipe": "|", "tilde": "~",
               "underscore": "_", "space": " ", "stop": " ", "/": " ", ",": " ", ";": " ", "|": " "}

# Grade 1 English Braille letters (dot numbers), BANA chart
_BRAILLE_DOTS = {"a": "1", "b": "12", "c": "14", "d": "145", "e": "15", "f": "124", "g": "1245", "h": "125",
                 "i": "24", "j": "245", "k": "13", "l": "123", "m": "134", "n": "1345", "o": "135", "p": "1234",
                 "q": "12345", "r": "1235", "s": "234", "t": "2345", "u": "136", "v": "1236", "w": "2456",
                 "x": "1346", "y": "13456", "z": "1356"}


def _cell(dots: str) -> str:
    return chr(0x2800 + sum(1 << (int(d) - 1) for d in dots))


_BRAILLE = {_cell(dots): letter for letter, dots in _BRAILLE_DOTS.items()}
_BRAILLE.update({"\u2800": " ", _cell("256"): ".", _cell("2"): ",", _cell("36"): "-", _cell("34"): "/",
                 _cell("235"): "!", _cell("236"): "?", _cell("3"): "'"})
_NUMBER_SIGN, _CAPITAL_SIGN = _cell("3456"), _cell("6")
_DIGITS = {_cell(_BRAILLE_DOTS[letter]): str((i + 1) % 10) for i, letter in enumerate("abcdefghij")}
_CELLS = re.compile("[\u2800-\u28ff]")
_VOWELS = frozenset("aeiou")


def _reversed(text: str) -> Iterator[tuple[str, str]]:
    words = _WORD.findall(text)
    if len(words) < 2:
        return
    common = _common()
    flipped = {w for w in words if w.lower() not in common and w[::-1].lower() in common}
    if len(flipped) < 2 or 4 * sum(1 for w in words if w in flipped) < len(words):
        return
    # once the text reads as reversed, every word whose reverse is a common word is put back ("dna", "ot")
    yield "reversed_words", _LETTER_RUN.sub(lambda m: m.group(0)[::-1] if m.group(0)[::-1].lower() in common
                                            else m.group(0), text)
    yield "reversed_whole", text[::-1]


def _nato(text: str) -> Iterator[tuple[str, str]]:
    tokens = list(_TOKEN.finditer(text))
    codes = [t.group(0).lower() for t in tokens]
    if sum(1 for c in codes if c in _NATO) < 4:
        return
    out, last, i = [], 0, 0
    while i < len(tokens):
        j, letters = i, 0
        while j < len(tokens) and (codes[j] in _NATO or codes[j] in _NATO_EXTRA):
            letters += codes[j] in _NATO
            j += 1
        if letters >= 4:
            out.append(text[last:tokens[i].start()])
            out.append("".join(_NATO.get(c) or _NATO_EXTRA[c] for c in codes[i:j]))
            last = tokens[j - 1].end()
        i = max(j, i + 1)
    if out:
        yield "nato", "".join(out) + text[last:]


def _braille(text: str) -> Iterator[tuple[str, str]]:
    if len(_CELLS.findall(text)) < 6:
        return
    out: list[str] = []
    number = False
    for ch in text:
        if ch == _NUMBER_SIGN:
            number = True
        elif ch == _CAPITAL_SIGN:
            continue
        elif number and ch in _DIGITS:
            out.append(_DIGITS[ch])
        else:
            number = False
            out.append(_BRAILLE.get(ch, ch) if _CELLS.match(ch) else ch)
    yield "braille", "".join(out)


def _unpig(word: str, common: frozenset[str]) -> str:
    low = word.lower()
    if low.endswith("way") and low[:1] in _VOWELS and low[:-3] in common:
        return low[:-3]
    body = low[:-2]
    tail = len(body)
    while tail > 0 and body[tail - 1] not in _VOWELS:
        tail -= 1
    cluster_len = len(body) - tail
    for k in range(min(cluster_len, 3), 0, -1):
        candidate = body[-k:] + body[:-k]
        if candidate in common:
            return candidate
    return body[-cluster_len:] + body[:-cluster_len] if cluster_len else body


def _pig_latin(text: str) -> Iterator[tuple[str, str]]:
    words = _WORD.findall(text)
    common = _common()
    pig = {w for w in words if w.lower().endswith("ay") and w.lower() not in common}
    if len(pig) < 3 or 5 * sum(1 for w in words if w.lower().endswith("ay")) < 2 * len(words):
        return
    yield "pig_latin", _WORD.sub(lambda m: _unpig(m.group(0), common) if m.group(0).lower().endswith("ay") else m.group(0), text)


def spelled_views(text: str) -> list[tuple[str, str]]:
    """``(view name, decoded text)`` for each spelling of the module doc that ``text`` shows; ``[]`` for an
    ordinary text or a non-``str``. The decoded text is not folded (callers fold it as they fold the plain
    text). Never raises: a decoder that fails yields nothing."""
    if not isinstance(text, str):
        return []
    found: list[tuple[str, str]] = []
    for decoder in (_reversed, _nato, _braille, _pig_latin):
        try:
            found.extend(decoder(text))
        except Exception:  # noqa: BLE001 - one failed decoder leaves the others' views
            continue
    return found
