"""Benchmark: a `memctl sleep` that promotes one memory, against its topic's own rebuild time.

The real fixture is ingested into a data home (fake Ollama server), then
``--repeat`` times: one ``memctl remember`` for topic ``alpha`` and one
``memctl sleep`` (fresh processes, as a user runs them). Printed per run: the
sleep's wall time, the rebuild of ``alpha`` as the sleep report records it
(remove, add one file, cognify), and their ratio. Target: ≤ 1.5× (the rest
is starting and stopping Cognee and memctl around the rebuild).

    .venv/bin/python -m bench.bench_sleep_promotion --repeat 3
"""

from __future__ import annotations

import argparse
import json
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

from tests.fakes.ollama_server import FakeOllama  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"
TARGET = 1.5


def _memctl(server: FakeOllama, *args: str) -> tuple[float, dict]:
    script = Path(sys.executable).with_name("memctl")
    started = time.perf_counter()
    proc = subprocess.run([str(script), *args, "--json"], env={**os.environ, "OLLAMA_HOST": server.url},
                          capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"memctl {args[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    with tempfile.TemporaryDirectory(prefix="memctl-bench-sleep1-") as tmp, FakeOllama() as server:
        work = Path(tmp)
        for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
            shutil.copy2(FIXTURE / name, work / name)
        home = work / "home"
        _memctl(server, "ingest", "--db", str(work / "opencode.db"), "--home", str(home))
        for n in range(args.repeat):
            _memctl(server, "remember", f"Run {n}: the alpha service now listens on port {8100 + n}",
                    "--session", f"ses_bench_{n}", "--topic", "alpha", "--home", str(home))
            wall, summary = _memctl(server, "sleep", "--home", str(home))
            report = json.loads(Path(summary["report_json"]).read_text())
            rebuild = sum(t.get("seconds", 0.0) for t in report.get("topics", []))
            ratio = wall / rebuild if rebuild else float("inf")
            ratios.append(ratio)
            print(f"run {n + 1}: promoted {summary.get('promoted')}, sleep {wall:5.1f} s, "
                  f"rebuild of alpha {rebuild:5.1f} s, ratio {ratio:.2f}")
    median = statistics.median(ratios)
    print(f"median ratio sleep / rebuild: {median:.2f} (target ≤ {TARGET}: {'met' if median <= TARGET else 'NOT met'})")


if __name__ == "__main__":
    main()
