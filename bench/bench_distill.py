"""Benchmark (b): distill throughput against the fake Ollama server at a fixed latency.

The fake server runs in its own process with a fixed per-call latency (default
200 ms) and server-side concurrency 8 — a stand-in for a GPU box that serves 8
requests at once. For 1, 2, 4, 8 workers, `memctl ingest --phase distill` runs
over a synthetic database (40 sessions per worker) and we print sessions/hour
and the ratio to the ideal ``workers / latency``. Floor: >= 0.85 at 8 workers.

    .venv/bin/python -m bench.bench_distill [--latency 0.2] [--workers 1 2 4 8]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from memctl.config import Settings
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fixtures.synthetic_opencode import build_database

FLOOR_AT_8 = 0.85


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--server-concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--sessions-per-worker", type=int, default=40)
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.ollama_server", "--port", str(port), "--latency", str(args.latency),
         "--max-concurrency", str(args.server_concurrency)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                httpx.get(url + "/api/version", timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for workers in args.workers:
                n = workers * args.sessions_per_worker
                db = build_database(Path(tmp) / f"db-{workers}.db", n, turns=6)
                settings = Settings(home=Path(tmp) / f"home-{workers}", ollama_host=url, workers=workers)
                started = time.perf_counter()
                summary = IngestRun(settings, IngestOptions(db=db, phase="distill")).run()
                wall = time.perf_counter() - started
                done = summary.distilled + summary.skipped_junk
                per_hour = done / wall * 3600
                ideal = workers / args.latency * 3600
                rows.append({"workers": workers, "sessions": done, "errors": summary.errors, "wall_s": round(wall, 2),
                             "sessions_per_hour": round(per_hour), "ideal_per_hour": round(ideal),
                             "ratio_to_ideal": round(per_hour / ideal, 3)})
                print(json.dumps(rows[-1]), flush=True)
        at8 = next((r for r in rows if r["workers"] == 8), None)
        if at8:
            print(json.dumps({"floor_at_8_workers": FLOOR_AT_8, "ratio_at_8_workers": at8["ratio_to_ideal"],
                              "meets_floor": at8["ratio_to_ideal"] >= FLOOR_AT_8}))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
