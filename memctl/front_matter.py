"""YAML front matter of memctl's Markdown files: notes, promoted memories and prompt templates.

The format (Jekyll's, as Obsidian and most static-site tools read it)::

    ---
    key: value
    ---
    body

The header is YAML between a first line ``---`` and the next line that is
exactly ``---``; the body is everything after. Rendering is deterministic
(key order kept, no line wrapping), so a file rendered twice from the same
values has the same bytes — the store and Cognee deduplicate by content hash.
"""

from __future__ import annotations

from typing import Any

import yaml

OPEN = "---\n"
CLOSE = "\n---\n"


class FrontMatterError(ValueError):
    """A file that must have front matter has none, or its header is not a YAML mapping."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(header, body)`` of ``text``; the body starts right after the closing ``---`` line.

    Raises:
        FrontMatterError: no front matter, an unclosed header, or a header that is not a YAML mapping.
    """
    if not text.startswith(OPEN):
        raise FrontMatterError("no front matter (the file must start with '---')")
    end = text.find(CLOSE, len(OPEN))
    if end < 0:
        raise FrontMatterError("the front matter is not closed by a '---' line")
    try:
        meta = yaml.safe_load(text[len(OPEN):end + 1]) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"unreadable front matter: {exc}") from exc
    if not isinstance(meta, dict):
        raise FrontMatterError("the front matter is not a mapping of keys to values")
    return meta, text[end + len(CLOSE):]


def read_front_matter(text: str) -> dict[str, Any]:
    """The header of ``text`` as a dict; ``{}`` when it has none or it is unreadable (never raises)."""
    try:
        return split_front_matter(text)[0]
    except FrontMatterError:
        return {}


def strip_front_matter(text: str) -> str:
    """The Markdown body of ``text`` without its front matter (leading blank lines dropped); ``text`` itself
    when it has no closed header. The header is not parsed: a damaged one still comes off."""
    if text.startswith(OPEN):
        end = text.find(CLOSE, len(OPEN))
        if end >= 0:
            return text[end + len(CLOSE):].lstrip("\n")
    return text


def render_front_matter(meta: dict[str, Any], body: str, *, blank_line: bool) -> str:
    """``---``, ``meta`` as YAML (key order kept), ``---``, an optional blank line, ``body`` stripped, newline."""
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"{OPEN}{header}---\n{chr(10) if blank_line else ''}{body.strip()}\n"
