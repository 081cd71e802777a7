"""Start and stop the embedded backend's endpoint for one memctl run, and the settings that use it.

``model_backend = "embedded"``: :func:`attach` (called by
:func:`memctl.cli.app.settings_from_flags`) binds :class:`EmbeddedServer` on
``127.0.0.1`` at a free port, serves it on a daemon thread of this process,
and returns settings that point every model user — memctl's client and
Cognee — at it as an OpenAI-compatible server (:func:`embedded_settings`).
The models load on their first request, so a command that calls no model
pays only the bind. The endpoint is stopped and its socket closed at
interpreter exit (``atexit``) or by :func:`detach`; a process that ends any
other way leaves no socket either (the kernel closes it with the process).
Nothing is downloaded: the models come from the installed wheels
(:mod:`memctl.embedded.models`).
"""

from __future__ import annotations

import atexit
import os
import threading

from memctl.config import DataHome, Settings
from memctl.embedded.models import CHAT_MODEL, EMBED_DIMENSIONS, EMBED_MODEL, EmbeddedModels
from memctl.embedded.server import EmbeddedServer

__all__ = ["attach", "auto_threads", "current", "detach", "embedded_settings"]

# The embedded chat model's bounds on memctl's own prompt sizes (characters), so memctl samples a
# transcript itself (head + tail) instead of the endpoint cutting the prompt.
TRANSCRIPT_BUDGET_CHARS = 6000
MAX_CONTEXT_CHARS = 4000
# SmolLM2-135M does not answer JUNK for a ping session (measured on the sample's "Quick check-in": a 768-token
# note), so near-empty sessions are left out before the model instead: fewer than 40 characters typed by the user
# and fewer than 200 in the whole transcript (the substance threshold's defaults are 20 and 200).
MIN_USER_CHARS = 40
MAX_THREADS = 4


def auto_threads(cpus: int | None = None, load: float | None = None) -> int:
    """CPU threads for llama.cpp when ``embedded_threads`` is 0: the cores the 1-minute load average leaves idle,
    at least 1 and at most :data:`MAX_THREADS`.

    Why: llama.cpp's threads wait for each other by spinning after every operation; on a 2-core machine whose cores
    were busy with other work, 2 threads ran one 60-token answer 7x slower than 1 (50 s vs 7.6 s).
    ``cpus``/``load`` default to ``os.cpu_count()`` and ``os.getloadavg()[0]``.
    """
    cpus = cpus if cpus is not None else (os.cpu_count() or 1)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this system
            load = float(cpus)
    return max(1, min(MAX_THREADS, cpus - int(round(load))))

_lock = threading.Lock()
_server: EmbeddedServer | None = None
_registered = False


def embedded_settings(settings: Settings, base_url: str) -> Settings:
    """``settings`` pointed at the embedded endpoint ``base_url``: provider ``openai``, the embedded models for
    every role, 256 dimensions, prompt bounds that fit the context window (never raised, only lowered), and a
    substance threshold of at least :data:`MIN_USER_CHARS` user characters."""
    return settings.model_copy(update={
        "model_provider": "openai", "model_base_url": base_url, "model_api_key_env": "MEMCTL_EMBEDDED_NO_KEY",
        "distill_model": CHAT_MODEL, "graph_model": CHAT_MODEL, "router_model": CHAT_MODEL,
        "answer_model": CHAT_MODEL, "consolidate_model": CHAT_MODEL,
        "embedding_model": EMBED_MODEL, "embedding_dimensions": EMBED_DIMENSIONS,
        "transcript_budget_chars": min(settings.transcript_budget_chars, TRANSCRIPT_BUDGET_CHARS),
        "max_context_chars": min(settings.max_context_chars, MAX_CONTEXT_CHARS),
        "workers": 1, "min_user_chars": max(settings.min_user_chars, MIN_USER_CHARS),
    })


def backend_fields(settings: Settings) -> set[str]:
    """The fields of ``settings`` (already :func:`embedded_settings`) whose value the embedded backend chose
    for this run: every field it sets outright, and a bounded one (prompt bounds, ``min_user_chars``) when
    the bound won over the configured value. ``config show`` names their source as the backend."""
    fixed = {"model_provider", "model_base_url", "model_api_key_env", "distill_model", "graph_model",
             "router_model", "answer_model", "consolidate_model", "embedding_model", "embedding_dimensions",
             "workers"}
    bounds = {"transcript_budget_chars": TRANSCRIPT_BUDGET_CHARS, "max_context_chars": MAX_CONTEXT_CHARS,
              "min_user_chars": MIN_USER_CHARS}
    return fixed | {name for name, bound in bounds.items() if getattr(settings, name) == bound}


def attach(settings: Settings) -> Settings:
    """Start the endpoint for this process (once) and return :func:`embedded_settings` for it.

    WordLlama's tokenizer is copied under ``<home>/cache/embedded`` on the first embedding request.

    Raises:
        OSError: no loopback port could be bound.
    """
    global _server, _registered
    with _lock:
        if _server is None:
            models = EmbeddedModels(DataHome(settings.home).root / "cache" / "embedded",
                                    num_ctx=settings.embedded_num_ctx,
                                    threads=settings.embedded_threads or auto_threads())
            _server = EmbeddedServer(models).start()
        if not _registered:
            atexit.register(detach)
            _registered = True
        return embedded_settings(settings, _server.base_url)


def current() -> EmbeddedServer | None:
    """The running endpoint of this process, if any."""
    return _server


def detach() -> None:
    """Stop the endpoint and close its port (idempotent)."""
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None
