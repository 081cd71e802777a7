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
import tempfile
from pathlib import Path

from bench.sleep_setup import CLUSTERS, make_template, timed_sleep
from tests.fakes.ollama_server import FakeOllama

FLOOR = 0.8


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
            seconds, summary, calls = timed_sleep(template, Path(tmp) / f"c{c}", server, c)
            base = base or seconds
            speedup = base / seconds
            print(f"| {c} | {seconds:.2f} | {calls} | {speedup:.2f} | {c} | {speedup / c:.2f} |")
        last = Path(tmp) / f"c{args.concurrency[-1]}"
        seconds, summary, calls = timed_sleep(template, Path(tmp) / "cached", server, args.concurrency[-1], cache_from=last)
        print()
        print(f"all cache hits: consolidate {seconds:.3f} s, whole run {summary.wall_s:.2f} s, model calls {calls}, "
              f"cache hits {summary.cache_hits}")


if __name__ == "__main__":
    main()
