"""Failure boundaries of phases 2 and 3 (add and cognify), with real Cognee.

* A note Cognee refuses costs that note only: at add (a note changed after it
  was added) → exit 4, at cognify (text its tokenizer refuses) → exit 5; the
  topic's other notes reach the graph, the note is in ``notes_rejected``, in
  the data home's record and in ``doctor``; the next run offers it again.
* Cognify fails for the environment → exit 5; the re-run completes it without
  redoing distillation or adding duplicates.
* ``--reparse-all`` into a dataset that already holds notes is refused (exit 2).

For cognify, a model that vanishes after memctl's up-front check (HTTP 404)
is the environment failure used: Cognee treats it as terminal (no multi-minute retry).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.doctor import check_graph_rejections
from memctl.exit_codes import ExitCodeError
from memctl.graph import knowledge_graph
from memctl.graph.rejections import load_rejections
from memctl.ingest.run import IngestError, IngestOptions, IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.fixtures.synthetic_opencode import build_database
from tests.support.crafted_opencode import CraftedDb, bash

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


def test_a_changed_note_is_rejected_alone_and_the_run_exits_4(tmp_path: Path) -> None:
    """A note edited after it was added cannot be re-added over itself: that note is rejected
    (named, with the reason), the run exits 4, and the other notes are still cognified."""
    db = build_database(tmp_path / "opencode.db", 3, turns=2)
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        assert IngestRun(settings, IngestOptions(db=db)).run().exit_code == 0
        note = sorted((home / "distilled").glob("*.md"))[0]
        note.write_text(note.read_text() + "\nedited by hand\n")
        server.reset_counts()
        summary = IngestRun(settings, IngestOptions(db=db)).run()
        assert summary.add_status.startswith("partial: 1 note")
        assert [(r["note"], r["phase"]) for r in summary.notes_rejected] == [(f"memory/synthetic/{note.name}", "add")]
        assert "changed content" in summary.notes_rejected[0]["reason"]
        assert summary.cognify_status == "ok" and summary.exit_code == 4
        assert server.counts["/api/chat"] == 0
        assert [Path(r.path).name for r in load_rejections(DataHome(home).graph_rejections)] == [note.name]
        check = check_graph_rejections(DataHome(home))
        assert check.status == "warn" and f"memory/synthetic/{note.name}" in check.detail
        assert _data_count(home, settings, "synthetic") == 3  # the old version stays, nothing is lost


SPECIAL = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|endofprompt|>")  # tiktoken refuses each


def _topic_db(path: Path, titles: list[str]) -> Path:
    db = CraftedDb(path)
    for n, title in enumerate(titles):
        sid = db.session(f"ses_crafted_{n}", title)
        db.user(sid, f"Please look into {title} in the tokenizer module and tell me what the cleaner does with it.")
        db.assistant(sid, [bash(f"grep -rn 'clean' src/cleaner_{n}.py", f"src/cleaner_{n}.py:3: def clean(text):")])
    db.close()
    return path


@pytest.mark.parametrize("token", SPECIAL)
def test_a_note_cognee_cannot_tokenize_is_rejected_alone_and_the_topic_goes_on(
        tmp_path: Path, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With memctl's plain-text conversion switched off, tiktoken refuses the note: that note alone
    is rejected at cognify (exit 5), its topic's other notes reach the graph, and the next run (with
    the conversion back) gets it through and clears the record."""
    from memctl.graph import plain_text

    db = _topic_db(tmp_path / "opencode.db", ["Parser cache", f"Strip {token} from generations", "Retry budget"])
    home = tmp_path / "var"
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1)
        monkeypatch.setattr(plain_text, "plain", lambda text: text)
        first = IngestRun(settings, IngestOptions(db=db)).run()
        (topic,) = first.datasets
        assert first.add_status == "ok" and first.cognify_status.startswith("partial: 1 note")
        assert [(r["note"], r["phase"]) for r in first.notes_rejected] == [(f"memory/{topic}/ses_crafted_1.md", "cognify")]
        assert token in first.notes_rejected[0]["reason"] and first.exit_code == 5
        knowledge_graph.configure(settings, DataHome(home))
        counts = knowledge_graph.run_sync(knowledge_graph.graph_counts(topic))
        assert counts.data_items == 2 and counts.vector_rows.get("DocumentChunk_text") == 2 and counts.nodes > 0
        assert check_graph_rejections(DataHome(home)).status == "warn"

        monkeypatch.undo()
        second = IngestRun(settings, IngestOptions(db=db)).run()
        assert (second.notes_rejected, second.cognify_status, second.exit_code) == ([], "ok", 0)
        assert load_rejections(DataHome(home).graph_rejections) == []
        assert check_graph_rejections(DataHome(home)).status == "ok"
        assert knowledge_graph.run_sync(knowledge_graph.graph_counts(topic)).vector_rows["DocumentChunk_text"] == 3


def test_missing_graph_model_stops_before_cognee_with_the_pull_command(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama(missing_models={"graph-model:1b"}) as server:
        settings = Settings(home=tmp_path / "var", ollama_host=server.url, graph_model="graph-model:1b", workers=1)
        with pytest.raises(ExitCodeError, match=r"ollama pull graph-model:1b") as failed:
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
