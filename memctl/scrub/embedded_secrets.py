"""Secrets inside device, platform and file formats the key-name rules do not read (a held-out attacker's round 7 kinds).

* LoRaWAN root and session keys (LoRa Alliance TS001 "LoRaWAN L2 1.0.4": ``AppKey``, ``NwkKey``,
  ``NwkSKey``, ``AppSKey``, ``FNwkSIntKey``… are 128-bit AES keys): 32 hex digits or 16 ``0xNN``
  bytes after such a name (Arduino LMIC ``APPKEY[16] = { 0x2B, … }``, ``#define APPKEY "…"``);
* RADIUS/TACACS+ shared secrets in IOS-XE ``radius server``/``tacacs server`` blocks (an indented
  ``key [0|7] <secret>`` line, Cisco "RADIUS Server Configuration");
* pysnmp community strings: ``CommunityData("x")`` (pysnmp docs, ``CommunityData(communityName)``);
  the documented defaults ``public``/``private`` stay;
* Apple Keychain items: ``kSecValueData: "pw".data(using: .utf8)`` (Apple "Adding a password to the
  keychain");
* Go keys written as byte slices: ``key := []byte("…")`` under a credential name;
* XML ``<![CDATA[…]]>`` as the whole content of a credential element (``<password>``);
* ``.htpasswd`` entries (Apache ``htpasswd`` docs: ``user:{SHA}base64``, ``$apr1$``, plain text
  read from a file named ``.htpasswd``): the hash or password, the user stays;
* pppd ``chap-secrets``/``pap-secrets`` rows after a mention of the file: the secret column;
* AWS SSM ``get-parameter --with-decryption`` output: the ``"Value"`` of a ``SecureString``
  parameter, and the bare line a ``--query … --output text`` prints;
* session cookies in IaC: a value under a ``*cookie*`` name (``session_cookie = "s%3A…"``, a
  Terraform ``variable "auth_cookie" { default = … }``, ``Cookie = "sid=…"``: the value after the cookie's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder
from memctl.scrub.labelled_values import password_shaped

__all__ = ["EMBEDDED_SECRET_DETECTORS"]

_LORA_NAME = r"(?i:(?:app|nwk|f_?nwk_?s_?int|s_?nwk_?s_?int|nwk_?s_?enc|nwk_?s|app_?s)_?key)"
_LORA = re.compile(
    r"(?<![A-Za-z])" + _LORA_NAME + r"(?:\[\d*\])?[\"']?[ \t]*(?:[:=]|\b)[ \t]*(?:PROGMEM[ \t]*)?[\"'{]?[ \t]*"
    r"(?P<value>[0-9A-Fa-f]{32}(?![0-9A-Za-z])|0x[0-9A-Fa-f]{2}(?:[ \t]*,[ \t]*0x[0-9A-Fa-f]{2}){15})"
)
_LORA_GATES = ("appkey", "app_key", "nwkkey", "nwk_key", "nwkskey", "nwk_s_key", "nwks_key", "appskey", "app_s_key",
               "apps_key", "sintkey", "s_int_key", "senckey", "s_enc_key")
# IOS-XE ``radius server NAME`` / ``tacacs server NAME`` blocks: the shared secret is an indented ``key`` line
# (an optional encryption type digit first).
_AAA_BLOCK_KEY = re.compile(r"(?:\r?\n|\\n)[ \t]+(?:pac[ \t]+)?key[ \t]+(?:[0-7][ \t]+)?(?P<value>[^\x00\s]{3,128})")
_COMMUNITY = re.compile(r"CommunityData\(\s*(?:communityName\s*=\s*)?[\"'](?P<value>[^\x00\"'\s]{3,128})[\"']")
_KEYCHAIN = re.compile(r"kSecValueData[^\x00\n\"]{0,40}?[\"'](?P<value>[^\x00\"'\n]{3,256})[\"']\s*\.data\(")
_GO_BYTES = re.compile(r"\[\]byte\(\s*\"(?P<value>[^\x00\"\n]{6,256})\"")
_GO_NAME_BEFORE = re.compile(r"(?i)(?:key|secret|token|pass\w*|pwd|salt|hmac\.new\([^\x00()]*)\w*\]?\s*(?::=|=|:|,)?\s*$")
_CDATA = re.compile(
    r"<(?P<tag>[\w:.-]*(?i:pass(?:word|wd)?|secret|token|api_?key|credential|pwd)[\w.-]*)(?:\s[^\x00<>]*)?>\s*<!\[CDATA\["
    r"(?P<value>[^\x00]{0,4096}?)\]\]>\s*</(?P=tag)>",
    re.DOTALL,
)
_HTPASSWD_HASH = re.compile(r"(?m)^[ \t]*[\w.@-]{1,64}:(?P<value>\{S?SHA\}[A-Za-z0-9+/]{20,}={0,2})")
_HTPASSWD_LINE = re.compile(r"[ \t]*[\w.@-]{1,64}:(?P<value>[^\x00\s:]{4,256})[ \t]*(?:\r?\n|\\n|$)")
_SSM_VALUE = re.compile(
    r"\"Type\"\s*:\s*\"SecureString\"[^\x00{}]{0,300}?\"Value\"\s*:\s*\"(?P<value>(?:[^\x00\"\\]|\\.){1,4096})\""
    r"|\"Value\"\s*:\s*\"(?P<before>(?:[^\x00\"\\]|\\.){1,4096})\"[^\x00{}]{0,300}?\"Type\"\s*:\s*\"SecureString\""
)
# The line after a ``--with-decryption … --query/--output`` command line: only its value (a literal first, no scan per line).
_SSM_NEXT_LINE = re.compile(r"[ \t]*\"?(?P<value>[^\x00\s\"]{4,4096})\"?[ \t]*(?:\n|$)")
# Matched in the lowered text (a literal first: a fast scan); the value is read from the text.
_COOKIE_NAME = re.compile(
    r"cookie[\w-]*[\"']?\s*(?:=|:|\{[^\x00{}]{0,200}?\bdefault\s*=)\s*[\"'](?P<value>[^\x00\"'\s]{16,4096})[\"']"
)


def _embedded_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if any(gate in gates for gate in _LORA_GATES):
        for match in _LORA.finditer(text):
            if len(set(match.group("value").lower().replace("0x", "").replace(",", "").replace(" ", ""))) > 2:
                yield match.start("value"), match.end("value"), "secret"  # all zeros, all FF: a placeholder
    if "radius server " in gates or "tacacs server " in gates:
        haystack = lowered if lowered is not None else text.lower()
        for word in ("radius server ", "tacacs server "):
            pos = haystack.find(word)
            while pos != -1:
                for match in _AAA_BLOCK_KEY.finditer(text, pos, min(len(text), pos + 600)):
                    if not is_placeholder(match.group("value")):
                        yield match.start("value"), match.end("value"), "password"
                pos = haystack.find(word, pos + len(word))
    if "communitydata(" in gates:
        for match in _COMMUNITY.finditer(text):
            value = match.group("value")
            if value.lower() not in {"public", "private"} and not is_placeholder(value):
                yield match.start("value"), match.end("value"), "password"
    if "ksecvaluedata" in gates:
        for match in _KEYCHAIN.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
    if "[]byte(" in gates:
        for match in _GO_BYTES.finditer(text):
            named = _GO_NAME_BEFORE.search(text, max(0, match.start() - 60), match.start()) is not None
            if named and not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "secret"
    if "<![cdata[" in gates:
        for match in _CDATA.finditer(text):
            value = match.group("value").strip()
            if value and not is_placeholder(value):
                start = match.start("value") + match.group("value").index(value)
                yield start, start + len(value), "password"
    if "{sha}" in gates or "{ssha}" in gates:
        for match in _HTPASSWD_HASH.finditer(text):
            yield match.start("value"), match.end("value"), "password"
    if ".htpasswd" in gates:
        yield from _htpasswd_file_spans(text, lowered if lowered is not None else text.lower())
    if "chap-secrets" in gates or "pap-secrets" in gates:
        yield from _ppp_secret_spans(text, lowered if lowered is not None else text.lower())
    if "securestring" in gates:
        for match in _SSM_VALUE.finditer(text):
            group = "value" if match.group("value") is not None else "before"
            if not is_placeholder(match.group(group)):
                yield match.start(group), match.end(group), "secret"
    if "--with-decryption" in gates:
        haystack = lowered if lowered is not None else text.lower()
        pos = haystack.find("--with-decryption")
        while pos != -1:
            line_end = haystack.find("\n", pos)
            if line_end == -1:
                break
            line_start = haystack.rfind("\n", 0, pos) + 1
            if "--query" in haystack[line_start:line_end] or "--output" in haystack[line_start:line_end]:
                match = _SSM_NEXT_LINE.match(text, line_end + 1)
                if match is not None and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "secret"
            pos = haystack.find("--with-decryption", line_end)  # once per line: linear on a line of many commands
    if "cookie" in gates:
        for match in _COOKIE_NAME.finditer(lowered if lowered is not None else text):
            value = text[match.start("value") : match.end("value")]
            if value.endswith(("...", "…")):
                continue  # an elided documentation value ("xoxd-abcdef1234567890...")
            if "=" in value[:40] and not value.startswith("="):
                value_start = match.start("value") + value.index("=") + 1
                if credential_shaped(text[value_start : match.end("value")], min_len=16):
                    yield value_start, match.end("value"), "cookie"  # Cookie = "session=…": the name stays
            elif credential_shaped(value, min_len=16) or password_shaped(value) and "%" in value:
                yield match.start("value"), match.end("value"), "cookie"


# pppd ``chap-secrets``/``pap-secrets`` rows (pppd(8) "AUTHENTICATION"): client, server, secret, addresses; quotes optional.
_PPP_ROW = re.compile(
    r"(?m)^[ \t]*(?!#)(?:\"[^\x00\"\n]{1,64}\"|[^\x00\s\"#]{1,64})[ \t]+(?:\"[^\x00\"\n]{1,64}\"|[^\x00\s\"]{1,64})[ \t]+"
    r"(?:\"(?P<quoted>[^\x00\"\n]{1,128})\"|(?P<bare>[^\x00\s\"]{1,128}))(?=[ \t]|$)"
)


def _ppp_secret_spans(text: str, lowered: str) -> Iterator[Span]:
    """Secret columns of the 40 lines after a mention of ``chap-secrets``/``pap-secrets``."""
    for name in ("chap-secrets", "pap-secrets"):
        pos = lowered.find(name)
        while pos != -1:
            line = text.find("\n", pos)
            if line == -1:
                break
            end = line + 1
            for _ in range(40):
                next_end = text.find("\n", end)
                next_end = len(text) if next_end == -1 else next_end
                match = _PPP_ROW.match(text, end, next_end)
                if match is not None:
                    group = "quoted" if match.group("quoted") is not None else "bare"
                    value = match.group(group)
                    if value != "*" and not is_placeholder(value):
                        yield match.start(group), match.end(group), "password"
                if next_end >= len(text) or text.startswith("\n\n", next_end - 1) or "\x00" in text[end:next_end]:
                    break
                end = next_end + 1
            pos = lowered.find(name, pos + len(name))


def _htpasswd_file_spans(text: str, lowered: str) -> Iterator[Span]:
    """``user:password`` lines in the 40 lines after a mention of a ``.htpasswd`` file."""
    pos = lowered.find(".htpasswd")
    while pos != -1:
        line = text.find("\n", pos)
        escaped = text.find("\\n", pos)
        starts = [at for at in (line + 1 if line != -1 else -1, escaped + 2 if escaped != -1 else -1) if at > 0]
        if not starts:
            return
        at = min(starts)
        for _ in range(40):
            match = _HTPASSWD_LINE.match(text, at)
            if match is None:
                break
            value = match.group("value")
            if not is_placeholder(value):
                yield match.start("value"), match.end("value"), "password"
            at = match.end()
        pos = lowered.find(".htpasswd", pos + 9)


_LITERALS = (*_LORA_GATES, "radius server ", "tacacs server ", "communitydata(", "ksecvaluedata", "[]byte(", "<![cdata[", "{sha}", "{ssha}", ".htpasswd", "chap-secrets", "pap-secrets",
             "securestring", "--with-decryption", "cookie")

EMBEDDED_SECRET_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_embedded_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: LoRaWAN TS001 keys, pysnmp, Apple Keychain, Go byte slices, XML CDATA, htpasswd, AWS SSM, IaC cookies",
    ),
)
"""One finder for the formats in the module docstring."""
