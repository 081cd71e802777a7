"""Content-addressed, immutable version blobs: ``versions/<sha[:2]>/<sha>``.

Every content the store ever held is kept once, named by its SHA-256, with
mode 0444. Because the name is the hash, a blob can be written twice without
harm and checked at any time (:meth:`VersionBlobs.read` re-hashes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from memctl.atomic import rename_into_place, write_temp_file
from memctl.store.errors import CorruptVersionError, MissingVersionError

_HEX = set("0123456789abcdef")


def sha256_bytes(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data`` (64 chars)."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Lowercase hex SHA-256 of UTF-8 ``text`` (what the store records for a text file of that content)."""
    return sha256_bytes(text.encode("utf-8"))


def is_sha256(value: object) -> bool:
    """True for a 64-char lowercase hex string."""
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


class VersionBlobs:
    """The ``versions/`` directory of a store.

    Temp files live in ``versions/.incoming/`` (one place to sweep after a crash)
    and are renamed into place, so a blob is either absent or complete.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.tmp = self.root / ".incoming"

    def path(self, sha: str) -> Path:
        """Where the blob for ``sha`` lives (whether or not it exists)."""
        return self.root / sha[:2] / sha

    def has(self, sha: str) -> bool:
        """True when the blob exists."""
        return self.path(sha).is_file()

    def put(self, data: bytes) -> str:
        """Store ``data`` (idempotent) and return its sha256.

        Raises:
            OSError: disk full or not writable; no partial blob is left.
        """
        sha = sha256_bytes(data)
        target = self.path(sha)
        if target.is_file():
            try:
                if sha256_bytes(target.read_bytes()) == sha:
                    return sha
            except OSError:
                pass
            target.chmod(0o644)  # a blob modified behind the store's back: heal it with the true content
        self.tmp.mkdir(parents=True, exist_ok=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        rename_into_place(write_temp_file(self.tmp, data, prefix=f".{sha[:12]}.", mode=0o444), target)
        return sha

    def read(self, sha: str) -> bytes:
        """The blob's bytes, verified against its name.

        Raises:
            MissingVersionError: no such blob.
            CorruptVersionError: the bytes do not hash to ``sha``.
        """
        try:
            data = self.path(sha).read_bytes()
        except FileNotFoundError as exc:
            raise MissingVersionError(f"version {sha[:12]} is missing from versions/ (run `memctl audit verify --deep`)") from exc
        if sha256_bytes(data) != sha:
            raise CorruptVersionError(f"version blob {sha[:12]} was modified on disk: its content no longer matches its hash")
        return data

    def sweep_temp_files(self) -> int:
        """Delete temp files a killed writer left behind; returns how many. Caller holds the store lock."""
        removed = 0
        if self.tmp.is_dir():
            for stale in self.tmp.iterdir():
                stale.unlink(missing_ok=True)
                removed += 1
        return removed
