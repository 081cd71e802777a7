"""Minimal edits of JSONC text (JSON with ``//`` and ``/* */`` comments and trailing commas), keeping everything else.

No JSONC library is installed, so this is a small tokenizer over the JSON
grammar (RFC 8259) plus the two comment forms and trailing commas that
OpenCode's config accepts (it reads config with ``jsonc-parser``'s
``allowTrailingComma``). It can:

* :func:`parse` the text into Python values (comments and trailing commas ignored);
* :func:`set_member` set ``path`` (a list of object keys) to a value by
  replacing only that value's characters, or by inserting one member into the
  innermost existing object, in the file's own indentation, keeping that
  object's trailing-comma style. Every other byte of the file stays as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memctl.exit_codes import UsageError


class JsoncError(UsageError):
    """The text is not JSON/JSONC (the message names the line and column) or the path crosses a non-object."""


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = ("true", "false", "null")


@dataclass
class _Member:
    key: str
    key_start: int
    value: "_Node"
    comma_end: int | None = None  # index just past this member's comma, if it has one


@dataclass
class _Node:
    start: int
    end: int
    kind: str  # object | array | scalar
    members: list[_Member] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def fail(self, message: str) -> JsoncError:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return JsoncError(f"{message} at line {line}, column {column}")

    def skip(self) -> None:
        """Skip whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unclosed /* comment")
                self.pos = end + 2
            else:
                return

    def string(self) -> str:
        start = self.pos
        self.pos += 1
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                self.pos += 2
            elif ch == '"':
                self.pos += 1
                try:
                    return json.loads(self.text[start:self.pos])
                except ValueError as exc:
                    raise self.fail(f"bad string ({exc})") from None
            elif ch == "\n":
                break
            else:
                self.pos += 1
        raise self.fail("unterminated string")

    def value(self) -> _Node:
        self.skip()
        start, text = self.pos, self.text
        if start >= len(text):
            raise self.fail("unexpected end of text")
        ch = text[start]
        if ch == "{":
            return self.container("}", start)
        if ch == "[":
            return self.container("]", start)
        if ch == '"':
            self.string()
            return _Node(start, self.pos, "scalar")
        for literal in _LITERALS:
            if text.startswith(literal, start):
                self.pos += len(literal)
                return _Node(start, self.pos, "scalar")
        number = _NUMBER.match(text, start)
        if number:
            self.pos = number.end()
            return _Node(start, self.pos, "scalar")
        raise self.fail(f"unexpected {ch!r}")

    def container(self, close: str, start: int) -> _Node:
        node = _Node(start, start, "object" if close == "}" else "array")
        self.pos += 1
        while True:
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == close:
                self.pos += 1
                node.end = self.pos
                return node
            if close == "}":
                if self.pos >= len(self.text) or self.text[self.pos] != '"':
                    raise self.fail("expected a quoted key")
                key_start = self.pos
                key = self.string()
                self.skip()
                if self.pos >= len(self.text) or self.text[self.pos] != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
                member = _Member(key, key_start, self.value())
                node.members.append(member)
            else:
                member = _Member("", self.pos, self.value())
                node.members.append(member)
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                member.comma_end = self.pos
                continue
            if self.pos < len(self.text) and self.text[self.pos] == close:
                continue
            raise self.fail(f"expected ',' or '{close}'")


def _tree(text: str) -> _Node:
    parser = _Parser(text)
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("unexpected text after the value")
    return root


def _plain(text: str, node: _Node) -> Any:
    if node.kind == "object":
        return {m.key: _plain(text, m.value) for m in node.members}
    if node.kind == "array":
        return [_plain(text, m.value) for m in node.members]
    return json.loads(text[node.start:node.end])


def parse(text: str) -> Any:
    """The value of JSONC ``text`` (an empty or blank text is ``{}``).

    Raises:
        JsoncError: not JSON/JSONC.
    """
    if not text.strip():
        return {}
    return _plain(text, _tree(text))


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, index: int) -> str:
    line_start = text.rfind("\n", 0, index) + 1
    return re.match(r"[ \t]*", text[line_start:]).group(0)


def _render(value: Any, unit: str, indent: str) -> str:
    dumped = json.dumps(value, indent=unit if unit else 2, ensure_ascii=False)
    return dumped.replace("\n", "\n" + indent)


def set_member(text: str, path: list[str], value: Any) -> str:
    """``text`` with the member at ``path`` set to ``value`` (see the module doc); unchanged when it already is.

    Raises:
        JsoncError: ``text`` is not JSONC, or a key on ``path`` holds something other than an object.
    """
    if not text.strip():
        nested: Any = value
        for key in reversed(path):
            nested = {key: nested}
        return json.dumps(nested, indent=2, ensure_ascii=False) + "\n"
    root = _tree(text)
    unit = _indent_unit(text)
    node, depth = root, 0
    for index, key in enumerate(path):
        if node.kind != "object":
            raise JsoncError(f"'{'.'.join(path[:index])}' is not an object; fix the file by hand")
        member = next((m for m in reversed(node.members) if m.key == key), None)  # the last duplicate wins
        if member is None:
            nested = value
            for later in reversed(path[index + 1:]):
                nested = {later: nested}
            return _insert(text, node, key, nested, unit)
        node, depth = member.value, depth + 1
    if _plain(text, node) == value:
        return text
    indent = _line_indent(text, node.start)
    return text[:node.start] + _render(value, unit, indent) + text[node.end:]


def _insert(text: str, obj: _Node, key: str, value: Any, unit: str) -> str:
    """Add ``"key": value`` as the last member of ``obj``."""
    if "\n" not in text[obj.start:obj.end]:  # a one-line object stays on one line
        entry = f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
        if not obj.members:
            return text[:obj.start + 1] + entry + text[obj.end - 1:]
        last = obj.members[-1]
        if last.comma_end is not None:
            return text[:last.comma_end] + f" {entry}," + text[last.comma_end:]
        return text[:last.value.end] + f", {entry}" + text[last.value.end:]
    outer = _line_indent(text, obj.start)
    if not obj.members:
        inner = outer + unit
        body = f"\n{inner}{json.dumps(key)}: {_render(value, unit, inner)}\n{outer}"
        return text[:obj.start + 1] + body + text[obj.end - 1:]
    last = obj.members[-1]
    inner = _line_indent(text, last.key_start)
    if last.key_start and text[text.rfind("\n", 0, last.key_start) + 1:last.key_start].strip():
        inner = outer + unit  # the last member shares its line with something else: use one level in
    entry = f"{json.dumps(key)}: {_render(value, unit, inner)}"
    if last.comma_end is not None:  # keep the trailing-comma style
        anchor = _after_line_comment(text, last.comma_end)
        return text[:anchor] + f"\n{inner}{entry}," + text[anchor:]
    anchor = _after_line_comment(text, last.value.end)
    return text[:last.value.end] + "," + text[last.value.end:anchor] + f"\n{inner}{entry}" + text[anchor:]


def _after_line_comment(text: str, index: int) -> int:
    """End of the line at ``index`` when only blanks and comments follow there (a comment stays with its
    member), else ``index``."""
    pos = index
    while True:
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if text.startswith("//", pos):
            end = text.find("\n", pos)
            return len(text) if end < 0 else end
        if text.startswith("/*", pos):
            end = text.find("*/", pos)
            if end >= 0 and "\n" not in text[pos:end]:
                pos = end + 2
                continue
        return pos if pos < len(text) and text[pos] in "\r\n" else index


def remove_member(text: str, path: list[str]) -> str:
    """``text`` without the member at ``path`` (its line, its comma and a comment on its line); unchanged when
    there is none. Removing the last member of an object also removes the comma before it, unless the
    object keeps trailing commas. Every other byte stays as it was.

    Raises:
        JsoncError: ``text`` is not JSONC.
    """
    if not text.strip():
        return text
    node = _tree(text)
    parent, member = None, None
    for key in path:
        if node.kind != "object":
            return text
        parent, member = node, next((m for m in reversed(node.members) if m.key == key), None)
        if member is None:
            return text
        node = member.value
    assert parent is not None and member is not None
    line_start = text.rfind("\n", 0, member.key_start) + 1
    own_line = not text[line_start:member.key_start].strip()
    start = line_start if own_line else member.key_start
    end = _after_line_comment(text, member.comma_end if member.comma_end is not None else member.value.end)
    if own_line and text.startswith("\n", end):
        end += 1
    elif own_line and text.startswith("\r\n", end):
        end += 2
    elif not own_line and member.comma_end is not None:
        while end < len(text) and text[end] in " \t":
            end += 1
    elif not own_line:
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    result = text[:start] + text[end:]
    position = parent.members.index(member)
    if member.comma_end is None and position > 0:  # the member before loses its comma (no trailing comma then)
        before = parent.members[position - 1]
        if before.comma_end is not None:
            result = result[:before.comma_end - 1] + result[before.comma_end:]
    return result
