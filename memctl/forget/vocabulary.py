"""The words memctl's own files are made of: a value among them is refused by ``purge --text``.

Rule (one, checked before anything is changed; exit 2, the message names the file, never the
value): a value is refused when it occurs

* inside a JSON key of any ``.json`` file, or ``.jsonl`` line, under the data home (``status``,
  ``sources``, ``session``…: redacting it would change what memctl reads back — a renamed
  ``status`` key made the next ingest distil every session again);
* as a whole JSON string value of one of memctl's state files (the ``.json`` files at the top of
  the home: ``progress.json``, ``topics.json``, ``sleep_state.json``…) when it is a plain word
  (letters, no digit, joined by ``-``, ``_`` or spaces: ``distilled``, a topic name): those are
  states and names memctl matches on (a proposal or report quoting a word is data, not state);
* in the schema of an SQLite database under the home (table, column, index names:
  ``sqlite_master.sql``; only row values are data);
* in an internal asset (:func:`memctl.forget.scan.kind_of` ``asset``: the offline tiktoken
  cache, read by hash).

A secret is distinctive; a value that is memctl's vocabulary is not one, and removing it would
break the files. Below the rule, rewriting is limited as well: JSON files are rewritten only in
their string values (:func:`memctl.forget.files.redact_file`), SQLite files outside Cognee only in
row values, assets never.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any, Iterator

from memctl.config import DataHome

_PLAIN_WORD = re.compile(r"[^\W\d]+(?:[-_ ][^\W\d]+)*")


def refusal(home: DataHome, values: list[str]) -> str | None:
    """Why one of ``values`` is memctl's vocabulary (see the module doc), naming the file but not
    the value; None when none is."""
    from memctl.forget.needles import all_forms, holds
    from memctl.forget.scan import _has_sqlite_header, kind_of

    for path in _files(home.root):
        rel = path.relative_to(home.root)
        if kind_of(home, path) == "asset":
            if holds(_read(path), all_forms(values)):
                return f"a value is in memctl's internal asset {rel}"
        elif path.suffix in (".json", ".jsonl"):
            state = path.parent == home.root
            for document in _json_documents(path):
                for key, string in _keys_and_strings(document):
                    for value in values:
                        if key is not None and value in key:
                            return f"a value is part of a field name in {rel}"
                        if state and string == value and _PLAIN_WORD.fullmatch(value):
                            return f"a value is a plain word that {rel} uses as a name or state"
        elif _has_sqlite_header(path):
            schema = _schema(path)
            if any(value in schema for value in values):
                return f"a value is part of the database schema of {rel}"
    return None


def _files(root: Path) -> Iterator[Path]:
    for dirpath, _dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                yield path


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _json_documents(path: Path) -> list[Any]:
    text = _read(path).decode("utf-8", errors="replace")
    lines = text.splitlines() if path.suffix == ".jsonl" else [text]
    documents = []
    for line in lines:
        try:
            documents.append(json.loads(line))
        except ValueError:
            continue
    return documents


def _keys_and_strings(node: Any) -> Iterator[tuple[str | None, str | None]]:
    """``(key, None)`` for every object key and ``(None, string)`` for every string value, recursively."""
    if isinstance(node, dict):
        for key, child in node.items():
            yield str(key), None
            yield from _keys_and_strings(child)
    elif isinstance(node, list):
        for child in node:
            yield from _keys_and_strings(child)
    elif isinstance(node, str):
        yield None, node


def _schema(path: Path) -> str:
    """The schema text of an SQLite file, read without writing (:func:`memctl.forget.scan.read_only`)."""
    from memctl.forget.scan import read_only

    try:
        conn = read_only(path)
        try:
            return "\n".join(sql or name for name, sql in conn.execute("SELECT name, sql FROM sqlite_master"))
        finally:
            conn.close()
    except sqlite3.Error:
        return ""
