"""Benchmark: parallel consolidation in `memctl sleep`, and a run that is all cache hits.

12 clusters of 2 related memories (user/global) are consolidated against the
fake Ollama server answering each call after a fixed latency, at concurrency
1, 3 and 6 (a fresh copy of the data home and an empty cache each time). The
consolidate phase's wall time gives the speedup over concurrency 1; ideal is
the concurrency itself (12 is divisible by each). Floor: speedup ≥ 0.8 × ideal.
Then the same clusters again with the cache kept: wall time and model calls (0).

    .venv/bin/python -m bench.bench_sleep --latency 1.0
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from memctl.config import Settings
from memctl.sleep.run import SleepOptions, SleepRun
from memctl.store import MemoryStore
from memctl.store.user_memory import render_memory
from tests.fakes.ollama_server import FakeOllama

CLUSTERS = 12
FLOOR = 0.8
SUBJECTS = ["billing", "search", "auth", "payments", "ingest", "render", "mailer", "gateway", "reports",
            "scheduler", "uploads", "metrics"]


def make_template(root: Path) -> None:
    store = MemoryStore(root / "store")
    for subject in SUBJECTS[:CLUSTERS]:
        for i in range(2):
            store.write_text(f"user/global/{subject}-{i}.md",
                             render_memory(f"Fact {i}: {subject.capitalize()} runs on host {subject}-{i}.internal, "
                                           f"owned by team-{subject}.", kind="note",
                                           created=f"2026-11-0{i + 1}T00:00:00Z", session=None, topic=None),
                             actor="sleep", reason="bench seed")


def run(template: Path, work: Path, server: FakeOllama, concurrency: int, keep_cache_from: Path | None = None):
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work)
    if keep_cache_from is not None:
        shutil.copytree(keep_cache_from / "cache", work / "cache")
    server.reset_counts()
    summary = SleepRun(Settings(home=work, ollama_host=server.url),
                       SleepOptions(concurrency=concurrency, rebuild=False)).run()
    report = json.loads(Path(summary.report_json).read_text())
    phase_s = next(p["seconds"] for p in report["phases"] if p["name"] == "consolidate")
    assert summary.clusters_consolidated == CLUSTERS, summary
    return phase_s, summary, server.counts["/api/chat"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call at the fake server")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 3, 6])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(latency_s=args.latency, latency_routes=["/api/chat"]) as server:
        template = Path(tmp) / "template"
        make_template(template)
        print(f"{CLUSTERS} clusters, fake model latency {args.latency:g} s per call")
        print("| concurrency | consolidate s | model calls | speedup | ideal | ratio to ideal |")
        print("|---|---|---|---|---|---|")
        base = None
        for c in args.concurrency:
            seconds, summary, calls = run(template, Path(tmp) / f"c{c}", server, c)
            base = base or seconds
            speedup = base / seconds
            print(f"| {c} | {seconds:.2f} | {calls} | {speedup:.2f} | {c} | {speedup / c:.2f} |")
        last = Path(tmp) / f"c{args.concurrency[-1]}"
        seconds, summary, calls = run(template, Path(tmp) / "cached", server, args.concurrency[-1], keep_cache_from=last)
        print()
        print(f"all cache hits: consolidate {seconds:.3f} s, whole run {summary.wall_s:.2f} s, model calls {calls}, "
              f"cache hits {summary.cache_hits}")


if __name__ == "__main__":
    main()
