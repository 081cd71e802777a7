"""Look-alike characters folded to the Latin letter they imitate, per Unicode TR39 (``confusables.txt``).

The table is the one the PyPI package ``confusable-homoglyphs`` (3.3.1) ships as
``confusable_homoglyphs/confusables.json`` (generated from the Unicode Consortium's TR39 data; read as a
file, offline). Each non-ASCII character that TR39 lists as confusable with an ASCII letter, directly
or through one intermediate character (``ĸ`` ~ ``к`` ~ ``k``), maps to that letter; ASCII characters
never change, so ``0``/``O`` and ``1``/``l`` stay themselves; a capital look-alike of ``l`` (Greek ``Ι``)
reads as ``I``. When the package is absent the
table is empty and :func:`fold_confusables` returns its input unchanged (the validator's own
Cyrillic/Greek table in :mod:`memctl.validator.fold` still applies).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

__all__ = ["confusable_table", "fold_confusables"]

# Latin letters with a stroke or bar, which TR39 does not list with their base letter (kra ĸ reads as k)
_STROKES = {ord(a): b for a, b in zip("ĸŧđħłøƀɨʉƶǥꝁŀ", "ktdhlobiuzgkl")}
_WORD = re.compile(r"\S+")


def _ascii_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


@lru_cache(maxsize=1)
def confusable_table() -> dict[int, str]:
    """``{code point: ASCII letter}`` for :meth:`str.translate`; empty when the TR39 data is not installed."""
    try:
        raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8")
        data: dict[str, list[dict[str, str]]] = json.loads(raw)
    except (ModuleNotFoundError, FileNotFoundError, OSError, ValueError):
        return {}
    table: dict[int, str] = {}
    for key, glyphs in data.items():
        if _ascii_letter(key):
            for glyph in glyphs:
                char = glyph.get("c", "")
                if len(char) == 1 and not char.isascii():
                    # TR39's prototype of capital I is small l; a capital look-alike (Greek Ι) reads as I
                    table.setdefault(ord(char), "I" if key == "l" and char.isupper() else key)
    for key, glyphs in data.items():  # one step further: ĸ is listed with к, and к with k
        if len(key) == 1 and not key.isascii() and ord(key) not in table:
            for glyph in glyphs:
                char = glyph.get("c", "")
                target = char if _ascii_letter(char) else table.get(ord(char)) if len(char) == 1 else None
                if target:
                    table[ord(key)] = target
                    break
    return table


@lru_cache(maxsize=256)  # the classifier, the low-risk views and the weakened-control checks fold the same text
def fold_confusables(text: str) -> str:
    """``text`` with TR39 look-alikes of ASCII letters replaced by those letters, in mixed-script words only.

    A word is folded when it holds an ASCII letter or a stroked Latin letter (``Bеforе`` with Cyrillic
    ``е``, ``ŧls``); a word wholly in another script (``привет``, ``日本語``) is left alone, so text in
    Russian or Greek keeps its letters for the language rules.
    """
    if text.isascii():
        return text
    table = confusable_table()

    def fold(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.isascii() or not any(("a" <= c.lower() <= "z") or ord(c) in _STROKES for c in word):
            return word
        return word.translate(_STROKES).translate(table)

    return _WORD.sub(fold, text)
