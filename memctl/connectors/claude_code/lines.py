"""Bounded, forgiving reading of a JSONL history file (one JSON object a line).

Claude Code appends one record a line while it works, so a reader meets:

* lines of several megabytes (a tool output, a base64 image): each line is
  read with ``readline(limit)``, so memory stays within ``max_line_bytes``;
  a longer line is drained in 1 MiB pieces, never held, and counted in
  ``oversized_lines``;
* a torn last line (the agent is writing it) and any other line that is not
  whole JSON: counted in ``torn_lines``, never fatal;
* two objects glued on one line after an interrupted write (``{…}{…}``): each
  object is decoded with :meth:`json.JSONDecoder.raw_decode` and yielded,
  the line counted once in ``glued_lines``; a torn piece before the next
  object is dropped and counted in ``torn_lines``.

Records whose kind repeats the whole model request are recognised from the
line's first bytes and skipped without being decoded (``skip_prefixes``).
Files are opened read-only (``"rb"``); nothing is ever written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import orjson

from memctl.connectors.model import ReadStats

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Lines longer than this (bytes, newline included) are skipped unread: 16 MiB."""

ORJSON_MAX_BYTES = 256 * 1024
"""Lines up to this size are decoded with orjson."""

_DRAIN = 1024 * 1024
_DECODER = json.JSONDecoder()


def _objects(raw: bytes, stats: ReadStats, where: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of one line: one, or several glued ones (see the module doc). Short lines are
    decoded with orjson (fast); long ones with the standard library, whose peak memory is a few times
    the line (orjson's parse of a multi-megabyte line peaks at over ten times it)."""
    try:
        value = orjson.loads(raw) if len(raw) <= ORJSON_MAX_BYTES else json.loads(raw)
    except ValueError:
        pass
    else:
        if isinstance(value, dict):
            yield value
        elif raw.strip():
            stats.warn("malformed_json", f"{where}: a line that is not a JSON object")
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        stats.warn("undecodable_text", f"{where}: not UTF-8, decoded with replacements")
        text = raw.decode("utf-8", errors="replace")
    text = text.strip()
    if not text:
        return
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    else:
        if isinstance(value, dict):
            yield value
        else:
            stats.warn("malformed_json", f"{where}: a line that is not a JSON object")
        return
    found, pos, torn = 0, 0, False
    while pos < len(text):
        start = text.find("{", pos)
        if start < 0:
            break
        if start > pos and text[pos:start].strip():
            torn = True
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            torn = True
            pos = text.find("{", start + 1)
            if pos < 0:
                break
            continue
        if isinstance(value, dict):
            found += 1
            yield value
        pos = end
    if found > 1:
        stats.warn("glued_lines", f"{where}: {found} records glued on one line")
    if torn or not found:
        stats.warn("torn_lines", f"{where}: a torn line (not whole JSON) skipped")


def iter_records(path: Path, stats: ReadStats, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 skip_prefixes: tuple[bytes, ...] = (), max_lines: int | None = None) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of ``path`` in file order, in bounded memory.

    Args:
        path: a JSONL file, opened read-only.
        stats: where skipped lines are counted (see the module doc).
        max_line_bytes: the per-line limit in bytes.
        skip_prefixes: lines starting with one of these bytes are skipped undecoded (not counted).
        max_lines: stop after this many lines (a head scan), None for the whole file.

    Raises:
        OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as handle:
        number = 0
        while max_lines is None or number < max_lines:
            line = handle.readline(max_line_bytes)
            if not line:
                return
            number += 1
            if len(line) >= max_line_bytes and not line.endswith(b"\n"):
                while True:  # drain the rest of the over-long line without keeping it
                    piece = handle.readline(_DRAIN)
                    if not piece or piece.endswith(b"\n"):
                        break
                stats.warn("oversized_lines", f"{path.name} line {number}: longer than {max_line_bytes:,} bytes, skipped")
                continue
            if skip_prefixes and line.startswith(skip_prefixes):
                continue
            if line.isspace():
                continue
            yield from _objects(line, stats, f"{path.name} line {number}")


def read_bounded_text(path: Path, limit: int) -> tuple[str, int]:
    """The text of a side file, at most ``limit`` bytes: the head and the tail (half each) when longer.

    Returns:
        (text, total size in bytes); a cut says ``[… N bytes not read …]``.

    Raises:
        OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(0)
        if size <= limit:
            return handle.read().decode("utf-8", errors="replace"), size
        half = limit // 2
        head = handle.read(half)
        handle.seek(size - half)
        tail = handle.read(half)
    missing = size - 2 * half
    return (head.decode("utf-8", errors="replace") + f"\n[… {missing:,} bytes not read …]\n"
            + tail.decode("utf-8", errors="replace")), size
