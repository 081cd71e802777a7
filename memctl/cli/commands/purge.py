"""``memctl purge --session ID`` / ``--text STRING`` / ``--secret-file F``: remove a session, or a value, everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from memctl.cli.app import HomeOption, JsonOption, WaitOption, app, settings_from_flags, stdout
from memctl.cli.consent import DryRunOption, YesOption, confirm_plan, dry_run_result
from memctl.exit_codes import FAILED_ITEMS, OK, UsageError


@app.command()
def purge(
    session: Annotated[Optional[str], typer.Option("--session", metavar="ID", help="Remove this session everywhere (transcript, note, memories and their versions, Cognee, indexes, caches, reports).")] = None,
    allow_reingest: Annotated[bool, typer.Option("--allow-reingest", help="With --session: let the next ingest distill the session again (else it is recorded as purged and skipped).")] = False,
    text: Annotated[Optional[str], typer.Option("--text", metavar="STRING", help="Remove this value (raw, JSON-escaped, base64, URL-encoded) from every file of the data home.")] = None,
    secret_file: Annotated[Optional[Path], typer.Option("--secret-file", metavar="FILE", help="Like --text, one value a line (keeps values out of the shell history).")] = None,
    dry_run: DryRunOption = False,
    yes: YesOption = False,
    wait: WaitOption = False,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Purge a session (--session) or a value (--text / --secret-file) from the data home. Shows what it
    will remove first; resumes an interrupted purge when run again with the same arguments."""
    from memctl.config import DataHome

    chosen = [flag for flag, given in (("--session", session), ("--text", text), ("--secret-file", secret_file))
              if given is not None]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --session ID, --text STRING or --secret-file FILE")
    if allow_reingest and session is None:
        raise UsageError("--allow-reingest goes with --session")
    settings = settings_from_flags(home)
    data_home = DataHome(settings.home)
    values = _values(text, secret_file) if session is None else []
    with data_home.lock(wait=wait):
        if session is not None:
            result, ok = _purge_session(settings, data_home, session, allow_reingest, dry_run, yes, as_json)
        else:
            result, ok = _purge_text(settings, data_home, values, dry_run, yes, as_json)
    if result is None:
        return
    if as_json:
        stdout.print_json(json.dumps(result))
    raise typer.Exit(OK if ok else FAILED_ITEMS)


def _values(text: Optional[str], secret_file: Optional[Path]) -> list[str]:
    """The values to purge; never echoed in any message."""
    if text is not None:
        return [text]
    assert secret_file is not None
    from memctl.forget.secret_file import read_values

    return read_values(secret_file)


def _purge_session(settings, data_home, session: str, allow_reingest: bool, dry_run: bool, yes: bool,  # noqa: ANN001
                   as_json: bool) -> tuple[dict | None, bool]:
    from memctl.forget.journal import Journal
    from memctl.forget.plan import SessionPlan, plan_session
    from memctl.forget.session import purge_session

    pending = Journal(data_home).pending()
    if pending and (pending.get("command"), pending.get("key")) == ("purge-session", session):
        plan = SessionPlan(**pending["plan"])
    else:
        plan = plan_session(data_home, session, allow_reingest=allow_reingest)
    if dry_run:
        return dry_run_result(f"memctl purge --session {session}", plan, as_json=as_json), True
    confirm_plan(f"memctl purge --session {session}", plan, f"Purge session {session}? This cannot be undone", yes=yes)
    result = purge_session(settings, data_home, plan)
    if not as_json:
        stdout.print(f"purged session {session}: {result.files_deleted} file(s), {result.store_deleted} store "
                     f"file(s), {result.blobs_removed} version(s); datasets rebuilt: "
                     f"{', '.join(result.datasets_rebuilt) or 'none'}", highlight=False, markup=False)
    return result.as_dict(), not result.datasets_failed


def _purge_text(settings, data_home, values: list[str], dry_run: bool, yes: bool,  # noqa: ANN001
                as_json: bool) -> tuple[dict | None, bool]:
    from memctl.forget.plan import plan_text
    from memctl.forget.text import purge_text

    plan = plan_text(data_home, values)
    if dry_run:
        return dry_run_result(f"memctl purge of {plan.values} value(s)", plan, as_json=as_json), True
    confirm_plan(f"memctl purge of {plan.values} value(s)", plan, "Purge these value(s)? This cannot be undone", yes=yes)
    result = purge_text(settings, data_home, values, plan)
    if not as_json:
        stdout.print(f"purged {plan.values} value(s): {result.blobs_replaced} version(s) replaced, "
                     f"{result.files_redacted} file(s) redacted, datasets rebuilt: "
                     f"{', '.join(result.datasets_rebuilt) or 'none'}"
                     + (f"; STILL FOUND in {', '.join(result.remaining)}" if result.remaining else ""),
                     highlight=False, markup=False)
    return result.as_dict(), not (result.remaining or result.datasets_failed)
