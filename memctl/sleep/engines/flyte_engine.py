"""The Flyte engine for sleep (optional extra ``flyte`` of memctl-local, Flyte 2 SDK ``flyte==2.12.1``).

The sleep cycle's fan-out runs as Flyte tasks of one :data:`env` (``TaskEnvironment``
``memctl-sleep``); load, validation, promotion, clustering, every store write
and the Cognee rebuild stay in the driver (:class:`memctl.sleep.run.SleepRun`).

Tasks (shapes are JSON strings so a remote run needs no memctl type plugin):

* :func:`consolidate_one` — one cluster: a ``flyte.io.File`` holding the
  :class:`~memctl.sleep.consolidate.ConsolidationTask` JSON in, the
  :class:`~memctl.sleep.consolidate.ConsolidationResult` JSON (plus ``run``,
  the run that produced it) out. ``cache="auto"`` keyed by the file's hash,
  which the driver sets to memctl's own consolidation cache key (prompt
  version, model, member times and texts: :func:`~memctl.sleep.consolidate.cache_key`);
  the settings input is left out of the key. A merge that fails —
  the model, the substance check or the validator a merged memory must pass
  (:func:`memctl.validator.merge_gate.check_merged`) — makes the task fail, so it is never
  cached and the next sleep asks again, as the local engine does. Retries 0:
  the next sleep is the retry, and a second attempt of a refused merge in
  the same run would cost a model call for the same answer.
* :func:`consolidate_clusters` — the fan-out: every cluster at most
  ``concurrency`` at a time: ``asyncio.gather`` of task calls behind a
  semaphore, the form Flyte 2's docs recommend for parallel execution and
  concurrency control (union.ai/docs/v2, "Parallelism and async"); each call
  is an action on a cluster. Not ``flyte.map.aio``: in 2.12.1 it runs items
  one by one in local mode (``flyte/_map.py``). Streams progress to its Flyte
  report (``report=True``).

A task never writes the data home: it gets the member texts in its input file,
works in a temporary directory, and returns its result; the driver applies
results in task order, writes memctl's consolidation cache, and does every store
write as actor ``sleep``. Rebuild (Cognee) runs in the driver on this engine too:
a per-topic dataset is several stores (Kuzu, LanceDB, SQLite rows shared by all
datasets) that cannot yet be shipped to a task and swapped back atomically.

Mode: ``settings.flyte_config`` None → Flyte's local mode (tasks in this
process, offline; Flyte's task cache in ``<home>/cache/flyte``); a config path
→ the cluster it names (``flyte.init_from_config``), tasks reach Ollama at
``settings.flyte_model_host``. :mod:`memctl.sleep.engines.flyte_schedule` is the scheduled form.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import asdict
from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.exit_codes import ExitCodeError
from memctl.sleep.consolidate import (
    ConsolidationError,
    ConsolidationResult,
    ConsolidationTask,
    cache_key,
    consolidate,
)
from memctl.sleep.engines.flyte_sdk import flyte_config_endpoint, import_flyte

import_flyte()  # first: memctl's pins (telemetry off, excepthook kept)
import flyte  # noqa: E402
import flyte.io  # noqa: E402

FAILED = "memctl-consolidation-failed:"  # a failed merge's message, carried through Flyte's error text
TASK_SETTINGS = ("consolidate_model", "request_timeout_s", "answer_num_ctx", "proposal_max_bytes",
                 "proposal_max_lines")


def _image() -> flyte.Image:
    """memctl with the flyte extra, built from this checkout's pyproject when there is one."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    base = flyte.Image.from_debian_base(python_version=(3, 11), name="memctl-sleep")
    if pyproject.is_file():
        return base.with_uv_project(pyproject, extra_args="--extra flyte", project_install_mode="install_project")
    from memctl.about import DISTRIBUTION

    return base.with_pip_packages(f"{DISTRIBUTION}[flyte]")  # never "memctl": that name is another project


env = flyte.TaskEnvironment(name="memctl-sleep", image=_image(), resources=flyte.Resources(cpu=1, memory="1Gi"))


@env.task(cache=flyte.Cache(behavior="auto", ignored_inputs=("settings_json",)), retries=0)
async def consolidate_one(task: flyte.io.File, settings_json: str) -> str:
    """One cluster through :func:`~memctl.sleep.consolidate.consolidate`; returns the result JSON plus ``run``.

    Raises:
        RuntimeError: the merge failed; the message is :data:`FAILED` and a JSON object
            ``{"message", "model_called", "text"}`` (the driver records it as a failed cluster).
    """
    from memctl.validator.core import ValidationLimits
    from memctl.validator.merge_gate import check_merged

    async with task.open("rb") as handle:
        data = ConsolidationTask.from_json(json.loads(await handle.read()))
    with tempfile.TemporaryDirectory(prefix="memctl-task-") as scratch:
        # home and cache are the task's own scratch: nothing it does touches the user's data home
        settings = Settings(home=Path(scratch) / "home", **json.loads(settings_json))
        try:
            result = await asyncio.to_thread(consolidate, data, settings, Path(scratch) / "cache")
        except ConsolidationError as exc:
            raise RuntimeError(FAILED + json.dumps({"message": str(exc), "model_called": exc.model_called,
                                                    "text": None})) from None
    _target, refusal = check_merged(data.cluster, data.scope, result.text, ValidationLimits.from_settings(settings),
                                    data.members)
    if refusal:
        raise RuntimeError(FAILED + json.dumps({"message": refusal, "model_called": result.model_called,
                                                "text": result.text}))
    return json.dumps({**asdict(result), "run": flyte.ctx().action.run_name})


@env.task(report=True)
async def consolidate_clusters(tasks: list[flyte.io.File], settings_json: str, concurrency: int,
                               phases: str) -> list[str]:
    """Every cluster through :func:`consolidate_one`, ``concurrency`` at a time; one outcome JSON per task,
    in task order: ``{"ok": <result>}``, ``{"failed": {"message", "model_called", "text"}}`` or
    ``{"crashed": <error text>}`` (an error that is not a failed merge: the driver stops there)."""
    gate = asyncio.Semaphore(concurrency)
    done = {"n": 0}
    await flyte.report.log.aio(f"<h2>memctl sleep</h2><p>{_html(phases)}</p>"
                               f"<p>consolidate: {len(tasks)} cluster(s), {concurrency} at a time</p>", do_flush=True)

    async def one(file: flyte.io.File) -> str:
        async with gate:
            try:
                outcome = {"ok": json.loads(await consolidate_one(file, settings_json))}
            except Exception as exc:  # noqa: BLE001 - each cluster's outcome is reported, the others go on
                text = str(exc)
                at = text.find(FAILED)
                if at >= 0:
                    try:
                        failed, _end = json.JSONDecoder().raw_decode(text, at + len(FAILED))
                    except ValueError:  # a backend that re-quoted the message: keep its words
                        failed = {"message": text[at + len(FAILED):], "model_called": True, "text": None}
                    outcome = {"failed": failed}
                else:
                    outcome = {"crashed": f"{type(exc).__name__}: {text}"}
        done["n"] += 1
        kind = next(iter(outcome))
        await flyte.report.log.aio(f"<div>{done['n']}/{len(tasks)} {kind}</div>", do_flush=True)
        return json.dumps(outcome)

    return list(await asyncio.gather(*(one(f) for f in tasks)))


def _html(text: str) -> str:
    import html

    return html.escape(text)


class EngineTaskError(ExitCodeError):
    """A Flyte run or task failed for another reason than a failed merge (exit 1): the run stops, as on the
    local engine; merges already returned are cached, so the next sleep repeats none of them."""


class FlyteEngine:
    """Consolidation as Flyte tasks (see the module doc); ``run_url`` is the Flyte run's URL after
    :meth:`consolidate`, None in local mode (there is no console to link to)."""

    name = "flyte"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.local = settings.flyte_config is None
        self.run_url: str | None = None
        self.run_name: str | None = None  # the last Flyte run this engine started

    def consolidate(self, tasks: list[ConsolidationTask], *, settings: Settings, cache_dir: Path, concurrency: int,
                    log: Callable[[str], None], note: str = "") -> Iterator[tuple[int, Future]]:
        """See :class:`memctl.sleep.engines.select.ConsolidationEngine`. The Flyte run finishes before the first
        outcome is yielded; every merge it returned is written to memctl's cache at once (so a driver that
        stops while applying repeats no model call), then outcomes are yielded in task order."""
        if not tasks:
            return
        from memctl.prompts import load_prompt

        prompt = load_prompt("consolidate")
        keys = [cache_key(t, settings.consolidate_model, prompt) for t in tasks]
        with tempfile.TemporaryDirectory(prefix="memctl-flyte-") as scratch:
            run_name = f"memctl-sleep-{uuid.uuid4().hex[:20]}"  # how a result tells this run from a cached one
            self.run_name = run_name
            paths = []
            for index, task in enumerate(tasks):
                path = Path(scratch) / "tasks" / f"{index:05d}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(asdict(task), ensure_ascii=False), encoding="utf-8")
                paths.append(path)
            log(f"flyte: {len(tasks)} consolidation task(s), {concurrency} at a time"
                + (" (local mode)" if self.local else ""))
            try:
                runner = self._start(settings, Path(scratch), run_name)
                files = [self._file(path, key) for path, key in zip(paths, keys)]
                run = runner.run(consolidate_clusters, files, json.dumps(self._task_settings(settings)),
                                 concurrency, note)
                if not self.local:
                    self.run_url = run.url
                    run.wait(quiet=True)
                outputs = run.outputs()
            except Exception as exc:  # the run itself (not one cluster): an unreachable cluster, a failed build
                raise EngineTaskError(f"the Flyte run {run_name} failed: {type(exc).__name__}: {exc}") from exc
            finally:
                if self.local:
                    _close_local_cache()
            outcomes = [json.loads(o) for o in (outputs[0] if isinstance(outputs, tuple) else outputs)]
        from memctl.atomic import atomic_write_json

        for outcome, task in zip(outcomes, tasks):
            if "ok" in outcome:  # the same entry consolidate() writes: either engine reads it
                atomic_write_json(cache_dir / f"{outcome['ok']['cache_key']}.json",
                                  {"text": outcome["ok"]["text"], "model": outcome["ok"]["model"],
                                   "prompt_version": outcome["ok"]["prompt_version"],
                                   "members": [m.path for m in task.members]})
        for index, outcome in enumerate(outcomes):
            yield index, _future(outcome, run_name)

    def model_settings(self, settings: Settings) -> Settings | None:
        """Local mode: the tasks run here and call ``flyte_model_host`` (default ``ollama_host``), which the
        driver can check; on a cluster it may be an address only the cluster reaches, so None."""
        if not self.local:
            return None
        if settings.flyte_model_host is None:
            return settings
        return Settings.model_validate({**settings.model_dump(), "ollama_host": settings.flyte_model_host})

    def _task_settings(self, settings: Settings) -> dict:
        values = {name: getattr(settings, name) for name in TASK_SETTINGS}
        values["ollama_host"] = settings.flyte_model_host or settings.ollama_host
        return values

    def _file(self, path: Path, key: str) -> flyte.io.File:
        # The file's hash is memctl's cache key, so Flyte's cache is keyed by content, not by the temp path.
        if self.local:
            return flyte.io.File.from_existing_remote(str(path), file_cache_key=key)
        return flyte.io.File.from_local_sync(str(path), hash_method=key)

    def _start(self, settings: Settings, scratch: Path, run_name: str):
        """``flyte.init`` for this run's mode and the run context to launch with."""
        if self.local:
            _pin_local_cache(DataHome(settings.home).consolidate_cache.parent / "flyte")
            # Explicit arguments, no config file: local mode reports nowhere (tracked off) and keeps no run
            # database; the only network it uses is the model server the tasks call.
            flyte.init(log_level=logging.WARNING, local_tracked=False, local_persistence=False)
            _route_flyte_logs()
            return flyte.with_runcontext(mode="local", name=run_name, raw_data_path=str(scratch / "raw"),
                                        log_level=logging.WARNING, tracked=False)
        config = settings.flyte_config.expanduser()
        if not flyte_config_endpoint(config):  # else Flyte would build and push the image before failing
            raise ValueError(f"{config} names no admin endpoint; check it with `memctl doctor --engine flyte`")
        flyte.init_from_config(str(config), log_level=logging.WARNING)
        _route_flyte_logs()
        return flyte.with_runcontext(mode="remote", name=run_name, log_level=logging.WARNING)


def _future(outcome: dict, run_name: str) -> Future:
    future: Future = Future()
    if "ok" in outcome:
        data = dict(outcome["ok"])
        produced_by = data.pop("run", None)
        # A result another run produced came from Flyte's cache: no model call was made for it now.
        data["model_called"] = bool(data["model_called"]) and produced_by == run_name
        future.set_result(ConsolidationResult(**data))
    elif "failed" in outcome:
        failed = outcome["failed"]
        if failed.get("text") is not None:  # refused by the validator: the driver records it with its text
            future.set_result(_Refused(failed))
        else:
            future.set_exception(ConsolidationError(failed["message"], model_called=bool(failed["model_called"])))
    else:
        future.set_exception(EngineTaskError(f"a Flyte consolidation task failed: {outcome['crashed']}; "
                                             "merges already returned are cached: run sleep again"))
    return future


class _Refused(ConsolidationResult):
    """A merge the task's validator check refused; the driver's own check refuses it again (same function)."""

    def __init__(self, failed: dict) -> None:
        super().__init__(cluster="", text=failed["text"], created="", cache_key="", model_called=failed["model_called"],
                         model="", prompt_version="")


def _pin_local_cache(directory: Path) -> None:
    """Flyte's local task cache lives next to whatever Flyte config it finds (./config.yaml, the git root's
    .flyte/, ~/.flyte); memctl keeps its state in the data home, so the cache of this data home's runs is
    ``<home>/cache/flyte/cache.db`` (flyte 2.12.1 ``LocalDB``, private, hence the pinned version)."""
    from flyte._persistence._db import LocalDB

    LocalDB._get_cache_dir = staticmethod(lambda: directory)  # type: ignore[method-assign]


def _close_local_cache() -> None:
    """Close Flyte's connection to the local cache DB (flyte 2.12.1 keeps it open for the process), so the
    next run — perhaps of another data home — opens its own home's cache."""
    from flyte._persistence._db import LocalDB
    from flyte.syncify import syncify

    syncify(LocalDB.close)()  # on Flyte's own loop: the connection was opened there


def _route_flyte_logs() -> None:
    """Flyte's loggers write to the terminal themselves; memctl sends library logs to <home>/logs
    (:mod:`memctl.cli.log_routing`, a root handler), so they propagate there instead."""
    for name in ("flyte", "flyte.user"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True
