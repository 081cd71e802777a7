"""Benchmark: memctl from a cold start — `search`, `ask`, the first MCP `memory_search`, a no-op `sleep`.

Builds the README's sample home once (the bundled OpenCode 1.18 fixture, ingested by the real CLI into real
Cognee, tests/fakes/ollama_server.py answering the models; tests/support/memctl_process.py ``ingest_fixture``), then
times each command in FRESH processes (``python -m memctl.cli``, wall clock, ``--repeat`` runs, p50):

* ``memctl search QUESTION`` (target p50 ≤ 2.5 s);
* ``memctl ask QUESTION`` minus the answer model's own time (``answer_s`` from ``--json``; the fake answers in
  about a millisecond) (target ≤ 3 s);
* ``memctl serve`` started, then the first MCP ``memory_search`` over stdio (the SDK's client, as
  bench/bench_serve.py; from spawn to the answer) (target ≤ 3 s);
* a no-op ``memctl sleep`` (nothing staged; target ≤ 1 s);

with, for the CLI rows, the p50 of the processes' own CPU time (user + system, ``RUSAGE_CHILDREN``): on a
machine shared with other work the wall clock waits for the CPU, the CPU time does not;

and the warm figure beside each cold one: ``search``/``ask`` the same in one process (``memory_search`` /
``memory_ask`` of a running server, ``--repeat`` calls after the first; target ≤ 0.5 s). Last, the top items of
``python -X importtime`` for one cold ``search`` (cumulative µs of top-level imports) and the floor a bare
``python -c pass`` costs. The machine is shared: run it when it is quiet, and read p50s, not single runs.

    .venv/bin/python -m bench.bench_cold_start --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import REPO, env_for, ingest_fixture

QUESTION = "How was the add() bug in calc.py fixed?"
TARGETS_S = {"search": 2.5, "ask (minus answer model)": 3.0, "serve: first memory_search": 3.0, "sleep (no-op)": 1.0}
WARM_TARGET_S = 0.5


CPU: list[float] = []  # user + system CPU seconds of each fresh CLI process, in order


def _cli(server: FakeOllama, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memctl.cli", *args], env=env_for(server), capture_output=True,
                          text=True, cwd=REPO, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"memctl {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc


def cold_search(server: FakeOllama, home: Path) -> tuple[float, str]:
    wall, proc = _cli(server, "search", QUESTION, "--json", "--home", str(home))
    return wall, json.loads(proc.stdout)["retrieval_method"]


def cold_ask(server: FakeOllama, home: Path) -> tuple[float, str]:
    wall, proc = _cli(server, "ask", QUESTION, "--json", "--home", str(home))
    result = json.loads(proc.stdout)
    return wall - float(result["answer_s"]), result["retrieval_method"]


def cold_sleep(server: FakeOllama, home: Path) -> tuple[float, str]:
    wall, proc = _cli(server, "sleep", "--json", "--home", str(home))
    summary = json.loads(proc.stdout)
    return wall, f"promoted {summary.get('promoted', 0)}"


async def _serve(server: FakeOllama, home: Path, warm_calls: int) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memctl.cli", "serve", "--home", str(home)],
                                   env=env_for(server), cwd=str(REPO))
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("memory_search", {"query": QUESTION})
        out = {"first": time.perf_counter() - started, "method": first.structuredContent["retrieval_method"],
               "search": [], "ask": []}
        for _ in range(warm_calls):
            began = time.perf_counter()
            await session.call_tool("memory_search", {"query": QUESTION})
            out["search"].append(time.perf_counter() - began)
            began = time.perf_counter()
            result = await session.call_tool("memory_ask", {"question": QUESTION})
            out["ask"].append(time.perf_counter() - began - result.structuredContent["answer_s"])
    return out


def import_profile(server: FakeOllama, home: Path, top: int) -> list[tuple[int, str]]:
    """The ``top`` top-level imports of one cold ``search`` by cumulative time: ``[(µs, module)]``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl.cli", "search", QUESTION, "--home",
                           str(home)], env=env_for(server), capture_output=True, text=True, cwd=REPO, timeout=600)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _self, cumulative, name = line[len("import time:"):].split("|")
            if not name.startswith("  ") and cumulative.strip().isdigit():  # a top-level import
                rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def _floor(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per command (p50 over them)")
    parser.add_argument("--home", type=Path, help="an already ingested sample home to reuse (else built in a temp dir)")
    parser.add_argument("--top", type=int, default=12, help="import-profile rows to print")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp, FakeOllama() as server:
        home = args.home
        if home is None:
            started = time.perf_counter()
            home = ingest_fixture(Path(tmp), server)
            print(f"sample home ingested in {time.perf_counter() - started:.0f} s: {home}")
        rows: dict[str, tuple[list[float], set[str]]] = {}
        cpu: dict[str, float] = {}
        for name, run in (("search", cold_search), ("ask (minus answer model)", cold_ask),
                          ("sleep (no-op)", cold_sleep)):
            times, how = [], set()
            for _ in range(args.repeat):
                wall, method = run(server, home)
                times.append(wall)
                how.add(method)
            rows[name] = (times, how)
            cpu[name] = statistics.median(CPU[-args.repeat:])
        serve = [anyio.run(_serve, server, home, args.repeat if n == 0 else 0) for n in range(args.repeat)]
        rows["serve: first memory_search"] = ([s["first"] for s in serve], {s["method"] for s in serve})
        warm = {"search": statistics.median(serve[0]["search"]), "ask (minus answer model)": statistics.median(serve[0]["ask"])}
        profile = import_profile(server, home, args.top)
        floor = _floor(args.repeat)
    print("\n| command | cold p50 s | cold max s | cold CPU p50 s | target s | warm p50 s (running server) | served by |")
    print("|---|---|---|---|---|---|---|")
    for name, (times, how) in rows.items():
        target = TARGETS_S[name]
        verdict = "met" if statistics.median(times) <= target else "NOT met"
        warm_s = f"{warm[name]:.2f} (≤ {WARM_TARGET_S})" if name in warm else "-"
        cpu_s = f"{cpu[name]:.2f}" if name in cpu else "-"
        print(f"| {name} | {statistics.median(times):.2f} | {max(times):.2f} | {cpu_s} | ≤ {target} ({verdict}) | {warm_s} | "
              f"{', '.join(sorted(how))} |")
    print(f"\nfloor: python -c pass p50 {floor:.3f} s; load average (1, 5, 15 min) at the end: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print("\nimport profile of one cold `memctl search` (top-level imports, cumulative):")
    for micro, name in profile:
        print(f"  {micro / 1e6:6.2f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
