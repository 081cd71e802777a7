"""``memctl doctor --engine flyte``: the Flyte engine's checks (the extra, the Flyte config, the model
endpoint its tasks call), each with its fix, as :class:`memctl.health_check.Check` lines.

Nothing here connects to a Flyte cluster: the config is read and must name an endpoint (Flyte 2's
``flyte.config.auto``, the reader ``flyte.init_from_config`` uses); the model endpoint is probed like
``doctor``'s Ollama check (``/api/version``, ``/api/tags``).
"""

from __future__ import annotations

from importlib import metadata

from memctl.config import Settings
from memctl.health_check import PROBE_TIMEOUT_S, Check
from memctl.sleep.engines.flyte_sdk import FLYTE_EXTRA_HINT, flyte_config_endpoint, flyte_installed


def check_flyte_engine(settings: Settings) -> list[Check]:
    """Three checks: ``flyte extra``, ``flyte config``, ``flyte model endpoint``. Never raises."""
    if not flyte_installed():
        return [Check("flyte extra", "fail", "the Flyte 2 SDK (package flyte) is not installed", FLYTE_EXTRA_HINT)]
    checks = [Check("flyte extra", "ok", f"flyte {metadata.version('flyte')}")]
    checks.append(_check_config(settings))
    checks.append(_check_model_endpoint(settings))
    return checks


def _check_config(settings: Settings) -> Check:
    if settings.flyte_config is None:
        return Check("flyte config", "ok", "none: local mode (tasks run in this process, offline)")
    path = settings.flyte_config.expanduser()
    fix = "set MEMCTL_FLYTE_CONFIG (config flyte_config) to your Flyte/Union config.yaml (`flyte create config`)"
    try:
        endpoint = flyte_config_endpoint(path)
    except FileNotFoundError:
        return Check("flyte config", "fail", f"{path} does not exist", fix)
    except Exception as exc:  # noqa: BLE001 - any reader failure is this check's finding
        return Check("flyte config", "fail", f"{path}: {type(exc).__name__}: {exc}", fix)
    if not endpoint:
        return Check("flyte config", "fail", f"{path} names no admin endpoint", fix)
    return Check("flyte config", "ok", f"{path} → {endpoint}")


def _check_model_endpoint(settings: Settings) -> Check:
    from memctl.ollama_client import ModelError, client_for, is_pulled, pulled_models, server_version

    host = settings.flyte_model_host or settings.ollama_host
    try:
        task_settings = settings.model_copy(update={"ollama_host": host})
        task_settings = Settings.model_validate(task_settings.model_dump())  # validates the address
    except ValueError as exc:
        return Check("flyte model endpoint", "fail", f"{host}: {exc}",
                     "set MEMCTL_FLYTE_MODEL_HOST to host:port or http(s)://host:port")
    base = task_settings.ollama_base_url
    try:
        version = server_version(task_settings, PROBE_TIMEOUT_S)
        pulled = pulled_models(client_for(task_settings, PROBE_TIMEOUT_S), task_settings, PROBE_TIMEOUT_S)
    except ModelError as exc:
        return Check("flyte model endpoint", "fail", f"{base}: {exc}",
                     "start Ollama there, or set MEMCTL_FLYTE_MODEL_HOST to the address the tasks reach it at")
    if not is_pulled(settings.consolidate_model, pulled):
        return Check("flyte model endpoint", "fail", f"{settings.consolidate_model} not pulled on {base}",
                     f"ollama pull {settings.consolidate_model} (on {base})")
    note = "" if settings.flyte_model_host else " (ollama_host; set MEMCTL_FLYTE_MODEL_HOST if tasks reach it elsewhere)"
    return Check("flyte model endpoint", "ok", f"{base} (version {version}), {settings.consolidate_model}{note}")
