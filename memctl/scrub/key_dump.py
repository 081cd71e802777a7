"""Private key files shown as hex: ``xxd``, ``hexdump -C``, ``od -A x -t x1``, ``xxd -p`` and bare hex.

A key file dumped as hex carries its body twice: as hex bytes, and (``xxd``,
``hexdump -C``) in the ASCII column, 16 characters a line. Neither is base64
or armour the other rules can see, so the dump is found by the hex of the
armour's start (``2d2d2d2d2d424547494e`` is ``-----BEGIN``, in any grouping of
the bytes, also split across two dump lines), its lines are decoded, and when the decoded bytes hold a private
key armour (RFC 7468, RFC 4880, OpenSSH) every dump line from there on goes.

Line shapes (``man xxd``, ``man hexdump``): an offset of 7 or 8 hex digits
(``00000000:`` for xxd, ``00000000`` then two spaces for hexdump), 16 bytes
as hex pairs grouped by 1, 2 or 8, then the ASCII column; ``xxd -p`` is 30
bytes a line with no offset; bare hex is one run.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator

__all__ = ["hex_dump_key_spans"]

# "-----BEGIN" as hex, the bytes grouped any way a dump tool groups them, and split across two
# dump lines anywhere (the key does not start a line when text comes before it in the file): then
# the first line's ASCII column, the line end, a gutter (numbered, diff, grep, escaped) and the next
# line's offset come between two bytes. The decoded bytes decide (_dump_block).
_BYTE_GAP = (r"(?:[ ]{0,2}|[^\x00]{1,60}?[0-9a-f]{6,8}(?::[ ]|[ ]{1,2})"
             r"|(?:\r?\n|(?:\\+r)?\\+n)[^\x00\n0-9a-f]{0,30}(?:[0-9]{1,6}[^\x00\n0-9a-f]{1,4})?)")
_HEX_ARMOUR = re.compile(_BYTE_GAP.join(("2d", "2d", "2d", "2d", "2d", "42", "45", "47", "49", "4e")))
# One dump line: an optional offset, then hex bytes. With an offset the bytes
# are at most 16 (32 for a wide -c) and an ASCII column may follow; without,
# the line is one run of hex.
_DUMP_LINE = re.compile(
    r"(?:(?P<offset>[0-9a-f]{6,8}(?::[ ]|[ ]{1,2}))(?P<grouped>[0-9a-f]{2}(?:[ ]{0,2}[0-9a-f]{2}){0,31})"
    r"|(?P<run>[0-9a-f]{2}(?:[ ]?[0-9a-f]{2}){3,}))"
)
_DECODED_ARMOUR = re.compile(rb"-{4,5} ?BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY")
_MAX_LINE = 200


_ASCII_COLUMN = re.compile(r"[ ]{1,3}\|?[^\n\r\x00]{0,16}\|?")
_MAX_GAP = 60  # an ASCII column, a line end, the next line's gutter or a "*" line


def _dump_block(lowered: str, anchor: int) -> tuple[int, int] | None:
    """``(start, end)`` of the dump lines from the one holding ``anchor`` on, when they decode to a key.

    Lines are taken as consecutive dump matches at most :data:`_MAX_GAP` apart,
    so a dump flattened onto one line (a title) reads the same.
    """
    window = _DUMP_LINE.finditer(lowered, max(0, anchor - 20), min(len(lowered), anchor + _MAX_LINE))
    first = next((line for line in window if line.end() > anchor), None)
    if first is None or first.start() > anchor:
        return None
    decoded = bytearray()
    line = first
    while True:
        digits = re.sub(r"[^0-9a-f]", "", line.group("grouped") or line.group("run"))
        after = line.end()
        following = _DUMP_LINE.search(lowered, after, min(len(lowered), after + _MAX_GAP + _MAX_LINE))
        if following is None or following.start() - after > _MAX_GAP or "\x00" in lowered[after : following.start()]:
            following = None
        elif line.group("offset") and following.group("offset"):
            # The offsets say how many bytes the line holds: an ASCII column that starts with two
            # hex letters ("BEGIN EC…" lowered: "be") is not a byte.
            count = int(following.group("offset").strip(": "), 16) - int(line.group("offset").strip(": "), 16)
            if 0 < count <= 32:
                digits = digits[: 2 * count]
        decoded += binascii.unhexlify(digits[: len(digits) // 2 * 2])
        if following is None:
            break
        line = following
    end = line.end()
    if line.group("offset"):
        column = _ASCII_COLUMN.match(lowered, end)
        end = column.end() if column else end  # its ASCII column shows the body too
    return (first.start(), end) if _DECODED_ARMOUR.search(bytes(decoded)) else None


def hex_dump_key_spans(text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` for every hex dump of a private key file in ``text``.

    ``lowered`` is ``text.lower()`` when it has the same length (else it is
    computed). Never raises on any ``str``.
    """
    if lowered is None or len(lowered) != len(text):
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    pos = 0
    for anchor in _HEX_ARMOUR.finditer(lowered):
        if anchor.start() < pos:
            continue
        block = _dump_block(lowered, anchor.start())
        if block is not None:
            pos = block[1]
            yield block
