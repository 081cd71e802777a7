"""Whether ingest or sleep holds the data home's lock, asked without taking it.

``DataHome.lock`` is a ``filelock.FileLock`` on ``<home>/.memctl.lock``, which
on Unix is ``flock(LOCK_EX)``. The server must never make a scheduled ingest
or sleep fail (they exit 6 when the lock is busy), so it does not try the lock
itself: on Linux it reads the kernel's lock table (``/proc/locks``, format in
proc(5): ``id: FLOCK ADVISORY WRITE pid MAJ:MIN:INODE start end``); elsewhere
it tries a shared ``flock`` without blocking and drops it at once (a window of
microseconds in which a non-waiting ingest would see the home busy).
"""

from __future__ import annotations

import os
from pathlib import Path

PROC_LOCKS = Path("/proc/locks")


def _held_in_proc_locks(st: os.stat_result, table: str) -> bool:
    """True when ``table`` (``/proc/locks`` text) lists a granted FLOCK on the file ``st`` describes."""
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] == "->":  # "->" lines are waiters, not holders
            continue
        if fields[1] != "FLOCK":
            continue
        try:
            major, minor, inode = fields[5].split(":")
            if int(inode) == st.st_ino and (int(major, 16), int(minor, 16)) == (os.major(st.st_dev), os.minor(st.st_dev)):
                return True
        except ValueError:
            continue
    return False


def _held_by_probe(lock_file: Path) -> bool:
    import fcntl

    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def home_busy(lock_file: Path) -> bool:
    """Whether another process holds ``lock_file`` (``DataHome.lock_file``) exclusively; never takes it.

    A missing lock file is not busy. Unreadable ``/proc/locks`` falls back to the probe.
    """
    try:
        st = os.stat(lock_file)
    except OSError:
        return False
    try:
        table = PROC_LOCKS.read_text(encoding="ascii", errors="replace")
    except OSError:
        return _held_by_probe(lock_file)
    return _held_in_proc_locks(st, table)
