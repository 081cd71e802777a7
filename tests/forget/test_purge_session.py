"""`memctl purge --session` and `memctl forget` on a data home without a Cognee graph (no model, no
Cognee): what is removed and what stays, the checkpoint, the caches and reports, `audit verify
--deep`, and a run SIGKILLed at each step finished by the next run to the same end state."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome
from memctl.store import MemoryStore
from memctl.store.user_memory import render_memory
from tests.support.cli_in_process import run_cli
from tests.support.purge_child import run_killed

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
MARK_A = "SesAlphaUniqueWords"      # only in session ses_a's files
MARK_B = "SesBravoUniqueWords"      # only in session ses_b's files


def _home(root: Path) -> dict:
    """A data home as ingest and sleep leave it: two sessions (ses_a with a continuation), their
    transcripts, notes, memory/ notes (two versions of one), session and topic memories, proposals,
    a rejected archive, cache entries and a sleep report."""
    home = DataHome(root)
    cp = Checkpoint(home.progress, home.skipped)
    store = MemoryStore(home.store)
    for sid, mark in (("ses_a", MARK_A), ("ses_a-cont1", MARK_A), ("ses_b", MARK_B)):
        for path in (home.transcript_path(sid), home.note_path(sid)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {sid}\n{mark} in {path.parent.name}\n")
        store.write_text(f"memory/alpha/{sid}.md", f"# {sid}\n{mark} note\n", actor="ingest", reason="distilled")
        extra = {"continuation_of": "ses_a"} if sid.endswith("cont1") else {}
        cp.mark_distilled(sid, topic="alpha", title=f"{mark} title", session_updated=10, **extra)
    store.write_text("memory/alpha/ses_a.md", f"# ses_a\n{MARK_A} note, re-distilled\n", actor="ingest", reason="re")
    topic_memory = render_memory(f"{MARK_A} is the team's deploy day.", kind="note", created="2026-11-30T00:00:00Z",
                                 session="ses_a", topic="alpha")
    store.write_text("user/topics/alpha/m1.md", topic_memory, actor="sleep", reason="promote")
    store.write_text("user/sessions/ses_a/m2.md", f"{MARK_A} private\n", actor="sleep", reason="promote")
    store.write_text("user/global/m3.md", render_memory(f"{MARK_B} global", kind="note", created="2026-11-30T00:00:00Z",
                                                       session="ses_b", topic=None), actor="sleep", reason="promote")
    store.write_text("staging/sessions/ses_a/inbox/p1.json", json.dumps({"content": MARK_A}), actor="ask", reason="p")
    store.write_text("staging/rejected/ses_a/p0.json", json.dumps({"original": MARK_A}), actor="sleep", reason="r")
    cache = home.consolidate_cache
    cache.mkdir(parents=True)
    (cache / "k1.json").write_text(json.dumps({"text": "merged", "members": ["user/topics/alpha/m1.md"]}))
    (cache / "k2.json").write_text(json.dumps({"text": "other", "members": ["user/global/m3.md"]}))
    home.reports.mkdir()
    (home.reports / "sleep-1.json").write_text(json.dumps({"promoted": [
        {"session": "ses_a", "content": f"{MARK_A} is the team's deploy day."},
        {"session": "ses_b", "content": f"{MARK_B} global"}]}))
    from memctl.catalog.topic_index import build_topic_index
    from memctl.catalog.turn_index import TurnIndex
    from memctl.config import Settings

    TurnIndex(home, Settings(home=root)).refresh(build_topic_index(home))  # the turns ingest indexes, excerpts included
    return {"home": home, "store": store}


def _memctl(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The command in-process (a killed run is ``run_killed``'s child process): its output, code and files."""
    return run_cli(*args, "--home", str(root))


def _holding(root: Path, mark: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and mark.encode() in p.read_bytes())


def test_purge_session_removes_the_session_and_its_continuations_only(tmp_path: Path) -> None:
    root = tmp_path / "var"
    world = _home(root)
    store = world["store"]
    assert any("index/turns/alpha" in f for f in _holding(root, MARK_A))
    proc = _memctl(root, "purge", "--session", "ses_a", "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["ids"] == ["ses_a", "ses_a-cont1"] and result["files_deleted"] == 4
    assert result["store_deleted"] == 6 and result["blobs_removed"] == 7
    assert _holding(root, MARK_A) == []  # nothing of ses_a anywhere, the audit log included
    assert len(_holding(root, MARK_B)) >= 6  # ses_b untouched: transcript, note, memory, versions, report, global memory
    assert store.exists("memory/alpha/ses_b.md") and store.exists("user/global/m3.md")
    cp = Checkpoint(world["home"].progress, world["home"].skipped)
    assert (cp.status("ses_a"), cp.status("ses_a-cont1"), cp.status("ses_b")) == ("purged", "purged", "distilled")
    assert not (world["home"].consolidate_cache / "k1.json").exists()
    assert (world["home"].consolidate_cache / "k2.json").exists()
    assert store.verify(deep=True).ok
    assert [v.op for v in store.history("memory/alpha/ses_a.md")] == ["write", "write", "delete", "purge"]
    # --allow-reingest on the purged session: its entries go, so the next ingest treats it as new
    again = _memctl(root, "purge", "--session", "ses_a", "--allow-reingest", "--yes", "--json")
    assert again.returncode == 0, again.stderr
    cp = Checkpoint(world["home"].progress, world["home"].skipped)
    assert (cp.status("ses_a"), cp.status("ses_a-cont1")) == ("absent", "absent")
    assert store.verify(deep=True).ok


def test_forget_drops_cached_merges_of_the_memory_and_keeps_its_versions(tmp_path: Path) -> None:
    root = tmp_path / "var"
    world = _home(root)
    store = world["store"]
    sha = store.sha("user/topics/alpha/m1.md")
    proc = _memctl(root, "forget", "user/topics/alpha/m1.md", "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cache_entries_dropped"] == 1
    assert not store.exists("user/topics/alpha/m1.md") and store.blobs.has(sha)
    assert (world["home"].consolidate_cache / "k2.json").exists()
    note = _memctl(root, "forget", "memory/alpha/ses_b.md", "--as-ingest", "--yes")
    assert note.returncode == 0, note.stderr
    cp = Checkpoint(world["home"].progress, world["home"].skipped)
    assert cp.status("ses_b") == "forgotten" and "ses_b" not in cp.distilled()
    assert store.verify(deep=True).ok


def _end_state(root: Path) -> dict:
    """Everything but the audit log's times and the checkpoint's timestamps."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if not path.is_file() or rel.startswith("store/audit") or path.name.endswith(".lock"):
            continue
        if path.name in ("progress.json",):
            data = json.loads(path.read_text())["sources"]
            files[rel] = {k: v.get("status") for k, v in data.items()}
        elif path.name == "manifest.json":  # its fingerprint holds file mtimes: the notes' or turns' list only
            manifest = json.loads(path.read_text())
            files[rel] = manifest["paths"] if "paths" in manifest else manifest["turns"]
        else:
            files[rel] = path.read_bytes()
    store = MemoryStore(root / "store")
    ops = [(r["op"], r["path"], r["old_sha"], r["new_sha"], r.get("replaced")) for r in store.audit.records()]
    return {"files": files, "ops": sorted(map(str, ops)), "verify": store.verify(deep=True).ok}


SESSION_POINTS = ["journal=purge-session:journal", "journal=purge-session:checkpoint", "journal=purge-session:files",
                  "store=write", "store=snapshot", "journal=purge-session:store"]


@pytest.mark.parametrize("point", SESSION_POINTS)
def test_a_killed_session_purge_is_finished_by_the_next_run(tmp_path: Path, point: str) -> None:
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    _home(reference)
    _home(killed)
    whole = _memctl(reference, "purge", "--session", "ses_a", "--yes", "--json")
    assert whole.returncode == 0, whole.stderr
    child = run_killed(point, ["purge", "--session", "ses_a", "--yes", "--home", str(killed)], ENV)
    assert child.returncode == -9, child.stderr[-2000:]
    assert (killed / "forget-journal.json").exists()
    refused = _memctl(killed, "purge", "--session", "ses_b", "--yes")
    assert refused.returncode == 2 and "purge --session ses_a" in refused.stderr
    finished = _memctl(killed, "purge", "--session", "ses_a", "--yes", "--json")
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["resumed"] is True
    if point.startswith("journal="):  # killed between steps: the resumed run reports the whole purge
        counts = ("files_deleted", "store_deleted", "blobs_removed", "files_redacted", "datasets_rebuilt")
        assert {k: json.loads(finished.stdout)[k] for k in counts} == {k: json.loads(whole.stdout)[k] for k in counts}
    end = _end_state(killed)
    expected = _end_state(reference)
    assert end["files"].keys() == expected["files"].keys()
    assert {k: v for k, v in end["files"].items() if k != "forget-journal.json"} == expected["files"]
    assert end["verify"] and _holding(killed, MARK_A) == []


@pytest.mark.parametrize("point", ["journal=forget:journal", "store=write", "journal=forget:store"])
def test_a_killed_forget_is_finished_by_the_next_run(tmp_path: Path, point: str) -> None:
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    _home(reference)
    _home(killed)
    path = "user/topics/alpha/m1.md"
    assert _memctl(reference, "forget", path, "--yes").returncode == 0
    child = run_killed(point, ["forget", path, "--yes", "--home", str(killed)], ENV)
    assert child.returncode == -9, child.stderr[-2000:]
    finished = _memctl(killed, "forget", path, "--yes", "--json")
    assert finished.returncode == 0, finished.stderr
    assert _end_state(killed) == _end_state(reference)


MERGED = "MergedWordsZulu"  # only in consolidated memories that hold ses_a's text


def _consolidate(root: Path, store: MemoryStore, target: str, members: list[str], text: str) -> None:
    """What sleep leaves after a merge: the consolidated memory naming its members, the members
    deleted, a cache entry and a report quoting the merged text."""
    content = render_memory(text, kind="consolidated", created="2026-11-30T01:00:00Z", session=None, topic="alpha",
                            extra={"members": [{"path": m, "sha": store.sha(m)} for m in members]})
    store.write_text(target, content, actor="sleep", reason=f"consolidate {len(members)} memories")
    for member in members:
        store.delete(member, expected_sha=None, actor="sleep", reason=f"merged into {target}")
    home = DataHome(root)
    (home.consolidate_cache / f"{Path(target).stem}.json").write_text(json.dumps({"text": text, "members": members}))
    (home.reports / f"sleep-{Path(target).stem}.json").write_text(json.dumps({"consolidated": [{"text": text}]}))


def _forgotten(root: Path, store: MemoryStore) -> None:
    assert _memctl(root, "forget", "user/topics/alpha/m1.md", "--yes").returncode == 0


def _deleted(root: Path, store: MemoryStore) -> None:
    store.delete("user/topics/alpha/m1.md", expected_sha=None, actor="sleep", reason="superseded")
    store.delete("user/sessions/ses_a/m2.md", expected_sha=None, actor="sleep", reason="expired")


def _merged(root: Path, store: MemoryStore) -> None:
    _consolidate(root, store, "user/topics/alpha/c1.md", ["user/topics/alpha/m1.md", "user/global/m3.md"],
                 f"{MARK_A} is the deploy day; {MERGED} one.")


def _merged_twice(root: Path, store: MemoryStore) -> None:
    _merged(root, store)
    store.write_text("user/topics/alpha/m4.md", render_memory("Bravo deploys on Fridays.", kind="note",
                     created="2026-11-30T00:00:00Z", session="ses_b", topic="alpha"), actor="sleep", reason="promote")
    _consolidate(root, store, "user/topics/alpha/c2.md", ["user/topics/alpha/c1.md", "user/topics/alpha/m4.md"],
                 f"{MERGED} twice: {MARK_A} deploys Thursdays, Bravo Fridays.")


def _forgotten_after_merge(root: Path, store: MemoryStore) -> None:
    _merged(root, store)
    assert _memctl(root, "forget", "user/topics/alpha/c1.md", "--yes").returncode == 0


@pytest.mark.parametrize("gone", [_forgotten, _deleted, _merged, _merged_twice, _forgotten_after_merge])
def test_purge_session_finds_its_memories_already_deleted_or_merged(tmp_path: Path, gone) -> None:  # noqa: ANN001
    root = tmp_path / "var"
    world = _home(root)
    store = world["store"]
    gone(root, store)
    assert _holding(root, MARK_A)  # the session's text is still in the home before the purge
    plan = json.loads(_memctl(root, "purge", "--session", "ses_a", "--dry-run", "--json").stdout)["plan"]
    assert "user/topics/alpha/m1.md" in plan["store_paths"]
    proc = _memctl(root, "purge", "--session", "ses_a", "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert _holding(root, MARK_A) == [] and _holding(root, MERGED) == []
    assert not any(store.exists(p) for p in ("user/topics/alpha/c1.md", "user/topics/alpha/c2.md"))
    assert store.verify(deep=True).ok


def _cognee_datasets(root: Path, names: list[str]) -> Path:
    """A WAL-mode relational database with Cognee's ``datasets`` table (what the plan reads)."""
    import sqlite3

    db = root / "cognee" / "system" / "databases" / "cognee_db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE datasets (id TEXT PRIMARY KEY, name TEXT)")
    with conn:
        conn.executemany("INSERT INTO datasets VALUES (?, ?)", [(f"{i:032x}", n) for i, n in enumerate(names)])
    conn.close()
    return db


@pytest.mark.parametrize("args", [("--dry-run", "--json"), ("--allow-reingest", "--dry-run", "--json")])
def test_a_second_purge_of_a_purged_session_plans_nothing_it_would_not_do(tmp_path: Path, args: tuple) -> None:
    root = tmp_path / "var"
    _home(root)
    _cognee_datasets(root, ["alpha"])
    first = json.loads(_memctl(root, "purge", "--session", "ses_a", *args).stdout)["plan"]
    assert first["graphs"] == ["alpha"] and first["store_paths"] and first["blobs"]
    (root / "cognee").rename(tmp_path / "cognee-aside")  # the purge itself runs without Cognee here
    assert _memctl(root, "purge", "--session", "ses_a", "--yes").returncode == 0
    (tmp_path / "cognee-aside").rename(root / "cognee")
    again = json.loads(_memctl(root, "purge", "--session", "ses_a", *args).stdout)
    assert (again["plan"]["store_paths"], again["plan"]["blobs"], again["plan"]["graphs"]) == ([], [], [])
    assert not any(line.startswith("delete") or "rebuild" in line for line in again["removes"])


@pytest.mark.parametrize("command", [("purge", "--session", "ses_a"), ("purge", "--text", MARK_A),
                                     ("purge", "--text", MARK_B), ("forget", "user/topics/alpha/m1.md")])
def test_a_dry_run_creates_no_sqlite_side_file(tmp_path: Path, command: tuple) -> None:
    root = tmp_path / "var"
    _home(root)
    db = _cognee_datasets(root, ["alpha"])
    before = sorted(p.name for p in db.parent.iterdir())
    proc = _memctl(root, *command, "--dry-run", "--json")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in db.parent.iterdir()) == before == ["cognee_db"]
