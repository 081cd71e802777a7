"""Folding for the sleep validator: the one normalised form every recogniser matches against.

A recogniser in :mod:`memctl.validator.structure`, :mod:`memctl.validator.injection` or
:mod:`memctl.validator.poisoning` only ever sees :func:`fold_for_matching` output, so an evasion
that survives folding survives them all, and one that folding undoes is undone for all of them.
The content that is promoted is always the original text, never a folded one.

Steps of :func:`fold_for_matching` (each undoes one evasion kind from public jailbreak and
prompt-injection write-ups, e.g. the OWASP LLM01 examples and Unicode TR39 "confusables"):

1. NFKC — fullwidth forms, mathematical alphanumerics, ligatures, circled and super/subscript
   letters, the fullwidth ``：``/``｜`` of chat templates → ASCII.
2. Dashes and bidi — every dash (category Pd, U+2212) becomes ``-``, one opening a word (``—force``)
   ``--``; text after a right-to-left override (U+202E) is followed by its reversed (displayed) reading.
   Invisibles removed — every format character (category Cf: zero-width space/joiners, word joiner,
   bidi embeddings/overrides/isolates, soft hyphen, BOM, …) and a few invisible letters outside Cf.
3. Upper-case look-alikes → Latin (Cyrillic ``А В Е К М Н О Р С Т Х``, Greek ``Α Β Ε Η Ι Κ Μ Ν
   Ο Ρ Τ Χ``), then case folding, then lower-case look-alikes → Latin (Cyrillic ``а е о р с х у
   і``…, Greek ``ο ι ν κ α ρ``…, Latin small capitals ``ᴀ ʙ ᴄ``…, a few Armenian and IPA
   letters, Lisu, Coptic and Cherokee look-alikes). Two tables because some letters look Latin only in one case (Greek ``Η`` is H, ``η``
   is n). A subset of Unicode's confusables.txt: the letters an English phrase needs.
4. NFKC again (case folding can denormalise), then enclosing marks (category Me) removed anywhere and
   combining marks after an ASCII letter removed
   (strike-through/underline overlays such as U+0336, and accents: ``é`` → ``e``, so lexicons of
   French, Spanish and German words are written without accents).
5. Letter spacing undone — ``i g n o r e``, ``s.e.n.d``, ``s-e-n-d`` or ``s_e_n_d`` (single letters
   one space, dot, hyphen or underscore apart) becomes one word; words two spaces apart stay two words.
6. Typographic quotes (``“ ” « » ‘ ’``) become ASCII quotes; whitespace collapsed — a run with a line break becomes one ``\\n``, any other run one space.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["deobfuscate", "fold_for_matching", "language_fold", "skeleton"]

# Invisible characters outside category Cf that still hide inside words:
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, braille blank.
_EXTRA_INVISIBLES = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")

_UPPER_CONFUSABLES = str.maketrans({
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Lisu (uppercase-looking syllables)
    "ꓐ": "B", "ꓑ": "P", "ꓒ": "d", "ꓓ": "D", "ꓔ": "T", "ꓖ": "G", "ꓗ": "K", "ꓙ": "J", "ꓚ": "C", "ꓜ": "Z",
    "ꓝ": "F", "ꓟ": "M", "ꓠ": "N", "ꓡ": "L", "ꓢ": "S", "ꓣ": "R", "ꓦ": "V", "ꓧ": "H", "ꓪ": "W", "ꓫ": "X",
    "ꓬ": "Y", "ꓮ": "A", "ꓰ": "E", "ꓲ": "I", "ꓳ": "O", "ꓴ": "U",
    # Coptic capitals
    "Ⲁ": "A", "Ⲃ": "B", "Ⲉ": "E", "Ⲍ": "Z", "Ⲏ": "H", "Ⲓ": "I", "Ⲕ": "K", "Ⲙ": "M", "Ⲛ": "N", "Ⲟ": "O",
    "Ⲣ": "P", "Ⲥ": "C", "Ⲧ": "T", "Ⲩ": "Y", "Ⲭ": "X",
})
_LOWER_CONFUSABLES = str.maketrans({
    # Cyrillic
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "ӏ": "l", "о": "o", "р": "p",
    "ԛ": "q", "ѕ": "s", "ԝ": "w", "х": "x", "у": "y", "ь": "b", "г": "r", "п": "n",
    # Greek
    "ο": "o", "ι": "i", "ν": "v", "κ": "k", "α": "a", "ρ": "p", "τ": "t", "ε": "e", "η": "n", "υ": "u",
    "μ": "u", "χ": "x", "β": "b", "ζ": "z",
    # Armenian, IPA, Latin extras
    "ո": "n", "օ": "o", "ս": "u", "հ": "h", "ց": "g", "ɡ": "g", "ı": "i", "ɑ": "a", "ɩ": "i", "ʋ": "u",
    # Latin small capitals (NFKC leaves them alone)
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
    "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ǫ": "q", "ʀ": "r", "ꜱ": "s", "ᴛ": "t",
    "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z",
    # more Cyrillic and Coptic small letters
    "ҽ": "e", "ҿ": "e", "ԍ": "g", "ѵ": "v", "ҳ": "x", "ү": "y", "ѡ": "w", "ԧ": "h",
    "ⲁ": "a", "ⲉ": "e", "ⲓ": "i", "ⲕ": "k", "ⲛ": "n", "ⲟ": "o", "ⲣ": "p", "ⲥ": "c", "ⲧ": "t", "ⲩ": "y",
    "ⲭ": "x", "ⲱ": "w",
    # Cherokee: case folding maps the small letters (U+AB70…) to these capitals
    "Ꭰ": "d", "Ꭱ": "r", "Ꭲ": "t", "Ꭵ": "i", "Ꭹ": "y", "Ꭺ": "a", "Ꭻ": "j", "Ꭼ": "e", "Ꮃ": "w", "Ꮇ": "m",
    "Ꮋ": "h", "Ꮍ": "y", "Ꮐ": "g", "Ꮒ": "h", "Ꮓ": "z", "Ꮏ": "b", "Ꮢ": "r", "Ꮤ": "w", "Ꮥ": "s", "Ꮩ": "v",
    "Ꮪ": "s", "Ꮮ": "l", "Ꮯ": "c", "Ꮲ": "p", "Ꮶ": "k", "Ꮷ": "d", "Ᏼ": "b",
})
# the skeleton keeps case, so it also needs the small Cherokee letters (U+AB70… = capital + 0x97D0)
_LOWER_CONFUSABLES.update({code + 0x97D0: latin for code, latin in list(_LOWER_CONFUSABLES.items())
                           if 0x13A0 <= code <= 0x13EF})
# Every dash (category Pd) and the minus sign read as ``-``; an em/en dash or a minus sign opening a
# word (``—force``) reads as ``--`` (word processors turn a typed ``--`` into one of them).
_DASHES = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Pd") + "\u2212"
_OPTION_DASH = re.compile(r"(?:(?<=\s)|^)[\u2012-\u2015\u2212\ufe58\ufe63\uff0d](?=[\u0300-\u036f\u0488\u0489\u20d0-\u20f0]*[^\W\d_])")
_ANY_DASH = re.compile("[" + re.escape(_DASHES) + "]")
# Right-to-left override: the run after U+202E (up to its pop or isolate end, or the line end) displays reversed.
_RTL_RUN = re.compile(r"\u202e([^\u202c\u2069\n]*)")
# Typographic quotes read as ASCII ones, so a quoted entry cannot be imitated with look-alike quotes.
_QUOTES = str.maketrans({c: '"' for c in "“”„‟″‶〃«»"} | {c: "'" for c in "‘’‚‛′‵"})
_WHITESPACE_RUN = re.compile(r"\s+")
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:[a-z] ){2,}[a-z](?!\S)|(?<![\w.])(?:[a-z]\.){3,}[a-z](?![\w])"
                             r"|(?<![\w-])(?:[a-z]-){3,}[a-z](?![\w-])"
                             r"|(?<![a-z0-9_])(?:[a-z]_){3,}[a-z](?![a-z0-9_])", re.IGNORECASE)
_HORIZONTAL_RUN = re.compile(r"[^\S\n]{2,}")
_LATIN_STROKES = str.maketrans({"ı": "i", "ł": "l", "đ": "d", "ø": "o", "ħ": "h"})


def _dashes_and_bidi(text: str) -> str:
    # enclosing marks (U+0489, U+20DD…) decorate, never spell: gone before a dash looks at its neighbours
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Me")
    # the model reads the stored order, a person the displayed one: keep both readings
    text = _RTL_RUN.sub(lambda m: m.group(1) + "\n" + m.group(1)[::-1], text)
    return _ANY_DASH.sub("-", _OPTION_DASH.sub("--", text))


def _strip_invisibles(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _EXTRA_INVISIBLES)


def _strip_marks_after_ascii(text: str) -> str:
    out: list[str] = []
    base_ascii = False
    for ch in unicodedata.normalize("NFD", text):
        category = unicodedata.category(ch)
        if category in ("Mn", "Me"):
            # enclosing marks (U+0489, U+20DD…) never belong to a word; accents only go after ASCII
            if base_ascii or category == "Me":
                continue
        else:
            base_ascii = ch.isascii()
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _collapse(match: re.Match[str]) -> str:
    run = match.group(0)
    return "\n" if ("\n" in run or "\r" in run or "\u2028" in run or "\u2029" in run) else " "


@lru_cache(maxsize=256)  # the secret scan, the skeleton and the folded form all start from it
def deobfuscate(text: str) -> str:
    """NFKC and invisibles removed, case and letters kept (what the case-sensitive secret detectors see)."""
    return _strip_invisibles(_dashes_and_bidi(unicodedata.normalize("NFKC", text)))


def _unspace(text: str) -> str:
    return _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .\-_]", "", m.group(0)), text)


@lru_cache(maxsize=256)  # the validator and the action classifier fold the same content in turn
def skeleton(text: str) -> str:
    """Steps 1–5 of the module doc with the case kept (for case-sensitive material: tokens, base64, PEM armour).

    Look-alikes map to Latin of the same case (small capitals to lower case, their inverse), so
    ``АKIA…`` with a Cyrillic ``А`` or a base64 blob written in Cyrillic look-alikes reads as its
    Latin original; runs of spaces become one space, line breaks stay.
    """
    text = deobfuscate(text).translate(_UPPER_CONFUSABLES).translate(_LOWER_CONFUSABLES)
    text = _unspace(_strip_marks_after_ascii(text))
    return _HORIZONTAL_RUN.sub(" ", text)


@lru_cache(maxsize=256)
def fold_for_matching(text: str) -> str:
    """Return the folded form every recogniser matches against (steps in the module doc).

    Lower case, ASCII for Latin look-alikes, no invisibles or combining overlays, letter spacing
    undone, whitespace collapsed to single spaces and single ``\\n``, stripped. Never raises on a
    ``str``; CJK text passes through unchanged apart from NFKC (fullwidth punctuation → ASCII).
    """
    folded = deobfuscate(text).translate(_UPPER_CONFUSABLES).casefold().translate(_LOWER_CONFUSABLES)
    folded = _strip_marks_after_ascii(unicodedata.normalize("NFKC", folded))
    folded = _unspace(folded).translate(_QUOTES)
    return _WHITESPACE_RUN.sub(_collapse, folded).strip()


@lru_cache(maxsize=256)  # the action classifier, the subject lists and the low-risk checks read the same text
def language_fold(text: str) -> str:
    """The text for the language rules: NFKC, invisibles removed, case folded, accents removed after Latin
    letters only (``führe`` → ``fuhre``; Cyrillic ``й``/``ї`` and CJK kept), dotless ``ı`` read as ``i``,
    whitespace collapsed. Unlike :func:`fold_for_matching`, Cyrillic and Greek letters stay themselves."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    out: list[str] = []
    after_ascii = False
    for ch in unicodedata.normalize("NFD", text.casefold().translate(_LATIN_STROKES)):
        if unicodedata.category(ch) == "Mn":
            if after_ascii:
                continue
        else:
            after_ascii = ch.isascii()
        out.append(ch)
    return " ".join(unicodedata.normalize("NFC", "".join(out)).split())
