"""Failure boundaries of phases 2 and 3 (add and cognify), with real Cognee.

* Add batch fails → non-zero exit (4), naming the batch; nothing is cognified.
* Cognify fails → non-zero exit (5); the re-run completes it without redoing
  distillation or adding duplicates.
* ``--reparse-all`` into a dataset that already holds notes is refused (exit 2).

For cognify, a model that vanishes after memctl's up-front check (HTTP 404)
is the failure used: Cognee treats it as terminal (no multi-minute retry).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph
from memctl.ingest.run import IngestError, IngestOptions, IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.fixtures.synthetic_opencode import build_database

pytestmark = pytest.mark.e2e


def _data_count(home: Path, settings: Settings, dataset: str) -> int:
    knowledge_graph.configure(settings, DataHome(home))
    return knowledge_graph.run_sync(knowledge_graph.dataset_data_count(dataset))


def test_cognify_failure_exits_5_and_rerun_completes(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        # The model disappears after memctl's up-front check: Cognee's calls get 404s.
        server.fail_next(1000, status=404, routes=["/api/generate"],
                         message='model "llama3.1:8b" not found, try pulling it first')
        first = IngestRun(settings, IngestOptions(db=db)).run()
        assert first.distilled == 2 and first.add_status == "ok"
        assert first.cognify_status.startswith("failed") and first.exit_code == 5
        server.clear_faults()
        server.reset_counts()
        second = IngestRun(settings, IngestOptions(db=db)).run()
        assert second.exit_code == 0 and second.cognify_status == "ok"
        assert server.counts["/api/chat"] == 0  # distillation is not redone
        assert any(path == "/api/generate" and body.get("format") for path, _m, body in server.calls)
        assert _data_count(home, settings, "synthetic") == 2  # no duplicates from the second add


def test_add_failure_exits_4_and_skips_cognify(tmp_path: Path) -> None:
    """A note edited after it was added cannot be re-added over itself: the batch fails
    with a message naming it, the run exits 4, and cognify does not run on a partial add."""
    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        assert IngestRun(settings, IngestOptions(db=db)).run().exit_code == 0
        note = sorted((home / "distilled").glob("*.md"))[0]
        note.write_text(note.read_text() + "\nedited by hand\n")
        server.reset_counts()
        summary = IngestRun(settings, IngestOptions(db=db)).run()
        assert summary.add_status.startswith("failed") and "changed content" in summary.add_status
        assert note.name in summary.add_status
        assert summary.cognify_status == "not run" and summary.exit_code == 4
        assert server.counts["/api/chat"] == 0


def test_missing_graph_model_stops_before_cognee_with_the_pull_command(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama(missing_models={"graph-model:1b"}) as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, graph_model="graph-model:1b", workers=1)
        with pytest.raises(IngestError, match=r"ollama pull graph-model:1b") as failed:
            IngestRun(settings, IngestOptions(db=db)).run()
    assert failed.value.exit_code == 9


def test_reparse_all_refuses_a_used_dataset(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        assert IngestRun(settings, IngestOptions(db=db)).run().exit_code == 0
        server.reset_counts()
        with pytest.raises(IngestError, match="only runs into new or empty datasets") as refused:
            IngestRun(settings, IngestOptions(db=db, reparse_all=True)).run()
        assert refused.value.exit_code == 2
        assert server.counts["/api/chat"] == 0


def test_wrong_embedding_dimensions_are_refused_before_any_work(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama() as server:  # serves 768-dimensional vectors
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, embedding_dimensions=1024, workers=1)
        with pytest.raises(IngestError, match="MEMCTL_EMBEDDING_DIMENSIONS=768") as refused:
            IngestRun(settings, IngestOptions(db=db)).run()
        assert server.counts["/api/chat"] == 0
    assert refused.value.exit_code == 9
    assert not (tmp_path / "var" / "cognee").exists()
