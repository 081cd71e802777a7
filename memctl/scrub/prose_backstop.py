"""Backstop for bare secrets in chat prose of any language: a value shaped like a secret close to a credential word.

Chat in any language names a credential with its language's word for key, token, secret, password,
passphrase, PIN or code and gives the value with no vendor prefix and no key name a format rule could
read ("הטוקן של Datadog: 3f9a…", "Kunci API-nya adalah 9c2e…", "Nyckeln: Sommer2024!", "รหัสคือ JBSW…").
This rule reads a window around every credential word of :data:`memctl.scrub.prose_cues.CUES` (about 40
languages; one Hyperscan scan finds which are present, :mod:`memctl.scrub.gates`) and reports a value
there by its SHAPE:

* a random-looking run of 16+ characters (:func:`secret_shaped`): base64/base64url with mixed classes
  and entropy over a bound, base32 with digits (TOTP seeds), hex of 32-128 digits or ``0x`` + 64 hex
  (Datadog, Twilio, secret_key_base, Ethereum keys), a UUID (Postmark server tokens);
* a password shape: 8-80 characters with letters, digits and a symbol (Django's 66) (``Sommer2024!``,
  ``tr0ub4dor&3``), only within a few words of the cue.

Positions: after the cue on its line (within :data:`REACH` characters: "Schlüssel: X", "(key: X)",
"la clé est « X »"), before it ("X is the token", "X היא הסיסמה", within :data:`BACK_REACH`), and on
the next line when the cue's line ends in a colon or a question ("the key?" / "here: X").

Bounded by the near-miss corpora: hex and UUIDs are taken only after a strong cue (not after words
that also mean "code" or "key" in the general sense, :data:`memctl.scrub.prose_cues.WEAK_CUES`), and
no value is taken when a near-miss word (commit, sha256, checksum, hash, digest, id, request, trace,
version, public, fingerprint, ``ssh-ed25519`` … in these languages,
:data:`memctl.scrub.prose_cues.NEAR_MISS_WORDS`) stands between the cue and the value or just before
the cue. Versions, dates, paths, URLs, e-mail addresses, file and host names, identifiers made of
words, base64 of readable text and placeholders are never secret-shaped. Kind ``secret``; only the
value is replaced.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.detector import Detector, Span, detector, is_placeholder, sealed_ciphertext
from memctl.scrub.entropy import random_run
from memctl.scrub.gates import positions, run_heads
from memctl.scrub.prose_cues import NEAR_MISS_WORDS, WEAK_CUES, all_cues
from memctl.scrub.world_prose import password_shaped

__all__ = ["BACK_REACH", "PROSE_BACKSTOP_DETECTORS", "REACH", "secret_shaped"]

REACH = 64
"""Characters after the end of a cue word in which a value may start (same line)."""
BACK_REACH = 48
"""Characters before a cue in which a value may end (same line): "X is the token"."""
_PASSWORD_REACH = 28  # a password shape must start this close after the cue's end (a copula, a colon)
_CUES = all_cues()
_CUE_SET = frozenset(_CUES)


def _LONGEST_FIRST(word: str) -> tuple[int, str]:
    return -len(word), word


# A value candidate: a run of characters that are not spaces, quotes, brackets or list punctuation.
_TOKEN = re.compile(r"[^\s\"'`«»“”„‘’()\[\]{}<>,;|\\\x00：＝，。、]{8,200}")
_LONG_TOKEN = re.compile(r"[^\s\"'`«»“”„‘’()\[\]{}<>,;|\\\x00：＝，。、]{20,200}")  # after an English cue: runs of 20+ only
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_ETH = re.compile(r"0x[0-9a-fA-F]{64}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_BASE32 = re.compile(r"[A-Z2-7]{16,}={0,6}")
_RUN = re.compile(r"[A-Za-z0-9+/_=~.-]+")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+._~]?[0-9A-Za-z]+)*")
_COPULA_GAP = re.compile(r"[\"'»”]?[ \t]+(?:[^\W\d_]+[ \t]+){0,4}[^\W\d_]{0,3}")
_BRACKETS = frozenset("()[]{}<>")
_BLANK = re.compile(r"[\s\x00]")
_PATH = re.compile(r"[\w.-]*/[\w./-]*\.[a-z]{1,5}")  # tests/test_x.py, src/app/main.go
_QUERY_PAIR = re.compile(r"[&?;][A-Za-z_][\w.-]*=")
_EMAIL = re.compile(r"[^@\s]+@[\w-]+(?:\.[\w-]+)+")
_HASH_PREFIX = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)?|md5|blake2b?|crc32)[:=-]")
_NO_SPACE_SCRIPTS = ((0x0E00, 0x0EFF), (0x3040, 0x30FF), (0x3400, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
_PREFIX_LETTERS = frozenset("הובלשכמ" "والبفك")  # Hebrew and Arabic one-letter prefixes (the, and, in, to …)
_ENGLISH_WORDS = frozenset({
    "password", "passwords", "passphrase", "passphrases", "passcode", "passcodes", "secret", "secrets", "token",
    "tokens", "key", "keys", "apikey", "apikeys", "credential", "credentials", "creds",
})
_ENGLISH_CUES = frozenset({"password", "passphrase", "passcode", "secret", "token", "api key", "apikey", "key", "credential", "creds"})
_ASCII_NEAR = [w.strip() for w in NEAR_MISS_WORDS if w.strip().isascii() and w.strip() not in {"id", "id:", "sha", "rev", "build"}]
_NEAR_MISS = re.compile(
    "|".join(
        [r"(?<![a-z0-9])(?:ids?|sha(?:1|224|256|384|512)?|rev|build)(?![a-z])"]
        + [r"(?<![a-z0-9])" + re.escape(w) for w in sorted(set(_ASCII_NEAR), key=len, reverse=True)]
        + [re.escape(w.strip()) for w in NEAR_MISS_WORDS if not w.strip().isascii()]
    )
)


def secret_shaped(value: str, *, strong_cue: bool, password: bool = False) -> bool:
    """True when ``value`` (one token, punctuation already trimmed) has the shape of a secret: see the module
    docstring. ``strong_cue`` allows hex and UUIDs (not after a weak cue), ``password`` also the password shape
    (letters, digits and a symbol, 8-80 characters: only close to a strong cue). Placeholders never are."""
    return _shaped(value, strong_cue, password) and not is_placeholder(value)


def _bits_per_char(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _random_short(core: str) -> bool:
    """A 16-19 character run: upper, lower and 3+ digits, or base32 with 2+ digits, and entropy near the
    maximum for its length (random 16 characters score ~3.7 bits)."""
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    if not (upper and lower and digits >= 3) and not (_BASE32.fullmatch(core) and digits >= 2):
        return False
    return _bits_per_char(core) >= 3.3


def _shaped(value: str, strong_cue: bool, password: bool) -> bool:
    n = len(value)
    if n < 8 or "://" in value or value.startswith(("/", "./", "~/", "../", "REDACTED:", "http", "www.")):
        return False
    if _PATH.fullmatch(value) or _EMAIL.fullmatch(value) or _HASH_PREFIX.match(value) or _QUERY_PAIR.search(value):
        return False  # an address, a digest, a query string's name=value pairs (the URL rules read those)
    if _RUN.fullmatch(value) is not None and n >= 16:
        core = value.rstrip("=")
        if _HEX.fullmatch(value):
            if _ETH.fullmatch(value):
                return strong_cue
            digits = sum(c.isdigit() for c in core)
            return strong_cue and 32 <= n <= 128 and digits >= 4 and n - digits >= 4 and _bits_per_char(core) >= 3.0
        if _UUID.fullmatch(value):
            return strong_cue
        if _BASE32.fullmatch(value) and sum(c.isdigit() for c in core) >= 2 and _bits_per_char(core) >= 3.0:
            return True
        if n >= 20:
            if random_run(value):
                return True
        elif _random_short(core):
            return True
    if not password or n > 80 or _VERSION.fullmatch(value) is not None:
        return False
    if _RUN.fullmatch(value) is not None and (
        value.islower() or value.isupper() or printable_text(base64_bytes(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4)))
    ):
        return False  # only base64/identifier characters in one case (a-b-c names, release-2024-11), or base64 of text
    return (password_shaped(value) and any(c.isdigit() for c in value) and any(not c.isalnum() for c in value)
            and any(c.isalpha() for c in value) and "/" not in value and not value.replace(".", "").replace("-", "").isdigit())


def _script_without_spaces(char: str) -> bool:
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _NO_SPACE_SCRIPTS)


def _cue_end(lowered: str, pos: int, word: str) -> int | None:
    """Where the cue word at ``pos`` ends (its inflection included), or None when the hit is part of
    another word (``monkey``, ``keyboard``, ``sandiego``)."""
    end = pos + len(word)
    first = word[0]
    if _script_without_spaces(first):
        return end
    before = lowered[pos - 1 : pos]
    if before.isalpha() and not _script_without_spaces(before):
        if first in "אבגדהוזחטיכלמנסעפצקרשת" or "\u0600" <= first <= "\u06ff":
            if before not in _PREFIX_LETTERS:
                return None
        elif len(word) < 6 or word in _ENGLISH_CUES:
            return None  # "monkey", "hotkey", "tokenizer" are no credential words
    stop = end
    while stop < len(lowered) and stop - end < 8 and (lowered[stop].isalpha() or lowered[stop] == "-" and stop > end):
        stop += 1
    if word in _ENGLISH_CUES and lowered[pos:stop].replace(" ", "").rstrip("-") not in _ENGLISH_WORDS:
        return None
    if stop - end > 6 and len(word) < 5:
        return None  # a long word that starts with a short cue: kunciran, clave-ish names
    return stop


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Leading separators (``:``, ``=``) and trailing sentence punctuation off a token."""
    while start < end and text[start] in ":=：＝-—–":
        start += 1
    while end > start and text[end - 1] in ".,:;?)»”。、！？：":
        end -= 1
    return start, end


def _near_miss(lowered: str, start: int, end: int) -> bool:
    return start < end and _NEAR_MISS.search(lowered, start, end) is not None


def _kept(lowered: str, left: int, start: int, stop: int, value: str) -> bool:
    """True when a near-miss word stands between ``left`` and the value at ``start:stop``; for a UUID from 64
    characters further back on its line ("ID permintaan untuk token itu: <uuid>"); for a value that is more than
    one run (``ID:<uuid>``) inside it too."""
    if _UUID.fullmatch(value):
        back = max(0, left - 64)
        line = max(lowered.rfind("\n", back, left), lowered.rfind("\x00", back, left))
        left = line + 1 if line != -1 else back
    return _near_miss(lowered, left, start) or (_RUN.fullmatch(value) is None and _near_miss(lowered, start, stop))


def _line_end(text: str, pos: int, limit: int) -> int:
    """The end of the line (or of the field: :func:`memctl.scrub.core.scrub_texts` joins fields with NUL) at
    ``pos``, at most ``limit``."""
    for stop in ("\n", "\x00"):
        cut = text.find(stop, pos, limit)
        if cut != -1:
            limit = cut
    return limit


def _values_after(text: str, lowered: str, pos: int, end: int, strong: bool, tokens: re.Pattern[str]) -> Iterator[Span]:
    line_end = _line_end(text, end, min(len(text), end + REACH + 200))
    for token in tokens.finditer(text, end, line_end):
        if token.start() - end > REACH:
            return
        start, stop = token.span()
        if text[stop : stop + 1] in _BRACKETS:  # a password holding brackets: "…%z1v(dg*_4q6c…" up to the next space
            stop = _BLANK.search(text, stop, line_end).start() if _BLANK.search(text, stop, line_end) else line_end
        start, stop = _trim(text, start, stop)
        value = text[start:stop]
        if not value or text[start - 1 : start] == "@":
            continue
        if secret_shaped(value, strong_cue=strong, password=strong and start - end <= _PASSWORD_REACH) and not sealed_ciphertext(
                text, start, value):
            if not _kept(lowered, max(0, pos - 16), start, stop, value):
                yield start, stop, "secret"
            return


def _values_before(
    text: str, lowered: str, pos: int, end: int, strong: bool, tokens: re.Pattern[str], first: int = 0
) -> Iterator[Span]:
    low = max(0, pos - BACK_REACH - 200)
    newline = max(text.rfind("\n", low, pos), text.rfind("\x00", low, pos))
    line_start = newline + 1 if newline != -1 else low
    for token in tokens.finditer(text, max(line_start, first), pos):
        start, stop = _trim(text, *token.span())
        value = text[start:stop]
        if stop >= pos or not value or pos - stop > BACK_REACH or (start == low and low > 0):
            continue
        if _COPULA_GAP.fullmatch(text, stop, pos) is None:
            continue  # "X is the token", "X היא הסיסמה": only words between, not "X,key-xxxx" or "X:\" \"key"
        if secret_shaped(value, strong_cue=strong, password=strong and pos - stop <= _PASSWORD_REACH) and not _near_miss(
                lowered, stop, end):
            if not _kept(lowered, max(line_start, start - 24), start, stop, value):
                yield start, stop, "secret"


def _values_next_line(text: str, lowered: str, pos: int, end: int, strong: bool, tokens: re.Pattern[str]) -> Iterator[Span]:
    line_end = text.find("\n", end, end + 48)
    if line_end == -1 or text.find("\x00", end, line_end) != -1:
        return  # no next line close, or the field ends first
    rest = text[end:line_end].rstrip()
    if rest and rest[-1] not in ":?：？" or _near_miss(lowered, max(0, pos - 16), line_end):
        return
    next_end = _line_end(text, line_end + 1, min(len(text), line_end + 1 + REACH + 200))
    for n, token in enumerate(tokens.finditer(text, line_end + 1, next_end)):
        start, stop = _trim(text, *token.span())
        value = text[start:stop]
        if n >= 3:
            return
        if value and secret_shaped(value, strong_cue=strong, password=strong and n == 0):
            if not _kept(lowered, line_end, start, stop, value):
                yield start, stop, "secret"
            return


def _hits_near_heads(hits: tuple[int, ...], heads: tuple[int, ...]) -> list[int]:
    """The hits with a run of 20+ starting between :data:`BACK_REACH` + 130 characters before them and 200
    after (the values before, after and on the next line all start there), in order; walked from the
    fewer of the two lists."""
    if len(heads) < len(hits):
        near: set[int] = set()
        for head in heads:
            near.update(hits[bisect_left(hits, head - 200) : bisect_left(hits, head + BACK_REACH + 131)])
        return sorted(near)
    found = []
    for pos in hits:
        i = bisect_left(heads, pos - BACK_REACH - 130)
        if i < len(heads) and heads[i] <= pos + 200:
            found.append(pos)
    return found


def _prose_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    seen: set[int] = set()
    heads: tuple[int, ...] | None | bool = False  # not asked yet
    for word in sorted(gates.intersection(_CUE_SET), key=_LONGEST_FIRST):
        strong = word not in WEAK_CUES
        hits = positions(lowered, word)
        if word in _ENGLISH_CUES:
            # Common words of any session ("tokens" ~140 times): walk only the hits with a run of 20+
            # (:func:`~memctl.scrub.gates.run_heads`, one Hyperscan scan shared with the entropy rule) in reach.
            if heads is False:
                heads = run_heads(lowered)
            if heads is not None:
                if not heads:
                    continue
                hits = _hits_near_heads(hits, heads)  # type: ignore[arg-type]
        known = heads if word in _ENGLISH_CUES and isinstance(heads, tuple) else None
        tokens = _TOKEN if known is None else _LONG_TOKEN
        for pos in hits:
            if pos in seen:
                continue
            end = _cue_end(lowered, pos, word)
            if end is None:
                continue
            seen.update(range(pos, end))
            after = before = below = True
            first = 0
            if known is not None:  # which windows hold a run of 20+ at all
                i = bisect_left(known, end)
                after = i < len(known) and known[i] <= end + REACH
                below = i < len(known) and known[i] <= end + REACH + 260
                j = bisect_left(known, pos - BACK_REACH - 100)
                before = j < len(known) and known[j] < pos - 19
                first = known[j] if before else 0
            found = list(_values_after(text, lowered, pos, end, strong, tokens)) if after else []
            if not found and before:
                found = list(_values_before(text, lowered, pos, end, strong, tokens, first))
            if not found and below:
                found = list(_values_next_line(text, lowered, pos, end, strong, tokens))
            yield from found


PROSE_BACKSTOP_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_prose_spans,
        literals=_CUES,
        requires=_CUES,
        origin="memctl: secret-shaped values next to a credential word of any language (memctl.scrub.prose_backstop)",
    ),
)
"""One finder for the shapes and positions in the module docstring; registered before the entropy backstop."""
