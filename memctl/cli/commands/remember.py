"""``memctl remember``: stage a memory as a proposal (quarantine). Thin: parse, call :mod:`memctl.ask.proposals`."""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated, Optional

import typer

from memctl.cli.app import HomeOption, JsonOption, app, settings_from_flags, stdout
from memctl.exit_codes import UsageError


class Kind(str, Enum):
    """``--kind``: what the memory is (sleep keeps it in the promoted memory's front matter)."""

    preference = "preference"
    decision = "decision"
    note = "note"


@app.command()
def remember(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The memory, e.g. \"Use pnpm, not npm, in this repo\".")],
    session: Annotated[str, typer.Option("--session", "-s", metavar="ID", help="Session id the memory belongs to.")],
    topic: Annotated[Optional[str], typer.Option("--topic", "-t", metavar="TOPIC", help="Scope it to a topic (promoted under user/topics/<topic>/).")] = None,
    global_scope: Annotated[bool, typer.Option("--global", help="A global preference (promoted under user/global/).")] = False,
    kind: Annotated[Kind, typer.Option("--kind", help="What the memory is.")] = Kind.note,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Stage a memory as a proposal (quarantine): trusted only after `memctl sleep` validates it."""
    settings = settings_from_flags(home)  # validates OLLAMA_HOST before anything imports the ollama client
    from memctl.ask.proposals import stage_proposal
    from memctl.ask.topic_index import TopicIndex
    from memctl.config import DataHome
    from memctl.store import MemoryStore

    if topic and global_scope:
        raise UsageError("--topic and --global exclude each other")
    data_home = DataHome(settings.home)
    if topic:
        known = TopicIndex.load(data_home.topic_index).slugs
        if topic not in known:
            raise UsageError(f"unknown topic {topic!r}; known topics: {', '.join(known) or 'none (run memctl ingest first)'}")
    proposal = stage_proposal(MemoryStore(data_home.store), session=session, content=text, source="remember",
                              topic=topic, kind=kind.value, global_scope=global_scope,
                              max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines)
    if as_json:
        stdout.print_json(json.dumps(proposal.as_dict()))
    else:
        stdout.print(f"staged {proposal.staged_path} (→ {proposal.path} once `memctl sleep` validates it)"
                     + (f"; {proposal.redactions} secret(s) redacted" if proposal.redactions else ""))
