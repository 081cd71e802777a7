"""The readings :func:`memctl.validator.action.classify_action` checks, each folded for matching.

:func:`reading_views` yields ``(name, folded text)``, cheapest first, lazily (the classifier stops at
the first reading with a reason):

1. ``plain`` — TR39 look-alikes folded (:func:`memctl.validator.confusables.fold_confusables`), then
   :func:`memctl.validator.fold.fold_for_matching` (NFKC, invisibles, Cyrillic/Greek/small capitals,
   overlays, letter spacing);
2. ``hyphenation`` — soft or hard hyphens inside words removed (``dis-able`` → ``disable``);
3. ``camel_case`` — run-ons split (``AlwaysDisableTls`` → ``always disable tls``);
4. the decoded views of :func:`memctl.validator.encoded.decoded_views` (base64, hex, escapes, percent and
   URL encoding, HTML entities, base32, ascii85, leetspeak, rot13 when it reads as English, reversed
   when named);
5. ``base64_joined`` (base64 runs split by spaces joined), ``spaced_hex`` (``64 69 73``),
   ``decimal_codes`` (``100 105 115``), ``morse``, ``url_double`` (percent-decoding repeated),
   ``caesar_<n>`` (every shift whose reading holds two or more action words), ``reversed_text``
   (the whole text backwards when that reads as more action words than forwards);
6. the spelled readings of :func:`memctl.validator.spelled_views.spelled_views` (``reversed_words``,
   ``reversed_whole``, ``nato``, ``braille``, ``pig_latin``), each only when the text's shape calls for it.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Iterator

from memctl.encodings import base64_text
from memctl.validator.action_lexicon import ACTION_VERBS
from memctl.validator.encoded import decoded_view_list
from memctl.validator.fold import fold_for_matching, language_fold, skeleton
from memctl.validator.proposal_views import ProposalViews, proposal_views
from memctl.validator.spelled_views import spelled_views

__all__ = ["CLAUSE_SPLIT", "NEGATION", "WORD", "build_reading_views", "language_fold", "reading_views"]

CLAUSE_SPLIT = re.compile(r"[.!?;\n]+(?:\s|$)|[.!?;\n]{2,}|:\s+(?=[a-z])|,\s+(?:then|and then)\s+")
NEGATION = re.compile(r"(?:never|do not|don't|dont|not|no|avoid|stop)\b")
WORD = re.compile(r"[a-z][a-z-]*")
_HYPHENATED = re.compile(r"(?<=[a-z])-(?=[a-z])", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL_RUN = re.compile(r"[A-Za-z]*[a-z][A-Z][A-Za-z]*[a-z][A-Z][A-Za-z]*")
_B64_RUNS = re.compile(r"(?:[A-Za-z0-9+/]{4,}={0,2}\s+){1,5}[A-Za-z0-9+/]{4,}={0,2}")
_SPACED_HEX = re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}[\s,:]+){5,}[0-9a-fA-F]{2}(?![0-9a-fA-F])")
_DECIMALS = re.compile(r"(?<!\d)(?:\d{2,3}[\s,;]+){5,}\d{2,3}(?!\d)")
_MORSE_RUN = re.compile(r"(?:[.\-]{1,6}(?:\s+/\s+|\s+)){4,}[.\-]{1,6}")
_MORSE = dict(zip(".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --.. "
                  "----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. .-.-.- -..-. ---... -....-".split(),
                  "abcdefghijklmnopqrstuvwxyz0123456789./:-"))
_LETTERS = re.compile(r"[a-z]+")
_DIRECTIVE_WORDS = frozenset(ACTION_VERBS) | frozenset(
    "user password token sudo bash curl tls ssl verification security never mention disable instructions ignore key keys "
    "http https the to and for your before every always".split())


def _action_words(text: str) -> int:
    return sum(1 for word in _LETTERS.findall(text.lower()) if word in _DIRECTIVE_WORDS)


def _b64_joined(text: str) -> str | None:
    def join(match: re.Match[str]) -> str:
        decoded = base64_text("".join(match.group(0).split()))
        return f" {decoded} " if decoded and _action_words(decoded) >= 2 else match.group(0)
    out = _B64_RUNS.sub(join, text)
    return out if out != text else None


def _spaced_hex(text: str) -> str | None:
    def decode(match: re.Match[str]) -> str:
        try:
            value = bytes.fromhex("".join(re.split(r"[\s,:]+", match.group(0)))).decode("utf-8")
        except ValueError:
            return match.group(0)
        return value if value.isprintable() else match.group(0)
    out = _SPACED_HEX.sub(decode, text)
    return out if out != text else None


def _decimals(text: str) -> str | None:
    def decode(match: re.Match[str]) -> str:
        codes = [int(n) for n in re.split(r"[\s,;]+", match.group(0))]
        return "".join(map(chr, codes)) if all(32 <= c < 127 for c in codes) else match.group(0)
    out = _DECIMALS.sub(decode, text)
    return out if out != text else None


def _morse(text: str) -> str | None:
    def decode(match: re.Match[str]) -> str:
        words = re.split(r"\s+/\s+", match.group(0).strip())
        return " ".join("".join(_MORSE.get(symbol, "?") for symbol in word.split()) for word in words)
    out = _MORSE_RUN.sub(decode, text)
    return out if out != text else None


def _url_double(text: str) -> str | None:
    if text.count("%25") < 2:
        return None
    out = text
    for _ in range(3):
        out = urllib.parse.unquote(out)
    return out if out != text else None


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_CAESAR_TABLES = tuple((shift, str.maketrans(_LOWER + _LOWER.upper(), _LOWER[shift:] + _LOWER[:shift]
                                             + (_LOWER[shift:] + _LOWER[:shift]).upper())) for shift in range(1, 26))
_SHIFT_NAMED = re.compile(r"(?i)\b(?:rot[\s-]?\d+|caesar|shift(?:ed)?|cipher|rotated)\b")
# Function words of the Latin-script languages: a text with any of them is prose, not a shifted cipher
_FUNCTION_WORDS = frozenset(
    "the a an and or to of in on is are was be for with it this that we our you der die das und ist nicht mit "
    "le la les et est un une des du pour el los las y es con que il lo di che per de het een en van op zijn "
    "o os as um uma do da em não nao".split())


def _caesar(text: str) -> Iterator[tuple[str, str]]:
    words = _LETTERS.findall(text.lower())
    if len(words) < 3 or (not _SHIFT_NAMED.search(text) and any(word in _FUNCTION_WORDS for word in words)):
        return  # ordinary prose (or too short to be a cipher): no shift is read
    plain_score = _action_words(text)
    for shift, table in _CAESAR_TABLES:
        shifted = text.translate(table)
        if _action_words(shifted) >= max(3, plain_score + 2):
            yield f"caesar_{shift}", shifted


def reading_views(text: str) -> Iterator[tuple[str, str]]:
    """Yield ``(view name, folded text)`` for ``text``, the plain reading first (see the module doc). The
    readings are those of the shared :func:`memctl.validator.proposal_views.proposal_views` of ``text``: a
    second reader of the same text replays them instead of decoding again."""
    return proposal_views(text).reading_views(build_reading_views)


def build_reading_views(views: ProposalViews) -> Iterator[tuple[str, str]]:
    """The generator behind :func:`reading_views`, from one proposal's shared readings (module doc order)."""
    latin = views.latin
    folded = views.folded if latin == views.text else fold_for_matching(latin)
    yield "plain", folded
    plain_words = _action_words(folded)
    if _HYPHENATED.search(latin):  # only when joining the parts makes words the rules read
        joined = fold_for_matching(_HYPHENATED.sub("", latin))
        if _action_words(joined) > plain_words:
            yield "hyphenation", joined
    if _CAMEL_RUN.search(latin):
        split = fold_for_matching(_CAMEL.sub(" ", latin))
        if _action_words(split) > plain_words:
            yield "camel_case", split
    cased = views.skeleton if latin == views.text else skeleton(latin)
    for name, view, _payloads in decoded_view_list(cased):
        yield name, fold_for_matching(view)
    for name, decoder in (("base64_joined", _b64_joined), ("spaced_hex", _spaced_hex), ("decimal_codes", _decimals),
                          ("morse", _morse), ("url_double", _url_double)):
        decoded = decoder(cased)
        if decoded is not None:
            yield name, fold_for_matching(decoded)
    yield from ((name, fold_for_matching(view)) for name, view in _caesar(cased))
    backwards = cased[::-1]
    if _action_words(backwards) >= _action_words(cased) + 2:
        yield "reversed_text", fold_for_matching(backwards)
    yield from ((name, fold_for_matching(view)) for name, view in spelled_views(latin))  # reversed words, NATO, Braille, pig latin
