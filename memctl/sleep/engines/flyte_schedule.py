"""Sleep every 6 hours on a Flyte or Union cluster (README "Sleep on a cluster: the Flyte engine").

:func:`sleep_every_6h` is a task of :data:`memctl.sleep.engines.flyte_engine.env` with
a ``flyte.Trigger`` (``Cron("0 */6 * * *")``, UTC). Deploy it with
``flyte deploy memctl/sleep/engines/flyte_schedule.py env``, with
:data:`HOME_URI_VAR` (the data home's object-storage prefix) and
:data:`MODEL_HOST_VAR` (Ollama as the cluster reaches it) set: both are read
at deploy time into the trigger's inputs and environment.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import tempfile
from pathlib import Path

from memctl.config import Settings
from memctl.sleep.engines.flyte_engine import env, flyte  # flyte as flyte_engine imported it: with memctl's pins
from memctl.sleep.run import SleepOptions, SleepRun

SCHEDULE = "0 */6 * * *"  # every 6 hours, the sleep cadence `memctl schedule install` uses on one machine
HOME_URI_VAR = "MEMCTL_FLYTE_HOME_URI"  # read at deploy time: the data home's object-storage prefix
MODEL_HOST_VAR = "MEMCTL_FLYTE_MODEL_HOST"  # read at deploy time: Ollama as the scheduled task reaches it

sleep_schedule = flyte.Trigger(name="memctl-sleep-every-6h", automation=flyte.Cron(SCHEDULE),
                               description="memctl sleep every 6 hours",
                               inputs={"home_uri": os.environ.get(HOME_URI_VAR, "")},
                               env_vars={"OLLAMA_HOST": os.environ.get(MODEL_HOST_VAR, "")})


@env.task(triggers=sleep_schedule)
async def sleep_every_6h(home_uri: str) -> str:
    """The scheduled sleep: the data home at ``home_uri`` (``s3://…``) downloaded (``flyte.io.Dir``), the
    whole sleep cycle run on it with this task as the driver (every store write actor ``sleep``;
    consolidation calls Ollama at ``OLLAMA_HOST``, which the trigger sets from :data:`MODEL_HOST_VAR`),
    and the home uploaded back to the same prefix. Returns the run's summary JSON.

    Raises:
        ValueError: no ``home_uri``.
    """
    if not home_uri:
        raise ValueError(f"no data home: deploy with {HOME_URI_VAR}=s3://bucket/prefix or pass home_uri")
    local = Path(tempfile.mkdtemp(prefix="memctl-home-")) / "home"
    await flyte.io.Dir.from_existing_remote(home_uri).download(str(local))
    settings = Settings(home=local, sleep_engine="local")
    summary = await asyncio.to_thread(lambda: SleepRun(settings, SleepOptions(engine="local")).run())
    await flyte.io.Dir.from_local(str(local), remote_destination=home_uri)
    data = json.dumps(summary.as_dict(), indent=1)
    await flyte.report.log.aio(f"<pre>{html.escape(data)}</pre>", do_flush=True)
    return data
