"""Benchmark: a dry-run ingest of a synthetic Claude Code history against the OpenCode reader, per megabyte.

Both histories hold the same conversations (``--sessions`` sessions of
``--turns`` exchanges: :mod:`tests.fixtures.synthetic_opencode` and
:mod:`tests.fixtures.synthetic_claude_code`, the latter with the bookkeeping
records a real Claude Code file carries). Each is read by ``memctl ingest
--dry-run`` in-process (decide, read, normalize, scrub, sample, plan: the
whole pre-model stage) with ``transcript_processes=1`` (one process: the
reader's own rate, not the machine's core count), alternately, ``--repeat``
times. Printed per source: the source's size on disk (MB), the median wall
seconds, sessions/s and MB/s; and the ratio of Claude Code's MB/s to
OpenCode's (target >= 1: the new reader is not slower per byte).

    .venv/bin/python -m bench.bench_claude_code_read --sessions 10000 --turns 2 --repeat 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memctl.config import Settings  # noqa: E402
from memctl.ingest.options import IngestOptions  # noqa: E402
from memctl.ingest.run import IngestRun  # noqa: E402
from tests.fixtures.synthetic_claude_code import build_history  # noqa: E402
from tests.fixtures.synthetic_opencode import build_database  # noqa: E402


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _dry_run(base: Path, options: IngestOptions, sessions: int) -> float:
    home = Path(tempfile.mkdtemp(dir=base, prefix="home-"))
    start = time.perf_counter()
    summary = IngestRun(Settings(home=home, settle_minutes=0, transcript_processes=1), options).run()
    wall = time.perf_counter() - start
    if summary.found != sessions:
        raise SystemExit(f"expected {sessions} sessions, the dry run found {summary.found}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memctl-bench-cc-") as tmp:
        base = Path(tmp)
        db = build_database(base / "opencode.db", args.sessions, turns=args.turns)
        claude = build_history(base / "claude", args.sessions, turns=args.turns)
        runs = {
            "opencode": (IngestOptions(db=db, dry_run=True, sources=("opencode",)), _size(db)),
            "claude-code": (IngestOptions(db=db, claude_dir=claude, dry_run=True, sources=("claude-code",)),
                            _size(claude / "projects")),
        }
        walls: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, (options, _) in runs.items():
                walls[name].append(_dry_run(base, options, args.sessions))
        rates = {}
        print(f"{args.sessions:,} sessions x {args.turns} turns, dry run, one process")
        for name, (_, size) in runs.items():
            wall = statistics.median(walls[name])
            rates[name] = size / 1e6 / wall
            print(f"  {name:12} {size / 1e6:8.1f} MB  {wall:7.2f} s  {args.sessions / wall:8.0f} sessions/s  "
                  f"{rates[name]:6.1f} MB/s")
        print(f"  claude-code / opencode MB/s: {rates['claude-code'] / rates['opencode']:.2f} (target >= 1)")


if __name__ == "__main__":
    main()
