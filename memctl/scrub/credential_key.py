"""Credential-shaped values under the key names and query parameters the keyword rules' roots miss.

:mod:`memctl.scrub.keyword` finds keys built on pass/pwd/secret/token/…key.
Other names hold credentials too, but also plain settings, so here the value
must be credential-shaped (:func:`~memctl.scrub.detector.looks_random`
at 12+ characters, or hex/UUID) and not code:

* keys whose last segment is ``credentials``/``credential``/``creds``, ``auth``
  (``REDISCLI_AUTH``, ``auth:``), ``passcode``, ``salt`` (Django/Laravel/WordPress
  salts), or that name signing (``WEBHOOK_SIGNING``), and ``session_id``/``sessionid``;
* URL query parameters of signed URLs and API keys: Azure SAS ``sig``, Azure Functions
  ``code``, Google ``X-Goog-Signature``, AWS SigV2
  ``Signature`` and SigV4 ``X-Amz-Signature``/``X-Amz-Credential``/``X-Amz-Security-Token``,
  ``key``, ``api_key``/``apikey``, ``access_token``, ``token``, ``auth``;
* an ``Authorization`` value built by concatenation: ``'Bearer ' + 'VALUE'``.

Each name is found with a substring search (no regex scan of the whole text), and only when
:mod:`memctl.scrub.gates` found its literal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder

__all__ = ["CREDENTIAL_KEY_DETECTORS"]

_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_SEGMENTS = re.compile(r"[_.-]|(?<=[a-z0-9])(?=[A-Z])")
# "session" alone is everywhere in a coding session's text: only its id names are looked for.
_KEY_ROOTS = ("credential", "creds", "auth", "passcode", "salt", "signing", "session_id", "sessionid", "session-id")
# One gate literal for roots that share a start (scrub_gates: one scan each).
_ROOT_GATES = {"credential": "cred", "creds": "cred"}
_LAST_SEGMENTS = frozenset({"credentials", "credential", "creds", "auth", "passcode", "salt", "sessionid", "signing"})
_ASSIGNMENT = re.compile(
    r"""(?:\\*["'`]?\]?[ \t]*(?::=|=>|=|:)|\\*["'][ \t]*,)[ \t]*(?:(?P<q>\\*["'`])(?P<quoted>[^"'`\n\x00\\]+)\\*["'`]|(?P<bare>[^\s"'`&#<>,;)}\]\\\x00]+))"""
)
# Code, not a value: a call, subscript or attribute access, or an annotation's type name.
_CODE_VALUE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(|\[|\.[A-Za-z_]\w*$)|[A-Z][A-Za-z]+(?:\[.*)?$")
_HEX_ID = re.compile(r"[0-9a-fA-F-]+|ses_[A-Za-z0-9]+")  # UUIDs, hex ids, OpenCode's ses_… ids
_QUERY_NAMES = ("sig", "signature", "x-goog-signature", "code", "x-amz-signature", "x-amz-credential", "x-amz-security-token", "key", "api_key",
                "apikey", "api-key", "access_token", "token", "auth")
_QUERY_VALUE = re.compile(r"[^&#\s\"'<>\\\x00]+")
_CONCATENATED = re.compile(
    r"""(?i:bearer|token|basic)[ \t]*(?P<q>\\*["'])[ \t]*\+[ \t]*\\*(?P<q2>["'])(?P<value>[^"'\s\\\x00]{8,})\\*(?P=q2)"""
)


def _credential_key(key: str) -> bool:
    segments = [s.lower() for s in _SEGMENTS.split(key) if s]
    if not segments:
        return False
    if segments[-1] in _LAST_SEGMENTS or segments[-2:] == ["session", "id"]:
        return True
    return "signing" in segments[:-1] and segments[-1] in {"key", "secret", "token"}


def _encoded_text_without_pair(value: str) -> bool:
    """base64 of plain text with no ``user:password`` pair: an ``auth`` field that
    holds no credential (a pair is :mod:`memctl.scrub.http`'s)."""
    if len(value) % 4:
        return False  # a padded base64 field; an unpadded run is more likely a key
    decoded = printable_text(base64_bytes(value), ratio=1.0)
    return decoded is not None and decoded.isascii() and decoded.isprintable() and ":" not in decoded


def _plausible(value: str) -> bool:
    if is_placeholder(value) or _CODE_VALUE.match(value) or "{" in value:
        return False
    return credential_shaped(unquote(value), min_len=12)


def _key_spans(text: str, lowered: str, present: frozenset[str]) -> Iterator[Span]:
    for root in _KEY_ROOTS:
        if _ROOT_GATES.get(root, root) not in present:
            continue
        pos = lowered.find(root)
        while pos != -1:
            end = pos + len(root)
            while end < len(text) and text[end] in _IDENT and end - pos < 64:
                end += 1
            start = pos
            while start > 0 and text[start - 1] in _IDENT and pos - start < 64:
                if text[start - 1] in "nrt" and start >= 2 and text[start - 2] == "\\":
                    break  # "\nREDISCLI_AUTH=": the escape is not part of the name
                start -= 1
            key = text[start:end].strip(".-")
            if _credential_key(key):
                value = _ASSIGNMENT.match(text, end)
                if value is not None:
                    group = "quoted" if value.group("quoted") is not None else "bare"
                    candidate = value.group(group)
                    # A session id that is a UUID or hex names a session (OpenCode's own ids), not a credential.
                    session = key.lower().replace("-", "_").endswith(("session_id", "sessionid"))
                    if (
                        _plausible(candidate)
                        and not (session and _HEX_ID.fullmatch(candidate))
                        and not (key.lower().endswith("auth") and _encoded_text_without_pair(candidate))
                    ):
                        kind = "password" if key.lower().endswith("passcode") else "secret"
                        yield value.start(group), value.end(group), kind
            pos = lowered.find(root, end)


# Query parameter names by the literal they end with (one substring search each).
_QUERY_ENDINGS = ("key=", "token=", "sig=", "signature=", "credential=", "auth=", "code=")
_QUERY_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _query_spans(text: str, lowered: str, present: frozenset[str]) -> Iterator[Span]:
    for ending in _QUERY_ENDINGS:
        if ending not in present:
            continue
        pos = lowered.find(ending)
        while pos != -1:
            value_start = pos + len(ending)
            start = pos
            while start > 0 and lowered[start - 1] in _QUERY_NAME_CHARS and pos - start < 24:
                start -= 1
            if start > 0 and text[start - 1] in "?&;" and lowered[start:value_start - 1] in _QUERY_NAMES:
                value = _QUERY_VALUE.match(text, value_start)
                if value is not None and _plausible(value.group(0)):
                    yield value.start(), value.end(), "secret"
            pos = lowered.find(ending, value_start)


_LITERALS = tuple(sorted({_ROOT_GATES.get(root, root) for root in _KEY_ROOTS} | set(_QUERY_ENDINGS)))


def _credential_key_spans(text: str, lowered: str | None, present: frozenset[str]) -> Iterator[Span]:
    """Values under the names in the module docstring, when credential-shaped
    (``present``: the names' literals in the text)."""
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _key_spans(text, lowered, present)
    yield from _query_spans(text, lowered, present)
    if "+" in text and ("bearer" in lowered or "token" in lowered or "basic" in lowered):
        for match in _CONCATENATED.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "bearer_token"


CREDENTIAL_KEY_DETECTORS: tuple[Detector, ...] = (
    detector("secret", finder=_credential_key_spans, literals=_LITERALS,
             origin="memctl: credential-shaped values under credentials/auth/salt/signing/session keys, signed URLs"),
)
"""One detector for the names in the module docstring."""
