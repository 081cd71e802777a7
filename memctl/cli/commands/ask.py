"""CLI commands of the wake cycle: ``ask`` and ``remember``. Thin: parse, call :mod:`memctl.wake`, render."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from memctl.exit_codes import CONFLICT as EXIT_CONFLICT, HOME as EXIT_HOME  # noqa: E402
from memctl.exit_codes import INTERRUPTED as EXIT_INTERRUPTED, USAGE as EXIT_USAGE  # noqa: E402
HOME_OPTION = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var).")


def _cli():
    from memctl.cli import app as cli  # late: cli.py imports this module at its end

    return cli


def ask(
    question: str = typer.Argument(..., help="The question, in quotes."),
    session: Optional[str] = typer.Option(None, "--session", "-s", help="Session id: its promoted memories apply, proposals go to its inbox (default 'cli')."),
    topic: list[str] = typer.Option([], "--topic", "-t", help="Skip routing: search this topic (repeatable)."),
    top_k: Optional[int] = typer.Option(None, "--top-k", min=1, max=50, help="Excerpts to retrieve (default from config: 6)."),
    max_context_chars: Optional[int] = typer.Option(None, "--max-context-chars", min=500, help="Bound on the context given to the model (default 12000)."),
    propose: Optional[bool] = typer.Option(None, "--propose/--no-propose", help="Let the model propose a durable memory from this exchange into staging/ (default off; config ask_propose)."),
    no_graph: bool = typer.Option(False, "--no-graph", help="Skip Cognee search; rank the raw notes only."),
    as_json: bool = typer.Option(False, "--json", help="Print answer, topics, route, fallback, sources and timings as JSON."),
    debug: bool = typer.Option(False, "--debug", help="Timings and ctx_chars on stderr (also AI_MEMORY_STORE_DEBUG=1)."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Answer a question from memory (read-only): route → retrieve → answer, with cited sources."""
    cli = _cli()
    settings = cli._settings(home)  # before importing the ollama client: it reads OLLAMA_HOST at import
    from memctl.ask.run import AskError, AskOptions
    from memctl.ask.run import ask as run_ask

    options = AskOptions(question=question, session=session, topics=list(topic), top_k=top_k,
                         max_context_chars=max_context_chars, propose=propose, use_graph=not no_graph)
    stream = sys.stdout.isatty() and not as_json
    on_token = (lambda piece: (sys.stdout.write(piece), sys.stdout.flush())) if stream else None
    try:
        result = run_ask(settings, options, on_token=on_token)
    except AskError as exc:
        cli._fail(str(exc), exc.exit_code)
    except KeyboardInterrupt:
        cli._fail("interrupted", EXIT_INTERRUPTED)
    except OSError as exc:
        cli._fail(f"cannot use the data home {settings.home}: {exc}", EXIT_HOME)
    if debug or os.environ.get("AI_MEMORY_STORE_DEBUG") == "1":
        print(f"memctl: route={result.route_method} topics={','.join(result.topics)} "
              f"retrieval={result.retrieval_method} route_s={result.route_s:.3f} retrieve_s={result.retrieve_s:.3f} "
              f"answer_s={result.answer_s:.3f} ctx_chars={result.ctx_chars}"
              + (f" fallback_reason={result.fallback_reason!r}" if result.fallback_reason else ""),
              file=sys.stderr, flush=True)
    if as_json:
        cli.stdout.print_json(json.dumps(result.as_dict()))
        return
    if stream:
        sys.stdout.write("\n")
    else:
        sys.stdout.write(result.answer.rstrip() + "\n")
    sys.stdout.flush()
    if result.sources:
        table = Table(title="sources", title_justify="left")
        for column in ("#", "session", "title", "date", "topic"):
            table.add_column(column, overflow="fold")
        for number, source in enumerate(result.sources, start=1):
            table.add_row(str(number), source.source_id, source.title, source.date, source.topic)
        cli.stdout.print(table)
    note = f"topics: {', '.join(result.topics)} ({result.route_method})"
    if result.fallback_used:
        note += f"; answered from raw notes: {result.fallback_reason}"
    cli.console.print(note, highlight=False)
    if result.proposal:
        cli.console.print(f"proposed a memory for review by `memctl sleep`: {result.proposal.staged_path}",
                          highlight=False)


def remember(
    text: str = typer.Argument(..., help="The memory, e.g. \"Use pnpm, not npm, in this repo\"."),
    session: str = typer.Option(..., "--session", "-s", help="Session id the memory belongs to."),
    topic: Optional[str] = typer.Option(None, "--topic", "-t", help="Scope it to a topic (promoted under user/topics/<topic>/)."),
    global_scope: bool = typer.Option(False, "--global", help="A global preference (promoted under user/global/)."),
    kind: str = typer.Option("note", "--kind", help="preference | decision | note"),
    as_json: bool = typer.Option(False, "--json", help="Print the staged proposal as JSON."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Stage a memory as a proposal (quarantine): trusted only after `memctl sleep` validates it."""
    _cli()._settings(home)  # validates OLLAMA_HOST before anything imports the ollama client
    from memctl.config import DataHome
    from memctl.ask.proposals import ProposalError, stage_proposal
    from memctl.store import ConcurrencyError, MemoryStore, StoreBusyError, StoreError
    from memctl.ask.topic_index import TopicIndex, TopicIndexError

    cli = _cli()
    if kind not in ("preference", "decision", "note"):
        cli._fail(f"--kind must be preference, decision or note (got {kind!r})", EXIT_USAGE)
    if topic and global_scope:
        cli._fail("--topic and --global exclude each other", EXIT_USAGE)
    settings = cli._settings(home)
    data_home = DataHome(settings.home)
    if topic:
        try:
            known = TopicIndex.load(data_home.topic_index).slugs
        except TopicIndexError as exc:
            cli._fail(str(exc), EXIT_HOME)
        if topic not in known:
            cli._fail(f"unknown topic {topic!r}; known topics: {', '.join(known) or 'none (run memctl ingest first)'}",
                      EXIT_USAGE)
    try:
        proposal = stage_proposal(MemoryStore(data_home.store), session=session, content=text, source="remember",
                                  topic=topic, kind=kind, global_scope=global_scope,
                                  max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines)
    except ProposalError as exc:
        cli._fail(str(exc), EXIT_USAGE)
    except (ConcurrencyError, StoreBusyError) as exc:
        cli._fail(str(exc), EXIT_CONFLICT)
    except StoreError as exc:
        cli._fail(str(exc), EXIT_USAGE)
    except OSError as exc:
        cli._fail(f"cannot use the data home {settings.home}: {exc}", EXIT_HOME)
    if as_json:
        cli.stdout.print_json(json.dumps(proposal.as_dict()))
    else:
        cli.stdout.print(f"staged {proposal.staged_path} (→ {proposal.path} once `memctl sleep` validates it)"
                         + (f"; {proposal.redactions} secret(s) redacted" if proposal.redactions else ""))


def register(app: typer.Typer) -> None:
    """Add the wake commands to the root ``memctl`` app."""
    app.command()(ask)
    app.command()(remember)
