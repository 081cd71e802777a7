"""Benchmark: the fixed cost of starting `memctl` — `--help` of the root and of every command.

Each help is a fresh ``memctl`` process (the console script in the venv),
timed wall-clock; the figure is the median of ``--repeat`` runs (start-up
varies with the machine's load; the median is the honest middle). Targets:
``memctl --help`` ≤ 150 ms, every other help ≤ 200 ms. A bare interpreter
(``python -c pass``) is timed the same way as the floor nothing can beat.

    .venv/bin/python -m bench.bench_startup --repeat 15
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT_TARGET_S = 0.150
COMMAND_TARGET_S = 0.200


def _median_wall(argv: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _command_paths() -> list[list[str]]:
    import typer

    from memctl.cli.main import app

    def walk(cmd, prefix: list[str]):  # noqa: ANN001 - click command or group
        yield prefix
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            yield from walk(sub, prefix + [name])

    return list(walk(typer.main.get_command(app), []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("memctl")
    floor = _median_wall([sys.executable, "-c", "pass"], args.repeat)
    print(f"python -c pass (floor): {floor * 1000:.0f} ms")
    worst = 0.0
    failed = []
    for argv in _command_paths():
        wall = _median_wall([str(script), *argv, "--help"], args.repeat)
        target = ROOT_TARGET_S if not argv else COMMAND_TARGET_S
        name = " ".join(["memctl", *argv, "--help"])
        verdict = "ok" if wall <= target else "OVER"
        if wall > target:
            failed.append(name)
        worst = max(worst, wall)
        print(f"{name:<45} {wall * 1000:6.0f} ms  (target {target * 1000:.0f} ms, {verdict})")
    print(f"slowest help: {worst * 1000:.0f} ms; over target: {', '.join(failed) or 'none'}")


if __name__ == "__main__":
    main()
