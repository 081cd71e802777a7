"""A missing model or a stopped Ollama is found in seconds, named with its fix, before Cognee is asked:
`sleep`'s rebuild and `ask`'s graph search used to wait out Cognee's 30-48 s and blame something else."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.ask.retrieval import retrieve
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex
from memctl.cli.main import app
from memctl.config import DataHome, Settings
from memctl.exit_codes import MODEL
from memctl.store import MemoryStore
from tests.fakes.ollama_server import FakeOllama

runner = CliRunner()


def _home_with_a_topic_memory(tmp_path: Path) -> Path:
    """A data home whose next sleep promotes one memory of topic infra (so it must rebuild that dataset)."""
    data = DataHome(tmp_path / "home")
    TopicIndex({"infra": TopicEntry("infra", "/src/infra", "infra: Terraform", [])}).save(data.topic_index)
    result = runner.invoke(app, ["remember", "--topic", "infra", "Terraform state lives in the s3 backend.",
                                 "--home", str(data.root)])
    assert result.exit_code == 0, result.output
    return data.root


@pytest.mark.serial  # a deadline (20 s) on a whole sleep run
def test_sleep_with_ollama_down_fails_in_seconds_naming_it(tmp_path: Path) -> None:
    home = _home_with_a_topic_memory(tmp_path)
    started = time.monotonic()
    result = runner.invoke(app, ["sleep", "--json", "--home", str(home)])
    elapsed = time.monotonic() - started
    summary = json.loads(result.stdout)
    assert result.exit_code == MODEL and summary["promoted"] == 1
    assert "cannot reach Ollama at http://127.0.0.1:9" in summary["model_unavailable"]
    assert "COGNEE_SKIP_CONNECTION_TEST" not in result.output and elapsed < 20, elapsed
    assert "infra" in (home / "sleep_state.json").read_text()  # still to rebuild: the next sleep does it


def test_sleep_names_a_graph_model_that_is_not_pulled(tmp_path: Path) -> None:
    home = _home_with_a_topic_memory(tmp_path)
    with FakeOllama(missing_models=["nomic-embed-text"]) as server:
        result = runner.invoke(app, ["sleep", "--json", "--home", str(home)], env={"OLLAMA_HOST": server.url})
    summary = json.loads(result.stdout)
    assert result.exit_code == MODEL
    assert "model 'nomic-embed-text' is not available" in summary["model_unavailable"]
    assert "`ollama pull nomic-embed-text`" in summary["model_unavailable"]


def test_ask_retrieval_names_a_missing_embedding_model_at_once(tmp_path: Path) -> None:
    data = DataHome(tmp_path / "home")
    store = MemoryStore(data.store)
    store.write_text("memory/infra/s1.md", "---\nsource_id: s1\ntitle: Terraform lock\n---\n\n# Terraform lock\n\n"
                     "force-unlock fixed the stuck DynamoDB lock.\n", actor="ingest", reason="test")
    index = TopicIndex({"infra": TopicEntry("infra", "/src/infra", "infra: Terraform lock",
                                            [NoteRef("s1", "memory/infra/s1.md", "Terraform lock", "2026-11-01",
                                                     "infra")])})
    data.cognee.mkdir(parents=True)
    with FakeOllama(missing_models=["nomic-embed-text"]) as server:
        settings = Settings(home=data.root, ollama_host=server.url)
        started = time.monotonic()
        found = retrieve("terraform lock", ["infra"], settings, data, index, top_k=3)
    assert time.monotonic() - started < 10
    assert found.method == "notes" and [h.source.source_id for h in found.hits] == ["s1"]
    assert "`ollama pull nomic-embed-text`" in found.fallback_reason and "took longer" not in found.fallback_reason
