"""Benchmark (a): pre-model processing per session, on one core.

Connector (read-only SQLite) + normalize + scrub + sample + threshold, exactly
as `memctl ingest` runs them, over a synthetic OpenCode 1.18 database of
typical sessions (~100 parts, ~40 KB). Prints median / p95 ms per session and
sessions/s; floor: >= 300 sessions/s per core.

    .venv/bin/python -m bench.bench_preprocess --sessions 500
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from memctl.config import Settings
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.ingest.transcript import build_transcript
from tests.fixtures.synthetic_opencode import build_database

FLOOR_SESSIONS_PER_S = 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=500)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp:
        db = build_database(Path(tmp) / "opencode.db", args.sessions)
        source = OpenCodeSource(db)
        source.check_schema()
        timings, sizes, parts = [], [], []
        started = time.perf_counter()
        for info in source.iter_root_infos():
            t0 = time.perf_counter()
            session = source.read_session(info)
            build_transcript(session, settings)
            timings.append((time.perf_counter() - t0) * 1000)
            sizes.append(sum(len(json.dumps(p.data)) for p in session.parts))
            parts.append(len(session.parts))
        wall = time.perf_counter() - started
    timings.sort()
    p95 = timings[int(len(timings) * 0.95) - 1]
    rate = len(timings) / wall
    result = {
        "sessions": len(timings),
        "parts_per_session_median": statistics.median(parts),
        "source_kb_per_session_median": round(statistics.median(sizes) / 1024, 1),
        "median_ms": round(statistics.median(timings), 3),
        "p95_ms": round(p95, 3),
        "sessions_per_s": round(rate, 1),
        "floor_sessions_per_s": FLOOR_SESSIONS_PER_S,
        "ratio_to_floor": round(rate / FLOOR_SESSIONS_PER_S, 2),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
