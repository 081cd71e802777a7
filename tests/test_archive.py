"""`memctl export` / `memctl import` (memctl.archive): what an export holds and leaves out, the round
trip, and bad archives — not Zstandard, truncated, unsafe members, not a memctl export, a non-empty
target — each refused with one line and a non-zero exit, nothing left behind.

In-process on a home whose Cognee database is a plain SQLite file (the real Cognee round trip is in
tests/test_home_relocation_e2e.py).
"""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from memctl import exit_codes
from memctl.archive import MANIFEST, ArchiveError, export_home, import_home
from memctl.cli.main import app
from memctl.config import DataHome
from memctl.graph import relocate
from memctl.store import MemoryStore
from tests.memctl_process import hold_lock

OWNER = "0318ac0a-8d72-4865-bf42-8c6811f903f2"
KEPT = {  # relative path → content (besides the store's own files and the Cognee database)
    "distilled/ses_a.md": "a distilled note",
    "progress.json": "{}",
    "skipped.json": "{}",
    "topics.json": "{}",
    "topic_index.json": "{}",
    "sleep_state.json": "{}",
    "graph_rejections.json": "{}",
    f"cognee/data/{OWNER}/text_1.txt": "Cognee's copy",
    f"cognee/system/databases/{OWNER}/g.pkl": "a graph",
    f"cognee/system/databases/{OWNER}/v.lance.db/T.lance/data/x.lance": "vectors",
}
LEFT_OUT = {
    "logs/library.log": "a library line",
    "reports/sleep-1.html": "a report",
    "transcripts/ses_a.md": "the scrubbed transcript",
    "cache/consolidate/k.json": "{}",
    "index/notes/alpha/manifest.json": "{}",
    ".memctl.lock": "",
    "serve.token": "a future token file",
    "unknown/thing.txt": "whatever a later version adds",
    "cognee/logs/c.log": "Cognee's log",
    "cognee/cognee.env": "OLLAMA_API_BASE='http://x'",
    "cognee/tiktoken/abc": "encoding",
    "cognee/cache/x": "cache",
    "cognee/system/pipeline_run_locks/l": "",
    "cognee/system/databases/.cognee-migration-1.lock": "",
    ".progress.json.abc.tmp": "a killed writer's temp file",
}


def _home(root: Path) -> DataHome:
    home = DataHome(root)
    store = MemoryStore(home.store)
    store.write_text("memory/alpha/ses_a.md", "a note", actor="ingest", reason="a note")
    store.write_text("user/global/style.md", "short answers", actor="sleep", reason="promoted")
    for rel, text in {**KEPT, **LEFT_OUT}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    db = relocate.cognee_db(home)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE dataset_database (vector_database_url TEXT)")
        conn.execute("INSERT INTO dataset_database VALUES (?)", (f"{home.cognee}/system/databases/{OWNER}/v.lance.db",))
    relocate.ensure_location(home)
    return home


def _members(archive: Path) -> list[tarfile.TarInfo]:
    with open(archive, "rb") as handle, tarfile.open(
            fileobj=zstandard.ZstdDecompressor().stream_reader(handle), mode="r|") as tar:
        return list(tar)


def test_an_export_holds_what_ask_and_sleep_need_and_nothing_else(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    result = export_home(home, tmp_path / "out.tar.zst")
    members = _members(tmp_path / "out.tar.zst")
    files = {m.name for m in members if m.isfile()}
    assert members[0].name == MANIFEST and all(m.isfile() or m.isdir() for m in members)
    expected = {MANIFEST, *KEPT, "location.json", "cognee/system/databases/cognee_db", "store/audit/log.jsonl",
                "store/audit/head.json", "store/memory/alpha/ses_a.md", "store/user/global/style.md"}
    versions = {f for f in files if f.startswith("store/versions/")}
    assert files - versions == expected and len(versions) == 2
    assert result.files == len(files) - 1
    assert not [name for name in files if any(name == out or name.startswith(out) for out in LEFT_OUT)]


def test_an_import_round_trips_and_relocates(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    export_home(home, tmp_path / "out.tar.zst")
    (tmp_path / "elsewhere").mkdir()
    target = DataHome(tmp_path / "elsewhere" / "var")
    result = import_home(tmp_path / "out.tar.zst", target)
    assert (result.audit_ok, result.exported_from, result.relocated_values) == (True, str(home.root), 1)
    for rel in [*KEPT, "store/memory/alpha/ses_a.md"]:
        assert (target.root / rel).read_bytes() == (home.root / rel).read_bytes(), rel
    assert not any((target.root / rel).exists() for rel in LEFT_OUT if rel != ".memctl.lock")
    with sqlite3.connect(relocate.cognee_db(target)) as conn:
        assert conn.execute("SELECT vector_database_url FROM dataset_database").fetchone()[0].startswith(
            str(target.cognee) + "/")
    assert json.loads(target.location.read_text())["root"] == str(target.root)
    assert MemoryStore(target.store).verify(deep=True).ok
    assert [r["actor"] for r in MemoryStore(target.store).audit.records() if r["op"] == "relocate"] == ["import"]
    assert [p.name for p in (tmp_path / "elsewhere").iterdir()] == ["var"]


def test_export_refuses_an_existing_file_and_a_busy_home(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    out = tmp_path / "out.tar.zst"
    out.write_text("keep me")
    with pytest.raises(ArchiveError, match="exists"):
        export_home(home, out)
    assert out.read_text() == "keep me"
    export_home(home, out, overwrite=True)
    assert _members(out)[0].name == MANIFEST
    holder = hold_lock(home.lock_file, 60)
    try:
        with pytest.raises(exit_codes.HomeBusyError):
            export_home(home, out, overwrite=True)
    finally:
        holder.kill()
        holder.wait()
    with pytest.raises(ArchiveError, match="inside the data home"):
        export_home(home, home.root / "x.tar.zst")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# -- bad archives ------------------------------------------------------------------------------------


def _zstd_tar(members: list[tuple[tarfile.TarInfo, bytes | None]], *, manifest: dict | None = None) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        if manifest is not False:
            data = json.dumps(manifest or {"format": 1, "files": 1, "root": "/x"}).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return zstandard.ZstdCompressor().compress(raw.getvalue())


def _member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes | None = b"x", link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.size = len(data) if data and kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


def _plain_tar() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("store/x")
        tar.addfile(info, io.BytesIO(b""))
    return raw.getvalue()


NOT_ZSTD = [b"", b"hello, not an archive\n" * 10, _plain_tar(), gzip.compress(_plain_tar()), b"\x28\xb5\x2f\xfd"]
UNSAFE = [
    [_member("../evil.txt")],
    [_member("/tmp/evil-absolute.txt")],
    [_member("store/../../evil.txt")],
    [_member("store/link", tarfile.SYMTYPE, link="/etc/passwd")],
    [_member("store/link2", tarfile.SYMTYPE, link="../../../evil")],
    [_member("store/hard", tarfile.LNKTYPE, link="/etc/passwd")],
    [_member("store/dev", tarfile.CHRTYPE)],
    [_member("store/fifo", tarfile.FIFOTYPE)],
    [_member("store/ok.txt"), _member("../late-evil.txt")],
]
NOT_MEMCTL = [
    _zstd_tar([_member("store/x")], manifest=False),
    _zstd_tar([_member("store/x")], manifest={"format": 2}),
    _zstd_tar([], manifest={"format": 1, "files": 3}),
]


def _refused(tmp_path: Path, data: bytes, code: int, words: str) -> None:
    archive = tmp_path / "bad.tar.zst"
    archive.write_bytes(data)
    (tmp_path / "to").mkdir()
    target = tmp_path / "to" / "var"
    result = CliRunner().invoke(app, ["import", str(archive), "--home", str(target), "--json"])
    assert result.exit_code == code, (result.stdout, result.stderr)
    error = json.loads(result.stdout)
    assert error["exit_code"] == code and words in error["error"]
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert list((tmp_path / "to").iterdir()) == []  # no target, no temp directory
    assert not list(tmp_path.glob("**/*evil*")) and not Path("/tmp/evil-absolute.txt").exists()


@pytest.mark.parametrize("data", NOT_ZSTD, ids=["empty", "text", "plain-tar", "gzip-tar", "zstd-magic-only"])
def test_not_zstandard_is_refused(tmp_path: Path, data: bytes) -> None:
    _refused(tmp_path, data, exit_codes.USAGE, "bad.tar.zst")


@pytest.mark.parametrize("members", UNSAFE, ids=["dotdot", "absolute", "inner-dotdot", "symlink-abs", "symlink-rel",
                                                 "hardlink", "device", "fifo", "late-dotdot"])
def test_unsafe_members_are_refused(tmp_path: Path, members: list) -> None:
    _refused(tmp_path, _zstd_tar(members), exit_codes.USAGE, "bad.tar.zst holds")


@pytest.mark.parametrize("data", NOT_MEMCTL, ids=["no-manifest", "other-format", "fewer-files"])
def test_an_archive_that_is_not_a_memctl_export_is_refused(tmp_path: Path, data: bytes) -> None:
    _refused(tmp_path, data, exit_codes.USAGE, "bad.tar.zst")


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_a_truncated_export_is_refused(tmp_path: Path, fraction: float) -> None:
    home = _home(tmp_path / "home")
    export_home(home, tmp_path / "whole.tar.zst")
    whole = (tmp_path / "whole.tar.zst").read_bytes()
    _refused(tmp_path, whole[: int(len(whole) * fraction)], exit_codes.USAGE, "bad.tar.zst")


@pytest.mark.parametrize("occupant", ["file.txt", ".hidden", "sub/"])
def test_a_non_empty_target_is_refused(tmp_path: Path, occupant: str) -> None:
    home = _home(tmp_path / "home")
    export_home(home, tmp_path / "out.tar.zst")
    target = tmp_path / "target"
    (target / occupant).parent.mkdir(parents=True, exist_ok=True)
    if occupant.endswith("/"):
        (target / occupant).mkdir()
    else:
        (target / occupant).write_text("mine")
    result = CliRunner().invoke(app, ["import", str(tmp_path / "out.tar.zst"), "--home", str(target), "--json"])
    assert result.exit_code == exit_codes.HOME and "not empty" in json.loads(result.stdout)["error"]
    assert sorted(p.name for p in target.iterdir()) == [occupant.rstrip("/")]
    assert not [p for p in tmp_path.iterdir() if ".import-" in p.name]
