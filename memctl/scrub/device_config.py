"""Credentials in network-device configurations (Cisco IOS/NX-OS/ASA, Juniper Junos).

Forms, from the vendors' command references:

* Cisco ``enable secret [level N] [0|5|8|9] X``, ``enable password [7] X``,
  ``username U [privilege N] {password|secret} [0|5|7|8|9] X``, a ``line`` block's
  ``password [0|7] X``, ``snmp-server community X``, ``snmp-server user U G v3 auth sha X priv aes 128 Y``,
  ``tacacs-server``/``radius-server [host H] key [0|7] X``, ``crypto isakmp key X address``,
  ``pre-shared-key [ascii|hex|local|remote] [0|6] X``, ``key-string [0|7] X``,
  ``ip ospf message-digest-key N md5 [7] X``, ``ip ospf authentication-key [7] X``,
  ``neighbor A password [0|7] X`` (BGP), ``wpa-psk ascii [0|8] X``. Type 7 is reversible
  (a published cipher), types 5/8/9 are password hashes: all are replaced;
* Junos ``$9$…`` strings wherever they appear (reversible, Junos "encrypted" secrets:
  ``authentication-key``, ``secret``, ``pre-shared-key ascii-text``) and ``encrypted-password``.

A command whose words also occur in prose (``enable``, ``username``, ``snmp-server``, server
keys, ``neighbor``, ``password``) is read only where a configuration line starts (indentation, a CLI
prompt, a diff marker, a quote or an escaped newline before it), so prose about the commands stays;
it is found from the hits of pass/secret/key, so a text without them pays no scan. Only the
value is replaced, kind ``password``; the command stays readable. SNMP's default communities
``public``/``private`` and templates (``<community>``, ``{var}``) stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder
from memctl.scrub.gates import positions

__all__ = ["DEVICE_CONFIG_DETECTORS"]

_TYPE = r"(?:[ \t]+[0-9])?"
_V = r"[ \t]+[\"']?(?P<value>[^\s\"'\x00]{2,128})"
# Commands that start a configuration line, found from the hits of pass/secret/key (words every
# rule shares, found once per text) and of "snmp-server".
_LINE_COMMAND = re.compile(
    r"(?:enable[ \t]+(?:secret|password)(?:[ \t]+level[ \t]+\d+)?"
    r"|username[ \t]+[^\s\x00]+(?:[ \t]+(?:privilege[ \t]+\d+|role[ \t]+[^\s\x00]+|view[ \t]+[^\s\x00]+))*[ \t]+(?:password|secret)"
    r"|neighbor[ \t]+[^\s\x00]+[ \t]+password"
    r"|password(?=[ \t]+[0-9][ \t])"
    r"|(?:tacacs|radius)-server(?:[ \t]+host[ \t]+[^\s\x00]+)?[ \t]+key"
    r"|crypto[ \t]+isakmp[ \t]+key(?=[ \t]+(?:[0-9][ \t]+)?[^\s\x00]+[ \t]+(?:address|hostname))"
    r"|snmp-server[ \t]+community"
    r"|snmp-server[ \t]+user[ \t]+[^\s\x00]+[ \t]+[^\s\x00]+[ \t]+v3(?:[ \t]+encrypted)?[ \t]+auth[ \t]+[\w-]+)"
    + _TYPE + _V
)
_SNMP_PRIV = re.compile(r"[ \t]priv[ \t]+(?:aes|des|3des)(?:[ \t]+\d+)?" + _V)
# Commands whose names are specific enough to be read anywhere (all hold a "-": see memctl.scrub.gates).
_ANYWHERE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pre-shared-key", re.compile(r"pre-shared-key(?:[ \t]+(?:ascii|hex|local|remote|ascii-text))?" + _TYPE + _V)),
    ("key-string", re.compile(r"key-string" + _TYPE + _V)),
    ("message-digest-key", re.compile(r"message-digest-key[ \t]+\d+[ \t]+md5" + _TYPE + _V)),
    ("authentication-key", re.compile(r"authentication-key(?:[ \t]+\d+)?(?:[ \t]+(?:md5|sha1|sha256|cmac-aes|hmac-sha[\w-]*))?" + _TYPE + _V)),
    ("wpa-psk", re.compile(r"wpa-psk[ \t]+(?:ascii|hex)" + _TYPE + _V)),
)
_JUNOS = re.compile(r"\$9\$[^\s\"';\x00]{4,}")
# What may precede a configuration command on its line: indentation, a CLI prompt
# (``router(config)#``, ``switch>``), a diff marker or an opening quote.
_LINE_HEAD = re.compile(r"[ \t]*(?:[\w().@-]*[#>][ \t]*|[+-][ \t]*|[\"'`][ \t]*)?")


_CRYPT_HASH = re.compile(r"\$\d{1,2}\$[^\s$]+")


def _secret_value(value: str, command: str) -> bool:
    """Not a placeholder or template (``<community>``, ``{var}``, ``%s``), nor SNMP's factory
    default communities ``public``/``private`` (documented defaults, not a secret of this site)."""
    if _CRYPT_HASH.match(value):
        return True  # $1$salt$hash, $9$…: "$1" reads as a shell variable to is_placeholder
    if is_placeholder(value) or value[0] in "{%":
        return False
    return not (command.startswith("snmp-server") and value.lower() in {"public", "private"})


def _command_start(text: str, pos: int) -> int:
    """Where the command of the line holding ``pos`` starts (after a newline, an escaped
    ``\\n`` in a JSON string, indentation and a prompt)."""
    escaped = text.rfind("\\n", max(0, pos - 200), pos)
    line_start = max(text.rfind("\n", 0, pos) + 1, escaped + 2 if escaped != -1 else 0, pos - 200)
    head = _LINE_HEAD.match(text, line_start, pos)
    return line_start if head is None else head.end()


def _device_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    haystack = lowered if lowered is not None else text.lower()
    tried: set[int] = set()
    for word in ("pass", "secret", "key", "snmp-server"):
        if word not in gates:
            continue
        for pos in positions(haystack, word):
            start = _command_start(text, pos)
            if start in tried or start > pos:
                continue
            tried.add(start)
            match = _LINE_COMMAND.match(text, start)
            if match is None or match.start("value") <= pos:
                continue
            if _secret_value(match.group("value"), match.group(0)):
                yield match.start("value"), match.end("value"), "password"
            if word == "snmp-server":
                priv = _SNMP_PRIV.search(text, match.end(), match.end() + 120)
                if priv is not None and text.find("\n", match.end(), priv.start()) == -1:
                    yield priv.start("value"), priv.end("value"), "password"
    for literal, pattern in _ANYWHERE:
        if literal in gates:
            start = haystack.find(literal)
            while start != -1:
                match = pattern.match(text, start)
                if match is not None and _secret_value(match.group("value"), match.group(0)):
                    yield match.start("value"), match.end("value"), "password"
                start = haystack.find(literal, start + 1)
    if "$9$" in gates:
        for match in _JUNOS.finditer(text):
            yield match.start(), match.end(), "password"


_LITERALS = ("pass", "secret", "key", "snmp-server", *(literal for literal, _ in _ANYWHERE), "$9$")

DEVICE_CONFIG_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_device_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="Cisco IOS/NX-OS/ASA and Juniper Junos command references",
    ),
)
"""One finder for the device-configuration forms in the module docstring."""
