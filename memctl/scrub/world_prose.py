"""Passwords said in prose the statement rules do not parse: other languages, labels, misspelt keys.

:mod:`memctl.scrub.statements` reads ``<word> <verb> <value>`` with the verbs of a dozen
languages. Word order differs elsewhere ("<value> היא הסיסמה", "सर्वर का पासवर्ड <value> है",
"<value> adalah kata sandi wifi"), so this module reads a window instead: on the line around a
password word of one of these languages, every password-shaped token (:func:`password_shaped`)
is the value. The words are rare outside such sentences, so the window costs nothing on a
typical session (every word is a gate literal, found by the one scan of
:mod:`memctl.scrub.gates`).

* password words of Italian, Arabic, Hebrew, Hindi, Turkish, Vietnamese, Indonesian, Swahili,
  Greek, Czech, Swedish, Finnish, Thai and Persian (:data:`WORLD_PASSWORD_WORDS`; the languages'
  Wikipedia articles and the Wi-Fi settings strings of Android/Windows in those locales), and
  router labels (German ``WLAN-Netzwerkschlüssel``, ``WLAN-Schlüssel``, ``Netzwerkschlüssel``,
  ``WPA-Schlüssel``; French ``Clé WPA``, ``clé de sécurité``), whose value is the rest of the line;
* misspelt keys (``passwrod: X``, ``pasword = X``, ``paswd: X``);
* a key emoji before or after a value (``🔑 X ← wifi``);
* a passphrase of three or more dictionary words joined by hyphens after a password word and a
  verb (``the passphrase is amber-kettle-violin-dusk``): the statement rules want a digit or a
  symbol in a bare value;
* IRC ``/msg NickServ IDENTIFY [account] X`` (Anope/Atheme services' syntax);
* a recovery or backup key said in prose (``your recovery key is 4F7K-Q9ZP-2M8X-W3RT``).

Only the value is replaced (kind ``password``). Placeholders stay
(:func:`~memctl.scrub.detector.is_placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["WORLD_PROSE_DETECTORS", "WORLD_PASSWORD_WORDS", "password_shaped"]

WORLD_PASSWORD_WORDS = (
    # Italian (the English word with Italian grammar around it)
    "password di", "password del", "password della", "password dell", "la password", "la tua password",
    # Arabic, Hebrew, Persian
    "كلمة المرور", "كلمة مرور", "كلمة السر", "كلمه المرور", "رمز المرور", "סיסמה", "סיסמא", "הסיסמה", "رمز عبور", "رمز وای",
    "گذرواژه", "كلمة_المرور",
    # Hindi, Thai
    "पासवर्ड", "कूटशब्द", "รหัสผ่าน",
    # Turkish, Vietnamese, Indonesian/Malay, Swahili
    "şifre", "şifresi", "sifresi", "parolası", "parolasi", "mật khẩu", "mat khau", "kata sandi", "kata laluan",
    "nenosiri", "neno la siri", "parola",
    # Greek, Czech/Slovak, Swedish, Finnish
    "κωδικός", "κωδικό", "κωδικού", "συνθηματικό", "heslo", "hesla", "heslem", "lösenord", "losenord", "salasana",
)
_LABELS = ("wlan-netzwerkschlüssel", "netzwerkschlüssel", "wlan-schlüssel", "wpa-schlüssel", "wlan-passwort",
           "clé wpa", "clé de sécurité", "wi-fi key", "wifi key", "wpa key", "wpa2 key")
_MISSPELT = ("passwrod", "pasword", "paswd", "passwrd", "psswd", "pssword", "passowrd", "passwod", "paasword",
             "passsword", "pasword")
_EMOJI = ("🔑", "🔐", "🗝")
_PASSPHRASE_WORDS = ("passphrase", "pass phrase", "password", "passwort", "wachtwoord", "contraseña", "senha", "mot de passe")
_NICKSERV = ("nickserv",)
_RECOVERY = ("recovery key", "recovery code", "backup key", "backup code", "rescue code", "recovery phrase")

# "Zq9-Lampo!77 is the wifi password": the value first, then "is the", up to three words, the word.
_VALUE_FIRST_WORDS = ("password", "passphrase", "passcode", "pass phrase", "wifi key", "wi-fi key")
_VALUE_FIRST = re.compile(
    r"(?:^|(?<=[\s\"'`(]))(?P<value>[^\s\"'`()\x00]{6,80})[\"'`]?[ \t]+(?i:is|was|will[ \t]+be)[ \t]+"
    r"(?i:the|our|my|your|his|her|their|its)[ \t]+(?:[\w-]{1,24}[ \t]+){0,3}$"
)
_TOKEN = re.compile(r"[\"'`«“„]?(?P<value>[^\s\"'`«»“”„,;()\[\]{}<>\x00]{6,80})")
_PAIR = re.compile(r"[A-Za-z_][\w.-]*[=:]")
_SYMBOLS = frozenset("!#$%&*?@^~+=|/\\:.-_")
_EMAIL = re.compile(r"[^@\s]+@[\w-]+(?:\.[\w-]+)+")
_FILE_OR_HOST = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[a-z]{1,5}")  # config2.yaml, db01.example.com
_NUMERIC = re.compile(r"[\d.,:/+-]+")
_LABEL_VALUE = re.compile(r"[ \t]*(?:\([^)\n]{0,30}\))?[ \t]*[:=：][ \t]*(?P<value>[^\n\x00]{4,80}?)[ \t]*(?:$|\n)", re.M)
_MISSPELT_VALUE = re.compile(r"[\"']?[ \t]*[:=][ \t]*[\"']?(?P<value>[^\s\"'\x00,;]{3,80})")
_PASSPHRASE = re.compile(
    r"(?:[ \t]+(?:is|was|to|ist|lautet|es|est|é|è)(?:[ \t]+now)?[ \t]*:?|[ \t]*[:=])[ \t]*[\"'`]?"
    r"(?P<value>[a-z]{3,12}(?:[-.][a-z]{3,12}){2,9})(?![\w-])",
    re.IGNORECASE,
)
_NICKSERV_LINE = re.compile(
    r"(?i:(?:/msg|/quote|/query|privmsg|/ns)[ \t]+(?:nickserv[ \t]+)?:?identify)[ \t]+(?:(?P<account>[^\s\x00]+)[ \t]+)?"
    r"(?P<value>[^\s\x00]{3,80})"
)
_RECOVERY_VALUE = re.compile(
    r"s?(?:[ \t]+(?:is|was|are|:)|[ \t]*[:=])[ \t]*:?[ \t]*[\"'`]?"
    r"(?P<value>[A-Za-z0-9]{3,8}(?:[- ][A-Za-z0-9]{3,8}){2,11}|[A-Za-z0-9]{12,64})(?![\w-])"
)


def password_shaped(value: str) -> bool:
    """True when ``value`` (one whitespace-free token) looks like a password a person typed or a tool
    generated: 6+ characters with a letter and a digit, or a letter and a symbol, or random-looking
    mixed case; not a URL, path, file or host name, e-mail address, number, version or date. Shared by the window
    rules of this module and :mod:`memctl.scrub.printed_files`."""
    value = value.rstrip(".,!?:;")
    if len(value) < 6 or "://" in value or value.startswith(("/", "./", "~/", "http", "www.", "[REDACTED:")):
        return False
    if is_placeholder(value) or _EMAIL.fullmatch(value) or _NUMERIC.fullmatch(value) or _FILE_OR_HOST.fullmatch(value):
        return False
    letters = sum(c.isalpha() for c in value)
    if letters == 0:
        return False
    digits = any(c.isdigit() for c in value)
    symbols = any(c in _SYMBOLS or (not c.isalnum() and not c.isspace()) for c in value)
    if digits and symbols:
        return True
    if symbols and not digits:
        # words joined by hyphens or dots are names (wifi-lösenordet, example.com); a password mixes case too
        return any(c.isupper() for c in value[1:]) and any(c.islower() for c in value) and any(c in "!#$%&*?@^~+=" for c in value)
    if digits:
        return letters >= 2 and not value.isdigit() and not re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]{0,3}", value)
    upper = sum(c.isupper() for c in value[1:])
    return upper >= 2 and any(c.islower() for c in value) and len(value) >= 8


def _line_bounds(text: str, pos: int, reach: int = 120) -> tuple[int, int]:
    start = text.rfind("\n", max(0, pos - reach), pos) + 1 or max(0, pos - reach)
    if start == 0 and pos > reach:
        start = pos - reach
    end = text.find("\n", pos, pos + reach)
    return start, (end if end != -1 else min(len(text), pos + reach))


def _window_spans(text: str, lowered: str, word: str) -> Iterator[Span]:
    """Password-shaped tokens on the line around each hit of ``word`` (other than the word itself)."""
    pos = lowered.find(word)
    while pos != -1:
        start, end = _line_bounds(text, pos)
        for match in _TOKEN.finditer(text, start, end):
            value = match.group("value").rstrip(".,:;")
            vstart = match.start("value")
            if vstart <= pos < vstart + len(value) or word in value.lower() or _PAIR.match(value):
                continue  # the word itself, or a key=value pair (other rules read those)
            if password_shaped(value):
                yield vstart, vstart + len(value), "password"
        pos = lowered.find(word, max(end, pos + len(word)))


def _after_spans(text: str, lowered: str, word: str, pattern: re.Pattern[str], *, check: bool = True) -> Iterator[Span]:
    pos = lowered.find(word)
    while pos != -1:
        match = pattern.match(text, pos + len(word))
        if match is not None:
            value = match.group("value").rstrip(".,;")
            if not is_placeholder(value) and (not check or len(value) >= 4):
                yield match.start("value"), match.start("value") + len(value), "password"
        pos = lowered.find(word, pos + len(word))


def _value_first_spans(text: str, lowered: str) -> Iterator[Span]:
    """``X is the wifi password``: a password-shaped token before ``is the … password``."""
    for word in _VALUE_FIRST_WORDS:
        pos = lowered.find(word)
        while pos != -1:
            before = lowered[max(0, pos - 40) : pos]
            match = (_VALUE_FIRST.search(text, max(0, pos - 120), pos)
                     if any(verb in before for verb in (" is ", " was ", " be "))
                     and any(det in before for det in (" the ", " our ", " my ", " your ", " his ", " her ", " their ", " its "))
                     else None)
            if match is not None and password_shaped(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
            pos = lowered.find(word, pos + len(word))


def _world_prose_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if " is the " in gates or " was the " in gates:
        yield from _value_first_spans(text, lowered)
    for word in (*WORLD_PASSWORD_WORDS, *_EMOJI):
        if word in gates:
            yield from _window_spans(text, lowered, word)
    for words, pattern in ((_LABELS, _LABEL_VALUE), (_PASSPHRASE_WORDS, _PASSPHRASE), (_MISSPELT, _MISSPELT_VALUE)):
        for word in words:
            if word in gates:
                for start, end, kind in _after_spans(text, lowered, word, pattern):
                    if pattern is not _MISSPELT_VALUE or password_shaped(text[start:end]) or end - start >= 8:
                        yield start, end, kind
    if "nickserv" in gates or "identify" in gates:
        for word in ("/msg", "privmsg", "/ns", "/quote"):
            pos = lowered.find(word)
            while pos != -1:
                match = _NICKSERV_LINE.match(text, pos)
                if match is not None and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "password"
                pos = lowered.find(word, pos + len(word))
    for word in _RECOVERY:
        if word in gates:
            pos = lowered.find(word)
            while pos != -1:
                match = _RECOVERY_VALUE.match(text, pos + len(word))
                if match is not None and any(c.isdigit() for c in match.group("value")) and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "password"
                pos = lowered.find(word, pos + len(word))


_LITERALS = tuple(sorted({*WORLD_PASSWORD_WORDS, " is the ", " was the ", *_LABELS, *_MISSPELT, *_EMOJI, *_PASSPHRASE_WORDS, "nickserv",
                          *_RECOVERY}))

WORLD_PROSE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_world_prose_spans,
        literals=_LITERALS,
        requires=tuple(literal for literal in _LITERALS if literal not in (" is the ", " was the ")),
        origin="memctl: password prose in other languages, router labels, misspelt keys, NickServ, recovery keys",
    ),
)
"""One finder for the kinds in the module docstring."""
