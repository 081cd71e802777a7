"""The memory store: many small text files addressed by path, every change versioned and audited.

The storage model is the README's "The memory store". Layout under the store
root (``<home>/store/``)::

    memory/   user/   staging/      public files (prefix = policy, see policy.py)
    versions/<sha[:2]>/<sha>        immutable content-addressed blobs (0444)
    audit/log.jsonl, audit/head.json  hash-chained audit log (see audit.py)
    audit/.lock                     the one write lock (filelock)

A mutation (write, delete, rollback) runs under the lock in this order:

1. read the current sha and check ``expected_sha`` (optimistic concurrency;
   :data:`ABSENT_SHA` means "the file must not exist");
2. ``snapshot``: put the old and the new content into ``versions/``, and
   write the new content to a temp file beside the target (fsynced);
3. ``audit_line``: append + fsync the audit record — the commit point;
4. ``audit_head``: move ``head.json``;
5. ``write``: rename the temp file over the target (or unlink it), fsync
   the directory.

Everything that can fail for lack of space or a bad name happens before the
commit point. A writer killed before 3 changed nothing visible (orphan blobs
are harmless, they are content-addressed; stray temp files are swept).
Killed after 3, the change is committed but perhaps not applied: the next
mutation, or :meth:`MemoryStore.recover` (``memctl audit repair``), rolls it
forward from the blob it recorded, and ``audit verify`` reports it as
pending meanwhile. So no change is ever visible without its audit record,
and no committed record stays unapplied past the next change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from filelock import FileLock, Timeout

from memctl.atomic import atomic_write_bytes, fsync_directory, write_temp_file
from memctl.store import steps
from memctl.store.audit import EVENT_OPS, AuditLog, AuditRecord
from memctl.store.errors import (
    ChangeNotAppliedError,
    ConcurrencyError,
    InvalidContentError,
    InvalidPathError,
    MissingFileError,
    MissingVersionError,
    StoreBusyError,
    StoreError,
    UnknownVersionError,
)
from memctl.store.policy import (
    PUBLIC_PREFIXES,
    TMP_PREFIX,
    check_actor,
    check_may_write,
    check_reason,
    is_canonical,
    normalize_path,
)
from memctl.store.verify import StoreVerification
from memctl.store.versions import VersionBlobs, is_sha256, sha256_bytes

MAX_CONTENT_BYTES = 8 * 1024 * 1024
MIN_VERSION_PREFIX = 6
ABSENT_SHA = "0" * 64  # expected_sha meaning "the file must not exist yet"


@dataclass(frozen=True)
class VersionInfo:
    """One entry of a file's history (one audit record), oldest first in :meth:`MemoryStore.history`.

    ``version`` is the sha256 of the content after the change (the blob name),
    ``None`` for a delete (tombstone).
    """

    seq: int
    time: str
    op: str
    actor: str
    reason: str
    old_sha: str | None
    new_sha: str | None
    version: str | None
    rollback_of: str | None = None

    @classmethod
    def from_record(cls, record: AuditRecord) -> "VersionInfo":
        return cls(seq=record["seq"], time=record["time"], op=record["op"], actor=record["actor"],
                   reason=record["reason"], old_sha=record["old_sha"], new_sha=record["new_sha"],
                   version=record["version"], rollback_of=record.get("rollback_of"))

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class RecoveryReport:
    """What :meth:`MemoryStore.recover` repaired."""

    torn_bytes: int = 0
    rolled_forward: str | None = None
    temp_files_removed: int = 0
    out_of_band: str | None = None
    notes: list[str] = field(default_factory=list)


class MemoryStore(StoreVerification):
    """File-based memory with prefix access policy, versions, audit log and rollback.

    Args:
        root: the store directory (``DataHome.store``); created on first write.
        lock_timeout: seconds to wait for the write lock before
            :class:`StoreBusyError` (writes are milliseconds; waiting is normal).

    Thread- and process-safe: every mutation takes ``audit/.lock`` (filelock,
    an ``flock`` on POSIX). Reads take no lock; files are replaced by rename,
    so a reader sees the old or the new content, never a torn file.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 30.0) -> None:
        self.root = Path(root).expanduser().absolute()
        self.audit = AuditLog(self.root / "audit")
        self.blobs = VersionBlobs(self.root / "versions")
        self.lock_timeout = lock_timeout
        self._lock = FileLock(str(self.root / "audit" / ".lock"))

    # -- paths ------------------------------------------------------------------

    def _file(self, canonical: str) -> Path:
        """Absolute path of a canonical store path, refusing any symlink on the way.

        Symlinks inside the store could point a public path at ``audit/``,
        ``versions/``, ``memory/`` or outside the root, so none are followed.
        """
        current = self.root
        for part in canonical.split("/"):
            current = current / part
            if current.is_symlink():
                raise InvalidPathError(f"invalid store path {canonical!r}: {current} is a symlink; "
                                       "the store never follows symlinks")
        return current

    def resolve(self, path: str) -> tuple[str, Path]:
        """``(canonical path, absolute file path)`` for caller input.

        Raises:
            InvalidPathError: see :func:`memctl.store.policy.normalize_path`; also a symlink on the way.
        """
        canonical = normalize_path(path)
        return canonical, self._file(canonical)

    # -- reads --------------------------------------------------------------------

    @staticmethod
    def _read_bytes(file: Path, canonical: str) -> bytes | None:
        """The file's bytes; None when absent. Only regular files are read (a FIFO would block)."""
        import stat as stat_module

        try:
            mode = os.lstat(file).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat_module.S_ISDIR(mode):
            raise InvalidPathError(f"invalid store path {canonical!r}: it is a directory")
        if not stat_module.S_ISREG(mode):
            raise InvalidPathError(f"invalid store path {canonical!r}: not a regular file")
        try:
            return file.read_bytes()
        except FileNotFoundError:
            return None

    def read_text(self, path: str) -> tuple[str, str]:
        """``(content, sha256)`` of the current file.

        Raises:
            InvalidPathError, MissingFileError, InvalidContentError (not UTF-8).
        """
        canonical, file = self.resolve(path)
        data = self._read_bytes(file, canonical)
        if data is None:
            raise MissingFileError(f"no file at {canonical}")
        try:
            return data.decode("utf-8"), sha256_bytes(data)
        except UnicodeDecodeError as exc:
            raise InvalidContentError(f"{canonical} is not UTF-8 text") from exc

    def sha(self, path: str) -> str | None:
        """Current sha256 of the file, or None when it does not exist."""
        canonical, file = self.resolve(path)
        data = self._read_bytes(file, canonical)
        return None if data is None else sha256_bytes(data)

    def exists(self, path: str) -> bool:
        """True when a file exists at ``path``."""
        return self.sha(path) is not None

    def list(self, prefix: str = "") -> list[str]:
        """Sorted canonical paths of the files under ``prefix`` (``""``: all public prefixes).

        Hidden names (temp files), symlinks, non-regular files and names the
        path policy would refuse (placed by hand) are never listed.

        Raises:
            InvalidPathError: a bad prefix (``audit/``, ``..``, …).
        """
        canonical = normalize_path(prefix, prefix_only=True)
        starts = [canonical] if canonical else list(PUBLIC_PREFIXES)
        found: list[str] = []
        for start in starts:
            if not canonical and (self.root / start).is_symlink():
                continue  # never followed; `audit verify --deep` reports it
            base = self._file(start) if start else self.root
            if base.is_file():
                found.append(start)
                continue
            found.extend(self._walk(base, start))
        return sorted(found)

    def _walk(self, directory: Path, rel: str) -> Iterator[str]:
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            child = f"{rel}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                yield from self._walk(Path(entry.path), child)
            elif entry.is_file(follow_symlinks=False) and is_canonical(child):
                yield child  # names the API cannot address (placed by hand) are left to `audit verify --deep`

    def history(self, path: str) -> list[VersionInfo]:
        """Every recorded change of ``path``, oldest first (empty for a path never written).

        Raises:
            InvalidPathError.
        """
        canonical = normalize_path(path)
        return [VersionInfo.from_record(r) for r in self.audit.records(path=canonical)]

    def resolve_version(self, path: str, version_id: str) -> str:
        """The full version sha that ``version_id`` (full or a ≥6-char prefix) names in ``path``'s history
        (a recorded new content, or a recorded prior content).

        Raises:
            UnknownVersionError: no version, or several, of this path match.
        """
        canonical = normalize_path(path)
        wanted = (version_id or "").strip().lower()
        if len(wanted) < MIN_VERSION_PREFIX:
            raise UnknownVersionError(f"version id {version_id!r} is too short; give at least "
                                      f"{MIN_VERSION_PREFIX} characters (see `memctl history {canonical}`)")
        # Versions written by the store, and the contents it snapshotted before each change
        # (files that predate the store, or were edited by hand) — all are blobs in versions/.
        known = {sha for v in self.history(canonical) for sha in (v.version, v.old_sha) if sha}
        matches = {sha for sha in known if sha.startswith(wanted)}
        if not matches:
            raise UnknownVersionError(f"{canonical} has no version {version_id!r} (see `memctl history {canonical}`)")
        if len(matches) > 1:
            raise UnknownVersionError(f"version id {version_id!r} is ambiguous for {canonical}; give more characters")
        return matches.pop()

    def read_version(self, path: str, version_id: str) -> str:
        """Content of one version of ``path`` (verified against its hash).

        Raises:
            UnknownVersionError, MissingFileError (blob gone), CorruptVersionError.
        """
        sha = self._unpurged(self.resolve_version(path, version_id))
        return self.blobs.read(sha).decode("utf-8")

    def purged_blobs(self) -> dict[str, str | None]:
        """Every blob a purge record (:mod:`memctl.store.purge`) names: old sha → the sha of its
        redacted replacement (None: removed), a replacement purged again followed to its end."""
        mapping: dict[str, str | None] = {}
        for record in self.audit.records():
            if record["op"] != "purge":  # the same content written again after its purge is live again
                for sha in (record["version"], record["old_sha"]):
                    mapping.pop(sha, None)
            mapping.update(record.get("replaced") or {})
        for old in list(mapping):
            seen, new = {old}, mapping[old]
            while new in mapping and new not in seen:
                seen.add(new)
                new = mapping[new]
            mapping[old] = new
        return mapping

    def _unpurged(self, sha: str) -> str:
        """The blob that holds ``sha``'s content now: its redacted replacement after a purge.

        Raises:
            MissingVersionError: the version was purged without a replacement.
        """
        purged = self.purged_blobs() if not self.blobs.has(sha) else {}
        if sha not in purged:
            return sha
        if purged[sha] is None:
            raise MissingVersionError(f"version {sha[:12]} was purged (`memctl purge`)")
        return purged[sha]

    # -- mutations ------------------------------------------------------------------

    def write_text(self, path: str, content: str, *, expected_sha: str | None = None, actor: str,
                   reason: str) -> str:
        """Write ``content`` to ``path``; return its sha256.

        Writing the content the file already holds is a no-op (no version, no
        audit record) so that re-running a job changes nothing.

        Args:
            expected_sha: the sha the caller read (``read_text``); :data:`ABSENT_SHA`
                when the file must not exist yet; None skips the check.
            actor: who writes (policy.WRITERS decides where).
            reason: one sentence for the audit log.

        Raises:
            InvalidPathError, ReadOnlyPrefixError, InvalidContentError (not a
            str, lone surrogates, over 8 MiB, bad actor/reason),
            ConcurrencyError (carries ``current_sha``), StoreBusyError,
            AuditIntegrityError.
        """
        canonical, file = self.resolve(path)
        check_actor(actor)
        check_may_write(canonical, actor)
        check_reason(reason)
        data = self._encode(content, canonical)
        self._check_expected(expected_sha)
        with self._locked():
            return self._commit(canonical, file, data, op="write", actor=actor, reason=reason,
                                expected_sha=expected_sha)

    def delete(self, path: str, *, expected_sha: str | None, actor: str, reason: str) -> None:
        """Remove ``path``, recording a tombstone (the content stays in ``versions/``).

        Raises:
            MissingFileError when there is nothing to delete; otherwise as :meth:`write_text`.
        """
        canonical, file = self.resolve(path)
        check_actor(actor)
        check_may_write(canonical, actor)
        check_reason(reason)
        self._check_expected(expected_sha)
        with self._locked():
            self._commit(canonical, file, None, op="delete", actor=actor, reason=reason, expected_sha=expected_sha)

    def rollback(self, path: str, version_id: str, *, actor: str, reason: str,
                 expected_sha: str | None = None) -> str:
        """Make ``path`` hold the content of ``version_id`` again; return the sha.

        A rollback is an ordinary new change (op ``rollback``, with
        ``rollback_of``): versioned, audited, and itself undoable. Restores
        deleted files too. A no-op when the file already holds that content.

        Raises:
            UnknownVersionError, CorruptVersionError; otherwise as :meth:`write_text`.
        """
        canonical, file = self.resolve(path)
        check_actor(actor)
        check_may_write(canonical, actor)
        check_reason(reason)
        self._check_expected(expected_sha)
        sha = self._unpurged(self.resolve_version(canonical, version_id))
        data = self.blobs.read(sha)
        with self._locked():
            return self._commit(canonical, file, data, op="rollback", actor=actor, reason=reason,
                                expected_sha=expected_sha, rollback_of=sha)

    def record_event(self, op: str, subject: str, *, actor: str, reason: str) -> int:
        """Append an event that changes no store file (``op`` in ``EVENT_OPS``, e.g. ``relocate``) to
        the audit chain, under the store's lock; returns its ``seq``. ``subject`` names what changed,
        relative to the data home (``cognee/system/databases/cognee_db``).

        Raises:
            InvalidContentError: unknown event op, bad actor/reason or subject; StoreBusyError;
            AuditIntegrityError.
        """
        if op not in EVENT_OPS:
            raise InvalidContentError(f"unknown audit event {op!r}; events are {', '.join(EVENT_OPS)}")
        if not isinstance(subject, str) or not subject or subject.startswith("/"):
            raise InvalidContentError(f"an event's subject is a path relative to the data home, got {subject!r}")
        check_actor(actor)
        check_reason(reason)
        with self._locked():
            record = self.audit.append({"op": op, "path": subject, "actor": actor, "reason": reason,
                                        "old_sha": None, "new_sha": None, "version": None}, self.audit.last_record())
            self.audit.advance_head(record)
            return int(record["seq"])

    def recover(self) -> RecoveryReport:
        """Repair what a killed or failed writer left (see the module doc); safe to call any time.

        Raises:
            AuditIntegrityError: the end of the log and its head disagree.
            StoreBusyError: the lock stayed busy.
        """
        with self._locked() as report:
            return report

    # -- internals ------------------------------------------------------------------

    @staticmethod
    def _encode(content: str, canonical: str) -> bytes:
        if not isinstance(content, str):
            raise InvalidContentError(f"content for {canonical} must be str, not {type(content).__name__}")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidContentError(f"content for {canonical} is not valid Unicode text ({exc.reason})") from exc
        if len(data) > MAX_CONTENT_BYTES:
            raise InvalidContentError(f"content for {canonical} is {len(data)} bytes; the store keeps files up to "
                                      f"{MAX_CONTENT_BYTES} bytes")
        return data

    @staticmethod
    def _check_expected(expected_sha: str | None) -> None:
        if expected_sha is not None and not is_sha256(expected_sha):
            raise InvalidContentError(f"expected_sha must be a 64-char lowercase sha256, got {expected_sha!r}")

    class _Locked:
        def __init__(self, store: "MemoryStore") -> None:
            self.store = store

        def __enter__(self) -> RecoveryReport:
            store = self.store
            (store.root / "audit").mkdir(parents=True, exist_ok=True)
            try:
                store._lock.acquire(timeout=store.lock_timeout)
            except Timeout as exc:
                raise StoreBusyError(f"the memory store at {store.root} is locked by another writer for more "
                                     f"than {store.lock_timeout:.0f} s; try again") from exc
            try:
                return store._repair()
            except BaseException:
                store._lock.release()
                raise

        def __exit__(self, *exc_info: object) -> None:
            self.store._lock.release()

    def _locked(self) -> "MemoryStore._Locked":
        return MemoryStore._Locked(self)

    def _repair(self) -> RecoveryReport:
        """Under the lock: make the audit tail consistent and apply a committed-but-unapplied change."""
        report = RecoveryReport()
        size_before = self.audit.log.stat().st_size if self.audit.log.exists() else 0
        last = self.audit.check_tail()
        report.torn_bytes = size_before - (self.audit.log.stat().st_size if self.audit.log.exists() else 0)
        report.temp_files_removed = self.blobs.sweep_temp_files() + self.audit.sweep_temp_files()
        if last is None or last["op"] in EVENT_OPS:  # an event has no file to apply
            return report
        canonical = last["path"]
        try:
            file = self._file(canonical)
            report.temp_files_removed += _sweep_temp_files(file.parent)
            data = self._read_bytes(file, canonical)
        except InvalidPathError as exc:
            report.out_of_band = str(exc)
            return report
        current = None if data is None else sha256_bytes(data)
        if current == last["new_sha"]:
            return report
        if current == last["old_sha"]:
            self._apply(file, None if last["new_sha"] is None else self.blobs.read(last["new_sha"]))
            report.rolled_forward = f"seq {last['seq']} ({last['op']} {canonical})"
        else:
            # Changed behind the store's back; never overwrite it blindly. `audit verify --deep` names it.
            report.out_of_band = f"{canonical} does not match its last audit record (seq {last['seq']})"
        return report

    @staticmethod
    def _apply(file: Path, data: bytes | None) -> None:
        if data is None:
            file.unlink(missing_ok=True)
        else:
            atomic_write_bytes(file, data, tmp_prefix=TMP_PREFIX)
        fsync_directory(file.parent)

    def pending(self) -> str | None:
        """A committed change not yet applied to its file (a writer failed or was killed after the
        commit point), described; None when the store is consistent. Read-only, takes no lock."""
        try:
            last = self.audit.last_record()
        except StoreError:
            return None
        if last is None or last["op"] in EVENT_OPS:
            return None
        try:
            canonical, file = self.resolve(last["path"])
            data = self._read_bytes(file, canonical)
        except StoreError:
            return None
        current = None if data is None else sha256_bytes(data)
        if current != last["new_sha"] and current == last["old_sha"]:
            return (f"seq {last['seq']} ({last['op']} {last['path']}) is recorded but not yet applied; "
                    "the next change or `memctl audit repair` applies it")
        return None

    def _commit(self, canonical: str, file: Path, data: bytes | None, *, op: str, actor: str, reason: str,
                expected_sha: str | None, rollback_of: str | None = None) -> str:
        """Steps 1–5 of the module doc; caller holds the lock. ``data`` None means delete."""
        old = self._read_bytes(file, canonical)
        old_sha = None if old is None else sha256_bytes(old)
        if expected_sha is not None and expected_sha != (old_sha or ABSENT_SHA):
            raise ConcurrencyError(canonical, expected_sha, old_sha)
        if data is None and old is None:
            raise MissingFileError(f"no file at {canonical} to delete")
        new_sha = None if data is None else sha256_bytes(data)
        if new_sha is not None and new_sha == old_sha:
            return new_sha
        staged: str | None = None
        try:
            if data is not None:
                staged = self._stage(file, data, canonical)
            if old is not None:
                self.blobs.put(old)  # files that predate the store get their first version here
            if data is not None:
                self.blobs.put(data)
            steps.reached("snapshot")
            fields: dict[str, Any] = {"op": op, "path": canonical, "actor": actor, "reason": reason,
                                      "old_sha": old_sha, "new_sha": new_sha, "version": new_sha}
            if rollback_of is not None:
                fields["rollback_of"] = rollback_of
            record = self.audit.append(fields, self.audit.last_record())
        except BaseException:
            if staged is not None:
                Path(staged).unlink(missing_ok=True)
            raise
        # Committed. From here a failure leaves a recorded change that recovery applies.
        try:
            self.audit.advance_head(record)
            if data is None:
                file.unlink()
            else:
                os.replace(staged, file)
            fsync_directory(file.parent)
        except OSError as exc:
            if staged is not None:
                Path(staged).unlink(missing_ok=True)  # recovery applies the change from its blob
            raise ChangeNotAppliedError(canonical, record["seq"], exc) from exc
        steps.reached("write")
        return new_sha if new_sha is not None else ""

    @staticmethod
    def _stage(file: Path, data: bytes, canonical: str) -> str:
        """Write ``data`` to a fsynced temp file beside ``file`` (before the commit point); return its name."""
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise InvalidPathError(f"invalid store path {canonical!r}: a parent of it is a file") from exc
        _sweep_temp_files(file.parent)  # left by a writer killed before its commit point (we hold the lock)
        return write_temp_file(file.parent, data, prefix=TMP_PREFIX)


def _sweep_temp_files(directory: Path) -> int:
    """Remove the store's temp files in ``directory`` (caller holds the lock); returns how many."""
    removed = 0
    for stale in directory.glob(f"{TMP_PREFIX}*.tmp"):
        stale.unlink(missing_ok=True)
        removed += 1
    return removed
