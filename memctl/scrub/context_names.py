"""Values under credential names the keyword rules do not read: other languages, other
separators, other file formats, other value shapes.

:mod:`memctl.scrub.keyword` reads ``name=value`` pairs of English roots in code-like text, where
it must reject identifiers (``password = settings.db_password``). This module reads the layouts
in which a value is a literal by construction:

* names in other languages, as a segment of the key (``Kennwort``, ``contraseña``, ``senha``,
  ``mot_de_passe``, ``пароль``, ``パスワード``, ``密码`` …; :data:`FOREIGN_PASSWORD_WORDS`), the
  ``pw`` root (``PW=``, ``db_pw``), any upper-case ``*_KEY``/``*_SECRET``/``*_TOKEN``/``*_PW``
  environment name, and spaced names (``API key: X``, ``Private key: X``);
* a config line (the name first on its line: YAML, ``.env``, INI, ``.properties``): the value
  is the rest of the line, whatever its shape (CamelCase, snake_case, dotted, with spaces);
  whitespace separators of ``.properties``, ``requirepass``/``masterauth`` (redis.conf);
* YAML block scalars (``password: |`` then indented lines), tags (``!!str``, ``!secret`` is
  a reference and stays) and anchors (``&pw value``); TOML and Python triple-quoted strings;
* XML: ``<entry key="password">v</entry>`` (Java properties XML), ``<string name="api_secret">``
  (Android ``strings.xml``), plist ``<key>Password</key><string>v</string>``; HCL
  ``variable "db_password" { default = "v" }`` (Terraform);
* ``.pgpass`` lines (``host:port:db:user:password``, PostgreSQL libpq-pgpass).

Only the value is replaced (kind ``password`` for password words, ``secret`` otherwise).
Placeholders stay (:func:`~memctl.scrub.detector.is_placeholder`). Generic ``*_KEY`` names
(``SORT_KEY``, ``PRIMARY_KEY``) need a credential-shaped value.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder, sealed_ciphertext
from memctl.scrub.gates import line_breaks, positions
from memctl.scrub.keyword import NON_SECRET_KEY_SUFFIXES, is_credential_name

__all__ = ["CONTEXT_NAME_DETECTORS", "FOREIGN_PASSWORD_WORDS", "credential_word_kind"]

FOREIGN_PASSWORD_WORDS = (
    "kennwort", "passwort", "contraseña", "contrasena", "contrasenya", "senha", "mot_de_passe", "motdepasse",
    "mot de passe", "пароль", "парол", "パスワード", "密码", "密碼", "口令", "비밀번호", "wachtwoord", "hasło", "haslo",
    "parola", "salasana", "lösenord", "losenord", "adgangskode", "jelszó", "jelszo", "heslo", "şifre", "sifre",
    "passord", "geslo", "lozinka", "slaptažodis", "parool", "κωδικός", "סיסמה", "كلمة_المرور", "كلمة المرور",
    "पासवर्ड", "รหัสผ่าน", "mật khẩu", "mat_khau", "clave", "geheimnis", "segreto", "secreto",
)
_ENGLISH_ROOTS = ("pass", "secret", "token", "key")
_SPACED_NAMES = ("api key", "private key", "secret key", "access key", "auth token", "access token", "api token",
                 "client secret", "app password", "bot token")
_SEGMENT = re.compile(r"[_.\- ]|(?<=[a-z0-9])(?=[A-Z])")
_LINE_LEAD = re.compile(r"(?:^|\n|\\n)[ \t]*(?:[-*>#;]+[ \t]*)?(?:export[ \t]+|set[ \t]+|\$env:|setx[ \t]+)?(?:\x1b\[[0-9;]*m)*[\"']?$")
_ANSI = r"(?:\x1b\[[0-9;]*m)*"
_ANSI_END = re.compile(r"\x1b\[[0-9;]*m$")
_SEPARATOR = re.compile(_ANSI + r"[\"']?" + _ANSI + r"[ \t]*(?P<sep>:=|=>|=|:|：|＝|[ \t])[ \t]*" + _ANSI)
_REST_OF_LINE = re.compile(r"[^\n\x00\\\x1b]*")
_LONGEST_PHRASE = 200  # characters read before a line with six words is judged prose
_LINE_HEAD = re.compile(r"[^\n\x00\\\x1b]{0,%d}" % (_LONGEST_PHRASE + 1))  # the line up to one past it
_TAG_OR_ANCHOR = re.compile(r"(?:!![a-z]+|&[\w-]+)[ \t]+")
_CODE_NAME = re.compile(r"[a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)+|[a-z]+(?:_[a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+")
_BARE = re.compile(r"[^\s\"'`<>,;&)\]}\x00\\\x1b]+")
_CAMEL_TYPE = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_TYPE_WORDS = ("secret", "token", "password", "key", "credential", "auth", "config", "settings", "str")
_WORD = re.compile(r"[^\s\"'`\x00\\\x1b]+")
_PATH_VALUE = re.compile(r"(?:/|~/|\./|\.\./)[^\s]*")
_ANNOTATION = re.compile(r"(?:[A-Z]\w*|str|int|bool|bytes|float|dict|list|None|Optional|Any)(?:\[.*\])?[ \t]*(?:\|[^=]*)?(?:=.*)?")
_INLINE_COMMENT = re.compile(r"[ \t]+[#;].*$")
_QUOTED = re.compile(r"(?P<q>\"\"\"|'''|\"|')(?P<value>.*?)(?P=q)", re.DOTALL)
_CODE_VALUE = re.compile(r"[\w.]*\(.*\)?[,;]?$|.*[=(){};][ \t]*$|\[.*|\{.*")
_XML_FORMS = (
    ("<entry key=", re.compile(r"<entry key=\\*[\"'](?P<name>[^\"'\\<>\x00]{1,80})\\*[\"'][^>\x00]*>(?P<value>[^<\x00]+)</entry>", re.I)),
    ("<string name=", re.compile(r"<string name=\\*[\"'](?P<name>[^\"'\\<>\x00]{1,80})\\*[\"'][^>\x00]*>(?P<value>[^<\x00]+)</string>", re.I)),
    ("<key>", re.compile(r"<key>(?P<name>[^<\x00]{1,80})</key>\s*(?:\\n\s*)*<string>(?P<value>[^<\x00]+)</string>", re.I)),
)
_HCL = re.compile(r"variable[ \t]+\"(?P<name>[\w-]{1,80})\"[ \t]*\{(?P<body>[^{}\x00]{0,600})\}")
_HCL_DEFAULT = re.compile(r"default[ \t]*=[ \t]*\"(?P<value>[^\"\x00\n]+)\"")
_PGPASS = re.compile(r"(?m)^[ \t]*(?:\d+[:|][ \t]?)?[\w.*-]+:(?:\d+|\*):[\w.*-]+:[\w.@*-]+:(?P<value>[^\s:\x00]{4,})[ \t]*$")
_WHITESPACE_NAMES = (("requirepass", "pass"), ("masterauth", "auth"))  # redis.conf, found from their root's hits
_WHITESPACE_VALUE = re.compile(r"[ \t]+(?P<q>[\"']?)(?P<value>[^\s\"'\x00]{3,})(?P=q)")
_PGPASS_GATES = ("pass", "localhost:", ":5432:", ":*:")


def credential_word_kind(name: str) -> str | None:
    """``password``/``secret`` when the key ``name`` names a credential in any supported
    language or layout (see the module docstring), else None. Generic upper-case ``*_KEY``
    names give ``"key"``: the caller then needs a credential-shaped value."""
    name = name.strip("-_. \"'").rsplit(".", 1)[-1] if "." in name.strip(".") else name  # db.password, not token.markup
    lowered = name.lower()
    segments = [s.lower() for s in _SEGMENT.split(name.strip("-_. \"'")) if s]
    if not segments or segments[-1] in NON_SECRET_KEY_SUFFIXES:
        return None
    if any(word in lowered for word in FOREIGN_PASSWORD_WORDS):
        return "password"
    if "pw" in segments or "passcode" in segments:
        return "password"
    if lowered in _SPACED_NAMES:
        return "secret"
    if is_credential_name(name.replace(" ", "_")):
        return "password" if any(s.startswith(("pass", "pwd")) for s in segments) else "secret"
    if name.isupper() and "_" in name and segments[-1] in {"key", "secret", "token", "pw", "pass", "pat"}:
        return "key" if segments[-1] == "key" else "secret"
    return None


def _accept(value: str, kind: str, *, config_line: bool, sep: str, spaced: bool = False) -> bool:
    value = value.strip().strip("\\\"'`")
    if len(value) < 3 or is_placeholder(value) or value.startswith(("*", "!")) or not any(c.isalnum() for c in value):
        return False
    if _CAMEL_TYPE.fullmatch(value) and any(word in value.lower() for word in _TYPE_WORDS):
        return False  # client_secret: SessionClientSecret (a type named after its field)
    if kind == "key":
        return credential_shaped(value, min_len=12)
    if not config_line:
        return credential_shaped(value, min_len=8) or (any(c.isdigit() for c in value) and len(value) >= 6)
    if kind != "password" and value.replace(".", "", 1).replace("_", "").isdigit():
        return False  # max_tokens=4096
    if _PATH_VALUE.fullmatch(value):
        return False  # PWD=/home/dev, PASSWORD_FILE: ./secret.txt
    if sep == ":" and _ANNOTATION.fullmatch(value) and (" " in value or "[" in value or "|" in value):
        return False  # token: str | None = None, api_key: Optional[str] = None
    if sep != ":" and (_CODE_VALUE.match(value) or (spaced and _CODE_NAME.fullmatch(value))):
        return False  # password = settings.db_password, token = db_token, secret = SecretHolder
    if " " in value:
        # a phrase under a YAML/properties key: a literal unless it reads as a sentence
        return sep in {":", " ", "\t"} and len(value.split()) <= 5 and not value.endswith((".", "?", "!", ":"))
    return True


def _name_char(char: str) -> bool:
    return char.isalnum() or char in "_.-"


def _name_at(text: str, pos: int, length: int) -> tuple[int, int]:
    start, end = pos, pos + length
    while start > 0 and pos - start < 64 and _name_char(text[start - 1]):
        if start >= 2 and text[start - 2] == "\\" and text[start - 1] in "nrt":
            break
        if text[start - 1] == "m" and _ANSI_END.search(text, max(0, start - 12), start) is not None:
            break  # "\x1b[32mpassword": the colour code is not part of the name
        start -= 1
    while end < len(text) and end - pos < 64 and _name_char(text[end]):
        end += 1
    return start, end


# A Markdown heading whose first word is the name (Capitalised, as headings are written), and a plain word after it.
_MARKDOWN_HEADING = re.compile(r"(?:^|\n|\x00)[ \t]{0,3}#{1,6}[ \t]+[A-Z][A-Za-z]*(?:[ \t]+[A-Za-z]+){0,2}$")
_HEADING_WORD = re.compile(r"[a-z]+(?:[ \t]+[a-z]+)*[ \t]*(?:$|\n|\x00)")


def _value_after(text: str, name: str, name_end: int, kind: str, config_line: bool) -> Span | None:
    sep_match = _SEPARATOR.match(text, name_end)
    if sep_match is None:
        return None
    sep = sep_match.group("sep")
    pos = sep_match.end()
    tag = _TAG_OR_ANCHOR.match(text, pos)
    if tag is not None:
        pos = tag.end()
    sep = {"：": ":", "＝": "="}.get(sep, sep)
    if sep in {" ", "\t"} and not config_line:
        return None
    if sep in {" ", "\t"} and _HEADING_WORD.match(text, pos) and _MARKDOWN_HEADING.search(text, max(0, name_end - 80), name_end):
        return None  # "# Secrets management", "## Token rotation": a Markdown heading, not "key value"
    out_kind = "password" if kind == "password" else "secret"
    if text.startswith(("|", ">"), pos) and sep == ":":
        return _block_scalar(text, pos, out_kind)
    quoted = _QUOTED.match(text, pos)
    if quoted is not None and "\n" not in quoted.group("value")[:200] or (
        quoted is not None and len(quoted.group("q")) == 3
    ):
        value = quoted.group("value")
        if len(quoted.group("q")) == 3:
            value = value.strip()
        if _accept(value, kind, config_line=True, sep=sep) and not (kind != "password" and " " in value.strip()):
            start = quoted.start("value") + (len(quoted.group("value")) - len(quoted.group("value").lstrip()))
            return start, start + len(value), out_kind
        return None
    if not config_line:
        bare = _BARE.match(text, pos)
        if bare is None or not _accept(bare.group(0), kind, config_line=False, sep=sep):
            return None
        return bare.start(), bare.end(), out_kind
    spaced = sep_match.group(0).startswith((" ", "\t")) or sep_match.group(0).endswith((" ", "\t"))
    if sep == "=" and not spaced:
        # shell/.env/properties KEY=value: one word, sentence punctuation shed
        word = _WORD.match(text, pos)
        value = word.group(0).rstrip(".,;:") if word is not None else ""
    else:
        head = _LINE_HEAD.match(text, pos).group(0)
        if len(head) > _LONGEST_PHRASE and len(head.split(None, 6)) > 6:
            # six words already: prose, never a value (_accept takes a phrase of five words at most); stop
            # here, or each of a long line's many names re-reads the whole line (quadratic)
            return None
        line = _REST_OF_LINE.match(text, pos) if len(head) > _LONGEST_PHRASE else None
        value = _INLINE_COMMENT.sub("", line.group(0) if line is not None else head).rstrip()
    if sep in {" ", "\t"} and (" " in value or not any(c.isascii() for c in value)):
        return None  # a phrase, or a word of a script without ASCII after a space ("비밀번호는 필수입니다"): prose
    code_name = not name.isupper() or spaced
    if not _accept(value, kind, config_line=True, sep=sep, spaced=code_name) or sealed_ciphertext(text, pos, value):
        return None
    return pos, pos + len(value), out_kind


def _block_scalar(text: str, pos: int, kind: str) -> Span | None:
    """The indented lines of a YAML ``|``/``>`` block scalar after ``pos``."""
    header_end = text.find("\n", pos)
    if header_end == -1 or text[pos:header_end].strip(" \t|>-+0123456789"):
        return None
    block = re.compile(r"(?:\n[ \t]+[^\n\x00]*)+").match(text, header_end)
    if block is None:
        return None
    start = header_end + (len(block.group(0)) - len(block.group(0).lstrip("\n \t")))
    value = text[start : block.end()].strip()
    if is_placeholder(value) or len(value) < 3:
        return None
    return start, start + len(value), kind


def _is_config_line(text: str, name_start: int) -> bool:
    start = max(0, name_start - 40)
    window = text[start:name_start]
    if start > 0 and "\n" not in window and "\\n" not in window:
        return False  # _LINE_LEAD starts at the text's start, a newline or an escaped "\n": none in reach
    return _LINE_LEAD.search(text, start, name_start) is not None


def _spaced_name(text: str, start: int, name: str) -> int | None:
    """Where a two-word name (``API key``, ``client secret``) ending in ``name`` at ``start`` begins."""
    if start < 2 or text[start - 1] != " ":
        return None
    before = start - 1
    while before > 0 and start - before < 12 and text[before - 1].isalpha():
        before -= 1
    return before if f"{text[before:start - 1]} {name}".lower() in _SPACED_NAMES else None


# The last three letters of each first word of a spaced name ("api" key, "private" key…).
_SPACED_TAILS = frozenset(name.split(" ")[0][-3:] for name in _SPACED_NAMES)
# How far back a hit's name, a spaced name's first word and the config-line window can reach:
# 64 (name) + 13 (first word and its space) + 40 (_is_config_line's window), rounded up.
_PROSE_REACH = 120


def _english_hit_in_prose(text: str, lowered: str, pos: int, length: int) -> bool:
    """True when the hit of an English root at ``pos`` cannot yield anything in
    :func:`_named_spans`: no line start within reach (so not a config line), written with a
    lower-case letter (so its name is not upper case) and not the second word of a spaced name
    (``api key``). These are the three ways such a hit gets a kind; the test is a few slices,
    where the full walk costs two character loops and a regex per hit (~140 hits of "token" in
    a typical session, none of them a credential name)."""
    if pos < _PROSE_REACH:
        return False
    reach = pos - _PROSE_REACH
    # find over a range, not a slice: no copy of the 120 characters per hit
    if lowered.find("\n", reach, pos) != -1 or lowered.find("\\n", reach, pos) != -1:
        return False
    if text[pos : pos + length].isupper():
        return False
    return text[pos - 1] != " " or lowered[pos - 4 : pos - 1] not in _SPACED_TAILS


def _hits_that_may_yield(text: str, lowered: str, hits: tuple[int, ...], length: int) -> list[int]:
    """The hits of an English root for which :func:`_english_hit_in_prose` is False, in order; its
    line-break test is one bisect per hit over the text's breaks, found once per text
    (:func:`memctl.scrub.gates.line_breaks`), where the per-hit test searched 120 characters
    twice (~140 hits of "token" in a typical session, the cost work in docs/benchmarks.md). An escaped break's
    backslash counts as a break one character early: a hit it keeps is only walked, never dropped."""
    breaks = line_breaks(lowered)
    if not breaks:  # one line (a typical session's fields): the two other tests only, in one comprehension
        tails = _SPACED_TAILS
        return [
            pos for pos in hits
            if pos < _PROSE_REACH or (text[pos - 1] == " " and lowered[pos - 4 : pos - 1] in tails)
            or text[pos : pos + length].isupper()
        ]
    kept = []
    for pos in hits:
        if pos >= _PROSE_REACH:
            index = bisect_left(breaks, pos)
            if not index or breaks[index - 1] < pos - _PROSE_REACH:  # mid-line, far from the start
                if not text[pos : pos + length].isupper() and (
                    text[pos - 1] != " " or lowered[pos - 4 : pos - 1] not in _SPACED_TAILS
                ):
                    continue
        kept.append(pos)
    return kept


def _named_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    words = {_GATE_WORD.get(literal, literal) for literal in _NAME_GATES if literal in gates}
    done: set[int] = set()
    skip_to = 0
    for word in sorted(words):
        english_word = word in _ENGLISH_ROOTS
        hits = positions(lowered, word)
        if english_word:  # mid-line lower-case "token" in a sentence: no kind, nothing to find
            hits = _hits_that_may_yield(text, lowered, hits, len(word))
        for pos in hits:
            if pos < skip_to:
                continue
            start, end = _name_at(text, pos, len(word))
            name = text[start:end].strip("\"'-.")
            spaced = _spaced_name(text, start, name) if word in _ENGLISH_ROOTS and start == pos else None
            if spaced is not None:
                start, name = spaced, text[spaced:end]
            if start not in done:
                done.add(start)
                config_line = _is_config_line(text, start)
                # English roots in code are the keyword rules'; here on a config line or in a spaced name.
                english = word in _ENGLISH_ROOTS and spaced is None and not name.isupper()
                kind = None if english and not config_line else credential_word_kind(name)
                if kind is not None:
                    span = _value_after(text, name, end, kind, config_line or spaced is not None)
                    if span is not None:
                        yield span
            skip_to = end
        skip_to = 0


def _format_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for literal, pattern in _XML_FORMS:
        if literal in gates:
            for match in pattern.finditer(text):
                kind = credential_word_kind(match.group("name"))
                value = match.group("value").strip()
                if kind is not None and not is_placeholder(value) and (kind != "key" or credential_shaped(value, min_len=12)):
                    start = match.start("value") + match.group("value").index(value)
                    yield start, start + len(value), "password" if kind == "password" else "secret"
    if 'variable "' in gates:
        for match in _HCL.finditer(text):
            kind = credential_word_kind(match.group("name"))
            default = _HCL_DEFAULT.search(match.group("body"))
            if kind is not None and default is not None and not is_placeholder(default.group("value")):
                offset = match.start("body")
                yield offset + default.start("value"), offset + default.end("value"), "password" if kind == "password" else "secret"
    for name, root in _WHITESPACE_NAMES:
        if root in gates:
            for pos in positions(lowered, root):
                start = pos - name.index(root)
                match = _WHITESPACE_VALUE.match(text, start + len(name)) if lowered.startswith(name, start) else None
                if match is not None and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "password"
    if any(gate in gates for gate in _PGPASS_GATES):
        for match in _PGPASS.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"


def _context_name_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _named_spans(text, lowered, gates)
    yield from _format_spans(text, lowered, gates)


# Gates: non-ASCII words cost nothing on an ASCII text; ASCII words are gated by their
# assignment ("kennwort=", "haslo:"), which the gate index finds from the "="/":" it already
# looks for; English roots are shared with the other rules' gates.
_SCANNED_FOREIGN: tuple[str, ...] = ()
_ANCHORED_FOREIGN = tuple(
    f"{w}{sep}" for w in FOREIGN_PASSWORD_WORDS
    if w.isascii() and w not in _SCANNED_FOREIGN and "pass" not in w
    for sep in ("=", ":", '":', "_", "-", " =", " :", "\t=", "\t:", "：", "＝")
)
# "pw" and the "*_PAT" names (Azure DevOps, GitHub personal access tokens) by their assignment.
_PW_GATES = ("pw=", "pw:", 'pw":', "pw =", "pw :", "_pat=", "_pat:", '_pat":', "_pat =", "_pat :")
_NAME_GATES = (
    *(w for w in FOREIGN_PASSWORD_WORDS if not w.isascii()), *_SCANNED_FOREIGN, *_ANCHORED_FOREIGN,
    *_ENGLISH_ROOTS, *_PW_GATES,
)
_GATE_WORD = {literal: literal.rstrip("=:\"' \t_-：＝") for literal in (*_ANCHORED_FOREIGN, *_PW_GATES)}
_LITERALS = tuple(sorted({*_NAME_GATES, "<entry key=", "<string name=", "<key>", 'variable "', "auth",
                          *_PGPASS_GATES}))

CONTEXT_NAME_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_context_name_spans,
        literals=_LITERALS,
        requires=_LITERALS,  # every match holds one: skipped without a call when none is in the text
        origin="memctl: credential names in other languages, layouts and formats",
    ),
)
"""One finder for the names, separators and formats in the module docstring."""
