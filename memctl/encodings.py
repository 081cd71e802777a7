"""Decoding of text carried in an encoding: base64 (both alphabets), hex, escape runs, percent escapes.

One place for the scrubber (:mod:`memctl.scrub.encoded`, ``scrub_private_key``, ``scrub_http``,
``scrub_credential_key``, ``scrub_token``, JWT headers in :mod:`memctl.scrub.core`) and the
staging validator (:mod:`memctl.validator.encoded`), which both read payloads that hide text.
Nothing here raises on bad input: a run that does not decode gives None.

Sources: RFC 4648 sections 4 (base64) and 5 (base64url; padding optional as in JWTs, RFC 7515
section 2), 8 (base16); C/JSON escape syntax (``\\xNN``, ``\\NNN`` octal, ``\\uNNNN``); RFC 3986
section 2.1 (percent-encoding).
"""

from __future__ import annotations

import base64
import binascii

__all__ = [
    "base64_bytes",
    "base64_text",
    "hex_bytes",
    "octal_escape_bytes",
    "percent_bytes",
    "printable_text",
    "unicode_escape_text",
    "x_escape_bytes",
]

_URLSAFE_TO_STANDARD = str.maketrans("-_", "+/")


def base64_bytes(run: str, *, cut: bool = False) -> bytes | None:
    """Decode a base64 or base64url ``run`` (padding optional; the two alphabets may mix).

    ``cut``: the run may be cut anywhere (a window, a line): a trailing partial quantum is dropped
    instead of failing. Returns None when the run holds a character of neither alphabet or, without
    ``cut``, has an impossible length (a multiple of 4 plus 1).
    """
    body = run.rstrip("=").translate(_URLSAFE_TO_STANDARD)
    if cut:
        body = body[: len(body) // 4 * 4]
    elif len(body) % 4 == 1:
        return None
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def printable_text(data: bytes | None, *, ratio: float = 0.95) -> str | None:
    """``data`` as UTF-8 text when at least ``ratio`` of its characters are printable (newlines, tabs and
    carriage returns count as printable) and it is not blank; else None (binary, a hash, a random key)."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.strip():
        return None
    good = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    return text if good >= ratio * len(text) else None


def base64_text(run: str, *, cut: bool = False, ratio: float = 0.95) -> str | None:
    """:func:`base64_bytes` then :func:`printable_text`: the text a base64 run carries, or None."""
    return printable_text(base64_bytes(run, cut=cut), ratio=ratio)


def hex_bytes(digits: str) -> bytes | None:
    """Bytes of an even run of hex digits (no separators), or None."""
    try:
        return bytes.fromhex(digits)
    except ValueError:
        return None


def x_escape_bytes(run: str) -> bytes:
    """Bytes of a run of ``\\xNN`` escapes (the caller's regex guarantees the shape)."""
    return bytes(int(h, 16) for h in run.split("\\x")[1:])


def octal_escape_bytes(run: str) -> bytes | None:
    """Bytes of a run of ``\\NNN`` octal escapes (the caller's regex guarantees the shape); None when
    an escape is above ``\\377`` (no byte)."""
    values = [int(o, 8) for o in run.split("\\")[1:] if o]
    return bytes(values) if all(v < 256 for v in values) else None


def unicode_escape_text(run: str) -> str:
    """Text of a run of ``\\uNNNN`` escapes (the caller's regex guarantees the shape)."""
    return "".join(chr(int(u, 16)) for u in run.split("\\u")[1:])


def percent_bytes(run: str) -> bytes:
    """Bytes of a run of ``%NN`` escapes (the caller's regex guarantees the shape)."""
    return bytes(int(p, 16) for p in run.split("%")[1:])
