"""One clear line for an ``OSError``: the path and what is wrong with it, never ``[Errno 20] …`` or a class name.

Used wherever a file-system error becomes a message for a person: the CLI's error boundary (the data home),
``doctor``'s write probe, the secret file of ``purge``. The wording per ``errno`` follows the POSIX meaning of
each code (``errno(3)``); an unknown code keeps the system's own text (``strerror``).
"""

from __future__ import annotations

import errno
from pathlib import Path

_REASONS = {
    errno.ENOENT: "does not exist",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.EISDIR: "is a directory, not a file",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "is on a read-only file system",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "disk quota exceeded",
    errno.EEXIST: "already exists",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many symbolic links",
}


def reason(exc: OSError) -> str:
    """What is wrong, in words (``"does not exist"``, ``"permission denied"``, …), without the path."""
    return _REASONS.get(exc.errno or -1) or exc.strerror or type(exc).__name__


def _file_in_the_way(path: Path) -> Path | None:
    """The first ancestor of ``path`` that exists and is not a directory (what makes ``ENOTDIR``), or None."""
    for ancestor in reversed(path.parents):
        if ancestor.exists() and not ancestor.is_dir():
            return ancestor
    return None


def describe(exc: OSError, path: Path | str | None = None) -> str:
    """``"<path>: <reason>"`` for ``exc``; ``path`` when the error names none (``exc.filename`` wins).

    ``ENOTDIR`` names the file standing where a directory belongs (``/etc/hostname is a file, not a
    directory``), not the path below it that could not be made.
    """
    name = exc.filename if exc.filename is not None else path
    if name is None:
        return reason(exc)
    target = Path(str(name))
    if exc.errno == errno.ENOTDIR:
        blocker = _file_in_the_way(target)
        if blocker is not None:
            return f"{blocker} is a file, not a directory (needed for {target})"
    return f"{target}: {reason(exc)}"
