"""A data home that was copied, moved or restored elsewhere: Cognee's stored paths follow it.

Cognee 1.6.5 writes absolute paths into its SQLite database
(``<home>/cognee/system/databases/cognee_db``), checked on a real ingested
home (every column of every table searched for the home's path):

* ``dataset_database.vector_database_url`` — the LanceDB directory of each
  dataset; read on every search (``cognee/context_global_variables.py``), so a
  copy would search, and cognify would write into, the original's vectors;
* ``data.raw_data_location`` — Cognee's own text copy under ``cognee/data/``,
  read by cognify and removed by ``delete_data`` (only when under the current
  data root, ``SqlAlchemyAdapter.remove_data_file_if_unreferenced``);
* ``data.original_data_location`` and ``data.external_metadata`` — the note's
  ``file://`` URI, which memctl matches to remove or replace a document
  (:mod:`memctl.graph.add`), and the ``source_uri`` search hits carry;
* ``pipeline_runs.run_info`` — the added paths, for the record.

The Kuzu file is found from the configured system root and
``graph_database_name`` (``graph_database_url`` is empty); LanceDB names its
tables relatively. Kuzu node properties and LanceDB payloads also hold the
paths as they were at cognify time: they are copies for provenance that
nothing reads back to open a file, and search hits are mapped into the store
through every root the home has had (:func:`store_relative`) — so they are
left as they are (rewriting them would be a second, non-atomic write in two
more engines). ``cognee.env`` is rewritten by every configure.

The home records where it is in ``location.json`` (:attr:`DataHome.location`:
``root`` as configured, ``real_root`` resolved, ``previous`` roots). On open
(:func:`ensure_location`, called by :func:`memctl.graph.configure.configure`)
a home whose Cognee paths point into another root is relocated: under the
data-home lock, every string in the database holding the old root (plain or
``file://``, raw or percent-encoded) gets the new root in one SQLite
transaction; then the relocation is appended to the store's audit log (op
``relocate``) and the record is replaced atomically. A crash before the commit
leaves the old paths (the next open relocates again); after it, the next open
sees the paths at home and finishes the record and audit entry. A path
pointing outside every root of the home is never rewritten: the home is
refused as before (:func:`location_problem`). Nothing is written outside the
home: a copy whose original still exists leaves the original alone.

``location.json`` may come from an imported archive, so its roots are not
trusted blindly: a place with a spelling that is relative, holds ``..``, is
``/``, or is the new home or an ancestor of it is ignored (its paths then
count as outside), paths are compared after ``..`` is collapsed, and inside
the transaction every stored path must lie in the home after the rewrite or
nothing is committed. Another spelling of the same directory (``..``, a
symlink, a trailing slash) is compared by resolved path and is no move. One
process opens a home once at a time (a module lock: ``ask``'s prewarm thread
and its main thread), and the record is re-read under the data-home lock
before it is written: one ``relocate`` record per move.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote, unquote, urlparse

from memctl.config import DataHome
from memctl.exit_codes import HomeBusyError, HomeError
from memctl.state_file import StateFileError, StateModel, read_state, write_state

__all__ = ["LocationRecord", "Relocation", "RelocationError", "cognee_db", "ensure_location", "location_problem",
           "pending_relocation", "store_relative"]

AUDIT_SUBJECT = "cognee/system/databases/cognee_db"
# Columns whose paths Cognee or memctl open or match; each must lie in the home.
_PATH_COLUMNS = (("dataset_database", "vector_database_url"), ("dataset_database", "graph_database_url"),
                 ("data", "raw_data_location"), ("data", "original_data_location"))
_VECTOR_URL = re.compile(r"^(?P<root>/.+)/cognee/system/databases/[^/]+/[^/]+$")
# ask's prewarm thread and its main thread both open the home: one ensure_location at a time per process,
# so the second sees what the first wrote (one relocate record per move). Re-entrant: ingest opens nested.
_PROCESS_LOCK = threading.RLock()


class RelocationError(HomeError):
    """The home's Cognee paths point outside every root it has had (exit 7): it cannot be relocated."""


@dataclass
class LocationRecord:
    """Contents of ``location.json``: where the home is (as configured, and resolved), and where it was.

    ``previous`` lists ``{"root", "real_root"}`` of earlier places, oldest first.
    """

    root: str
    real_root: str
    previous: list[dict[str, str]] = field(default_factory=list)

    def roots(self) -> list[str]:
        """Every spelling of every place, current first, duplicates removed."""
        spellings = [self.root, self.real_root]
        for place in reversed(self.previous):
            spellings += [place.get("root", ""), place.get("real_root", "")]
        return [s for s in dict.fromkeys(spellings) if s]

    def as_dict(self) -> dict[str, Any]:
        return {"format": 1, "root": self.root, "real_root": self.real_root, "previous": self.previous}


@dataclass
class Relocation:
    """What :func:`ensure_location` did: ``old_root`` → ``new_root``, ``values`` strings rewritten
    (0 when a killed run had already committed them), the audit ``seq``; ``None`` fields when
    nothing moved."""

    old_root: str | None = None
    new_root: str | None = None
    values: int = 0
    audit_seq: int | None = None
    recorded: bool = False


def cognee_db(home: DataHome) -> Path:
    """Cognee's relational database of ``home`` (may not exist)."""
    return home.cognee / "system" / "databases" / "cognee_db"


class LocationFile(StateModel):
    """``location.json``'s shape as read (see :meth:`LocationRecord.as_dict`)."""

    root: str
    real_root: str | None = None
    previous: list[Any] | None = None


def read_record(home: DataHome) -> LocationRecord | None:
    """``location.json``, or None when absent or unreadable (an older home; it is written on open)."""
    try:
        data = read_state(home.location, LocationFile)
    except StateFileError:
        return None
    if data is None:
        return None
    return LocationRecord(data.root, data.real_root or data.root, [p for p in data.previous or [] if isinstance(p, dict)])


def _here(home: DataHome) -> tuple[str, str]:
    return str(home.root), str(home.root.resolve())


def _local(value: str) -> str | None:
    """The file-system path a stored value names (plain path or ``file://`` URI), or None."""
    if value.startswith("file://"):
        return unquote(urlparse(value).path)
    return value if value.startswith("/") else None


def _under(path: str, root: str) -> bool:
    """Whether ``path`` lies in ``root``, both read lexically after ``..`` is collapsed (a stored
    ``<home>/../elsewhere`` is not in the home)."""
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _trusted_root(root: str, home: DataHome) -> bool:
    """Whether a recorded or inferred old root may be rewritten to ``home``: absolute, without ``..``, and
    neither ``/`` nor the home's own place nor an ancestor of it. A crafted ``location.json`` (an imported
    archive) naming ``/`` or the new home's parent would otherwise claim every path as the home's own."""
    if not root.startswith("/") or ".." in root.split("/") or os.path.normpath(root) == "/":
        return False
    for here in _here(home):
        if _under(here, root):
            return False
    return True


def _path_values(connection: sqlite3.Connection) -> Iterator[str]:
    for table, column in _PATH_COLUMNS:
        try:
            rows = connection.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL').fetchall()
        except sqlite3.OperationalError:  # an older schema without this table or column
            continue
        for (value,) in rows:
            if isinstance(value, str) and (local := _local(value)) is not None:
                yield local


def _stored_root(paths: list[str]) -> str | None:
    """The home root Cognee's paths were written under, read from a vector-store URL's shape."""
    for path in paths:
        if match := _VECTOR_URL.match(path):
            return match["root"]
    return None


@dataclass
class _Survey:
    """Where the stored paths point: ``old`` spellings to rewrite (empty: already here); ``outside``,
    a path under no root of the home."""

    old: list[str]
    outside: str | None
    record: LocationRecord | None


def _survey(home: DataHome, connection: sqlite3.Connection) -> _Survey:
    record = read_record(home)
    here = _here(home)
    paths = list(_path_values(connection))
    known = _trusted_roots(record, home)
    inferred = _stored_root(paths)
    if inferred and inferred not in known and _trusted_root(inferred, home):
        known.append(inferred)
    old: list[str] = []
    outside = None
    for path in paths:
        if any(_under(path, root) for root in here):
            continue
        root = next((r for r in known if r not in here and _under(path, r)), None)
        if root is None:
            outside = outside or path
        elif root not in old:
            old.append(root)
    if old and _same_directory(old, here[1]):
        old = []  # another spelling of this very directory (a symlink): nothing moved
    return _Survey(old=old, outside=outside, record=record)


def _trusted_roots(record: LocationRecord | None, home: DataHome) -> list[str]:
    """The record's roots that may be rewritten: a place one of whose spellings is untrusted
    (:func:`_trusted_root`) is dropped whole, its other spelling being as crafted."""
    if record is None:
        return []
    places = [{"root": record.root, "real_root": record.real_root}, *reversed(record.previous)]
    spellings = [s for place in places if all(_trusted_root(s, home) for s in (place.get("root"),
                                                                                place.get("real_root")) if s)
                 for s in (place.get("root"), place.get("real_root")) if s]
    return list(dict.fromkeys(spellings))


def _same_directory(roots: list[str], real_here: str) -> bool:
    try:
        return all(os.path.samefile(root, real_here) for root in roots)
    except OSError:
        return False


def _open(db: Path, *, write: bool) -> sqlite3.Connection:
    if write:
        connection = sqlite3.connect(str(db), timeout=30.0, isolation_level=None)
    else:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30.0)
    return connection


def _read_survey(home: DataHome) -> _Survey | None:
    """:func:`_survey` on a read-only connection; None for a missing or unreadable database."""
    db = cognee_db(home)
    if not db.is_file():
        return None
    try:
        connection = _open(db, write=False)
        try:
            return _survey(home, connection)
        finally:
            connection.close()
    except sqlite3.Error:
        return None


def location_problem(home: DataHome) -> str | None:
    """Why ``home``'s Cognee stores cannot be used or relocated here, or None. Read-only, no Cognee import;
    a missing or unreadable database is no location problem."""
    survey = _read_survey(home)
    if survey is None or survey.outside is None:
        return None
    return (f"the graph store in {home.cognee} points at {Path(survey.outside).parent}, outside every place this "
            "data home has been (moved or copied from a place it never recorded), so its paths cannot be moved "
            f"here. Rebuild it: delete {home.cognee} and run `memctl ingest`")


def pending_relocation(home: DataHome) -> str | None:
    """A description of the relocation the next open will do (``"<old> → <new>"``), or None. Read-only."""
    survey = _read_survey(home)
    if survey is None or survey.outside is not None or not survey.old:
        return None
    return f"{', '.join(survey.old)} → {home.root}"


def ensure_location(home: DataHome, *, actor: str = "memctl") -> Relocation:
    """Make ``home``'s Cognee paths point into ``home`` and record where it is (module doc).

    Takes the data-home lock without waiting, unless this process holds it
    (ingest, sleep). Writes ``location.json`` only when it differs; a home
    without a Cognee database only gets its record.

    Returns:
        :class:`Relocation` (``old_root`` None when nothing moved).

    Raises:
        RelocationError: a stored path points outside every root of the home (exit 7).
        HomeBusyError: the home moved and another run holds its lock (exit 6): nothing was changed.
        sqlite3.Error / OSError: the database or the record could not be written (nothing half-done:
            the transaction rolled back).
    """
    with _PROCESS_LOCK:
        problem = location_problem(home)
        if problem:
            raise RelocationError(problem)
        if pending_relocation(home) is None:
            if not _is_here(read_record(home), home):
                _record_locked(home, actor)
            return Relocation()
        if home.holds_lock():
            return _relocate_locked(home, actor)
        with home.lock(wait=False, offer_wait=False,
                       error=lambda message, code: HomeBusyError(
                           f"this data home was moved or copied and its graph paths must be updated, but {message}")):
            return _relocate_locked(home, actor)


def _record_locked(home: DataHome, actor: str) -> None:
    """Write the record under the data-home lock, re-reading it there (another process may have just
    written it). A run holding the lock (ingest, sleep) opens the home too and writes it: skip then."""
    if home.holds_lock():
        _record_if_changed(home, read_record(home), old=None, actor=actor)
        return
    try:
        with home.lock(wait=False, offer_wait=False):
            _record_if_changed(home, read_record(home), old=None, actor=actor)
    except HomeBusyError:
        pass


def _is_here(record: LocationRecord | None, home: DataHome) -> bool:
    """Whether ``record`` names this very directory, however spelt (``..``, a symlink, a trailing slash):
    compared by resolved path, so another spelling is no move."""
    if record is None:
        return False
    real_here = _here(home)[1]
    return any(os.path.realpath(r) == real_here for r in (record.real_root, record.root) if r.startswith("/"))


def _relocate_locked(home: DataHome, actor: str) -> Relocation:
    """Under the lock: survey again (another run may have finished it), rewrite, audit, record."""
    connection = _open(cognee_db(home), write=True)
    try:
        connection.execute("BEGIN IMMEDIATE")  # Cognee's own writers wait for us, and we for them
        try:
            survey = _survey(home, connection)
            if survey.outside is not None:
                raise RelocationError(location_problem(home) or f"a stored path points at {survey.outside}")
            count = _rewrite(connection, survey.old, home) if survey.old else 0
            _check_inside(connection, home)
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    finally:
        connection.close()
    old_root = survey.old[0] if survey.old else (survey.record.root if survey.record else None)
    relocation = Relocation(old_root=old_root, new_root=str(home.root), values=count)
    _record_if_changed(home, survey.record, old=relocation, actor=actor)
    return relocation


def _check_inside(connection: sqlite3.Connection, home: DataHome) -> None:
    """After a rewrite, inside its transaction: every stored path must lie in the home (a value the rewrite
    left alone, or one whose ``..`` escapes once rewritten, refuses the relocation)."""
    here = _here(home)
    for path in _path_values(connection):
        if not any(_under(path, root) for root in here):
            raise RelocationError(f"the graph store in {home.cognee} would still point at {path}, outside this data "
                                  f"home, after moving its paths here; nothing was changed. Rebuild it: delete "
                                  f"{home.cognee} and run `memctl ingest`")


def _rewrite(connection: sqlite3.Connection, old_roots: list[str], home: DataHome) -> int:
    """Replace every old root in every text value of every table; returns how many values changed."""
    root, real_root = _here(home)
    pairs = []
    for old in sorted(old_roots, key=len, reverse=True):  # the longest spelling first
        pairs.append((old, root, real_root))
    changed: set[tuple[str, str, int]] = set()
    tables = [name for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
        for column in columns:
            needles = " OR ".join(f'instr(CAST("{column}" AS TEXT), ?) > 0' for _ in range(2 * len(pairs)))
            args = [form for old, _r, _rr in pairs for form in (old, quote(old))]
            try:
                rows = connection.execute(f'SELECT rowid, "{column}" FROM "{table}" WHERE {needles}', args).fetchall()
            except sqlite3.OperationalError:  # WITHOUT ROWID tables: Cognee has none
                continue
            for rowid, value in rows:
                if not isinstance(value, str):
                    continue
                new = _moved_value(value, pairs, home)
                if new != value:
                    _update_value(connection, table, column, rowid, new)
                    changed.add((table, column, rowid))
    _rename_plain_copies(connection, home, changed)
    return len(changed)


def _update_value(connection: sqlite3.Connection, table: str, column: str, rowid: int, value: str) -> None:
    connection.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))


def _moved_value(value: str, pairs: list[tuple[str, str, str]], home: DataHome) -> str:
    """``value`` with each old root replaced. A note in the store gets the resolved root (memctl adds
    notes by resolved path), anything else the configured one (Cognee builds its paths from it).
    A plain copy's directory is named for its note's path (:func:`memctl.graph.plain_text.copy_path`),
    so it is renamed for the note's new path."""
    for old, root, real_root in pairs:
        for old_form, encode in ((old, lambda s: s), (quote(old), quote)):
            pattern = re.compile(r"(?<![\w.~%-])" + re.escape(old_form) + r"(?=/|$|[\"'\]\s,])")

            def replace(match: re.Match, encode: Any = encode) -> str:
                rest = value[match.end():]
                return encode(real_root if rest.startswith("/store/") else root)

            value = pattern.sub(replace, value)
    return value


def _rename_plain_copies(connection: sqlite3.Connection, home: DataHome, changed: set[tuple[str, str, int]]) -> None:
    """A plain copy's directory is named for its note's path (:func:`memctl.graph.plain_text.copy_path`):
    a document added from one gets the location the copy of the note's new path has (added to ``changed``).
    The copy itself is written again by the next add that needs it."""
    from memctl.graph.plain_text import copy_path

    try:
        rows = connection.execute("SELECT rowid, original_data_location, external_metadata FROM data "
                                  "WHERE instr(original_data_location, '/cognee/plain-text/') > 0").fetchall()
    except sqlite3.OperationalError:
        return
    for rowid, location, metadata in rows:
        try:
            uri = json.loads(metadata)["_cognee"]["source_uri"]
        except (TypeError, ValueError, KeyError):
            continue
        note = _local(str(uri))
        if note is None or not isinstance(location, str):
            continue
        copy = copy_path(home.cognee, Path(note))
        new = copy.as_uri() if location.startswith("file://") else str(copy)
        if new != location:
            _update_value(connection, "data", "original_data_location", rowid, new)
            changed.add(("data", "original_data_location", rowid))


def _record_if_changed(home: DataHome, record: LocationRecord | None, *, old: Relocation | None, actor: str) -> None:
    """Write ``location.json`` for where the home is now; append the audit event when it moved."""
    root, real_root = _here(home)
    if _is_here(record, home):
        return
    previous = list(record.previous) if record else []
    moved_from = record.root if record else (old.old_root if old else None)
    if record is not None:
        previous.append({"root": record.root, "real_root": record.real_root})
    elif old is not None and old.old_root:
        previous.append({"root": old.old_root, "real_root": old.old_root})
    if moved_from and moved_from != root and cognee_db(home).is_file():
        from memctl.store import MemoryStore

        values = old.values if old else 0
        old_seq = MemoryStore(home.store).record_event(
            "relocate", AUDIT_SUBJECT, actor=actor,
            reason=f"data home moved from {moved_from} to {root}: {values} stored path(s) in Cognee's database "
                   "rewritten")
        if old is not None:
            old.audit_seq = old_seq
    home.root.mkdir(parents=True, exist_ok=True)
    write_state(home.location, LocationRecord(root, real_root, previous).as_dict())
    if old is not None:
        old.recorded = True


def store_relative(uri: str | None, home: DataHome) -> str | None:
    """The store path (``memory/<topic>/<id>.md``) a search hit's ``file://`` URI names, under this home's
    root or any root it had before (Kuzu and LanceDB keep the path from cognify time); None otherwise."""
    if not uri:
        return None
    local = _local(uri)
    if local is None:
        return None
    record = read_record(home)
    roots = list(dict.fromkeys([*_here(home), *(record.roots() if record else [])]))
    for root in roots:
        store = root.rstrip("/") + "/store"
        if _under(local, store) and local != store:
            return local[len(store) + 1:]
    return None
