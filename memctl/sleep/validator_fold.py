"""Folding for the sleep validator: the one normalised form every recogniser matches against.

A recogniser in :mod:`memctl.sleep.validator_structure`, :mod:`memctl.sleep.validator_injection` or
:mod:`memctl.sleep.validator_poisoning` only ever sees :func:`fold_for_matching` output, so an evasion
that survives folding survives them all, and one that folding undoes is undone for all of them.
The content that is promoted is always the original text, never a folded one.

Steps of :func:`fold_for_matching` (each undoes one evasion kind from public jailbreak and
prompt-injection write-ups, e.g. the OWASP LLM01 examples and Unicode TR39 "confusables"):

1. NFKC — fullwidth forms, mathematical alphanumerics, ligatures, circled and super/subscript
   letters, the fullwidth ``：``/``｜`` of chat templates → ASCII.
2. Invisibles removed — every format character (category Cf: zero-width space/joiners, word joiner,
   bidi embeddings/overrides/isolates, soft hyphen, BOM, …) and a few invisible letters outside Cf.
3. Upper-case look-alikes → Latin (Cyrillic ``А В Е К М Н О Р С Т Х``, Greek ``Α Β Ε Η Ι Κ Μ Ν
   Ο Ρ Τ Χ``), then case folding, then lower-case look-alikes → Latin (Cyrillic ``а е о р с х у
   і``…, Greek ``ο ι ν κ α ρ``…, Latin small capitals ``ᴀ ʙ ᴄ``…, a few Armenian and IPA
   letters). Two tables because some letters look Latin only in one case (Greek ``Η`` is H, ``η``
   is n). A subset of Unicode's confusables.txt: the letters an English phrase needs.
4. NFKC again (case folding can denormalise), then combining marks after an ASCII letter removed
   (strike-through/underline overlays such as U+0336, and accents: ``é`` → ``e``, so lexicons of
   French, Spanish and German words are written without accents).
5. Letter spacing undone — ``i g n o r e``, ``s.e.n.d`` or ``s-e-n-d`` (single letters one space,
   dot or hyphen apart) becomes one word; words two spaces apart stay two words.
6. Whitespace collapsed — a run with a line break becomes one ``\\n``, any other run one space.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["deobfuscate", "fold_for_matching", "skeleton"]

# Invisible characters outside category Cf that still hide inside words:
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, braille blank.
_EXTRA_INVISIBLES = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")

_UPPER_CONFUSABLES = str.maketrans({
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
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
})
_WHITESPACE_RUN = re.compile(r"\s+")
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:[a-z] ){2,}[a-z](?!\S)|(?<![\w.])(?:[a-z]\.){3,}[a-z](?![\w])"
                             r"|(?<![\w-])(?:[a-z]-){3,}[a-z](?![\w-])", re.IGNORECASE)
_HORIZONTAL_RUN = re.compile(r"[^\S\n]{2,}")


def _strip_invisibles(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _EXTRA_INVISIBLES)


def _strip_marks_after_ascii(text: str) -> str:
    out: list[str] = []
    base_ascii = False
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) == "Mn":
            if base_ascii:
                continue
        else:
            base_ascii = ch.isascii()
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _collapse(match: re.Match[str]) -> str:
    run = match.group(0)
    return "\n" if ("\n" in run or "\r" in run or "\u2028" in run or "\u2029" in run) else " "


def deobfuscate(text: str) -> str:
    """NFKC and invisibles removed, case and letters kept (what the case-sensitive secret detectors see)."""
    return _strip_invisibles(unicodedata.normalize("NFKC", text))


def _unspace(text: str) -> str:
    return _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .\-]", "", m.group(0)), text)


def skeleton(text: str) -> str:
    """Steps 1–5 of the module doc with the case kept (for case-sensitive material: tokens, base64, PEM armour).

    Look-alikes map to Latin of the same case (small capitals to lower case, their inverse), so
    ``АKIA…`` with a Cyrillic ``А`` or a base64 blob written in Cyrillic look-alikes reads as its
    Latin original; runs of spaces become one space, line breaks stay.
    """
    text = deobfuscate(text).translate(_UPPER_CONFUSABLES).translate(_LOWER_CONFUSABLES)
    text = _unspace(_strip_marks_after_ascii(text))
    return _HORIZONTAL_RUN.sub(" ", text)


def fold_for_matching(text: str) -> str:
    """Return the folded form every recogniser matches against (steps in the module doc).

    Lower case, ASCII for Latin look-alikes, no invisibles or combining overlays, letter spacing
    undone, whitespace collapsed to single spaces and single ``\\n``, stripped. Never raises on a
    ``str``; CJK text passes through unchanged apart from NFKC (fullwidth punctuation → ASCII).
    """
    folded = deobfuscate(text).translate(_UPPER_CONFUSABLES).casefold().translate(_LOWER_CONFUSABLES)
    folded = _strip_marks_after_ascii(unicodedata.normalize("NFKC", folded))
    folded = _unspace(folded)
    return _WHITESPACE_RUN.sub(_collapse, folded).strip()
