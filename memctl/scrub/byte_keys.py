"""Symmetric keys written as byte arrays in code.

An array initialiser of 8 or more ``0x..`` bytes assigned to a name that names a credential (``key``,
``aes_key``, ``hmac_secret``, ``psk``, ``password`` …; :func:`memctl.scrub.context_names.credential_word_kind`):
C/C++ ``uint8_t key[] = {0x2b, …}``, ``unsigned char aes_key[16] = {…}``, C#/Java ``byte[] psk = new byte[]
{…}``, Rust ``let key: [u8; 16] = [0x…]``, Go ``key := []byte{0x…}``, Python ``KEY = bytes([0x…])``. The bytes
between the brackets go (kind ``private_key``); tables under other names (``sbox``, ``crc_table``) stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import credential_word_kind
from memctl.scrub.detector import Detector, Span, detector

__all__ = ["BYTE_KEY_DETECTORS"]

_BYTE_ARRAY = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*(?:\[[^\]\n]{0,12}\][ \t]*)?(?::[ \t]*\[u8;[ \t]*\d+\][ \t]*)?"
    r"(?::=|=)[ \t]*(?:new[ \t]+(?:byte|Byte|sbyte)[ \t]*\[[^\]\n]{0,8}\][ \t]*|\[\][ \t]*byte[ \t]*|\(?(?:const[ \t]+)?"
    r"(?:uint8_t|u8|unsigned[ \t]+char|char|byte|BYTE)[ \t]*\[[^\]\n]{0,8}\][ \t]*\)?[ \t]*|(?:bytes|bytearray)\()?"
    r"(?P<open>[{\[])(?P<body>[ \t\r\n]*(?:0[xX][0-9a-fA-F]{1,2}[ \t\r\n]*,[ \t\r\n]*){7,}0[xX][0-9a-fA-F]{1,2}[ \t\r\n]*,?[ \t\r\n]*)[}\]]"
)


def _byte_array_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    pos = text.find("0x")
    searched = 0
    while pos != -1:
        # the initialiser's opening bracket is at most 240 characters before its first byte
        brace = max(text.rfind("{", max(searched, pos - 240), pos), text.rfind("[", max(searched, pos - 240), pos))
        if brace != -1:
            line_start = max(text.rfind("\n", 0, brace) + 1, text.rfind("\x00", 0, brace) + 1, brace - 200)
            for match in _BYTE_ARRAY.finditer(text, line_start, min(len(text), pos + 4000)):
                if match.start("open") != brace:
                    continue
                if credential_word_kind(match.group("name")) is not None or match.group("name").lower() in _KEY_NAMES:
                    body = match.group("body")
                    start = match.start("body") + (len(body) - len(body.lstrip()))
                    yield start, match.start("body") + len(body.rstrip().rstrip(",").rstrip()), "private_key"
                searched = match.end()
                break
            else:
                searched = pos
        pos = text.find("0x", max(pos + 2, searched))


_KEY_NAMES = frozenset({"key", "aes_key", "aeskey", "hmac_key", "hmackey", "psk", "iv_key", "enc_key", "mac_key", "seed"})




def _byte_key_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    yield from _byte_array_spans(text, lowered or "", gates)


BYTE_KEY_DETECTORS: tuple[Detector, ...] = (
    detector(
        "private_key",
        finder=_byte_key_spans,
        literals=("0x",),
        requires=("0x",),
        origin="memctl: byte-array keys in C/C++/C#/Java/Rust/Go/Python (see memctl.scrub.byte_keys)",
    ),
)
"""One finder for the byte-array initialisers in the module docstring."""
