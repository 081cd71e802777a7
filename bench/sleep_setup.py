"""The data home and the timed run the sleep benchmarks share (``bench_sleep``, ``bench_sleep_engines``).

:func:`make_template` seeds :data:`CLUSTERS` clusters of 2 related user memories (``user/global``);
:func:`timed_sleep` runs one sleep (no Cognee rebuild) on a fresh copy of it against the fake Ollama
server and reads the consolidate phase's seconds from the run's JSON report.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memctl.config import Settings
from memctl.sleep.run import SleepOptions, SleepRun
from memctl.sleep.summary import SleepSummary
from memctl.store import MemoryStore
from memctl.store.user_memory import render_memory
from tests.fakes.ollama_server import FakeOllama

CLUSTERS = 12
SUBJECTS = ["billing", "search", "auth", "payments", "ingest", "render", "mailer", "gateway", "reports",
            "scheduler", "uploads", "metrics"]


def make_template(root: Path) -> None:
    """A data home at ``root`` whose store holds :data:`CLUSTERS` pairs of memories, one pair per subject."""
    store = MemoryStore(root / "store")
    for subject in SUBJECTS[:CLUSTERS]:
        for i in range(2):
            store.write_text(f"user/global/{subject}-{i}.md",
                             render_memory(f"Fact {i}: {subject.capitalize()} runs on host {subject}-{i}.internal, "
                                           f"owned by team-{subject}.", kind="note",
                                           created=f"2026-11-0{i + 1}T00:00:00Z", session=None, topic=None),
                             actor="sleep", reason="bench seed")


def timed_sleep(template: Path, work: Path, server: FakeOllama, concurrency: int, *, engine: str | None = None,
                cache_from: Path | None = None, cache: str = "cache") -> tuple[float, SleepSummary, int]:
    """One sleep on a fresh copy of ``template`` at ``work`` (replaced if there), optionally with the folder
    ``cache`` (relative to a home: ``cache``, ``cache/flyte``) copied from the home ``cache_from`` first.

    Returns:
        ``(consolidate phase seconds, summary, /api/chat calls at the server)``.

    Raises:
        AssertionError: not every cluster was consolidated.
    """
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work)
    if cache_from is not None:
        shutil.copytree(cache_from / cache, work / cache)
    server.reset_counts()
    summary = SleepRun(Settings(home=work, ollama_host=server.url),
                       SleepOptions(concurrency=concurrency, rebuild=False, engine=engine)).run()
    report = json.loads(Path(summary.report_json).read_text())
    seconds = next(p["seconds"] for p in report["phases"] if p["name"] == "consolidate")
    assert summary.clusters_consolidated == CLUSTERS, summary.as_dict()
    return seconds, summary, server.counts["/api/chat"]
