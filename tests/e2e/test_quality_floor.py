"""CI floor of retrieval quality on real embedding weights: a subset of bench/bench_quality.py (2 projects,
22 sessions, their 44 questions, paraphrases included) on the history the real OpenCode 1.18.34 binary made
(tests/fixtures/opencode-quality/, a copy ingested by the real CLI, one `memctl ingest --project` per
project, into real Cognee), the fake model server answering embeddings with WordLlama's l2_supercat weights
(256 dimensions; tests/fakes/wordllama_embedder.py) — the same weights the raw-history baselines use.

Floors are the figures measured on that subset less about one question's worth (1/44 overall, 1/14 for
paraphrases, 1/7 for two-session questions), so a change that loses a session at rank 1 for a direct
question, lets an older same-subject note outrank the newer one (or the newer one outrank the older a question
asks for), drops the dense or every-topic lists (a
misrouted paraphrase then falls out of the top five), or makes memctl worse than BM25 or RRF over the raw
sessions fails here. Measured (the bench's side-by-side table): paraphrases 0.79 / 1.00, routing 0.79; raw
sessions BM25 0.07 / 0.21, dense 0.57 / 1.00, RRF 0.29 / 0.71 (with dense weight 1.25, the round before:
0.64 / 1.00; before the dense list's sentence term and the widened graph: 0.57 / 0.86; docs/benchmarks.md,
"Dense weight chosen on the floor fixture").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ONE_QUESTION = 1 / 44


@pytest.fixture(scope="module")
def figures() -> dict:
    proc = subprocess.run([sys.executable, "-m", "bench.bench_quality", "--embedder", "wordllama", "--topics", "orders", "billing",
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
    ("multi", 0.85, 0.71, 1.0),  # measured 1.0 / 0.857 (7 questions)
    ("paraphrase", 0.71, 0.92, 0.71),  # measured 0.786 / 1.0, routing 0.786 (14 questions); dense weight 1.25: 0.643
    # measured 1.0 / 1.0 (2 questions: "... first?", "... at first?" ask for the older note, memctl.ask.subjects.
    # asks_for_older); before, rank 1 went to the newer same-subject note whatever the question (0.0 / 1.0)
    ("older", 0.5, 1.0, 1.0),
])
def test_hybrid_floor_per_kind(figures: dict, kind: str, hit1: float, hit5: float, routing: float) -> None:
    got = figures["hybrid_by_kind"][kind]
    assert got["hit1"] >= hit1 and got["hit5"] >= hit5 and got["routing"] >= routing, (kind, got)


@pytest.mark.parametrize("kind", ["direct", "paraphrase", "older"])
def test_memctl_is_not_worse_than_searching_the_raw_history(figures: dict, kind: str) -> None:
    """memctl >= BM25, dense and RRF over the raw sessions at hit@1 and hit@5 (measured on paraphrases: memctl
    0.786 / 1.0, raw dense 0.571 / 1.0; before the dense list's sentence term memctl was 0.571 / 0.857; on the
    two "older" questions memctl 1.0 / 1.0 as every raw baseline, 0.0 / 1.0 before the question could keep the
    older note first)."""
    got, raw = figures["hybrid_by_kind"][kind], figures["raw_by_kind"][kind]
    for baseline in ("bm25", "dense", "rrf"):
        assert got["hit1"] >= raw[baseline]["hit1"] and got["hit5"] >= raw[baseline]["hit5"], (kind, baseline, got, raw)


def test_paraphrases_beat_the_best_raw_baseline_by_the_issues_margin(figures: dict) -> None:
    """The retrieval target on paraphrases (docs/benchmarks.md): memctl hit@1 >= the best raw-history
    baseline's + 0.05 (capped at 0.96) and hit@5 >= it (measured: memctl 0.786 / 1.0, best raw dense 0.571 / 1.0)."""
    got, raw = figures["hybrid_by_kind"]["paraphrase"], figures["raw_by_kind"]["paraphrase"]
    best1 = max(r["hit1"] for r in raw.values())
    best5 = max(r["hit5"] for r in raw.values())
    assert got["hit1"] >= min(best1 + 0.05, 0.96) and got["hit5"] >= best5, (got, raw)


def test_the_every_topic_lists_beat_the_routed_graph_on_paraphrases(figures: dict) -> None:
    """A misrouted paraphrase is found through BM25 and the dense list over every topic (measured: graph of
    the routed topics 0.786 at hit@5, hybrid 1.0)."""
    per = figures["by_kind"]["paraphrase"]
    assert per["hybrid"]["hit5"] > per["graph"]["hit5"], per


def test_the_gold_session_is_cited_with_the_transcript_turn_that_found_it(figures: dict) -> None:
    """The turn index ingest builds reaches fusion: for most questions the gold session's hit carries its turn
    (measured 0.773, 34 of 44; the rest reach the gold only through the graph or the note lists, or miss it).
    With ``MEMCTL_FUSION_TURNS_WEIGHT=0`` it is 0 and this fails."""
    assert figures["gold_turn_cited"] >= 0.75, figures["gold_turn_cited"]


def test_the_newer_of_a_changed_fact_ranks_first(figures: dict) -> None:
    done, total = figures["changed_newer_first"].split("/")
    assert int(total) == 2 and done == total


def test_hybrid_overall_floor(figures: dict) -> None:
    hybrid = figures["paths"]["routed"]["hybrid"]
    # measured: hit@1 0.932, hit@5 0.977, MRR 0.962 (before asks_for_older: 0.886 / 0.977 / 0.939, the two
    # "older" questions missing at rank 1; dense weight 1.25: 0.841 / 0.977 / 0.914; before the sentence term:
    # 0.818 / 0.932 / 0.876)
    assert hybrid["hit1"] >= 0.909 and hybrid["hit5"] >= 0.954 and hybrid["mrr"] >= 0.94, hybrid
    assert figures["routing_accuracy"] >= 0.90  # measured 0.932


def test_hybrid_is_not_worse_than_either_list_alone(figures: dict) -> None:
    """Each metric within one question (1/44, and the figures' rounding to 3 places) of the better list's
    (measured: graph 0.841 / 0.886 / 0.877, notes 0.659 / 0.682 / 0.682, hybrid 0.932 / 0.977 / 0.962)."""
    paths = figures["paths"]["routed"]
    for metric in ("hit1", "hit5", "mrr"):
        best = max(paths["graph"][metric], paths["notes"][metric])
        assert paths["hybrid"][metric] >= best - ONE_QUESTION - 1e-3, (metric, paths)
