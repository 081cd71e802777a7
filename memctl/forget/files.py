"""Rewriting plain files of the data home: redacted in place, atomically, or deleted.

A JSON file is memctl's state or a report: it is parsed and only its string values are redacted
(keys never: a key is structure, :mod:`memctl.forget.vocabulary` refuses a value found in one),
then written back as :func:`memctl.atomic.atomic_write_json` writes state (2-space indent,
sorted keys) — compact, on one line, when it was. A file that does not parse is rewritten as bytes.
An SQLite database outside Cognee is rewritten only in its text row values (:func:`redact_rows`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_bytes, fsync_directory
from memctl.forget.needles import holds, redact


def redact_file(path: Path, needles: list[bytes]) -> int:
    """Replace every needle in ``path`` by the marker (temp file, fsync, rename; mode kept);
    returns the replacements made (0: the file is unchanged or gone)."""
    try:
        data = path.read_bytes()
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0
    redacted, count = _redact_json(data, needles) if path.suffix == ".json" else (None, 0)
    if redacted is None:
        redacted, count = redact(data, needles)
    if count:
        atomic_write_bytes(path, redacted, mode=mode)
    return count


def _redact_json(data: bytes, needles: list[bytes]) -> tuple[bytes | None, int]:
    """``data`` parsed, string values redacted, serialised again; ``(None, 0)`` when not JSON."""
    try:
        document = json.loads(data)
    except ValueError:
        return None, 0
    counter = [0]

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: walk(child) for key, child in node.items()}
        if isinstance(node, list):
            return [walk(child) for child in node]
        if isinstance(node, str):
            redacted, n = redact(node.encode("utf-8"), needles)
            counter[0] += n
            return redacted.decode("utf-8", errors="replace") if n else node
        return node

    document = walk(document)
    if b"\n" in data.strip():
        text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    else:
        text = json.dumps(document, ensure_ascii=False) + ("\n" if data.endswith(b"\n") else "")
    return text.encode("utf-8"), counter[0]


def redact_rows(path: Path, needles: list[bytes]) -> int:
    """Redact the text values of every row of the SQLite database ``path`` (schema untouched),
    then VACUUM so no freed page keeps the old text; returns the cells changed.

    Raises:
        sqlite3.Error: the database could not be changed.
    """
    changed = [0]

    def rewrite(value: str) -> str:
        redacted, n = redact(value.encode("utf-8"), needles)
        if n:
            changed[0] += 1
            return redacted.decode("utf-8", errors="replace")
        return value

    conn = sqlite3.connect(path)
    try:
        conn.create_function("memctl_holds", 1, lambda v: holds(v.encode("utf-8"), needles), deterministic=True)
        conn.create_function("memctl_redact", 1, rewrite)
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                                   "AND name NOT LIKE 'sqlite_%'")]
        with conn:
            for table in tables:
                columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
                for column in columns:
                    conn.execute(f'UPDATE "{table}" SET "{column}" = memctl_redact("{column}") '
                                 f'WHERE typeof("{column}") = \'text\' AND memctl_holds("{column}")')
        conn.execute("VACUUM")
    finally:
        conn.close()
    return changed[0]


def delete_file(path: Path) -> bool:
    """Delete ``path`` and fsync its directory; True when it existed."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    fsync_directory(path.parent)
    return True
