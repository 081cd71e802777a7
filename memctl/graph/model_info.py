"""Ask Ollama about the graph model once per process, not three times per extraction call.

litellm (the client Cognee's structured extraction uses) looks a model up
in its cost map; an ``ollama/…`` model that is not there is looked up at
run time with ``POST /api/show`` (``litellm/llms/ollama/common_utils.py``,
``OllamaModelInfo.get_model_info`` → ``get_runtime_model_info``) — on every
completion, several times: 47 ``/api/show`` requests for the fixture's 14
extraction calls. :func:`register_graph_model_info` makes that same lookup
once, with litellm's own code, and registers its answer
(``litellm.register_model``), so later calls read the answer litellm would
have fetched. A failed lookup registers nothing: litellm then asks again
per call, as before.
"""

from __future__ import annotations

import asyncio

__all__ = ["register_graph_model_info"]

_registered: set[tuple[str, str]] = set()


async def register_graph_model_info() -> bool:
    """Register Cognee's configured LLM (``ollama/<model>`` at its endpoint) with litellm once.

    Returns True when the model's info is registered (now or earlier), False
    when the provider is not Ollama or the server did not answer. Never raises:
    an unregistered model only costs the per-call lookups litellm does anyway.
    """
    try:
        from cognee.infrastructure.llm.config import get_llm_config

        config = get_llm_config()
        model, endpoint = str(config.llm_model or ""), str(config.llm_endpoint or "")
        if config.llm_provider != "ollama" or not model:
            return False
        if (model, endpoint) in _registered:
            return True
        info = await asyncio.to_thread(_runtime_info, model, endpoint)
    except Exception:  # noqa: BLE001 - an optimisation: never fail the run it speeds up
        return False
    if info is None:
        return False
    import litellm

    litellm.register_model({_litellm_name(model): info})
    _registered.add((model, endpoint))
    return True


def _runtime_info(model: str, endpoint: str) -> dict | None:
    """litellm's own ``/api/show`` lookup; None when the server did not answer (litellm's fallback
    entry has no ``supports_function_calling``)."""
    from litellm.llms.ollama.common_utils import OllamaModelInfo

    info = OllamaModelInfo().get_runtime_model_info(model=model, api_base=endpoint or None)
    if "supports_function_calling" not in info:
        return None
    return {key: value for key, value in info.items() if key != "key"}


def _litellm_name(model: str) -> str:
    return model if model.startswith("ollama/") else "ollama/" + model
