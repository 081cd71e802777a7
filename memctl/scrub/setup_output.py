"""Passwords that setup tools generate and print, and secret values printed as plain text.

Forms (each from the tool's own output):

* a generated, temporary, initial or random password on the line that announces it:
  ``Generated password for admin: X``, MySQL ``mysqld --initialize``'s ``A temporary password is
  generated for root@localhost: X``, Spring Boot's ``Using generated security password: X``,
  Elasticsearch's ``The generated password for the elastic built-in superuser is : X``;
* the same announced on one line and printed alone on the next (after a blank line or not):
  Jenkins' ``Please use the following password to proceed to installation:`` then the password,
  Elasticsearch 8's ``Password for the elastic user (reset with …):`` then the password;
* the output line of a secret generator: ``openssl rand``, ``pwgen``, ``/dev/urandom``, Python
  ``secrets.token_*``, Django ``get_random_secret_key()``, ``rails secret``, ``mix phx.gen.secret``,
  ``php artisan key:generate --show``, WireGuard ``wg genkey``/``wg genpsk`` (not when piped to
  ``wg pubkey``: that prints the public key), ``gpg --gen-random``;
* ``aws ssm get-parameter(s) … --with-decryption … --output text`` and ``aws secretsmanager
  get-secret-value … --output text``: the output line after the command (AWS CLI ``text`` output
  prints the value bare).

Only the value is replaced (kind ``password`` for announced passwords, ``secret`` for printed
values). Placeholders stay (:func:`~memctl.scrub.detector.is_placeholder`); a value on its own
line must be one token that is not a word (a letter with a digit, a symbol, or mixed case).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random
from memctl.scrub.gates import positions

__all__ = ["SETUP_OUTPUT_DETECTORS"]

_ANNOUNCERS = ("generated", "temporary", "initial", "random", "one-time", "following")
# "<announcer> … password … : X" on one line; "password … generated … : X".
_SAME_LINE = re.compile(
    r"(?i:(?:generated|temporary|initial|random|one-time)[^\n\x00]{0,60}?pass(?:word|phrase)[^\n\x00:]{0,80}?"
    r"|pass(?:word|phrase)[^\n\x00:]{0,40}?(?:generated|created)[^\n\x00:]{0,60}?)"
    r"(?:[ \t]+is)?[ \t]*[:=][ \t]*[\"'`]?(?P<value>[^\s\"'`\x00]{6,128})"
)
# An announcing line ending in ":" (or not), then the value alone on the next non-blank line.
_NEXT_LINE = re.compile(
    r"(?i:(?:generated|temporary|initial|random|one-time|following)[^\n\x00]{0,60}?pass(?:word|phrase)"
    r"|pass(?:word|phrase)[ \t]+for[ \t]+the[^\n\x00]{0,80}?)[^\n\x00]{0,80}?:?[ \t]*\r?\n(?:[ \t]*\r?\n)?"
    r"[ \t]*(?P<value>[^\s\x00]{8,128})[ \t]*\r?(?:\n|$)"
)
# A secret generator's command line, then its output alone on the next line: ``openssl rand``,
# ``pwgen``, ``/dev/urandom``, Python ``secrets.token_*``, Django ``get_random_secret_key``,
# ``rails secret``/``rake secret``, ``mix phx.gen.secret``, ``php artisan key:generate --show``,
# WireGuard ``wg genkey``/``genpsk`` (a private key), ``gpg --gen-random``.
_GENERATOR = re.compile(
    r"(?i:openssl[ \t]+rand|pwgen|/dev/u?random|secrets\.token_\w+|token_(?:hex|urlsafe|bytes)|get_random_secret_key"
    r"|(?:rails|rake)[ \t]+secret|phx\.gen\.secret|key:generate[^\n\x00]*--show|wg[ \t]+gen(?:key|psk)|gpg[ \t]+--gen-random)"
    r"[^\n\x00]*\r?\n(?:```\w*\r?\n)?[ \t]*(?P<value>[^\s\x00`]{12,})[ \t]*\r?(?:\n|$)"
)
# What a generator prints: one run of password characters, no call or assignment (code after a
# ``secrets.token_hex()`` line is not its output).
_GENERATED = re.compile(r"[A-Za-z0-9+/_\-=.~!@#$%^&*<>?:;,]{12,}")
_HEX = re.compile(r"[0-9a-fA-F]{12,}")
_GENERATOR_WORDS = ("rand", "pwgen", "genpsk", "secret", "key")
_AWS_TEXT = re.compile(r"[^\n\x00]*\r?\n(?:```\w*\r?\n)?(?P<value>[^\n\x00]*[^\s\x00])")
_AWS_COMMAND = re.compile(r"(?:ssm[ \t]+get-parameters?|secretsmanager[ \t]+get-secret-value)\b")
_TEXT_OUTPUT = re.compile(r"(?:--output|-o)[ \t=]+text\b")


def _token_value(value: str) -> bool:
    if (value[0] != "!" and is_placeholder(value)) or value.startswith(("http", "./", "~")) or value.count("/") > 1:
        return False
    if value[0] in "[(（「":
        return False  # a documentation stand-in: "[shown in the log]", "(パスワード)"
    # "!w1YKyVFFa?-" is a generated password, not a YAML tag: only is_placeholder's other rules apply
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (has_digit and any(c.isalpha() for c in value)) or has_symbol or mixed


def _setup_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "pass" in gates:
        done = -1
        for pos in positions(lowered, "pass"):
            if pos < done:
                continue
            line_start = lowered.rfind("\n", 0, pos) + 1
            window = lowered[max(line_start, pos - 120) : pos + 160]  # the announcers are tested here only
            if not any(word in window for word in _ANNOUNCERS) and "password for the" not in window:
                continue
            begin = max(line_start, pos - 120)
            end = min(len(text), pos + 400)
            # Each stretch of text is searched once: the next hit searched is past this window's
            # first 200 characters (a match reaching that far was found here), so a line of many
            # hits costs linear time.
            done = end - 200
            for pattern in (_SAME_LINE, _NEXT_LINE):
                match = pattern.search(text, begin, end)
                if match is not None and _token_value(match.group("value").rstrip(".,;")):
                    value = match.group("value").rstrip(".,;")
                    yield match.start("value"), match.start("value") + len(value), "password"
                    done = max(done, match.end())
                    break
    yield from _generated_spans(text, lowered, gates)
    for literal in ("get-parameter", "get-secret-value"):
        if literal in gates:
            pos = lowered.find(literal)
            while pos != -1:
                # The command's line, read once: the AWS command, decryption for SSM, text output.
                line_start = lowered.rfind("\n", 0, pos) + 1
                line_end = lowered.find("\n", pos)
                line = lowered[line_start : len(lowered) if line_end == -1 else line_end]
                if (_AWS_COMMAND.search(line) and _TEXT_OUTPUT.search(line)
                        and (literal == "get-secret-value" or "--with-decryption" in line)):
                    match = _AWS_TEXT.match(text, pos, min(len(text), pos + 4000))
                    if match is not None and not is_placeholder(match.group("value")):
                        yield match.start("value"), match.end("value"), "secret"
                if line_end == -1:
                    break
                pos = lowered.find(literal, line_end)


def _generated_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    """Output of a secret generator (:data:`_GENERATOR`), tried at each line holding one of its words."""
    tried: set[int] = set()
    for word in _GENERATOR_WORDS:
        if word not in gates:
            continue
        for pos in positions(lowered, word):
            line_start = lowered.rfind("\n", 0, pos) + 1
            if line_start in tried:
                continue
            tried.add(line_start)
            line_end = lowered.find("\n", pos)
            if line_end == -1:
                continue  # no output line after it
            match = _GENERATOR.search(text, line_start, min(len(text), line_end + 400))
            if "pubkey" in lowered[line_start:line_end]:
                continue  # wg genkey | tee key | wg pubkey prints the public key
            if match is None or match.start() >= line_end:
                continue
            value = match.group("value").strip("'\"")
            if _GENERATED.fullmatch(value) and (looks_random(value, min_len=12) or _HEX.fullmatch(value)):
                start = match.start("value") + match.group("value").index(value)
                yield start, start + len(value), "secret"


# "pass" is a word every rule shares (its hits are found once per text); the AWS commands are
# found from their "-" (see memctl.scrub.gates); generators from secret/key hits and two
# substring tests ("rand", "pwgen", "genpsk").
_LITERALS = ("pass", "get-parameter", "get-secret-value", *_GENERATOR_WORDS)

SETUP_OUTPUT_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_setup_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: passwords printed by setup tools (MySQL, Jenkins, Elasticsearch, Spring Boot), AWS CLI text output",
    ),
)
"""One finder for the forms in the module docstring."""
