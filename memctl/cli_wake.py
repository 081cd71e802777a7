"""CLI commands of the wake cycle: ``ask`` and ``remember``. Thin: parse, call :mod:`memctl.wake`, render.

``remember`` takes its text as an argument, from stdin (``-``) or from a
file (``--file PATH``); text that starts with ``-`` (a PEM block, a Markdown
list) goes through those or after ``--``. Whatever goes wrong, its messages
never repeat the text: it may be a key or a password the user meant to keep
out of memory (issue 10, item 9).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table
from typer.core import TyperCommand

from memctl.exit_codes import CONFLICT as EXIT_CONFLICT, HOME as EXIT_HOME  # noqa: E402
from memctl.exit_codes import INTERRUPTED as EXIT_INTERRUPTED, USAGE as EXIT_USAGE  # noqa: E402
HOME_OPTION = typer.Option(None, "--home", envvar="MEMCTL_HOME", help="Data home (default ./var).")


def _cli():
    from memctl import cli  # late: cli.py imports this module at its end

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
    from memctl.wake import AskError, AskOptions
    from memctl.wake import ask as run_ask

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


MAX_REMEMBER_INPUT_BYTES = 64 * 1024  # far above a memory's limit; only bounds what is read
REMEMBER_HINT = ("to remember text that starts with '-', put it after `--` (memctl remember -s SESSION -- TEXT), "
                 "pipe it to `memctl remember -s SESSION -`, or use --file PATH")
_OPTION_NAME = re.compile(r"^--?[A-Za-z][A-Za-z0-9-]{0,40}$")


def _click_exceptions() -> Any:
    """The click exceptions module under Typer (Typer 0.2x vendors click as ``typer._click``; older ones use click)."""
    base = next(c for c in TyperCommand.__mro__[1:] if c.__name__ == "Command")
    return importlib.import_module(base.__module__.rsplit(".", 1)[0] + ".exceptions")


class RememberCommand(TyperCommand):
    """``remember`` whose usage errors never repeat the memory text (it may be secret material).

    Click reports an argument it cannot place by quoting it (``No such option:
    -----BEGIN …``, ``Got unexpected extra arguments (…)``); those messages
    are replaced by ones that name the problem and the way out, without the value.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        errors = _click_exceptions()
        try:
            return super().parse_args(ctx, list(args))
        except errors.NoSuchOption as exc:
            if _OPTION_NAME.match(exc.option_name or ""):
                hint = f" (did you mean {', '.join(sorted(exc.possibilities))}?)" if exc.possibilities else ""
                raise errors.UsageError(f"no such option: {exc.option_name}{hint}; {REMEMBER_HINT}", ctx) from None
            raise errors.UsageError(f"the text starts with '-', so it was read as an option (not shown); "
                                    f"{REMEMBER_HINT}", ctx) from None
        except errors.UsageError as exc:
            message = exc.format_message()
            known = {opt for param in self.params for opt in (*param.opts, *param.secondary_opts)}
            values = [a for a in args if a not in known and len(a) >= 3]
            if any(form in message for a in values for form in (a, repr(a)[1:-1], *a.split("=", 1)) if len(form) >= 3):
                what = ("more than one text argument was given" if "unexpected extra argument" in message
                        else "the command line could not be parsed")
                raise errors.UsageError(f"{what} (values not shown: they may be secret); quote the text as one "
                                       f"argument, or {REMEMBER_HINT.split(', ', 1)[1]}", ctx) from None
            raise


def _shown(value: str) -> str:
    """``value`` for an error message when short and plain; else only its length (it may be misplaced text)."""
    return repr(value) if len(value) <= 40 and value.isprintable() and " " not in value else \
        f"({len(value)} characters, not shown)"


def _read_text(text: Optional[str], file: Optional[Path]) -> str:
    """The memory text from the argument, stdin (``-``) or ``--file``; exits 2 with a clear message."""
    cli = _cli()
    if text is not None and file is not None:
        cli._fail("give the text as an argument, as - (stdin) or with --file, not both", EXIT_USAGE)
    if text is None and file is None:
        cli._fail("nothing to remember: give the text, - to read it from stdin, or --file PATH", EXIT_USAGE)
    if text is not None and text != "-":
        return text
    source = "stdin" if file is None or str(file) == "-" else str(file)
    try:
        if source == "stdin":
            data = typer.get_binary_stream("stdin").read(MAX_REMEMBER_INPUT_BYTES + 1)
        else:
            with open(file, "rb") as handle:  # type: ignore[arg-type]
                data = handle.read(MAX_REMEMBER_INPUT_BYTES + 1)
    except FileNotFoundError:
        cli._fail(f"--file {source}: no such file", EXIT_USAGE)
    except IsADirectoryError:
        cli._fail(f"--file {source} is a directory; give a text file", EXIT_USAGE)
    except OSError as exc:
        cli._fail(f"cannot read {source}: {exc.strerror or type(exc).__name__}", EXIT_USAGE)
    if len(data) > MAX_REMEMBER_INPUT_BYTES:
        cli._fail(f"{source} holds more than {MAX_REMEMBER_INPUT_BYTES} bytes; a memory is one fact or preference",
                  EXIT_USAGE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        cli._fail(f"{source} is not UTF-8 text ({exc.reason} at byte {exc.start})", EXIT_USAGE)
    raise AssertionError("unreachable")


def remember(
    text: Optional[str] = typer.Argument(None, help="The memory, e.g. \"Use pnpm, not npm, in this repo\"; "
                                                    "- reads it from stdin. Text starting with '-': after --."),
    session: str = typer.Option(..., "--session", "-s", help="Session id the memory belongs to."),
    topic: Optional[str] = typer.Option(None, "--topic", "-t", help="Scope it to a topic (promoted under user/topics/<topic>/)."),
    global_scope: bool = typer.Option(False, "--global", help="A global preference (promoted under user/global/)."),
    kind: str = typer.Option("note", "--kind", help="preference | decision | note"),
    file: Optional[Path] = typer.Option(None, "--file", help="Read the memory text from this file (UTF-8)."),
    as_json: bool = typer.Option(False, "--json", help="Print the staged proposal as JSON."),
    home: Optional[Path] = HOME_OPTION,
) -> None:
    """Stage a memory as a proposal (quarantine): trusted only after `memctl sleep` validates it."""
    _cli()._settings(home)  # validates OLLAMA_HOST before anything imports the ollama client
    from memctl.config import DataHome
    from memctl.proposals import SESSION_ID, TOPIC_SLUG, ProposalError, stage_proposal
    from memctl.store import ConcurrencyError, MemoryStore, StoreBusyError, StoreError
    from memctl.topic_index import TopicIndex, TopicIndexError

    cli = _cli()
    if kind not in ("preference", "decision", "note"):
        cli._fail(f"--kind must be preference, decision or note (got {_shown(kind)})", EXIT_USAGE)
    if topic and global_scope:
        cli._fail("--topic and --global exclude each other", EXIT_USAGE)
    if not SESSION_ID.match(session):
        cli._fail(f"invalid session id {_shown(session)}: use letters, digits, '_', '.', '-' (max 128)", EXIT_USAGE)
    if topic is not None and not TOPIC_SLUG.match(topic):
        cli._fail(f"invalid topic {_shown(topic)}: a topic is a slug such as 'alpha'", EXIT_USAGE)
    content = _read_text(text, file)
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
        proposal = stage_proposal(MemoryStore(data_home.store), session=session, content=content, source="remember",
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
    app.command(cls=RememberCommand)(remember)
