"""Decoding OpenCode's SQLite cells without ever aborting a read.

Shared by the layout adapters: a cell of invalid UTF-8, a malformed JSON
``data`` column or a non-numeric time column counts a warning in
:class:`memctl.connectors.model.ReadStats` and the row (or value) is skipped, the
read goes on.
"""

from __future__ import annotations

from typing import Any

import orjson

from memctl.connectors.model import ReadStats


class CellDecoder:
    """Turns raw cells into Python values, counting what it had to repair or skip.

    Attributes:
        stats: the counters the warnings go to (shared with the reader).
    """

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats

    def decode_text(self, raw: bytes) -> str:
        """sqlite3 ``text_factory``: UTF-8, invalid bytes replaced by U+FFFD (counted).
        sqlite3's default would raise for the whole fetch instead."""
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.stats.warn("undecodable_text", "a text cell held invalid UTF-8; bytes replaced with U+FFFD")
            return raw.decode("utf-8", errors="replace")

    def text(self, value: Any) -> str:
        """A JSON ``data`` cell as text; a BLOB-typed cell (same bytes, other storage class) is decoded too."""
        if isinstance(value, bytes):
            return self.decode_text(value)
        return value or ""

    def millis(self, value: Any, session_id: str) -> int:
        """An epoch-ms column as int; a non-numeric cell counts a warning and reads as 0."""
        try:
            return int(value or 0)
        except (TypeError, ValueError):
            self.stats.warn("missing_fields", f"session {session_id}: time column holds {value!r}")
            return 0

    def json_object(self, value: Any, what: str) -> dict[str, Any] | None:
        """The JSON object in a ``data`` cell, or None (counted as ``malformed_json``)
        when it is not valid JSON or not an object. ``what`` names the row in the warning."""
        try:
            payload = orjson.loads(self.text(value))
        except orjson.JSONDecodeError:
            self.stats.warn("malformed_json", f"{what}: malformed data JSON")
            return None
        if not isinstance(payload, dict):
            self.stats.warn("malformed_json", f"{what}: data JSON is not an object")
            return None
        return payload
