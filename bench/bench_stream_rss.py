"""Benchmark (c): peak RSS while streaming 2,000 and 20,000 sessions.

Each size runs `memctl ingest --dry-run --json` (connector + normalize + scrub
+ sample + threshold over every session; nothing written) in a fresh
subprocess and reads its peak RSS (``ru_maxrss`` of the child). Streaming
means the peak must not grow with N: we print both peaks and their ratio.

    .venv/bin/python -m bench.bench_stream_rss [--sizes 2000 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fixtures.synthetic_opencode import build_database


def _peak_rss_mb(cmd: list[str], env: dict[str, str]) -> tuple[float, float, dict]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # max over children so far; sizes run ascending
    return usage.ru_maxrss / 1024, wall, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--turns", type=int, default=3, help="turns per synthetic session (~8 parts each)")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sorted(args.sizes):
            db = build_database(Path(tmp) / f"db-{size}.db", size, turns=args.turns)
            env = dict(os.environ, MEMCTL_HOME=str(Path(tmp) / "home"))
            cmd = [sys.executable, "-m", "memctl.cli", "ingest", "--dry-run", "--json", "--db", str(db)]
            rss, wall, summary = _peak_rss_mb(cmd, env)
            results.append({"sessions": size, "found": summary["found"], "peak_rss_mb": round(rss, 1),
                            "wall_s": round(wall, 1), "db_mb": round(db.stat().st_size / 1e6, 1)})
            print(json.dumps(results[-1]), flush=True)
    if len(results) >= 2:
        print(json.dumps({"rss_ratio_largest_to_smallest": round(results[-1]["peak_rss_mb"] / results[0]["peak_rss_mb"], 3),
                          "size_ratio": results[-1]["sessions"] / results[0]["sessions"]}))


if __name__ == "__main__":
    main()
