"""Values their container marks as secret, whatever they are named.

* CloudFormation template parameters with ``NoEcho: true`` (AWS CloudFormation User Guide, "Parameters": the
  value is masked in the console and API): the parameter's ``Default`` is a password written into the template,
  in YAML (``NoEcho`` and ``Default`` among the same parameter's keys, in any order) and JSON
  (``"NoEcho": true`` / ``"NoEcho": "true"`` and ``"Default": "…"`` in one object);
* password-manager exports in JSON: 1Password fields whose ``"designation"`` is ``"password"``
  (``.1pux``/``.1pif``: the field's ``"value"``), 1Password section fields of kind ``"concealed"``
  (``{"k": "concealed", "v": "…"}``), Bitwarden custom fields of type 1, hidden (``{"name": …, "value": …,
  "type": 1}``). CSV exports (``Title,Url,Username,Password,…``) are read as tables by
  :mod:`memctl.scrub.layouts`.

Only the value goes (kind ``password``); a placeholder (``<password>``, ``${X}``, ``changeme``) or an empty
value stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["MARKED_SECRET_DETECTORS"]

_NOECHO_TRUE = re.compile(r"noecho\\*[\"']?[ \t]*:[ \t]*\\*[\"']?true\b")
_YAML_DEFAULT = re.compile(r"(?m)^(?P<indent>[ \t]*)Default[ \t]*:[ \t]*(?P<value>[^\n\x00]*)$")
_JSON_DEFAULT = re.compile(r"\\*\"Default\\*\"[ \t]*:[ \t]*(?:\\*\"(?P<value>(?:[^\"\\\n\x00]|\\.)*)\\*\"|(?P<bare>[0-9][^,}\s]*))")
_REACH = 800
# (gate in the lowered text, test that the object is one, value key)
_FIELD_FORMS = (
    ('"designation"', re.compile(r"\"designation\"[ \t]*:[ \t]*\"password\""), "value"),
    ('"concealed"', re.compile(r"\"k\"[ \t]*:[ \t]*\"concealed\""), "v"),
    ('"type": 1', re.compile(r"\"type\"[ \t]*:[ \t]*1\b"), "value"),
    ('"type":1', re.compile(r"\"type\"[ \t]*:[ \t]*1\b"), "value"),
)


def _yaml_block(text: str, line_start: int) -> tuple[int, int, str]:
    """``(start, end, indent)`` of the YAML mapping holding the line at ``line_start``: the neighbouring lines
    indented as much (or more, for nested values)."""
    indent = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
    start = line_start
    while start > 0 and line_start - start < _REACH:
        previous = text.rfind("\n", 0, start - 1) + 1
        line = text[previous : start - 1]
        if not line.startswith(indent) or not line.strip() or line[len(indent) : len(indent) + 1] == "-":
            break
        start = previous
    end = text.find("\n", line_start)
    end = len(text) if end == -1 else end
    while end < len(text) and end - line_start < _REACH:
        following = text.find("\n", end + 1)
        following = len(text) if following == -1 else following
        line = text[end + 1 : following]
        if not line.startswith(indent) or not line.strip() or "\x00" in line:
            break
        end = following
    return start, end, indent


def _noecho_spans(text: str, lowered: str) -> Iterator[Span]:
    for hit in _NOECHO_TRUE.finditer(lowered):
        pos = hit.start()
        if pos > 0 and lowered[pos - 1] in "\"'\\":
            opening = text.rfind("{", max(0, pos - _REACH), pos)
            closing = text.find("}", pos, pos + _REACH)
            if opening == -1 or closing == -1 or "}" in text[opening:pos]:
                continue
            for match in _JSON_DEFAULT.finditer(text, opening, closing):
                group = "value" if match.group("value") is not None else "bare"
                if match.group(group) and not is_placeholder(match.group(group)):
                    yield match.start(group), match.end(group), "password"
            continue
        line_start = text.rfind("\n", 0, pos) + 1
        start, end, indent = _yaml_block(text, line_start)
        for match in _YAML_DEFAULT.finditer(text, start, end):
            if match.group("indent") != indent:
                continue
            raw = match.group("value")
            value = re.sub(r"[ \t]+#.*$", "", raw).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            if value and not is_placeholder(value):
                offset = match.start("value") + raw.index(value)
                yield offset, offset + len(value), "password"


def _field_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for gate, marker, key in _FIELD_FORMS:
        if gate not in gates:
            continue
        value_pattern = re.compile(r"\"" + key + r"\"[ \t]*:[ \t]*\"(?P<value>(?:[^\"\\\n\x00]|\\.)*)\"")
        pos = lowered.find(gate)
        while pos != -1:
            opening = text.rfind("{", max(0, pos - _REACH), pos)
            closing = text.find("}", pos, pos + _REACH)
            if opening != -1 and closing != -1 and "}" not in text[opening:pos] and "{" not in text[pos:closing]:
                body = text[opening:closing]
                if marker.search(body) is not None:
                    for match in value_pattern.finditer(text, opening, closing):
                        value = match.group("value")
                        if value and not is_placeholder(value):
                            yield match.start("value"), match.end("value"), "password"
            pos = lowered.find(gate, pos + len(gate))


def _marked_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "noecho" in gates:
        yield from _noecho_spans(text, lowered)
    yield from _field_spans(text, lowered, gates)


_LITERALS = ("noecho", *(gate for gate, _, _ in _FIELD_FORMS))

MARKED_SECRET_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_marked_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="AWS CloudFormation NoEcho parameters; 1Password and Bitwarden export fields",
    ),
)
"""One finder for the containers in the module docstring."""
