"""A topic's rebuild (sleep) with a memory Cognee refuses: the other memories still reach the graph,
the refused one is reported and recorded, and the next rebuild that gets it through clears the record.
Real Cognee, the fake model server."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph, plain_text
from memctl.graph.rebuild import rebuild_topic
from memctl.graph.rejections import load_rejections
from tests.fakes.ollama_server import FakeOllama

pytestmark = pytest.mark.e2e


def _memory(home: DataHome, name: str, text: str) -> Path:
    path = home.store / "user" / "topics" / "beta" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nsession: s1\ncreated: 2026-11-30\n---\n{text}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("token", ["<|endoftext|>", "<|fim_middle|>"])
def test_a_refused_memory_costs_only_itself_and_is_retried(tmp_path: Path, token: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    home = DataHome(tmp_path / "var")
    memories = [_memory(home, "m1.md", "Deploys of beta use the blue pipeline."),
                _memory(home, "m2.md", f"The beta cleaner strips {token} from every generation."),
                _memory(home, "m3.md", "Bob owns the beta release checklist.")]
    with FakeOllama() as server:
        settings = Settings(home=home.root, ollama_host=server.url)
        monkeypatch.setattr(plain_text, "plain", lambda text: text)  # as memctl was before its conversion
        first = knowledge_graph.run_sync(rebuild_topic("beta", memories, [], settings, home))
        assert first.error is None and first.cognified
        assert [(r["path"], r["phase"]) for r in first.rejected] == [(str(memories[1].resolve()), "cognify")]
        assert token in first.rejected[0]["reason"]
        counts = knowledge_graph.run_sync(knowledge_graph.graph_counts("beta"))
        assert counts.data_items == 2 and counts.vector_rows.get("DocumentChunk_text") == 2
        assert [Path(r.path).name for r in load_rejections(home.graph_rejections)] == ["m2.md"]

        monkeypatch.undo()
        second = knowledge_graph.run_sync(rebuild_topic("beta", memories, [], settings, home))
        assert (second.error, second.rejected, second.added) == (None, [], 1)
        assert load_rejections(home.graph_rejections) == []
        assert knowledge_graph.run_sync(knowledge_graph.graph_counts("beta")).vector_rows["DocumentChunk_text"] == 3
