"""Values set apart from their label by layout, not by a key-value separator (a held-out attacker's round 7 kinds).

* a value in parentheses after its label and a space: ``token (ghx7Qm…)``, ``API key (Zq8m…)``,
  ``password (P@ssw0rd!2024)``; words in parentheses (``(optional)``, ``(see below)``,
  ``(base64-encoded)``) and calls (``reset_password(user_id_123)``) stay;
* the label and the value on consecutive lines: OCR of a screenshot (``Password:`` then
  ``Hunter2Blue!Sky``) and a chat-ops reply that is only the value after a question for it
  (``what's the staging db password?`` then ``bob: Orchid-Lantern-58``, a speaker, timestamp
  or quote prefix taken off);
* OCR spellings of credential names (``passw0rd``, ``pa55word``, ``t0ken``, ``s3cret``) before
  ``:``/``=``;
* OCR of a token split by spaces after a vendor prefix or a credential label
  (``ghp_ AbC1 2dEf 3GhI …``, ``API key: 9f8e 7d6c 5b4a 3928``): the groups go together.

A value must look like one: a password 8+ characters with a letter and a digit or a symbol, not
made of words (``tokenizer_v2``) nor a named number (``sha256``, ``utf-8``); a token or key a random run (:func:`memctl.scrub.entropy.random_run`). The rules
walk the hits of a label with its parenthesis or separator (``token (``, ``key:``: gate literals of
the one scan, :mod:`memctl.scrub.gates`), and the hits of a label word only in a text with line
breaks (:func:`memctl.scrub.gates.line_breaks`, a bisect per hit).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder
from memctl.scrub.entropy import random_run, word_made
from memctl.scrub.gates import line_breaks, positions

__all__ = ["LABELLED_VALUE_DETECTORS", "password_shaped"]

# Label words (lower case) and the kind their value gets.
_LABELS = {
    "password": "password", "passwd": "password", "passphrase": "password", "pwd": "password",
    "token": "secret", "secret": "secret", "api key": "secret", "apikey": "secret", "api_key": "secret",
    "secret key": "secret", "access key": "secret", "private key": "secret",
}
_HIT_ROOTS = ("pass", "token", "secret", "key", "pwd")
_SYMBOLS = frozenset("!@#$%^&*+=?~<>|")
_WORDS_IN_PARENS = re.compile(r"[a-z]+(?:[-_][a-z]+)*|[A-Z][a-z]+(?:[-_][A-Za-z][a-z]+)*|[A-Z0-9]{1,8}(?:-\d{1,4})?")

# ``label (value)``: the value is one run without spaces or parentheses.
_PAREN_VALUE = re.compile(r"[ \t]\((?P<value>[^\x00()\s\"'`,;]{8,200})\)")
# The label ends its line (a question or a heading): the next line is only the value.
_LINE_END = re.compile(
    r"(?:[ \t]+(?:for|of|on|to|in)(?:[ \t]+[\w.-]{1,30}){1,4})?(?:[ \t]*\([^\x00()\n]{1,40}\))?[ \t]*[?:]?[ \t]*\??[ \t]*(?:\r?\n|\\n)+"
    r"(?P<prefix>[ \t>]*(?:\[[^\x00\]\n]{1,24}\][ \t]*)?(?:[\w.@-]{1,24}:[ \t]+)?)"
    r"[\"'`]?(?P<value>[^\x00\s\"'`]{8,200})[\"'`]?[ \t]*(?=\r?\n|\\n|\x00|$)"
)
# OCR spellings of credential names, then the value after ":" or "=".
_OCR_NAME = re.compile(
    r"(?i)(?<![a-z0-9])(?P<name>p[a4@][s5$]{2}w[o0]rd|pa[s5$]{2}w0rd|p[a4@][s5$]{2}wd|t[o0]k[e3]n|s[e3]cr[e3]t|ap[i1l]_?k[e3]y)"
    r"(?<!password)(?<!passwd)(?<!token)(?<!secret)(?<!api_key)(?<!apikey)"
    r"[ \t]*[:=][ \t]*[\"']?(?P<value>[^\x00\s\"',;]{6,200})"
)
_OCR_GATES = (
    "passw0rd", "pa55word", "pa55w0rd", "p4ssword", "p4ssw0rd", "pa$$word", "t0ken", "tok3n", "t0k3n", "s3cret",
    "secr3t", "s3cr3t", "ap1key", "ap1_key", "apikey", "api_k3y", "apik3y", "pa55wd", "p4sswd",
)
# A token split into groups by spaces (OCR): after a vendor prefix, or after a label and ":".
_SPLIT_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?P<value>(?:ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abp]-|sk-(?:proj-|live-|ant-)?|AKIA|AIza|hf_)"
    r"[ \t]?(?:[A-Za-z0-9_-]{2,8}[ \t]){2,16}[A-Za-z0-9_-]{2,8})(?![A-Za-z0-9])"
)
_SPLIT_LABELLED = re.compile(r"[ \t]*[:=][ \t]*(?P<value>(?:[A-Za-z0-9+/]{3,8}[ \t]){3,16}[A-Za-z0-9+/=]{2,8})(?![A-Za-z0-9])")
_SPLIT_PREFIX_GATES = ("ghp_ ", "gho_ ", "ghs_ ", "ghu_ ", "github_pat_ ", "glpat- ", "xoxb- ", "xoxp- ", "sk- ",
                       "sk-proj- ", "sk-live- ", "sk-ant- ", "akia ", "aiza ", "hf_ ")
_REACH = 48  # a label's line must end within this many characters for the next-line rule


def password_shaped(value: str) -> bool:
    """True when ``value`` (no spaces) looks like a chosen password: 8+ characters and a digit with a
    letter, a symbol of :data:`_SYMBOLS`, or upper and lower case past the first letter; or a random
    run. Words, identifiers and ``snake_case``/``kebab-case`` phrases are not."""
    if len(value) < 8 or is_placeholder(value):
        return False
    if random_run(value):
        return True
    letters = any(c.isalpha() for c in value)
    if letters and any(c.isdigit() for c in value):
        # made of words: lower-case identifiers (tokenizer_v2) stay; capitalised words with digits are chosen
        return not (_NAMED_NUMBER.fullmatch(value) or (word_made(value) and (value.islower() or value.isidentifier())))
    return letters and any(c in _SYMBOLS for c in value)


# Names with a number that are not passwords: encodings, hashes, versions (utf-8, sha256, base64url, ipv6).
_NAMED_NUMBER = re.compile(r"(?i)(?:utf|sha|md|base|v|x|int|float|ipv|aes|rsa|ed|p)[-_]?\d+(?:[-_a-z]+)?")


def _shaped(value: str, kind: str) -> bool:
    """A password by :func:`password_shaped`; a token or key: 12+ characters, credential-shaped (random-looking,
    hex or a UUID: the label says what it is) and not made of words (``base64-encoded``)."""
    if "://" in value or value[0] in "/.~" or value.endswith((":", "(", "{", "[", ",", "...", "…")) or value.count(":") > 1:
        return False  # a URL, a path, a YAML key, the start of a structure or a record (root:x:0:0:…): not a value
    if kind == "password":
        return password_shaped(value)
    if len(value) < 12 or is_placeholder(value):
        return False
    return random_run(value) or (credential_shaped(value, min_len=12) and not word_made(value))


def _label_at(lowered: str, pos: int, root: str) -> tuple[str, int] | None:
    """The label word of :data:`_LABELS` holding the hit of ``root`` at ``pos`` and where it ends."""
    for label in _LABELS:
        at = label.find(root)
        if at != -1 and lowered.startswith(label, pos - at):
            start, end = pos - at, pos - at + len(label)
            before = lowered[start - 1] if start else " "
            # not inside a word, nor a file name (/etc/passwd, ~/.pgpass, .htpasswd)
            if not before.isalpha() and before not in "/.\\" and not lowered[end : end + 1].isalpha():
                return label, end
    return None


def _labelled_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for gate in _PAREN_GATES:  # "token (", "key (": the hits of the label with its parenthesis only
        if gate in gates:
            for pos in positions(lowered, gate):
                yield from _value_after(text, lowered, pos, gate[:-2], _PAREN_VALUE)
    breaks = line_breaks(lowered) if "\n" in gates or "\\n" in gates else ()
    if breaks:
        for root in _HIT_ROOTS:
            if root in gates:
                for pos in positions(lowered, root):
                    index = bisect_left(breaks, pos)
                    if index < len(breaks) and breaks[index] - pos <= _REACH:  # the label's line ends soon
                        yield from _value_after(text, lowered, pos, root, _LINE_END)
    if any(gate in gates for gate in _OCR_GATES):
        for match in _OCR_NAME.finditer(text):
            name = match.group("name").lower()
            kind = "password" if name.startswith("p") else "secret"
            if _shaped(match.group("value"), kind):
                yield match.start("value"), match.end("value"), kind
    if any(gate in gates for gate in _SPLIT_PREFIX_GATES):
        for match in _SPLIT_PREFIXED.finditer(text):
            if random_run(match.group("value").replace(" ", "").replace("\t", "")):
                yield match.start("value"), match.end("value"), "secret"
    for gate in _SPLIT_LABEL_GATES:  # "key:", "token =": the label with its separator only
        if gate in gates:
            root = gate.rstrip(" :=")
            for pos in positions(lowered, gate):
                found = _label_at(lowered, pos, root)
                if found is None or not lowered.startswith((":", "=", " :", " ="), found[1]):
                    continue
                match = _SPLIT_LABELLED.match(text, found[1])
                if match is not None and _shaped(re.sub(r"\s", "", match.group("value")), "secret"):
                    yield match.start("value"), match.end("value"), _LABELS[found[0]]


def _value_after(text: str, lowered: str, pos: int, root: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    """The value ``pattern`` finds right after the label holding the hit of ``root`` at ``pos``, if shaped."""
    found = _label_at(lowered, pos, root)
    if found is None:
        return
    label, end = found
    match = pattern.match(text, end)
    if match is None:
        return
    value = match.group("value")
    if pattern is _LINE_END and "=" in value.rstrip("="):
        return  # the next line is an assignment of its own (an .env file's next key)
    kind = _LABELS[label]
    if _shaped(value, kind) and not _WORDS_IN_PARENS.fullmatch(value):
        yield match.start("value"), match.end("value"), kind


_PAREN_GATES = ("password (", "passwd (", "passphrase (", "pwd (", "token (", "secret (", "key (")
_SPLIT_LABEL_GATES = tuple(f"{root}{sep}" for root in ("key", "token", "secret", "password", "passwd", "pwd")
                           for sep in (":", " :", "=", " ="))
_LITERALS = (*_HIT_ROOTS, "\n", "\\n", *_PAREN_GATES, *_SPLIT_LABEL_GATES, *_OCR_GATES, *_SPLIT_PREFIX_GATES)

LABELLED_VALUE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_labelled_spans,
        literals=_LITERALS,
        requires=(*_HIT_ROOTS, *_OCR_GATES, *_SPLIT_PREFIX_GATES),
        origin="memctl: held-out round 7 (labels in parentheses, on the line before, OCR spellings and splits)",
    ),
)
"""One finder for the layouts in the module docstring."""
