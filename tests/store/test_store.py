"""Unit tests of the memory store: policy, versions, audit chain, history, rollback."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import orjson
import pytest

from memctl.store import (
    AuditIntegrityError,
    ConcurrencyError,
    CorruptVersionError,
    InvalidContentError,
    InvalidPathError,
    MemoryStore,
    MissingFileError,
    ReadOnlyPrefixError,
    UnknownVersionError,
)
from memctl.store.audit import GENESIS, record_hash
from memctl.store.versions import sha256_bytes


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "store")


def sha(text: str) -> str:
    return sha256_bytes(text.encode())


def log_lines(store: MemoryStore) -> list[bytes]:
    return store.audit.log.read_bytes().splitlines()


def test_write_read_roundtrip_returns_content_sha(store: MemoryStore) -> None:
    written = store.write_text("user/global/editor.md", "prefers vim\n", actor="sleep", reason="promote p1")
    assert written == sha("prefers vim\n")
    assert store.read_text("user/global/editor.md") == ("prefers vim\n", written)
    assert (store.root / "user/global/editor.md").read_text() == "prefers vim\n"


def test_every_write_is_versioned_and_audited(store: MemoryStore) -> None:
    a = store.write_text("user/a.md", "one", actor="sleep", reason="r1")
    b = store.write_text("user/a.md", "two", expected_sha=a, actor="sleep", reason="r2")
    records = [orjson.loads(line) for line in log_lines(store)]
    assert [(r["seq"], r["op"], r["old_sha"], r["new_sha"], r["version"], r["actor"], r["reason"]) for r in records] == [
        (1, "write", None, a, a, "sleep", "r1"),
        (2, "write", a, b, b, "sleep", "r2"),
    ]
    assert records[0]["prev"] == GENESIS
    assert records[1]["prev"] == records[0]["hash"] == record_hash(records[0])
    for digest, text in ((a, "one"), (b, "two")):
        blob = store.blobs.path(digest)
        assert blob.read_text() == text
        assert stat.S_IMODE(blob.stat().st_mode) == 0o444  # immutable


def test_identical_rewrite_is_a_noop(store: MemoryStore) -> None:
    first = store.write_text("staging/x.md", "same", actor="ask", reason="r")
    assert store.write_text("staging/x.md", "same", actor="ask", reason="again") == first
    assert len(log_lines(store)) == 1


def test_stale_expected_sha_raises_with_current_sha_and_changes_nothing(store: MemoryStore) -> None:
    a = store.write_text("user/a.md", "one", actor="sleep", reason="r")
    b = store.write_text("user/a.md", "two", expected_sha=a, actor="sleep", reason="r")
    with pytest.raises(ConcurrencyError) as info:
        store.write_text("user/a.md", "three", expected_sha=a, actor="sleep", reason="r")
    assert info.value.current_sha == b and info.value.expected_sha == a
    assert "changed since it was read" in str(info.value)
    assert store.read_text("user/a.md")[0] == "two"
    assert len(log_lines(store)) == 2


def test_expected_sha_on_missing_file_is_a_concurrency_error(store: MemoryStore) -> None:
    with pytest.raises(ConcurrencyError) as info:
        store.write_text("user/new.md", "x", expected_sha=sha("old"), actor="sleep", reason="r")
    assert info.value.current_sha is None


@pytest.mark.parametrize("actor", ["sleep", "ask", "remember", "cli"])
def test_memory_prefix_is_read_only_to_everyone_but_ingest(store: MemoryStore, actor: str) -> None:
    with pytest.raises(ReadOnlyPrefixError, match="memory/ is read-only"):
        store.write_text("memory/alpha/s1.md", "x", actor=actor, reason="r")
    assert not (store.root / "memory").exists()
    store.write_text("memory/alpha/s1.md", "note", actor="ingest", reason="distilled s1")
    with pytest.raises(ReadOnlyPrefixError):
        store.delete("memory/alpha/s1.md", expected_sha=None, actor=actor, reason="r")
    assert store.read_text("memory/alpha/s1.md")[0] == "note"


@pytest.mark.parametrize("actor", ["ask", "remember", "ingest"])
def test_user_prefix_is_only_written_by_sleep_and_cli(store: MemoryStore, actor: str) -> None:
    with pytest.raises(ReadOnlyPrefixError, match="user/ is read-only"):
        store.write_text("user/global/p.md", "x", actor=actor, reason="r")
    store.write_text("staging/sessions/s1/inbox/p.json", "{}", actor=actor, reason="proposal")


@pytest.mark.parametrize("path, fragment", [
    ("/etc/passwd", "absolute"),
    ("C:/x/y", "absolute"),
    ("user/../memory/x.md", "'..'"),
    ("../outside.md", "'..'"),
    ("user\\a.md", "backslash"),
    ("user/a\x00.md", "NUL"),
    ("user/a\n.md", "U+000A"),
    ("user/a\u202e.md", "U+202E"),
    ("user/a\u200b.md", "U+200B"),
    ("audit/log.jsonl", "internal"),
    ("versions/ab/abc", "internal"),
    ("./audit/head.json", "internal"),
    ("user/.lock", "reserved"),
    ("user/~/x", "'~' is not expanded"),
    ("user/x/", "ends with '/'"),
    ("user/ a.md", "whitespace"),
    ("user/a.md ", "whitespace"),
    ("other/x.md", "must start with"),
    ("user", "prefix, not a file"),
    ("", "empty"),
    ("user/" + "a" * 256, "255 bytes"),
    ("user/" + "/".join(["d"] * 20) + "/x", "deeper"),
    ("user/" + "/".join(["d" * 200] * 6), "1024 bytes"),
])
def test_path_policy_rejects(store: MemoryStore, path: str, fragment: str) -> None:
    with pytest.raises(InvalidPathError) as info:
        store.write_text(path, "x", actor="sleep", reason="r")
    assert fragment in str(info.value)
    assert not store.audit.log.exists()


def test_path_normalisation(store: MemoryStore) -> None:
    store.write_text("user//global/./a.md", "x", actor="sleep", reason="r")
    assert store.list("user") == ["user/global/a.md"]
    nfd = "user/cafe\u0301.md"
    store.write_text(nfd, "y", actor="sleep", reason="r")
    assert store.read_text("user/caf\u00e9.md")[0] == "y"  # NFC and NFD name the same file


def test_non_string_path_and_content(store: MemoryStore) -> None:
    with pytest.raises(InvalidPathError):
        store.write_text(Path("user/a.md"), "x", actor="sleep", reason="r")  # type: ignore[arg-type]
    with pytest.raises(InvalidContentError, match="must be str"):
        store.write_text("user/a.md", b"x", actor="sleep", reason="r")  # type: ignore[arg-type]
    with pytest.raises(InvalidContentError, match="not valid Unicode"):
        store.write_text("user/a.md", "\udc80", actor="sleep", reason="r")


@pytest.mark.parametrize("actor, reason, fragment", [
    ("", "r", "invalid actor"), ("Sleep", "r", "invalid actor"), ("a b", "r", "invalid actor"),
    ("sleep", "", "needs a reason"), ("sleep", "   ", "needs a reason"), ("sleep", "x" * 2001, "under 2000"),
])
def test_actor_and_reason_are_validated(store: MemoryStore, actor: str, reason: str, fragment: str) -> None:
    with pytest.raises(InvalidContentError, match=fragment):
        store.write_text("staging/a.md", "x", actor=actor, reason=reason)


def test_bad_expected_sha_is_rejected(store: MemoryStore) -> None:
    with pytest.raises(InvalidContentError, match="expected_sha"):
        store.write_text("user/a.md", "x", expected_sha="abc", actor="sleep", reason="r")


def test_oversize_content_is_rejected(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memctl.store.memory_store.MAX_CONTENT_BYTES", 10)
    with pytest.raises(InvalidContentError, match="11 bytes"):
        store.write_text("user/a.md", "x" * 11, actor="sleep", reason="r")


def test_symlink_inside_store_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    store.write_text("user/a.md", "x", actor="sleep", reason="r")
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "user" / "out").symlink_to(outside)
    (store.root / "user" / "mem").symlink_to(store.root / "memory")
    (store.root / "user" / "aud").symlink_to(store.root / "audit")
    for path in ("user/out/x.md", "user/mem/x.md", "user/aud/log.jsonl"):
        with pytest.raises(InvalidPathError, match="symlink"):
            store.write_text(path, "evil", actor="sleep", reason="r")
        with pytest.raises(InvalidPathError, match="symlink"):
            store.read_text(path)
    assert list(outside.iterdir()) == []
    assert store.list("user") == ["user/a.md"]


def test_read_missing_and_directory(store: MemoryStore) -> None:
    with pytest.raises(MissingFileError, match="no file at user/none.md"):
        store.read_text("user/none.md")
    store.write_text("user/dir/a.md", "x", actor="sleep", reason="r")
    with pytest.raises(InvalidPathError, match="directory"):
        store.read_text("user/dir")
    with pytest.raises(InvalidPathError, match="parent of it is a file"):
        store.write_text("user/dir/a.md/b.md", "x", actor="sleep", reason="r")
    assert len(log_lines(store)) == 1  # the refused write left no record


def test_delete_is_a_versioned_tombstone(store: MemoryStore) -> None:
    a = store.write_text("user/a.md", "keep me", actor="sleep", reason="r")
    with pytest.raises(ConcurrencyError):
        store.delete("user/a.md", expected_sha=sha("other"), actor="sleep", reason="merge")
    store.delete("user/a.md", expected_sha=a, actor="sleep", reason="merged into b")
    assert not store.exists("user/a.md")
    last = orjson.loads(log_lines(store)[-1])
    assert (last["op"], last["old_sha"], last["new_sha"], last["version"]) == ("delete", a, None, None)
    assert store.blobs.read(a) == b"keep me"  # content survives in versions/
    with pytest.raises(MissingFileError):
        store.delete("user/a.md", expected_sha=None, actor="sleep", reason="again")


def test_history_lists_changes_of_one_path_oldest_first(store: MemoryStore) -> None:
    store.write_text("user/a.md", "1", actor="sleep", reason="r1")
    store.write_text("user/b.md", "other", actor="sleep", reason="rb")
    store.write_text("user/a.md", "2", actor="cli", reason="r2")
    store.delete("user/a.md", expected_sha=None, actor="sleep", reason="r3")
    history = store.history("user/a.md")
    assert [(h.op, h.actor, h.reason, h.version) for h in history] == [
        ("write", "sleep", "r1", sha("1")), ("write", "cli", "r2", sha("2")), ("delete", "sleep", "r3", None)]
    assert store.history("user/never.md") == []


def test_rollback_is_a_new_audited_write_and_can_itself_be_rolled_back(store: MemoryStore) -> None:
    v1 = store.write_text("user/a.md", "first", actor="sleep", reason="r1")
    v2 = store.write_text("user/a.md", "second", actor="sleep", reason="r2")
    assert store.rollback("user/a.md", v1[:8], actor="cli", reason="undo r2") == v1
    assert store.read_text("user/a.md")[0] == "first"
    history = store.history("user/a.md")
    assert (history[-1].op, history[-1].old_sha, history[-1].new_sha, history[-1].rollback_of) == ("rollback", v2, v1, v1)
    store.rollback("user/a.md", v2, actor="cli", reason="undo the undo")
    assert store.read_text("user/a.md")[0] == "second"
    assert len(store.history("user/a.md")) == 4
    assert store.verify(deep=True).ok


def test_rollback_restores_a_deleted_file(store: MemoryStore) -> None:
    v1 = store.write_text("user/a.md", "gone?", actor="sleep", reason="r")
    store.delete("user/a.md", expected_sha=v1, actor="sleep", reason="merged")
    store.rollback("user/a.md", v1, actor="cli", reason="restore")
    assert store.read_text("user/a.md") == ("gone?", v1)


def test_rollback_errors(store: MemoryStore) -> None:
    v1 = store.write_text("user/a.md", "1", actor="sleep", reason="r")
    other = store.write_text("user/b.md", "b", actor="sleep", reason="r")
    with pytest.raises(UnknownVersionError, match="has no version"):
        store.rollback("user/a.md", other, actor="cli", reason="wrong file")  # a version of another path
    with pytest.raises(UnknownVersionError, match="too short"):
        store.rollback("user/a.md", v1[:3], actor="cli", reason="r")
    with pytest.raises(ReadOnlyPrefixError):
        store.rollback("user/a.md", v1, actor="ask", reason="r")
    store.write_text("memory/t/s.md", "n1", actor="ingest", reason="r")
    store.write_text("memory/t/s.md", "n2", actor="ingest", reason="r")
    with pytest.raises(ReadOnlyPrefixError):
        store.rollback("memory/t/s.md", sha("n1"), actor="cli", reason="r")
    store.rollback("memory/t/s.md", sha("n1"), actor="ingest", reason="manual")
    assert store.read_text("memory/t/s.md")[0] == "n1"


def _tamper_blob(store: MemoryStore, sha: str, text: str) -> Path:
    """Overwrite a (read-only) version blob behind the store's back."""
    blob = store.blobs.path(sha)
    blob.chmod(0o644)
    blob.write_text(text)
    return blob


def test_rollback_refuses_a_modified_blob(store: MemoryStore) -> None:
    v1 = store.write_text("user/a.md", "original", actor="sleep", reason="r")
    store.write_text("user/a.md", "new", actor="sleep", reason="r")
    _tamper_blob(store, v1, "tampered")
    with pytest.raises(CorruptVersionError):
        store.rollback("user/a.md", v1, actor="cli", reason="r")
    assert store.read_text("user/a.md")[0] == "new"


def test_list_skips_temp_files_and_rejects_internal_prefixes(store: MemoryStore) -> None:
    store.write_text("user/b.md", "x", actor="sleep", reason="r")
    store.write_text("user/a/c.md", "x", actor="sleep", reason="r")
    store.write_text("staging/s.json", "x", actor="ask", reason="r")
    (store.root / "user" / ".b.md.123.tmp").write_text("partial")
    assert store.list("user/") == ["user/a/c.md", "user/b.md"]
    assert store.list("") == ["staging/s.json", "user/a/c.md", "user/b.md"]
    assert store.list("user/b.md") == ["user/b.md"]
    assert store.list("memory") == []
    for prefix in ("audit", "versions/", "/", "../"):
        with pytest.raises(InvalidPathError):
            store.list(prefix)


# -- audit chain -------------------------------------------------------------------------------


def _populated(store: MemoryStore, n: int = 6) -> None:
    for i in range(n):
        store.write_text(f"user/f{i % 3}.md", f"content {i}", actor="sleep", reason=f"r{i}")


def test_verify_intact_chain(store: MemoryStore) -> None:
    _populated(store)
    report = store.verify(deep=True)
    assert (report.ok, report.records, report.problem, report.deep_problems) == (True, 6, None, [])


def _rewrite(store: MemoryStore, lines: list[bytes]) -> None:
    store.audit.log.write_bytes(b"".join(line + b"\n" for line in lines))


def test_verify_detects_an_edited_record(store: MemoryStore) -> None:
    _populated(store)
    lines = log_lines(store)
    lines[2] = lines[2].replace(b'"reason":"r2"', b'"reason":"rX"')
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and report.problem.startswith("line 3 (seq 3)") and "edited" in report.problem


def test_verify_names_a_record_edited_and_rehashed(store: MemoryStore) -> None:
    _populated(store)
    lines = log_lines(store)
    record = orjson.loads(lines[1])
    record["reason"] = "nothing to see"
    record["hash"] = record_hash(record)
    lines[1] = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and (report.bad_line, report.bad_seq) == (2, 2) and "re-hashed" in report.problem


def test_verify_detects_an_edited_last_record(store: MemoryStore) -> None:
    _populated(store)
    lines = log_lines(store)
    lines[-1] = lines[-1].replace(b'"actor":"sleep"', b'"actor":"cli"')
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and report.bad_seq == 6


def test_verify_detects_a_removed_record(store: MemoryStore) -> None:
    _populated(store)
    lines = log_lines(store)
    del lines[1]
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and report.bad_line == 2 and report.bad_seq == 3 and "removed" in report.problem


def test_verify_detects_reordered_records(store: MemoryStore) -> None:
    _populated(store)
    lines = log_lines(store)
    lines[3], lines[4] = lines[4], lines[3]
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and report.bad_line == 4


def test_verify_detects_records_cut_off_the_end_and_refuses_writes(store: MemoryStore) -> None:
    _populated(store)
    _rewrite(store, log_lines(store)[:-2])
    report = store.verify()
    assert not report.ok and "cut off" in report.problem
    with pytest.raises(AuditIntegrityError, match="ends at seq 4 but its head pins seq 6"):
        store.write_text("user/z.md", "x", actor="sleep", reason="r")
    assert not store.exists("user/z.md")


def test_verify_detects_malformed_json(store: MemoryStore) -> None:
    _populated(store, 3)
    lines = log_lines(store)
    lines[0] = lines[0][:-1]
    _rewrite(store, lines)
    report = store.verify()
    assert not report.ok and report.bad_line == 1 and "JSON" in report.problem


def test_deep_verify_finds_files_changed_outside_the_store(store: MemoryStore) -> None:
    _populated(store, 3)
    (store.root / "user/f1.md").write_text("edited by hand")
    (store.root / "user/rogue.md").write_text("never audited")
    report = store.verify(deep=True)
    assert report.chain_ok and not report.ok
    assert any("user/f1.md: on disk" in p for p in report.deep_problems)
    assert any("user/rogue.md: exists but has no audit record" in p for p in report.deep_problems)


def test_torn_final_line_is_a_warning_and_the_next_write_cuts_it(store: MemoryStore) -> None:
    _populated(store, 2)
    with open(store.audit.log, "ab") as handle:
        handle.write(b'{"actor":"sleep","new_sha"')  # what a writer killed mid-append leaves
    report = store.verify()
    assert report.ok and any("torn" in w for w in report.warnings)
    store.write_text("user/next.md", "x", actor="sleep", reason="r")
    report = store.verify(deep=True)
    assert report.ok and report.records == 3 and report.warnings == []


def test_query_filters(store: MemoryStore) -> None:
    store.write_text("user/a.md", "1", actor="sleep", reason="r")
    store.write_text("staging/sessions/s/inbox/p.json", "{}", actor="ask", reason="r")
    store.write_text("user/b.md", "2", actor="sleep", reason="r")
    assert [r["path"] for r in store.audit.query(actor="sleep")] == ["user/a.md", "user/b.md"]
    assert [r["path"] for r in store.audit.query(path_glob="staging/*")] == ["staging/sessions/s/inbox/p.json"]
    assert [r["seq"] for r in store.audit.query(limit=2)] == [2, 3]
    assert store.audit.query(since="2999-01-01T00:00:00Z") == []


def test_head_one_behind_is_repaired(store: MemoryStore) -> None:
    _populated(store, 2)
    first = orjson.loads(log_lines(store)[0])
    store.audit.head_path.write_bytes(orjson.dumps({"hash": first["hash"], "seq": 1}))
    assert store.verify().ok  # a warning, not a failure
    report = store.recover()
    assert store.audit.read_head()[0] == 2 and report.rolled_forward is None
    assert store.verify().warnings == []


def test_files_that_predate_the_store_get_a_version_on_first_change(store: MemoryStore) -> None:
    (store.root / "user").mkdir(parents=True)
    (store.root / "user/old.md").write_text("from before")
    store.write_text("user/old.md", "new", actor="sleep", reason="r")
    assert store.blobs.read(sha("from before")) == b"from before"


# -- found by review: each holds the fixed behaviour ---------------------------------------------


def test_a_name_of_255_bytes_works_and_never_wedges_the_store(store: MemoryStore) -> None:
    long_name = "staging/" + "b" * 255
    store.write_text(long_name, "hi", actor="ask", reason="long name")
    assert store.read_text(long_name)[0] == "hi"
    store.write_text("user/a.md", "next", actor="sleep", reason="the store still works")
    assert store.verify(deep=True).ok


def test_a_failure_after_the_commit_point_is_reported_pending_and_repaired(store: MemoryStore,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl.store import ChangeNotAppliedError

    v1 = store.write_text("user/a.md", "old", actor="sleep", reason="r")
    real_replace = os.replace

    def full_disk(src, dst, *a, **kw):  # noqa: ANN001 - mirrors os.replace
        if str(dst).endswith("user/a.md"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr("memctl.store.memory_store.os.replace", full_disk)
    with pytest.raises(ChangeNotAppliedError, match="recorded \\(audit seq 2\\)") as info:
        store.write_text("user/a.md", "new", expected_sha=v1, actor="sleep", reason="r")
    assert info.value.seq == 2
    monkeypatch.undo()
    assert store.read_text("user/a.md")[0] == "old"
    assert "seq 2" in (store.pending() or "")
    report = store.verify(deep=True)
    assert report.ok and any("not yet applied" in w for w in report.warnings)  # pending, not "changed outside"
    assert [p for p in (store.root / "user").iterdir() if p.name.startswith(".")] == []  # temp removed
    assert store.recover().rolled_forward == "seq 2 (write user/a.md)"
    assert store.read_text("user/a.md")[0] == "new" and store.pending() is None


def test_a_cut_final_newline_of_a_committed_record_is_refused_not_cut(store: MemoryStore) -> None:
    _populated(store, 3)
    size = store.audit.log.stat().st_size
    with open(store.audit.log, "r+b") as handle:
        handle.truncate(size - 1)
    with pytest.raises(AuditIntegrityError, match="cut short"):
        store.write_text("user/z.md", "x", actor="sleep", reason="r")
    assert store.audit.log.stat().st_size == size - 1  # the evidence stays
    report = store.verify()
    assert not report.ok and "cut short" in report.problem


def test_absent_sha_means_the_file_must_not_exist(store: MemoryStore) -> None:
    from memctl.store import ABSENT_SHA

    store.write_text("user/new.md", "first", expected_sha=ABSENT_SHA, actor="sleep", reason="create")
    with pytest.raises(ConcurrencyError):
        store.write_text("user/new.md", "second", expected_sha=ABSENT_SHA, actor="sleep", reason="create again")
    v1 = store.sha("user/new.md")
    store.delete("user/new.md", expected_sha=v1, actor="sleep", reason="gone")
    store.write_text("user/new.md", "someone re-created it", actor="sleep", reason="race")
    with pytest.raises(ConcurrencyError):  # a restore that expected the file to be absent
        store.rollback("user/new.md", v1, actor="cli", reason="restore", expected_sha=ABSENT_SHA)
    assert store.read_text("user/new.md")[0] == "someone re-created it"


def test_contents_snapshotted_before_a_change_are_reachable_versions(store: MemoryStore) -> None:
    store.write_text("user/a.md", "v1", actor="sleep", reason="r")
    (store.root / "user/a.md").write_text("hand edit")
    store.rollback("user/a.md", sha("v1"), actor="cli", reason="undo the hand edit")
    assert store.read_version("user/a.md", sha("hand edit")[:8]) == "hand edit"
    store.rollback("user/a.md", sha("hand edit")[:8], actor="cli", reason="undo the undo")
    assert store.read_text("user/a.md")[0] == "hand edit"


def test_list_skips_names_the_api_cannot_address_and_deep_verify_names_them(store: MemoryStore) -> None:
    store.write_text("memory/t/ok.md", "x", actor="ingest", reason="r")
    (store.root / "memory/t/cafe\u0301.md").write_text("nfd name placed by hand")
    (store.root / "memory/t/~").write_text("tilde")
    assert store.list("memory") == ["memory/t/ok.md"]
    problems = store.verify(deep=True).deep_problems
    assert sum("cannot address" in p for p in problems) == 2


def test_special_files_and_symlinks_are_reported_not_followed(store: MemoryStore, tmp_path: Path) -> None:
    store.write_text("user/a.md", "x", actor="sleep", reason="r")
    os.mkfifo(store.root / "user/pipe.md")
    with pytest.raises(InvalidPathError, match="not a regular file"):
        store.read_text("user/pipe.md")  # would block forever on open()
    (store.root / "staging").symlink_to(tmp_path)
    problems = store.verify(deep=True).deep_problems
    assert any("user/pipe.md: not a regular file" in p for p in problems)
    assert any("staging/ is a symlink" in p for p in problems)


def test_missing_blob_is_an_integrity_error_and_a_corrupt_blob_is_healed(store: MemoryStore) -> None:
    from memctl.store import MissingVersionError

    v1 = store.write_text("user/a.md", "one", actor="sleep", reason="r")
    store.write_text("user/a.md", "two", actor="sleep", reason="r")
    blob = _tamper_blob(store, v1, "corrupt")
    store.write_text("user/b.md", "one", actor="sleep", reason="same content again")  # put() heals the blob
    assert store.blobs.read(v1) == b"one"
    blob.unlink()
    with pytest.raises(MissingVersionError):
        store.read_version("user/a.md", v1)
    assert isinstance(MissingVersionError("x"), CorruptVersionError)  # CLI maps both to exit 10
