"""`memctl doctor`: environment checks, each with the fix to apply.

Checks: the model backend in use (Ollama, an OpenAI-compatible server, or the embedded backend);
the model server reachable (Ollama's ``/api/tags``, or ``/v1/models``); the configured models present (with the `ollama
pull` line for missing ones) and not on Cognee's "problematic for structured
output" list (cognee/infrastructure/llm/ollama_support.py, 1.6.5: mistral,
phi3, qwen2.5 below 14B); the embedding model's dimension equals the
configured one and the one already stored in the vector store (a model switch
otherwise corrupts retrieval); the OpenCode DB found, readable and of a
supported layout; the topics and the other names (aliases) of moved or
renamed projects; the data home writable; free disk; whether OpenCode's config
starts `memctl serve` (``memctl mcp install --opencode``).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from memctl.config import DataHome, Settings

MIN_FREE_BYTES = 2 * 1024**3
PROBE_TIMEOUT_S = 5.0
_PROBLEMATIC = (re.compile(r"^mistral"), re.compile(r"^phi3"), re.compile(r"^qwen2\.5(?::(\d+(?:\.\d+)?)b)?"))


@dataclass
class Check:
    """One doctor line: ``status`` is ok | warn | fail; ``fix`` says what to do."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def problematic_model(name: str) -> bool:
    """True for model families Cognee 1.6.5 lists as problematic for structured graph extraction."""
    base = name.lower().split("/")[-1]
    for pattern in _PROBLEMATIC:
        match = pattern.match(base)
        if match:
            if pattern.pattern.startswith("^qwen2"):
                size = match.group(1)
                return size is None or float(size) < 14
            return True
    return False


def check_backend(settings: Settings) -> Check:
    """Which model backend and provider this run uses, and where (always ok: the checks after it judge)."""
    if settings.model_backend == "embedded":
        return Check("model backend", "ok", f"embedded: SmolLM2-135M-Instruct (Q4_1 GGUF on llama-cpp-python, CPU) and "
                     f"WordLlama ({settings.embedding_dimensions} dimensions), served for this run at "
                     f"{settings.model_endpoint}; low quality — for real quality run Ollama or an OpenAI-compatible server")
    if settings.model_provider == "openai":
        return Check("model backend", "ok", f"OpenAI-compatible server at {settings.model_endpoint} "
                     f"(key from ${settings.model_api_key_env}: {'set' if settings.model_api_key else 'unset'})")
    return Check("model backend", "ok", f"Ollama at {settings.ollama_base_url}")


def check_ollama(settings: Settings) -> list[Check]:
    """The backend line, then reachability, models, and the embedding dimension as the server reports it
    (Ollama's ``/api/tags``, or an OpenAI-compatible server's ``/v1/models``)."""
    from memctl.ollama_client import ModelError, client_for, embed, is_pulled, pulled_models, server_version

    base = settings.model_endpoint
    openai = settings.model_provider == "openai"
    server = "model server" if openai else "ollama"
    checks: list[Check] = [check_backend(settings)]
    client = client_for(settings, PROBE_TIMEOUT_S)
    try:
        version = server_version(settings, PROBE_TIMEOUT_S)
        available = pulled_models(client, settings, PROBE_TIMEOUT_S)
        checks.append(Check(server, "ok", f"{base} ({'models: ' + ', '.join(sorted(available)) if openai else 'version ' + version})"))
        for role, model in (("distill model", settings.distill_model), ("graph model", settings.graph_model),
                            ("embedding model", settings.embedding_model)):
            if not is_pulled(model, available):
                checks.append(Check(role, "fail", f"{model} not {'served' if openai else 'pulled'} on {base}",
                                    _missing_fix(settings, model)))
            elif role != "embedding model" and problematic_model(model):
                checks.append(Check(role, "warn", f"{model}: Cognee marks this family problematic for structured extraction",
                                    "use llama3.1:8b (or larger llama3.x) via MEMCTL_GRAPH_MODEL / MEMCTL_DISTILL_MODEL"))
            else:
                checks.append(Check(role, "ok", model))
        if is_pulled(settings.embedding_model, available):
            dims = len(embed(client, settings, settings.embedding_model, ["memctl doctor"], PROBE_TIMEOUT_S)[0])
            if dims != settings.embedding_dimensions:
                checks.append(Check("embedding dimension", "fail",
                                    f"{settings.embedding_model} returns {dims} dimensions, config says {settings.embedding_dimensions}",
                                    f"set MEMCTL_EMBEDDING_DIMENSIONS={dims}"))
            else:
                checks.append(Check("embedding dimension", "ok", f"{dims}"))
    except ModelError as exc:
        fix = ("start the server or set MEMCTL_MODEL_BASE_URL (with its /v1)" if openai
               else "start it (`ollama serve`) or set OLLAMA_HOST=host:port")
        checks.append(Check(server, "fail", str(exc), fix))
    return checks


def _missing_fix(settings: Settings, model: str) -> str:
    if settings.model_backend == "embedded":
        return "pip install 'memctl[embedded]' (./run.sh installs it)"
    if settings.model_provider == "openai":
        return f"load {model} on the server, or set the model settings to ids its /v1/models lists"
    return f"ollama pull {model}"


def check_vector_store(settings: Settings, home: DataHome) -> Check:
    """Compare the configured embedding dimension with the vectors already stored."""
    from memctl.graph.knowledge_graph import stored_vector_dimensions

    try:
        stored = stored_vector_dimensions(home)
    except Exception as exc:  # an unreadable store is reported, not fatal for the other checks
        return Check("vector store", "warn", f"cannot inspect {home.cognee}: {exc}")
    if not stored:
        return Check("vector store", "ok", "empty (no vectors yet)")
    if stored != {settings.embedding_dimensions}:
        return Check("vector store", "fail",
                     f"stored vectors have {sorted(stored)} dimensions, the embedding model is configured for {settings.embedding_dimensions}",
                     "switch back to the previous embedding model, or move the data home's cognee/ aside and re-run `memctl ingest --phase add` to rebuild")
    return Check("vector store", "ok", f"{settings.embedding_dimensions} dimensions match")


def check_graph_location(home: DataHome) -> Check:
    """The Cognee stores belong to this data home, or can be relocated into it (:mod:`memctl.graph.relocate`):
    a copied or moved home is fine; stores pointing outside every place it has been are not."""
    from memctl.graph.knowledge_graph import graph_store_location_problem
    from memctl.graph.relocate import pending_relocation

    problem = graph_store_location_problem(home)
    if problem:
        return Check("graph store location", "fail", problem, f"rm -rf {home.cognee} && memctl ingest")
    moved = pending_relocation(home)
    if moved:
        return Check("graph store location", "ok",
                     f"{home.cognee} (moved: {moved}; the next ask, ingest or sleep updates Cognee's stored paths)")
    return Check("graph store location", "ok", f"{home.cognee}")


def check_graph_rejections(home: DataHome) -> Check:
    """Notes Cognee rejected (:mod:`memctl.graph.rejections`): each is in the memory store but not in
    its topic's graph until a run gets it through; the detail names them with the reason."""
    from memctl.graph.rejections import load_rejections

    rejected = load_rejections(home.graph_rejections)
    if not rejected:
        return Check("graph rejections", "ok", "none")

    store = home.store.resolve()

    def shown(path: str) -> str:
        return Path(path).relative_to(store).as_posix() if Path(path).is_relative_to(store) else path

    listed = "; ".join(f"{shown(r.path)} ({r.dataset}, {r.phase}): {r.reason}" for r in rejected[:5])
    more = f"; … {len(rejected) - 5} more in {home.graph_rejections}" if len(rejected) > 5 else ""
    return Check("graph rejections", "warn", f"{len(rejected)} note(s) not in the graph: {listed}{more}",
                 "every `memctl ingest` offers them again; a note whose text changed may pass")


def check_memory_store(home: DataHome) -> Check:
    """The audit chain of the memory store holds (``audit verify``), and no change is left unapplied."""
    from memctl.store import MemoryStore

    store = MemoryStore(home.store)
    if not store.root.exists():
        return Check("memory store", "ok", "empty (nothing written yet)")
    report = store.verify()
    if not report.ok:
        return Check("memory store", "fail", f"audit log broken at {report.problem}", "memctl audit verify")
    if report.warnings:
        return Check("memory store", "warn", "; ".join(report.warnings), "memctl audit repair")
    return Check("memory store", "ok", f"audit chain intact ({report.records} records)")


def check_source(db_path: Path) -> Check:
    """The OpenCode DB exists, opens read-only and has a supported layout; the
    detail names the layout(s) found with their session counts."""
    from memctl.connectors.opencode.source import OpenCodeSource, SourceError

    try:
        source = OpenCodeSource(db_path)
        try:
            report = source.check_schema()
            roots = source.count_roots()
        finally:
            source.close()
    except SourceError as exc:
        return Check("opencode db", "fail", str(exc), "pass --db PATH or set OPENCODE_DB")
    return Check("opencode db", "ok", f"{source.db_path}: {roots} top-level sessions "
                 f"({report.sessions - roots} subagent sessions folded in); {report.describe()}")


def check_topics(home: DataHome) -> Check:
    """The topics file reads; the detail lists each topic that has aliases (a moved or renamed project)
    with its other names and paths."""
    from memctl.ingest.checkpoint import CheckpointError
    from memctl.ingest.topics import TopicRegistry

    try:
        registry = TopicRegistry.load(home.topics, read_only=True)
    except CheckpointError as exc:
        return Check("topics", "fail", str(exc), f"move {home.topics} aside; the next `memctl ingest` rebuilds it")
    slugs = registry.slugs
    if not slugs:
        return Check("topics", "ok", "none yet")
    moved = [f"{slug} also {', '.join(f'{a.name} ({a.path})' for a in registry.aliases_of(slug))}"
             for slug in slugs if registry.aliases_of(slug)]
    count = f"{len(slugs)} topic" + ("s" if len(slugs) != 1 else "")
    return Check("topics", "ok", count + ("; " + "; ".join(moved) if moved else ""))


def check_home(home: DataHome) -> list[Check]:
    """The data home is writable and has free disk."""
    checks = []
    probe_dir = home.root if home.root.exists() else next((p for p in home.root.parents if p.exists()), Path("/"))
    try:
        with tempfile.NamedTemporaryFile(dir=probe_dir, prefix=".memctl-doctor-"):
            pass
        checks.append(Check("data home", "ok", f"{home.root} writable"))
    except OSError as exc:
        checks.append(Check("data home", "fail", f"{home.root}: {exc}", "use --home DIR or MEMCTL_HOME with a writable directory"))
    free = shutil.disk_usage(probe_dir).free
    status = "ok" if free >= MIN_FREE_BYTES else "warn"
    checks.append(Check("disk", status, f"{free / 1024**3:.1f} GiB free at {probe_dir}",
                        "" if status == "ok" else "free some space: Cognee's stores grow with every dataset"))
    return checks


def check_opencode_mcp(home: DataHome) -> Check:
    """Whether OpenCode (global config, and the current directory's project config) starts `memctl serve` for this home."""
    from memctl.serve.opencode_config import opencode_status

    status, detail, fix = opencode_status(home.root, Path.cwd())
    return Check("opencode mcp", status, detail, fix)


def run_checks(settings: Settings, db_path: Path) -> list[Check]:
    """Run every check; never raises for an environment problem."""
    home = DataHome(settings.home)
    checks = check_ollama(settings)
    checks.append(check_vector_store(settings, home))
    checks.append(check_graph_location(home))
    checks.append(check_graph_rejections(home))
    checks.append(check_memory_store(home))
    checks.append(check_source(db_path))
    checks.append(check_topics(home))
    checks.extend(check_home(home))
    checks.append(check_opencode_mcp(home))
    return checks
