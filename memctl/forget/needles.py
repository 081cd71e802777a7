"""The byte forms a purged value can take in a file, and their replacement by the redaction marker.

A value reaches files raw, JSON-escaped (``json.dumps`` with and without ``ensure_ascii``, and
twice: a note quoted in a JSON report or a Cognee row, a JSON string inside JSON), base64 (standard and URL-safe alphabets, with and
without padding: a value inside an encoded blob) and URL-encoded (``quote`` and ``quote_plus``: a
value in a query string) and HTML-escaped (``html.escape`` and Jinja's ``markupsafe.escape``: a
value quoted in a sleep report page). Each form found is replaced by the scrubber's marker
(:func:`memctl.scrub.core.redaction_marker`, kind ``purged``), so a purged value reads like any
other redaction. The marker holds no quote or backslash, so a JSON file stays valid JSON.

Base64 inside a longer blob: the value's encoding depends on its offset modulo 3 in the encoded
bytes. :func:`base64_runs` gives, for each offset k in 0, 1, 2, the characters of
``b64encode(b"\\0" * k + value)`` that only the value's bits decide (the first ``ceil(8k/6)``
and a trailing partial character depend on the neighbouring bytes and are dropped), in both
alphabets (RFC 4648 §4 and §5). Such a form is an :class:`EncodedRun`: :func:`redact` replaces
the whole run of base64 characters around it, because a partial run still decodes to the bytes
around the cut.
"""

from __future__ import annotations

import base64
import html
import json
import math
from urllib.parse import quote, quote_plus

from markupsafe import escape

from memctl.scrub.core import redaction_marker

MARKER = redaction_marker("purged")
MIN_VALUE_CHARS = 6  # shorter values match unrelated bytes everywhere (and their base64 even more)


_BASE64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=")


class EncodedRun(bytes):
    """A form that lies inside a base64 run: :func:`redact` replaces the whole enclosing run."""


def base64_runs(raw: bytes) -> set[EncodedRun]:
    """The offset-independent base64 characters of ``raw`` at offsets 0, 1, 2 (see the module doc),
    standard and URL-safe alphabets."""
    found: set[EncodedRun] = set()
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw).rstrip(b"=")
        middle = encoded[math.ceil(8 * k / 6): (8 * (k + len(raw))) // 6]
        for alphabet in (middle, middle.replace(b"+", b"-").replace(b"/", b"_")):
            found.add(EncodedRun(alphabet))
    return found


def forms(value: str) -> list[bytes]:
    """The distinct byte forms of ``value`` (see the module doc), longest first.

    Raises:
        ValueError: ``value`` is shorter than :data:`MIN_VALUE_CHARS` or only whitespace.
    """
    if len(value.strip()) < MIN_VALUE_CHARS:
        raise ValueError(f"a value to purge must have at least {MIN_VALUE_CHARS} characters")
    raw = value.encode("utf-8")
    escaped = json.dumps(value)[1:-1]
    found = {raw, escaped.encode("utf-8"), json.dumps(escaped)[1:-1].encode("utf-8"),
             json.dumps(value, ensure_ascii=False)[1:-1].encode("utf-8"),
             quote(value, safe="").encode("ascii"), quote_plus(value, safe="").encode("ascii"),
             html.escape(value).encode("utf-8"), str(escape(value)).encode("utf-8")}
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        found.add(EncodedRun(encoded))
        found.add(EncodedRun(encoded.rstrip(b"=")))
    found |= base64_runs(raw)
    return sorted(found, key=lambda f: (-len(f), f))


def all_forms(values: list[str]) -> list[bytes]:
    """:func:`forms` of every value, longest first (so a longer form is replaced before a shorter one inside it)."""
    found = {form for value in values for form in forms(value)}
    return sorted(found, key=lambda f: (-len(f), f))


def holds(data: bytes, needles: list[bytes]) -> bool:
    """True when ``data`` contains any of ``needles``."""
    return any(needle in data for needle in needles)


def redact(data: bytes, needles: list[bytes]) -> tuple[bytes, int]:
    """``data`` with every needle replaced by :data:`MARKER` (an :class:`EncodedRun` with the whole
    base64 run around it); returns ``(bytes, replacements)``."""
    count = 0
    marker = MARKER.encode("ascii")
    for needle in needles:
        if isinstance(needle, EncodedRun):
            data, n = _redact_runs(data, needle, marker)
        else:
            n = data.count(needle)
            if n:
                data = data.replace(needle, marker)
        count += n
    return data, count


def _redact_runs(data: bytes, needle: bytes, marker: bytes) -> tuple[bytes, int]:
    out, pos, count = [], 0, 0
    hit = data.find(needle)
    while hit >= 0:
        start, end = hit, hit + len(needle)
        while start > pos and data[start - 1] in _BASE64_CHARS:
            start -= 1
        while end < len(data) and data[end] in _BASE64_CHARS:
            end += 1
        out += [data[pos:start], marker]
        pos, count = end, count + 1
        hit = data.find(needle, pos)
    if not count:
        return data, 0
    out.append(data[pos:])
    return b"".join(out), count
