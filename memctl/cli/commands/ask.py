"""``memctl ask``: answer a question from memory (read-only). Thin: parse, call :mod:`memctl.ask.run`, render."""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from memctl.cli import terminal
from memctl.cli.app import HomeOption, JsonOption, app, console, settings_from_flags, stdout
from memctl.cli.tables import print_table

if TYPE_CHECKING:
    from memctl.ask.run import AskResult


@app.command()
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question, in quotes.")],
    session: Annotated[Optional[str], typer.Option("--session", "-s", metavar="ID", help="Session id: its promoted memories apply, proposals go to its inbox (default 'cli').")] = None,
    topic: Annotated[Optional[list[str]], typer.Option("--topic", "-t", metavar="TOPIC", help="Skip routing: search this topic, by its slug or an alias (a later name of a moved project; repeatable).")] = None,
    top_k: Annotated[Optional[int], typer.Option("--top-k", metavar="N", min=1, max=50, help="Excerpts to retrieve (default from config: 6).")] = None,
    max_context_chars: Annotated[Optional[int], typer.Option("--max-context-chars", metavar="N", min=500, help="Bound on the context given to the model (default 12000).")] = None,
    propose: Annotated[Optional[bool], typer.Option("--propose/--no-propose", help="Let the model propose a durable memory from this exchange into staging/ (default off; config ask_propose).")] = None,
    no_graph: Annotated[bool, typer.Option("--no-graph", help="Skip Cognee search; rank the raw notes only.")] = False,
    as_json: JsonOption = False,
    debug: Annotated[bool, typer.Option("--debug", help="Timings and ctx_chars on stderr (also AI_MEMORY_STORE_DEBUG=1).")] = False,
    home: HomeOption = None,
) -> None:
    """Answer a question from memory (read-only): route → retrieve → answer, with cited sources."""
    settings = settings_from_flags(home)  # before importing the ollama client: it reads OLLAMA_HOST at import
    from memctl.ask.run import AskOptions, ask as run_ask

    options = AskOptions(question=question, session=session, topics=list(topic or ()), top_k=top_k,
                         max_context_chars=max_context_chars, propose=propose, use_graph=not no_graph)
    stream = terminal.OUT.isatty() and not as_json
    on_token = terminal.write_out if stream else None
    from memctl.serve.relay import ask_through_server

    # A running `memctl serve` of this data home answers warm; same result, else in-process as always.
    result = ask_through_server(settings, options, on_token=on_token) or run_ask(settings, options, on_token=on_token)
    if debug or os.environ.get("AI_MEMORY_STORE_DEBUG") == "1":
        terminal.write_err(f"memctl: route={result.route_method} topics={','.join(result.topics)} "
                           f"retrieval={result.retrieval_method} route_s={result.route_s:.3f} "
                           f"retrieve_s={result.retrieve_s:.3f} answer_s={result.answer_s:.3f} "
                           f"ctx_chars={result.ctx_chars}"
                           + (f" fallback_reason={result.fallback_reason!r}" if result.fallback_reason else "") + "\n")
    if as_json:
        stdout.print_json(json.dumps(result.as_dict()))
        return
    terminal.write_out("\n" if stream else result.answer.rstrip() + "\n")
    if result.sources:
        print_table(stdout, sources_table(result), whole=("#", "session", "from", "date", "topic"))
    note = f"topics: {', '.join(result.topics)} ({result.route_method})"
    if result.route_method == "fallback" and result.route_reason:
        note += f" — {result.route_reason}"  # why the model router was not used, and how the topics were chosen
    if result.fallback_used:
        note += f"; answered from raw notes: {result.fallback_reason}"
    console.print(note, highlight=False)
    if result.proposal:
        console.print(f"proposed a memory for review by `memctl sleep`: {result.proposal.staged_path}",
                      highlight=False)


def sources_table(result: "AskResult") -> Table:
    """The sources an answer cites, from the typed result (``--json`` prints ``result.as_dict()`` instead): one
    row per source, numbered as the answer cites them; a ``from`` column when any session is not OpenCode's.

    Every excerpt the model was given is listed; when the answer cites only some (``[n]``), the title says which,
    so the others read as context, not as what the answer rests on."""
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", result.answer) if 1 <= int(n) <= len(result.sources)})
    title = "sources"
    if len(cited) < len(result.sources):
        title += (f" (the answer cites {' '.join(f'[{n}]' for n in cited)}; the others were in its context)" if cited
                  else " (the answer cites none of them; they were in its context)")
    table = Table(title=title, title_justify="left")
    # Which agent recorded each session, when any is not OpenCode's (an OpenCode-only table stays as it was).
    agents = any(source.agent not in ("OpenCode", "memory") for source in result.sources)
    for column in ("#", "session", *(("from",) if agents else ()), "title", "date", "topic"):
        # A session id is copied into `memctl show`/`purge --session`: never folded over lines.
        table.add_column(column, overflow="fold", no_wrap=column in ("session", "date"))
    for number, source in enumerate(result.sources, start=1):
        table.add_row(str(number), source.source_id, *((source.agent,) if agents else ()), source.title,
                      source.date, source.topic)
    return table
