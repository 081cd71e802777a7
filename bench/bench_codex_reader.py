"""Benchmark: the Codex reader against the OpenCode reader on the same synthetic content, side by side.

Builds a synthetic OpenCode 1.18 database (``tests/fixtures/synthetic_opencode.py``)
and a synthetic ``CODEX_HOME`` (``tests/fixtures/synthetic_codex.py``, the
shapes Codex 0.171 writes) with the same number of sessions and the same
content per turn, then times, for each source, the dry run's work per session
without the CLI around it: list the roots, read every session through the
connector and build its transcript (normalize, scrub, sample:
:func:`memctl.ingest.transcript.build_transcript`). Prints sessions/s and
MB/s (bytes of the source on disk: the database file, or all rollout files),
median of ``--repeat`` runs, interleaved so load changes hit both alike.
The Codex reader's per-MB rate is the figure to keep at or above OpenCode's.

    .venv/bin/python -m bench.bench_codex_reader [--sessions 10000] [--turns 3] [--repeat 3] [--read-only]
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
from memctl.connectors.codex.source import CodexSource
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.ingest.transcript import build_transcript
from tests.fixtures.synthetic_codex import build_codex_home
from tests.fixtures.synthetic_opencode import build_database


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*.jsonl"))


def _run(source, settings: Settings, transcripts: bool) -> tuple[float, int]:
    started = time.perf_counter()
    count = 0
    source.check_schema()
    for session in source.iter_sessions():
        if transcripts:
            build_transcript(session, settings)
        count += 1
    source.close()
    return time.perf_counter() - started, count


def main() -> None:
    """Build both histories in a temp dir, time both readers, print one JSON line per source and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--read-only", action="store_true", help="connector only, no transcript building")
    args = parser.parse_args()
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        db = build_database(Path(tmp) / "opencode.db", args.sessions, turns=args.turns)
        codex = build_codex_home(Path(tmp) / "codex", args.sessions, turns=args.turns)
        print(f"built both histories in {time.perf_counter() - t:.1f} s", flush=True)
        sizes = {"opencode": _size(db), "codex": _size(codex)}
        runs: dict[str, list[float]] = {"opencode": [], "codex": []}
        for _ in range(args.repeat):
            for name in ("opencode", "codex"):
                source = OpenCodeSource(db) if name == "opencode" else CodexSource(codex)
                wall, count = _run(source, settings, not args.read_only)
                assert count == args.sessions, (name, count)
                runs[name].append(wall)
        rates = {}
        for name, walls in runs.items():
            wall = statistics.median(walls)
            rates[name] = sizes[name] / 1e6 / wall
            print(json.dumps({"source": name, "sessions": args.sessions, "turns": args.turns,
                              "mb": round(sizes[name] / 1e6, 1), "median_s": round(wall, 2),
                              "sessions_per_s": round(args.sessions / wall, 1), "mb_per_s": round(rates[name], 2),
                              "transcripts": not args.read_only, "load": round(os.getloadavg()[0], 1)}), flush=True)
        print(json.dumps({"codex_vs_opencode_mb_per_s": round(rates["codex"] / rates["opencode"], 2)}))


if __name__ == "__main__":
    main()
