"""Credential literals in code forms the declaration rules do not read, and rows of tables and tools.

* declarations whose initialiser is not ``= "…"``: C++ brace initialisation
  (``constexpr std::string_view kSecret{"…"}``), Objective-C string literals
  (``NSString *const kSecret = @"…"``), Visual Basic ``Dim apiSecret As String = "…"`` and
  ``Const DbPassword As String = "…"``; the name must hold a credential word (secret, token,
  password, passwd, apikey, api_key, privatekey, key as its last segment);
* Perl DBI: ``DBI->connect($dsn, $user, '<pw>')`` (DBI documentation: the third argument);
* GraphQL variables: when a query passes ``password: $p`` (or ``secret``/``token``), the value
  of ``"p"`` in the request's ``variables``;
* Java ``.properties`` keys written with unicode escapes (``app.secr\\u0065t=…``): the key is
  decoded (java.util.Properties reads ``\\uXXXX`` in keys) and judged like a plain key;
* browser devtools cookie tables (name, value, domain, path… separated by tabs): the value of a
  session cookie (``__Secure-``/``__Host-`` prefixes, ``sid``/``session``/``auth``/``token`` in the
  name);
* CSV/TSV tables whose header names a key column (``api_key``, ``secret``, ``token``,
  ``password``…): that column's values when credential-shaped;
* a deploy script's positional argument after an AWS/GCP/Azure region
  (``./deploy.sh production eu-west-1 <value>``): a random-looking value.

Kind: ``secret`` (``password`` for password names). Placeholders stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random
from memctl.scrub.keyword import is_credential_name

__all__ = ["CODE_LITERAL_DETECTORS"]

_NAME_WORD = re.compile(r"(?i)(?:secret|token|passw|passwd|pwd|apikey|api_key|privatekey|private_key|credential|key$)")
_DECLARATION = re.compile(
    r"(?P<name>[A-Za-z_]\w{0,60})(?:[ \t]+As[ \t]+String)?[ \t]*(?:=[ \t]*(?:std::)?(?:string_view|string|wstring|String|QString)[ \t]*)?"
    r"(?:\{[ \t]*|=[ \t]*(?:@|u8|L|u|U|R)?)"
    r"\"(?P<value>[^\"\n\x00\\]{4,200})\"",
)
_DECL_GATES = ('{"', '@"', " as string")
_DBI = re.compile(
    r"DBI->connect(?:_cached)?[ \t]*\([ \t]*(?:[\"'][^\"'\n\x00]*[\"']|\$\w+)[ \t]*,[ \t]*(?:[\"'][^\"'\n\x00]*[\"']|\$\w+)[ \t]*,"
    r"[ \t]*(?P<q>[\"'])(?P<value>[^\"'\n\x00]{1,200})(?P=q)"
)
_GQL_VAR = re.compile(r"(?i:password|passwd|secret|token|pin|otp|newpassword|new_password)[ \t]*:[ \t]*\$(?P<var>\w{1,40})")
_UNICODE_KEY = re.compile(r"[ \t]*(?P<key>[\w.\-]*(?:\\u[0-9a-fA-F]{4}[\w.\-]*)+)[ \t]*[=:][ \t]*(?P<value>[^\n\x00]{1,200}?)[ \t]*$")
_COOKIE_ROW = re.compile(r"(?P<name>[^\t\n\x00]{1,80})\t(?P<value>[^\t\n\x00]{8,4096})\t(?P<domain>\.?[\w-]+(?:\.[\w-]+)+)\t")
_SESSION_NAME = re.compile(r"(?i)^__(?:secure|host)-|sid|sess|auth|token|login|jwt|remember")
_COOKIE_GATES = ("__secure-", "__host-", "sid\t", "session", "auth", "token")
_CSV_GATES = ("key,", "secret,", "token,", "password,", "key\t", ",api_key", ",secret", ",token", ",password", ",key")
_CSV_HEADER = re.compile(r"(?P<header>[\w .-]{1,40}(?:[,\t;][\w .-]{1,40}){1,20})[ \t]*$")
_KEY_COLUMN = re.compile(r"(?i)^(?:[\w .-]*[_ .-])?(?:api[_ .-]?key|secret(?:[_ .-]?key)?|access[_ .-]?key|token|password|passwd|key)$")
_REGION = re.compile(
    r"(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:gov-)?(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d"
    r"|(?:us|europe|asia|australia|northamerica|southamerica)-[a-z]+\d"
    r"|(?:eastus|westus|westeurope|northeurope|uksouth|centralus)\d?"
)
_DEPLOY = re.compile(r"(?:\./|(?:ba|z)?sh[ \t]+|python3?[ \t]+)[\w./-]*\.(?:sh|py|ps1|bash)[ \t]+(?P<args>[^\n\x00|;&]{1,300})")


def _declaration_hit(text: str, lowered: str, pos: int, gate: str) -> bool:
    """Cheap test before the regex: ``{"`` right after an identifier (not JSON's ``:{"``/``[{"``),
    ``@"`` right after ``=``; ``As String`` always."""
    if gate == " as string":
        return True
    before = text[max(0, pos - 40) : pos].rstrip()
    if gate == '@"':
        return before.endswith("=")
    return bool(before) and (before[-1].isalnum() or before[-1] == "_")


def _declaration_spans(text: str, lowered: str) -> Iterator[Span]:
    for gate in _DECL_GATES:
        pos = lowered.find(gate)
        while pos != -1:
            if not _declaration_hit(text, lowered, pos, gate):
                pos = lowered.find(gate, pos + len(gate))
                continue
            line_start = text.rfind("\n", max(0, pos - 100), pos) + 1 or max(0, pos - 100)
            for match in _DECLARATION.finditer(text, line_start, min(len(text), pos + 210)):
                name = match.group("name")
                value = match.group("value")
                if _NAME_WORD.search(name) and not is_placeholder(value) and match.end() > pos:
                    yield match.start("value"), match.end("value"), "password" if "pass" in name.lower() or "pwd" in name.lower() else "secret"
            pos = lowered.find(gate, pos + len(gate))


def _gql_spans(text: str, lowered: str) -> Iterator[Span]:
    pos = lowered.find('"variables"')
    while pos != -1:
        query = text[max(0, pos - 2000) : pos]
        for var in {m.group("var") for m in _GQL_VAR.finditer(query)}:
            pattern = re.compile(r"\\*\"" + re.escape(var) + r"\\*\"[ \t]*:[ \t]*\\*\"(?P<value>[^\"\\\n\x00]{1,200})\\*\"")
            match = pattern.search(text, pos, min(len(text), pos + 2000))
            if match is not None and not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
        pos = lowered.find('"variables"', pos + 11)


def _line_matches(text: str, lowered: str, gate: str, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """Matches of ``pattern`` (anchored at a line start) on each line holding a hit of ``gate``, once per line."""
    pos = lowered.find(gate)
    while pos != -1:
        line_start = text.rfind("\n", 0, pos) + 1
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end == -1 else line_end
        if pos - line_start <= 300:
            match = pattern.match(text, line_start, line_end)
            if match is not None:
                yield match
        pos = lowered.find(gate, line_end)


def _unicode_key_spans(text: str, lowered: str) -> Iterator[Span]:
    for match in _line_matches(text, lowered, "\\u00", _UNICODE_KEY):
        try:
            key = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), match.group("key"))
        except ValueError:
            continue
        value = match.group("value")
        if is_credential_name(key.replace(".", "_")) and not is_placeholder(value):
            yield match.start("value"), match.end("value"), "password" if "pass" in key.lower() else "secret"


def _cookie_spans(text: str, lowered: str) -> Iterator[Span]:
    for gate in _COOKIE_GATES:
        pos = lowered.find(gate)
        while pos != -1:
            line_start = text.rfind("\n", max(0, pos - 100), pos) + 1
            if "\t" in text[line_start : pos + 100]:
                match = _COOKIE_ROW.match(text, line_start)
                if match is not None and _SESSION_NAME.search(match.group("name").strip()) and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "cookie"
            pos = lowered.find(gate, pos + len(gate))


def _csv_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    headers = {m.start(): m for gate in _CSV_GATES if gate in gates for m in _line_matches(text, lowered, gate, _CSV_HEADER)}
    for match in (headers[start] for start in sorted(headers)):
        header = match.group("header")
        separator = "\t" if "\t" in header else ";" if ";" in header and "," not in header else ","
        names = [name.strip() for name in header.split(separator)]
        columns = [i for i, name in enumerate(names) if _KEY_COLUMN.match(name)]
        if not columns or len(names) < 2:
            continue
        start = match.end() + 1
        while start < len(text):
            end = text.find("\n", start)
            end = len(text) if end == -1 else end
            cells = text[start:end].split(separator)
            if len(cells) != len(names):
                break
            offset = start
            for i, cell in enumerate(cells):
                value = cell.strip().strip("\"'")
                if i in columns and value and not is_placeholder(value) and (looks_random(value, min_len=12) or
                                                                             (any(c.isdigit() for c in value) and any(not c.isalnum() for c in value) and len(value) >= 8)):
                    inner = offset + cell.index(value)
                    yield inner, inner + len(value), "secret"
                offset += len(cell) + 1
            start = end + 1


def _deploy_spans(text: str, lowered: str) -> Iterator[Span]:
    for gate in ("-east-", "-west-", "-central-", "-north-", "-south-", "-northeast-", "-southeast-"):
        pos = lowered.find(gate)
        while pos != -1:
            line_start = text.rfind("\n", max(0, pos - 200), pos) + 1 or max(0, pos - 200)
            match = _DEPLOY.search(text, line_start, min(len(text), pos + 300))
            if match is not None:
                args = match.group("args").split()
                offset = match.start("args")
                seen_region = False
                for arg in args:
                    at = text.index(arg, offset)
                    offset = at + len(arg)
                    if _REGION.fullmatch(arg):
                        seen_region = True
                    elif seen_region and not arg.startswith("-") and looks_random(arg.strip("\"'"), min_len=12) and "/" not in arg and ":" not in arg:
                        yield at, at + len(arg), "secret"
            pos = lowered.find(gate, pos + len(gate))


def _code_literal_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if any(gate in gates for gate in _DECL_GATES):
        yield from _declaration_spans(text, lowered)
    if "dbi->connect" in gates:
        for match in _DBI.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
    if '"variables"' in gates and "$" in text:
        yield from _gql_spans(text, lowered)
    if "\\u00" in gates:
        yield from _unicode_key_spans(text, lowered)
    if "\t" in text and any(gate in gates for gate in _COOKIE_GATES):
        yield from _cookie_spans(text, lowered)
    if any(gate in gates for gate in _CSV_GATES):
        yield from _csv_spans(text, lowered, gates)
    if any(gate in gates for gate in ("-east-", "-west-", "-central-", "-north-", "-south-")) and (".sh" in gates or ".py" in gates):
        yield from _deploy_spans(text, lowered)


_LITERALS = tuple(sorted({*_DECL_GATES, "dbi->connect", '"variables"', "\\u00", *_COOKIE_GATES, *_CSV_GATES, "-east-", "-west-",
                          "-central-", "-north-", "-south-", ".sh", ".py"}))

CODE_LITERAL_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_code_literal_spans,
        literals=_LITERALS,
        requires=tuple(literal for literal in _LITERALS if literal not in (".sh", ".py")),
        origin="memctl: C++/Obj-C/VB declarations, Perl DBI, GraphQL variables, escaped keys, cookie tables, CSV keys, deploy args",
    ),
)
"""One finder for the kinds in the module docstring."""
