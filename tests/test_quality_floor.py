"""CI floor of retrieval quality: a subset of bench/bench_quality.py (2 projects, 22 sessions, the questions
that are not paraphrases), ingested by the real CLI into real Cognee with the deterministic fake model.

Floors are the figures measured when hybrid retrieval landed (docs/benchmarks.md) less a small margin
where a single question moves them; a change that loses a session at rank 1 for a direct question,
lets an older same-subject note outrank the newer one, or makes fusion worse than either list alone fails
here. Paraphrases are left out: with the fake model (hashed words) they measure the model, not memctl.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def figures() -> dict:
    proc = subprocess.run([sys.executable, "-m", "bench.bench_quality", "--topics", "orders", "billing",
                           "--skip-kinds", "paraphrase", "--routed-only", "--rounds", "0", "--json"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_the_subset_is_what_the_floors_were_set_on(figures: dict) -> None:
    assert (figures["sessions"], figures["questions"]) == (22, 30)
    assert set(figures["hybrid_by_kind"]) == {"changed", "direct", "distractor", "multi", "older"}


@pytest.mark.parametrize("kind, hit1, hit5, routing", [
    ("direct", 1.0, 1.0, 1.0),
    ("distractor", 1.0, 1.0, 1.0),
    ("changed", 1.0, 1.0, 1.0),
    ("multi", 0.85, 0.85, 1.0),
])
def test_hybrid_floor_per_kind(figures: dict, kind: str, hit1: float, hit5: float, routing: float) -> None:
    got = figures["hybrid_by_kind"][kind]
    assert got["hit1"] >= hit1 and got["hit5"] >= hit5 and got["routing"] >= routing, (kind, got)


def test_the_newer_of_a_changed_fact_ranks_first(figures: dict) -> None:
    done, total = figures["changed_newer_first"].split("/")
    assert int(total) == 2 and done == total


def test_hybrid_is_at_least_as_good_as_either_list_alone(figures: dict) -> None:
    paths = figures["paths"]["routed"]
    for metric in ("hit1", "hit5", "mrr"):
        assert paths["hybrid"][metric] >= max(paths["graph"][metric], paths["notes"][metric]), (metric, paths)
    assert paths["hybrid"]["hit1"] >= 0.9 and paths["hybrid"]["hit5"] >= 0.9, paths
    assert figures["routing_accuracy"] >= 0.95
