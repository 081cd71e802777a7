"""The errors of memctl's Cognee layer, and the dataset-name rule.

Dataset names: Cognee rejects names containing ``.`` or a space
(``cognee/modules/data/methods/check_dataset_name.py``, 1.6.5) and uses the
name only to derive the dataset UUID (files on disk are named by UUID).
memctl topic slugs (``[a-z0-9][a-z0-9_-]*``) always pass;
:func:`validate_dataset_name` also refuses any whitespace, ``/``, ``\\`` and
names longer than 255 characters.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memctl.exit_codes import ADD_FAILED, COGNIFY_FAILED, USAGE, ExitCodeError

MAX_DATASET_NAME = 255
_BAD_NAME_RE = re.compile(r"[.\s/\\]")


class GraphMemoryError(ExitCodeError, RuntimeError):
    """Base class of every error the graph layer raises; reaching the CLI it is one line and
    its ``exit_code`` (1 unless a subclass says otherwise), never a traceback."""


class GraphConfigError(GraphMemoryError):
    """Cognee is not configured (call ``configure``) or the settings are invalid (exit 2)."""

    exit_code = USAGE


class InvalidDatasetName(GraphMemoryError, ValueError):
    """A dataset name Cognee would reject (see the module doc for the rule; exit 2)."""

    exit_code = USAGE


class AddBatchError(GraphMemoryError):
    """One batch of ``add_notes`` failed for a reason no single note explains (the model
    server, the stores): nothing of that batch was added (exit 4).

    Attributes:
        dataset: the dataset name.
        batch_index: 1-based index of the failed batch.
        batch_count: number of batches in the call.
        paths: the notes of the failed batch. Earlier batches were added
            (adding again is a no-op), later ones were not attempted.
    """

    exit_code = ADD_FAILED

    def __init__(self, message: str, *, dataset: str, batch_index: int, batch_count: int,
                 paths: list[Path]) -> None:
        super().__init__(message)
        self.dataset = dataset
        self.batch_index = batch_index
        self.batch_count = batch_count
        self.paths = paths


class CognifyError(GraphMemoryError):
    """A cognify run failed for a reason no single note explains; ``datasets`` names what
    was asked for, ``rejected`` the notes rejected before the failure (``NoteRejection``; exit 5)."""

    exit_code = COGNIFY_FAILED

    def __init__(self, message: str, *, datasets: list[str], rejected: list[Any] | None = None) -> None:
        super().__init__(message)
        self.datasets = datasets
        self.rejected = list(rejected or [])


def validate_dataset_name(name: str) -> str:
    """Return ``name`` if Cognee accepts it as a dataset name, else raise.

    Raises:
        InvalidDatasetName: empty, longer than 255 characters, or containing
            ``.``, whitespace, ``/`` or ``\\``.
    """
    if not isinstance(name, str) or not name or len(name) > MAX_DATASET_NAME or _BAD_NAME_RE.search(name):
        raise InvalidDatasetName(
            f"invalid dataset name {name!r}: Cognee rejects '.' and spaces; memctl also rejects "
            "other whitespace, '/' and '\\' (use a slug such as 'my-project')"
        )
    return name
