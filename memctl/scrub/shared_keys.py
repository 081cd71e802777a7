"""Shared secrets typed into devices: Wi-Fi keys and two-factor (TOTP/HOTP) seeds, and
user:password pairs given in prose.

Wi-Fi (kind ``password``):

* NetworkManager: ``nmcli … wifi-sec.psk X`` / ``802-11-wireless-security.psk X`` (also
  ``wifi-sec.wep-key0``, ``wifi-sec.leap-password``), and ``nmcli -s connection show``'s
  ``802-11-wireless-security.psk:   X`` rows (nmcli(1), nm-settings-nmcli(5));
* Wi-Fi QR codes: ``WIFI:T:WPA;S:ssid;P:password;;`` (the ZXing "WIFI:" format; ``\\;`` escapes);
* ``psk=``/``psk:`` lines (NetworkManager keyfiles' ``[wifi-security]``, wpa_supplicant, netplan
  ``password:`` is the key-name rules'), Windows WLAN profiles' ``<keyMaterial>``, Android's
  ``preSharedKey = "…"``;
* commands that take the passphrase as an argument: ``wpa_passphrase SSID PASS``,
  ``iwctl … --passphrase PASS``, macOS ``networksetup -setairportnetwork IF SSID PASS``.

Two-factor seeds (kind ``otp_seed``): ``otpauth://totp|hotp/…?secret=BASE32`` (Google
Authenticator's Key Uri Format), ``otpauth-migration://offline?data=…`` (its export QR payload:
every seed of the app, base64 protobuf), ``oathtool --totp -b SEED`` / ``oathtool … SEED``, and a
base32 seed of 16+ characters after a TOTP/2FA/MFA/OTP word and ``:``/``=``/``is``.

User:password in prose (kind ``password``): ``creds are jenkins:X``, ``login: admin:X``,
``log in as deploy:X``, ``user/pass is admin/X``: after a credentials word
(creds, credentials, login, log in, sign in, user/pass, username/password), after at most five
plain words (letters, spaces, ``:`` and ``,`` only: no version, path, URL or assignment between),
a ``user:password`` or ``user/password`` pair whose password holds a digit or a symbol
(``Google / GitHub`` names two providers) and is not a port (``host:8080``), version or path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["SHARED_KEY_DETECTORS"]

_NMCLI_KEYS = ("wifi-sec.psk", "802-11-wireless-security.psk", "wifi-sec.wep-key0", "wifi-sec.leap-password",
               "802-11-wireless-security.leap-password", "802-11-wireless-security.wep-key0")
_NMCLI_VALUE = re.compile(r"""(?:[ \t]*:[ \t]*|[ \t]+)(?:'(?P<sq>[^'\n\x00]+)'|"(?P<dq>[^"\n\x00]+)"|(?P<bare>[^\s'"\x00]+))""")
_WIFI_QR = re.compile(r"WIFI:(?:[^\n\x00]{0,200}?;)?P:(?P<value>(?:\\.|[^;\\\n\x00])+);", re.IGNORECASE)
_VALUE = r"""(?:'(?P<sq>[^'\n\x00]+)'|"(?P<dq>[^"\n\x00]+)"|(?P<bare>[^\s'"\x00]+))"""
_PSK_LINE = re.compile(r"(?:^|(?<=[\n\s;{]))[ \t]*(?:[A-Za-z]+[._-])?(?:psk|pre_?shared_?key|preSharedKey)[ \t]*[=:][ \t]*(?:\"\\\")?" + _VALUE,
                       re.IGNORECASE)
_KEY_MATERIAL = re.compile(r"<keyMaterial>(?P<bare>[^<\n\x00]+)</keyMaterial>", re.IGNORECASE)
_WIFI_COMMANDS = (
    ("wpa_passphrase", re.compile(r"wpa_passphrase[ \t]+(?:'[^'\n\x00]*'|\"[^\"\n\x00]*\"|[^\s'\"\x00|<>]+)[ \t]+" + _VALUE)),
    ("--passphrase", re.compile(r"--passphrase[ \t=]+" + _VALUE)),
    ("-setairportnetwork", re.compile(r"-setairportnetwork[ \t]+[^\s\x00]+[ \t]+(?:'[^'\n\x00]*'|\"[^\"\n\x00]*\"|[^\s'\"\x00]+)[ \t]+" + _VALUE)),
)
_OTP_URI = re.compile(r"otpauth://(?:totp|hotp)/[^\s\x00\"'<>]*?[?&]secret=(?P<value>[A-Za-z2-7=%]{8,})", re.IGNORECASE)
_OTP_MIGRATION = re.compile(r"otpauth-migration://offline\?data=(?P<value>[A-Za-z0-9+/=%_-]{16,})", re.IGNORECASE)
_OATHTOOL = re.compile(r"oathtool(?:[ \t]+-[\w-]+(?:=[^\s\x00]+)?)*[ \t]+(?P<q>[\"']?)(?P<value>[A-Za-z2-7=]{16,}|[0-9a-fA-F]{20,})(?P=q)(?![\w])")
_SEED_WORDS = ("totp", "2fa", "mfa", "otp", "authenticator")
_SEED_AFTER = re.compile(
    r"[\w -]{0,30}?(?:seed|secret|key|code)?[ \t]*(?:[:=]|is)[ \t]*[\"'`]?(?P<value>[A-Z2-7]{16,}={0,6}|(?:[A-Z2-7]{4}[ \t]){3,}[A-Z2-7]{4})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_CRED_WORDS = ("creds", "credentials", "login", "log in", "sign in", "user/pass", "username/password", "user / pass")
# After the word: at most five plain words (letters only) with spaces, ":" or ",", then the pair.
# No digit, dot, slash, "=" or quote may come between: a version, path, URL or assignment is not prose.
_PAIR = re.compile(
    r"(?:[ \t:,]*(?:[A-Za-z]+[ \t:,]+){0,5}?)(?P<user>[A-Za-z][\w-]{1,31})(?P<sep>:|/|[ \t]/[ \t])"
    r"(?P<value>[^\s\x00\"'`,;:/@()\[\]<>{}=]{4,64})(?=[\s\x00\"'`,;)]|[.!?](?:\s|$)|$)"
)


def _password_shaped(value: str) -> bool:
    if is_placeholder(value) or value.isdigit():
        return False
    has_digit = any(c.isdigit() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (has_digit and any(c.isalpha() for c in value)) or mixed or any(not c.isalnum() and c not in "-_." for c in value)


def _wifi_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for key in _NMCLI_KEYS:
        if key not in gates:
            continue
        pos = lowered.find(key)
        while pos != -1:
            match = _NMCLI_VALUE.match(text, pos + len(key))
            if match is not None:
                group = next(g for g in ("sq", "dq", "bare") if match.group(g) is not None)
                if not is_placeholder(match.group(group)) and match.group(group) not in {"--", "yes", "no"}:
                    yield match.start(group), match.end(group), "password"
            pos = lowered.find(key, pos + len(key))
    matches = []
    if "psk" in gates or "pre_shared" in gates or "preshared" in gates:
        matches += [m for m in _PSK_LINE.finditer(text)]
    if "<keymaterial>" in gates:
        matches += [m for m in _KEY_MATERIAL.finditer(text)]
    for literal, pattern in _WIFI_COMMANDS:
        if literal in gates:
            matches += [m for m in pattern.finditer(text)]
    for match in matches:
        group = next(g for g in ("sq", "dq", "bare") if g in match.re.groupindex and match.group(g) is not None)
        value = match.group(group).strip("\\\"")
        if len(value) >= 8 and value == value.strip() and not is_placeholder(value) and not value.startswith(("$", "<")):
            # (a value led or ended by a space is code around it: "\"" + psk + "\"")
            start = match.start(group) + match.group(group).index(value)
            yield start, start + len(value), "password"
    if "wifi:" in gates:
        for match in _WIFI_QR.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"


def _otp_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    if "otpauth" in gates:
        for pattern in (_OTP_URI, _OTP_MIGRATION):
            for match in pattern.finditer(text):
                value = match.group("value").split("%3D", 1)[0].rstrip("=")
                if not is_placeholder(value) and not set(value.upper()) <= set("X="):
                    yield match.start("value"), match.start("value") + len(value), "otp_seed"
    if "oathtool" in gates:
        for match in _OATHTOOL.finditer(text):
            yield match.start("value"), match.end("value"), "otp_seed"
    for word in _SEED_WORDS:
        if word not in gates:
            continue
        pos = lowered.find(word)
        while pos != -1:
            match = _SEED_AFTER.match(text, pos + len(word))
            if match is not None and (pos == 0 or not lowered[pos - 1].isalpha()):
                value = match.group("value")
                if any(c.isdigit() for c in value) or len(set(value)) >= 8:
                    yield match.start("value"), match.end("value"), "otp_seed"
            pos = lowered.find(word, pos + len(word))


def _prose_pair_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for word in _CRED_WORDS:
        if word not in gates:
            continue
        pos = lowered.find(word)
        while pos != -1:
            if pos == 0 or not lowered[pos - 1].isalpha():
                line_end = lowered.find("\n", pos)
                end = min(len(text), pos + 120) if line_end == -1 else min(line_end, pos + 120)
                match = _PAIR.match(text, pos + len(word), end)
                if match is not None:
                    value = match.group("value").rstrip(".!?")
                    user = match.group("user").lower()
                    plain = user not in {"http", "https", "ssh", "ftp", "localhost", "host", "port"} and not value.isdigit()
                    # a non-letter too: "log in with Google / GitHub" names two providers
                    if plain and value.count(".") < 2 and not value.isalpha() and _password_shaped(value):
                        yield match.start("value"), match.start("value") + len(value), "password"
            pos = lowered.find(word, pos + len(word))


def _shared_key_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _wifi_spans(text, lowered, gates)
    yield from _otp_spans(text, lowered, gates)
    yield from _prose_pair_spans(text, lowered, gates)


_LITERALS = tuple(sorted({*_NMCLI_KEYS, "wifi:", "psk", "pre_shared", "preshared", "<keymaterial>",
                          *(literal for literal, _ in _WIFI_COMMANDS), "otpauth", "oathtool", *_SEED_WORDS, *_CRED_WORDS}))

SHARED_KEY_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_shared_key_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: Wi-Fi keys, two-factor seeds, user:password in prose (see memctl.scrub.shared_keys)",
    ),
)
"""One finder for the forms in the module docstring."""
