"""Values a user mistyped: an option or path given as an empty string or as spaces, and an agent's config
directory that is not one.

**Empty.** A path option given as ``""`` (``--home ''``, ``--db=``) is refused before the command runs, and so
is any option value or path argument that is empty or only whitespace (:func:`blank_value`).

An empty word usually comes from an unset shell variable (``--home "$HOME_DIR"``). Click would turn it into
``Path("")``, which is the current directory: ``ingest`` and ``remember`` would then write ``cognee/``,
``store/`` and ``progress.json`` into whatever directory the shell stands in. A path option is one whose
metavar is ``DIR``, ``PATH`` or ``FILE`` (the convention every command here follows; a test holds it).
The environment is not read here: an empty ``MEMCTL_HOME=`` means "not set" and the default home is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from memctl.exit_codes import UsageError

PATH_METAVARS = frozenset({"DIR", "PATH", "FILE"})


def _takes_value(param: Any) -> bool:
    return not (getattr(param, "is_flag", False) or getattr(param, "count", False))


def _subcommand(group: Any, ctx: Any, words: list[str]) -> tuple[Any, list[str]]:
    """The leaf command ``words`` name under ``group`` and the words that follow its name."""
    command: Any = group
    while hasattr(command, "get_command") and words:
        names = [w for w in words if not w.startswith("-")]
        if not names:
            break
        found = command.get_command(ctx, names[0])
        if found is None:
            break
        command, words = found, words[words.index(names[0]) + 1:]
    return command, words


def _options(command: Any) -> tuple[dict[str, Any], list[Any]]:
    """``command``'s options by every name they answer to, and its arguments in order."""
    options: dict[str, Any] = {}
    arguments: list[Any] = []
    for param in getattr(command, "params", ()):
        kind = getattr(param, "param_type_name", "")
        if kind == "option":
            for name in param.opts:
                options[name] = param
        elif kind == "argument":
            arguments.append(param)
    return options, arguments


def _given(command: Any, rest: list[str]) -> list[tuple[str, Any, str]]:
    """``(name, param, value)`` for each option value and each positional word ``rest`` gives ``command``:
    an option's name as typed (``--home``), an argument's metavar (``PATH``). Words after ``--`` are
    positional; a word that is not a known option and starts with ``-`` is left to Click."""
    options, arguments = _options(command)
    given: list[tuple[str, Any, str]] = []
    positional: list[str] = []
    i, ended = 0, False
    while i < len(rest):
        word = rest[i]
        i += 1
        if ended or not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        if word == "--":
            ended = True
            continue
        name, has_equals, value = word.partition("=")
        param = options.get(name) if name.startswith("--") else options.get(word)
        if param is None or not _takes_value(param):
            continue
        if not has_equals or not name.startswith("--"):
            if i >= len(rest):
                continue  # Click reports the missing value
            name, value = word, rest[i]
            i += 1
        given.append((name, param, value))
    for param in arguments:
        if not positional:
            break
        nargs = getattr(param, "nargs", 1)
        taken, positional = (positional, []) if nargs == -1 else (positional[:nargs], positional[nargs:])
        given += [((param.metavar or param.name).strip("[]."), param, value) for value in taken]
    return given


def blank_value(group: Any, ctx: Any, words: list[str]) -> Optional[str]:
    """Why ``words`` cannot run: the first value that is empty or only whitespace, or None.

    Refused (the message names the option or argument): a path option (``--home``, ``--db``, …) given as
    ``""``, or any option or path argument (``export PATH``, ``list PREFIX``) given as ``""`` or as only
    whitespace: an empty word is an unset shell variable, and a value of spaces a quoting slip. (A path
    of spaces is legal on POSIX; no one means one; ``--topic ' '`` would read as "unknown topic".)
    Questions, queries and texts keep their own wording ("the question is empty").

    Args:
        group: the root command group; ``words`` are the command line's words after the root options
            (the command name first, then its own words, e.g. ``["ingest", "--home", ""]``).
        ctx: the root group's click context (to look commands up).
    """
    command, rest = _subcommand(group, ctx, list(words))
    for name, param, value in _given(command, rest):
        if value.strip():
            continue
        is_path = param.metavar in PATH_METAVARS
        if getattr(param, "param_type_name", "") == "argument":
            if is_path or param.metavar == "[PREFIX]":
                what = "empty" if value == "" else f"only whitespace ({value!r})"
                return f"{command.name} {name} is {what}: give a {'path' if is_path else 'prefix'}"
            continue
        if value == "":
            kind = "a path" if is_path else "a value"
            return f"{name} is empty: give {kind}, or leave the option out for its default"
        return f"{name} is only whitespace ({value!r}): give {'a path' if is_path else 'a value'}, or leave the option out"
    return None


def existing_directory(option: str, path: Optional[Path]) -> Optional[Path]:
    """``path`` as given for ``option`` (e.g. ``--codex-home``), checked to be an existing directory; None stays None.

    An agent's config directory named on the command line must already exist: writing into a mistyped one
    (``--codex-home /tmp/typo``) would report success for a config the agent never reads.

    Raises:
        UsageError: (exit 2) naming the option and the path: no such directory, or a file where a directory belongs.
    """
    if path is None:
        return None
    if path.is_dir():
        return path
    what = "is a file, not a directory" if path.exists() else "no such directory"
    raise UsageError(f"{option} {path}: {what}")


def not_a_file(option: str, path: Optional[Path]) -> Optional[Path]:
    """``path`` as given for ``option`` (e.g. ``--claude-dir``), refused when it names a file; a missing one is
    left to the command (``ingest`` reports a missing history directory as the source not found, exit 3).

    Raises:
        UsageError: (exit 2) ``path`` is an existing file where a directory belongs.
    """
    if path is not None and path.expanduser().exists() and not path.expanduser().is_dir():
        raise UsageError(f"{option} {path}: is a file, not a directory")
    return path
