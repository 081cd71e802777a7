"""Benchmark: model requests per note and cognify wall time, embedding requests batched or one per text.

For 1, 10 and 50 synthetic sessions (tests/fixtures/synthetic_opencode.py),
``memctl ingest --phase distill`` writes the notes, then ``memctl ingest
--phase add`` and ``--phase cognify`` run as a user runs them (fresh
processes) against the fake Ollama server with a fixed latency on
``/api/embed`` and on the extraction calls. Each size runs twice on copies
of the same distilled home: ``embedding_batch_size`` 1 (one text per
request: what Cognee sends alone) and the default (memctl's list requests,
:mod:`memctl.graph.embedding_batches`). Printed per run: requests per note by
route, bytes per embedding request, cognify wall time, and the ratio of the
wall time to the model-bound ideal (extraction calls × latency / Cognee's
concurrency).

    .venv/bin/python -m bench.bench_model_calls --sizes 1,10,50 --latency 0.05
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memctl.config import Settings  # noqa: E402
from tests.fakes.ollama_server import FakeOllama  # noqa: E402
from tests.fixtures.synthetic_opencode import build_database  # noqa: E402

ROUTES = ("/api/embed", "/api/generate", "/api/show", "/api/chat")


def _memctl(db: Path, home: Path, server: FakeOllama, phase: str, batch: int) -> float:
    env = {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO), "MEMCTL_EMBEDDING_BATCH_SIZE": str(batch)}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memctl.cli", "ingest", "--json", "--phase", phase, "--db", str(db),
                           "--home", str(home)], env=env, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"ingest --phase {phase} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.perf_counter() - started


def _one(size: int, latency: float, work: Path) -> None:
    db = build_database(work / f"opencode-{size}.db", size)
    distilled = work / f"home-{size}"
    with FakeOllama() as server:
        _memctl(db, distilled, server, "distill", Settings.model_fields["embedding_batch_size"].default)
    notes = len(list((distilled / "distilled").glob("*.md"))) or 1
    data_per_batch = Settings.model_fields["data_per_batch"].default
    for batch in (1, Settings.model_fields["embedding_batch_size"].default):
        home = work / f"home-{size}-b{batch}"
        shutil.copytree(distilled, home, symlinks=True)
        with FakeOllama(latency_s=latency, latency_routes=("/api/embed", "/api/generate")) as server:
            _memctl(db, home, server, "add", batch)
            server.reset_counts()
            wall = _memctl(db, home, server, "cognify", batch)
            embeds = [body for path, _, body in server.calls if path == "/api/embed"]
            extraction = sum(1 for path, _, body in server.calls
                             if path == "/api/generate" and isinstance(body, dict) and body.get("format"))
            counts = {route: server.counts[route] for route in ROUTES}
        sent = sum(len(json.dumps(b.get("input"))) for b in embeds)
        ideal = extraction * latency / min(data_per_batch, notes)
        per_note = "  ".join(f"{route.rsplit('/', 1)[1]} {counts[route] / notes:5.1f}" for route in ROUTES)
        print(f"{size:>3} sessions, {notes:>3} notes, embedding batch {batch:>3}: per note  {per_note}  "
              f"bytes/embed request {sent / max(1, len(embeds)):7.0f}  cognify wall {wall:6.1f} s  "
              f"(model-bound ideal {ideal:5.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,50")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per embed and extraction request")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memctl-bench-calls-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            _one(size, args.latency, Path(tmp))


if __name__ == "__main__":
    main()
