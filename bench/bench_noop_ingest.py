"""Benchmark: the wall time of an ingest that finds nothing to do (the common scheduled run).

1. The real fixture (tests/fixtures/opencode-1.18): a full ingest against
   the fake Ollama server, then ``--repeat`` no-op runs, each a fresh
   ``memctl ingest`` process. Target ≤ 1.5 s.
2. ``--sessions`` synthetic sessions (default 10,000): ``ingest --phase
   distill`` against the fake server writes and publishes every note; the
   graph phases' outcome is then recorded with
   :func:`memctl.ingest.graph_ledger.record_settled` (cognifying 10,000 notes
   against even a fake model takes hours, and a no-op run reads only the
   ledger and Cognee's database, which it finds absent here); then the no-op
   runs are timed. Target ≤ 3 s.

Printed: median and max wall seconds of the no-op runs, and whether each
sent any request to the model server (it must not).

    .venv/bin/python -m bench.bench_noop_ingest --sessions 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memctl.catalog.checkpoint import Checkpoint  # noqa: E402
from memctl.config import DataHome  # noqa: E402
from memctl.ingest.graph_ledger import record_settled  # noqa: E402
from memctl.ingest.publish import memory_path  # noqa: E402
from tests.fakes.ollama_server import FakeOllama  # noqa: E402
from tests.fixtures.synthetic_opencode import build_database  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"


def _ingest(db: Path, home: Path, server: FakeOllama, *extra: str) -> float:
    script = Path(sys.executable).with_name("memctl")
    started = time.perf_counter()
    proc = subprocess.run([str(script), "ingest", "--json", "--db", str(db), "--home", str(home), *extra],
                          env={**os.environ, "OLLAMA_HOST": server.url, "MEMCTL_SETTLE_MINUTES": "0"},
                          capture_output=True, text=True, timeout=7200)
    if proc.returncode != 0:
        raise SystemExit(f"ingest {' '.join(extra)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.perf_counter() - started


def _noops(label: str, db: Path, home: Path, server: FakeOllama, repeat: int, target: float) -> None:
    server.reset_counts()
    walls = [_ingest(db, home, server) for _ in range(repeat)]
    requests = sum(server.counts.values())
    median = statistics.median(walls)
    print(f"{label}: no-op ingest median {median:.2f} s, max {max(walls):.2f} s over {repeat} runs "
          f"(target {target:.1f} s: {'met' if median <= target else 'NOT met'}); model requests: {requests}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memctl-bench-noop-") as tmp, FakeOllama() as server:
        work = Path(tmp)
        for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
            shutil.copy2(FIXTURE / name, work / name)
        _ingest(work / "opencode.db", work / "fixture-home", server)
        _noops("fixture (9 sessions, 7 notes)", work / "opencode.db", work / "fixture-home", server, args.repeat, 1.5)

        db = build_database(work / "synthetic.db", args.sessions)
        home = work / "synthetic-home"
        started = time.perf_counter()
        _ingest(db, home, server, "--phase", "distill")
        data_home = DataHome(home)
        groups: dict[str, list[Path]] = {}
        for sid, entry in Checkpoint(data_home.progress, data_home.skipped).distilled().items():
            groups.setdefault(entry.topic or "misc", []).append(data_home.store / memory_path(entry.topic, sid))
        record_settled(data_home, groups)
        print(f"synthetic setup: {sum(len(p) for p in groups.values())} notes in {time.perf_counter() - started:.0f} s")
        _noops(f"synthetic ({args.sessions} sessions)", db, home, server, args.repeat, 3.0)


if __name__ == "__main__":
    main()
