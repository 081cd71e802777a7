"""Forget and purge without Cognee: the value's byte forms, the checkpoint's removed sessions and
plan.decide, the store's purge records (history, rollback, `audit verify --deep`), the journal,
and the CLI's asking (non-TTY without --yes, --dry-run)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint, Entry
from memctl.config import DataHome
from memctl.connectors.model import SessionInfo
from memctl.exit_codes import USAGE
from memctl.forget.errors import ForgetError
from memctl.forget.journal import Journal
from memctl.forget.needles import MARKER, all_forms, forms, redact
from memctl.ingest.plan import Action, PlanRules, decide
from memctl.store import MemoryStore
from memctl.store.errors import MissingVersionError
from memctl.store.purge import purge_blobs
from memctl.store.versions import sha256_bytes
from tests.support.cli_in_process import run_cli

REPO = Path(__file__).resolve().parents[2]

VALUES = [
    "QuokkaLantern48213zeta",            # plain token
    'Mango"Tundra\\9921',                # needs JSON escaping
    "Nebula Finch 4410 & co",            # spaces and an ampersand (URL and HTML forms differ)
    "Grüße-Kennwort-Ω77",                # non-ASCII (ensure_ascii form differs)
    "ghp_" + "x7" * 18,                  # token-shaped
]


@pytest.mark.parametrize("value", VALUES)
def test_every_form_of_a_value_is_found_and_redacted(value: str) -> None:
    raw = value.encode()
    embedded = [
        raw,
        json.dumps({"k": value}).encode(),
        json.dumps({"k": value}, ensure_ascii=False).encode(),
        json.dumps({"outer": json.dumps({"k": value})}).encode(),
        base64.b64encode(raw),
        base64.urlsafe_b64encode(raw).rstrip(b"="),
    ]
    needles = forms(value)
    for blob in embedded:
        text = b"before " + blob + b" after"
        redacted, count = redact(text, needles)
        assert count >= 1, blob
        assert raw not in redacted and base64.b64encode(raw) not in redacted
        assert redacted.startswith(b"before ") and redacted.endswith(b" after")
        assert MARKER.encode() in redacted


@pytest.mark.parametrize("value", ["", "abc", "     ", "12345"])
def test_too_short_values_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        forms(value)


def test_all_forms_puts_longer_forms_first() -> None:
    found = all_forms(VALUES[:2])
    assert [len(f) for f in found] == sorted((len(f) for f in found), reverse=True)


def _info(updated: int = 2000) -> SessionInfo:
    return SessionInfo(id="ses_x", title="t", directory="/p", project_id="p", project_worktree="/p",
                       parent_id=None, time_created=1000, time_updated=updated, version="1.18.34")


RULES = [PlanRules(prompt_version="1"), PlanRules(prompt_version="2", reparse_all=True),
         PlanRules(prompt_version="1", reparse_skipped=True)]


@pytest.mark.parametrize("status", ["purged", "forgotten"])
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("updated", [1000, 2000, 99_000])
def test_a_removed_session_is_never_distilled_again(status: str, rules: PlanRules, updated: int) -> None:
    entry = Entry(status=status, session_updated=1000)
    decision = decide(_info(updated), entry, rules)
    assert decision.action is Action.SKIP and status in decision.why
    # the same session without the entry (purge --allow-reingest) is new again
    assert decide(_info(updated), None, rules).action is Action.DISTILL


def test_checkpoint_records_and_forgets_removed_sessions(tmp_path: Path) -> None:
    cp = Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json")
    cp.mark_distilled("a", topic="alpha", title="secret title", session_updated=5)
    cp.mark_skipped("b", reason="junk", skip_kind="junk", title="t")
    cp.mark_removed("a", "purged")
    cp.mark_removed("b", "forgotten")
    again = Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json")
    assert again.status("a") == "purged" and again.entry("a").topic == "alpha"
    assert again.entry("a").title is None  # the title may hold what was purged
    assert again.status("b") == "forgotten" and "b" not in again.skipped
    assert "a" not in again.distilled()
    again.forget_entry("a")
    assert Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json").status("a") == "absent"
    with pytest.raises(ValueError):
        again.mark_removed("a", "distilled")


def _store_with_history(root: Path, value: str) -> tuple[MemoryStore, list[str]]:
    store = MemoryStore(root)
    paths = ["user/global/a.md", "user/topics/alpha/b.md", "staging/sessions/s1/inbox/p.json"]
    store.write_text(paths[0], f"first {value}\n", actor="sleep", reason="r")
    store.write_text(paths[0], "second, clean\n", actor="sleep", reason="r")
    store.write_text(paths[1], f"holds {value} now\n", actor="sleep", reason="r")
    store.write_text(paths[2], json.dumps({"content": value}), actor="agent", reason="r")
    store.delete(paths[2], expected_sha=None, actor="sleep", reason="r")
    return store, paths


def _blobs_holding(store: MemoryStore, needles: list[bytes]) -> dict[str, bytes | None]:
    return {p.name: redact(p.read_bytes(), needles)[0] for p in (store.root / "versions").rglob("*")
            if p.is_file() and any(n in p.read_bytes() for n in needles)}


@pytest.mark.parametrize("value", VALUES[:3])
def test_purge_records_replace_blobs_and_deep_verify_passes(tmp_path: Path, value: str) -> None:
    store, paths = _store_with_history(tmp_path / "store", value)
    needles = forms(value)
    first = store.history(paths[0])[0].version
    changes = _blobs_holding(store, needles)
    assert len(changes) == 3
    result = purge_blobs(store, changes, reason="purge --text: 1 value(s)")
    assert result.blobs_replaced == 3 and len(result.records) == 3
    for path in (tmp_path / "store").rglob("*"):
        if path.is_file():
            assert not any(n in path.read_bytes() for n in needles), path
    report = store.verify(deep=True)
    assert report.ok, (report.problem, report.deep_problems)
    # history and rollback still work: the old version reads as its redacted copy
    assert MARKER in store.read_version(paths[0], first)
    store.rollback(paths[0], first, actor="cli", reason="back")
    assert store.read_text(paths[0])[0] == f"first {MARKER}\n"
    assert store.read_text(paths[1])[0] == f"holds {MARKER} now\n"
    log = store.audit.log.read_bytes()
    assert value.encode() not in log and b'"op":"purge"' in log
    assert store.verify(deep=True).ok


def test_a_removed_blob_reads_as_purged_and_an_unfinished_purge_fails_deep_verify(tmp_path: Path) -> None:
    store, paths = _store_with_history(tmp_path / "store", "QuokkaLantern48213zeta")
    old = store.history(paths[1])[0].version
    purge_blobs(store, {old: None}, reason="purged via memctl purge --session")
    assert not store.exists(paths[1])
    with pytest.raises(MissingVersionError):
        store.read_version(paths[1], old)
    assert store.verify(deep=True).ok
    # a purged blob put back (a run killed before deleting it): deep verify says so, a rerun finishes it
    store.blobs.put(b"holds QuokkaLantern48213zeta now\n")
    assert sha256_bytes(b"holds QuokkaLantern48213zeta now\n") == old
    report = store.verify(deep=True)
    assert not report.ok and any("purged but is still" in p for p in report.deep_problems)
    again = purge_blobs(store, {old: None}, reason="purged via memctl purge --session")
    assert again.records == [] and again.blobs_removed == 1
    assert store.verify(deep=True).ok


def test_an_edited_purge_record_breaks_the_chain(tmp_path: Path) -> None:
    store, paths = _store_with_history(tmp_path / "store", "QuokkaLantern48213zeta")
    purge_blobs(store, _blobs_holding(store, forms("QuokkaLantern48213zeta")), reason="purge")
    lines = store.audit.log.read_text().splitlines()
    record = json.loads(lines[-1])
    record["replaced"] = {k: None for k in record["replaced"]}
    lines[-1] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    store.audit.log.write_text("\n".join(lines) + "\n")
    assert not store.verify(deep=True).ok


def test_journal_resumes_the_same_command_and_refuses_another(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    home.root.mkdir()
    journal = Journal(home)
    plan, resumed = journal.begin("purge-session", "ses_a", "memctl purge --session ses_a", {"x": 1})
    assert (plan, resumed) == ({"x": 1}, False)
    journal.done("files")
    again = Journal(home)
    plan, resumed = again.begin("purge-session", "ses_a", "memctl purge --session ses_a", {"x": 2})
    assert (plan, resumed) == ({"x": 1}, True) and again.is_done("files") and not again.is_done("store")
    with pytest.raises(ForgetError) as refused:
        Journal(home).begin("forget", "user/a.md", "memctl forget user/a.md", {})
    assert refused.value.exit_code == USAGE and "purge --session ses_a" in str(refused.value)
    again.finish()
    assert Journal(home).pending() is None


def _memctl(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The command in-process (run_cli): its output, exit code and files; stdin is never a terminal."""
    return run_cli(*args, "--home", str(home), input=stdin)


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".memctl.lock"}


COMMANDS = [
    ("forget", "user/global/a.md"),
    ("forget", "user/topics/alpha/b.md"),
    ("purge", "--text", "QuokkaLantern48213zeta"),
    ("purge", "--session", "s1"),
]


@pytest.mark.parametrize("command", COMMANDS)
def test_nothing_changes_without_yes_off_a_terminal_or_on_a_dry_run(tmp_path: Path, command: tuple) -> None:
    home = tmp_path / "var"
    _store_with_history(home / "store", "QuokkaLantern48213zeta")
    before = _tree_digest(home)
    refused = _memctl(home, *command, stdin="")
    assert refused.returncode == USAGE and "--yes" in refused.stderr
    dry = _memctl(home, *command, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["dry_run"] is True and json.loads(dry.stdout)["removes"]
    assert _tree_digest(home) == before
    assert "QuokkaLantern48213zeta" not in dry.stdout + dry.stderr + refused.stdout + refused.stderr


@pytest.mark.parametrize("args, message", [
    (("forget", "memory/alpha/ses_1.md", "--yes"), "--as-ingest"),
    (("forget", "user/global/none.md", "--yes"), "no file at"),
    (("purge", "--yes"), "exactly one of"),
    (("purge", "--session", "s1", "--text", "QuokkaLantern48213zeta", "--yes"), "exactly one of"),
    (("purge", "--text", "abc", "--yes"), "at least"),
    (("purge", "--text", "QuokkaLantern48213zeta", "--allow-reingest", "--yes"), "goes with --session"),
    (("purge", "--session", "ses_unknown", "--yes"), "knows nothing"),
])
def test_user_mistakes_exit_2_with_one_line(tmp_path: Path, args: tuple, message: str) -> None:
    home = tmp_path / "var"
    _store_with_history(home / "store", "QuokkaLantern48213zeta")
    proc = _memctl(home, *args)
    assert proc.returncode == USAGE, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_forget_of_a_store_memory_without_cognee(tmp_path: Path) -> None:
    home = tmp_path / "var"
    store, paths = _store_with_history(home / "store", "QuokkaLantern48213zeta")
    sha = store.sha(paths[1])
    proc = _memctl(home, "forget", paths[1], "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["deleted"] is True and not store.exists(paths[1])
    assert [v.op for v in store.history(paths[1])] == ["write", "delete"]
    assert store.read_version(paths[1], sha).startswith("holds")  # the content stays in versions/
    assert store.verify(deep=True).ok and not Journal(DataHome(home)).path.exists()


@pytest.mark.parametrize("content", ["holds QuokkaLantern48213zeta now\n", "a note\nQuokkaLantern48213zeta\n"])
def test_content_written_again_after_its_purge_is_live_and_can_be_purged_again(tmp_path: Path, content: str) -> None:
    store = MemoryStore(tmp_path / "store")
    path = "memory/alpha/ses_1.md"
    sha = store.write_text(path, content, actor="ingest", reason="distilled")
    store.delete(path, expected_sha=sha, actor="ingest", reason="purged")
    purge_blobs(store, {sha: None}, reason="purged via memctl purge --session")
    assert not store.blobs.has(sha)
    store.write_text(path, content, actor="ingest", reason="re-distilled after --allow-reingest")
    assert store.blobs.has(sha) and store.verify(deep=True).ok
    assert store.read_version(path, sha) == content
    needles = forms("QuokkaLantern48213zeta")
    purge_blobs(store, {sha: redact(content.encode(), needles)[0]}, reason="purge --text: 1 value(s)")
    assert MARKER in store.read_text(path)[0] and not store.blobs.has(sha)
    assert store.verify(deep=True).ok


@pytest.mark.parametrize("value", VALUES[:3])
def test_purge_text_without_cognee_redacts_files_and_reports_what_it_cannot_rewrite(tmp_path: Path,
                                                                                    value: str) -> None:
    from memctl.exit_codes import FAILED_ITEMS

    home = tmp_path / "var"
    store, paths = _store_with_history(home / "store", value)
    (home / "transcripts").mkdir()
    (home / "transcripts" / "ses_1.md").write_text(f"user: {value}\n")
    (home / "reports").mkdir()
    (home / "reports" / "sleep-1.json").write_text(json.dumps({"content": value}))
    route = DataHome(home).route_cache
    route.mkdir(parents=True)
    for topic in ("alpha", "beta"):  # the embedding router's profiles: vectors of note titles and summaries
        (route / f"{topic}.vec").write_bytes(b"\x00" * 64)
    turns = DataHome(home).turn_index / "alpha"  # the turn index: transcript excerpts and their vocabulary
    turns.mkdir(parents=True)
    (turns / "manifest.json").write_text(json.dumps({"turns": [{"excerpt": value}]}))
    clean = _memctl(home, "purge", "--text", value, "--yes", "--json")
    assert clean.returncode == 0, clean.stderr
    assert not turns.exists()
    assert list(route.iterdir()) == []  # a value may sit in any note: every profile is rebuilt by the next ask
    assert json.loads(clean.stdout)["remaining"] == []
    assert not any(n in p.read_bytes() for p in home.rglob("*") if p.is_file() for n in forms(value))
    assert store.verify(deep=True).ok and value not in clean.stdout + clean.stderr
    # a value someone wrote into an audit reason: the append-only log is never edited, and the purge says so
    store.write_text("user/global/c.md", "clean\n", actor="sleep", reason=f"noted {value}")
    left = _memctl(home, "purge", "--text", value, "--yes", "--json")
    assert left.returncode == FAILED_ITEMS and json.loads(left.stdout)["remaining"] == ["store/audit/log.jsonl"]
    assert store.verify(deep=True).ok


@pytest.mark.parametrize("topics, left", [(["alpha"], ["beta.vec", "gamma.vec"]), (["alpha", "gamma"], ["beta.vec"]),
                                          ([], ["alpha.vec", "beta.vec", "gamma.vec"]), (None, []),
                                          (["missing"], ["alpha.vec", "beta.vec", "gamma.vec"])])
def test_forgetting_drops_the_touched_topics_route_profiles(tmp_path: Path, topics: list[str] | None,
                                                            left: list[str]) -> None:
    from memctl.forget import derived

    home = DataHome(tmp_path / "var")
    home.route_cache.mkdir(parents=True)
    for topic in ("alpha", "beta", "gamma"):
        (home.route_cache / f"{topic}.vec").write_bytes(b"\x01" * 32)
    derived.refresh_indexes(home, topics)
    assert sorted(p.name for p in home.route_cache.iterdir()) == left
