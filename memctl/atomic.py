"""Crash-safe file writes: temp file in the same directory, fsync, rename, fsync dir.

A reader (or a process restarted after SIGKILL) sees either the old file or
the complete new one, never a torn write. POSIX ``rename(2)`` is atomic within
one filesystem, which is why the temp file lives beside the target.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def fsync_directory(directory: Path) -> None:
    """fsync ``directory`` so a rename inside it survives power loss (no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_temp_file(directory: Path, data: bytes, *, prefix: str, mode: int = 0o644) -> str:
    """Write ``data`` to a new ``<prefix><random>.tmp`` in ``directory``, fsynced, with ``mode``; return its path.

    The caller renames it into place (same directory or file system). On any
    failure the temp file is removed and the error re-raised.

    Raises:
        OSError: the directory is not writable, the disk is full, or the name is too long.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return tmp_name


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o644, tmp_prefix: str | None = None) -> None:
    """Write ``data`` to ``path`` atomically, creating parent directories.

    The temp file is ``.<name>.<random>.tmp`` beside the target, or
    ``<tmp_prefix><random>.tmp`` when given (short names leave room for
    targets whose own name is near NAME_MAX, 255 bytes).

    Raises:
        OSError: when the directory is not writable or the disk is full; the
            target is then untouched and no temp file is left behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = tmp_prefix if tmp_prefix is not None else f".{path.name}."
    rename_into_place(write_temp_file(path.parent, data, prefix=prefix, mode=mode), path)


def rename_into_place(tmp_name: str, target: Path) -> None:
    """``os.replace`` a finished temp file onto ``target`` and fsync the directory.

    Raises:
        OSError: the rename failed; the temp file is removed and ``target`` is untouched.
    """
    try:
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    fsync_directory(Path(target).parent)


def atomic_write_text(path: Path, text: str, *, mode: int = 0o644) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def atomic_write_json(path: Path, value: Any) -> None:
    """Write ``value`` as pretty, key-sorted JSON atomically."""
    atomic_write_text(path, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
