"""Secrets carried base64-encoded: ``data:`` URLs and base64 decode pipelines.

A secret leaves no trace of its format once encoded, so only runs next to a
carrier that says "this is base64" are decoded: a ``data:…;base64,`` URL
(RFC 2397), ``echo <run> | base64 -d``, ``base64 --decode <<< <run>``,
``base64.b64decode("<run>")``, ``Buffer.from('<run>', 'base64')``.
Standard and URL-safe alphabets (RFC 4648 sections 4 and 5), padded or not.
A run whose decoded text holds a secret (found by the same detector table)
is redacted whole, with the kind of the secret inside. Whole base64-encoded
key files have their own rule (:mod:`memctl.scrub.private_key`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memctl.encodings import base64_text
from memctl.scrub.detector import Detector, Span, detector

__all__ = ["encoded_secret_detector"]

FindSecrets = Callable[[str], "list[tuple[str, tuple[int, int]]]"]

_CARRIER = "base64"
_WINDOW = 300  # characters searched for a run on each side of a decode call or pipeline
_MAX_RUN = 65536
_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_DATA_URL_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,%d}={0,2}" % _MAX_RUN)


def _decode(run: str) -> str | None:
    """``run`` decoded as printable UTF-8 text (either alphabet), or None. A run with one character
    too many (a multiple of 4 plus 1) loses it: the window or a glued word cut it there."""
    body = run.rstrip("=")
    return base64_text(body[:-1] if len(body) % 4 == 1 else body, ratio=0.9)


def _encoded_looking(run: str) -> bool:
    # Encoded text mixes cases and digits; identifiers next to "base64" in code do not.
    return any(c.isdigit() for c in run) and any(c.isupper() for c in run) and any(c.islower() for c in run)


_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")


def _whole_run(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a run cut by the search window to the whole run (padding included)."""
    floor = max(0, start - _MAX_RUN)
    while start > floor and text[start - 1] in _RUN_CHARS:
        start -= 1
    ceiling = min(len(text), end + _MAX_RUN)
    while end < ceiling and (text[end] in _RUN_CHARS or text[end] == "="):
        end += 1
    return start, end


def _spans(text: str, find: FindSecrets) -> Iterator[Span]:
    pos = text.find(_CARRIER)
    done_until = 0
    while pos != -1:
        if text.startswith(",", pos + 6):  # data:[<mediatype>];base64,<run>
            runs = [m for m in [_DATA_URL_RUN.match(text, pos + 7)] if m is not None]
        else:  # echo <run> | base64 -d, base64 -d <<< <run>, b64decode("<run>")
            runs = list(_RUN.finditer(text, max(done_until, pos - _WINDOW), min(len(text), pos + _WINDOW)))
        for run in runs:
            start, end = _whole_run(text, run.start(), run.end())
            if start < done_until or end - start > _MAX_RUN or not _encoded_looking(text[start:end]):
                continue
            decoded = _decode(text[start:end])
            findings = find(decoded) if decoded else None
            if findings:
                done_until = end
                yield start, end, findings[0][0]
        pos = text.find(_CARRIER, pos + 6)


def encoded_secret_detector(find: FindSecrets) -> Detector:
    """The detector for base64-carried secrets; ``find`` is the full detector table's
    :func:`memctl.scrub.core.find_secrets` (passed in: that module builds the table)."""

    def finder(text: str, lowered: str | None) -> Iterator[Span]:
        del lowered
        return _spans(text, find)

    return detector("encoded_secret", finder=finder, origin="RFC 2397 data: URLs, RFC 4648 base64/base64url")
