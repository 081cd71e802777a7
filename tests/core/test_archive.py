"""`memctl export` / `memctl import` (memctl.archive): what an export holds and leaves out, the round
trip, and bad archives — not Zstandard, truncated, unsafe members, not a memctl export, a non-empty
target — each refused with one line and a non-zero exit, nothing left behind.

In-process on a home whose Cognee database is a plain SQLite file (the real Cognee round trip is in
tests/e2e/test_home_relocation_e2e.py).
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
from tests.support.memctl_process import hold_lock

OWNER = "0318ac0a-8d72-4865-bf42-8c6811f903f2"
KEPT = {  # relative path → content (besides the store's own files and the Cognee database)
    "distilled/ses_a.md": "a distilled note",
    "progress.json": "{}",
    "skipped.json": "{}",
    "topics.json": "{}",
    "topic_index.json": "{}",
    "sleep_state.json": "{}",
    "graph_rejections.json": "{}",
    "graph_embedding.json": "{}",
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


# -- an archive without a store, or with names no export writes --------------------------------------

def _audit_log() -> list[tuple]:
    return [_member("store", tarfile.DIRTYPE), _member("store/audit", tarfile.DIRTYPE),
            _member("store/audit/log.jsonl", data=b"")]


NO_STORE = [  # (members, words in the error)
    ([_member("foo.txt")], "foo.txt"),
    ([_member("progress.json", data=b"{}")], "no memory store"),
    ([_member("store", tarfile.DIRTYPE), _member("store/memory/t/n.md")], "no memory store"),
    ([_member("distilled/ses_a.md"), _member("cognee/data/x.txt")], "no memory store"),
    ([*_audit_log(), _member("foo.txt")], "foo.txt"),
    ([*_audit_log(), _member("logs/library.log")], "logs/library.log"),
    ([*_audit_log(), _member("transcripts/ses_a.md")], "transcripts"),
    ([*_audit_log(), _member(".bashrc")], ".bashrc"),
    ([*_audit_log(), _member("serve.token")], "serve.token"),
]


@pytest.mark.parametrize(("members", "words"), NO_STORE, ids=["foo-only", "progress-only", "store-without-audit",
                                                            "graph-without-store", "store-and-foo", "logs",
                                                            "transcripts", "dotfile", "token"])
def test_an_archive_without_the_store_or_with_foreign_names_is_refused(tmp_path: Path, members: list,
                                                                        words: str) -> None:
    files = sum(1 for info, _ in members if info.isfile())
    _refused(tmp_path, _zstd_tar(members, manifest={"format": 1, "files": files, "root": "/x"}),
             exit_codes.USAGE, words)


# -- a failure after extraction leaves nothing behind -------------------------------------------------

def _crafted_export(tmp_path: Path, previous: list[dict], stored: str) -> Path:
    """An export whose location.json lists ``previous`` roots and whose database holds ``stored``."""
    home = _home(tmp_path / "home")
    record = json.loads(home.location.read_text())
    record["previous"] = previous
    home.location.write_text(json.dumps(record))
    with sqlite3.connect(relocate.cognee_db(home)) as conn:
        conn.execute("INSERT INTO dataset_database VALUES (?)", (stored,))
    export_home(home, tmp_path / "crafted.tar.zst")
    return tmp_path / "crafted.tar.zst"


@pytest.mark.parametrize(("previous", "stored"), [
    ([{"root": "/", "real_root": "/"}], "{tmp}/to/outside/evil.lance.db"),
    ([{"root": "/", "real_root": "/"}], "file://{tmp}/to/outside/evil.lance.db"),
    ([{"root": "{tmp}/to", "real_root": "{tmp}/to"}], "{tmp}/to/outside/evil.lance.db"),
    ([{"root": "/tmp", "real_root": "/tmp"}], "/tmp/elsewhere/evil.lance.db"),
    ([{"root": "to/x", "real_root": "to/x"}], "{tmp}/to/outside/evil.lance.db"),
    ([], "{tmp}/home/../to/outside/evil.lance.db"),
], ids=["root-slash", "file-url", "target-parent", "root-tmp", "relative", "dotdot-path"])
@pytest.mark.parametrize("empty_dir", [False, True], ids=["new", "empty-dir"])
def test_an_import_that_would_keep_a_path_outside_the_home_is_refused_and_leaves_nothing(
        tmp_path: Path, previous: list[dict], stored: str, empty_dir: bool) -> None:
    fill = {"tmp": tmp_path}
    archive = _crafted_export(tmp_path, [{k: v.format(**fill) for k, v in p.items()} for p in previous],
                              stored.format(**fill))
    (tmp_path / "to").mkdir()
    target = tmp_path / "to" / "var"
    if empty_dir:
        target.mkdir()
    result = CliRunner().invoke(app, ["import", str(archive), "--home", str(target), "--json"])
    assert result.exit_code == exit_codes.HOME, (result.stdout, result.stderr)
    assert "outside" in json.loads(result.stdout)["error"] and "Traceback" not in result.stderr
    assert [(p.name, list(p.iterdir())) for p in (tmp_path / "to").iterdir()] == ([("var", [])] if empty_dir else [])


def _fail(kind: type[BaseException]):  # noqa: ANN202
    def failing(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        raise kind("injected after extraction")
    return failing


FAILURES = [  # (what fails, exception, exit code or None for an exception that propagates)
    ("memctl.graph.relocate.ensure_location", relocate.RelocationError, exit_codes.HOME),
    ("memctl.graph.relocate.ensure_location", exit_codes.HomeBusyError, exit_codes.LOCKED),
    ("memctl.graph.relocate.ensure_location", sqlite3.OperationalError, exit_codes.HOME),
    ("memctl.graph.relocate.write_state", OSError, exit_codes.HOME),
    ("memctl.graph.relocate._check_inside", relocate.RelocationError, exit_codes.HOME),
    ("memctl.store.MemoryStore.verify", OSError, exit_codes.HOME),
    ("memctl.store.MemoryStore.verify", KeyboardInterrupt, None),
]


@pytest.mark.parametrize(("where", "kind", "code"), FAILURES,
                         ids=["refused", "busy", "sqlite", "record-write", "check", "verify-io", "interrupt"])
@pytest.mark.parametrize("empty_dir", [False, True], ids=["new", "empty-dir"])
def test_each_failure_after_extraction_leaves_no_target_and_no_temp_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, kind: type, code: int | None,
        empty_dir: bool) -> None:
    home = _home(tmp_path / "home")
    export_home(home, tmp_path / "out.tar.zst")
    (tmp_path / "to").mkdir()
    target = DataHome(tmp_path / "to" / "var")
    if empty_dir:
        target.root.mkdir()
    module, name = where.rsplit(".", 1)
    if name == "verify":
        monkeypatch.setattr(MemoryStore, "verify", _fail(kind))
    else:
        import importlib

        monkeypatch.setattr(importlib.import_module(module), name, _fail(kind))
    with pytest.raises(kind if code is None else (ArchiveError, kind)) as raised:
        import_home(tmp_path / "out.tar.zst", target)
    if code is not None:
        assert raised.value.exit_code == code
    assert [(p.name, list(p.iterdir())) for p in (tmp_path / "to").iterdir()] == ([("var", [])] if empty_dir else [])


# -- wording -------------------------------------------------------------------------------------------

def test_import_into_a_file_says_it_is_a_file(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    export_home(home, tmp_path / "out.tar.zst")
    for name in ("a-file", "notes.txt"):
        (tmp_path / name).write_text("mine")
        result = CliRunner().invoke(app, ["import", str(tmp_path / "out.tar.zst"), "--home", str(tmp_path / name),
                                          "--json"])
        error = json.loads(result.stdout)["error"]
        assert result.exit_code == exit_codes.HOME and "is a file" in error and "not empty" not in error
        assert (tmp_path / name).read_text() == "mine"


@pytest.mark.parametrize("name", ["y.zip", "y.tar", "y.zst", "y.tar.gz", "y", ".tar.zst", "y.tar.zst.bak"])
def test_export_requires_the_tar_zst_suffix(tmp_path: Path, name: str) -> None:
    home = _home(tmp_path / "home")
    result = CliRunner().invoke(app, ["export", str(tmp_path / name), "--home", str(home.root), "--json"])
    assert result.exit_code == exit_codes.USAGE, (result.stdout, result.stderr)
    assert ".tar.zst" in json.loads(result.stdout)["error"]
    assert not (tmp_path / name).exists() and not list(tmp_path.glob(".*tmp"))


@pytest.mark.parametrize("name", ["y.tar.zst", "y.tzst", "my.memory.tar.zst"])
def test_export_writes_either_suffix(tmp_path: Path, name: str) -> None:
    home = _home(tmp_path / "home")
    result = CliRunner().invoke(app, ["export", str(tmp_path / name), "--home", str(home.root), "--json"])
    assert result.exit_code == exit_codes.OK and _members(tmp_path / name)[0].name == MANIFEST


@pytest.mark.parametrize("name", ["dir.tar.zst", "d.tzst", "plain-dir", "d.zip"])
def test_export_to_a_directory_says_so_and_offers_no_force(tmp_path: Path, name: str) -> None:
    home = _home(tmp_path / "home")
    (tmp_path / name).mkdir()
    for flags in ([], ["--force"]):
        result = CliRunner().invoke(app, ["export", str(tmp_path / name), "--home", str(home.root), "--json", *flags])
        error = json.loads(result.stdout)["error"]
        assert result.exit_code == exit_codes.USAGE and "is a directory" in error and "--force" not in error
    (tmp_path / "file.tar.zst").write_text("old")
    result = CliRunner().invoke(app, ["export", str(tmp_path / "file.tar.zst"), "--home", str(home.root), "--json"])
    assert result.exit_code == exit_codes.USAGE and "--force" in json.loads(result.stdout)["error"]
    result = CliRunner().invoke(app, ["export", str(tmp_path / "file.tar.zst"), "--home", str(home.root), "--force"])
    assert result.exit_code == exit_codes.OK and _members(tmp_path / "file.tar.zst")[0].name == MANIFEST
