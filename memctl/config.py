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
from pathlib import Path
from typing import Literal, Optional

import httpx
from platformdirs import user_config_dir, user_data_dir
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from memctl.data_home import DataHome

__all__ = ["DataHome", "Settings", "config_file_path", "default_home"]  # DataHome: its own module, named here too

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
    home: Path = Field(default_factory=default_home, description=(
        "The data home: everything memctl keeps (also `--home`). Default: platformdirs' user data dir "
        "(`~/.local/share/memctl` on Linux), the same whichever directory the command runs in."))

    # The OpenCode database ingest, doctor and the scheduled ingest read when --db names none: a file, or
    # the directory holding opencode.db / opencode-dev.db. OPENCODE_DB (OpenCode's own variable) wins over
    # MEMCTL_OPENCODE_DB and the config file key; unset: OpenCode's default under $XDG_DATA_HOME.
    opencode_db: Optional[Path] = Field(
        default=None,
        validation_alias=AliasChoices("OPENCODE_DB", "MEMCTL_OPENCODE_DB", "opencode_db"),
        description=(
            "The OpenCode database ingest, doctor and the scheduled ingest read when `--db` names none: a file, "
            "or the directory holding opencode.db / opencode-dev.db. `OPENCODE_DB` (OpenCode's own variable) "
            "wins over `MEMCTL_OPENCODE_DB` and the config key; unset: OpenCode's default under "
            "`$XDG_DATA_HOME`."),
    )

    # Ollama
    ollama_host: str = Field(
        default="http://127.0.0.1:11434",
        min_length=1,
        validation_alias=AliasChoices("OLLAMA_HOST", "MEMCTL_OLLAMA_HOST", "ollama_host"),
        description="The Ollama server (`host:port` or a URL; also the standard `OLLAMA_HOST`).",
    )
    distill_model: str = Field(default="llama3.1:8b", min_length=1,
                               description="The model that writes one note per session.")
    graph_model: str = Field(default="llama3.1:8b", min_length=1,  # Cognee's extraction / summary model
                             description="Cognee's extraction and summary model.")
    embedding_model: str = Field(default="nomic-embed-text", min_length=1, description="The embedding model.")
    embedding_dimensions: int = Field(default=768, gt=0, description="The embedding model's dimensions; must match it.")
    # Texts per /api/embed request (memctl.graph.embedding_batches); Cognee alone sends one per text.
    embedding_batch_size: int = Field(default=64, ge=1, le=2048, description=(
        "Texts per `/api/embed` request (Cognee alone sends one per text)."))
    request_timeout_s: float = Field(default=600.0, gt=0, description="Timeout of one model call (seconds).")
    distill_num_ctx: int = Field(default=16384, ge=1024, description=(
        "Context window (tokens, Ollama's `num_ctx`) of the distill calls."))
    graph_num_ctx: int = Field(default=16384, ge=1024, description=(  # Cognee sends none; Ollama's 2-4k default would cut extraction prompts
        "Context window (tokens) of Cognee's extraction calls (Cognee sends none, and Ollama's 2-4k default "
        "would cut its prompts)."))

    # Phase 1 bounds (characters) — each part kind bounded independently.
    max_text_chars: int = Field(default=4000, ge=100, description="Bound on one text part of a transcript (characters).")
    max_reasoning_chars: int = Field(default=600, ge=0, description="Bound on one reasoning part (characters).")
    max_tool_input_chars: int = Field(default=1500, ge=100, description="Bound on one tool call's input (characters).")
    max_tool_output_chars: int = Field(default=2500, ge=100, description="Bound on one tool call's output (characters).")
    # Whole-transcript budget; longer sessions are sampled head + tail.
    transcript_budget_chars: int = Field(default=48000, ge=2000, description=(
        "Whole-transcript budget (characters); longer sessions are sampled head + tail to it."))
    head_fraction: float = Field(default=0.4, gt=0, lt=1, description=(
        "Share of the transcript budget kept from the session's start (the rest from its end)."))
    # Substance threshold: below both, the session is skipped without a model call.
    min_user_chars: int = Field(default=20, ge=0, description=(
        "Substance threshold: a session with fewer user characters than this and fewer than "
        "`min_substance_chars` in all is skipped without a model call."))
    min_substance_chars: int = Field(default=200, ge=0, description=(
        "Substance threshold on the whole transcript (characters; see `min_user_chars`)."))

    workers: int = Field(default=2, ge=1, le=64, description="Concurrent distill calls.")
    # Processes that read sessions and build their transcripts (memctl.ingest.premodel); 0: one per usable core.
    transcript_processes: int = Field(default=0, ge=0, le=64, description=(
        "Processes that read and scrub sessions before the model (0: one per usable core, used from 256 "
        "sessions to read; 1: in memctl's own process)."))
    # A session updated less than this long ago is still being worked on (its last turn
    # may be half written); it is left for the next run. 0 disables.
    settle_minutes: float = Field(default=10, ge=0, description=(
        "A session updated more recently than this (minutes) is still active and left for the next run "
        "(0: take it now)."))
    max_attempts_per_run: int = Field(default=2, ge=1, le=10, description=(
        "Tries of one session's distill call in one run (a short backoff between them)."))

    # Phase 2/3
    batch_size: int = Field(default=20, ge=1, description="Notes per Cognee add batch.")
    chunks_per_batch: int = Field(default=10, ge=1, description="Chunks Cognee's cognify handles per batch.")
    data_per_batch: int = Field(default=4, ge=1, description="Documents Cognee's cognify handles concurrently.")
    graph_provider: Literal["kuzu", "ladybug"] = Field(default="kuzu", description=(
        "The graph database: `kuzu` or Cognee's default `ladybug`."))

    # Wake (`memctl ask`)
    router_model: str = Field(default="llama3.1:8b", min_length=1,  # may be smaller than the answer model
                              description="`ask`'s routing model (may be smaller than the answer model).")
    answer_model: str = Field(default="llama3.1:8b", min_length=1, description="`ask`'s answering model.")
    router_timeout_s: float = Field(default=20.0, gt=0, description=(  # past it, routing falls back to embedding + lexical
        "Past this (seconds), routing falls back to embedding + lexical matching."))
    # Routing without the model (memctl.ask.routing.fallback_route): weight of the embedding router's
    # min-max normalised similarities against the lexical scores; 0: lexical alone, no embedding request.
    route_embedding_weight: float = Field(default=1.0, ge=0, description=(
        "Routing without the model router: weight of the embedding match to topic profiles against the "
        "lexical scores (0: lexical only, no embedding request)."))
    graph_search_timeout_s: float = Field(default=30.0, gt=0, description=(  # past it, retrieval falls back to raw notes
        "Past this (seconds), graph retrieval falls back to the raw notes."))
    ask_top_k: int = Field(default=6, ge=1, le=50, description="Results `ask` retrieves.")
    # Hybrid retrieval: reciprocal rank fusion (Cormack et al., SIGIR 2009) of the graph and BM25 lists;
    # score = sum of weight / (fusion_k + rank). 60 is the paper's constant.
    fusion_k: int = Field(default=60, ge=1, description=(
        "Hybrid retrieval: the constant k of reciprocal rank fusion, score = sum of weight / (k + rank) "
        "(Cormack et al., SIGIR 2009; 60 is the paper's)."))
    fusion_graph_weight: float = Field(default=1.0, ge=0, description="Weight of the graph list in the fusion.")
    fusion_notes_weight: float = Field(default=1.0, ge=0, description="Weight of the BM25 notes list in the fusion.")
    # Each BM25 hit counts by coverage ** this power, coverage being the share of the question's content
    # words its note holds (memctl.ask.fusion.evidence_weight); 0: plain RRF.
    fusion_notes_coverage_power: float = Field(default=3.0, ge=0, description=(
        "A BM25 hit counts by (share of the question's words its note holds) to this power (0: plain RRF)."))
    # Dense note retrieval (memctl.ask.retrieval.dense_hits): weight of the embedding list in the fusion;
    # 0: no dense list (graph and BM25 only, no embedding request at retrieval).
    # 2.0: the dense list (with its sentence term) is the best single list on paraphrases; at twice the graph's
    # weight its rank 1 equals the graph's and a fully covering BM25 hit's rank 1 together. Chosen on the CI
    # floor fixture (orders + billing: paraphrase hit@1 0.64 -> 0.79), checked on the full quality fixture
    # (0.54 -> 0.62, direct questions unchanged); 1.25 was the round before's (docs/benchmarks.md,
    # "Dense weight chosen on the floor fixture").
    fusion_dense_weight: float = Field(default=2.0, ge=0, description=(
        "Weight of the dense (embedding) notes list in the fusion (0: no dense list, no embedding request)."))
    # Late interaction (memctl.catalog.late_interaction): the dense list scores each note by
    # (1 - share) x the cosine of its whole text + share x the best cosine of one of its sentences
    # (multi-vector matching, as ColBERT's MaxSim, at sentence level). 0: the whole-text cosine alone (and
    # no sentence is embedded). 0.5 weighs the two alike; measured in docs/benchmarks.md.
    fusion_dense_sentence_share: float = Field(default=0.5, ge=0, le=1, description=(
        "Share of the best-matching sentence in the dense notes list's score, against the note's whole text "
        "(0: whole text only, no sentence embedded)."))
    # Turn-level evidence (memctl.catalog.turn_index): BM25 and dense lists over the transcripts' turns.
    fusion_turns_weight: float = Field(default=1.0, ge=0, description=(
        "Weight of the BM25 list over transcript turns in the fusion (0: none)."))
    # 0 by default: on real weights (WordLlama) the turn vectors, tool output included, ranked two
    # paraphrases' sessions out of the top 5 that the note vectors held (docs/benchmarks.md).
    fusion_turn_dense_weight: float = Field(default=0.0, ge=0, description=(
        "Weight of the dense list over transcript turns in the fusion (0: none, and ingest embeds no turn)."))
    # 2: the graph also searches the topics of the 2 best dense hits, so a misrouted question's graph list
    # does not outvote the dense list with hits of the wrong topic only (docs/benchmarks.md, "Late
    # interaction at sentence level").
    graph_widen_hits: int = Field(default=2, ge=0, le=20, description=(
        "The graph also searches the topics of this many best dense hits (notes and turns), so a routing "
        "mistake cannot hide a session from it (0: the routed topics only)."))
    max_context_chars: int = Field(default=12000, ge=500, description=(
        "Bound on the context `ask` gives the answer model (characters)."))
    answer_num_ctx: int = Field(default=8192, ge=1024, description="Context window (tokens) of the answer model.")
    # Off by default: the extraction step is one more model call per question, and a
    # proposal should come from a deliberate exchange (`memctl ask --propose` or `remember`).
    ask_propose: bool = Field(default=False, description="Let `ask` propose memories (also `--propose`).")

    # Sleep (`memctl sleep`)
    consolidate_model: str = Field(default="llama3.1:8b", min_length=1, description=(
        "`sleep`'s model that merges similar memories."))
    sleep_concurrency: int = Field(default=3, ge=1, le=32, description=(  # parallel consolidations and topic rebuilds
        "`sleep`'s parallel consolidations and topic rebuilds (also `sleep --concurrency`)."))
    # Sleep's engine (memctl.sleep.engines.select): "flyte" needs the extra flyte (memctl-local[flyte]). flyte_config: a Flyte/Union
    # config.yaml (None: Flyte's local mode, in this process); flyte_model_host: Ollama as the tasks reach it.
    sleep_engine: Literal["local", "flyte"] = Field(default="local", description=(
        "`sleep`'s engine: `local`, or `flyte` (needs the extra `memctl-local[flyte]`)."))
    flyte_config: Path | None = Field(default=None, description=(
        "A Flyte/Union `config.yaml` for the flyte engine (unset: Flyte's local mode, in this process)."))
    flyte_model_host: str | None = Field(default=None, description=(
        "Ollama as the Flyte tasks reach it (unset: `ollama_host`)."))

    # Sleep: the validator's bounds on one promoted memory (memctl.validator.core.ValidationLimits).
    proposal_max_bytes: int = Field(default=2000, ge=100, le=1_000_000, description=(
        "Sleep's validator: largest memory it promotes (UTF-8 bytes)."))
    proposal_max_lines: int = Field(default=40, ge=1, le=10_000, description=(
        "Sleep's validator: most lines in one promoted memory."))

    # Model backends (memctl.embedded, memctl.openai_compat): where the models run.
    # model_backend "ollama": a model server at ollama_host (model_provider "ollama") or at model_base_url
    # (model_provider "openai": LM Studio, llama.cpp's server, vLLM, LocalAI; OpenAI's /v1 wire protocol).
    # "embedded": SmolLM2-135M-Instruct (llama.cpp from the llama-cpp-cffi wheel) and WordLlama embeddings, served by memctl itself
    # on one loopback endpoint for the run (OpenAI's protocol; model names and 256 dimensions are forced).
    model_backend: Literal["ollama", "embedded"] = Field(default="ollama", description=(
        "`ollama`: a model server (see `model_provider`); `embedded`: SmolLM2-135M + WordLlama served by memctl "
        "on loopback for the run (needs `memctl[embedded]`; set for you for the run: model names, 256 dimensions, "
        "prompt bounds that fit its context, one worker, and `min_user_chars` of at least 40)."))
    model_provider: Literal["ollama", "openai"] = Field(default="ollama", description=(
        "The model server's protocol: `ollama` (at `ollama_host`) or `openai` (OpenAI-compatible, at "
        "`model_base_url`)."))
    # The OpenAI-compatible server's base URL, with its /v1 (e.g. http://127.0.0.1:1234/v1 for LM Studio).
    model_base_url: str = Field(default="http://127.0.0.1:8080/v1", min_length=1, description=(
        "The OpenAI-compatible server's base URL, with its `/v1` (e.g. `http://127.0.0.1:1234/v1` for LM Studio)."))
    # Name of the environment variable that holds the server's API key (the key itself is never a setting).
    model_api_key_env: str = Field(default="OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description=(
        "Name of the environment variable holding that server's API key (unset variable: no key sent; the key "
        "itself is never a setting)."))
    # The embedded backend's bounds for a 2-core machine: context window (tokens) and CPU threads.
    embedded_num_ctx: int = Field(default=4096, ge=1024, le=8192, description=(
        "The embedded backend's context window (tokens)."))
    embedded_threads: int = Field(default=0, ge=0, le=64, description=(  # 0: chosen per run from the load average
        "The embedded backend's CPU threads (0: every idle core, one when the cores are busy, "
        "where threads spin-waiting on each other ran 7x slower)."))

    @field_validator("ollama_host")
    @classmethod
    def _ollama_host_is_a_url(cls, value: str) -> str:
        candidate = value.strip() if "://" in value else "http://" + value.strip()
        if any(ch.isspace() for ch in candidate):  # httpx would take 'not a host' as a host name
            raise ValueError("expected host:port or http(s)://host:port (a host has no spaces)")
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
