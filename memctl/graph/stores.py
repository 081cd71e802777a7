"""What Cognee's stores hold: datasets, their documents, graph and vector sizes; and
whether a data home's stores can be used where it is.

Stores: graph ``kuzu`` (Cognee 1.6.5 drives it through the ``ladybug``
package, a Kuzu fork; with provider ``kuzu`` the per-dataset file is
``<dataset_id>.pkl``) or ``ladybug`` (``<dataset_id>.lbug``); vectors
LanceDB; relational SQLite — one graph and one vector store per dataset
(backend access control on).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memctl.config import DataHome
from memctl.graph.configure import quiet, require_configured
from memctl.graph.errors import validate_dataset_name

__all__ = ["GraphCounts", "dataset_data_count", "graph_counts", "graph_store_location_problem", "list_datasets",
           "stored_vector_dimensions"]


@dataclass
class GraphCounts:
    """Sizes of one dataset's stores.

    Attributes:
        dataset: dataset name.
        data_items: documents in the dataset (relational store).
        nodes, edges: graph node/edge counts (0 if the graph does not exist yet).
        vector_rows: LanceDB table name → row count (empty if no table yet).
    """

    dataset: str
    data_items: int
    nodes: int
    edges: int
    vector_rows: dict[str, int] = field(default_factory=dict)

    @property
    def total_vector_rows(self) -> int:
        """Sum of :attr:`vector_rows`."""
        return sum(self.vector_rows.values())


async def default_user() -> Any:
    """Cognee's default local user (the owner of every memctl dataset)."""
    from cognee.modules.users.methods import get_default_user

    return await get_default_user()


async def all_datasets() -> list[Any]:
    """The default user's datasets; [] for a home whose databases do not exist yet."""
    import cognee
    from cognee.infrastructure.databases.exceptions import DatabaseNotCreatedError

    try:
        return list(await cognee.datasets.list_datasets())
    except DatabaseNotCreatedError:
        return []


async def find_dataset(name: str) -> Any | None:
    """The dataset called ``name``, or None."""
    for ds in await all_datasets():
        if ds.name == name:
            return ds
    return None


async def list_datasets() -> list[str]:
    """Names of the default user's datasets, sorted ([] before the first add)."""
    require_configured()
    return sorted(ds.name for ds in await all_datasets())


@quiet
async def dataset_data_count(dataset: str) -> int:
    """Number of data items (documents) in ``dataset``; 0 if it (or the store) does not exist."""
    require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await find_dataset(dataset)
    if ds is None:
        return 0
    return len(await cognee.datasets.list_data(ds.id))


@quiet
async def graph_counts(dataset: str) -> GraphCounts:
    """Document, node, edge and vector-row counts of ``dataset``.

    Nodes/edges come from Cognee's graph engine for that dataset
    (``MATCH (n:Node)`` / ``MATCH ()-[r:EDGE]->()`` counts); vector rows from
    opening the dataset's LanceDB directory read-only. A dataset that does not
    exist yields all zeros.
    """
    require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await find_dataset(dataset)
    if ds is None:
        return GraphCounts(dataset=dataset, data_items=0, nodes=0, edges=0)
    data_items = len(await cognee.datasets.list_data(ds.id))
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector.config import get_vectordb_context_config

    user = await default_user()
    nodes = edges = 0
    vector_rows: dict[str, int] = {}
    async with set_database_global_context_variables(ds.id, user.id):
        engine = await get_graph_engine()
        try:
            nodes, edges = await engine.get_graph_counts()
        except Exception:  # an empty/uncreated graph has no Node table yet
            nodes = edges = 0
        url = (get_vectordb_context_config() or {}).get("vector_db_url")
    if url and Path(url).exists():
        vector_rows = await asyncio.to_thread(_lance_counts, url)
    return GraphCounts(dataset=dataset, data_items=data_items, nodes=int(nodes), edges=int(edges),
                       vector_rows=vector_rows)


def _lance_counts(url: str) -> dict[str, int]:
    import lancedb

    db = lancedb.connect(url)
    names: list[str] = []
    token: str | None = None
    while True:  # list_tables() is paginated (lancedb 0.39)
        page = db.list_tables(page_token=token)
        names.extend(page.tables)
        token = page.page_token
        if not token:
            break
    return {name: int(db.open_table(name).count_rows()) for name in sorted(names)}


def graph_store_location_problem(home: DataHome) -> str | None:
    """Why this data home's Cognee stores cannot be used or relocated here, or None when they can.

    A moved or copied home is relocated on open (:mod:`memctl.graph.relocate`);
    only stores pointing outside every place the home has been are refused.
    Read-only, no Cognee import.
    """
    from memctl.graph.relocate import location_problem

    return location_problem(home)


def stored_vector_dimensions(home: DataHome) -> set[int]:
    """Vector sizes already stored in the data home's LanceDB tables (no Cognee import).

    Walks ``home.cognee`` for LanceDB table directories (``*.lance``), opens
    each database read-only with ``lancedb`` and reads the fixed-size-list
    width of every vector column. Returns an empty set when nothing is stored.
    ``memctl doctor`` compares this with the configured embedding dimension:
    vectors of another model's size make retrieval fail or silently degrade.

    Raises:
        OSError / lancedb errors for an unreadable store (the caller reports them).
    """
    root = home.cognee
    if not root.exists():
        return set()
    import lancedb
    import pyarrow as pa

    databases = {table_dir.parent for table_dir in root.rglob("*.lance") if table_dir.is_dir()}
    sizes: set[int] = set()
    for db_dir in sorted(databases):
        db = lancedb.connect(str(db_dir))
        for table_dir in sorted(db_dir.glob("*.lance")):
            table = db.open_table(table_dir.name[: -len(".lance")])
            for schema_field in table.schema:
                if pa.types.is_fixed_size_list(schema_field.type):
                    sizes.add(int(schema_field.type.list_size))
    return sizes
