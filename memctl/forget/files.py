"""Rewriting plain files of the data home: redacted in place, atomically, or deleted."""

from __future__ import annotations

from pathlib import Path

from memctl.atomic import atomic_write_bytes, fsync_directory
from memctl.forget.needles import redact


def redact_file(path: Path, needles: list[bytes]) -> int:
    """Replace every needle in ``path`` by the marker (temp file, fsync, rename; mode kept);
    returns the replacements made (0: the file is unchanged or gone)."""
    try:
        data = path.read_bytes()
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0
    redacted, count = redact(data, needles)
    if count:
        atomic_write_bytes(path, redacted, mode=mode)
    return count


def delete_file(path: Path) -> bool:
    """Delete ``path`` and fsync its directory; True when it existed."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    fsync_directory(path.parent)
    return True
