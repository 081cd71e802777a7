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
* a ``memctl sleep`` promoting one memory (``memctl remember … --topic alpha`` before it), against the rebuild of
  its topic as the sleep's own report records it (remove, add, cognify; target ratio ≤ 1.5);
* a hook-triggered ``memctl ingest --session ID`` of one finished session (the sample's "hello.sh" session, left
  out of the home's first ingest; each run on a fresh copy of that home) against the model time: the union of
  the intervals the fake server spent answering (target ratio ≤ 1.5);

with, for the CLI rows, the p50 of the processes' own CPU time (user + system, ``RUSAGE_CHILDREN``): on a
machine shared with other work the wall clock waits for the CPU, the CPU time does not;

and the warm figure beside each cold one: ``search``/``ask`` the same in one process (``memory_search`` /
``memory_ask`` of a running server, ``--repeat`` calls after the first; target ≤ 0.5 s). Last, the top items of
``python -X importtime`` for one cold ``search``, no-op ``sleep``, promoting ``sleep`` and ``ingest --session``
(cumulative seconds of top-level imports), the top functions by CPU of one promoting sleep and one ingest
(cProfile, cumulative, memctl's own frames), and the floor a bare ``python -c pass`` costs, with the load
average at the start and the end. memctl's package is byte-compiled first (``compileall``): a user's install
has its ``.pyc`` files, a ``PYTHONDONTWRITEBYTECODE`` shell would otherwise recompile ~70 modules per process.
The machine is shared: run it when it is quiet, and read p50s and CPU times, not single wall times.

    .venv/bin/python -m bench.bench_cold_start --repeat 5
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.fakes import ollama_server
from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import FIXTURE_118, REPO, env_for, run_memctl

QUESTION = "How was the add() bug in calc.py fixed?"
TARGETS_S = {"search": 2.5, "ask (minus answer model)": 3.0, "serve: first memory_search": 3.0, "sleep (no-op)": 1.0}
WARM_TARGET_S = 0.5
RATIO_TARGET = 1.5  # sleep promoting one memory / its topic's rebuild; ingest --session / model time
LATE_SESSION = "ses_dd584b1b2ffe58qBeUBli7IXmm"  # "hello.sh script creation": ingested alone, as a hook would
PROMOTE_TOPIC = "alpha"
FACTS = (  # descriptive, low-risk and unrelated to each other: each promoted at once, none merged with another
    "Fixed the pagination bug on the orders page; the list now loads 50 rows at a time.",
    "The nightly report job finished in 12 minutes after the index on the invoices table was added.",
    "Release notes for version 2.3 were published on the wiki last Tuesday.",
    "The alpha dashboard shows weekly active users since the November redesign.",
)


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


class ModelClock:
    """The time the fake server spends answering: every request's (start, end) on the server's side, and
    :meth:`busy_since` the length of their union (overlapping calls count once), in seconds."""

    def __init__(self) -> None:
        self.intervals: list[tuple[float, float]] = []
        self._lock = threading.Lock()
        original = ollama_server._Handler._dispatch
        clock = self

        def timed(handler, method: str) -> None:  # noqa: ANN001 - the fake's request handler
            began = time.perf_counter()
            try:
                original(handler, method)
            finally:
                with clock._lock:
                    clock.intervals.append((began, time.perf_counter()))

        ollama_server._Handler._dispatch = timed

    def busy_since(self, start: float) -> float:
        with self._lock:
            spans = sorted(i for i in self.intervals if i[0] >= start)
        total, end = 0.0, start
        for began, finished in spans:
            if finished > end:
                total += finished - max(began, end)
                end = finished
        return total


def _ingest(server: FakeOllama, base: Path, sessions: list[str] | None) -> Path:
    """The sample OpenCode DB copied under ``base`` and ingested into ``base/var`` (only ``sessions`` if given)."""
    source = base / "opencode"
    source.mkdir()
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        if (FIXTURE_118 / name).exists():
            shutil.copy2(FIXTURE_118 / name, source / name)
    home = base / "var"
    extra = [arg for sid in sessions or () for arg in ("--session", sid)]
    proc = run_memctl(server, "ingest", "--db", str(source / "opencode.db"), "--home", str(home), "--json", *extra)
    if proc.returncode != 0:
        raise SystemExit(f"ingest failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return home


def _sample_sessions() -> list[str]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{FIXTURE_118 / 'opencode.db'}?mode=ro", uri=True)) as db:
        return [row[0] for row in db.execute("SELECT id FROM session ORDER BY id")]


def cold_ingest_session(server: FakeOllama, base: Path, snapshot: Path, clock: ModelClock) -> tuple[float, float, float]:
    """``base`` restored from ``snapshot`` (the sample home without LATE_SESSION; in place: a data home knows its
    path and never cognifies a moved copy), then ``ingest --session LATE_SESSION``: ``(wall s, model s, CPU s)``."""
    shutil.rmtree(base)
    shutil.copytree(snapshot, base, symlinks=True)
    started = time.perf_counter()
    wall, proc = _cli(server, "ingest", "--db", str(base / "opencode" / "opencode.db"), "--session", LATE_SESSION,
                      "--json", "--home", str(base / "var"))
    summary = json.loads(proc.stdout)
    if summary.get("distilled") != 1:
        raise SystemExit(f"ingest --session distilled {summary.get('distilled')} sessions, not 1")
    return wall, clock.busy_since(started), CPU[-1]


def cold_sleep_promotion(server: FakeOllama, home: Path, n: int) -> tuple[float, float, float] | None:
    """``remember`` one memory (:data:`FACTS`) in topic alpha, then a cold ``sleep``: ``(sleep wall s, rebuild s,
    CPU s)``; None (and a line saying why) when the sleep did not promote exactly that one memory."""
    _cli(server, "remember", FACTS[n % len(FACTS)], "--session", f"ses_bench_{n}", "--topic", PROMOTE_TOPIC,
         "--home", str(home), "--json")
    wall, proc = _cli(server, "sleep", "--json", "--home", str(home))
    summary = json.loads(proc.stdout)
    if summary.get("promoted") != 1 or summary.get("clusters_found"):
        print(f"run {n}: not counted, the sleep promoted {summary.get('promoted')} and found "
              f"{summary.get('clusters_found')} clusters (held {summary.get('held_reasons')})")
        return None
    report = json.loads(Path(summary["report_json"]).read_text())
    return wall, sum(t.get("seconds") or 0.0 for t in report.get("topics", [])), CPU[-1]


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


def import_profile(server: FakeOllama, args: list[str], top: int) -> list[tuple[int, str]]:
    """The ``top`` top-level imports of one cold ``memctl ARGS`` by cumulative time: ``[(µs, module)]``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl.cli", *args], env=env_for(server),
                          capture_output=True, text=True, cwd=REPO, timeout=900)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _self, cumulative, name = line[len("import time:"):].split("|")
            if not name.startswith("  ") and cumulative.strip().isdigit():  # a top-level import
                rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


_PROFILED = (  # cProfile through the exit hooks: a command that imported Cognee ends with os._exit after them
    "import atexit, cProfile, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['memctl', *sys.argv[2:]]\n"
    "profile = cProfile.Profile()\n"
    "atexit.register(lambda: (profile.disable(), profile.dump_stats(out)))\n"
    "profile.enable()\n"
    "runpy.run_module('memctl.cli', run_name='__main__', alter_sys=True)\n"
)


def cpu_profile(server: FakeOllama, args: list[str], top: int) -> list[tuple[float, float, str]]:
    """One cold ``memctl ARGS`` under cProfile (main thread only: a background import shows as the wait for
    it): the ``top`` functions of memctl by cumulative seconds, ``[(cumulative s, own s, function)]``;
    empty when the run wrote no profile."""
    with tempfile.TemporaryDirectory(prefix="bench-cold-prof-") as tmp:
        out = Path(tmp) / "run.prof"
        subprocess.run([sys.executable, "-c", _PROFILED, str(out), *args], env=env_for(server), capture_output=True,
                       text=True, cwd=REPO, timeout=900)
        if not out.exists():
            return []
        stats = pstats.Stats(str(out)).stats  # {(file, line, name): (calls, prim, own, cumulative, callers)}
    rows = [(cum, own, f"{Path(file).parent.name}/{Path(file).name}:{line} {name}")
            for (file, line, name), (_c, _p, own, cum, _) in stats.items()
            if "/memctl/" in file and "/cli/" not in file and name != "<module>"]
    return sorted(rows, reverse=True)[:top]


def _floor(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


ROWS = ("search", "ask", "sleep", "serve", "promote", "ingest")


def _restore(base: Path, snapshot: Path) -> None:
    shutil.rmtree(base)
    shutil.copytree(snapshot, base, symlinks=True)


def _print_imports(title: str, profile: list[tuple[int, str]]) -> None:
    print(f"\nimport profile of one cold `memctl {title}` (top-level imports, cumulative):")
    for micro, name in profile:
        print(f"  {micro / 1e6:6.2f} s  {name}")


def _print_cpu(title: str, profile: list[tuple[float, float, str]]) -> None:
    print(f"\nCPU profile of one cold `memctl {title}` (cProfile, main thread; memctl functions, cumulative / own s):")
    for cumulative, own, name in profile:
        print(f"  {cumulative:6.2f} {own:6.2f}  {name}")


def main() -> int:  # noqa: C901, PLR0915 - one linear run: build, time each row, profile, print
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per command (p50 over them)")
    parser.add_argument("--home", type=Path, help="an already ingested sample home for search/ask/sleep/serve (else "
                                                  "built in a temp dir; promote changes it)")
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS), help="which rows to time")
    parser.add_argument("--top", type=int, default=10, help="profile rows to print")
    args = parser.parse_args()
    compileall.compile_dir(str(REPO / "memctl"), quiet=1)
    load_start = os.getloadavg()
    clock = ModelClock()
    rows: dict[str, tuple[list[float], set[str]]] = {}
    cpu: dict[str, float] = {}
    ratios: dict[str, tuple[list[float], list[float], list[float], str]] = {}
    imports: dict[str, list] = {}
    cpus: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp, FakeOllama() as server:
        base, snapshot, home = Path(tmp) / "sample", Path(tmp) / "snapshot", args.home
        if "ingest" in args.rows or home is None:
            started = time.perf_counter()
            base.mkdir()
            late = "ingest" in args.rows
            _ingest(server, base, [sid for sid in _sample_sessions() if sid != LATE_SESSION] if late else None)
            print(f"sample home ingested in {time.perf_counter() - started:.0f} s: {base / 'var'}")
            if late:
                shutil.copytree(base, snapshot, symlinks=True)
                walls, model, used = [], [], []
                for _ in range(args.repeat):
                    wall, model_s, cpu_s = cold_ingest_session(server, base, snapshot, clock)
                    walls.append(wall)
                    model.append(model_s)
                    used.append(cpu_s)
                    print(f"ingest --session: wall {wall:.2f} s, model {model_s:.3f} s, CPU {cpu_s:.2f} s", flush=True)
                ratios["ingest --session ID (one finished session) / model time"] = (walls, used, model,
                                                                                     "model time (fake server)")
                _restore(base, snapshot)
                imports["ingest --session"] = import_profile(server, [
                    "ingest", "--db", str(base / "opencode" / "opencode.db"), "--session", LATE_SESSION, "--home",
                    str(base / "var")], args.top)
                _restore(base, snapshot)
                cpus["ingest --session"] = cpu_profile(server, [
                    "ingest", "--db", str(base / "opencode" / "opencode.db"), "--session", LATE_SESSION, "--home",
                    str(base / "var")], args.top)
            home = home or base / "var"
        for name, key, run in (("search", "search", cold_search), ("ask (minus answer model)", "ask", cold_ask),
                               ("sleep (no-op)", "sleep", cold_sleep)):
            if key not in args.rows:
                continue
            times, how = [], set()
            for _ in range(args.repeat):
                wall, method = run(server, home)
                times.append(wall)
                how.add(method)
            rows[name] = (times, how)
            cpu[name] = statistics.median(CPU[-args.repeat:])
            print(f"{name}: wall {', '.join(f'{t:.2f}' for t in times)} s, CPU {', '.join(f'{c:.2f}' for c in CPU[-args.repeat:])} s", flush=True)
        warm: dict[str, float] = {}
        if "serve" in args.rows:
            serve = [anyio.run(_serve, server, home, args.repeat if n == 0 else 0) for n in range(args.repeat)]
            rows["serve: first memory_search"] = ([s["first"] for s in serve], {s["method"] for s in serve})
            warm = {"search": statistics.median(serve[0]["search"]),
                    "ask (minus answer model)": statistics.median(serve[0]["ask"])}
        if "search" in args.rows:
            imports["search"] = import_profile(server, ["search", QUESTION, "--home", str(home)], args.top)
        if "sleep" in args.rows:
            imports["sleep (no-op)"] = import_profile(server, ["sleep", "--home", str(home)], args.top)
        if "promote" in args.rows:
            walls, used, rebuild = [], [], []
            for n in range(args.repeat):
                counted = cold_sleep_promotion(server, home, n)
                if counted is None:
                    continue
                wall, rebuild_s, cpu_s = counted
                print(f"sleep promoting one memory: wall {wall:.2f} s, rebuild {rebuild_s:.2f} s, CPU {cpu_s:.2f} s",
                      flush=True)
                walls.append(wall)
                rebuild.append(rebuild_s)
                used.append(cpu_s)
            if walls:
                ratios[f"sleep promoting one memory / rebuild of topic {PROMOTE_TOPIC}"] = (
                    walls, used, rebuild, "the topic's rebuild (sleep report)")
            _cli(server, "remember", "The beta build cache was moved to the second disk in October.", "--session",
                 "ses_bench_profile", "--topic", PROMOTE_TOPIC, "--home", str(home), "--json")
            imports["sleep promoting one memory"] = import_profile(server, ["sleep", "--home", str(home)], args.top)
            _cli(server, "remember", "The staging database was upgraded to PostgreSQL 16 in September.", "--session",
                 "ses_bench_profile2", "--topic", PROMOTE_TOPIC, "--home", str(home), "--json")
            cpus["sleep promoting one memory"] = cpu_profile(server, ["sleep", "--home", str(home)], args.top)
        floor = _floor(args.repeat)
    if rows:
        print("\n| command | cold p50 s | cold max s | cold CPU p50 s | target s | warm p50 s (running server) | "
              "served by |")
        print("|---|---|---|---|---|---|---|")
    for name, (times, how) in rows.items():
        target = TARGETS_S[name]
        verdict = "met" if statistics.median(times) <= target else "NOT met"
        warm_s = f"{warm[name]:.2f} (≤ {WARM_TARGET_S})" if name in warm else "-"
        cpu_s = f"{cpu[name]:.2f}" if name in cpu else "-"
        print(f"| {name} | {statistics.median(times):.2f} | {max(times):.2f} | {cpu_s} | ≤ {target} ({verdict}) | "
              f"{warm_s} | {', '.join(sorted(how))} |")
    if ratios:
        print("\n| command / reference | wall p50 s | CPU p50 s | reference p50 s | ratio p50 (wall / reference) | "
              "target |")
        print("|---|---|---|---|---|---|")
    for name, (walls, used, reference, what) in ratios.items():
        ratio = statistics.median(w / r if r else float("inf") for w, r in zip(walls, reference))
        verdict = "met" if ratio <= RATIO_TARGET else "NOT met"
        print(f"| {name} | {statistics.median(walls):.2f} | {statistics.median(used):.2f} | "
              f"{statistics.median(reference):.2f} ({what}) | {ratio:.2f} | ≤ {RATIO_TARGET} ({verdict}) |")
    print(f"\nfloor: python -c pass p50 {floor:.3f} s; Python {sys.version.split()[0]} on {os.cpu_count()} CPUs; "
          f"load average (1, 5, 15 min) at the start {', '.join(f'{x:.1f}' for x in load_start)}, at the end "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for title, profile in imports.items():
        _print_imports(title, profile)
    for title, profile in cpus.items():
        _print_cpu(title, profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
