"""Keys whose only context is a key name, a header, a query parameter or the command that takes them.

* ``wandb login <40 hex>`` (Weights & Biases CLI: the API key is the positional argument);
* Backblaze ``b2 account authorize <keyId> <applicationKey>`` (and the older
  ``b2 authorize-account``, b2 CLI docs): the application key, the id stays;
* ``"key": "<value>"`` in a JSON object that also names a user or a device: Kaggle's
  ``kaggle.json`` (``{"username": …, "key": <32 hex>}``), Tuya local keys
  (``{"id"/"devId": …, "ip": …, "key": <16 chars>}``, tinytuya's ``devices.json``);
* API key headers by name: any ``*-API-KEY``/``*-APPLICATION-KEY``/``*-APP-KEY``/``*-AUTH-TOKEN``/
  ``*-ACCESS-TOKEN``/``*-SECRET`` header (Datadog ``DD-API-KEY``/``DD-APPLICATION-KEY``,
  Datadog API docs) with a credential-shaped value; nonces and idempotency keys stay;
* query parameters of URLs that carry a key: ``appid`` (OpenWeatherMap), ``api_key``, ``apikey``,
  ``app_key``, ``access_key``, ``auth_key``, ``private_key``, ``secret_key``, ``client_secret``,
  ``key``;
* a C/C++ byte-array or string key: ``uint8_t k[] = "<hex>"``, ``unsigned char key[16] =
  "\\x3a…"``, ``static const char secret[] = "…"``: 16+ hex digits or 8+ ``\\x`` escapes, or any
  literal of 8+ characters when the array's name is a credential word.

Kinds: ``secret``. Placeholders stay (:func:`~memctl.scrub.detector.is_placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder, looks_random

__all__ = ["NAMED_KEY_DETECTORS"]

_WANDB = re.compile(r"wandb[ \t]+login(?:[ \t]+--?[\w-]+(?:=[^\s]+)?)*[ \t]+(?P<value>[0-9a-f]{40}|local-[0-9a-f]{40})(?![\w])")
_B2 = re.compile(
    r"b2(?:[ \t]+account[ \t]+authorize|[ \t]+authorize[-_]account|[ \t]+authorize_account)[ \t]+[\"']?[0-9a-fA-F]{12,25}[\"']?"
    r"[ \t]+[\"']?(?P<value>K[0-9]{3}[A-Za-z0-9+/]{20,40}|[A-Za-z0-9+/]{31})(?![\w+/])"
)
_JSON_KEY = re.compile(r"\\*\"key\\*\"[ \t]*:[ \t]*\\*\"(?P<value>[^\"\\\s\x00]{10,80})\\*\"")
_OWNER_NAMES = re.compile(r"(?i)\\*\"(?:username|user|devid|dev_id|gwid|device_id|ip|local_key|product_key|uuid)\\*\"[ \t]*:")
_HEADER = re.compile(
    r"(?P<name>[A-Za-z][\w-]{0,40}-(?:api-key|apikey|application-key|app-key|auth-token|access-token|secret|key|token))"
    r"\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?P<value>[A-Za-z0-9_\-+/=.~]{16,200})",
    re.IGNORECASE,
)
_HEADER_LITERALS = ("-api-key", "-application-key", "-app-key", "-auth-token", "-access-token", "-secret", "-key:",
                    "-token:")
_NOT_CREDENTIAL_HEADERS = frozenset({
    "sec-websocket-key", "idempotency-key", "x-idempotency-key", "cache-key", "x-cache-key", "public-key",
    "x-public-key", "partition-key", "sort-key", "routing-key", "primary-key", "x-request-key", "csrf-token",
    "x-csrf-token", "x-xsrf-token", "next-page-token", "page-token", "x-page-token", "continuation-token",
    "x-continuation-token", "sync-token", "x-amz-security-token-expiry",
})
_QUERY_NAMES = ("appid", "api_key", "apikey", "api-key", "app_key", "appkey", "access_key", "accesskey", "auth_key",
                "authkey", "private_key", "secret_key", "client_secret", "key", "app_secret", "apisecret")
_QUERY = re.compile(r"[?&](?P<name>[\w-]{2,20})=(?P<value>[A-Za-z0-9_\-+/.~%]{12,200})")
_C_ARRAY = re.compile(
    r"(?:uint8_t|unsigned[ \t]+char|u8|BYTE|byte|char|gchar|guint8)[ \t]+(?:const[ \t]+)?\*?[ \t]*(?P<name>\w{1,40})"
    r"[ \t]*\[[ \t]*\w*[ \t]*\][ \t]*(?:PROGMEM[ \t]*)?=[ \t]*(?:u8|L)?\"(?P<value>[^\"\n\x00]{8,200})\""
)
_C_LITERALS = ("uint8_t", "unsigned char", "u8 ", "byte ", "char ", "guint8")
_CREDENTIAL_NAME = re.compile(r"(?i)(?:^k$|^key|key$|_key|secret|token|passw|pwd|psk|hmac|aes|cipher)")
_HEX_STRING = re.compile(r"(?:[0-9a-fA-F]{16,}|(?:\\x[0-9a-fA-F]{2}){8,})")


def _finditer_from(text: str, lowered: str, literal: str, pattern: re.Pattern[str], back: int, ahead: int) -> Iterator[re.Match[str]]:
    pos = lowered.find(literal)
    while pos != -1:
        yield from pattern.finditer(text, max(0, pos - back), min(len(text), pos + ahead))
        pos = lowered.find(literal, pos + ahead)


def _matches_at(text: str, lowered: str, literal: str, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """``pattern.match`` at each hit of ``literal`` (one backslash of escaped JSON allowed before it)."""
    pos = lowered.find(literal)
    while pos != -1:
        start = pos - 1 if pos > 0 and text[pos - 1] == "\\" else pos
        match = pattern.match(text, start)
        if match is not None:
            yield match
        pos = lowered.find(literal, pos + len(literal))


def _named_key_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "wandb" in gates:
        for match in _finditer_from(text, lowered, "wandb", _WANDB, 0, 200):
            yield match.start("value"), match.end("value"), "secret"
    if "b2 " in gates:
        for literal in ("b2 account authorize", "b2 authorize", "authorize_account"):
            if literal in lowered:
                for match in _finditer_from(text, lowered, literal, _B2, 20, 200):
                    yield match.start("value"), match.end("value"), "secret"
    if '"key"' in gates:
        for match in _matches_at(text, lowered, '"key"', _JSON_KEY):
            value = match.group("value")
            window = text[max(0, match.start() - 300) : match.end() + 300]
            if not is_placeholder(value) and _OWNER_NAMES.search(window) and (
                credential_shaped(value, min_len=16) or any(not c.isalnum() for c in value) and len(value) >= 12
            ) and "/" not in value and "." not in value:
                yield match.start("value"), match.end("value"), "secret"
    if any(literal in gates for literal in _HEADER_LITERALS):
        for literal in _HEADER_LITERALS:
            if literal not in gates:
                continue
            pos = lowered.find(literal)
            while pos != -1:
                head = pos
                while head > 0 and (text[head - 1].isalnum() or text[head - 1] in "-_") and pos - head < 40:
                    head -= 1
                match = _HEADER.match(text, head)
                if match is not None and match.group("name").lower() not in _NOT_CREDENTIAL_HEADERS:
                    value = match.group("value")
                    if not is_placeholder(value) and credential_shaped(value, min_len=16):
                        yield match.start("value"), match.end("value"), "secret"
                pos = lowered.find(literal, pos + len(literal))
    for name in _QUERY_NAMES:
        literal = name + "="
        if literal not in gates:
            continue
        pos = lowered.find(literal)
        while pos != -1:
            if pos > 0 and text[pos - 1] in "?&":
                match = _QUERY.match(text, pos - 1)
                if match is not None and match.group("name").lower() == name:
                    value = match.group("value")
                    if not is_placeholder(value) and (looks_random(value, min_len=16) or credential_shaped(value, min_len=24)) and "/" not in value:
                        yield match.start("value"), match.end("value"), "secret"
            pos = lowered.find(literal, pos + len(literal))
    if '[] = "' in gates or ']= "' in gates or '] = "' in gates or ']="' in gates:
        for literal in _C_LITERALS:
            if literal in gates:
                for match in _finditer_from(text, lowered, literal, _C_ARRAY, 0, 300):
                    value = match.group("value")
                    if _HEX_STRING.fullmatch(value) or (_CREDENTIAL_NAME.search(match.group("name")) and not is_placeholder(value)
                                                       and " " not in value.strip()):
                        yield match.start("value"), match.end("value"), "secret"


_LITERALS = tuple(sorted({"wandb", "b2 ", '"key"', *_HEADER_LITERALS, *(n + "=" for n in _QUERY_NAMES), *_C_LITERALS,
                          '[] = "', '] = "', ']= "', ']="'}))

NAMED_KEY_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_named_key_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: wandb/b2 CLI keys, kaggle/tuya JSON keys, *-API-KEY headers, URL key parameters, C key arrays",
    ),
)
"""One finder for the kinds in the module docstring."""
