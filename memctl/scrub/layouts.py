"""Credentials whose name is not next to the value: table columns, name/value lists, and
service commands that take the password by position.

* CSV/TSV and markdown tables: a header cell that names a credential (``password``, ``secret``,
  ``api_token``, ``Passwort``…; :func:`memctl.scrub.context_names.credential_word_kind`) makes
  that column's cells in the following rows values (RFC 4180 rows without quoted separators;
  GitHub-flavoured markdown pipe tables, the ``|---|`` row skipped). The table ends at a blank
  line or a row with another number of cells.
* Name/value lists: Kubernetes container ``env`` (``- name: API_TOKEN`` then ``value: X``;
  kubernetes.io "Define Environment Variables for a Container"), and the same pair in JSON
  (``{"name": "DB_PASSWORD", "value": "X"}``, ECS task definitions).
* Commands with a positional password: ``rabbitmqctl add_user|change_password U X``
  (rabbitmq.com/docs/man/rabbitmqctl.8), Windows ``net use \\\\srv\\share X /user:D\\u`` and
  ``net use … /user:D\\u X``, ftp scripts' ``user U X``, ``echo 'X\\nX' | passwd U``,
  net-snmp v3 ``-A authpass``/``-X privpass`` (snmpcmd(1)), wpa_supplicant ``psk="X"``
  (wpa_supplicant.conf(5); the 64-hex form too), pgbouncer ``userlist.txt`` lines
  ``"user" "password"``, Rails ``config/master.key`` printed by a command, and the ``auth``
  member of a Docker ``config.json``/``.dockerconfigjson`` (base64 of ``user:password``).

Only the value is replaced (kind ``password``, or ``secret`` for keys and tokens). Placeholders
stay (:func:`~memctl.scrub.detector.is_placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.context_names import credential_word_kind
from memctl.scrub.detector import Detector, Span, detector, is_placeholder
from memctl.scrub.gates import positions

__all__ = ["LAYOUT_DETECTORS"]

_HEADER_WORDS = ("pass", "secret", "token", "kennwort", "senha", "contraseña", "contrasena", "wachtwoord", "haslo", "hasło")
_DELIMITERS = (",", "\t", "|", ";")
_MD_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*")
_K8S_NAME = re.compile(r"-[ \t]+name:[ \t]*[\"']?(?P<name>[A-Za-z_][\w.-]{1,80})[\"']?[ \t]*(?:\n|\\n)[ \t]*value:[ \t]*"
                       r"(?P<q>[\"']?)(?P<value>[^\s\"'\x00\\][^\n\x00\\\"']*?)(?P=q)[ \t]*(?=\n|\\n|$)")
_JSON_NAME = re.compile(r"\\*\"name\\*\"[ \t]*:[ \t]*\\*\"(?P<name>[\w.-]{2,80})\\*\"[ \t]*,[ \t]*(?:\\n|\n)?[ \t]*"
                        r"\\*\"value\\*\"[ \t]*:[ \t]*\\*\"(?P<value>[^\"\\\x00\n]{3,})\\*\"")
_COMMANDS = (
    (("add_user", "change_password"), re.compile(r"rabbitmqctl[ \t]+(?:-[\w-]+[ \t]+[^\s\x00]+[ \t]+)*(?:add_user|change_password)[ \t]+[\"']?[^\s\"'\x00]+[\"']?[ \t]+"
                               r"(?P<q>[\"']?)(?P<value>[^\s\"'\x00]{3,})(?P=q)")),
    (("/user:",), re.compile(r"(?i:net[ \t]+use)[ \t]+(?:[a-z]:[ \t]+)?(?:\\{2,4}[^\s\x00]+[ \t]+)?(?:(?P<q>[\"']?)(?P<value>[^\s/\"'\x00*][^\s\"'\x00]{2,})(?P=q)[ \t]+/user:"
                           r"|/user:[^\s\x00]+[ \t]+(?P<q2>[\"']?)(?P<value2>[^\s/\"'\x00*][^\s\"'\x00]{2,})(?P=q2))")),
    (("passwd",), re.compile(r"echo[ \t]+(?:-[en]+[ \t]+)?(?P<q>[\"']?)(?P<value>[^\s\"'\\\x00]{3,})(?:\\n|\n)(?P<value2>[^\s\"'\\\x00]{3,})(?:\\n)?(?P=q)"
                          r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?passwd\b")),
    (("snmp",), re.compile(r"(?m)snmp\w*[ \t][^\n\x00]*?[ \t]-[AX][ \t]*(?P<q>[\"']?)(?P<value>[^\s\"'\x00]{3,})(?P=q)"
                        r"(?:[^\n\x00]*?[ \t]-[AX][ \t]*(?P<q2>[\"']?)(?P<value2>[^\s\"'\x00]{3,})(?P=q2))?")),
    (("psk=", "psk ="), re.compile(r"(?<![\w-])psk[ \t]*=[ \t]*(?:\"(?P<value>[^\"\n\x00]{8,63})\"|(?P<value2>[0-9a-fA-F]{64})\b)")),
    (("master.key",), re.compile(r"(?:master|credentials/\w+)\.key\b[^\n\x00]*(?:\n|\\n)(?:```\w*(?:\n|\\n))?(?P<value>[0-9a-f]{32})\b")),
    (("userlist",), re.compile(r"(?m)^[ \t]*(?:\d+[:|][ \t]?)?\"[^\"\n\x00]+\"[ \t]+\"(?P<value>[^\"\n\x00]{3,})\"[ \t]*$")),
    (("ftp -", "ftp>"), re.compile(r"(?m)^[ \t]*(?:ftp>[ \t]*)?(?:quote[ \t]+)?user[ \t]+[^\s\x00]+[ \t]+(?P<value>[^\s\x00]{3,})[ \t]*$")),
)
_DOCKER_AUTH = re.compile(r"\\*\"auth\\*\"[ \t]*:[ \t]*\\*\"(?P<value>[A-Za-z0-9+/]{8,}={0,2})\\*\"")


def _cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell in ``line`` (markdown: the outer pipes dropped)."""
    spans, start = [], 0
    for i, char in enumerate(line):
        if char == delimiter:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(line)))
    if delimiter == "|" and line.strip().startswith("|"):
        spans = spans[1:]
    if delimiter == "|" and line.strip().endswith("|"):
        spans = spans[:-1]
    return spans


def _table_spans(text: str, line_start: int) -> Iterator[Span]:
    line_end = text.find("\n", line_start)
    line_end = len(text) if line_end == -1 else line_end
    header = text[line_start:line_end]
    if "\x00" in header:
        return  # scrub_texts' field separator: a table never spans two fields
    delimiter = "|" if header.lstrip().startswith("|") else "\t" if "\t" in header else "," if "," in header else ";" if ";" in header else "|" if "|" in header else ""
    if not delimiter:
        return
    cells = _cells(header, delimiter)
    if header[cells[0][0] : cells[0][1]].strip().isdigit():
        return  # a line-number gutter (cat -n, a read tool), not a header row
    columns = {}
    for index, (start, end) in enumerate(cells):
        name = header[start:end].strip().strip("\"'`*")
        kind = credential_word_kind(name) if 0 < len(name) <= 40 and " " not in name.strip() else None
        if kind is not None:
            columns[index] = "password" if kind == "password" else "secret"
    if not columns or len(cells) < 2:
        return
    pos = line_end + 1
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        line = text[pos:end]
        if not line.strip() or "\x00" in line:
            return
        if delimiter != "|" or not _MD_RULE.fullmatch(line):
            row = _cells(line, delimiter)
            if len(row) != len(cells):
                return
            for index, kind in columns.items():
                start, stop = row[index]
                value = line[start:stop].strip()
                value = value.strip("\"'`") if len(value) > 2 and value[0] == value[-1] and value[0] in "\"'`" else value
                if len(value) >= 3 and not is_placeholder(value) and value.lower() not in {"null", "none", "n/a", "-", "***"}:
                    offset = pos + start + line[start:stop].index(value)
                    yield offset, offset + len(value), kind
        pos = end + 1


def _command_spans(text: str, lowered: str, gate: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    """Matches of a command's ``pattern`` in windows around each occurrence of its ``gate`` word."""
    pos = lowered.find(gate)
    while pos != -1:
        start = max(0, lowered.rfind("\n", 0, max(0, pos - 200)) + 1, pos - 300)
        end = min(len(text), pos + 2000)
        pos = lowered.find(gate, end)
        for match in pattern.finditer(text, start, end):
            for group in ("value", "value2"):
                if group in pattern.groupindex and match.group(group) is not None and not is_placeholder(match.group(group)):
                    yield match.start(group), match.end(group), "password"


def _layout_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    seen: set[int] = set()
    for word in _HEADER_WORDS:
        if word not in gates:
            continue
        for pos in positions(lowered, word):  # shared with the other rules walking these words
            line_end = lowered.find("\n", pos, pos + 400)
            if line_end == -1:
                continue  # no line end within reach: not a header row (tested first: the cheapest)
            floor = max(0, pos - 400)  # a header line is short; never scan back further
            line_start = max(lowered.rfind("\n", floor, pos), lowered.rfind("\x00", floor, pos)) + 1
            if line_start in seen or (line_start == 0 and floor > 0):
                continue
            seen.add(line_start)
            if "(" in lowered[line_start:line_end] or "=" in lowered[line_start:line_end]:
                continue  # code, not a header row
            # cheap test first: the hit is a whole cell between delimiters (a header cell)
            left = max(lowered.rfind(d, line_start, pos) for d in _DELIMITERS)
            rights = [r for d in _DELIMITERS if (r := lowered.find(d, pos, line_end)) != -1]
            if left == -1 and not rights:
                continue
            cell = text[max(left + 1, line_start) : min(rights, default=line_end)].strip().strip("\"'`*")
            if cell and len(cell) <= 40 and ":" not in cell and credential_word_kind(cell) is not None:
                yield from _table_spans(text, line_start)
    for literal, pattern, back in (("name:", _K8S_NAME, 8), ('"name":', _JSON_NAME, 2)):
        if literal not in gates:
            continue
        pos = lowered.find(literal)
        while pos != -1:
            match = pattern.search(text, max(0, pos - back), min(len(text), pos + 600))
            pos = lowered.find(literal, pos + len(literal))
            if match is not None:
                kind = credential_word_kind(match.group("name"))
                value = match.group("value").strip()
                if kind is not None and len(value) >= 3 and not is_placeholder(value) and not value.startswith(("$(", "${")):
                    yield match.start("value"), match.start("value") + len(value), "password" if kind == "password" else "secret"
    # "passwd" and "master.key" are found from the hits of "pass"/"key" every rule shares.
    derived = set()
    if "pass" in gates and any(lowered.startswith("passwd", p) for p in positions(lowered, "pass")):
        derived.add("passwd")
    if "key" in gates and any(lowered.startswith("master.key", p - 7) for p in positions(lowered, "key")):
        derived.add("master.key")
    for words, pattern in _COMMANDS:
        for gate in words:
            if not (gate in gates or gate in derived):
                continue
            yield from _command_spans(text, lowered, gate, pattern)
    if '"auth":' in gates:
        for match in _DOCKER_AUTH.finditer(text):
            decoded = printable_text(base64_bytes(match.group("value")))
            if decoded is not None and ":" in decoded and len(decoded.split(":", 1)[1]) >= 3:
                yield match.start("value"), match.end("value"), "password"


_LITERALS = tuple(sorted({*(w for w in _HEADER_WORDS), "name:", '"name":', '"auth":',
                          *(gate for words, _ in _COMMANDS for gate in words if gate not in ("passwd", "master.key")), "key"}))

LAYOUT_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_layout_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: table columns, name/value lists and positional passwords of service commands",
    ),
)
"""One finder for the layouts in the module docstring."""
