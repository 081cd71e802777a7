"""Offline fusion variants: how retrieval would rank if routing, graph scope or list weights were otherwise.

Per question of a set, in one warm process on an ingested home (as ``bench/bench_quality.py`` makes it,
the fake server with real WordLlama weights), the lists :func:`memctl.ask.retrieval.retrieve` fuses are
collected once — the graph's chunk hits per topic (so the graph of any set of topics is their hits merged
by Cognee distance, as :func:`memctl.ask.retrieval._graph_hits` merges datasets), BM25 over every topic's
notes, the dense notes list and the turn lists over every topic — with the fallback router's topics and
per-topic scores (:func:`memctl.ask.routing.route_scores`). Each variant then re-fuses those lists
(:func:`memctl.ask.fusion.reciprocal_rank_fusion`, the evidence factors and newer-first rule as
``retrieve`` applies them) and is scored hit@1 / hit@5 per question kind, as the bench scores it. The
``main`` variant is checked against ``retrieve`` itself on every question (``mismatches`` must be 0), so
the other rows differ from it only by what they change.

    .venv/bin/python -m bench.fusion_variants --home /tmp/rq/var --questions FILE     # a question file
    .venv/bin/python -m bench.fusion_variants --home /tmp/rqf/var --topics orders billing --new-paraphrases

Variants (``VARIANTS``): the graph over the routed topics only, widened to the topics of the best 3
dense hits, over every topic (weight 1 and 0.5), none; the graph weighted by the router's confidence
(the margin between its two best topics) or dropped / halved when the dense list's best note lies
outside the routed topics; the graph over every topic only then; every list's hits outside the
routed topics weighed 0 (a hard route), 0.5, or by their topic's route score relative to the best
(``rel``, ``rel²``); and, as an upper bound no router can reach, every list restricted to the gold topic.
Every variant applies the newer-first rule with the question (:func:`memctl.ask.subjects.asks_for_older`);
one row shows ``main`` without it (the newer same-subject note always first).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from bench.bench_quality import _ranked_ids as ranked_ids
from tests.fixtures.quality_set import (
    NEW_PARAPHRASES,
    QUESTIONS,
    QuestionFileError,
    by_key,
    fixture_ids,
    load_questions,
)

DEPTH = 12  # retrieve's list depth: min(top_k × CANDIDATE_FACTOR, 50) with top_k 6


@dataclass
class Lists:
    """One question's collected lists (``ContextHit`` lists best first) and routing."""

    text: str
    kind: str
    gold: list[str]
    gold_topic: str
    topics: list[str]
    route: dict[str, float]
    slugs: list[str]
    graph_by_topic: dict
    notes: list
    dense: list
    turns: tuple
    retrieved: list[str]


def merged_graph(lists: Lists, topics: list[str], depth: int = DEPTH) -> list:
    """The graph list of ``topics``: their chunk hits merged by distance (lower first), ``depth`` kept,
    ``graph_rank`` renumbered from 1."""
    hits = [h for t in dict.fromkeys(topics) for h in lists.graph_by_topic.get(t, [])]
    hits.sort(key=lambda h: (h.score is None, h.score if h.score is not None else 0.0))
    return [replace(h, graph_rank=rank) for rank, h in enumerate(hits[:depth], start=1)]


def widened(lists: Lists, n: int) -> list[str]:
    """The routed topics and those of the ``n`` best dense hits (``graph_widen_hits``)."""
    return list(dict.fromkeys([*lists.topics, *(h.source.topic for h in lists.dense[:n])]))


def margin(route: dict[str, float]) -> float:
    """The router's confidence: (best − second) / best of the per-topic route scores, 0..1 (1: one topic)."""
    best = sorted(route.values(), reverse=True)
    return (best[0] - best[1]) / best[0] if len(best) > 1 and best[0] > 0 else 1.0


def relative(route: dict[str, float]) -> dict[str, float]:
    """Each topic's route score over the best's, clamped to 0..1."""
    top = max(route.values(), default=0.0)
    return {t: min(max(v / top, 0.0), 1.0) if top > 0 else 1.0 for t, v in route.items()}


def off_route(lists: Lists) -> bool:
    """The dense list's best note lies outside the routed topics (the router and the evidence disagree)."""
    return bool(lists.dense) and lists.dense[0].source.topic not in lists.topics


# name → question → (graph list, graph weight factor, topic → factor for every list's hits)
Variant = Callable[[Lists], tuple[list, float, Callable[[str], float]]]
ONE: Callable[[str], float] = lambda _t: 1.0  # noqa: E731
VARIANTS: dict[str, Variant] = {
    "main (graph: routed + 2 best dense hits' topics)": lambda q: (merged_graph(q, widened(q, 2)), 1.0, ONE),
    "graph: routed topics only": lambda q: (merged_graph(q, q.topics), 1.0, ONE),
    "graph: routed + 3 best dense hits' topics": lambda q: (merged_graph(q, widened(q, 3)), 1.0, ONE),
    "graph: every topic": lambda q: (merged_graph(q, q.slugs), 1.0, ONE),
    "graph: every topic, weight 0.5": lambda q: (merged_graph(q, q.slugs), 0.5, ONE),
    "no graph": lambda q: ([], 1.0, ONE),
    "graph weight × router margin / 0.3 (capped 1)": lambda q: (merged_graph(q, widened(q, 2)),
                                                                 min(1.0, margin(q.route) / 0.3), ONE),
    "graph weight 0 when dense #1 is off-route": lambda q: (merged_graph(q, widened(q, 2)),
                                                            0.0 if off_route(q) else 1.0, ONE),
    "graph weight 0.5 when dense #1 is off-route": lambda q: (merged_graph(q, widened(q, 2)),
                                                              0.5 if off_route(q) else 1.0, ONE),
    "graph over every topic when dense #1 is off-route": lambda q: (
        merged_graph(q, q.slugs if off_route(q) else q.topics), 1.0, ONE),
    "hard route: off-route hits weigh 0": lambda q: (merged_graph(q, widened(q, 2)), 1.0,
                                                     lambda t: 1.0 if t in q.topics else 0.0),
    "off-route hits weigh 0.5": lambda q: (merged_graph(q, widened(q, 2)), 1.0,
                                           lambda t: 1.0 if t in q.topics else 0.5),
    "hits weigh their topic's relative route score": lambda q: (merged_graph(q, widened(q, 2)), 1.0,
                                                                lambda t: relative(q.route).get(t, 0.0)),
    "hits weigh relative route score squared": lambda q: (merged_graph(q, widened(q, 2)), 1.0,
                                                          lambda t: relative(q.route).get(t, 0.0) ** 2),
    "oracle: every list on the gold topic only": lambda q: (merged_graph(q, [q.gold_topic]), 1.0,
                                                            lambda t: 1.0 if t == q.gold_topic else 0.0),
}


def refuse(lists: Lists, variant: Variant, settings, top_k: int, older_rule: bool = True) -> list[str]:  # noqa: ANN001
    """The session ids ``variant`` ranks for this question, best first, at most ``top_k`` notes; ``older_rule``:
    newer first unless the question asks for the older note (:func:`memctl.ask.subjects.asks_for_older`)."""
    question = lists.text if older_rule else None
    from memctl.ask.fusion import reciprocal_rank_fusion
    from memctl.ask.retrieval import notes_evidence
    from memctl.ask.subjects import newer_first

    graph, graph_factor, topic_factor = variant(lists)
    lexical_turns, dense_turns, turn_evidence = lists.turns
    named = {"graph": graph, "notes": lists.notes, "dense": lists.dense, "turns": lexical_turns,
             "turn_dense": dense_turns}
    evidence = {"notes": notes_evidence(lists.text, lists.notes, settings.fusion_notes_coverage_power),
                "turns": dict(turn_evidence)}
    for name, hits in named.items():
        factors = evidence.setdefault(name, {})
        for hit in hits:
            factors[hit.source.path] = factors.get(hit.source.path, 1.0) * topic_factor(hit.source.topic)
    weights = {"graph": settings.fusion_graph_weight * graph_factor, "notes": settings.fusion_notes_weight,
               "dense": settings.fusion_dense_weight, "turns": settings.fusion_turns_weight,
               "turn_dense": settings.fusion_turn_dense_weight}
    fused = reciprocal_rank_fusion(named, weights, k=settings.fusion_k, evidence=evidence)
    return ranked_ids(newer_first([replace(h, score=r.score) for h, r in fused[:top_k]], question))


def hits_at(ranked: list[str], gold: list[str]) -> tuple[bool, bool]:
    """``(hit@1, hit@5)`` as the bench scores them (hit@5: every gold session in the top five)."""
    return bool(ranked) and ranked[0] in gold, all(g in ranked[:5] for g in gold)


def collect(home: Path, questions, topics: list[str] | None) -> tuple[list[Lists], object, int]:  # noqa: ANN001
    """Every question's :class:`Lists` from ``home``, with a fresh fake server (WordLlama weights)."""
    from memctl.ask.retrieval import _graph_hits, dense_hits, notes_hits, retrieve, turn_hits
    from memctl.ask.routing import fallback_route, lexical_evidence, route_scores
    from memctl.ask.run import load_index
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.config import DataHome, Settings
    from tests.fakes.ollama_server import FakeOllama

    sessions, ids = by_key(), fixture_ids(topics)
    out: list[Lists] = []
    with FakeOllama(embedder="wordllama") as server:
        settings = Settings(home=home, ollama_host=server.url)
        data_home = DataHome(home)
        index = load_index(data_home)
        top_k = settings.ask_top_k
        for q in questions:
            routed, _how = fallback_route(q.text, index, settings, data_home)
            lexical, covered = lexical_evidence(q.text, index, data_home)
            route = route_scores(TopicProfiles(settings, data_home).scores(q.text, index), lexical, covered,
                                 settings.route_embedding_weight)
            kept = retrieve(q.text, routed, settings, data_home, index, top_k=top_k, wide_topics=index.slugs)
            out.append(Lists(
                text=q.text, kind=q.kind, gold=[ids[k] for k in q.gold], gold_topic=q.topic(sessions),
                topics=routed, route=route, slugs=list(index.slugs),
                graph_by_topic={t: _graph_hits(q.text, [t], settings, data_home, index, DEPTH) for t in index.slugs},
                notes=notes_hits(q.text, index.slugs, data_home, index, DEPTH),
                dense=dense_hits(q.text, index.slugs, settings, data_home, index, DEPTH),
                turns=turn_hits(q.text, index.slugs, settings, data_home, index, DEPTH),
                retrieved=ranked_ids(kept.hits)))
    return out, settings, top_k


def table(rows: list[Lists], settings, top_k: int) -> tuple[str, int]:  # noqa: ANN001
    """Markdown: one row per variant, one column per kind (``hit@1 / hit@5``); and how many questions the
    ``main`` variant ranks otherwise than ``retrieve`` did (must be 0)."""
    kinds = sorted({r.kind for r in rows})
    counts = {k: sum(r.kind == k for r in rows) for k in kinds}
    main_name = next(iter(VARIANTS))
    mismatches = sum(refuse(r, VARIANTS[main_name], settings, top_k) != r.retrieved for r in rows)
    lines = ["| variant | " + " | ".join(f"{k} ({counts[k]})" for k in kinds) + " |",
             "|---|" + "---|" * len(kinds)]
    plan = [(name, variant, True) for name, variant in VARIANTS.items()]
    plan.insert(1, ("main, the newer same-subject note always first (before this round)", VARIANTS[main_name], False))
    for name, variant, older_rule in plan:
        cells = []
        for kind in kinds:
            scored = [hits_at(refuse(r, variant, settings, top_k, older_rule), r.gold) for r in rows if r.kind == kind]
            cells.append(f"{sum(a for a, _ in scored) / len(scored):.2f} / {sum(b for _, b in scored) / len(scored):.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines), mismatches


def main(argv: list[str] | None = None) -> int:
    """CLI; exit 2 and one line for a question file that cannot be scored or no question left."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="an ingested home (bench_quality --keep DIR: DIR/var)")
    parser.add_argument("--topics", nargs="*", help="only these projects' questions (the home's topics)")
    parser.add_argument("--questions", type=Path, metavar="FILE", help="JSON lines as bench_quality --questions")
    parser.add_argument("--new-paraphrases", action="store_true", help="add NEW_PARAPHRASES (kind paraphrase_new)")
    args = parser.parse_args(argv)
    os.environ["MEMCTL_EMBEDDING_DIMENSIONS"] = "256"  # WordLlama's native size, as the bench's ingest
    try:
        asked = [*(load_questions(args.questions) if args.questions else QUESTIONS),
                 *(NEW_PARAPHRASES if args.new_paraphrases else [])]
    except QuestionFileError as exc:
        print(f"fusion_variants: {exc}", file=sys.stderr)
        return 2
    ids = fixture_ids(args.topics)
    questions = [q for q in asked if all(k in ids for k in q.gold)]
    if not questions:
        print("fusion_variants: no question left for these topics", file=sys.stderr)
        return 2
    rows, settings, top_k = collect(args.home, questions, args.topics)
    text, mismatches = table(rows, settings, top_k)
    print(text)
    print(f"\n{len(rows)} questions; main variant vs retrieve: {mismatches} rankings differ (must be 0)")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
