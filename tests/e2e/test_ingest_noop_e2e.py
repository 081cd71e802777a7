"""A scheduled ingest that finds nothing new does not start Cognee (memctl.ingest.graph_ledger) —
and the shortcut is never trusted over Cognee's own state: a dataset emptied behind memctl's back,
a note whose content changed, or `--verify-graph` send the notes to Cognee again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.ingest.graph_ledger import cognified_documents, ledger_path, unsettled_notes
from tests.fakes.ollama_server import FakeOllama

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"
ROUTES = ("/api/chat", "/api/generate", "/api/embed", "/api/show", "/api/tags")


def _ingest(db: Path, home: Path, server: FakeOllama, *extra: str) -> tuple[int, dict, str, int]:
    server.reset_counts()
    proc = subprocess.run(
        [sys.executable, "-m", "memctl.cli", "ingest", "--db", str(db), "--home", str(home), "--json", *extra],
        env={**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, timeout=900,
    )
    try:
        summary = json.loads(proc.stdout)
    except ValueError:
        summary = {}
    return proc.returncode, summary, proc.stderr, sum(server.counts[r] for r in ROUTES)


def _notes(home: DataHome) -> list[tuple[str, Path]]:
    return [(p.parent.name, p) for p in sorted((home.store / "memory").glob("*/*.md"))]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("noop")
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(FIXTURE / name, base / name)
    server = FakeOllama().start()
    db, home = base / "opencode.db", base / "var"
    code, summary, err, _ = _ingest(db, home, server)
    assert code == 0 and summary["notes_added"] == 7, err
    yield db, home, server
    server.stop()


def test_a_run_with_nothing_new_sends_nothing_to_cognee_or_the_model(world) -> None:
    db, home, server = world
    code, summary, err, requests = _ingest(db, home, server)
    assert code == 0, err
    assert summary["add_status"] == summary["cognify_status"] == "nothing to do"
    assert requests == 0
    data_home = DataHome(home)
    assert unsettled_notes(data_home, _notes(data_home)) == 0
    ledger = json.loads(ledger_path(data_home).read_text())
    assert len(ledger["notes"]) == 7 and set(ledger["datasets"]) == {"alpha", "beta", "scratch"}


def test_a_changed_note_is_unsettled(world) -> None:
    _, home, _ = world
    data_home = DataHome(home)
    notes = _notes(data_home)
    target = notes[0][1]
    original = target.read_bytes()
    try:
        target.write_bytes(original + b"\nedited by hand\n")
        assert unsettled_notes(data_home, notes) == 1
    finally:
        target.write_bytes(original)
    assert unsettled_notes(data_home, notes) == 0


def test_verify_graph_hands_every_note_to_cognee(world) -> None:
    db, home, server = world
    code, summary, err, requests = _ingest(db, home, server, "--verify-graph")
    assert code == 0, err
    assert summary["notes_submitted"] == 7 and summary["notes_added"] == 0  # Cognee already held them
    assert summary["add_status"] == summary["cognify_status"] == "ok"
    assert requests > 0  # the model check and Cognee's own probes ran


def test_a_dataset_emptied_behind_memctls_back_is_rebuilt(world) -> None:
    db, home, server = world
    data_home = DataHome(home)
    from memctl.graph import knowledge_graph

    knowledge_graph.configure(Settings(home=home, ollama_host=server.url), data_home)

    async def empty_beta() -> int:
        import cognee

        dataset = await knowledge_graph.find_dataset("beta")
        rows = await cognee.datasets.list_data(dataset.id)
        for row in rows:
            await cognee.datasets.delete_data(dataset.id, row.id)
        return len(rows)

    removed = knowledge_graph.run_sync(empty_beta())
    knowledge_graph.close()  # release the graph store's file lock for the next `memctl ingest` process
    assert removed > 0
    assert "beta" not in (cognified_documents(data_home) or {})
    assert unsettled_notes(data_home, _notes(data_home)) == removed
    code, summary, err, _ = _ingest(db, home, server)
    assert code == 0, err
    assert "Traceback" not in err
    assert summary["notes_added"] == removed and summary["cognify_status"] == "ok"
    assert len((cognified_documents(data_home) or {}).get("beta", set())) == removed
    code, summary, err, requests = _ingest(db, home, server)  # and then it is a no-op again
    assert code == 0 and summary["add_status"] == "nothing to do" and requests == 0, err
