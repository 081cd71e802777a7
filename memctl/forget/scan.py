"""Which files under the data home hold a value, sorted by how each must be rewritten.

Kinds (:func:`kind_of`): ``blob`` (``store/versions/``: purged through the store, see
:mod:`memctl.store.purge`), ``store`` (a current store file: its content is a blob too),
``audit`` (the append-only log: never rewritten; a purge only ever writes hashes into it),
``graph`` (Cognee's databases: SQLite, LanceDB, Kuzu — rebuilt, see :mod:`memctl.forget.text`),
``index`` (the BM25 caches under ``index/``: deleted and rebuilt), ``lock`` (the lock file,
skipped), ``asset`` (memctl's internal assets: the offline tiktoken cache under
``cognee/tiktoken/``, read by hash, and ``cognee/cognee.env``, rewritten from Settings: never
rewritten), ``sqlite`` (an SQLite database outside Cognee: only its row values are rewritten) and
``file`` (everything else: rewritten in place, atomically; a JSON file only in its string values,
:func:`memctl.forget.files.redact_file`).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memctl.config import DataHome
from memctl.forget.needles import holds

_GRAPH_SUFFIXES = (".pkl", ".kuzu", ".db", ".lance", ".wal", ".shadow")


def kind_of(home: DataHome, path: Path) -> str:
    """The kind (see the module doc) of a file under the data home."""
    rel = path.relative_to(home.root).parts
    if path == home.lock_file or path.name.endswith(".lock"):
        return "lock"
    if rel[:2] == ("store", "versions"):
        return "blob"
    if rel[:2] == ("store", "audit"):
        return "audit"
    if rel[:1] == ("store",):
        return "store"
    if rel[:2] == ("index", "notes"):
        return "index"
    if rel[:2] == ("cognee", "tiktoken") or rel == ("cognee", "cognee.env"):
        return "asset"
    if rel[:1] == ("cognee",) and _is_graph_store(path):
        return "graph"
    if _has_sqlite_header(path):
        return "sqlite"
    return "file"


def _has_sqlite_header(path: Path) -> bool:
    from memctl.graph.erase import SQLITE_MAGIC

    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _is_graph_store(path: Path) -> bool:
    if any(part.endswith(".lance.db") for part in path.parts) or "databases" in path.parts:
        return True
    from memctl.graph.erase import SQLITE_MAGIC

    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC or path.suffix in _GRAPH_SUFFIXES
    except OSError:
        return False


def files_holding(home: DataHome, needles: list[bytes]) -> list[Path]:
    """Every regular file under the data home whose bytes contain any of ``needles``, sorted.

    Symlinks are never followed (a purge rewrites only what the home holds).
    """
    found = []
    for dirpath, dirnames, filenames in os.walk(home.root, followlinks=False):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if holds(data, needles):
                found.append(path)
    return sorted(found)


def read_only(db: Path) -> sqlite3.Connection:
    """A connection that reads ``db`` and writes nothing beside it (``--dry-run`` changes no file):
    ``immutable=1`` when no ``-wal`` file exists (SQLite then creates no ``-shm``/``-wal``,
    https://sqlite.org/uri.html#uriimmutable), else ``mode=ro`` so the WAL's pages are read too.

    Raises:
        sqlite3.Error: not openable.
    """
    wal = db.with_name(db.name + "-wal")
    return sqlite3.connect(f"file:{db}?{'mode=ro' if wal.exists() else 'mode=ro&immutable=1'}", uri=True)
