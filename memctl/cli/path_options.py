"""Path options a user mistyped: one given as an empty string, and an agent's config directory that is not one.

**Empty.** A path option given as ``""`` (``--home ''``, ``--db=``) is refused before the command runs.

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


def empty_path_option(group: Any, ctx: Any, words: list[str]) -> Optional[str]:
    """The first path option (``--home``, ``--db``, …) that ``words`` give as ``""``, or None.

    Args:
        group: the root command group; ``words`` are the command line's words after the root options
            (the command name first, then its own words, e.g. ``["ingest", "--home", ""]``).
        ctx: the root group's click context (to look commands up).

    Words after a ``--`` are text, never options.
    """
    command, rest = _subcommand(group, ctx, list(words))
    options: dict[str, Any] = {}
    for param in getattr(command, "params", ()):
        if getattr(param, "param_type_name", "") == "option":
            for name in param.opts:
                options[name] = param
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            break
        name, has_equals, value = word.partition("=")
        param = options.get(name) if name.startswith("--") else options.get(word)
        if param is None or not _takes_value(param):
            i += 1
            continue
        if not has_equals or not name.startswith("--"):
            name, value = word, (rest[i + 1] if i + 1 < len(rest) else None)
            i += 1
        i += 1
        if value == "" and param.metavar in PATH_METAVARS:
            return name
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
