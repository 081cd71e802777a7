"""`memctl audit`, `audit verify`, `history`, `show`, `rollback` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.store import MemoryStore
from memctl.store.versions import sha256_bytes
from tests.cli.test_cli import memctl


@pytest.fixture
def home(tmp_path: Path) -> Path:
    store = MemoryStore(tmp_path / "var" / "store")
    store.write_text("user/global/editor.md", "prefers vim\nuses tabs\n", actor="sleep", reason="promote p1")
    store.write_text("user/global/editor.md", "prefers emacs\nuses tabs\n", actor="sleep", reason="promote p2")
    store.write_text("memory/alpha/s1.md", "note one\n", actor="ingest", reason="distilled s1")
    store.write_text("memory/alpha/s1.md", "note two\n", actor="ingest", reason="re-distilled s1")
    return tmp_path / "var"


def _versions(home: Path, path: str) -> list[dict]:
    result = memctl("history", path, "--json", "--home", str(home))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_audit_lists_and_filters(home: Path) -> None:
    result = memctl("audit", "--home", str(home), "--json", "--actor", "ingest")
    assert result.returncode == 0, result.stderr
    records = json.loads(result.stdout)
    assert [(r["seq"], r["path"], r["reason"]) for r in records] == [
        (3, "memory/alpha/s1.md", "distilled s1"), (4, "memory/alpha/s1.md", "re-distilled s1")]
    result = memctl("audit", "--home", str(home), "--json", "--path", "user/*", "--limit", "1")
    assert [r["seq"] for r in json.loads(result.stdout)] == [2]
    table = memctl("audit", "--home", str(home), env={"COLUMNS": "200"})
    assert table.returncode == 0 and "promote p1" in table.stdout and "re-distilled" in table.stdout
    bad = memctl("audit", "--home", str(home), "--since", "yesterday-ish")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_audit_verify_ok_then_fails_on_a_hand_edited_log(home: Path) -> None:
    ok = memctl("audit", "verify", "--deep", "--home", str(home))
    assert ok.returncode == 0 and "intact: 4 records" in ok.stdout
    log = home / "store" / "audit" / "log.jsonl"
    log.write_text(log.read_text().replace("promote p2", "promote p9"))
    broken = memctl("audit", "verify", "--home", str(home))
    assert broken.returncode == 10
    assert "line 2 (seq 2)" in broken.stderr and "edited" in broken.stderr
    as_json = json.loads(memctl("audit", "verify", "--json", "--home", str(home)).stdout)
    assert (as_json["ok"], as_json["bad_line"], as_json["bad_seq"]) == (False, 2, 2)
    # and the store refuses nothing it cannot see yet, but deep verify also names files changed by hand
    (home / "store" / "user" / "global" / "editor.md").write_text("hand edit\n")
    log.write_text(log.read_text().replace("promote p9", "promote p2"))
    deep = memctl("audit", "verify", "--deep", "--home", str(home))
    assert deep.returncode == 10 and "user/global/editor.md" in deep.stderr


def test_history_and_show(home: Path) -> None:
    versions = _versions(home, "user/global/editor.md")
    assert [(v["seq"], v["op"], v["reason"]) for v in versions] == [(1, "write", "promote p1"), (2, "write", "promote p2")]
    current = memctl("show", "user/global/editor.md", "--home", str(home))
    assert current.returncode == 0 and current.stdout == "prefers emacs\nuses tabs\n"
    old = memctl("show", "user/global/editor.md", "--version", versions[0]["version"][:8], "--home", str(home))
    assert old.stdout == "prefers vim\nuses tabs\n"
    table = memctl("history", "user/global/editor.md", "--home", str(home), env={"COLUMNS": "200"})
    assert versions[0]["version"][:12] in table.stdout
    none = memctl("history", "user/none.md", "--home", str(home))
    assert none.returncode == 2 and "no recorded history" in none.stderr


@pytest.mark.parametrize("args, fragment", [
    (("show", "audit/log.jsonl"), "internal"),
    (("show", "../../etc/passwd"), "'..'"),
    (("show", "/etc/passwd"), "absolute"),
    (("show", "user/missing.md"), "no file at"),
    (("show", "user/global/editor.md", "--version", "abc"), "too short"),
    (("show", "user/global/editor.md", "--version", "ffffffff"), "has no version"),
    (("history", "versions/x"), "internal"),
    (("rollback", "user/global/editor.md", "--to", "0000000000", "--yes"), "has no version"),
])
def test_bad_input_is_a_clear_error_with_exit_2(home: Path, args: tuple[str, ...], fragment: str) -> None:
    result = memctl(*args, "--home", str(home))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert fragment in result.stderr and "Traceback" not in result.stderr


def test_rollback_shows_the_diff_needs_yes_off_a_terminal_and_is_audited(home: Path) -> None:
    v1 = _versions(home, "user/global/editor.md")[0]["version"]
    refused = memctl("rollback", "user/global/editor.md", "--to", v1[:8], "--home", str(home))
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "-prefers emacs" in refused.stdout and "+prefers vim" in refused.stdout
    store = MemoryStore(home / "store")
    assert store.read_text("user/global/editor.md")[0] == "prefers emacs\nuses tabs\n"
    done = memctl("rollback", "user/global/editor.md", "--to", v1[:8], "--reason", "vim is back", "--yes",
                  "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert store.read_text("user/global/editor.md")[0] == "prefers vim\nuses tabs\n"
    last = _versions(home, "user/global/editor.md")[-1]
    assert (last["op"], last["actor"], last["reason"], last["rollback_of"]) == ("rollback", "cli", "vim is back", v1)
    again = memctl("rollback", "user/global/editor.md", "--to", v1[:8], "--yes", "--home", str(home))
    assert again.returncode == 0 and "nothing to do" in again.stdout
    assert len(_versions(home, "user/global/editor.md")) == 3


def test_rollback_of_memory_needs_the_ingest_privilege_flag(home: Path) -> None:
    v1 = _versions(home, "memory/alpha/s1.md")[0]["version"]
    refused = memctl("rollback", "memory/alpha/s1.md", "--to", v1[:8], "--yes", "--home", str(home))
    assert refused.returncode == 2 and "--as-ingest" in refused.stderr
    done = memctl("rollback", "memory/alpha/s1.md", "--to", v1[:8], "--yes", "--as-ingest", "--home", str(home))
    assert done.returncode == 0, done.stderr
    last = _versions(home, "memory/alpha/s1.md")[-1]
    assert last["actor"] == "ingest" and last["reason"].startswith("manual rollback via memctl rollback --as-ingest")
    assert MemoryStore(home / "store").read_text("memory/alpha/s1.md")[0] == "note one\n"


def test_commands_on_an_empty_home(tmp_path: Path) -> None:
    empty = tmp_path / "fresh"
    missing = memctl("audit", "--home", str(empty))  # a named home that does not exist: a typo, refused
    assert missing.returncode == 7 and "does not exist" in missing.stderr and not empty.exists()
    empty.mkdir()
    listing = memctl("audit", "--home", str(empty))
    assert listing.returncode == 0 and "no audit log yet" in listing.stderr
    verify = memctl("audit", "verify", "--home", str(empty))
    assert verify.returncode == 0 and "0 records" in verify.stdout
    assert list(empty.iterdir()) == []  # reading creates nothing


def test_audit_repair_applies_a_pending_change(home: Path) -> None:
    import orjson

    store = MemoryStore(home / "store")
    v2 = store.sha("user/global/editor.md")
    # what a writer killed right after the commit point leaves: the record, not the file
    store.blobs.put(b"prefers helix\n")
    last = store.audit.last_record()
    record = store.audit.append({"op": "write", "path": "user/global/editor.md", "actor": "sleep", "reason": "r",
                                 "old_sha": v2, "new_sha": sha256_bytes(b"prefers helix\n"),
                                 "version": sha256_bytes(b"prefers helix\n")}, last)
    store.audit.advance_head(record)
    verify = memctl("audit", "verify", "--deep", "--home", str(home))
    assert verify.returncode == 0 and "not yet applied" in verify.stderr
    repair = memctl("audit", "repair", "--home", str(home))
    assert repair.returncode == 0 and "applied seq 5 (write user/global/editor.md)" in repair.stdout
    assert store.read_text("user/global/editor.md")[0] == "prefers helix\n"
    again = memctl("audit", "repair", "--home", str(home))
    assert "nothing to repair" in again.stdout
    assert orjson.loads(store.audit.head_path.read_bytes())["seq"] == 5


def test_rollback_repairs_a_file_holding_binary_junk(home: Path) -> None:
    v1 = _versions(home, "user/global/editor.md")[0]["version"]
    (home / "store" / "user" / "global" / "editor.md").write_bytes(b"\x00\xff\xfe junk")
    done = memctl("rollback", "user/global/editor.md", "--to", v1[:8], "--yes", "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert "not UTF-8" in done.stdout
    assert MemoryStore(home / "store").read_text("user/global/editor.md")[0] == "prefers vim\nuses tabs\n"


def test_since_with_a_utc_offset_is_compared_in_utc(home: Path) -> None:
    from datetime import datetime, timedelta, timezone

    in_plus_two = (datetime.now(timezone.utc) - timedelta(hours=1)).astimezone(timezone(timedelta(hours=2)))
    result = memctl("audit", "--home", str(home), "--json", "--since", in_plus_two.isoformat())
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 4


def test_home_mistakes(home: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-dir"
    a_file.write_text("x")
    for args in (("show", "user/a.md"), ("audit",), ("history", "user/a.md")):
        result = memctl(*args, "--home", str(a_file))
        assert result.returncode == 7 and "is a file" in result.stderr, (args, result.stderr)
    typo = memctl("audit", "verify", "--home", str(tmp_path / "typo"))
    assert typo.returncode == 7 and "does not exist; check the path" in typo.stderr


def test_rollback_checks_the_reason_before_showing_a_diff(home: Path) -> None:
    v1 = _versions(home, "user/global/editor.md")[0]["version"]
    result = memctl("rollback", "user/global/editor.md", "--to", v1[:8], "--reason", " ", "--yes", "--home", str(home))
    assert result.returncode == 2 and "reason" in result.stderr and result.stdout == ""
