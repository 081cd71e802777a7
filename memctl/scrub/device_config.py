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
keys, ``neighbor``) is read only where a configuration line starts (indentation, a CLI prompt, a diff
marker, a quote or an escaped newline before it), so prose about the commands stays. Only the
value is replaced, kind ``password``; the command stays readable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["DEVICE_CONFIG_DETECTORS"]

_TYPE = r"(?:[ \t]+[0-9])?"
_V = r"[ \t]+[\"']?(?P<value>[^\s\"'\x00]{2,128})"
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("enable secret", re.compile(r"enable[ \t]+secret(?:[ \t]+level[ \t]+\d+)?" + _TYPE + _V)),
    ("enable password", re.compile(r"enable[ \t]+password(?:[ \t]+level[ \t]+\d+)?" + _TYPE + _V)),
    ("username", re.compile(r"username[ \t]+[^\s\x00]+(?:[ \t]+(?:privilege[ \t]+\d+|role[ \t]+[^\s\x00]+|view[ \t]+[^\s\x00]+|nopassword))*"
                            r"[ \t]+(?:password|secret)" + _TYPE + _V)),
    ("snmp-server", re.compile(r"snmp-server[ \t]+community" + _V)),
    ("snmp-server", re.compile(r"snmp-server[ \t]+user[ \t]+[^\s\x00]+[ \t]+[^\s\x00]+[ \t]+v3(?:[ \t]+encrypted)?[ \t]+auth[ \t]+[\w-]+" + _V)),
    (" priv ", re.compile(r"[ \t]priv[ \t]+(?:aes|des|3des)(?:[ \t]+\d+)?" + _V)),
    ("tacacs-server", re.compile(r"tacacs-server(?:[ \t]+host[ \t]+[^\s\x00]+)?[ \t]+key" + _TYPE + _V)),
    ("radius-server", re.compile(r"radius-server(?:[ \t]+host[ \t]+[^\s\x00]+)?[ \t]+key" + _TYPE + _V)),
    ("crypto isakmp key", re.compile(r"crypto[ \t]+isakmp[ \t]+key" + _TYPE + _V + r"[ \t]+(?:address|hostname)")),
    ("pre-shared-key", re.compile(r"pre-shared-key(?:[ \t]+(?:ascii|hex|local|remote|ascii-text))?" + _TYPE + _V)),
    ("key-string", re.compile(r"key-string" + _TYPE + _V)),
    ("message-digest-key", re.compile(r"message-digest-key[ \t]+\d+[ \t]+md5" + _TYPE + _V)),
    ("authentication-key", re.compile(r"authentication-key" + _TYPE + _V)),
    ("neighbor", re.compile(r"neighbor[ \t]+[^\s\x00]+[ \t]+password" + _TYPE + _V)),
    ("wpa-psk", re.compile(r"wpa-psk[ \t]+(?:ascii|hex)" + _TYPE + _V)),
)
# A line block's bare ``password 7 X`` (line vty/con): the type digit makes it a device config.
_LINE_PASSWORD = re.compile(r"(?m)^[ \t]*password[ \t]+[0-9][ \t]+(?P<value>[^\s\x00]{2,128})")
_JUNOS = re.compile(r"\$9\$[^\s\"';\x00]{4,}")
# Commands whose words also occur in prose about them: read only at the start of a line.
_AT_LINE_START = frozenset({"enable secret", "enable password", "username", "snmp-server", "tacacs-server",
                            "radius-server", "neighbor", "crypto isakmp key"})
# What may precede a configuration command on its line: indentation, a CLI prompt
# (``router(config)#``, ``switch>``), a diff marker, an opening quote or an escaped newline.
_LINE_HEAD = re.compile(r"(?:[ \t]*(?:[\w().@-]*[#>][ \t]*|[+-][ \t]*|[\"'`][ \t]*|.*\\n[ \t]*)?)?")


def _at_line_start(text: str, pos: int) -> bool:
    """True when ``pos`` starts a configuration command (see :data:`_LINE_HEAD`)."""
    line_start = max(text.rfind("\n", 0, pos) + 1, pos - 200)
    return _LINE_HEAD.fullmatch(text, line_start, pos) is not None


def _device_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    haystack = lowered if lowered is not None else text
    for literal, pattern in _RULES:
        if literal not in gates:
            continue
        start = haystack.find(literal)
        while start != -1:
            match = pattern.match(text, start)
            if match is not None and not is_placeholder(match.group("value")) and (
                literal not in _AT_LINE_START or _at_line_start(text, start)
            ):
                yield match.start("value"), match.end("value"), "password"
            start = haystack.find(literal, start + 1)
    if "password 7 " in gates or "password 0 " in gates:
        for match in _LINE_PASSWORD.finditer(text):
            yield match.start("value"), match.end("value"), "password"
    if "$9$" in gates:
        for match in _JUNOS.finditer(text):
            yield match.start(), match.end(), "password"


_LITERALS = tuple(sorted({literal for literal, _ in _RULES} | {"password 7 ", "password 0 ", "$9$"}))

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
