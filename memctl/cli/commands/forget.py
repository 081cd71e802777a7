"""``memctl forget PATH``: delete one memory through the store and take it out of Cognee and the indexes."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from memctl.cli.app import HomeOption, JsonOption, WaitOption, app, settings_from_flags, stdout
from memctl.cli.consent import DryRunOption, YesOption, confirm_plan, dry_run_result


@app.command()
def forget(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Store path of the memory (user/…; memory/… needs --as-ingest).")],
    as_ingest: Annotated[bool, typer.Option("--as-ingest", help="Required for memory/: act with ingest's privilege.")] = False,
    dry_run: DryRunOption = False,
    yes: YesOption = False,
    wait: WaitOption = False,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Forget a memory: deleted through the store (audited; history and rollback still work), removed
    from its topic's Cognee dataset and the indexes, and never brought back by a later sleep or ingest."""
    from memctl.config import DataHome
    from memctl.forget.journal import Journal
    from memctl.forget.memory import forget_memory
    from memctl.forget.plan import MemoryPlan, plan_forget
    from memctl.store.policy import normalize_path

    settings = settings_from_flags(home)
    data_home = DataHome(settings.home)
    with data_home.lock(wait=wait):
        pending = Journal(data_home).pending()
        if pending and (pending.get("command"), pending.get("key")) == ("forget", normalize_path(path)):
            plan = MemoryPlan(**pending["plan"])  # the file is gone already: finish the recorded plan
        else:
            plan = plan_forget(data_home, path, as_ingest=as_ingest)
        if dry_run:
            document = dry_run_result(f"memctl forget {plan.path}", plan, as_json=as_json)
            if document is not None:
                stdout.print_json(json.dumps(document))
            return
        confirm_plan(f"memctl forget {plan.path}", plan, f"Forget {plan.path}?", yes=yes)
        result = forget_memory(settings, data_home, plan)
    if as_json:
        stdout.print_json(json.dumps(result.as_dict()))
    else:
        stdout.print(f"forgot {plan.path}" + (f" (removed {result.documents_removed} document(s) from Cognee)"
                                             if result.documents_removed else "")
                     + f"; undo with `memctl rollback {plan.path} --to {plan.sha[:12]}`"
                     + (" --as-ingest" if plan.path.startswith("memory/") else ""), highlight=False, markup=False)
