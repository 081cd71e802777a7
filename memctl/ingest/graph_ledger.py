"""What the graph already holds, so that an ingest with nothing new does not start Cognee.

Starting Cognee costs seconds before any work (imports, its databases, its
workers), and a scheduled ingest usually finds nothing new. The ledger
(``<home>/graph_ledger.json``, written atomically after a run that added and
cognified every note it offered) records:

* ``notes``: store path of each note (``memory/<topic>/<id>.md``) → the
  SHA-256 of the content Cognee was given;
* ``datasets``: dataset name → the ids of its documents Cognee had finished
  cognifying then.

A later run needs the graph phases for a note whose content hash is not in
the ledger, and for every note of a dataset whose recorded documents are no
longer all there and cognified — read from Cognee's own relational store
(``<home>/cognee/system/databases/cognee_db``, tables ``datasets`` and
``data``, ``data.pipeline_status["cognify_pipeline"][<dataset uuid>]``,
Cognee 1.6.5) with ``sqlite3`` read-only, without importing Cognee. So a
dataset deleted or emptied behind memctl's back is noticed and rebuilt; the
ledger is a shortcut, never trusted over Cognee's state. Documents added
later (a sleep's rebuild) do not make a dataset stale. ``memctl ingest
--verify-graph`` skips the shortcut and hands every note to Cognee.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from pathlib import Path
from typing import Iterable

from memctl.atomic import atomic_write_text
from memctl.config import DataHome
from memctl.state_file import StateFileError, StateModel, read_state

__all__ = ["LEDGER_VERSION", "cognified_documents", "ledger_path", "record_settled", "unsettled_notes"]

LEDGER_VERSION = 1
_COGNIFY_PIPELINE = "cognify_pipeline"  # cognee/api/v1/cognify/cognify.py
_COMPLETED = "DATA_ITEM_PROCESSING_COMPLETED"  # cognee/modules/pipelines/models/DataItemStatus.py


def ledger_path(home: DataHome) -> Path:
    """``<home>/graph_ledger.json``."""
    return home.root / "graph_ledger.json"


def cognified_documents(home: DataHome) -> dict[str, set[str]] | None:
    """Dataset name → ids (hex) of its documents Cognee finished cognifying; ``{}`` before the first
    add; None when Cognee's database exists but cannot be read (then nothing counts as settled)."""
    db = home.cognee / "system" / "databases" / "cognee_db"
    if not db.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            rows = connection.execute(
                "SELECT datasets.name, datasets.id, data.id, data.pipeline_status "
                "FROM datasets JOIN data ON data.dataset_id = datasets.id").fetchall()
        finally:
            connection.close()
    except sqlite3.Error:
        return None
    found: dict[str, set[str]] = {}
    for name, dataset_id, data_id, status in rows:
        try:
            by_dataset = (json.loads(status or "{}").get(_COGNIFY_PIPELINE) or {})
            key = str(uuid.UUID(hex=str(dataset_id)))
        except (ValueError, TypeError, AttributeError):
            continue
        if by_dataset.get(key) == _COMPLETED:
            found.setdefault(str(name), set()).add(str(data_id))
    return found


class LedgerFile(StateModel):
    """``graph_ledger.json``'s shape as read: store path → sha256 of each settled note; topic → its cognified
    document ids."""

    version: object = None
    notes: dict[str, str] = {}
    datasets: dict[str, list[str]] = {}


def _read(home: DataHome) -> dict:
    """The ledger as a dict ({} when absent, damaged or of another version: every note is then unsettled)."""
    try:
        ledger = read_state(ledger_path(home), LedgerFile)
    except StateFileError:
        return {}
    if ledger is None or ledger.version != LEDGER_VERSION:
        return {}
    return ledger.model_dump()


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def unsettled_notes(home: DataHome, notes: Iterable[tuple[str, Path] | tuple[str, Path, Path]]) -> int:
    """How many of ``notes`` the graph phases still have to hand to Cognee (module doc); every note
    when there is no usable ledger.

    Each note is ``(topic, published path)`` or ``(topic, published path, content path)``: the
    content path is the file whose bytes the graph must hold — ingest passes the distilled note,
    which publishing copies byte for byte into the store, so a note edited in ``distilled/`` is
    unsettled although its published copy is not yet rewritten."""
    notes = list(notes)
    ledger = _read(home)
    recorded = ledger.get("notes") if isinstance(ledger.get("notes"), dict) else {}
    if not recorded:
        return len(notes)
    current = cognified_documents(home)
    if current is None:
        return len(notes)
    stale = {name for name, ids in (ledger.get("datasets") or {}).items()
             if not set(ids) <= current.get(name, set())}
    pending = 0
    for topic, path, *content in notes:
        key = _store_key(home, path)
        digest = _sha256(content[0] if content else path)
        if topic in stale or key is None or digest is None or recorded.get(key) != digest:
            pending += 1  # an unreadable or missing note is never settled (None == None must not match)
    return pending


def record_settled(home: DataHome, groups: dict[str, list[Path]]) -> None:
    """Record that every note of ``groups`` (topic → published note paths) was added and cognified,
    with each topic's cognified documents as Cognee holds them now. Notes recorded earlier stay.

    Raises:
        OSError: the ledger cannot be written (the caller reports it; the next run is just slower).
    """
    ledger = _read(home)
    notes = dict(ledger.get("notes") or {})
    datasets = dict(ledger.get("datasets") or {})
    current = cognified_documents(home) or {}
    for topic, paths in groups.items():
        for path in paths:
            key, digest = _store_key(home, path), _sha256(path)
            if key is not None and digest is not None:
                notes[key] = digest
        datasets[topic] = sorted(current.get(topic, set()))
    atomic_write_text(ledger_path(home), json.dumps(
        {"version": LEDGER_VERSION, "notes": dict(sorted(notes.items())), "datasets": dict(sorted(datasets.items()))},
        indent=1) + "\n")


def _store_key(home: DataHome, path: Path) -> str | None:
    """``path`` relative to the store (POSIX), or None outside it. Ingest builds every path as
    ``home.store / <relative>``, so the lexical relation answers without a ``resolve()`` per note
    (two of them per note were half of a no-op run over 2,000 notes); other spellings are resolved."""
    path = Path(path)
    try:
        relative = path.relative_to(home.store)
        if ".." not in relative.parts:
            return relative.as_posix()
    except ValueError:
        pass
    try:
        return path.resolve().relative_to(home.store.resolve()).as_posix()
    except (ValueError, OSError):
        return None
