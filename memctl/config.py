"""memctl configuration: one typed settings object, layered sources.

Precedence (highest first): CLI flags (passed as keyword arguments by
:func:`memctl.cli.app.settings_from_flags`), environment variables (``MEMCTL_*``, plus
the standard ``OLLAMA_HOST``), the TOML config file, built-in defaults.

The config file is ``$MEMCTL_CONFIG`` if set, else ``<user config dir>/memctl/
config.toml`` (platformdirs), and is optional. The data home defaults to one per user, wherever the
command runs: ``<user data dir>/memctl`` (platformdirs; ``$XDG_DATA_HOME/memctl``, else
``~/.local/share/memctl`` on Linux), unless ``--home``, ``MEMCTL_HOME`` or the file's ``home`` names another. Keys are the field names below,
e.g. ``distill_model = "llama3.1:8b"``.

Model defaults follow Cognee's own Ollama table
(`cognee/infrastructure/llm/ollama_support.py`): llama3.1 is recommended for
structured graph extraction; its docs pair it with ``nomic-embed-text``
(768 dimensions).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Literal, Optional

import httpx
from platformdirs import user_config_dir, user_data_dir
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from memctl.exit_codes import HOME, LOCKED, ExitCodeError, HomeBusyError, HomeError

OLLAMA_DEFAULT_PORT = 11434  # Ollama's port when OLLAMA_HOST names none (and no scheme)


def config_file_path() -> Path:
    """Return the path of the optional TOML config file (may not exist)."""
    explicit = os.environ.get("MEMCTL_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return Path(user_config_dir("memctl")) / "config.toml"


def default_home() -> Path:
    """The per-user data home: platformdirs' user data dir for ``memctl`` (``$XDG_DATA_HOME/memctl``, else
    ``~/.local/share/memctl`` on Linux; ``~/Library/Application Support/memctl`` on macOS), the same
    whichever directory the command runs in (llm and basic-memory keep theirs the same way)."""
    return Path(user_data_dir("memctl", appauthor=False))


class Settings(BaseSettings):
    """All tunables of memctl. Sizes are characters unless named ``*_bytes``."""

    # An empty variable (`MEMCTL_HOME= memctl …`) means "not set", never "the current directory".
    model_config = SettingsConfigDict(env_prefix="MEMCTL_", extra="forbid", populate_by_name=True, env_ignore_empty=True)

    # Where runtime data lives (see README "Where data goes"): one per user unless told otherwise.
    home: Path = Field(default_factory=default_home)

    # The OpenCode database ingest, doctor and the scheduled ingest read when --db names none: a file, or
    # the directory holding opencode.db / opencode-dev.db. OPENCODE_DB (OpenCode's own variable) wins over
    # MEMCTL_OPENCODE_DB and the config file key; unset: OpenCode's default under $XDG_DATA_HOME.
    opencode_db: Optional[Path] = Field(
        default=None,
        validation_alias=AliasChoices("OPENCODE_DB", "MEMCTL_OPENCODE_DB", "opencode_db"),
    )

    # Ollama
    ollama_host: str = Field(
        default="http://127.0.0.1:11434",
        min_length=1,
        validation_alias=AliasChoices("OLLAMA_HOST", "MEMCTL_OLLAMA_HOST", "ollama_host"),
    )
    distill_model: str = Field(default="llama3.1:8b", min_length=1)
    graph_model: str = Field(default="llama3.1:8b", min_length=1)  # Cognee's extraction / summary model
    embedding_model: str = Field(default="nomic-embed-text", min_length=1)
    embedding_dimensions: int = Field(default=768, gt=0)
    # Texts per /api/embed request (memctl.graph.embedding_batches); Cognee alone sends one per text.
    embedding_batch_size: int = Field(default=64, ge=1, le=2048)
    request_timeout_s: float = Field(default=600.0, gt=0)
    distill_num_ctx: int = Field(default=16384, ge=1024)
    graph_num_ctx: int = Field(default=16384, ge=1024)  # Cognee sends none; Ollama's 2-4k default would cut extraction prompts

    # Phase 1 bounds (characters) — each part kind bounded independently.
    max_text_chars: int = Field(default=4000, ge=100)
    max_reasoning_chars: int = Field(default=600, ge=0)
    max_tool_input_chars: int = Field(default=1500, ge=100)
    max_tool_output_chars: int = Field(default=2500, ge=100)
    # Whole-transcript budget; longer sessions are sampled head + tail.
    transcript_budget_chars: int = Field(default=48000, ge=2000)
    head_fraction: float = Field(default=0.4, gt=0, lt=1)
    # Substance threshold: below both, the session is skipped without a model call.
    min_user_chars: int = Field(default=20, ge=0)
    min_substance_chars: int = Field(default=200, ge=0)

    workers: int = Field(default=2, ge=1, le=64)
    # Processes that read sessions and build their transcripts (memctl.ingest.premodel); 0: one per usable core.
    transcript_processes: int = Field(default=0, ge=0, le=64)
    # A session updated less than this long ago is still being worked on (its last turn
    # may be half written); it is left for the next run. 0 disables.
    settle_minutes: float = Field(default=10, ge=0)
    max_attempts_per_run: int = Field(default=2, ge=1, le=10)

    # Phase 2/3
    batch_size: int = Field(default=20, ge=1)
    chunks_per_batch: int = Field(default=10, ge=1)
    data_per_batch: int = Field(default=4, ge=1)
    graph_provider: Literal["kuzu", "ladybug"] = "kuzu"

    # Wake (`memctl ask`)
    router_model: str = Field(default="llama3.1:8b", min_length=1)  # may be smaller than the answer model
    answer_model: str = Field(default="llama3.1:8b", min_length=1)
    router_timeout_s: float = Field(default=20.0, gt=0)  # past it, routing falls back to embedding + lexical
    # Routing without the model (memctl.ask.routing.fallback_route): weight of the embedding router's
    # min-max normalised similarities against the lexical scores; 0: lexical alone, no embedding request.
    route_embedding_weight: float = Field(default=1.0, ge=0)
    graph_search_timeout_s: float = Field(default=30.0, gt=0)  # past it, retrieval falls back to raw notes
    ask_top_k: int = Field(default=6, ge=1, le=50)
    # Hybrid retrieval: reciprocal rank fusion (Cormack et al., SIGIR 2009) of the graph and BM25 lists;
    # score = sum of weight / (fusion_k + rank). 60 is the paper's constant.
    fusion_k: int = Field(default=60, ge=1)
    fusion_graph_weight: float = Field(default=1.0, ge=0)
    fusion_notes_weight: float = Field(default=1.0, ge=0)
    # Each BM25 hit counts by coverage ** this power, coverage being the share of the question's content
    # words its note holds (memctl.ask.fusion.evidence_weight); 0: plain RRF.
    fusion_notes_coverage_power: float = Field(default=3.0, ge=0)
    # Dense note retrieval (memctl.ask.retrieval.dense_hits): weight of the embedding list in the fusion;
    # 0: no dense list (graph and BM25 only, no embedding request at retrieval).
    fusion_dense_weight: float = Field(default=1.0, ge=0)
    max_context_chars: int = Field(default=12000, ge=500)
    answer_num_ctx: int = Field(default=8192, ge=1024)
    # Off by default: the extraction step is one more model call per question, and a
    # proposal should come from a deliberate exchange (`memctl ask --propose` or `remember`).
    ask_propose: bool = False

    # Sleep (`memctl sleep`)
    consolidate_model: str = Field(default="llama3.1:8b", min_length=1)
    sleep_concurrency: int = Field(default=3, ge=1, le=32)  # parallel consolidations and topic rebuilds
    # Sleep's engine (memctl.sleep.engine): "flyte" needs the extra flyte (memctl-local[flyte]). flyte_config: a Flyte/Union
    # config.yaml (None: Flyte's local mode, in this process); flyte_model_host: Ollama as the tasks reach it.
    sleep_engine: Literal["local", "flyte"] = "local"
    flyte_config: Path | None = None
    flyte_model_host: str | None = None

    # Sleep: the validator's bounds on one promoted memory (memctl.validator.core.ValidationLimits).
    proposal_max_bytes: int = Field(default=2000, ge=100, le=1_000_000)
    proposal_max_lines: int = Field(default=40, ge=1, le=10_000)

    # Model backends (memctl.embedded, memctl.openai_compat): where the models run.
    # model_backend "ollama": a model server at ollama_host (model_provider "ollama") or at model_base_url
    # (model_provider "openai": LM Studio, llama.cpp's server, vLLM, LocalAI; OpenAI's /v1 wire protocol).
    # "embedded": SmolLM2-135M-Instruct (llama-cpp-python) and WordLlama embeddings, served by memctl itself
    # on one loopback endpoint for the run (OpenAI's protocol; model names and 256 dimensions are forced).
    model_backend: Literal["ollama", "embedded"] = "ollama"
    model_provider: Literal["ollama", "openai"] = "ollama"
    # The OpenAI-compatible server's base URL, with its /v1 (e.g. http://127.0.0.1:1234/v1 for LM Studio).
    model_base_url: str = Field(default="http://127.0.0.1:8080/v1", min_length=1)
    # Name of the environment variable that holds the server's API key (the key itself is never a setting).
    model_api_key_env: str = Field(default="OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    # The embedded backend's bounds for a 2-core machine: context window (tokens) and CPU threads.
    embedded_num_ctx: int = Field(default=4096, ge=1024, le=8192)
    embedded_threads: int = Field(default=1, ge=1, le=64)  # 1: on a busy 2-core machine 2 threads ran 7x slower (spin-wait)

    @field_validator("ollama_host")
    @classmethod
    def _ollama_host_is_a_url(cls, value: str) -> str:
        candidate = value.strip() if "://" in value else "http://" + value.strip()
        try:
            url = httpx.URL(candidate)
        except (httpx.InvalidURL, ValueError) as exc:
            raise ValueError(f"not a host:port or URL ({exc})") from exc
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError("expected host:port or http(s)://host:port")
        try:  # the ollama client parses it with urllib, which also checks the port range
            from urllib.parse import urlsplit

            urlsplit(candidate).port
        except ValueError as exc:
            raise ValueError(f"not a host:port or URL ({exc})") from exc
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Init kwargs > environment > TOML file > defaults."""
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=config_file_path()),
        )

    @property
    def model_api_key(self) -> str:
        """The OpenAI-compatible server's key, read from the variable ``model_api_key_env`` ("" when unset)."""
        return os.environ.get(self.model_api_key_env, "")

    @property
    def model_endpoint(self) -> str:
        """The model server's base URL for the provider: Ollama's host, or the OpenAI ``/v1`` base (no slash at the end)."""
        return self.model_base_url.strip().rstrip("/") if self.model_provider == "openai" else self.ollama_base_url

    @property
    def ollama_base_url(self) -> str:
        """``OLLAMA_HOST`` as a URL with its port, by Ollama's own rule (ollama-python's ``_parse_host``, whose
        doctests are the table): no scheme means ``http`` and port 11434 (``0.0.0.0`` ->
        ``http://0.0.0.0:11434``); ``http://`` without a port means 80, ``https://`` 443; a path is kept."""
        from urllib.parse import urlsplit

        host = self.ollama_host.strip()
        scheme, given, rest = host.partition("://")
        if not given:
            scheme, rest, default_port = "http", host, OLLAMA_DEFAULT_PORT
        else:
            default_port = 443 if scheme == "https" else 80
        rest, _, path = rest.partition("/")
        parsed = urlsplit(f"{scheme}://{rest}")
        name = parsed.hostname or "127.0.0.1"
        name = f"[{name}]" if ":" in name else name
        path = path.strip("/")
        return f"{scheme}://{name}:{parsed.port or default_port}" + (f"/{path}" if path else "")


_held_locks: set[Path] = set()  # data-home roots whose lock this process holds


def _normal_root(root: Path) -> Path:
    """``root`` without ``..`` segments (``Path.absolute`` keeps them, so one directory had many spellings and
    its recorded location changed with each). Collapsed lexically when that names the directory the kernel
    reaches; resolved when a symlink before the ``..`` makes them differ. A trailing slash is already gone."""
    if ".." not in root.parts:
        return root
    lexical = Path(os.path.normpath(root))
    return lexical if os.path.realpath(lexical) == os.path.realpath(root) else Path(os.path.realpath(root))


class DataHome:
    """The layout of the data home (:func:`default_home` by default; README "Where data goes"), and its lock.

    Every state path of the data home is a property here. Only computes
    paths; creating directories is the writer's job so that a dry run touches
    nothing.
    """

    def __init__(self, root: Path) -> None:
        self.root = _normal_root(Path(root).expanduser().absolute())

    @property
    def progress(self) -> Path:
        """The ingest checkpoint (:mod:`memctl.ingest.checkpoint`)."""
        return self.root / "progress.json"

    @property
    def skipped(self) -> Path:
        """Skipped session ids with their reasons, for review."""
        return self.root / "skipped.json"

    @property
    def topics(self) -> Path:
        """Project path → topic slug (:class:`memctl.ingest.topics.TopicRegistry`)."""
        return self.root / "topics.json"

    @property
    def transcripts(self) -> Path:
        return self.root / "transcripts"

    @property
    def distilled(self) -> Path:
        return self.root / "distilled"

    @property
    def cognee(self) -> Path:
        return self.root / "cognee"

    @property
    def store(self) -> Path:
        """Root of the memory store (memory/, user/, staging/, audit/, versions/)."""
        return self.root / "store"

    @property
    def topic_index(self) -> Path:
        """Per-topic name, description, note count and note list (maintained by ingest; read by ask)."""
        return self.root / "topic_index.json"

    @property
    def note_index(self) -> Path:
        """Per-topic BM25 indexes over the raw notes (a cache; rebuilt when stale)."""
        return self.root / "index" / "notes"

    @property
    def sleep_state(self) -> Path:
        """Topics sleep must still rebuild, and merges ``unmerge`` declined (:class:`memctl.sleep.state.SleepState`)."""
        return self.root / "sleep_state.json"

    @property
    def graph_rejections(self) -> Path:
        """Notes Cognee rejected, with the reason (:mod:`memctl.graph.rejections`; shown by ``doctor``)."""
        return self.root / "graph_rejections.json"

    @property
    def consolidate_cache(self) -> Path:
        """Consolidation results by content key (a cache: unchanged clusters cost no model call)."""
        return self.root / "cache" / "consolidate"

    @property
    def route_cache(self) -> Path:
        """The embedding router's topic profiles, one file per topic (:mod:`memctl.ask.topic_profiles`; a cache)."""
        return self.root / "cache" / "route"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def location(self) -> Path:
        """Where this data home was last opened, and where before (:mod:`memctl.graph.relocate`)."""
        return self.root / "location.json"

    @property
    def lock_file(self) -> Path:
        """The file behind :meth:`lock`."""
        return self.root / ".memctl.lock"

    def refuse_file(self, error: Callable[[str, int], ExitCodeError] | None = None) -> None:
        """Raise when the data home's path is a file (a typo in ``--home``), before anything reads or writes under it.

        Raises:
            HomeError: the data home is a file (exit 7), or ``error(message, 7)`` when given.
        """
        if self.root.exists() and not self.root.is_dir():
            message = f"the data home {self.root} is a file; pass --home DIR (or MEMCTL_HOME) naming a directory"
            raise error(message, HOME) if error else HomeError(message)

    @contextmanager
    def lock(self, *, wait: bool, offer_wait: bool = True,
             error: Callable[[str, int], ExitCodeError] | None = None) -> Iterator[None]:
        """Hold the data home's exclusive lock for the block: one ingest or sleep at a time (``ask`` never
        takes it). Creates the data home directory, and removes it again when the block wrote nothing
        into it (:meth:`_remove_if_untouched`). ``wait`` blocks until the lock is free.

        ``error`` builds the exception from a message and an exit code (a run's own error type,
        e.g. ``IngestError``); by default :class:`HomeError` / :class:`HomeBusyError`.

        Raises:
            HomeError: the data home is a file (exit 7).
            HomeBusyError: another run holds the lock and ``wait`` is false (exit 6; the message
                suggests ``--wait`` when ``offer_wait``).
        """
        from filelock import FileLock, Timeout

        self.refuse_file(error)
        created = not self.root.exists()
        self.root.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.lock_file))
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout as exc:
            message = (f"another memctl run (ingest or sleep) is using {self.root} (lock {self.lock_file}); "
                       "wait for it to finish" + (", or pass --wait" if offer_wait else ""))
            raise (error(message, LOCKED) if error else HomeBusyError(message)) from exc
        _held_locks.add(self.root)
        try:
            yield
        finally:
            _held_locks.discard(self.root)
            lock.release()
            if created:
                self._remove_if_untouched()

    def _remove_if_untouched(self) -> None:
        """Remove the data home :meth:`lock` created when the run wrote nothing into it (it failed first,
        e.g. Ollama down): no empty home holding only a lock file is left behind, so a typo in ``--home`` or
        a failed first run leaves no trace. Anything else in it keeps it."""
        try:
            if [p.name for p in self.root.iterdir()] == [self.lock_file.name]:
                self.lock_file.unlink()
                self.root.rmdir()
        except OSError:
            pass  # another run started using it meanwhile: it stays

    def holds_lock(self) -> bool:
        """Whether this process holds :meth:`lock` now (a second ``flock`` on the same file from
        the same process would wait for itself; :mod:`memctl.graph.relocate` asks first)."""
        return self.root in _held_locks

    def transcript_path(self, source_id: str) -> Path:
        return self.transcripts / f"{source_id}.md"

    def note_path(self, source_id: str) -> Path:
        return self.distilled / f"{source_id}.md"
