"""``memctl remember``: stage a memory as a proposal (quarantine). Thin: parse, call :mod:`memctl.ask.proposals`.

Provenance: on an interactive terminal (stdin and stderr TTYs, :mod:`memctl.cli.interactive`) the
proposal's origin is ``person`` — sleep promotes it as the person's choice even when it would make
the agent act; anywhere else (a pipe, a script, an agent's shell tool) it is ``agent``, and sleep
holds an action-bearing one for review. ``--from`` records what the text was taken from.

The text comes as an argument, from stdin (``-``) or from a file (``--file
PATH``); text that starts with ``-`` (a PEM block, a Markdown list) goes
through those or after ``--``. Whatever goes wrong, the messages never repeat
the text: it may be a key or a password the user meant to keep out of memory.
"""

from __future__ import annotations

import importlib
import json
import re
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand

from memctl.cli.app import HomeOption, JsonOption, app, console, given_on_command_line, labelled, settings_from_flags, stdout
from memctl.cli.named_home import refuse_missing_named_home
from memctl.exit_codes import UsageError

MAX_REMEMBER_INPUT_BYTES = 64 * 1024  # far above a memory's limit; only bounds what is read
REMEMBER_HINT = ("to remember text that starts with '-', put it after `--` (memctl remember -s SESSION -- TEXT), "
                 "pipe it to `memctl remember -s SESSION -`, or use --file PATH")
_OPTION_NAME = re.compile(r"^--?[A-Za-z][A-Za-z0-9-]{0,40}$")


class Kind(str, Enum):
    """``--kind``: what the memory is (sleep keeps it in the promoted memory's front matter)."""

    preference = "preference"
    decision = "decision"
    note = "note"


def _click_exceptions() -> Any:
    """The click exceptions module under Typer (Typer 0.2x vendors click as ``typer._click``; older ones use click)."""
    base = next(c for c in TyperCommand.__mro__[1:] if c.__name__ == "Command")
    return importlib.import_module(base.__module__.rsplit(".", 1)[0] + ".exceptions")


class RememberCommand(TyperCommand):
    """``remember`` whose usage errors never repeat the memory text (it may be secret material).

    Click reports an argument it cannot place by quoting it (``No such option:
    -----BEGIN …``, ``Got unexpected extra arguments (…)``, ``Invalid value for
    '--kind': '<value>'``); those messages are replaced by ones that name the
    problem and the way out, without the value.
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
        except errors.BadParameter as exc:
            if exc.param is not None and exc.param.name == "kind":
                given = next((b for a, b in zip(args, args[1:]) if a == "--kind"), None) or next(
                    (a.split("=", 1)[1] for a in args if a.startswith("--kind=")), "")
                raise errors.UsageError(f"--kind must be preference, decision or note ({_kind_given(given)})",
                                        ctx) from None
            raise self._without_values(errors, exc, args, ctx) from None
        except errors.UsageError as exc:
            raise self._without_values(errors, exc, args, ctx) from None

    def _without_values(self, errors: Any, exc: Any, args: list[str], ctx: Any) -> Any:
        """``exc`` itself, or a usage error saying the same without any value from ``args`` in it."""
        message = exc.format_message()
        known = {opt for param in self.params for opt in (*param.opts, *param.secondary_opts)}
        values = [a for a in args if a not in known and len(a) >= 3]
        if any(form in message for a in values for form in (a, repr(a)[1:-1], *a.split("=", 1)) if len(form) >= 3):
            what = ("more than one text argument was given" if "unexpected extra argument" in message
                    else "the command line could not be parsed")
            return errors.UsageError(f"{what} (values not shown: they may be secret); quote the text as one "
                                     f"argument, or {REMEMBER_HINT.split(', ', 1)[1]}", ctx)
        return exc


def _kind_given(value: str) -> str:
    """What a ``--kind`` error says about the value: a lower-case word (a typo such as ``prefrence``) is
    shown with the closest kind (``difflib``); anything else only by its length (:func:`_shown`)."""
    import difflib

    if len(value) > 20 or not re.fullmatch(r"[a-z]+(?:[-_][a-z]+)*", value):
        return f"got {_shown(value)}"
    close = difflib.get_close_matches(value, [kind.value for kind in Kind], n=1, cutoff=0.6)
    return f"got {value!r}" + (f"; did you mean {close[0]}?" if close else "")


def _shown(value: str) -> str:
    """What an error message says about an option's value: only its length, never the value.

    A secret typed into the wrong option (``--kind <token>``) would otherwise be echoed to the terminal
    and to any log capturing stderr.
    """
    return f"{len(value)} characters, not shown"


def _read_text(text: Optional[str], file: Optional[Path]) -> str:
    """The memory text from the argument, stdin (``-``) or ``--file``.

    Raises:
        UsageError: both or neither given; the file is missing, a directory,
            unreadable, over :data:`MAX_REMEMBER_INPUT_BYTES` or not UTF-8.
    """
    if text is not None and file is not None:
        raise UsageError("give the text as an argument, as - (stdin) or with --file, not both")
    if text is None and file is None:
        raise UsageError("nothing to remember: give the text, - to read it from stdin, or --file PATH")
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
        raise UsageError(f"--file {source}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"--file {source} is a directory; give a text file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror or type(exc).__name__}") from None
    if len(data) > MAX_REMEMBER_INPUT_BYTES:
        raise UsageError(f"{source} holds more than {MAX_REMEMBER_INPUT_BYTES} bytes; a memory is one fact or preference")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{source} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


@app.command(cls=RememberCommand)
def remember(
    ctx: typer.Context,
    session: Annotated[str, typer.Option("--session", "-s", metavar="ID", help="Session id the memory belongs to (default 'cli', as for ask).")] = "cli",
    text: Annotated[Optional[str], typer.Argument(metavar="[TEXT]", help="The memory, e.g. \"Use pnpm, not npm, in this repo\"; - reads it from stdin. Text starting with '-': after --.")] = None,
    topic: Annotated[Optional[str], typer.Option("--topic", "-t", metavar="TOPIC", help="Scope it to a topic (promoted under user/topics/<topic>/).")] = None,
    global_scope: Annotated[bool, typer.Option("--global", help="A global preference (promoted under user/global/).")] = False,
    kind: Annotated[Kind, typer.Option("--kind", help="What the memory is.")] = Kind.note,
    file: Annotated[Optional[Path], typer.Option("--file", metavar="PATH", help="Read the memory text from this file (UTF-8).")] = None,
    taken_from: Annotated[Optional[str], typer.Option("--from", metavar="SOURCE", help="What the text was taken from (a tool's output, a file, a page); kept in its provenance. Default with --file: that file.")] = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Stage a memory as a proposal (quarantine): trusted only after `memctl sleep` validates it.

    Typed at an interactive terminal it is recorded as a person's memory; otherwise as an agent's."""
    settings = settings_from_flags(home)  # validates OLLAMA_HOST before anything imports the ollama client
    from memctl.ask.proposals import SESSION_ID, TOPIC_SLUG, stage_proposal
    from memctl.catalog.topic_index import TopicIndex, UnknownTopicError
    from memctl.config import DataHome
    from memctl.store import MemoryStore

    if topic and global_scope:
        raise UsageError("--topic and --global exclude each other")
    if not SESSION_ID.match(session):
        raise UsageError(f"invalid session id ({_shown(session)}): use letters, digits, '_', '.', '-' (max 128)")
    content = _read_text(text, file)
    data_home = DataHome(settings.home)
    if topic is not None:
        try:  # a topic's slug, or one of its aliases (the project's other worktree names)
            topic = TopicIndex.load(data_home.topic_index).resolve([topic])[0]
        except UnknownTopicError:
            if TOPIC_SLUG.match(topic):
                raise
            raise UsageError(f"unknown topic ({_shown(topic)}); `memctl doctor` lists the topics") from None
    from memctl.cli.interactive import at_terminal

    origin = "person" if at_terminal() else "agent"
    if taken_from is None and file is not None and str(file) != "-":
        taken_from = f"file {file}"
    new_home = not data_home.root.exists()
    proposal = stage_proposal(MemoryStore(data_home.store), session=session, content=content, source="remember",
                              topic=topic, kind=kind.value, global_scope=global_scope,
                              max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines,
                              origin=origin, taken_from=taken_from,
                              before_write=lambda: refuse_missing_named_home(  # outside the CLI too
                                  settings, given_on_command_line(ctx, home=home).get("home"), "remember"))
    if new_home:  # the per-user default home, created by this first memory
        console.print(labelled("note:", "yellow", f" created the data home {data_home.root} for this proposal"), highlight=False)
    if as_json:
        stdout.print_json(json.dumps(proposal.as_dict()))
    else:
        stdout.print(f"staged {proposal.staged_path} (→ {proposal.path} once `memctl sleep` validates it; "
                     f"origin {origin})"
                     + (f"; {proposal.redactions} secret(s) redacted" if proposal.redactions else ""))
