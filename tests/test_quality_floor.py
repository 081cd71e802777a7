"""CI floor of retrieval quality: a subset of bench/bench_quality.py (2 projects, 22 sessions, their 44
questions, paraphrases included) on the history the real OpenCode 1.18.34 binary made
(tests/fixtures/opencode-quality/, a copy ingested by the real CLI, one `memctl ingest --project` per
project, into real Cognee with the deterministic fake model).

Floors are the figures measured on that fixture less about one question's worth (1/44 overall, 1/14 for
paraphrases), so a change that loses a session at rank 1 for a direct question, lets an older
same-subject note outrank the newer one, routes a paraphrase to the wrong topic, lets a weak lexical
match outvote the graph's semantic one, or makes fusion worse than either list alone fails here.
Paraphrases share no content word with their session: they reach it only through embeddings (the fake
model's concept groups stand in for a real model's semantic space) — the fallback router's topic
profiles and the graph's vectors — so they hold memctl's use of that evidence, not the model's quality.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
ONE_QUESTION = 1 / 44


@pytest.fixture(scope="module")
def figures() -> dict:
    proc = subprocess.run([sys.executable, "-m", "bench.bench_quality", "--topics", "orders", "billing",
                           "--routed-only", "--rounds", "0", "--json"],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_the_subset_is_what_the_floors_were_set_on(figures: dict) -> None:
    assert (figures["sessions"], figures["questions"]) == (22, 44)
    assert set(figures["hybrid_by_kind"]) == {"changed", "direct", "distractor", "multi", "older", "paraphrase"}


def test_one_note_per_session_titled_as_scripted(figures: dict) -> None:
    assert figures["ingested"] == {"topics": ["billing", "orders"], "notes": 22, "title_mismatches": []}


@pytest.mark.parametrize("kind, hit1, hit5, routing", [
    ("direct", 1.0, 1.0, 1.0),
    ("distractor", 1.0, 1.0, 1.0),
    ("changed", 1.0, 1.0, 1.0),
    ("multi", 0.85, 0.85, 1.0),
    ("paraphrase", 0.92, 0.92, 0.92),  # measured 1.0 / 1.0 / 1.0 (14 questions); before embedding routing 0.0
    ("older", 0.0, 1.0, 1.0),  # rank 1 goes to the newer same-subject note by design
])
def test_hybrid_floor_per_kind(figures: dict, kind: str, hit1: float, hit5: float, routing: float) -> None:
    got = figures["hybrid_by_kind"][kind]
    assert got["hit1"] >= hit1 and got["hit5"] >= hit5 and got["routing"] >= routing, (kind, got)


def test_the_newer_of_a_changed_fact_ranks_first(figures: dict) -> None:
    done, total = figures["changed_newer_first"].split("/")
    assert int(total) == 2 and done == total


def test_hybrid_overall_floor(figures: dict) -> None:
    hybrid = figures["paths"]["routed"]["hybrid"]
    # measured: hit@1 0.955 (the two "older" questions miss at rank 1 by design), hit@5 1.000, MRR 0.977
    assert hybrid["hit1"] >= 0.93 and hybrid["hit5"] >= 0.97 and hybrid["mrr"] >= 0.95, hybrid
    assert figures["routing_accuracy"] >= 0.95


def test_hybrid_is_not_worse_than_either_list_alone(figures: dict) -> None:
    """Each metric within one question (1/44) of the better list's (measured: hybrid above both on every
    metric; graph 0.932 / 1.000 / 0.966, notes 0.659 / 0.705 / 0.693)."""
    paths = figures["paths"]["routed"]
    for metric in ("hit1", "hit5", "mrr"):
        best = max(paths["graph"][metric], paths["notes"][metric])
        assert paths["hybrid"][metric] >= best - ONE_QUESTION - 1e-9, (metric, paths)
