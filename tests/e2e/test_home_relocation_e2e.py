"""End to end with real Cognee: a data home copied (``cp -a``), moved (rename), tarred and untarred, or
exported and imported (``memctl export`` / ``memctl import``) elsewhere answers ``ask`` from the graph
and runs ``sleep`` with a rebuild — no re-ingest.

The home is ingested from the OpenCode 1.18 fixture and slept once where it was made (so a user memory
is in the beta dataset under the old paths). Each kind then: asks (graph path, cited notes), remembers a
contradicting fact and sleeps (the merge removes the pre-move memory's document, which only works when
Cognee's stored paths were moved), asks again, verifies the audit log (one ``relocate`` record), and
checks that nothing was ingested again (checkpoint and notes byte-identical, one model call: the
consolidation) and that the original's Cognee files are byte-for-byte unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.sleep.test_memory_trust import _on_pty
from tests.support.memctl_process import ingest_fixture, run_memctl

pytestmark = pytest.mark.e2e

QUESTION = "Which pipeline do deploys of beta use?"


def _ok(server: FakeOllama, *args: str) -> dict:
    proc = run_memctl(server, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _locations(home: Path, dataset: str | None = None) -> list[str]:
    """Every path column Cognee opens or memctl matches (optionally one dataset's documents)."""
    with sqlite3.connect(f"file:{home / 'cognee/system/databases/cognee_db'}?mode=ro", uri=True) as conn:
        if dataset is not None:
            return [r[0] for r in conn.execute(
                "SELECT d.original_data_location FROM data d JOIN datasets s ON d.dataset_id = s.id WHERE s.name = ?",
                (dataset,))]
        rows = conn.execute("SELECT vector_database_url FROM dataset_database").fetchall()
        rows += conn.execute("SELECT raw_data_location, original_data_location, external_metadata FROM data").fetchall()
    return [v for row in rows for v in row if v]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("relocation")
    with FakeOllama() as server:
        home = ingest_fixture(base, server)
        blue = _ok(server, "remember", "Deploys of beta use the blue pipeline.", "--session", "s1", "--topic", "beta",
                   "--home", str(home), "--json")
        night = _ok(server, "sleep", "--home", str(home), "--json")
        assert night["topics_rebuilt"] == ["beta"]
        assert any(blue["path"] in loc for loc in _locations(home, "beta"))
        yield {"home": home, "server": server, "blue": blue["path"], "cognee": _tree(home / "cognee")}


def _copied(world: dict, tmp: Path) -> tuple[Path, str]:
    target = tmp / "copied" / "var"
    shutil.copytree(world["home"], target, symlinks=True)
    return target, str(world["home"])


def _moved(world: dict, tmp: Path) -> tuple[Path, str]:
    first, _ = _copied(world, tmp)
    _ok(world["server"], "ask", QUESTION, "--home", str(first), "--json")  # it lived (and was opened) there
    target = tmp / "moved" / "var"
    target.parent.mkdir()
    os.rename(first, target)
    assert not first.exists()
    return target, str(first)


def _untarred(world: dict, tmp: Path) -> tuple[Path, str]:
    archive = tmp / "home.tar"
    subprocess.run(["tar", "-cf", str(archive), "-C", str(world["home"].parent), world["home"].name], check=True)
    (tmp / "restored").mkdir()
    subprocess.run(["tar", "-xf", str(archive), "-C", str(tmp / "restored")], check=True)
    return tmp / "restored" / world["home"].name, str(world["home"])


def _imported(world: dict, tmp: Path) -> tuple[Path, str]:
    archive = tmp / "memory.tar.zst"
    exported = _ok(world["server"], "export", str(archive), "--home", str(world["home"]), "--json")
    assert exported["files"] > 100 and exported["archive_bytes"] == archive.stat().st_size
    (tmp / "machine2").mkdir()
    target = tmp / "machine2" / "var"
    imported = _ok(world["server"], "import", str(archive), "--home", str(target), "--json")
    assert imported["audit_ok"] and imported["relocated_values"] > 0 and imported["exported_from"] == str(world["home"])
    assert not (target / "logs").exists() and not (target / "transcripts").exists()
    return target, str(world["home"])


@pytest.mark.parametrize("place", [_copied, _moved, _untarred, _imported], ids=["cp-a", "mv", "tar", "export-import"])
def test_a_relocated_home_answers_from_the_graph_and_sleeps_without_reingest(world, tmp_path: Path, place) -> None:
    server = world["server"]
    home, old_root = place(world, tmp_path)
    if place is not _imported:  # import relocates at once (tested below: its audit record)
        assert any(old_root + "/" in v for v in _locations(home))  # Cognee's paths still name the old place
    checkpoint = (home / "progress.json").read_bytes()
    notes = _tree(home / "store" / "memory")
    sleep_first = place is _untarred  # sleep (holding the data-home lock) is the first to open the moved graph

    if not sleep_first:
        asked = _ok(server, "ask", QUESTION, "--home", str(home), "--json")
        assert (asked["retrieval_method"], asked["fallback_used"], asked["topics"]) == ("hybrid", False, ["beta"])
        assert asked["sources"] and all(s["path"].startswith("memory/beta/") for s in asked["sources"] if s["graph_rank"])
        assert not any(old_root + "/" in v for v in _locations(home))
        assert json.loads((home / "location.json").read_text())["root"] == str(home)

    _ok(server, "remember", "Deploys of beta use the green pipeline since November.", "--session", "s2",
        "--topic", "beta", "--home", str(home), "--json")
    # an agent's memory replacing one of its topic waits for a person: approved on a terminal, then merged
    held = _ok(server, "sleep", "--home", str(home), "--json")
    assert (held["promoted"], held["held"]) == (0, 1)
    (entry,) = _ok(server, "review", "--home", str(home), "--json")
    code, out = _on_pty("review", "approve", entry["id"], "--home", str(home), typed=b"y\n",
                        env={"OLLAMA_HOST": server.url})
    assert code == 0, out
    server.reset_counts()
    night = _ok(server, "sleep", "--home", str(home), "--json")
    assert not any(old_root + "/" in v for v in _locations(home))
    assert json.loads((home / "location.json").read_text())["root"] == str(home)
    assert (night["promoted"], night["clusters_consolidated"], night["memories_merged"]) == (0, 1, 2)
    assert night["topics_rebuilt"] == ["beta"] and not night["topics_failed"]
    assert server.counts["/api/chat"] == 1  # the consolidation; no session was distilled again
    beta = _locations(home, "beta")
    assert not any(world["blue"] in loc for loc in beta)  # the pre-move memory's document was removed here
    assert any("/consolidated-" in loc for loc in beta) and all(loc.startswith(home.as_uri()) for loc in beta)

    again = _ok(server, "ask", QUESTION, "--home", str(home), "--json")
    assert (again["retrieval_method"], again["topics"]) == ("hybrid", ["beta"]) and "green pipeline" in again["answer"]
    assert again["sources"] and all(s["path"].startswith("memory/beta/") for s in again["sources"] if s["graph_rank"])

    verify = _ok(server, "audit", "verify", "--deep", "--json", "--home", str(home))
    assert verify["ok"] and not verify["deep_problems"], verify
    audit = [json.loads(line) for line in (home / "store/audit/log.jsonl").read_text().splitlines()]
    moves = [r for r in audit if r["op"] == "relocate"]
    assert moves and f"from {old_root} to {home}" in moves[-1]["reason"]
    assert (home / "progress.json").read_bytes() == checkpoint and _tree(home / "store" / "memory") == notes
    assert not any(r["actor"] == "ingest" and r["seq"] > moves[0]["seq"] for r in audit)
    assert _tree(world["home"] / "cognee") == world["cognee"]  # the original was never written to
