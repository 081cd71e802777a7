"""Run several `ask`s in ONE process (Cognee is imported once) and print JSON — for the e2e tests.

    python -m tests.support.ask_batch HOME SPEC.json

SPEC: ``{"questions": [{"question": ..., "session": ..., "topics": [...], "propose": bool, "use_graph": bool}],
"counts": ["alpha", ...]}``. Prints ``{"results": [AskResult.as_dict() | {"error": msg, "exit_code": n}],
"counts_before": {...}, "counts_after": {...}, "prompts": [...]}`` where counts are
knowledge_graph.graph_counts per listed dataset (data items, nodes, edges, vector rows).
OLLAMA_HOST must point at the fake server.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from memctl.ask.run import AskOptions, ask
from memctl.config import DataHome, Settings
from memctl.exit_codes import ExitCodeError


def _counts(settings: Settings, datasets: list[str]) -> dict:
    if not datasets:
        return {}
    from memctl.graph import knowledge_graph

    knowledge_graph.configure(settings, DataHome(settings.home))
    return {name: asdict(knowledge_graph.run_sync(knowledge_graph.graph_counts(name))) for name in datasets}


def main() -> int:
    home, spec_path = Path(sys.argv[1]), Path(sys.argv[2])
    spec = json.loads(spec_path.read_text())
    settings = Settings(home=home)
    out: dict = {"counts_before": _counts(settings, spec.get("counts", []))}
    results = []
    for item in spec["questions"]:
        options = AskOptions(question=item["question"], session=item.get("session"), topics=item.get("topics", []),
                             propose=item.get("propose"), use_graph=item.get("use_graph", True))
        try:
            results.append(ask(settings, options).as_dict())
        except ExitCodeError as exc:
            results.append({"error": str(exc), "exit_code": exc.exit_code})
    out["results"] = results
    out["counts_after"] = _counts(settings, spec.get("counts", []))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
