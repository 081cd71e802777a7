"""Export a data home to one ``.tar.zst`` file, and import it elsewhere (another path or machine).

Format (memctl's own, version 1): a POSIX tar stream compressed with
Zstandard (``zstandard``, one frame). The first member is
``memctl-export.json`` (``{"format": 1, "memctl": "<version>", "created":
"<UTC ISO>", "root": "<the exported home>", "files": N}``); then the home's
files with paths relative to the home, regular files and directories only.

What goes in — what ``ask`` and ``sleep`` need to work without a re-ingest
(:data:`INCLUDED`, a list of :class:`~memctl.config.DataHome` paths): the
memory store (notes, user memories, staging, versions, audit log), the
distilled notes, the ingest checkpoint, skipped list, topic registry and
index, sleep state, Cognee rejections, the graph's embedding record, the home's location record, and
Cognee's stores (relational database, Kuzu graphs, LanceDB vectors, its
text copies). Everything else stays out, whatever it is called, so a file
a later memctl adds to the home is left out until it is named here: logs
(library lines), reports, the scrubbed transcripts (more of each session
than the store keeps), caches and indexes (rebuilt on use), lock files,
temp files, sockets, and — under ``cognee/`` — its logs, caches, tiktoken
copy, ``cognee.env`` (rewritten on open) and pipeline locks. So the export
holds nothing the store and the graph do not already hold.

Consistency: the export holds the data-home lock (no ingest or sleep
writes meanwhile) and the store's own lock (no ``remember`` or ``ask
--propose`` appends to the audit log meanwhile); Cognee's SQLite database is
copied with SQLite's backup API, so an ``ask`` writing its query log cannot
tear it.

Import refuses a target that is a file or a non-empty directory, extracts
into a fresh directory beside the target (regular files and directories
only, under the top-level names an export writes; absolute names, ``..``,
links and device files refused, and tarfile's ``data`` filter on top),
requires the memory store and its audit log, then renames it into place and
relocates the home's Cognee paths to it
(:func:`memctl.graph.relocate.ensure_location`, recorded in the audit log;
every stored path must then lie inside the new home). Any failure removes
the temporary directory, and a failed relocation renames the home back out
of place first: nothing is left behind.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Iterator

from memctl.atomic import fsync_directory
from memctl.config import DataHome
from memctl.exit_codes import HOME, USAGE, ExitCodeError

__all__ = ["ArchiveError", "ExportResult", "ImportResult", "export_home", "import_home", "included_paths"]

MANIFEST = "memctl-export.json"
FORMAT = 1
SUFFIXES = (".tar.zst", ".tzst")
# Under cognee/: what Cognee rebuilds or rewrites on open, and its own logs and locks.
_COGNEE_LEFT_OUT = ("logs", "cache", "tiktoken", "cognee.env", "system/pipeline_run_locks")
_SQLITE_BACKUP = ("system/databases/cognee_db",)


class ArchiveError(ExitCodeError):
    """An export or import that cannot be done: bad archive or path (exit 2), target not empty (exit 7)."""

    exit_code = USAGE


@dataclass
class ExportResult:
    """What :func:`export_home` wrote: the archive path, files and bytes in it, its size, seconds taken."""

    archive: str
    home: str
    files: int
    bytes_in: int
    archive_bytes: int
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ImportResult:
    """What :func:`import_home` did: the new home, files extracted, where it was exported from, the
    relocation (values rewritten, audit seq), whether the audit chain verifies."""

    home: str
    files: int
    exported_from: str
    relocated_values: int
    relocation_audit_seq: int | None
    audit_ok: bool
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def included_paths(home: DataHome) -> list[Path]:
    """The top-level entries of ``home`` an export holds (see the module doc; missing ones are skipped)."""
    return [home.store, home.cognee, home.distilled, home.progress, home.skipped, home.topics, home.topic_index,
            home.sleep_state, home.graph_rejections, home.graph_embedding, home.location]


# The names an export may hold at its top level (besides the manifest): those of included_paths.
_TOP_LEVEL = frozenset(path.name for path in included_paths(DataHome(Path("/home"))))


def _left_out(relative: PurePosixPath) -> bool:
    """Whether a path (relative to the home) stays out although under an included entry."""
    name = relative.name
    if name.startswith(".") and (name.endswith(".lock") or name.endswith(".tmp")):
        return True  # lock files and the temp files of a killed writer
    if name.endswith(".lock") and relative.parts[0] == "cognee":
        return True
    if relative.parts[0] == "cognee" and len(relative.parts) > 1:
        inside = PurePosixPath(*relative.parts[1:]).as_posix()
        return any(inside == p or inside.startswith(p + "/") for p in _COGNEE_LEFT_OUT)
    return False


def _files(home: DataHome) -> Iterator[tuple[Path, PurePosixPath]]:
    """Regular files and directories to export, sorted, with their names in the archive."""
    for top in included_paths(home):
        if top.is_symlink() or not top.exists():
            continue
        if top.is_file():
            yield top, PurePosixPath(top.name)
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            base = Path(dirpath)
            relative_dir = PurePosixPath(base.relative_to(home.root).as_posix())
            if _left_out(relative_dir):
                dirnames.clear()
                continue
            yield base, relative_dir
            for name in sorted(filenames):
                path = base / name
                relative = relative_dir / name
                if path.is_symlink() or not path.is_file() or _left_out(relative):
                    continue  # the store never follows links; sockets and FIFOs are nobody's data
                yield path, relative


def export_home(home: DataHome, archive: Path, *, wait: bool = False, overwrite: bool = False,
                level: int = 10) -> ExportResult:
    """Write ``home`` to ``archive`` (``.tar.zst``; temp file beside it, fsync, rename).

    Args:
        wait: wait for a running ingest or sleep instead of failing (exit 6).
        overwrite: replace an existing ``archive`` (otherwise refused).
        level: Zstandard compression level (1–22).

    Raises:
        ArchiveError: no memory store in ``home`` (7); ``archive`` does not end in ``.tar.zst`` or ``.tzst``,
            is a directory, exists, or lies inside the home (2); it cannot be written (7).
        HomeBusyError: another ingest or sleep holds the home and ``wait`` is false (6).
    """
    import zstandard

    from memctl.store import MemoryStore

    started = time.monotonic()
    home.refuse_file()
    archive = Path(archive).expanduser().absolute()
    if not home.store.is_dir():
        raise ArchiveError(f"{home.root} holds no memory store (nothing to export); pass --home DIR", HOME)
    if archive.is_dir():
        raise ArchiveError(f"{archive} is a directory; name the archive file, e.g. {archive}/memory.tar.zst")
    if not archive.name.endswith(SUFFIXES) or archive.name in SUFFIXES:
        raise ArchiveError(f"{archive.name} does not end in .tar.zst or .tzst; an export is tar + Zstandard, "
                           "name it e.g. memory.tar.zst")
    if archive.exists() and not overwrite:
        raise ArchiveError(f"{archive} exists; pass --force to replace it, or name another file")
    if archive.resolve().is_relative_to(home.root.resolve()):
        raise ArchiveError(f"{archive} is inside the data home {home.root}; write the export elsewhere")
    if not archive.parent.is_dir():
        raise ArchiveError(f"{archive.parent} does not exist; create it first")
    files = bytes_in = 0
    # The store's own write lock too: `remember` and `ask --propose` write staging/ without the home's.
    with home.lock(wait=wait), MemoryStore(home.store)._locked():
        handle = tempfile.NamedTemporaryFile(dir=archive.parent, prefix=f".{archive.name}.", suffix=".tmp",
                                             delete=False)
        try:
            with handle:
                compressor = zstandard.ZstdCompressor(level=level)
                with compressor.stream_writer(handle, closefd=False) as writer, \
                        tarfile.open(fileobj=writer, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                    entries = list(_files(home))
                    count = sum(1 for path, _ in entries if not path.is_dir())
                    _add_bytes(tar, MANIFEST, json.dumps(_manifest(home, count), indent=2).encode())
                    for path, name in entries:
                        if path.is_dir():
                            tar.addfile(_dir_info(name.as_posix(), path))
                            continue
                        bytes_in += _add_file(tar, path, name)
                        files += 1
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, archive)
            fsync_directory(archive.parent)
        except BaseException as exc:
            Path(handle.name).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise ArchiveError(f"writing {archive} failed: {exc}", HOME) from exc
            raise
    return ExportResult(archive=str(archive), home=str(home.root), files=files, bytes_in=bytes_in,
                        archive_bytes=archive.stat().st_size, seconds=round(time.monotonic() - started, 3))


def _manifest(home: DataHome, files: int) -> dict:
    from memctl.about import installed_version

    return {"format": FORMAT, "memctl": installed_version(), "root": str(home.root), "files": files,
            "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def _dir_info(name: str, path: Path) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    info.mtime = int(path.stat().st_mtime)
    return info


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = int(time.time())
    tar.addfile(info, io.BytesIO(data))


def _add_file(tar: tarfile.TarFile, path: Path, name: PurePosixPath) -> int:
    """Add one regular file (an SQLite database through the backup API); returns its size."""
    if len(name.parts) > 1 and name.parts[0] == "cognee" and PurePosixPath(*name.parts[1:]).as_posix() in _SQLITE_BACKUP:
        with tempfile.TemporaryDirectory(prefix="memctl-export-") as scratch:
            copy = Path(scratch) / path.name
            source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            target = sqlite3.connect(copy)
            try:
                source.backup(target)
            finally:
                target.close()
                source.close()
            return _add_plain(tar, copy, name)
    return _add_plain(tar, path, name)


def _add_plain(tar: tarfile.TarFile, path: Path, name: PurePosixPath) -> int:
    stat = path.stat()
    info = tarfile.TarInfo(name.as_posix())
    info.size = stat.st_size
    info.mode = stat.st_mode & 0o777
    info.mtime = int(stat.st_mtime)
    with open(path, "rb") as handle:
        tar.addfile(info, handle)
    return stat.st_size


def import_home(archive: Path, target: DataHome) -> ImportResult:
    """Unpack an export into ``target`` (which must not exist, or be an empty directory) and relocate it.

    Raises:
        ArchiveError: the archive is missing, not Zstandard, not a memctl export (no manifest, no store
            and audit log, a top-level name no export writes), truncated or corrupt, or holds an unsafe
            member (absolute name, ``..``, a link, a device) (2); the target is a file, exists and is
            not empty, cannot be written, or its graph database cannot be moved (7).
        RelocationError: a stored Cognee path would lie outside the new home (7).
        Nothing is left behind on any error.
    """
    import zstandard

    started = time.monotonic()
    archive = Path(archive).expanduser().absolute()
    root = target.root
    if not archive.is_file():
        raise ArchiveError(f"{archive} is not a file; name a memctl export (.tar.zst)")
    if root.exists() and not root.is_dir():
        raise ArchiveError(f"{root} is a file; import into a new directory with --home DIR", HOME)
    if root.exists() and any(root.iterdir()):
        raise ArchiveError(f"{root} exists and is not empty; import into a new directory with --home DIR", HOME)
    if not root.parent.is_dir():
        raise ArchiveError(f"{root.parent} does not exist; create it first", HOME)
    try:
        scratch = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{root.name}.import-"))
    except OSError as exc:
        raise ArchiveError(f"cannot write beside {root}: {exc}", HOME) from exc
    try:
        with open(archive, "rb") as handle:
            reader = zstandard.ZstdDecompressor().stream_reader(handle, read_across_frames=True)
            manifest, files = _extract(reader, scratch, archive)
        _fsync_tree(scratch)
        os.chmod(scratch, 0o777 & ~_umask())  # mkdtemp makes it 0700; a home is made like any directory
        _require_store(scratch, archive)
        was_empty_dir = root.exists()
        if was_empty_dir:
            root.rmdir()  # empty (checked above)
        os.rename(scratch, root)
        fsync_directory(root.parent)
        try:
            return _settle(target, archive, manifest, files, started)
        except BaseException:
            _roll_back(root, scratch, was_empty_dir)
            raise
    except zstandard.ZstdError as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ArchiveError(f"{archive} is not a memctl export: not Zstandard data or corrupt ({exc})") from exc
    except (tarfile.TarError, EOFError) as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ArchiveError(f"{archive} is truncated or corrupt: {exc}") from exc
    except OSError as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ArchiveError(f"importing {archive} into {root} failed: {exc}", HOME) from exc
    except sqlite3.Error as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ArchiveError(f"{archive}: the graph database cannot be moved to {root} ({exc}); nothing was "
                           "imported", HOME) from exc
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def _roll_back(root: Path, scratch: Path, was_empty_dir: bool) -> None:
    """Undo the rename into place after a failed relocation: the target is as it was (absent, or the empty
    directory it was), and the half-settled home is removed by the caller's cleanup of ``scratch``."""
    os.rename(root, scratch)
    if was_empty_dir:
        root.mkdir()
    fsync_directory(root.parent)


def _require_store(scratch: Path, archive: Path) -> None:
    """An export always holds the memory store and its audit log (:func:`export_home` refuses a home
    without a store): an archive without them is no memctl export."""
    probe = DataHome(scratch)
    if not (probe.store.is_dir() and (probe.store / "audit" / "log.jsonl").is_file()):
        raise ArchiveError(f"{archive} holds no memory store (store/ with its audit log): not a memctl export")


def _settle(target: DataHome, archive: Path, manifest: dict, files: int, started: float) -> ImportResult:
    """After the rename: move Cognee's paths to the new place and check the audit chain."""
    from memctl.graph.relocate import ensure_location
    from memctl.store import MemoryStore

    relocation = ensure_location(target, actor="import")
    report = MemoryStore(target.store).verify()
    return ImportResult(home=str(target.root), files=files, exported_from=str(manifest.get("root", "")),
                        relocated_values=relocation.values, relocation_audit_seq=relocation.audit_seq,
                        audit_ok=report.ok, seconds=round(time.monotonic() - started, 3))


def _extract(reader: io.RawIOBase, scratch: Path, archive: Path) -> tuple[dict, int]:
    """Stream the tar into ``scratch``; returns the manifest and the number of files."""
    files = 0
    manifest: dict | None = None
    with tarfile.open(fileobj=reader, mode="r|") as tar:
        for index, member in enumerate(tar):
            if index == 0:
                manifest = _read_manifest(tar, member, archive)
                continue
            _check_member(member, archive)
            tar.extract(member, scratch, filter="data")
            files += member.isfile()
    if manifest is None:
        raise ArchiveError(f"{archive} is empty: not a memctl export")
    if files != manifest.get("files", files):
        raise ArchiveError(f"{archive} is truncated: {files} of {manifest['files']} files")
    return manifest, files


def _read_manifest(tar: tarfile.TarFile, member: tarfile.TarInfo, archive: Path) -> dict:
    if member.name != MANIFEST or not member.isfile() or member.size > 65536:
        raise ArchiveError(f"{archive} is not a memctl export (it does not start with {MANIFEST})")
    handle = tar.extractfile(member)
    try:
        manifest = json.loads(handle.read() if handle else b"")
    except ValueError as exc:
        raise ArchiveError(f"{archive}: {MANIFEST} is not JSON") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"{archive} is a memctl export of format {manifest.get('format') if isinstance(manifest, dict) else '?'}; "
                           f"this memctl reads format {FORMAT}")
    return manifest


def _check_member(member: tarfile.TarInfo, archive: Path) -> None:
    """Only relative regular files and directories under the home, as :func:`export_home` writes them."""
    name = member.name
    parts = PurePosixPath(name).parts
    if name.startswith("/") or not parts or ".." in parts or "\\" in name or "\x00" in name:
        raise ArchiveError(f"{archive} holds an unsafe member {name!r} (absolute or '..' path); refused")
    if not (member.isfile() or member.isdir()):
        kind = "link" if (member.issym() or member.islnk()) else "device or special file"
        raise ArchiveError(f"{archive} holds a {kind} {name!r}; a memctl export holds files and directories only")
    if parts[0] not in _TOP_LEVEL:
        raise ArchiveError(f"{archive} holds {name!r}, which no memctl export holds (only "
                           f"{', '.join(sorted(_TOP_LEVEL))}); refused")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_tree(root: Path) -> None:
    """fsync every file and directory under ``root`` before it is renamed into place."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_directory(Path(dirpath))
