"""Erasing from Cognee's stores so that no byte of removed text stays behind (``memctl purge``).

Cognee's own deletes are logical: ``delete_data`` removes a document's graph nodes, edges and
vector rows, but SQLite keeps freed pages, LanceDB keeps every older table version (its
fragments still hold the deleted rows' text) and a Kuzu file keeps freed pages too. Two tools:

* :func:`drop_dataset` — ``cognee.datasets.empty_dataset``: the dataset's own Kuzu and LanceDB
  databases are deleted whole (``delete_dataset`` calls the graph and vector handlers'
  ``delete_dataset``, cognee 1.6.5 ``modules/data/methods/delete_dataset.py``), its data rows and
  the raw-data files no other dataset refers to go with it. A later add creates new databases.
* :func:`compact_stores` — ``VACUUM`` every SQLite database under ``<home>/cognee`` (rewrites the
  file without free pages, https://sqlite.org/lang_vacuum.html) and, for every LanceDB table,
  ``optimize(cleanup_older_than=timedelta(0))`` (compacts fragments and deletes every version
  but the latest, lancedb ``Table.optimize``).
* :func:`clear_search_history` — Cognee 1.6.5 records every search, the question in
  ``queries.query_text`` and what it returned (retrieved chunk text included) in
  ``results.value`` of its relational database (``log_search_history`` in
  ``modules/search/operations/log_search_history.py``, called unconditionally from
  ``modules/search/methods/search.py`` and ``api/v1/recall/recall.py``: there is no setting
  that turns it off). memctl never reads that history, so a forget or purge deletes all of it
  (a row-by-row match would miss a chunk that held only part of a forgotten memory).
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from memctl.graph.configure import quiet, require_configured
from memctl.graph.errors import GraphMemoryError, validate_dataset_name
from memctl.graph.stores import find_dataset

SQLITE_MAGIC = b"SQLite format 3\x00"


@quiet
async def drop_dataset(dataset: str) -> bool:
    """Delete dataset ``dataset`` with its graph and vector databases; False when it does not exist.

    Raises:
        InvalidDatasetName: bad name.
        GraphMemoryError: Cognee failed to delete it.
    """
    require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await find_dataset(dataset)
    if ds is None:
        return False
    try:
        await cognee.datasets.empty_dataset(ds.id)
    except Exception as exc:
        raise GraphMemoryError(f"deleting dataset '{dataset}' failed: {exc}") from exc
    return True


# Cognee 1.6.5 tables holding searched text: ``Query`` (modules/search/models/Query.py) and
# ``Result`` (modules/search/models/Result.py).
SEARCH_HISTORY_TABLES = ("queries", "results")


def clear_search_history(cognee_root: Path, *, vacuum: bool = True) -> int:
    """Delete every row of :data:`SEARCH_HISTORY_TABLES` in each SQLite database under
    ``cognee_root`` that has them, then VACUUM it (freed pages keep the text otherwise).

    Returns the number of rows deleted. No Cognee call (the caller holds the data-home lock).

    Raises:
        GraphMemoryError: a database could not be changed (named).
    """
    deleted = 0
    for path in sqlite_files(cognee_root):
        try:
            conn = sqlite3.connect(path)
            try:
                tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                found = [t for t in SEARCH_HISTORY_TABLES if t in tables]
                if not found:
                    continue
                with conn:
                    for table in found:
                        deleted += conn.execute(f'DELETE FROM "{table}"').rowcount
                if vacuum:
                    _vacuum(conn)
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise GraphMemoryError(f"clearing Cognee's search history in {path} failed: {exc}") from exc
    return deleted


def _vacuum(conn: sqlite3.Connection) -> None:
    """Fold the WAL into the file, then rewrite the file without free pages."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")


def sqlite_files(root: Path) -> list[Path]:
    """Every SQLite database file under ``root`` (by its header), sorted."""
    found = []
    for path in sorted(Path(root).rglob("*")):
        try:
            if path.is_file() and not path.is_symlink():
                with open(path, "rb") as handle:
                    if handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                        found.append(path)
        except OSError:
            continue
    return found


def lance_databases(root: Path) -> list[Path]:
    """Every LanceDB database directory (``*.lance.db``) under ``root``, sorted."""
    return sorted(p for p in Path(root).rglob("*.lance.db") if p.is_dir())


def compact_stores(cognee_root: Path) -> dict[str, int]:
    """VACUUM every SQLite file and drop every old LanceDB table version under ``cognee_root``.

    Returns ``{"sqlite": n, "lance_tables": m}``. Runs with no Cognee call (the caller holds the
    data-home lock, so no writer is active).

    Raises:
        GraphMemoryError: a database could not be compacted (named).
    """
    import lancedb

    counts = {"sqlite": 0, "lance_tables": 0}
    for path in sqlite_files(cognee_root):
        try:
            conn = sqlite3.connect(path)
            try:
                _vacuum(conn)
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise GraphMemoryError(f"compacting {path} failed: {exc}") from exc
        counts["sqlite"] += 1
    for directory in lance_databases(cognee_root):
        try:
            db = lancedb.connect(str(directory))
            # A table is a ``<name>.lance`` directory of the database (lancedb's local layout).
            for name in sorted(p.name[: -len(".lance")] for p in directory.glob("*.lance") if p.is_dir()):
                db.open_table(name).optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
                counts["lance_tables"] += 1
        except Exception as exc:  # noqa: BLE001 - lancedb raises its own and OSError alike
            raise GraphMemoryError(f"compacting {directory} failed: {exc}") from exc
    return counts
