"""Bounded, forgiving JSON Lines reader for Codex rollout files.

A rollout is appended to while Codex runs, so the reader meets:

* a **torn** last line (the writer is mid-line, or was killed): no newline at
  the end and not a complete JSON value -- counted in ``torn_lines``, skipped;
* two records **glued** on one line (an interrupted write followed by the
  next append): every complete JSON object on the line is decoded in turn with
  :meth:`json.JSONDecoder.raw_decode` and yielded; the line counts once in
  ``glued_lines``. A broken fragment is ``malformed_json``; decoding resumes at
  the next ``{"timestamp"`` (where a wrapped record starts), never inside the
  fragment's payload;
* a line longer than ``max_line_bytes`` (a pasted base64 image, a huge tool
  output): never held whole in memory -- the rest of the line is read and
  discarded in ``CHUNK_BYTES`` pieces, counted in ``oversized_lines``;
* invalid UTF-8: decoded with replacement characters, counted in
  ``undecodable_text``.

Memory is bounded by ``max_line_bytes`` + ``CHUNK_BYTES`` whatever the file
holds. Files are opened read-only (``open(..., "rb")``) and never locked.
JSON Lines itself: https://jsonlines.org (one UTF-8 JSON value per ``\\n``-ended line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import orjson

from memctl.connectors.model import ReadStats

__all__ = ["CHUNK_BYTES", "MAX_LINE_BYTES", "Record", "iter_records"]

MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longest line decoded (bytes). Codex cuts exec output at 10,000 characters, so only
pasted images and the like come near it; longer lines are skipped and counted."""

CHUNK_BYTES = 256 * 1024
"""Piece size used to skip past an over-long line."""

_DECODER = json.JSONDecoder()

RECORD_START = '{"timestamp"'
"""How every wrapped rollout record begins (serde writes ``timestamp`` first)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded JSON object of a rollout: ``line`` is its 1-based line number."""

    line: int
    value: dict[str, Any]


def _skip_rest(handle) -> bool:
    """Discard the rest of the current line; True when it ended with a newline."""
    while True:
        piece = handle.readline(CHUNK_BYTES)
        if not piece:
            return False
        if piece.endswith(b"\n"):
            return True


def _objects(text: str) -> tuple[list[Any], bool]:
    """Every JSON value on one line, and whether something unparsable was left between or after them."""
    values: list[Any] = []
    pos, end, broken = 0, len(text), False
    while pos < end:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            break
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ValueError:
            broken = True
            # Resynchronise at the next record start (a wrapped record opens with its
            # timestamp); any other brace may be inside the broken record's payload.
            nxt = text.find(RECORD_START, pos + 1)
            if nxt == -1:
                break
            pos = nxt
            continue
        values.append(value)
    return values, broken


def iter_records(path: Path, stats: ReadStats, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[Record]:
    """Yield the JSON objects of one JSON Lines file in order, never raising for bad content.

    Args:
        path: the file (opened read-only).
        stats: counters ``torn_lines``, ``glued_lines``, ``oversized_lines``,
            ``malformed_json``, ``undecodable_text`` are incremented with a
            bounded warning naming the file and line.
        max_line_bytes: longest line decoded.

    Raises:
        OSError: the file cannot be opened (the caller decides; content errors never raise).
    """
    with open(path, "rb") as handle:
        number = 0
        while True:
            raw = handle.readline(max_line_bytes + 1)
            if not raw:
                return
            number += 1
            complete = raw.endswith(b"\n")
            if not complete and len(raw) > max_line_bytes:
                ended = _skip_rest(handle)
                stats.warn("oversized_lines", f"{path.name}:{number}: line longer than {max_line_bytes:,} "
                           "bytes skipped" + ("" if ended else " (and torn)"))
                continue
            if complete:
                try:  # the common case, fast: one well-formed object on the line
                    value = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    pass
                else:
                    if isinstance(value, dict):
                        yield Record(number, value)
                        continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                stats.warn("undecodable_text", f"{path.name}:{number}: invalid UTF-8 replaced")
            if not text.strip():
                continue
            values, broken = _objects(text)
            objects = [v for v in values if isinstance(v, dict)]
            if not complete and (broken or not values):
                stats.warn("torn_lines", f"{path.name}:{number}: torn last line skipped (being written?)")
                for value in objects:  # records glued before the torn one are whole
                    yield Record(number, value)
                return
            if len(values) > 1:
                stats.warn("glued_lines", f"{path.name}:{number}: {len(values)} records glued on one line")
            if broken:
                stats.warn("malformed_json", f"{path.name}:{number}: unparsable JSON skipped")
            elif len(objects) < len(values):
                stats.warn("malformed_json", f"{path.name}:{number}: a JSON value that is not an object")
            for value in objects:
                yield Record(number, value)
