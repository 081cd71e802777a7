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

import json
import re
import shutil
import tempfile
import time
from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.health_check import PROBE_TIMEOUT_S, Check
from memctl.os_errors import reason

MIN_FREE_BYTES = 2 * 1024**3
_PROBLEMATIC = (re.compile(r"^mistral"), re.compile(r"^phi3"), re.compile(r"^qwen2\.5(?::(\d+(?:\.\d+)?)b)?"))


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
        return Check("model backend", "ok", f"embedded: SmolLM2-135M-Instruct (Q4_1 GGUF on llama.cpp, CPU) and "
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
    from memctl.graph.embedding_record import embedding_mismatch
    from memctl.state_file import StateFileError

    try:
        mismatch = embedding_mismatch(settings, home)
    except StateFileError as exc:
        return Check("vector store", "warn", str(exc))
    if mismatch is not None:  # same dimensions, another model: nothing would fail, retrieval would be noise
        head, _, fix = mismatch.partition(" across models: ")
        return Check("vector store", "fail", head, fix)
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


CLEANUP_DEFAULT_DAYS = 30
"""Claude Code's default ``cleanupPeriodDays``: transcripts older than this are deleted at its start."""

CLEANUP_MARGIN_DAYS = 7
"""Warn when an unread session is this close to Claude Code's cleanup age."""


def _cleanup_days(claude_dir: Path) -> int:
    try:
        value = json.loads((claude_dir / "settings.json").read_text(encoding="utf-8")).get("cleanupPeriodDays")
    except (OSError, ValueError, AttributeError):
        return CLEANUP_DEFAULT_DAYS
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else CLEANUP_DEFAULT_DAYS


def check_claude_code(claude_dir: Path, read_keys: set[str] | None = None, now_ms: int | None = None) -> Check:
    """Claude Code's history (``<dir>/projects``): where, which versions wrote it, how many sessions.
    Not there is fine (nothing to read); unreadable is a failure. Warns when sessions memctl has not
    read (not in ``read_keys``) are within :data:`CLEANUP_MARGIN_DAYS` of Claude Code deleting them
    (``cleanupPeriodDays`` of its ``settings.json``, default 30)."""
    from memctl.connectors.claude_code.source import ClaudeCodeSource
    from memctl.connectors.opencode.errors import SourceError
    from memctl.connectors.registry import key_of

    if not (claude_dir / "projects").is_dir():
        return Check("claude-code history", "ok", f"none at {claude_dir / 'projects'} (not read)")
    try:
        source = ClaudeCodeSource(claude_dir)
        infos = list(source.iter_root_infos())
    except (SourceError, OSError) as exc:
        return Check("claude-code history", "fail", str(exc), "pass --claude-dir DIR or set CLAUDE_CONFIG_DIR")
    versions = sorted({info.version for info in infos if info.version})
    detail = f"{source.projects}: {len(infos)} sessions; version {', '.join(versions) or 'unknown'}"
    days = _cleanup_days(claude_dir)
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    limit_ms = now_ms - max(0, days - CLEANUP_MARGIN_DAYS) * 86_400_000
    at_risk = [i for i in infos if read_keys is not None and key_of("claude-code", i.id) not in read_keys
               and i.time_updated <= limit_ms]
    if at_risk:
        return Check("claude-code history", "warn", f"{detail}; {len(at_risk)} sessions memctl has not read are "
                     f"older than {max(0, days - CLEANUP_MARGIN_DAYS)} days and Claude Code deletes sessions after "
                     f"{days} days (cleanupPeriodDays)", "memctl ingest --source claude-code")
    return Check("claude-code history", "ok", detail)


def check_codex(codex_home: Path) -> Check:
    """Codex CLI's history (``<CODEX_HOME>/sessions`` and ``archived_sessions``): where, which CLI
    versions wrote it, how many sessions (subagent threads and forks folded into their parent).
    Not there is fine (nothing to read); unreadable is a failure."""
    from memctl.connectors.codex.source import CodexSource
    from memctl.connectors.opencode.errors import SourceError

    if not any((codex_home / sub).is_dir() for sub in ("sessions", "archived_sessions")):
        return Check("codex history", "ok", f"none at {codex_home / 'sessions'} (not read)")
    try:
        source = CodexSource(codex_home)
        layout = source.check_schema()
    except (SourceError, OSError) as exc:
        return Check("codex history", "fail", str(exc), "pass --codex-home DIR or set CODEX_HOME")
    folded = layout.sessions - layout.roots
    return Check("codex history", "ok", f"{layout.home}: {layout.roots} sessions"
                 + (f" ({folded} subagent or fork threads folded in)" if folded else "")
                 + f"; version {', '.join(layout.versions) or 'unknown'}")


def check_topics(home: DataHome) -> Check:
    """The topics file reads; the count is of the topic index's topics (what ``memctl topics`` lists, so a
    purged topic is not counted) once the index exists, else of the topics file's; the detail lists each
    topic that has aliases (a moved or renamed project) with its other names and paths."""
    from memctl.catalog.checkpoint import CheckpointError
    from memctl.catalog.topics import TopicRegistry

    try:
        registry = TopicRegistry.load(home.topics, read_only=True)
    except CheckpointError as exc:
        return Check("topics", "fail", str(exc), f"move {home.topics} aside; the next `memctl ingest` rebuilds it")
    slugs = registry.slugs
    if home.topic_index.exists():  # what `memctl topics` and ask read: a purged topic is no longer in it
        from memctl.catalog.topic_index import TopicIndex, TopicIndexError

        try:
            slugs = TopicIndex.load(home.topic_index).slugs
        except TopicIndexError as exc:
            return Check("topics", "fail", str(exc), f"delete {home.topic_index}; the next `memctl ingest` rebuilds it")
    if not slugs:
        return Check("topics", "ok", "none yet")
    moved = [f"{slug} also {', '.join(f'{a.name} ({a.path})' for a in registry.aliases_of(slug))}"
             for slug in slugs if registry.aliases_of(slug)]
    count = f"{len(slugs)} topic" + ("s" if len(slugs) != 1 else "")
    return Check("topics", "ok", count + ("; " + "; ".join(moved) if moved else ""))


def check_home(home: DataHome, origin: str = "") -> list[Check]:
    """The data home: where it is and what chose it (``origin``, e.g. ``default`` or ``environment
    MEMCTL_HOME``), writable, free disk; a warning when the default per-user home is used while the
    current directory holds an older per-directory home (``./var`` with a ``progress.json``)."""
    checks = []
    chosen = f" ({origin})" if origin else ""
    probe_dir = home.root if home.root.exists() else next((p for p in home.root.parents if p.exists()), Path("/"))
    try:
        with tempfile.NamedTemporaryFile(dir=probe_dir, prefix=".memctl-doctor-"):
            pass
        checks.append(Check("data home", "ok", f"{home.root} writable{chosen}"))
    except OSError as exc:
        checks.append(Check("data home", "fail", f"{home.root}{chosen}: cannot create a file in {probe_dir} "
                            f"({exc.strerror or reason(exc)})", "use --home DIR or MEMCTL_HOME with a writable directory"))
    older = Path("var").absolute()
    if origin == "default" and (older / "progress.json").is_file() and older != home.root:
        checks.append(Check("older data home", "warn", f"{older} holds a data home; memctl now uses one per user, "
                            f"{home.root}", f"use it with --home {older} (or MEMCTL_HOME), or move it: "
                            f"mv {older} {home.root}"))
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


def check_review_queue(home: DataHome) -> Check:
    """How many memories sleep held for a person (:mod:`memctl.sleep.review_queue`); a warning when any wait."""
    from memctl.sleep.review_queue import queue_size
    from memctl.store import MemoryStore, StoreError

    try:
        size = queue_size(MemoryStore(home.store))
    except (StoreError, OSError) as exc:
        return Check("review queue", "warn", f"cannot read the review queue: {exc}", "memctl audit verify")
    if size:
        return Check("review queue", "warn", f"{size} held memor{'y waits' if size == 1 else 'ies wait'} for a "
                     "person's decision", "memctl review (on a terminal)")
    return Check("review queue", "ok", "empty")


def run_checks(settings: Settings, db_path: Path, claude_dir: Path | None = None,
               codex_home: Path | None = None, home_origin: str = "") -> list[Check]:
    """Run every check; never raises for an environment problem. Each history source is listed
    (path, version, sessions); a missing OpenCode database only warns when another source is there.
    ``home_origin``: what chose the data home (:class:`memctl.settings_origin.Origin`'s source and where,
    e.g. ``flag --home``)."""
    home = DataHome(settings.home)
    checks = check_ollama(settings)
    checks.append(check_vector_store(settings, home))
    checks.append(check_graph_location(home))
    checks.append(check_graph_rejections(home))
    checks.append(check_memory_store(home))
    checks.append(check_review_queue(home))
    opencode = check_source(db_path)
    if claude_dir is not None:
        from memctl.catalog.checkpoint import Checkpoint, CheckpointError

        try:
            read_keys: set[str] | None = set(Checkpoint(home.progress, home.skipped).entries)
        except CheckpointError:
            read_keys = None
        others = [check_claude_code(claude_dir, read_keys)]
    else:
        others = []
    if codex_home is not None:
        others.append(check_codex(codex_home))
    if opencode.status == "fail" and not db_path.exists() and any(
            c.status == "ok" and "(not read)" not in c.detail for c in others):
        opencode = Check(opencode.name, "warn", opencode.detail, opencode.fix)
    checks.extend([opencode, *others])
    checks.append(check_topics(home))
    checks.extend(check_home(home, home_origin))
    checks.append(check_opencode_mcp(home))
    return checks
