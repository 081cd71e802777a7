"""Benchmark: sleep's consolidation on the local engine vs the Flyte engine in local mode.

12 clusters of 2 related memories (bench.bench_sleep's data home), the fake
Ollama server answering each consolidation call after ``--latency`` seconds,
at concurrency 1, 3 and 6, each run on a fresh copy of the data home with
empty caches. Two ratios to ideal per row: against the ideal time
``12 / concurrency × latency`` (12 is divisible by each; fixed overheads count
against it), and the speedup over the same engine at concurrency 1 divided by
the concurrency (bench.bench_sleep's measure: fixed overheads cancel). Then the Flyte engine once more on a fresh copy that keeps only
Flyte's cache (memctl's own consolidation cache removed): time and model calls
(0 expected — every cluster a Flyte cache hit).

    .venv/bin/python -m bench.bench_sleep_engines --latency 1.0
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.sleep_setup import CLUSTERS, make_template, timed_sleep
from tests.fakes.ollama_server import FakeOllama


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call at the fake server")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 3, 6])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(latency_s=args.latency, latency_routes=["/api/chat"]) as server:
        template = Path(tmp) / "template"
        make_template(template)
        print(f"{CLUSTERS} clusters, fake model latency {args.latency:g} s per call")
        print("| engine | concurrency | consolidate s | ideal s | ratio to ideal time | speedup over c=1 "
              "| ratio to ideal speedup | model calls | peak at server |")
        print("|---|---|---|---|---|---|---|---|---|")
        last_flyte, base = None, {}
        for concurrency in args.concurrency:
            for engine in ("local", "flyte"):
                work = Path(tmp) / f"{engine}-c{concurrency}"
                seconds, _summary, calls = timed_sleep(template, work, server, concurrency, engine=engine)
                ideal = CLUSTERS / concurrency * args.latency
                base.setdefault(engine, seconds)  # the first concurrency given (1 by default) is the baseline
                speedup = base[engine] / seconds
                label = "flyte (local mode)" if engine == "flyte" else engine
                print(f"| {label} | {concurrency} | {seconds:.2f} | {ideal:.2f} | {ideal / seconds:.2f} "
                      f"| {speedup:.2f} | {speedup / concurrency:.2f} | {calls} | {server.peak_concurrency} |")
                if engine == "flyte":
                    last_flyte = work
        seconds, summary, calls = timed_sleep(template, Path(tmp) / "flyte-cached", server, args.concurrency[-1],
                                              engine="flyte", cache_from=last_flyte, cache="cache/flyte")
        print()
        print(f"flyte, all Flyte cache hits: consolidate {seconds:.3f} s, whole run {summary.wall_s:.2f} s, "
              f"model calls {calls}, cache hits {summary.cache_hits}")


if __name__ == "__main__":
    main()
