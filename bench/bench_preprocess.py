"""Benchmark (a): the pre-model stage against the read + decode floor, per core and on every core.

One run, one synthetic OpenCode 1.18 database (``tests/fixtures/synthetic_opencode.py``,
the real schema; ~96 parts and ~50 KB of part JSON per session), three measurements:

(a) floor: per root session, fetch its message and part rows with plain ``sqlite3``
    (read-only) and JSON-decode every ``data`` cell with orjson — nothing else. The
    least any reader of this database can do (the script is :func:`floor`).
(b) the pre-model stage per core: ``memctl ingest --dry-run`` (decide, read,
    normalize, scrub, sample, threshold, plan row) in one process
    (``transcript_processes=1``), pinned to one core like (a).
(c) the same dry run as users run it: ``transcript_processes=0`` (one process per
    usable core, :mod:`memctl.ingest.premodel`), on every core.

Prints sessions/s of each (median of ``--repeat`` runs, measurements interleaved so
load changes hit all three alike), CPU milliseconds per session (all processes), the
load average before and after, and the ratios (b)/(a) — target >= 0.3, by wall time
and by CPU time — and (c)/(a x cores).

``--pool-start`` also times dry runs of 64-1024 sessions in one process against the same
runs with the pool started at the first session, to set
:data:`memctl.ingest.premodel.POOL_THRESHOLD`.

    .venv/bin/python -m bench.bench_preprocess [--sessions 2000] [--repeat 3] [--pool-start]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

import orjson

from memctl.config import Settings
from memctl.ingest import premodel
from memctl.ingest.run import IngestOptions, IngestRun
from tests.fixtures.synthetic_opencode import build_database

TARGET_PER_CORE = 0.3


def floor(db: Path) -> int:
    """Read every root session's rows and decode every ``data`` cell; return the sessions read."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        roots = [row[0] for row in conn.execute(
            "SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_created, id")]
        for sid in roots:
            for (data,) in conn.execute("SELECT data FROM message WHERE session_id = ?", (sid,)):
                orjson.loads(data)
            for (data,) in conn.execute("SELECT data FROM part WHERE session_id = ?", (sid,)):
                orjson.loads(data)
        return len(roots)
    finally:
        conn.close()


def dry_run(db: Path, home: Path, processes: int, limit: int | None = None) -> int:
    """``memctl ingest --dry-run`` over ``db``; return the sessions planned."""
    settings = Settings(home=home, transcript_processes=processes, settle_minutes=0)
    summary = IngestRun(settings, IngestOptions(db=db, dry_run=True, limit=limit)).run()
    return summary.found


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn, *args) -> tuple[float, float]:
    """Sessions per wall second of one call of ``fn(*args)`` (which returns the sessions done),
    and CPU milliseconds per session (every process: on a shared machine wall time depends on
    what else runs, CPU time much less)."""
    started, cpu = time.perf_counter(), _cpu_s()
    done = fn(*args)
    return done / (time.perf_counter() - started), (_cpu_s() - cpu) * 1000 / done


def pool_start(db: Path, home: Path, processes: int, sizes: list[int], repeat: int) -> list[dict]:
    """Wall time of dry runs of ``sizes`` sessions: in one process vs with the pool started at the
    first session (while its processes start, sessions are prepared in this one)."""
    rows = []
    for size in sizes:
        serial, pooled = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            dry_run(db, home, 1, size)
            serial.append(time.perf_counter() - started)
            with mock.patch.object(premodel, "POOL_THRESHOLD", 0):
                started = time.perf_counter()
                dry_run(db, home, processes, size)
                pooled.append(time.perf_counter() - started)
        rows.append({"sessions": size, "one_process_s": round(statistics.median(serial), 3),
                     "pool_s": round(statistics.median(pooled), 3)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pool-start", action="store_true", help="also time small runs: one process vs pool")
    args = parser.parse_args()
    all_cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cores = premodel.process_count(0)

    def pin(one: bool) -> None:
        if all_cores:
            os.sched_setaffinity(0, {all_cores[0]} if one else set(all_cores))

    with tempfile.TemporaryDirectory() as tmp:
        db = build_database(Path(tmp) / "opencode.db", args.sessions)
        home = Path(tmp) / "var"
        runs: dict[str, list[tuple[float, float]]] = {"a": [], "b": [], "c": []}
        load_before = os.getloadavg()
        for _ in range(args.repeat):
            pin(True)
            runs["a"].append(timed(floor, db))
            runs["b"].append(timed(dry_run, db, home, 1))
            pin(False)  # spawned processes inherit the mask: restore it before the pool starts
            runs["c"].append(timed(dry_run, db, home, 0))
        starts = pool_start(db, home, cores, [64, 128, 256, 512, 1024], args.repeat) if args.pool_start else None
    rate = {k: statistics.median(r for r, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    a, b, c = rate["a"], rate["b"], rate["c"]
    result = {
        "sessions": args.sessions,
        "cores": cores,
        "load_average_before_after": [[round(x, 2) for x in load_before], [round(x, 2) for x in os.getloadavg()]],
        "a_floor_sessions_per_s": round(a, 1),
        "b_stage_one_core_sessions_per_s": round(b, 1),
        "c_stage_all_cores_sessions_per_s": round(c, 1),
        "runs_sessions_per_s": {k: [round(r) for r, _ in v] for k, v in runs.items()},
        "cpu_ms_per_session": {k: round(v, 3) for k, v in cpu.items()},
        "b_over_a": round(b / a, 3),
        "b_over_a_target": TARGET_PER_CORE,
        "b_over_a_by_cpu": round(cpu["a"] / cpu["b"], 3),
        "c_over_a_times_cores": round(c / (a * cores), 3),
        "c_over_b": round(c / b, 2),
        "c_cpu_over_b_cpu": round(cpu["c"] / cpu["b"], 2),
    }
    if starts is not None:
        result["pool_start"] = starts
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
