"""Benchmark: `memctl serve` warm, against the ingested OpenCode 1.18 fixture (real Cognee, graph path).

Measured from an MCP client (the SDK's stdio client) over 100 questions built
from the fixture's note titles:

* ``memory_search`` latency, p50/p95 (target p50 <= 0.3 s; a cold CLI `ask` pays ~9-12 s of start-up);
  and how many were served by the graph (the rest by the raw notes, with the reason);
* ``memory_ask`` latency minus the answer model's time (``answer_s``), p50/p95 — the
  serving overhead; the fake model answers in about a millisecond, so the router call is included;
* the CLI ``memctl ask`` through the running server vs in-process, side by side in one run
  (``--cli-runs`` each; the CLI's own start-up, ~0.6 s of Python imports, is in both).

The only fake is the Ollama server (tests/fakes/ollama_server.py, the real wire protocol).

    .venv/bin/python -m bench.bench_serve --questions 100 --cli-runs 5
"""

from __future__ import annotations

import argparse
import json
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

TARGET_SEARCH_P50_S = 0.3
TEMPLATES = ("How did we handle {t}?", "What was done in '{t}'?", "{t}: what changed and why?",
             "Remind me about {t}", "Where is the note on {t}?")


def questions(home: Path, count: int) -> list[str]:
    """``count`` questions cycling over every note title of the topic index and the templates."""
    index = json.loads((home / "topic_index.json").read_text())
    titles = sorted(n["title"] for t in index["topics"].values() for n in t["notes"])
    made = [template.format(t=title) for template in TEMPLATES for title in titles]
    return [made[i % len(made)] + ("" if i < len(made) else f" ({i // len(made)})") for i in range(count)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def measure_tools(server: FakeOllama, home: Path, asked: list[str]) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memctl.cli", "serve", "--home", str(home)],
                                   env=env_for(server), cwd=str(REPO))
    out: dict = {"search": [], "ask_overhead": [], "ask_total": [], "methods": {}}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        started = time.monotonic()
        await session.initialize()
        await session.call_tool("memory_search", {"query": asked[0]})  # waits for the start-up warm-up
        out["first_call_s"] = time.monotonic() - started
        for question in asked:
            began = time.monotonic()
            result = await session.call_tool("memory_search", {"query": question})
            out["search"].append(time.monotonic() - began)
            method = result.structuredContent["retrieval_method"]
            out["methods"][method] = out["methods"].get(method, 0) + 1
        for question in asked:
            began = time.monotonic()
            result = await session.call_tool("memory_ask", {"question": question})
            total = time.monotonic() - began
            out["ask_total"].append(total)
            out["ask_overhead"].append(total - result.structuredContent["answer_s"])
    return out


def cli_ask(server: FakeOllama, home: Path, question: str) -> float:
    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "memctl.cli", "ask", question, "--home", str(home)],
                          env=env_for(server), capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return time.monotonic() - began


def measure_cli(server: FakeOllama, home: Path, asked: list[str], runs: int) -> dict:
    in_process = [cli_ask(server, home, q) for q in asked[:runs]]
    proc = subprocess.Popen([sys.executable, "-m", "memctl.cli", "serve", "--home", str(home)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env_for(server), cwd=REPO)
    try:
        assert "listening" in proc.stderr.readline()
        cli_ask(server, home, asked[0])  # the server's own warm-up
        through = [cli_ask(server, home, q) for q in asked[:runs]]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return {"in_process": in_process, "through_server": through}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--cli-runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp, FakeOllama() as server:
        started = time.monotonic()
        home = ingest_fixture(Path(tmp), server)
        print(f"fixture ingested in {time.monotonic() - started:.1f} s: {home}")
        asked = questions(home, args.questions)
        tools = anyio.run(measure_tools, server, home, asked)
        cli = measure_cli(server, home, asked, args.cli_runs)
    search_p50 = statistics.median(tools["search"])
    print(f"\nstart-up to the first answer (Cognee import, warm-up): {tools['first_call_s']:.2f} s")
    print(f"memory_search over {len(asked)} questions: p50 {search_p50 * 1000:.0f} ms, "
          f"p95 {pct(tools['search'], 0.95) * 1000:.0f} ms, max {max(tools['search']) * 1000:.0f} ms; "
          f"served by {tools['methods']}; target p50 <= {TARGET_SEARCH_P50_S * 1000:.0f} ms: "
          f"{'met' if search_p50 <= TARGET_SEARCH_P50_S else 'NOT met'}")
    print(f"memory_ask without the answer model: p50 {statistics.median(tools['ask_overhead']) * 1000:.0f} ms, "
          f"p95 {pct(tools['ask_overhead'], 0.95) * 1000:.0f} ms (total p50 "
          f"{statistics.median(tools['ask_total']) * 1000:.0f} ms)")
    inproc, through = statistics.median(cli["in_process"]), statistics.median(cli["through_server"])
    print(f"CLI `memctl ask`, {args.cli_runs} runs each: in-process p50 {inproc:.2f} s, through the server p50 "
          f"{through:.2f} s ({inproc / through:.1f}x faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
