"""memctl's single Cognee module: configuration, add, cognify, counts, search.

Nothing else in memctl imports ``cognee``; this module imports it lazily (in
:func:`configure`), so ``memctl --help`` never pays Cognee's 6–8 s import.

Everything below was read from, and checked against, the installed Cognee
1.6.5 (``.venv/lib/python3.11/site-packages/cognee``):

* **LLM** — provider ``ollama`` with the default ``litellm_native`` structured
  output framework. litellm's ``ollama/<model>`` route appends
  ``/api/generate`` (and ``/api/show``) to the endpoint, so the endpoint is
  the bare Ollama host (``Settings.ollama_base_url``), *not* ``<host>/v1``:
  with ``/v1`` Cognee calls ``/v1/api/generate``, which real Ollama does not
  serve (404). Structured output goes to ``/api/generate`` with
  ``format: "json"`` and the JSON schema inside the prompt. ``LLM_API_KEY``
  is a placeholder (``ollama``): Ollama ignores it, but Cognee's
  ``get_native_client`` refuses an empty key and ``GRAPH_EXTRACTOR=auto``
  would pick the local GLiNER model without one; we pin
  ``GRAPH_EXTRACTOR=llm`` anyway.
* **Embeddings** — provider ``ollama`` (``OllamaEmbeddingEngine``): one
  ``POST <host>/api/embed`` per text, ``dimensions`` sent, plus one
  ``/api/show`` to learn the context length. Its tokenizer lookup asks the
  HuggingFace hub for the model's ``tokenizer.json`` (an Ollama model id is
  not a hub repo), then falls back to tiktoken ``cl100k_base``; see
  :mod:`memctl.graph.offline` for how both work with no network.
* **Stores** — graph ``kuzu`` (Cognee 1.6.5 drives it through the ``ladybug``
  package, a Kuzu fork; with provider ``kuzu`` the per-dataset file is
  ``<dataset_id>.pkl`` and the ``kuzu`` 0.11.3 package opens it) or
  ``ladybug`` (file ``<dataset_id>.lbug``); vectors LanceDB; relational
  SQLite. System root ``<home>/cognee/system``, data root
  ``<home>/cognee/data``, cache ``<home>/cognee/cache``, Cognee's own logs
  ``<home>/cognee/logs``.
* **Backend access control stays ON** (Cognee's default,
  ``ENABLE_BACKEND_ACCESS_CONTROL=true``): one graph and one vector database
  per dataset, owned by Cognee's default local user, which is what makes
  ``search(datasets=[…])`` scope to those datasets (switched off, every dataset
  shares one store and a search sees all of them; verified with Cognee 1.6.5).
* **Session features off** — ``CACHING=false`` and ``AUTO_FEEDBACK=false``:
  otherwise every search adds one structured LLM call (turn analysis) and
  Cognee's session memory would carry Q&A across unrelated ``memctl ask``
  runs. memctl has its own memory layers.
* ``ALLOW_HTTP_REQUESTS=false``: memctl never adds URLs; Cognee must not fetch.
* ``LOG_LEVEL`` defaults to ``ERROR`` (only if unset): Cognee configures the
  root logger at import and would otherwise print INFO lines and a
  multi-screen traceback for the expected tokenizer fallback on stderr.
* Cognee's database migrations ``print()`` to stdout on first use; every
  Cognee call made here runs with ``sys.stdout`` redirected to ``sys.stderr``
  so memctl's stdout (``--json``) stays clean.

Dataset names: Cognee rejects names containing ``.`` or a space
(``cognee/modules/data/methods/check_dataset_name.py``) and uses the name only
to derive the dataset UUID (files on disk are named by UUID). memctl topic
slugs (``[a-z0-9][a-z0-9_-]*``, e.g. ``my-project``) are always accepted;
:func:`validate_dataset_name` additionally refuses any whitespace, ``/``,
``\\`` and names longer than 255 characters.

Provenance: notes are added as absolute file *paths*. Cognee then records
the data item's ``name`` as the file stem (the source id), and
``original_data_location``/``external_metadata._cognee.source_uri`` as the
``file://`` URI of the note; CHUNKS search hits carry ``document_name`` and
that ``source_uri`` (verified). Adding text instead would name the item
``text_<md5>``, losing the link to the note.

Idempotence: re-adding identical content is a no-op (dedup by content hash;
no model call on the next cognify). Adding a file whose path is already in
the dataset with *different* content raises :class:`NoteChangedError`
(Cognee's ``DocumentUpdateRequiredError``, HTTP-ish 409).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Iterable, Literal, TypeVar

from memctl.config import DataHome, Settings
from memctl.graph.offline import ensure_offline_assets

__all__ = [
    "AddBatchError",
    "AddResult",
    "CognifyError",
    "CognifyResult",
    "GraphConfigError",
    "GraphCounts",
    "GraphMemoryError",
    "InvalidDatasetName",
    "NoteChangedError",
    "SearchHit",
    "add_notes",
    "add_notes_sync",
    "cognee_env",
    "cognify",
    "cognify_sync",
    "configure",
    "dataset_data_count",
    "graph_counts",
    "is_configured",
    "list_datasets",
    "run_sync",
    "search",
    "validate_dataset_name",
]

T = TypeVar("T")

PLACEHOLDER_API_KEY = "ollama"
MAX_DATASET_NAME = 255
_BAD_NAME_RE = re.compile(r"[.\s/\\]")


# --------------------------------------------------------------------------
# Errors and results
# --------------------------------------------------------------------------


class GraphMemoryError(RuntimeError):
    """Base class of every error this module raises."""


class GraphConfigError(GraphMemoryError):
    """Cognee is not configured (call :func:`configure`) or the settings are invalid."""


class InvalidDatasetName(GraphMemoryError, ValueError):
    """A dataset name Cognee would reject (see the module doc for the rule)."""


class AddBatchError(GraphMemoryError):
    """One batch of :func:`add_notes` failed.

    Attributes:
        dataset: the dataset name.
        batch_index: 1-based index of the failed batch.
        batch_count: number of batches in the call.
        paths: the notes of the failed batch. Earlier batches were added
            (adding again is a no-op), later ones were not attempted.
    """

    def __init__(self, message: str, *, dataset: str, batch_index: int, batch_count: int,
                 paths: list[Path]) -> None:
        super().__init__(message)
        self.dataset = dataset
        self.batch_index = batch_index
        self.batch_count = batch_count
        self.paths = paths


class NoteChangedError(AddBatchError):
    """A note whose path is already in the dataset now has different content.

    Cognee's ``add`` never updates a document; memctl only re-adds changed
    notes into a new or empty dataset (``--reparse-all``). ``data_id`` is the
    stored document's id when Cognee reported it.
    """

    def __init__(self, message: str, *, data_id: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.data_id = data_id


class CognifyError(GraphMemoryError):
    """A cognify run failed; ``datasets`` names what was asked for."""

    def __init__(self, message: str, *, datasets: list[str]) -> None:
        super().__init__(message)
        self.datasets = datasets


@dataclass
class AddResult:
    """Outcome of :func:`add_notes`.

    Attributes:
        dataset: dataset name.
        dataset_id: Cognee's dataset UUID (string) or None if nothing was added.
        notes: number of paths given.
        batches: number of ``cognee.add`` calls made.
        data_ids: Cognee data ids reported for the added notes (deduplicated
            notes report the existing id).
        data_count: data items in the dataset after the call.
        elapsed_s: wall time in seconds.
    """

    dataset: str
    dataset_id: str | None
    notes: int
    batches: int
    data_ids: list[str] = field(default_factory=list)
    data_count: int = 0
    elapsed_s: float = 0.0


@dataclass
class CognifyResult:
    """Outcome of :func:`cognify`.

    Attributes:
        datasets: the dataset names processed.
        status: dataset name → Cognee pipeline status name (e.g.
            ``PipelineRunCompleted``, ``PipelineRunAlreadyCompleted``).
        elapsed_s: wall time in seconds.
    """

    datasets: list[str]
    status: dict[str, str] = field(default_factory=dict)
    elapsed_s: float = 0.0


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


@dataclass
class SearchHit:
    """One search result, normalized.

    Attributes:
        dataset: dataset name the hit came from.
        text: chunk text (CHUNKS) or the generated answer (GRAPH_COMPLETION).
        document_name: Cognee's data item name = the note's file stem (the
            source id), or None for generated answers.
        source_uri: ``file://`` URI of the note, or None.
        score: vector distance as Cognee reports it (lower is closer), or None.
    """

    dataset: str
    text: str
    document_name: str | None = None
    source_uri: str | None = None
    score: float | None = None


# --------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------

_state_lock = threading.Lock()
_configured: tuple[Any, ...] | None = None


def validate_dataset_name(name: str) -> str:
    """Return ``name`` if Cognee accepts it as a dataset name, else raise.

    Raises:
        InvalidDatasetName: empty, longer than 255 characters, or containing
            ``.``, whitespace, ``/`` or ``\\``.
    """
    if not isinstance(name, str) or not name or len(name) > MAX_DATASET_NAME or _BAD_NAME_RE.search(name):
        raise InvalidDatasetName(
            f"invalid dataset name {name!r}: Cognee rejects '.' and spaces; memctl also rejects "
            "other whitespace, '/' and '\\' (use a slug such as 'my-project')"
        )
    return name


def cognee_env(settings: Settings, home: DataHome) -> dict[str, str]:
    """The environment variables :func:`configure` sets for Cognee (pure).

    Returns a new dict; see the module doc for why each is set. Values that
    Cognee reads only at import time (``LOG_LEVEL``, ``COGNEE_LOGS_DIR``)
    are included too; ``LOG_LEVEL`` is applied with ``setdefault``.
    """
    host = settings.ollama_base_url
    root = home.cognee
    return {
        # directories (base_config.py reads COGNEE_LOGS_DIR/COGNEE_REPOS_DIR at import)
        "SYSTEM_ROOT_DIRECTORY": str(root / "system"),
        "DATA_ROOT_DIRECTORY": str(root / "data"),
        "CACHE_ROOT_DIRECTORY": str(root / "cache"),
        "COGNEE_LOGS_DIR": str(root / "logs"),
        "COGNEE_REPOS_DIR": str(root / "repos"),
        # LLM (litellm_native → <host>/api/generate)
        "LLM_PROVIDER": "ollama",
        "LLM_MODEL": _litellm_model(settings.graph_model),
        "LLM_ENDPOINT": host,
        "LLM_API_KEY": PLACEHOLDER_API_KEY,
        "STRUCTURED_OUTPUT_FRAMEWORK": "litellm_native",
        "LLM_ARGS": json.dumps({"num_ctx": _graph_num_ctx(settings)}),
        "GRAPH_EXTRACTOR": "llm",
        # embeddings (OllamaEmbeddingEngine → <host>/api/embed)
        "EMBEDDING_PROVIDER": "ollama",
        "EMBEDDING_MODEL": settings.embedding_model,
        "EMBEDDING_DIMENSIONS": str(settings.embedding_dimensions),
        "EMBEDDING_ENDPOINT": host + "/api/embed",
        # stores
        "GRAPH_DATABASE_PROVIDER": settings.graph_provider,
        "VECTOR_DB_PROVIDER": "lancedb",
        "DB_PROVIDER": "sqlite",
        "DB_NAME": "cognee_db",
        "ENABLE_BACKEND_ACCESS_CONTROL": "true",
        # behaviour
        "CACHING": "false",
        "AUTO_FEEDBACK": "false",
        "ALLOW_HTTP_REQUESTS": "false",
        "TELEMETRY_DISABLED": "1",
    }


def _graph_num_ctx(settings: Settings) -> int:
    """Context window requested from Ollama for Cognee's LLM calls (tokens).

    Cognee sends no ``num_ctx`` by itself, so Ollama would use its default
    (2048–4096 tokens) and silently cut the extraction prompt (system prompt
    + schema + a chunk of up to ~2k tokens). Sent as litellm's ``num_ctx``
    (→ ``options.num_ctx``) through Cognee's ``LLM_ARGS``.
    """
    return int(settings.graph_num_ctx)


def _litellm_model(model: str) -> str:
    """``ollama/<model>``: litellm routes on the prefix. Cognee would add it
    itself (``_qualify_model``), but only after a failed
    ``litellm.get_llm_provider`` lookup that prints a "Provider List" banner
    to stdout."""
    return model if model.startswith("ollama/") else "ollama/" + model


def is_configured() -> bool:
    """Whether :func:`configure` has run in this process."""
    return _configured is not None


def configure(settings: Settings, home: DataHome) -> None:
    """Configure Cognee for ``settings`` with its data under ``home.cognee``.

    Order matters and is handled here: offline assets and environment first
    (:func:`memctl.graph.offline.ensure_offline_assets` with
    ``home.cognee / "tiktoken"``, then :func:`cognee_env`), then
    ``import cognee``, then the same values through ``cognee.config`` so
    that configuration objects Cognee already cached (a second call with
    another home in the same process) follow. Idempotent: a repeated call
    with equal settings and home does nothing.

    Creates ``home.cognee`` and its tiktoken cache directory.

    Raises:
        GraphConfigError: invalid settings (e.g. non-positive dimensions) or
            Cognee rejected the configuration.
        memctl.graph.offline.OfflineAssetError: the tiktoken file is unavailable.
    """
    global _configured
    key = (
        settings.ollama_base_url, settings.graph_model, settings.embedding_model,
        settings.embedding_dimensions, settings.graph_provider, str(home.root),
    )
    with _state_lock:
        if _configured == key:
            return
        if settings.embedding_dimensions <= 0:
            raise GraphConfigError(f"embedding_dimensions must be positive, got {settings.embedding_dimensions}")
        if settings.graph_provider not in ("kuzu", "ladybug"):
            raise GraphConfigError(f"graph_provider must be 'kuzu' or 'ladybug', got {settings.graph_provider!r}")
        home.cognee.mkdir(parents=True, exist_ok=True)
        ensure_offline_assets(home.cognee / "tiktoken")
        env = cognee_env(settings, home)
        os.environ.setdefault("LOG_LEVEL", "ERROR")
        os.environ.update(env)
        try:
            with _stdout_to_stderr():
                _apply_in_code(env)
        except GraphMemoryError:
            raise
        except Exception as exc:  # pragma: no cover - depends on Cognee internals
            raise GraphConfigError(f"Cognee rejected the configuration: {exc}") from exc
        _register_worker_shutdown()
        _configured = key


_shutdown_registered = False


def _register_worker_shutdown() -> None:
    """Run :func:`close` at interpreter exit, before Cognee's own worker reaper.

    ``atexit`` runs handlers last-in first-out, so the harness module (which
    registers Cognee's reaper on import) is imported first, then ours.
    """
    global _shutdown_registered
    if _shutdown_registered:
        return
    try:
        import cognee_db_workers.harness  # noqa: F401 - registers Cognee's reaper first
    except ImportError:
        pass
    atexit.register(close)
    _shutdown_registered = True


def _apply_in_code(env: dict[str, str]) -> None:
    """Push the configuration into Cognee's (possibly cached) config objects."""
    import cognee
    from cognee.base_config import get_base_config
    from cognee.infrastructure.databases.cache.config import get_cache_config

    cfg = cognee.config
    # data/cache roots and logs (system root cascades to the DB paths)
    base = get_base_config()
    base.cache_root_directory = env["CACHE_ROOT_DIRECTORY"]
    base.logs_root_directory = env["COGNEE_LOGS_DIR"]
    base.repos_root_directory = env["COGNEE_REPOS_DIR"]
    cfg.set_graph_database_provider(env["GRAPH_DATABASE_PROVIDER"])
    cfg.set_vector_db_provider(env["VECTOR_DB_PROVIDER"])
    cfg.set_relational_db_config({"db_provider": env["DB_PROVIDER"], "db_name": env["DB_NAME"]})
    cfg.system_root_directory(env["SYSTEM_ROOT_DIRECTORY"])
    cfg.data_root_directory(env["DATA_ROOT_DIRECTORY"])
    from cognee.infrastructure.llm.config import get_llm_config

    llm_args = {**(get_llm_config().llm_args or {}), **json.loads(env["LLM_ARGS"])}
    cfg.set_llm_config({
        "llm_args": llm_args,
        "llm_provider": env["LLM_PROVIDER"],
        "llm_model": env["LLM_MODEL"],
        "llm_endpoint": env["LLM_ENDPOINT"],
        "llm_api_key": env["LLM_API_KEY"],
        "structured_output_framework": env["STRUCTURED_OUTPUT_FRAMEWORK"],
    })
    cfg.set_embedding_config({
        "embedding_provider": env["EMBEDDING_PROVIDER"],
        "embedding_model": env["EMBEDDING_MODEL"],
        "embedding_dimensions": int(env["EMBEDDING_DIMENSIONS"]),
        "embedding_endpoint": env["EMBEDDING_ENDPOINT"],
    })
    cache = get_cache_config()
    cache.caching = False
    cache.auto_feedback = False


@contextlib.contextmanager
def _stdout_to_stderr() -> Any:
    """Send stray ``print()`` output of Cognee/alembic/litellm to stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _quiet(fn: Any) -> Any:
    """Decorator: run an async function with stdout sent to stderr."""
    import functools

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _stdout_to_stderr():
            return await fn(*args, **kwargs)

    return wrapper


def _require_configured() -> None:
    if _configured is None:
        raise GraphConfigError("knowledge_graph.configure(settings, home) must be called first")


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


async def _default_user() -> Any:
    from cognee.modules.users.methods import get_default_user

    return await get_default_user()


async def _all_datasets() -> list[Any]:
    """The default user's datasets; [] for a home whose databases do not exist yet."""
    import cognee
    from cognee.infrastructure.databases.exceptions import DatabaseNotCreatedError

    try:
        return list(await cognee.datasets.list_datasets())
    except DatabaseNotCreatedError:
        return []


async def _find_dataset(name: str) -> Any | None:
    for ds in await _all_datasets():
        if ds.name == name:
            return ds
    return None


def _status_name(info: Any) -> str:
    status = getattr(info, "status", None)
    return str(status) if status else type(info).__name__


def _batches(items: list[Path], size: int) -> list[list[Path]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _describe(batch: list[Path]) -> str:
    if len(batch) == 1:
        return batch[0].name
    return f"{batch[0].name} … {batch[-1].name}"


# --------------------------------------------------------------------------
# Public async API
# --------------------------------------------------------------------------


@_quiet
async def add_notes(dataset: str, paths: Iterable[Path], batch_size: int = 20) -> AddResult:
    """Add Markdown notes (by absolute path) to ``dataset`` in bounded batches.

    Args:
        dataset: dataset name (topic slug), see :func:`validate_dataset_name`.
        paths: note files; each must exist. Order is kept; duplicates removed.
        batch_size: notes per ``cognee.add`` call (≥ 1).

    Returns:
        :class:`AddResult`. Re-adding identical notes is a no-op.

    Raises:
        InvalidDatasetName: bad ``dataset``.
        GraphConfigError: not configured, or ``batch_size`` < 1.
        FileNotFoundError: a path does not exist (checked before any add).
        NoteChangedError: a note's path is already in the dataset with other
            content (the batch named in the message was not added).
        AddBatchError: any other failure, naming the batch (index/count, first
            and last file) and the cause (e.g. the embedding connection test
            failing because Ollama is down or answers 500).
    """
    _require_configured()
    validate_dataset_name(dataset)
    if batch_size < 1:
        raise GraphConfigError(f"batch_size must be >= 1, got {batch_size}")
    unique: list[Path] = []
    seen: set[Path] = set()
    for p in paths:
        rp = Path(p).expanduser().resolve()
        if rp in seen:
            continue
        if not rp.is_file():
            raise FileNotFoundError(f"note not found: {rp}")
        seen.add(rp)
        unique.append(rp)
    started = time.monotonic()
    import cognee
    from cognee.api.v1.exceptions.exceptions import DocumentUpdateRequiredError

    batches = _batches(unique, batch_size)
    result = AddResult(dataset=dataset, dataset_id=None, notes=len(unique), batches=len(batches))
    for index, batch in enumerate(batches, start=1):
        where = (f"adding batch {index}/{len(batches)} ({len(batch)} notes: {_describe(batch)}) "
                 f"to dataset '{dataset}' failed")
        try:
            info = await cognee.add([str(p) for p in batch], dataset_name=dataset)
        except DocumentUpdateRequiredError as exc:
            data_id = None
            m = re.search(r"data_id ([0-9a-f-]{36})", str(exc))
            if m:
                data_id = m.group(1)
            raise NoteChangedError(
                f"{where}: a note already in the dataset has changed content ({exc}). "
                "memctl re-adds changed notes only into a new or empty dataset.",
                data_id=data_id, dataset=dataset, batch_index=index, batch_count=len(batches), paths=batch,
            ) from exc
        except Exception as exc:
            raise AddBatchError(f"{where}: {type(exc).__name__}: {exc}", dataset=dataset, batch_index=index,
                                batch_count=len(batches), paths=batch) from exc
        status = _status_name(info)
        if "Errored" in status:
            raise AddBatchError(f"{where}: Cognee reported {status}: {getattr(info, 'payload', None)}",
                                dataset=dataset, batch_index=index, batch_count=len(batches), paths=batch)
        if getattr(info, "dataset_id", None) is not None:
            result.dataset_id = str(info.dataset_id)
        for item in getattr(info, "data_ingestion_info", None) or []:
            data_id = item.get("data_id") if isinstance(item, dict) else None
            if data_id is not None and str(data_id) not in result.data_ids:
                result.data_ids.append(str(data_id))
    result.data_count = await dataset_data_count(dataset)
    result.elapsed_s = time.monotonic() - started
    return result


@_quiet
async def cognify(datasets: list[str], chunks_per_batch: int = 10, data_per_batch: int = 4) -> CognifyResult:
    """Run one Cognee cognify over ``datasets`` with explicit concurrency.

    Args:
        datasets: dataset names (deduplicated, order kept); an empty list is a
            no-op.
        chunks_per_batch: chunks Cognee processes per task batch
            (``cognee.cognify(chunks_per_batch=…)``; Cognee's default is 2000).
        data_per_batch: documents processed concurrently
            (``cognee.cognify(data_per_batch=…)``, an asyncio semaphore in
            ``run_tasks``; Cognee's default is 20).

    Only data not yet cognified is processed (Cognee's incremental loading),
    so an unchanged dataset costs no model call.

    Returns:
        :class:`CognifyResult` with a status per dataset.

    Raises:
        InvalidDatasetName, GraphConfigError (not configured, or a batch
        parameter < 1), CognifyError (any Cognee or model failure; the cause
        is chained).
    """
    _require_configured()
    names = list(dict.fromkeys(validate_dataset_name(d) for d in datasets))
    if chunks_per_batch < 1 or data_per_batch < 1:
        raise GraphConfigError("chunks_per_batch and data_per_batch must be >= 1")
    result = CognifyResult(datasets=names)
    if not names:
        return result
    started = time.monotonic()
    import cognee

    try:
        runs = await cognee.cognify(datasets=names, chunks_per_batch=chunks_per_batch,
                                    data_per_batch=data_per_batch)
    except Exception as exc:
        raise CognifyError(f"cognify of {', '.join(names)} failed: {type(exc).__name__}: {exc}",
                           datasets=names) from exc
    failed = []
    if isinstance(runs, dict):
        for info in runs.values():
            name = getattr(info, "dataset_name", None) or str(getattr(info, "dataset_id", "?"))
            status = _status_name(info)
            result.status[name] = status
            if "Errored" in status:
                failed.append(f"{name}: {status} {getattr(info, 'payload', '')}")
    if failed:
        raise CognifyError("cognify failed for " + "; ".join(failed), datasets=names)
    result.elapsed_s = time.monotonic() - started
    return result


@_quiet
async def remove_notes(dataset: str, paths: Iterable[Path]) -> int:
    """Delete from ``dataset`` the data items added from these files (matched by
    ``original_data_location`` = the file's ``file://`` URI), with their graph
    nodes, edges and vectors (``cognee.datasets.delete_data``). Returns how many
    were deleted; files never added are ignored.

    Raises:
        GraphMemoryError: Cognee failed to delete.
    """
    _require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await _find_dataset(dataset)
    if ds is None:
        return 0
    wanted = {Path(p).expanduser().absolute().as_uri() for p in paths}
    deleted = 0
    try:
        for row in await cognee.datasets.list_data(ds.id):
            if row.original_data_location in wanted:
                await cognee.datasets.delete_data(ds.id, row.id)
                deleted += 1
    except Exception as exc:
        raise GraphMemoryError(f"removing {len(wanted)} note(s) from dataset '{dataset}' failed: {exc}") from exc
    return deleted


async def list_datasets() -> list[str]:
    """Names of the default user's datasets, sorted ([] before the first add)."""
    _require_configured()
    return sorted(ds.name for ds in await _all_datasets())


@_quiet
async def dataset_data_count(dataset: str) -> int:
    """Number of data items (documents) in ``dataset``; 0 if it (or the store) does not exist."""
    _require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await _find_dataset(dataset)
    if ds is None:
        return 0
    return len(await cognee.datasets.list_data(ds.id))


@_quiet
async def graph_counts(dataset: str) -> GraphCounts:
    """Document, node, edge and vector-row counts of ``dataset``.

    Nodes/edges come from Cognee's graph engine for that dataset
    (``MATCH (n:Node)`` / ``MATCH ()-[r:EDGE]->()`` counts); vector rows from
    opening the dataset's LanceDB directory read-only. A dataset that does not
    exist yields all zeros.
    """
    _require_configured()
    validate_dataset_name(dataset)
    import cognee

    ds = await _find_dataset(dataset)
    if ds is None:
        return GraphCounts(dataset=dataset, data_items=0, nodes=0, edges=0)
    data_items = len(await cognee.datasets.list_data(ds.id))
    from cognee.context_global_variables import set_database_global_context_variables
    from cognee.infrastructure.databases.graph import get_graph_engine
    from cognee.infrastructure.databases.vector.config import get_vectordb_context_config

    user = await _default_user()
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


@_quiet
async def search(query: str, datasets: list[str], *, kind: Literal["chunks", "graph_completion"] = "chunks",
                 top_k: int = 10) -> list[SearchHit]:
    """Search ``datasets`` (only those — access control scopes it).

    Args:
        query: natural-language query.
        datasets: dataset names; must be non-empty.
        kind: ``chunks`` — the note chunks nearest to the query, with
            provenance (no LLM call, one embedding); ``graph_completion`` —
            Cognee's graph-context answer (one LLM call).
        top_k: maximum results per dataset.

    Returns:
        :class:`SearchHit` list in Cognee's order.

    Raises:
        GraphConfigError, InvalidDatasetName, GraphMemoryError (search failed).
    """
    _require_configured()
    names = [validate_dataset_name(d) for d in datasets]
    if not names:
        raise GraphConfigError("search needs at least one dataset")
    import cognee
    from cognee import SearchType

    qtype = SearchType.CHUNKS if kind == "chunks" else SearchType.GRAPH_COMPLETION
    try:
        raw = await cognee.search(query, query_type=qtype, datasets=names, top_k=top_k)
    except Exception as exc:
        raise GraphMemoryError(f"search in {', '.join(names)} failed: {type(exc).__name__}: {exc}") from exc
    return _normalize_hits(raw)


def _normalize_hits(raw: Any) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for group in raw or []:
        if isinstance(group, dict) and "search_result" in group:
            ds_name = str(group.get("dataset_name") or "")
            results = group.get("search_result") or []
        else:
            ds_name, results = "", [group]
        if not isinstance(results, list):
            results = [results]
        for r in results:
            if isinstance(r, dict):
                meta = r.get("external_metadata")
                if isinstance(meta, str):
                    try:
                        meta = json.loads(meta)
                    except ValueError:
                        meta = None
                uri = ((meta or {}).get("_cognee") or {}).get("source_uri") if isinstance(meta, dict) else None
                score = r.get("score")
                hits.append(SearchHit(dataset=ds_name, text=str(r.get("text", "")),
                                      document_name=r.get("document_name"), source_uri=uri,
                                      score=float(score) if isinstance(score, (int, float)) else None))
            else:
                hits.append(SearchHit(dataset=ds_name, text=str(r)))
    return hits


# --------------------------------------------------------------------------
# Sync wrappers
# --------------------------------------------------------------------------

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run ``awaitable`` on this module's private event loop and return its result.

    One loop is reused for the whole process because Cognee keeps
    loop-bound resources (async SQLAlchemy engines, DB worker handles)
    between calls; ``asyncio.run`` per call would strand them. Must not be
    called from inside a running event loop (``RuntimeError``); calls are
    serialized.
    """
    global _loop
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("run_sync() called from a running event loop; await the coroutine instead")
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
        return _loop.run_until_complete(awaitable)


def add_notes_sync(dataset: str, paths: Iterable[Path], batch_size: int = 20) -> AddResult:
    """Blocking :func:`add_notes`."""
    return run_sync(add_notes(dataset, paths, batch_size))


def cognify_sync(datasets: list[str], chunks_per_batch: int = 10, data_per_batch: int = 4) -> CognifyResult:
    """Blocking :func:`cognify`."""
    return run_sync(cognify(datasets, chunks_per_batch, data_per_batch))


def graph_store_location_problem(home: DataHome) -> str | None:
    """Why this data home's Cognee stores cannot be used here, or None when they can.

    Cognee records absolute paths (``dataset_database.vector_database_url``,
    ``data.raw_data_location``) in its SQLite database. A data home that was
    moved or copied still points at the old place, so searching would read —
    and cognify would write — another directory. Read-only (``mode=ro``), no
    Cognee import; a missing or unreadable database is not a location problem.
    """
    import sqlite3
    from urllib.parse import unquote, urlparse

    db = home.cognee / "system" / "databases" / "cognee_db"
    if not db.is_file():
        return None
    root = home.cognee.resolve()
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = connection.execute("SELECT vector_database_url FROM dataset_database").fetchall()
            rows += connection.execute("SELECT raw_data_location FROM data LIMIT 50").fetchall()
        finally:
            connection.close()
    except sqlite3.Error:
        return None
    for (value,) in rows:
        if not value:
            continue
        path = Path(unquote(urlparse(value).path)) if str(value).startswith("file:") else Path(value)
        if path.is_absolute() and not path.resolve().is_relative_to(root):
            return (f"the graph store in {home.cognee} points at {path.parent} (this data home was moved or "
                    f"copied; Cognee keeps absolute paths). Rebuild it: delete {home.cognee} and run `memctl ingest`")
    return None


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


def close() -> None:
    """Shut Cognee's database worker processes down gracefully (registered to run at exit).

    Cognee 1.6.5 runs its graph and vector stores in spawned worker processes
    (``cognee_db_workers``). Left alone, its ``atexit`` reaper never sends them
    the SHUTDOWN request: it joins each for 2 s before terminating it, which
    added ~15 s to every `memctl ingest`. ``SubprocessSession.shutdown`` sends
    SHUTDOWN first, so each worker closes its store and exits at once.
    Best-effort: a failure here never hides the run's result.
    """
    try:
        from cognee_db_workers import harness
    except ImportError:
        return
    def shutdown(session: Any) -> None:
        try:
            session.shutdown(timeout=5.0)
        except Exception:  # noqa: BLE001 - teardown must not mask the run's outcome
            pass

    # In parallel (one at a time costs up to a second per worker). Plain threads: an
    # executor refuses new work once the interpreter is shutting down (atexit).
    threads = [threading.Thread(target=shutdown, args=(session,), daemon=True) for session in list(harness._all_sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10.0)
