"""How the OpenCode database can be opened without writing to it and without torn reads.

SQLite facts this rests on (https://www.sqlite.org/fileformat2.html,
https://www.sqlite.org/lockingv3.html, https://www.sqlite.org/wal.html):

* Bytes 18-19 of the database header are 2 in WAL mode, 1 in rollback-journal
  mode; the mode persists in the file.
* Rollback-journal mode: readers and writers coordinate by POSIX locks on the
  lock bytes at offset 0x40000000 (PENDING, RESERVED, then the 510-byte
  SHARED range). A ``mode=ro`` reader takes a SHARED lock and creates no
  file, so it always reads with locks. A writer in the middle of a commit
  leaves a *hot* ``-journal`` whose header starts with the journal magic.
* WAL mode: every open connection has the ``-wal`` file; the last one to
  close deletes it (OpenCode idle). A ``mode=ro`` open without the ``-wal``
  would create ``-wal``/``-shm`` beside the user's database, so that case is
  opened ``immutable=1``, which takes no lock at all: it is used only when the
  lock bytes are free (no process holds any SQLite lock) and no hot journal
  exists, i.e. no writer can be active.

Every probe here opens, reads and closes the database file without locking
it. Closing any descriptor of a file drops this process's POSIX locks on it,
so the caller probes only while it holds no SQLite lock on the file (no
``-wal``: no WAL connection of ours can be open).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
"""The first 8 bytes of a rollback journal that still has to be played back (a hot journal)."""

_LOCK_BYTES_START = 0x40000000  # SQLite's PENDING byte; RESERVED and the SHARED range follow
_LOCK_BYTES_LEN = 2 + 510

WAL = "wal"
"""A ``-wal`` is beside the database: open ``mode=ro`` (SQLite's WAL locking)."""
LOCKING = "locking"
"""Rollback-journal database: open ``mode=ro``; SQLite's SHARED lock keeps every read whole."""
IMMUTABLE = "immutable"
"""WAL database, OpenCode idle (no ``-wal``, no lock held, no hot journal): ``immutable=1``."""


class WriterActive(Exception):
    """A writer may be active on a WAL-mode database with no ``-wal`` (a lock is held or a
    hot journal exists): it can be opened neither immutably nor with locks without
    creating files. The message is user-facing."""


def has_hot_journal(db_path: Path) -> bool:
    """True when ``<db>-journal`` starts with the journal magic (a commit in progress, or a
    writer that died mid-commit; a ``PERSIST``/``TRUNCATE`` journal at rest has no magic)."""
    try:
        with open(str(db_path) + "-journal", "rb") as journal:
            return journal.read(len(JOURNAL_MAGIC)) == JOURNAL_MAGIC
    except OSError:
        return False


def is_wal_database(db_path: Path) -> bool:
    """True when the header says WAL mode (bytes 18-19 == 2); a short or unreadable file is not."""
    try:
        with open(db_path, "rb") as db:
            header = db.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == 2 and header[19] == 2


def _flock_layout() -> str | None:
    """``struct flock`` of this platform as a struct format, or None when unknown."""
    if sys.platform.startswith("linux"):
        return "hhqqi4x"  # l_type, l_whence, l_start, l_len, l_pid (+ padding to 32 bytes)
    if sys.platform == "darwin" or "bsd" in sys.platform:
        return "qqihh8x"  # l_start, l_len, l_pid, l_type, l_whence (+ room for FreeBSD's l_sysid)
    return None


def lock_holder(db_path: Path) -> int | None:
    """The pid of a process holding any SQLite lock on ``db_path`` (``F_GETLK`` over the
    lock bytes: tests for a conflicting lock without taking one), 0 when the holder's pid
    is not reported, None when no lock is held or the platform has no such probe."""
    layout = _flock_layout()
    try:
        import fcntl
    except ImportError:  # no POSIX locks: nothing to probe
        return None
    if layout is None:
        return None
    if layout.startswith("hh"):
        request = struct.pack(layout, fcntl.F_WRLCK, os.SEEK_SET, _LOCK_BYTES_START, _LOCK_BYTES_LEN, 0)
    else:
        request = struct.pack(layout, _LOCK_BYTES_START, _LOCK_BYTES_LEN, 0, fcntl.F_WRLCK, os.SEEK_SET)
    try:
        fd = os.open(db_path, os.O_RDONLY)
    except OSError:
        return None
    try:
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, request)
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = struct.unpack(layout, answer)
    lock_type, pid = (fields[0], fields[4]) if layout.startswith("hh") else (fields[3], fields[2])
    return None if lock_type == fcntl.F_UNLCK else max(pid, 0)


def read_mode(db_path: Path) -> str:
    """How to open ``db_path`` now: :data:`WAL`, :data:`LOCKING` or :data:`IMMUTABLE`.

    Raises:
        WriterActive: a WAL-mode database without ``-wal`` on which a lock is
            held or a hot journal exists (a writer is starting or changing
            the journal mode); retry shortly.
    """
    if Path(str(db_path) + "-wal").exists():
        return WAL
    if not is_wal_database(db_path):
        return LOCKING
    if has_hot_journal(db_path):
        raise WriterActive(f"{db_path} has a hot rollback journal ({db_path}-journal): a write is in progress")
    holder = lock_holder(db_path)
    if holder is not None:
        who = f"process {holder}" if holder else "another process"
        raise WriterActive(f"{who} holds a lock on {db_path}")
    return IMMUTABLE
