"""Entropy backstop: a long random-looking run close after a credential word, in any language.

The rules before this one know formats and layouts; a credential of an unknown format in an
unknown layout ("the staging key, just in case: Zq8vN2kLm4PxR7tYw3Hs") has neither. What it
has is a word that names a credential (:data:`CREDENTIAL_WORDS`: English, German, Spanish,
Portuguese, French, Italian, Dutch, Polish, Russian, Japanese, Chinese, Korean …) and, within
48 characters after it on the same line, a run of 20+ characters from the base64/base64url/hex
alphabets whose Shannon entropy is at least :data:`MIN_BITS_PER_CHAR` bits per character and
that mixes letters and digits (or cases).

Near-misses that stay (the false-redaction bound): hex runs (git SHAs, SHA-1/256 digests, MD5;
any length: hex keys are the format rules' job), UUIDs, versions and dates, paths and URLs,
identifiers made of words (``snake_case``, ``CamelCase``, ``kebab-case``), base64 that decodes
to ordinary text, and markers. Kind ``secret``; only the run is replaced.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.context_names import FOREIGN_PASSWORD_WORDS
from memctl.scrub.detector import Detector, Span, detector, is_placeholder, sealed_ciphertext
from memctl.scrub.gates import positions, run_heads

__all__ = ["CREDENTIAL_WORDS", "ENTROPY_DETECTORS", "MIN_BITS_PER_CHAR", "random_run", "word_made"]

CREDENTIAL_WORDS = (
    "password", "passwd", "passphrase", "secret", "token", "apikey", "api key", "api_key", "key", "credential", "bearer", "auth", "schlüssel", "geheim", "clave", "llave", "chave", "clé", "cle:",
    "chiave", "sleutel", "klucz", "ключ", "токен", "секрет", "キー", "トークン", "シークレット", "密钥", "秘钥",
    "令牌", "密鑰", "키", "토큰", "anahtar", "nyckel", "nøgle", "avain", "klíč",
    *(w for w in FOREIGN_PASSWORD_WORDS if w not in {"clave", "secreto", "segreto", "geheimnis"}),
    "secreto", "segreto", "geheimnis",
)
"""Words after which a random-looking run is taken for a credential (lower case)."""

MIN_BITS_PER_CHAR = 3.6
"""Shannon entropy threshold (bits per character). Random base64 of 20 characters scores ~4.1,
random alphanumerics ~4.0; identifiers made of words score 3.0-3.5."""

_REACH = 48
_RUN_HEAD = re.compile(r"(?<![A-Za-z0-9+/_.~-])[A-Za-z0-9][A-Za-z0-9+/_=.~-]{19}")  # a whole run, from its start
_RUN_TAIL = re.compile(r"[A-Za-z0-9+/_=.~-]*")
# How far after a hit a head can start and still be found: the word grows by up to 32 letters
# (:func:`_ascii_word`), then the reach.
_HEAD_REACH = 32 + _REACH
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_VERSION_OR_DATE = re.compile(r"v?\d+(?:[._-]\d+)++(?:[-+.~_]?[0-9A-Za-z]++)*+")  # semver, dates
_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SEPARATORS = frozenset("_.-/~")


def word_made(value: str) -> bool:
    """``snake_case_names``, ``CamelCaseNames``, ``kebab-words-2024``, ``paths/of/words``: pieces
    between separators and case humps average 4+ letters and numbers have at most 4 digits."""
    pieces = _PIECES.findall(value)
    if sum(map(len, pieces)) != sum(c not in _SEPARATORS for c in value):
        return False  # "+", "=": base64
    letters = [p for p in pieces if not p.isdigit()]
    if not letters or any(len(p) > 4 for p in pieces if p.isdigit()):
        return False
    return sum(map(len, letters)) / len(letters) >= 4


def _bits_per_char(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def random_run(value: str) -> bool:
    """True when ``value`` looks like a random credential and none of the near-misses in the
    module docstring: long enough, high entropy, mixed classes, not hex, UUID, version,
    word-made identifier or base64 of text."""
    if value.startswith(("/", "~/", "./", "../")) or "//" in value:
        return False  # a path or a URL
    core = value.strip("=.-_~")
    if "=" in core:
        return False  # name=value, not one token (base64 pads only at the end)
    if len(core) < 20 or _HEX.fullmatch(core) or _UUID.search(core) or _VERSION_OR_DATE.fullmatch(core):
        return False
    if word_made(core):
        return False  # snake_case_names, CamelCaseNames, some-kebab-words, paths/of/words
    has_digit = any(c.isdigit() for c in core)
    has_upper = any(c.isupper() for c in core)
    has_lower = any(c.islower() for c in core)
    if not ((has_digit and (has_upper or has_lower)) or (has_upper and has_lower)):
        return False
    if _bits_per_char(core) < MIN_BITS_PER_CHAR:
        return False
    decoded = printable_text(base64_bytes(core), ratio=1.0) if len(core) % 4 == 0 or value.endswith("=") else None
    return not (decoded is not None and " " in decoded and decoded.isascii())  # base64 of ordinary text


# Gate literals: a few English umbrellas and every non-ASCII word (free on an ASCII text: CPython
# answers "non-ASCII in ASCII" without a scan). ASCII words of other languages that hold no
# umbrella (kennwort, senha, clave) are not gated here: the name rules see them in assignments.
_UMBRELLAS = ("pass", "secret", "token", "key", "auth", "cred")
_LITERALS = tuple(sorted({*_UMBRELLAS, *(w for w in CREDENTIAL_WORDS if not w.isascii())}))
# The whole ASCII words (letters around an umbrella hit) that name a credential.
_ASCII_WORDS = frozenset(
    w.replace("_", "").replace(" ", "") for w in CREDENTIAL_WORDS if w.isascii() and w.replace("_", "").replace(" ", "").isalpha()
) | {"pass", "creds", "cred", "passwords", "secrets", "tokens", "keys", "apikeys", "credentials", "accesskey", "secretkey", "authtoken",
     "accesstoken", "apitoken", "privatekey", "clientsecret", "presharedkey"}


def _ascii_word(lowered: str, pos: int, end: int) -> tuple[str, int]:
    """The letters-only word around ``lowered[pos:end]`` and where it ends."""
    start = pos
    while start > 0 and pos - start < 24 and lowered[start - 1].isalpha() and lowered[start - 1].isascii():
        start -= 1
    while end < len(lowered) and end - pos < 32 and lowered[end].isalpha() and lowered[end].isascii():
        end += 1
    return lowered[start:end], end




_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,24}(?::\d{1,5})?(?:/[\w./-]*)?")


def _near_head(pos: int, heads: tuple[int, ...]) -> bool:
    """True when a head starts within :data:`_HEAD_REACH` after ``pos``."""
    i = bisect_left(heads, pos)
    return i < len(heads) and heads[i] <= pos + _HEAD_REACH


def _entropy_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    taken: set[int] = set()
    heads = run_heads(lowered)
    if heads is not None and not heads:
        return  # no run of 20 anywhere: nothing to find
    for word in _LITERALS:
        if word not in gates:
            continue
        ascii_word = word.isascii()
        hits = positions(lowered, word)
        if heads is not None:
            hits = [pos for pos in hits if _near_head(pos, heads)]
        for pos in hits:
            after = pos + len(word)
            if ascii_word:
                before_char, after_char = lowered[pos - 1 : pos], lowered[after : after + 1]
                if (before_char.isalpha() and before_char.isascii()) or (after_char.isalpha() and after_char.isascii()):
                    whole, after = _ascii_word(lowered, pos, after)
                else:
                    whole = word  # the common case, a word on its own: no letters to walk

                if whole not in _ASCII_WORDS:
                    continue  # monkey, keyboard, tokenizer, bypass: not a credential word
            line_end = text.find("\n", after, after + _REACH)
            end = min(len(text), after + _REACH) if line_end == -1 else line_end
            # A run of 20 that starts before the line (or reach) ends, then extended to its end.
            limit = min(len(text), end + 20)
            head = _RUN_HEAD.search(text, after, limit)
            if head is not None and head.start() not in taken and "[REDACTED:" not in text[
                max(0, head.start() - 10) : head.start()
            ]:
                run_end = _RUN_TAIL.match(text, head.end()).end()  # type: ignore[union-attr]
                run = text[head.start() : run_end]
                if text[head.start() - 1 : head.start()] == "@" and _HOST.fullmatch(run):
                    continue  # the host after a URL's (redacted) userinfo: https://[REDACTED:…]@o450123.ingest.sentry.io/55
                if len(run) <= 256 and random_run(run) and not sealed_ciphertext(text, head.start(), run) and not is_placeholder(run):
                    taken.add(head.start())
                    yield head.start(), run_end - (len(run) - len(run.rstrip(".-_~"))), "secret"


ENTROPY_DETECTORS: tuple[Detector, ...] = (
    detector("secret", finder=_entropy_spans, literals=_LITERALS, requires=_LITERALS,
             origin="memctl: entropy backstop next to a credential word"),
)
"""The backstop; it runs last, so every typed rule wins an overlap."""
