"""Encoded payloads: the decoded views of a proposal, and whether a decoded payload is a shell command.

A recogniser that only reads the surface misses ``Run: cm0gLXJmIH4=`` (base64 of ``rm -rf ~``),
``\\x72\\x6d…`` escapes, ``%63%61%74…`` URL encoding, ``&#60;system&#62;`` entities, or a rule
written in rot13 or backwards. :func:`decoded_views` yields the proposal text with each payload
decoded *in place* (so its surrounding words still count), for the validator to run every
recogniser on; :func:`looks_like_command` says whether a decoded payload is itself a shell or
script command (reason ``memory_poisoning:encoded_command``).

Encodings tried (each only where it decodes to printable UTF-8 text, so hashes, SHAs, UUIDs and
binary blobs such as inline PNGs stay what they are): base64 and base64url runs of 8 or more
characters (a payload that is itself base64 decoded again, up to three layers), base32 runs of 16 or
more, ascii85 runs of 16 or more, words with two or more ``%NN`` escapes (``+`` read as a space), hex runs of 12 or more digits (optionally ``0x``), ``\\xNN`` (two or more) and
``\\NNN`` (octal, three or more) escape runs, every ``\\uNNNN`` (JSON's ``\\u003c`` for ``<``), ``\\uNNNN`` runs, ``%NN`` runs, HTML character references, leetspeak (``s3nd`` →
``send``, only in words that mix digits and letters), rot13 (of the whole text, and of every
decoded payload: only when the text names rot13, or the rotated text reads as English, see
:func:`_rotated_reads_as_english`), and — only when the text names it — reversed text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import urllib.parse
from functools import lru_cache
from typing import Callable, Iterator

from memctl.encodings import (
    base64_text,
    hex_bytes,
    octal_escape_bytes,
    percent_bytes,
    printable_text,
    unicode_escape_text,
    x_escape_bytes,
)

__all__ = ["decoded_view_list", "decoded_views", "looks_like_command"]

_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{8,}={0,2}")
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9])")
# ascii85: a run of 16+ characters from "!" to "u" without spaces that holds punctuation
_ASCII85 = re.compile(r"(?<!\S)(?=\S*[!-/:-@\[-`])[!-u]{16,}(?!\S)")
# URL encoding: a word with two or more %NN escapes ("Always%20force-push%20to%20main", "a+b%2Fc")
_URL_ENCODED = re.compile(r"\S*(?:%[0-9A-Fa-f]{2}\S*){2,}")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:0x)?((?:[0-9A-Fa-f]{2}){6,})(?![0-9A-Za-z])")
_X_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){2,}")
_OCTAL_ESCAPES = re.compile(r"(?:\\[0-7]{3}){3,}")
_U_ESCAPES = re.compile(r"(?:\\u[0-9A-Fa-f]{4})+")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}){3,}")
_ENTITY = re.compile(r"&#(?:x[0-9A-Fa-f]+|[0-9]+);|&(?:lt|gt|quot|amp|apos);")
_ROT13_NAMED = re.compile(r"(?i)\brot[\s-]?13\b|\bcaesar\b")
_REVERSE_NAMED = re.compile(r"(?i)\b(?:backwards?|reversed?|in reverse|ruckwarts|rückwärts|a l'envers|al reves|al revés)\b"
                            r"|倒序|反过来|倒着")

# Digits and symbols written for letters ("s3nd", "p4st3bin"), only inside words that mix them with letters
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*[A-Za-z][\w@$]*[A-Za-z])(?=[\w@$]*[013457@$])[A-Za-z013457@$]{3,}(?![\w@$])")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_COMMAND = re.compile(
    r"(?i)^\s*(?:sudo\s+)?(?:curl|wget|nc|ncat|bash|sh|zsh|python\d?|perl|ruby|node|php|powershell|pwsh|rm|chmod|chown"
    r"|dd|mkfs|eval|exec|cat|scp|rsync|ssh|crontab|git|npm|pip|echo|printf|kill|killall|shutdown|reboot|iex|fetch"
    r"|import|require|os\.system)(?![A-Za-z0-9_])"
    r"|\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|&&\s*(?:rm|curl|wget|nc|chmod)\b|/bin/(?:ba)?sh|/dev/tcp/|\$\(|os\.system"
    r"|subprocess|shell_exec|document\.cookie|(?<![A-Za-z0-9_])rm\s+-[a-z]*[rf]")


# Common English words and the words instructions to an assistant are made of. None is the rot13 of
# another English word (the pairs be/or, an/na, one/bar, gel/try, irk/vex, fur/she are left out), so
# benign prose, rotated, holds almost none of them; an English rule written in rot13 holds several.
_ENGLISH_WORDS = frozenset(
    """the to and of in is it you your that this for with from into are was were will would have has all any
    every each some never always must should shall do does don not only just then when where what which who
    ignore disregard previous prior above instructions instruction rule rules policy prompt system assistant ai
    model user admin administrator approved approve consent permission send upload post mail email copy move
    paste share forward push force delete remove drop wipe erase main master branch branches remote origin
    repo repository commit skip disable turn bypass validation scrubbing scrub memory memories memctl token
    tokens key keys password passwords secret secrets credential credentials ssh env aws config file files
    home root run execute exec curl wget bash shell script command commands install download sudo chmod
    tests test ci deploy production reveal print show repeat output leak exfiltrate""".split()
)
_WORD = re.compile(r"[a-z]+")


def _rotated_reads_as_english(rotated: str) -> bool:
    """True when ``rotated`` (a rot13 reading) holds two or more distinct words of :data:`_ENGLISH_WORDS`:
    only then is it worth running every recogniser on it (rot13 of ordinary prose is gibberish)."""
    hits: set[str] = set()
    for word in _WORD.findall(rotated.lower()):
        if word in _ENGLISH_WORDS:
            hits.add(word)
            if len(hits) >= 2:
                return True
    return False


def _b64(blob: str, depth: int = 0) -> str | None:
    """Decode a base64 run; a result that is itself one base64 run is decoded again (up to three layers)."""
    body = blob.rstrip("=")
    if len(body) < 8 or (body.isalpha() and (body.islower() or body.isupper() or len(body) < 12)):
        return None  # an ordinary word or identifier, not a payload
    text = base64_text(body)
    if text and depth < 2 and _BASE64.fullmatch(text.strip()):
        return _b64(text.strip(), depth + 1) or text
    return text


def _b32(blob: str) -> str | None:
    try:
        return printable_text(base64.b32decode(blob + "=" * (-len(blob.rstrip("=")) % 8) if "=" not in blob else blob))
    except (binascii.Error, ValueError):
        return None


def _a85(blob: str) -> str | None:
    try:
        return printable_text(base64.a85decode(blob))
    except ValueError:
        return None


def _substitute(text: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str | None]) -> str | None:
    changed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal changed
        decoded = decode(match)
        if decoded is None:
            return match.group(0)
        changed = True
        return decoded

    result = pattern.sub(replace, text)
    return result if changed else None


def decoded_views(text: str) -> Iterator[tuple[str, str, list[str]]]:
    """Yield ``(encoding, whole text with the payloads decoded, [decoded payloads])`` for each encoding present.

    ``text`` is the de-obfuscated proposal (NFKC, invisibles removed, case kept). Nothing is
    yielded for an encoding that is absent or does not decode to text.
    """
    decoders: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None]], ...] = (
        ("base64", _BASE64, lambda m: _b64(m.group(0))),
        ("hex", _HEX, lambda m: printable_text(hex_bytes(m.group(1)))),
        ("x_escapes", _X_ESCAPES, lambda m: printable_text(x_escape_bytes(m.group(0)))),
        ("octal_escapes", _OCTAL_ESCAPES, lambda m: printable_text(octal_escape_bytes(m.group(0)))),
        ("unicode_escapes", _U_ESCAPES, lambda m: unicode_escape_text(m.group(0))),
        ("percent", _PERCENT, lambda m: printable_text(percent_bytes(m.group(0)))),
        ("html_entities", _ENTITY, lambda m: html.unescape(m.group(0))),
        ("base32", _BASE32, lambda m: _b32(m.group(0))),
        ("ascii85", _ASCII85, lambda m: _a85(m.group(0))),
        ("url_encoding", _URL_ENCODED, lambda m: urllib.parse.unquote_plus(m.group(0))),
    )
    named_rot13 = _ROT13_NAMED.search(text) is not None
    for name, pattern, decode in decoders:
        payloads: list[str] = []

        def keep(match: re.Match[str], decode=decode, payloads=payloads) -> str | None:
            decoded = decode(match)
            if decoded is not None:
                payloads.append(decoded)
            return decoded

        view = _substitute(text, pattern, keep)
        if view is not None:
            yield name, view, payloads
            # a payload may be rot13 under its encoding: needs no naming, only a rotation that reads as English
            rotated = [codecs.encode(payload, "rot13") for payload in payloads]
            if named_rot13 or any(_rotated_reads_as_english(payload) for payload in rotated):
                yield f"{name}_rot13", _substitute(
                    text, pattern, lambda m: codecs.encode(decode(m) or m.group(0), "rot13")) or view, rotated
    leet = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), text)
    if leet != text:
        yield "leetspeak", leet, []
    # rot13 needs no naming: a rotation that reads as English is tried (a cheap test; the recognisers are not)
    decoded = codecs.encode(text, "rot13")
    if named_rot13 or _rotated_reads_as_english(decoded):
        yield "rot13", decoded, [decoded] if named_rot13 else []
    if _REVERSE_NAMED.search(text):
        yield "reversed", text[::-1], [text[::-1]]


@lru_cache(maxsize=256)
def decoded_view_list(text: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Every view of :func:`decoded_views` at once, kept for the next caller (the validator, then the
    action classifier, read the same content): ``((encoding, view, payloads), …)``."""
    return tuple((name, view, tuple(payloads)) for name, view, payloads in decoded_views(text))


def looks_like_command(payload: str) -> bool:
    """True when a decoded payload reads as a shell/script command (``rm -rf ~``, ``curl … | sh``, ``os.system(…)``)."""
    return bool(_COMMAND.search(payload))
