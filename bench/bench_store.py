"""Benchmark: the memory store's write path and `memctl audit verify`.

1. ``write_text`` of 1 KB files with versions + audit (every step fsynced):
   ops/s and p50/p99 latency for one process, and for 4 processes
   contending on distinct paths and on the same path.
2. ``memctl audit verify`` over a 100,000-record log (target < 2 s), timed
   as a user runs it (a fresh ``memctl`` process) and in-process.

    .venv/bin/python -m bench.bench_store --ops 400 --records 100000
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from memctl.store import MemoryStore
from memctl.store.audit import GENESIS, record_hash, utc_now

VERIFY_TARGET_S = 2.0
PAYLOAD = "x" * 1000


def _writer(root: str, ops: int, same_path: bool, worker: int, out) -> None:  # noqa: ANN001 - mp queue
    store = MemoryStore(Path(root), lock_timeout=300)
    latencies = []
    began = time.time()
    for i in range(ops):
        path = "user/bench/shared.md" if same_path else f"user/bench/w{worker}/f{i % 50}.md"
        content = f"{worker}:{i}\n{PAYLOAD}"
        started = time.perf_counter()
        store.write_text(path, content, actor="sleep", reason="bench")
        latencies.append(time.perf_counter() - started)
    out.put((began, time.time(), latencies))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_writes(ops: int) -> None:
    ctx = mp.get_context("spawn")
    print("| scenario | processes | ops | wall s | ops/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|---|---|")
    for label, procs, same in (("single process", 1, False), ("distinct paths", 4, False), ("same path", 4, True)):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "store"
            MemoryStore(root).write_text("user/seed.md", "seed", actor="sleep", reason="bench")
            queue = ctx.Queue()
            per = ops // procs
            workers = [ctx.Process(target=_writer, args=(str(root), per, same, w, queue)) for w in range(procs)]
            started = time.perf_counter()
            for w in workers:
                w.start()
            latencies: list[float] = []
            spans = []
            for _ in workers:
                began, ended, worker_latencies = queue.get(timeout=600)
                spans.append((began, ended))
                latencies.extend(worker_latencies)
            wall = time.perf_counter() - started
            for w in workers:
                w.join()
            assert MemoryStore(root).verify().ok
            # wall includes process start-up (spawn ≈ 0.3 s); ops/s spans first write start to last write end
            busy = max(e for _, e in spans) - min(b for b, _ in spans)
            print(f"| {label} | {procs} | {len(latencies)} | {wall:.2f} | {len(latencies) / busy:,.0f} | "
                  f"{statistics.median(latencies) * 1000:.2f} | {_percentile(latencies, 0.99) * 1000:.2f} |")


def build_log(root: Path, records: int) -> None:
    """Write a valid chained log of ``records`` records directly (the append path would take minutes of fsyncs)."""
    audit = root / "audit"
    audit.mkdir(parents=True)
    prev = GENESIS
    now = utc_now()
    with open(audit / "log.jsonl", "wb") as handle:
        for seq in range(1, records + 1):
            sha = f"{seq:064x}"
            data = {"op": "write", "path": f"user/bench/f{seq % 1000}.md", "actor": "sleep",
                    "reason": "promote proposal p-%d" % seq, "old_sha": None, "new_sha": sha, "version": sha,
                    "seq": seq, "prev": prev, "time": now}
            data["hash"] = record_hash(data)
            handle.write(orjson.dumps(data, option=orjson.OPT_SORT_KEYS) + b"\n")
            prev = data["hash"]
    (audit / "head.json").write_bytes(orjson.dumps({"hash": prev, "seq": records}))


def bench_verify(records: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "var"
        build_log(home / "store", records)
        size_mb = (home / "store" / "audit" / "log.jsonl").stat().st_size / 1e6
        started = time.perf_counter()
        report = MemoryStore(home / "store").verify()
        in_process = time.perf_counter() - started
        assert report.ok and report.records == records, report.problem
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "memctl.cli", "audit", "verify", "--home", str(home)],
                              capture_output=True, text=True)
        cli_s = time.perf_counter() - started
        assert proc.returncode == 0, proc.stderr
        print("| records | log MB | in-process s | `memctl audit verify` s | target s | ratio to target |")
        print("|---|---|---|---|---|---|")
        print(f"| {records:,} | {size_mb:.1f} | {in_process:.2f} | {cli_s:.2f} | {VERIFY_TARGET_S} | "
              f"{cli_s / VERIFY_TARGET_S:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=400, help="writes per scenario (split across processes)")
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; every write fsyncs blob, audit line, head and file")
    bench_writes(args.ops)
    print()
    bench_verify(args.records)


if __name__ == "__main__":
    main()
