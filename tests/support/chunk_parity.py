"""Cognee's own chunk search and memctl's direct reader, side by side on one home; prints JSON (for the tests).

    python -m tests.support.chunk_parity HOME SPEC.json

SPEC: ``{"cases": [{"question": ..., "topics": [...], "top_k": n}]}``. Prints ``{"cases": [{"cognee": [hit],
"reader": [hit], "cognee_retrieve": [path], "reader_retrieve": [path]}]}``, a hit being ``[dataset,
document_name, source_uri, score, text]``; the ``*_retrieve`` lists are the sources ``retrieve`` returns with
Cognee's search forced and with the reader. OLLAMA_HOST must point at the model server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memctl.ask import retrieval
from memctl.ask.chunk_reader import nearest_chunks, query_vector
from memctl.ask.run import load_index
from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph


def _rows(hits) -> list:  # noqa: ANN001 - SearchHit list
    return [[h.dataset, h.document_name, h.source_uri, h.score, h.text] for h in hits]


def main() -> int:
    home = DataHome(Path(sys.argv[1]))
    spec = json.loads(Path(sys.argv[2]).read_text())
    settings = Settings(home=home.root)
    index = load_index(home)
    knowledge_graph.configure(settings, home)
    out = []
    for case in spec["cases"]:
        question, topics, top_k = case["question"], case["topics"], case["top_k"]
        cognee = knowledge_graph.run_sync(knowledge_graph.search(question, topics, kind="chunks", top_k=top_k))
        reader = nearest_chunks(query_vector(question, settings, home, index), topics, home, top_k)
        direct = retrieval.direct_chunks
        retrieval.direct_chunks = lambda *args, **kwargs: None  # Cognee's search answers
        try:
            forced = retrieval.retrieve(question, topics, settings, home, index, top_k=top_k, wide_topics=index.slugs)
        finally:
            retrieval.direct_chunks = direct
        read = retrieval.retrieve(question, topics, settings, home, index, top_k=top_k, wide_topics=index.slugs)
        out.append({"cognee": _rows(cognee), "reader": _rows(reader),
                    "cognee_retrieve": [[h.source.path, h.graph_rank] for h in forced.hits],
                    "reader_retrieve": [[h.source.path, h.graph_rank] for h in read.hits],
                    "methods": [forced.method, read.method]})
    print(json.dumps({"cases": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
