"""The byte forms a purged value can take in a file, and their replacement by the redaction marker.

A value reaches files raw, JSON-escaped (``json.dumps`` with and without ``ensure_ascii``, and
twice: a note quoted in a JSON report or a Cognee row, a JSON string inside JSON), base64 (standard and URL-safe alphabets, with and
without padding: a value inside an encoded blob) and URL-encoded (``quote`` and ``quote_plus``: a
value in a query string) and HTML-escaped (``html.escape`` and Jinja's ``markupsafe.escape``: a
value quoted in a sleep report page). Each form found is replaced by the scrubber's marker
(:func:`memctl.ingest.scrub.redaction_marker`, kind ``purged``), so a purged value reads like any
other redaction. The marker holds no quote or backslash, so a JSON file stays valid JSON.
"""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote, quote_plus

from markupsafe import escape

from memctl.ingest.scrub import redaction_marker

MARKER = redaction_marker("purged")
MIN_VALUE_CHARS = 6  # shorter values match unrelated bytes everywhere (and their base64 even more)


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
        found.add(encoded)
        found.add(encoded.rstrip(b"="))
    return sorted(found, key=lambda f: (-len(f), f))


def all_forms(values: list[str]) -> list[bytes]:
    """:func:`forms` of every value, longest first (so a longer form is replaced before a shorter one inside it)."""
    found = {form for value in values for form in forms(value)}
    return sorted(found, key=lambda f: (-len(f), f))


def holds(data: bytes, needles: list[bytes]) -> bool:
    """True when ``data`` contains any of ``needles``."""
    return any(needle in data for needle in needles)


def redact(data: bytes, needles: list[bytes]) -> tuple[bytes, int]:
    """``data`` with every needle replaced by :data:`MARKER`; returns ``(bytes, replacements)``."""
    count = 0
    marker = MARKER.encode("ascii")
    for needle in needles:
        n = data.count(needle)
        if n:
            data = data.replace(needle, marker)
            count += n
    return data, count
