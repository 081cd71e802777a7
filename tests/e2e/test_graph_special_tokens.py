"""Sessions about language models quote special tokens of many tokenizers; their notes reach the graph
like any other (real ingest, real Cognee, the fake model server).

The stored notes keep the text as written; what Cognee and the model server receive never holds a
raw special token; a search hit gives the text back as the note has it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text

pytestmark = pytest.mark.e2e

TOKENS = {  # tokenizer → special tokens a session quotes
    "tiktoken cl100k": ["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>"],
    "Llama 3": ["<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>"],
    "ChatML / Qwen": ["<|im_start|>", "<|im_end|>"],
    "Phi-3": ["<|user|>", "<|end|>"],
    "DeepSeek": ["<｜begin▁of▁sentence｜>", "<｜User｜>"],
}


def _database(path: Path) -> Path:
    db = CraftedDb(path)
    for n, (tokenizer, tokens) in enumerate(sorted(TOKENS.items())):
        quoted = " and ".join(tokens)
        sid = db.session(f"ses_tokens_{n}", f"Strip {tokens[0]} from {tokenizer} generations")
        db.user(sid, f"Generations from the {tokenizer} model still contain {quoted}; make clean() strip them "
                     "and add a unit test that feeds every marker through it.")
        db.assistant(sid, [bash(f"grep -rn '{tokens[-1]}' src/", f"src/clean_{n}.py:3: MARKERS = ['{tokens[-1]}']"),
                           text(f"clean() now strips {quoted}; the new test covers each marker.")])
    sid = db.session("ses_plain", "Retry budget for the fetcher")
    db.user(sid, "Give the fetcher a retry budget of three attempts with exponential backoff and log each retry.")
    db.assistant(sid, [bash("pytest tests/test_fetcher.py", "3 passed"), text("Added the retry budget.")])
    db.close()
    return path


def test_notes_quoting_special_tokens_are_cognified_and_searchable_as_written(tmp_path: Path) -> None:
    db = _database(tmp_path / "opencode.db")
    home = DataHome(tmp_path / "var")
    every = [t for tokens in TOKENS.values() for t in tokens]
    with FakeOllama() as server:
        settings = Settings(home=home.root, ollama_host=server.url, workers=1)
        summary = IngestRun(settings, IngestOptions(db=db)).run()
        assert (summary.distilled, summary.cognify_status, summary.notes_rejected, summary.exit_code) == \
            (len(TOKENS) + 1, "ok", [], 0)
        (topic,) = summary.datasets
        notes = sorted((home.store / "memory" / topic).glob("*.md"))
        quoted = {t for note in notes for t in every if t in note.read_text(encoding="utf-8")}
        assert len(quoted) >= len(TOKENS)  # the store keeps the text as written, a token of every tokenizer
        sent = [json.dumps(body, ensure_ascii=False) for route, _m, body in server.calls
                if route in ("/api/generate", "/api/embed")]
        assert sent and not [t for t in every if any(t in body for body in sent)]
        knowledge_graph.configure(settings, home)
        counts = knowledge_graph.run_sync(knowledge_graph.graph_counts(topic))
        assert counts.data_items == len(notes) and counts.vector_rows.get("DocumentChunk_text") == len(notes)
        hits = knowledge_graph.run_sync(knowledge_graph.search("clean() strips the Llama 3 markers", [topic],
                                                               top_k=len(notes)))
    by_note = {h.document_name: h for h in hits}
    for note in notes:
        hit = by_note[note.stem]
        assert hit.source_uri == note.resolve().as_uri()
        assert hit.text == note.read_text(encoding="utf-8")  # restored: exactly the note
