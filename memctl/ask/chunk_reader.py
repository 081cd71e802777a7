"""Cognee's ``CHUNKS`` search read straight from its files, without importing Cognee (or litellm, lancedb).

``import cognee`` costs 6–10 s of a fresh process (litellm alone ~3 s), before a byte is read; a cold
``memctl ask`` or ``search`` paid it on every call. What the chunk search needs is small, and Cognee
1.6.5's layout of it is pinned (:data:`COGNEE_VERSION`):

* the relational database ``<home>/cognee/system/databases/cognee_db`` (SQLite, opened read-only) maps a
  dataset name (``datasets.name``, one per topic) to its own LanceDB directory
  (``dataset_database.vector_database_url``; ``ENABLE_BACKEND_ACCESS_CONTROL`` gives each dataset its own
  stores);
* that directory's ``DocumentChunk_text.lance`` table holds one row per note chunk: ``id``, ``vector``
  (fixed-size list of float32) and ``payload`` (a struct with ``text``, ``document_name`` and
  ``external_metadata``, a JSON string whose ``_cognee.source_uri`` names the note file).

Cognee's search (``cognee/modules/retrieval/chunks_retriever.py`` → ``LanceDBAdapter.search``) embeds the
query once and asks each dataset's table for its ``top_k`` rows nearest by cosine distance (a flat search:
Cognee builds no vector index on these tables), then hands back each row's payload and ``_distance``. This
module does the same with ``pylance`` (``lance.dataset``, the Lance format's own reader, read-only) and
numpy: ``distance = 1 − (v·q) / (|v| |q|)`` in float32, ``top_k`` per dataset, closest first (ties in row
order). Opening the Lance reader costs more than the search (``import lance`` ~1–2 s, most of a cold
``search``), so each table's rows are kept in ``<home>/cache/chunks/<dataset>.vec`` (derived data outside
the store and outside Cognee's files, written atomically, as the embedding router's cache): a JSON header
line ``{"version": 1, "stamp": [table path, [[name, size, mtime_ns] of every file in its _versions/]],
"dim": n, "rows": [[text, document_name, external_metadata], ...]}``, then the vectors as little-endian
float32, row after row. Lance writes a new manifest into ``_versions/`` on every change of a table, so a
stamp that matches means the same rows; anything else (another stamp, an unreadable file) reads the
table again and rewrites the cache. An unwritable cache is no error. The query vector comes from :mod:`memctl.catalog.topic_profiles` (the same ``/api/embed`` of the same
model Cognee's engine calls; the embedding router already asked for it, so retrieval costs no request). The
``conflicts`` Cognee attaches from the graph are not read: memctl never uses them.

Whenever the files are not exactly what this reader knows (no relational database, a dataset name that is
missing or held twice, a store created by another Cognee version, no chunk table, a column missing or of
another type), :class:`ReaderUnavailable` says why and the caller runs Cognee's own search instead, so an
unknown layout can cost time but never change an answer. ``tests/e2e/test_chunk_reader.py`` checks the reader
against Cognee's search on the same homes: same sources, same order.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.graph.plain_text import restore
from memctl.graph.search import SearchHit
from memctl.state_file import decode_json

CACHE_VERSION = 1
COGNEE_VERSION = "1.6.5"  # dataset_database.cognee_version of the stores this reader knows
CHUNK_TABLE = "DocumentChunk_text.lance"


class ReaderUnavailable(Exception):
    """The files are not the layout this reader knows (the message says how); use Cognee's search."""


def dataset_stores(home: DataHome, names: list[str]) -> dict[str, Path]:
    """Each dataset name of ``names`` → its LanceDB directory, from Cognee's relational database (read-only).

    Raises:
        ReaderUnavailable: no database, a name absent or held by several datasets, another Cognee version's
            store, or a LanceDB directory that is not there.
    """
    from memctl.graph.relocate import cognee_db

    db = cognee_db(home)
    if not db.is_file():
        raise ReaderUnavailable(f"no relational database at {db}")
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5.0)
        try:
            marks = ",".join("?" * len(names))
            rows = connection.execute(
                "SELECT d.name, dd.vector_database_url, dd.vector_database_name, dd.owner_id, "
                "dd.vector_database_provider, dd.cognee_version FROM datasets d JOIN dataset_database dd "
                f"ON dd.dataset_id = d.id WHERE d.name IN ({marks})", names).fetchall()
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise ReaderUnavailable(f"cannot read {db}: {exc}") from exc
    stores: dict[str, Path] = {}
    for name, url, db_name, owner, provider, version in rows:
        if name in stores:
            raise ReaderUnavailable(f"dataset {name!r} is held by more than one owner")
        if provider != "lancedb" or version != COGNEE_VERSION:
            raise ReaderUnavailable(f"dataset {name!r}: {provider} store of Cognee {version}, not lancedb of "
                                    f"{COGNEE_VERSION}")
        path = Path(url) if url else db.parent / _dashed(str(owner)) / str(db_name)
        if not path.is_dir():
            raise ReaderUnavailable(f"dataset {name!r}: no LanceDB directory at {path}")
        stores[name] = path
    absent = [name for name in names if name not in stores]
    if absent:
        raise ReaderUnavailable(f"no dataset named {', '.join(absent)}")
    return stores


def _dashed(hex_id: str) -> str:
    """``13244ce747cd…`` → ``13244ce7-47cd-…`` (Cognee names a user's database folder by the dashed UUID)."""
    h = hex_id.replace("-", "")
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _read_chunks(table: Path):  # noqa: ANN202 - (vectors: numpy float32 [rows, dim], payload rows)
    """The chunk table's vectors and the payload fields memctl uses, in row order.

    Raises:
        ReaderUnavailable: no table, or a column missing or of another type.
    """
    if not table.is_dir():
        raise ReaderUnavailable(f"no chunk table at {table}")
    import lance
    import numpy as np
    import pyarrow as pa

    dataset = lance.dataset(str(table))
    schema = dataset.schema
    vector_type = schema.field("vector").type if "vector" in schema.names else None
    payload_type = schema.field("payload").type if "payload" in schema.names else None
    if (vector_type is None or not pa.types.is_fixed_size_list(vector_type)
            or not pa.types.is_float32(vector_type.value_type) or payload_type is None
            or not pa.types.is_struct(payload_type)
            or not {"text", "document_name", "external_metadata"} <= {f.name for f in payload_type}):
        raise ReaderUnavailable(f"{table}: not the chunk table layout of Cognee {COGNEE_VERSION}")
    data = dataset.to_table(columns=["vector", "payload"])
    vectors = data.column("vector").combine_chunks()
    dim = vector_type.list_size
    matrix = np.asarray(vectors.values.to_numpy(zero_copy_only=False), dtype=np.float32).reshape(len(vectors), dim)
    payload = data.column("payload").combine_chunks()
    rows = list(zip(payload.field("text").to_pylist(), payload.field("document_name").to_pylist(),
                    payload.field("external_metadata").to_pylist()))
    return matrix, rows


def _table_stamp(table: Path) -> list:
    """``[table path, [[name, size, mtime_ns], ...]]`` of the table's ``_versions/`` files (one manifest per
    commit).

    Raises:
        ReaderUnavailable: no ``_versions/`` directory (not a Lance table).
    """
    try:
        entries = sorted([e.name, (st := e.stat()).st_size, st.st_mtime_ns] for e in os.scandir(table / "_versions"))
    except OSError as exc:
        raise ReaderUnavailable(f"no Lance table at {table}") from exc
    return [str(table), entries]


def cached_chunks(home: DataHome, dataset: str, table: Path):  # noqa: ANN201 - (matrix, rows) as _read_chunks
    """The chunk table's vectors and payload rows, from ``<home>/cache/chunks/<dataset>.vec`` when its stamp
    is the table's (no ``lance`` import), else read from the table and the cache rewritten (see the module doc).

    Raises:
        ReaderUnavailable: as :func:`_read_chunks`.
    """
    import numpy as np

    from memctl.atomic import atomic_write_bytes

    stamp = _table_stamp(table)
    path = home.chunk_cache / f"{dataset}.vec"
    try:
        with path.open("rb") as handle:
            header = decode_json(handle.readline())
            if header.get("version") == CACHE_VERSION and header.get("stamp") == stamp:
                rows = [tuple(row) for row in header["rows"]]
                matrix = np.frombuffer(handle.read(), dtype="<f4").reshape(len(rows), int(header["dim"]))
                return matrix.astype(np.float32, copy=False), rows
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # absent, of another version or unreadable: read the table
    matrix, rows = _read_chunks(table)
    header = {"version": CACHE_VERSION, "stamp": stamp, "dim": int(matrix.shape[1]), "rows": [list(r) for r in rows]}
    try:
        atomic_write_bytes(path, json.dumps(header).encode("utf-8") + b"\n" + matrix.astype("<f4").tobytes())
    except OSError:
        pass  # a read-only home: the rows serve from memory
    return matrix, rows


def _source_uri(metadata: str | None) -> str | None:
    try:
        meta = json.loads(metadata) if metadata else None
    except ValueError:
        return None
    cognee_meta = meta.get("_cognee") if isinstance(meta, dict) else None
    return cognee_meta.get("source_uri") if isinstance(cognee_meta, dict) else None


def nearest_chunks(query: list[float], datasets: list[str], home: DataHome, top_k: int) -> list[SearchHit]:
    """Up to ``top_k`` chunks per dataset of ``datasets``, nearest to ``query`` by cosine distance; in dataset
    order, closest first within each (what :func:`memctl.graph.search.search` returns for ``kind="chunks"``).

    Args:
        query: the question's embedding (any norm; its length must be the tables' vector size).
        datasets: dataset names (topic slugs), non-empty.
        home: the data home.
        top_k: rows per dataset, ≥ 1.

    Raises:
        ReaderUnavailable: see :func:`dataset_stores` and the module doc; also a query of another size.
    """
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    q_norm = float(np.linalg.norm(q))
    hits: list[SearchHit] = []
    for name, store in dataset_stores(home, datasets).items():
        matrix, rows = cached_chunks(home, name, store / CHUNK_TABLE)
        if not rows:
            continue
        if matrix.shape[1] != q.shape[0]:
            raise ReaderUnavailable(f"dataset {name!r}: vectors of {matrix.shape[1]} dimensions, query of {q.shape[0]}")
        norms = np.linalg.norm(matrix, axis=1) * np.float32(q_norm)
        with np.errstate(divide="ignore", invalid="ignore"):
            distances = np.float32(1.0) - (matrix @ q) / norms
        distances = np.where(np.isfinite(distances), distances, np.float32(np.inf))
        for row in np.argsort(distances, kind="stable")[:top_k]:
            text, document_name, metadata = rows[int(row)]
            hits.append(SearchHit(dataset=name, text=restore(str(text or "")), document_name=document_name,
                                  source_uri=_source_uri(metadata), score=float(distances[int(row)])))
    return hits


def query_vector(question: str, settings: Settings, home: DataHome, index) -> list[float]:  # noqa: ANN001
    """The question's embedding as Cognee's engine would ask for it (same model, same ``/api/embed``), through
    :class:`memctl.catalog.topic_profiles.TopicProfiles` (one request per question per process, shared with routing);
    when that request fails, the question alone, bounded by ``graph_search_timeout_s``.

    Raises:
        ModelError: the embedding model cannot answer. ReaderUnavailable: a question Cognee would embed
            differently (one holding a tokenizer's special-token text, or blank).
    """
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.graph.plain_text import plain
    from memctl.ollama_client import ModelError, client_for, embed

    if plain(question) != question or not question.strip():
        # Routing embeds the escaped text; Cognee's engine would embed the question as it is (or "." for a
        # blank one): not the same vector, so Cognee answers this one.
        raise ReaderUnavailable("the question holds text escaped before embedding")
    try:
        return list(TopicProfiles(settings, home).question_vector(question, index))
    except ModelError:
        # The router's request (every stale note profile with it, ``router_timeout_s``) failed or was slow: ask
        # for the question alone, as Cognee's engine would, within the graph search's own time bound.
        timeout_s = settings.graph_search_timeout_s
        return embed(client_for(settings, timeout_s), settings, settings.embedding_model, [question], timeout_s)[0]
