"""`memctl purge --session` and `memctl forget` on a data home without a Cognee graph (no model, no
Cognee): what is removed and what stays, the checkpoint, the caches and reports, `audit verify
--deep`, and a run SIGKILLed at each step finished by the next run to the same end state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.config import DataHome
from memctl.ingest.checkpoint import Checkpoint
from memctl.sleep.user_memory import render_memory
from memctl.store import MemoryStore
from tests.purge_child import run_killed

REPO = Path(__file__).resolve().parents[1]
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
    return {"home": home, "store": store}


def _memctl(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args, "--home", str(root)], env=ENV,
                          capture_output=True, text=True, timeout=300)


def _holding(root: Path, mark: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and mark.encode() in p.read_bytes())


def test_purge_session_removes_the_session_and_its_continuations_only(tmp_path: Path) -> None:
    root = tmp_path / "var"
    world = _home(root)
    store = world["store"]
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
        elif path.name == "manifest.json":  # its fingerprint holds file mtimes
            files[rel] = json.loads(path.read_text())["paths"]
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
    assert _memctl(reference, "purge", "--session", "ses_a", "--yes").returncode == 0
    child = run_killed(point, ["purge", "--session", "ses_a", "--yes", "--home", str(killed)], ENV)
    assert child.returncode == -9, child.stderr[-2000:]
    assert (killed / "forget-journal.json").exists()
    refused = _memctl(killed, "purge", "--session", "ses_b", "--yes")
    assert refused.returncode == 2 and "purge --session ses_a" in refused.stderr
    finished = _memctl(killed, "purge", "--session", "ses_a", "--yes", "--json")
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["resumed"] is True
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
