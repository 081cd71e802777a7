"""One typed reader and writer for the JSON state files memctl keeps in its data home.

Every state file (the ingest checkpoint and skipped list, topics, the topic
index, sleep state, the graph ledger, Cognee's rejections, the forget journal,
the location record, and the caches' JSON) is read by :func:`read_state` into a
pydantic model of its shape and written by :func:`write_state` through
:func:`memctl.atomic.atomic_write_json` (pretty, key-sorted JSON, so the bytes on
disk are the ones earlier versions wrote and read).

A damaged file — not UTF-8, not JSON, nested deeper than the parser's recursion
limit, the wrong shape, or unreadable — is one error kind, :class:`StateFileError`
(exit 7, the data home's code), whose one-line message names the file, what is
wrong and the fix. ``RecursionError`` (``json.loads`` on ``[[[[…`` thousands deep)
is caught here and nowhere else: :func:`decode_json` turns it into a ``ValueError``, and
every JSON memctl did not write itself (a model's answer, a staged proposal, a socket
request) is decoded by it too, so its callers catch ``ValueError`` alone. A cache treats
a damaged file as a miss; a record the run depends on lets the error reach the CLI boundary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from memctl.atomic import atomic_write_json
from memctl.exit_codes import HomeError

M = TypeVar("M", bound=BaseModel)


class JSONNestingError(ValueError):
    """JSON nested deeper than the parser's recursion limit (``[[[[…`` thousands deep); a ``ValueError``
    like every other undecodable JSON."""


def decode_json(data: bytes | bytearray | str) -> Any:
    """``json.loads(data)``, with nesting too deep for the parser raised as :class:`JSONNestingError`.

    Raises:
        ValueError: not UTF-8 (``UnicodeDecodeError``), not JSON (``json.JSONDecodeError``), or nested too
            deeply (:class:`JSONNestingError`); never ``RecursionError``.
    """
    try:
        return json.loads(data)
    except RecursionError as exc:
        raise JSONNestingError("JSON nested too deeply") from exc


class StateFileError(HomeError):
    """A state file in the data home is damaged or of another shape (exit 7); ``path`` names it.

    Subclasses (the checkpoint's, the topic index's) only narrow where it came from; catching this
    class catches every damaged state file.
    """

    def __init__(self, message: str = "", *, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class StateModel(BaseModel):
    """Base of the state files' models: unknown keys are kept (a newer memctl's file reads and writes back
    unchanged) and values are checked strictly enough that a string is never taken for a list."""

    model_config = ConfigDict(extra="allow")


def _reason(exc: BaseException) -> str:
    """One line saying what is wrong: the first validation error with its location, or the parser's message."""
    if isinstance(exc, (JSONNestingError, RecursionError)):
        return "nested too deeply"
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        return f"{where}: {first['msg']}" + (f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else "")
    return " ".join(str(exc).split()) or type(exc).__name__


def parse_state(data: bytes | str, model: type[M], *, path: Path, problem: str = "is damaged", fix: str = "",
                error: type[StateFileError] = StateFileError) -> M:
    """``data`` (a state file's bytes, or a JSON header inside one) validated as ``model``.

    Raises:
        StateFileError: (or ``error``, a subclass) not UTF-8, not JSON, too deeply nested or not of ``model``'s
            shape; the message is ``"<path> <problem> (<reason>); <fix>"`` on one line.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return model.model_validate(decode_json(text))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError, JSONDecodeError, JSONNestingError, ValidationError;
        # RecursionError: a validator walking a deeply nested value
        raise error(f"{path} {problem} ({_reason(exc)})" + (f"; {fix}" if fix else ""), path=path) from exc


def read_state(path: Path, model: type[M], *, problem: str = "is damaged", fix: str = "",
               error: type[StateFileError] = StateFileError) -> M | None:
    """The state file ``path`` as ``model``; None when the file does not exist (nor its folder).

    ``problem`` and ``fix`` word the error for this file (``"is corrupt"``, ``"delete it and run …"``);
    ``error`` is the :class:`StateFileError` subclass a caller already documents.

    Raises:
        StateFileError: (or ``error``) the file is damaged (see :func:`parse_state`) or cannot be read
            (a directory in its place, no permission), naming the file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None  # no such file (ENOTDIR: a folder on its way is a file; whoever uses the home refuses that)
    except OSError as exc:
        raise error(f"{path} {problem} ({exc.strerror or exc})" + (f"; {fix}" if fix else ""), path=path) from exc
    return parse_state(data, model, path=path, problem=problem, fix=fix, error=error)


def write_state(path: Path, state: BaseModel | dict[str, Any]) -> None:
    """Write ``state`` to ``path`` atomically as pretty, key-sorted JSON (:func:`memctl.atomic.atomic_write_json`).

    A model is written with the keys it was given or set (defaults a file never held stay out), so a
    file read and written back keeps its bytes.

    Raises:
        OSError: the directory is not writable or the disk is full; ``path`` is then untouched.
    """
    value = state.model_dump(mode="json", exclude_unset=True) if isinstance(state, BaseModel) else state
    atomic_write_json(Path(path), value)
