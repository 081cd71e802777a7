"""Cognee's settings, pinned: memctl's values, and nothing from a file or variable outside them.

Cognee reads its settings from the process environment (settings classes and
``os.getenv``), and fills that environment from a ``.env`` file once, at
``import cognee``, with the file winning over variables already set
(``cognee/shared/env_file.py``, 1.6.5): ``COGNEE_ENV_FILE`` if set, else the
first ``.env`` in the working directory or a parent (up to the nearest
``.git``/``pyproject.toml``, or ``/``), else one beside the package. litellm,
imported by Cognee, loads a ``.env`` as well (``dotenv.load_dotenv()`` in
``litellm/_process_defaults.py``, searched upwards from litellm's directory,
or from the working directory under a debugger or coverage) unless
``LITELLM_MODE`` is not ``DEV``. A project's own ``.env`` would so decide
where memctl's graph lives and what it may see — ``ENABLE_BACKEND_ACCESS_CONTROL=false``
puts every topic into one shared store, so a search scoped to one topic
returns another's notes.

:func:`pin_environment` therefore, before ``import cognee``:

1. removes from the process environment every variable a Cognee settings
   class reads (:func:`cognee_setting_names`, read from Cognee's source, no
   import) and the plain ``os.getenv`` switches in :data:`PROCESS_SWITCHES`,
   so Cognee's defaults apply wherever memctl sets nothing;
2. sets :func:`cognee_env` — memctl's values, including
   ``COGNEE_ENV_FILE`` naming ``<home>/cognee/cognee.env`` and
   ``LITELLM_MODE=PRODUCTION``;
3. writes that file (atomically, only when it differs) with exactly those
   values, so Cognee's override-loading re-applies memctl's values and no other.

Why each value is what it is:

* **LLM** — provider ``ollama`` with the default ``litellm_native``
  structured output framework. litellm's ``ollama/<model>`` route appends
  ``/api/generate`` (and ``/api/show``) to the endpoint, so the endpoint is
  the bare Ollama host, not ``<host>/v1``. ``LLM_API_KEY`` is a placeholder:
  Ollama ignores it, Cognee's ``get_native_client`` refuses an empty key.
  ``GRAPH_EXTRACTOR=llm`` (``auto`` would pick a local GLiNER model).
  ``LLM_ARGS`` carries ``num_ctx``: Cognee sends none, and Ollama's 2–4k
  default would cut the extraction prompt.
* **OLLAMA_API_BASE** — litellm's Ollama provider asks ``/api/show`` for model
  facts (``get_model_info`` in ``litellm/llms/ollama/common_utils.py``, reached
  from cost calculation and schema-support checks) at ``OLLAMA_API_BASE``,
  else ``http://localhost:11434``, ignoring the endpoint Cognee was given. It
  is the configured host, so no call goes to an address the user did not set.
* **Embeddings** — provider ``ollama``: ``POST <host>/api/embed``.
* **OpenAI-compatible servers** (``model_provider = "openai"``, also the embedded
  backend) — LLM provider ``custom`` with model ``openai/<graph_model>`` and
  the ``/v1`` base as endpoint (litellm posts ``<base>/chat/completions``);
  embeddings ``openai_compatible`` (Cognee's ``OpenAICompatibleEmbeddingEngine``,
  ``<base>/embeddings``); the key from the variable ``model_api_key_env``,
  else the placeholder. No ``num_ctx``: such a server owns its context.
* **Stores** — graph ``kuzu`` or ``ladybug``, vectors LanceDB, relational
  SQLite, all under ``<home>/cognee``. **Backend access control on**: one
  graph and one vector store per dataset, which is what makes
  ``search(datasets=[…])`` see only those datasets.
* ``RAISE_INCREMENTAL_LOADING_ERRORS=false`` — a data item that fails is
  reported with its id and error while the others finish, so one note can be
  rejected instead of the topic (:mod:`memctl.graph.cognify`).
* ``ACCEPT_LOCAL_FILE_PATH=true`` — notes are added by path.
* ``CACHING=false``, ``AUTO_FEEDBACK=false`` — no session memory across
  unrelated asks, no extra LLM call per search. ``ALLOW_HTTP_REQUESTS=false``:
  memctl never adds URLs. ``TELEMETRY_DISABLED=1``.
* ``COGNEE_LOG_FILE=false`` — Cognee would write one timestamped log file per
  process into ``cognee/logs/``; its records go to ``<home>/logs/library.log``
  with the rest of the libraries' output.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import threading
from pathlib import Path

from memctl.atomic import atomic_write_text
from memctl.config import DataHome, Settings

__all__ = ["ENV_FILE_NAME", "PROCESS_SWITCHES", "cognee_env", "cognee_setting_names", "env_file_text",
           "pin_environment"]

PLACEHOLDER_API_KEY = "ollama"
ENV_FILE_NAME = "cognee.env"

# os.getenv switches of Cognee 1.6.5 outside its settings classes that move data, add
# network peers or change what a search may see (grep of cognee/ for os.getenv).
PROCESS_SWITCHES = (
    "STORAGE_BACKEND", "STORAGE_BUCKET_NAME", "COGNEE_ALLOWED_LOCAL_FILE_ROOTS", "REQUIRE_AUTHENTICATION",
    "USE_UNIFIED_PROVIDER", "GRAPH_ID", "COGNEE_SKIP_CONNECTION_TEST", "COGNEE_PROVENANCE_MODE",
    "COGNEE_DEFAULT_USER", "COGNEE_DEFAULT_PASSWORD", "COGNEE_API_URL", "COGNEE_CLOUD_API_URL",
    "COGNEE_CLOUD_URL", "COGNEE_SERVICE_URL", "COGNEE_MCP_URL", "OPENAI_API_BASE", "OPENAI_BASE_URL",
    "NEO4J_URL", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE", "LADYBUG_HOST", "LADYBUG_PORT",
    "LADYBUG_USERNAME", "LADYBUG_PASSWORD", "LANGFUSE_BASE_URL", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "DATASET_QUEUE_ENABLED", "TRIPLET_EMBEDDING",
    "CONTRADICTION_DETECTION", "ENABLE_AUTO_MIGRATIONS", "ENABLE_LAST_ACCESSED", "MOCK_EMBEDDING",
    "COGNEE_LOG_FILE", "LOG_FILE_NAME", "KEENABLE_LIVE_FETCH", "TAVILY_API_KEY",
)


def cognee_env(settings: Settings, home: DataHome) -> dict[str, str]:
    """The environment memctl gives Cognee (pure; the module doc says why each is set).

    Returns a new dict of variable → value, ``COGNEE_ENV_FILE`` included.
    """
    root = home.cognee
    return {
        "COGNEE_ENV_FILE": str(root / ENV_FILE_NAME),
        "LITELLM_MODE": "PRODUCTION",
        # directories (base_config.py reads COGNEE_LOGS_DIR/COGNEE_REPOS_DIR at import)
        "SYSTEM_ROOT_DIRECTORY": str(root / "system"),
        "DATA_ROOT_DIRECTORY": str(root / "data"),
        "CACHE_ROOT_DIRECTORY": str(root / "cache"),
        "COGNEE_LOGS_DIR": str(root / "logs"),
        "COGNEE_REPOS_DIR": str(root / "repos"),
        **_model_env(settings),
        # stores
        "GRAPH_DATABASE_PROVIDER": settings.graph_provider,
        "VECTOR_DB_PROVIDER": "lancedb",
        "DB_PROVIDER": "sqlite",
        "DB_NAME": "cognee_db",
        "ENABLE_BACKEND_ACCESS_CONTROL": "true",
        # behaviour
        "RAISE_INCREMENTAL_LOADING_ERRORS": "false",
        "ACCEPT_LOCAL_FILE_PATH": "true",
        "CACHING": "false",
        "AUTO_FEEDBACK": "false",
        "ALLOW_HTTP_REQUESTS": "false",
        "TELEMETRY_DISABLED": "1",
        # No timestamped file per process under cognee/logs/ (many empty, never removed): Cognee's log
        # records reach memctl's rotating <home>/logs/library.log instead (memctl.cli.log_routing).
        "COGNEE_LOG_FILE": "false",
    }


def _model_env(settings: Settings) -> dict[str, str]:
    """The LLM and embedding variables for the configured provider (the module doc says why each is set)."""
    if settings.model_provider == "openai":
        base = settings.model_endpoint
        return {
            # litellm's openai/ route posts to <base>/chat/completions; Cognee's litellm_native adapter asks for
            # a json_object with the schema in the system prompt for a model litellm does not know.
            "LLM_PROVIDER": "custom",
            "LLM_MODEL": "openai/" + settings.graph_model,
            "LLM_ENDPOINT": base,
            "LLM_API_KEY": settings.model_api_key or PLACEHOLDER_API_KEY,
            "STRUCTURED_OUTPUT_FRAMEWORK": "litellm_native",
            "LLM_ARGS": json.dumps({}),
            "GRAPH_EXTRACTOR": "llm",
            # OpenAICompatibleEmbeddingEngine: the openai SDK posts to <base>/embeddings
            "EMBEDDING_PROVIDER": "openai_compatible",
            "EMBEDDING_MODEL": settings.embedding_model,
            "EMBEDDING_DIMENSIONS": str(settings.embedding_dimensions),
            "EMBEDDING_ENDPOINT": base,
            "EMBEDDING_API_KEY": settings.model_api_key or PLACEHOLDER_API_KEY,
        }
    host = settings.ollama_base_url
    return {
        # LLM (litellm_native → <host>/api/generate)
        "LLM_PROVIDER": "ollama",
        "LLM_MODEL": _litellm_model(settings.graph_model),
        "LLM_ENDPOINT": host,
        "LLM_API_KEY": PLACEHOLDER_API_KEY,
        "STRUCTURED_OUTPUT_FRAMEWORK": "litellm_native",
        "LLM_ARGS": json.dumps({"num_ctx": int(settings.graph_num_ctx)}),
        "GRAPH_EXTRACTOR": "llm",
        "OLLAMA_API_BASE": host,
        # embeddings (OllamaEmbeddingEngine → <host>/api/embed)
        "EMBEDDING_PROVIDER": "ollama",
        "EMBEDDING_MODEL": settings.embedding_model,
        "EMBEDDING_DIMENSIONS": str(settings.embedding_dimensions),
        "EMBEDDING_ENDPOINT": host + "/api/embed",
    }


def _litellm_model(model: str) -> str:
    """``ollama/<model>``: litellm routes on the prefix. Cognee would add it itself, but only
    after a failed ``litellm.get_llm_provider`` lookup that prints a banner to stdout."""
    return model if model.startswith("ollama/") else "ollama/" + model


def env_file_text(env: dict[str, str]) -> str:
    """``env`` as a dotenv file: one ``NAME='value'`` line each, sorted. Single quotes keep
    the value literal for python-dotenv (only ``\\\\`` and ``\\'`` are escapes there), except
    that it expands ``${VAR}`` in any value and has no escape for it: such a value is left out
    (a comment says so) — :func:`pin_environment` has already put it into the environment, and
    a file that does not name a variable leaves it as it is."""
    def line(name: str, value: str) -> str:
        if "${" in value:
            return f"# {name}: set in the process environment (dotenv would expand the '${{' in its value)\n"
        return f"{name}='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'\n"

    return "".join(line(name, value) for name, value in sorted(env.items()))


_names_lock = threading.Lock()
_names: frozenset[str] | None = None


def cognee_setting_names() -> frozenset[str]:
    """Every environment variable a settings class of the installed Cognee reads, plus
    :data:`PROCESS_SWITCHES`; upper case.

    Read from Cognee's source without importing it (importing would load a
    ``.env``): each ``*.py`` outside ``tests`` that mentions ``BaseSettings``
    is parsed, and for each class deriving (directly or through another such
    class) from ``BaseSettings``, every annotated field becomes
    ``<env_prefix><FIELD>``, and every string ``alias``/``validation_alias``
    given to ``Field``/``AliasChoices`` is added as is. Computed once per process.
    """
    global _names
    with _names_lock:
        if _names is None:
            spec = importlib.util.find_spec("cognee")
            root = Path(spec.origin).parent if spec is not None and spec.origin else None
            names: set[str] = set(PROCESS_SWITCHES)
            if root is not None:
                for path in sorted(root.rglob("*.py")):
                    if "tests" in path.relative_to(root).parts:
                        continue
                    source = path.read_bytes()
                    if b"BaseSettings" in source:
                        names |= _settings_fields(ast.parse(source))
            _names = frozenset(n.upper() for n in names)
        return _names


def _settings_fields(tree: ast.Module) -> set[str]:
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    settings = {"BaseSettings"}
    for _ in range(len(classes)):  # derived classes may come before their bases
        grown = {c.name for c in classes if any(_base_name(b) in settings for b in c.bases)}
        if grown <= settings:
            break
        settings |= grown
    names: set[str] = set()
    for cls in classes:
        if cls.name == "BaseSettings" or cls.name not in settings:
            continue
        prefix = _env_prefix(cls)
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                field = stmt.target.id
                if field == "model_config" or field.startswith("_") or "ClassVar" in ast.unparse(stmt.annotation):
                    continue
                names.add(prefix + field)
                if stmt.value is not None:
                    names |= _aliases(stmt.value)
    return names


def _base_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _env_prefix(cls: ast.ClassDef) -> str:
    for stmt in cls.body:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and stmt.targets else getattr(stmt, "target", None)
        if isinstance(target, ast.Name) and target.id == "model_config" and isinstance(stmt.value, ast.Call):
            for keyword in stmt.value.keywords:
                if keyword.arg == "env_prefix" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return ""


def _aliases(value: ast.expr) -> set[str]:
    found: set[str] = set()
    for call in ast.walk(value):
        if not isinstance(call, ast.Call):
            continue
        if _base_name(call.func) == "AliasChoices":
            found |= {a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        for keyword in call.keywords:
            if keyword.arg in ("alias", "validation_alias") and isinstance(keyword.value, ast.Constant) \
                    and isinstance(keyword.value.value, str):
                found.add(keyword.value.value)
    return found


def pin_environment(settings: Settings, home: DataHome) -> dict[str, str]:
    """Give this process exactly memctl's Cognee settings (steps in the module doc); returns
    :func:`cognee_env`. Creates ``home.cognee``. Call before ``import cognee``; calling
    again (another home) re-pins the environment, which Cognee's configuration objects
    then read through ``cognee.config``.

    Raises:
        OSError: ``<home>/cognee`` or its env file cannot be written.
    """
    env = cognee_env(settings, home)
    for name in cognee_setting_names() - env.keys():
        os.environ.pop(name, None)
    os.environ.update(env)
    env_file = Path(env["COGNEE_ENV_FILE"])
    text = env_file_text(env)
    try:
        current = env_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = None
    if current != text:
        atomic_write_text(env_file, text)
    return env
