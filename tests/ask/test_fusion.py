"""Hybrid retrieval's fusion: reciprocal rank fusion, one entry per note, ranks shown, weights, newer first on ties;
the same-subject rule (newer first) and the date marks in the context."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.ask.fusion import dedupe, evidence_weight, reciprocal_rank_fusion
from memctl.ask.retrieval import ContextHit, Source, fuse, notes_evidence, retrieve
from memctl.ask.run import AskResult, assemble_context
from memctl.ask.subjects import asks_for_older, newer_first, same_subject
from memctl.catalog.note_search import content_terms, coverage
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex
from memctl.config import DataHome, Settings


def hit(name: str, date: str = "2026-11-01", topic: str = "t", title: str | None = None, text: str = "") -> ContextHit:
    return ContextHit(text=text or f"text of {name}",
                      source=Source(f"ses_{name}", f"memory/{topic}/ses_{name}.md", title or name, date, topic))


def names(fused) -> list[str]:  # noqa: ANN001
    return [h.source.source_id[4:] for h, _ in fused]


# -- reciprocal rank fusion ------------------------------------------------------------------------------------

K = 60


@pytest.mark.parametrize("graph, notes, weights, expected", [
    # in both lists beats in one list
    (["a", "b", "c"], ["c", "d"], {}, ["c", "a", "b", "d"]),
    (["x", "y"], ["y", "z", "x"], {}, ["y", "x", "z"]),
    (["p"], ["q", "r", "p"], {}, ["p", "q", "r"]),
    # a zero weight leaves the other list's order
    (["a", "b", "c"], ["c", "b", "a"], {"graph": 0.0}, ["c", "b", "a"]),
    (["a", "b", "c"], ["c", "b", "a"], {"notes": 0.0}, ["a", "b", "c"]),
    (["m", "n"], ["n", "m"], {"graph": 0.0, "notes": 1.0}, ["n", "m"]),
    # a heavier list wins disagreements
    (["a", "b"], ["b", "a"], {"graph": 2.0}, ["a", "b"]),
    (["a", "b"], ["b", "a"], {"notes": 3.0}, ["b", "a"]),
    (["a", "b", "c", "d"], ["d", "c", "b", "a"], {"graph": 1.5, "notes": 1.0}, ["a", "b", "c", "d"]),
])
def test_fusion_orders_by_weighted_reciprocal_ranks(graph, notes, weights, expected) -> None:  # noqa: ANN001
    fused = reciprocal_rank_fusion({"graph": [hit(n) for n in graph], "notes": [hit(n) for n in notes]},
                                   {"graph": 1.0, "notes": 1.0, **weights}, k=K)
    assert names(fused) == expected


@pytest.mark.parametrize("graph, notes, name, ranks, score", [
    (["a", "b"], ["b"], "b", {"graph": 2, "notes": 1}, 1 / (K + 2) + 1 / (K + 1)),
    (["a", "b"], ["b"], "a", {"graph": 1}, 1 / (K + 1)),
    ([], ["q", "r", "s"], "s", {"notes": 3}, 1 / (K + 3)),
    (["u", "v", "w"], [], "w", {"graph": 3}, 1 / (K + 3)),
    (["a", "a", "b"], ["c", "b"], "b", {"graph": 2, "notes": 2}, 2 / (K + 2)),  # duplicates do not push ranks
])
def test_fusion_shows_each_lists_rank_and_the_fused_score(graph, notes, name, ranks, score) -> None:  # noqa: ANN001
    fused = dict((h.source.source_id[4:], r) for h, r in
                 reciprocal_rank_fusion({"graph": [hit(n) for n in graph], "notes": [hit(n) for n in notes]}, {}, k=K))
    assert dict(fused[name].ranks) == ranks
    assert fused[name].score == pytest.approx(score)


@pytest.mark.parametrize("lists", [
    {"graph": ["a", "a", "b", "a"], "notes": ["b", "a"]},
    {"graph": ["x", "y", "x", "y"], "notes": ["y", "y", "x"]},
    {"graph": ["n1", "n2", "n1", "n3", "n2"], "notes": ["n3", "n3"]},
])
def test_fusion_keeps_one_entry_per_note(lists) -> None:  # noqa: ANN001
    fused = reciprocal_rank_fusion({k: [hit(n) for n in v] for k, v in lists.items()}, {}, k=K)
    every = {n for v in lists.values() for n in v}
    assert sorted(names(fused)) == sorted(every)


def test_fusion_keeps_the_text_of_the_list_where_the_note_ranks_best() -> None:
    graph = [hit("a", text="chunk of a"), hit("b", text="chunk of b")]
    notes = [hit("b", text="whole note b"), hit("a", text="whole note a")]
    texts = {h.source.source_id: h.text for h, _ in reciprocal_rank_fusion({"graph": graph, "notes": notes}, {})}
    assert texts == {"ses_a": "chunk of a", "ses_b": "whole note b"}


@pytest.mark.parametrize("dates, expected", [
    ({"a": "2026-11-01", "b": "2026-11-20"}, ["b", "a"]),
    ({"a": "2026-12-01", "b": "2026-11-20"}, ["a", "b"]),
    ({"a": "2025-01-09", "b": "2025-01-10"}, ["b", "a"]),
    ({"a": "", "b": "2020-01-01"}, ["b", "a"]),  # undated is oldest
    ({"a": "2026-11-01", "b": "2026-11-01"}, ["a", "b"]),  # same date: by path
])
def test_equal_fused_scores_put_the_newer_note_first(dates, expected) -> None:  # noqa: ANN001
    # a is first in one list and second in the other, b the reverse: equal scores.
    graph = [hit("a", dates["a"]), hit("b", dates["b"])]
    notes = [hit("b", dates["b"]), hit("a", dates["a"])]
    assert names(reciprocal_rank_fusion({"graph": graph, "notes": notes}, {}, k=K)) == expected


@pytest.mark.parametrize("k, weights", [(0, {}), (-5, {}), (60, {"graph": -1.0}), (60, {"notes": -0.1})])
def test_fusion_refuses_a_bad_constant_or_weight(k: int, weights: dict) -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"graph": [hit("a")]}, weights, k=k)


def test_dedupe_keeps_the_first_of_each_path() -> None:
    hits = [hit("a", text="1"), hit("b"), hit("a", text="2"), hit("c"), hit("b")]
    assert [(h.source.source_id, h.text) for h in dedupe(hits)] == [
        ("ses_a", "1"), ("ses_b", "text of b"), ("ses_c", "text of c")]


@pytest.mark.parametrize("graph_w, notes_w, expected", [(1.0, 1.0, ["b", "a", "c"]), (1.0, 0.0, ["a", "b"]),
                                                         (0.0, 1.0, ["c", "b"])])
def test_fuse_uses_the_settings_and_sets_ranks_on_hits(tmp_path: Path, graph_w, notes_w, expected) -> None:  # noqa: ANN001
    settings = Settings(home=tmp_path, fusion_graph_weight=graph_w, fusion_notes_weight=notes_w)
    graph = [replace_rank(hit("a"), graph=1), replace_rank(hit("b"), graph=2)]
    notes = [replace_rank(hit("c"), notes=1), replace_rank(hit("b"), notes=2)]
    fused = fuse(graph, notes, settings, top_k=3)
    got = [h.source.source_id[4:] for h in fused if h.score and h.score > 0]
    assert got[:len(expected)] == expected
    b = next(h for h in fused if h.source.source_id == "ses_b")
    assert (b.graph_rank, b.notes_rank) == (2, 2)
    assert b.ranks() == {"graph_rank": 2, "notes_rank": 2, "dense_rank": None, "turns_rank": None,
                         "turn_dense_rank": None, "turn": None,
                         "score": round(graph_w / (60 + 2) + notes_w / (60 + 2), 6)}


def replace_rank(h: ContextHit, graph: int | None = None, notes: int | None = None) -> ContextHit:
    from dataclasses import replace

    return replace(h, graph_rank=graph, notes_rank=notes)


def test_fuse_keeps_top_k(tmp_path: Path) -> None:
    fused = fuse([hit(str(i)) for i in range(8)], [hit(str(i)) for i in range(8, 16)], Settings(home=tmp_path), 5)
    assert len(fused) == 5 and [h.graph_rank or h.notes_rank for h in fused] == [1, 1, 2, 2, 3]


# -- evidence weighting: a BM25 hit counts by the share of the question's content words its note holds ------------

@pytest.mark.parametrize("text, expected", [
    ("How did we fix the Kuzu lock?", {"fix", "kuzu", "lock"}),
    ("Why was test_checkout_concurrency flaky in the orders service?",
     {"test_checkout_concurrency", "flaky", "orders", "service"}),
    ("What is it, and where?", set()),
    ("Pin pytest-asyncio to 0.23", {"pin", "pytest", "asyncio", "23"}),
])
def test_content_terms_are_bm25_terms_without_function_words(text: str, expected: set) -> None:
    assert content_terms(text) == expected


@pytest.mark.parametrize("question, terms, expected", [
    ("How did we fix the Kuzu lock?", {"kuzu", "lock", "fix", "other"}, 1.0),
    ("How did we fix the Kuzu lock?", {"lock"}, 1 / 3),
    ("How do engineers log into servers securely now?", {"log", "level", "billing"}, 1 / 4),
    ("How do engineers log into servers securely now?", set(), 0.0),
    ("What is it?", {"anything"}, 1.0),  # no content word: nothing to judge
])
def test_coverage_is_the_share_of_content_words_found(question: str, terms: set, expected: float) -> None:
    assert coverage(question, terms) == pytest.approx(expected)


@pytest.mark.parametrize("share, power, expected", [
    (1.0, 3.0, 1.0), (0.5, 3.0, 0.125), (0.25, 3.0, 0.015625), (0.0, 3.0, 0.0),
    (0.5, 1.0, 0.5), (0.5, 0.0, 1.0), (0.0, 0.0, 1.0),
    (1.7, 2.0, 1.0), (-0.2, 2.0, 0.0),  # clamped to 0..1
])
def test_evidence_weight_is_the_share_raised_to_the_power(share: float, power: float, expected: float) -> None:
    assert evidence_weight(share, power) == pytest.approx(expected)


def test_evidence_weight_refuses_a_negative_power() -> None:
    with pytest.raises(ValueError):
        evidence_weight(0.5, -1.0)


@pytest.mark.parametrize("graph, notes, factors, expected", [
    # an incidental BM25 match (factor near 0) no longer lifts the graph's second above its first
    (["gold", "other"], ["other"], {"other": 0.008}, ["gold", "other"]),
    (["gold", "x", "other"], ["other", "y"], {"other": 0.0, "y": 0.0}, ["gold", "x", "other", "y"]),
    (["gold", "other", "z"], ["z", "other"], {"z": 0.015625, "other": 0.015625}, ["gold", "other", "z"]),
    # a BM25 hit holding the whole question counts fully, as in plain RRF
    (["gold", "other"], ["other"], {"other": 1.0}, ["other", "gold"]),
    (["a", "b", "c"], ["c", "b"], {}, ["c", "b", "a"]),  # no factor: 1.0
])
def test_evidence_factors_scale_each_hits_contribution(graph, notes, factors, expected) -> None:  # noqa: ANN001
    fused = reciprocal_rank_fusion({"graph": [hit(n) for n in graph], "notes": [hit(n) for n in notes]}, {},
                                   k=K, evidence={"notes": {f"memory/t/ses_{n}.md": f for n, f in factors.items()}})
    assert names(fused) == expected
    for h, ranks in fused:
        name = h.source.source_id[4:]
        want = (1 / (K + graph.index(name) + 1) if name in graph else 0.0) + (
            factors.get(name, 1.0) / (K + notes.index(name) + 1) if name in notes else 0.0)
        assert ranks.score == pytest.approx(want)


@pytest.mark.parametrize("factor", [-0.1, 1.5])
def test_fusion_refuses_an_evidence_factor_outside_0_1(factor: float) -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"notes": [hit("a")]}, {}, evidence={"notes": {"memory/t/ses_a.md": factor}})


# Paraphrases: the graph (semantic) ranks the gold first, BM25 matched one or two incidental words of another note.
PARAPHRASE_CASES = [
    ("How do we refund leftover time after a subscription switch?",
     [("gold", "Add proration when plans change: credit unused days"), ("refunds", "Write a refund endpoint")],
     [("refunds", "Write a refund endpoint for cancelled orders: Refund.create")]),
    ("How do we snapshot the relational database every night?",
     [("gold", "Nightly Postgres backups with pgBackRest"), ("pool", "Switch the billing database pool")],
     [("pool", "Switch the billing database pool to pgxpool"), ("failover", "Runbook for database failover")]),
    ("Why was the sales levy a penny wrong for European customers?",
     [("gold", "Fix VAT rounding for EU invoices"), ("a", "a"), ("b", "b"), ("plans", "Proration")],
     [("plans", "Mid-cycle plan changes prorate when customers change plans")]),
]
# Direct questions: BM25's hit holds the question's words; it still decides against a graph that put it second.
DIRECT_CASES = [
    ("Why did TestInvoiceNumbering collide in parallel runs?",
     [("other", "Invoice PDF"), ("gold", "Debug the flaky test")],
     [("gold", "TestInvoiceNumbering collided on invoice numbers in parallel runs")]),
    ("Which pgxpool MaxConns does the billing database use?",
     [("other", "database failover"), ("gold", "pool")],
     [("gold", "Replace database/sql with pgxpool in db/pool.go; MaxConns 20 for the billing database")]),
    ("Which Grafana dashboard shows ingress 5xx rate?",
     [("other", "TLS ingress"), ("gold", "dashboards")],
     [("gold", "Import the NGINX ingress dashboard 9614 into Grafana; alert when the 5xx rate is high")]),
]


def _lists(graph: list[tuple[str, str]], notes: list[tuple[str, str]]) -> tuple[list[ContextHit], list[ContextHit]]:
    return [hit(n, text=t) for n, t in graph], [hit(n, text=t) for n, t in notes]


@pytest.mark.parametrize("question, graph, notes", PARAPHRASE_CASES + DIRECT_CASES)
def test_fuse_with_the_question_lets_semantic_evidence_win_over_incidental_words(
        tmp_path: Path, question: str, graph: list, notes: list) -> None:
    g, n = _lists(graph, notes)
    settings = Settings(home=tmp_path)
    assert fuse(g, n, settings, 5, question=question)[0].source.source_id == "ses_gold"
    # plain RRF (no question, or power 0) puts the note BM25 matched first
    assert fuse(g, n, settings, 5)[0].source.source_id == "ses_" + notes[0][0]
    plain = Settings(home=tmp_path, fusion_notes_coverage_power=0)
    assert fuse(g, n, plain, 5, question=question)[0].source.source_id == "ses_" + notes[0][0]


@pytest.mark.parametrize("question, notes, power, expected", [
    ("How did we fix the Kuzu lock?", [("a", "the kuzu lock fix"), ("b", "kuzu")], 3.0, {"a": 1.0, "b": 1 / 27}),
    ("How did we fix the Kuzu lock?", [("a", "the kuzu lock fix"), ("b", "kuzu")], 1.0, {"a": 1.0, "b": 1 / 3}),
    ("kuzu lock", [("a", "nothing here")], 2.0, {"a": 0.0}),
])
def test_notes_evidence_gives_each_note_its_factor(question: str, notes: list, power: float, expected: dict) -> None:
    got = notes_evidence(question, [hit(n, text=t) for n, t in notes], power)
    assert got == pytest.approx({f"memory/t/ses_{n}.md": v for n, v in expected.items()})


# -- retrieve: hybrid by default, notes alone when the graph is unusable -----------------------------------------

def _home(tmp_path: Path) -> tuple[DataHome, TopicIndex]:
    home = DataHome(tmp_path / "var")
    notes = []
    for i, (title, body) in enumerate([("Pin pytest-asyncio", "pinned pytest-asyncio to 0.23 for the event loop"),
                                       ("Kuzu lock", "the kuzu lock is held by ingest"),
                                       ("Ruff config", "ruff line length 120")]):
        sid = f"ses_n{i}"
        path = home.store / "memory" / "t" / f"{sid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nsource_id: {sid}\ntopic: t\ntitle: {title}\nsession_updated: '2026-11-0{i + 1}'\n---\n\n"
                        f"# {title}\n\n- {body}\n")
        notes.append(NoteRef(sid, f"memory/t/{sid}.md", title, f"2026-11-0{i + 1}", "t"))
    return home, TopicIndex({"t": TopicEntry("t", "/src/t", "t", notes)})


def test_retrieve_fuses_graph_and_notes_and_shows_ranks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, index = _home(tmp_path)
    home.cognee.mkdir(parents=True)
    graph = [ContextHit("chunk", Source("ses_n1", "memory/t/ses_n1.md", "Kuzu lock", "2026-11-02", "t"), 0.1, 1)]
    monkeypatch.setattr("memctl.ask.retrieval._location_problem", lambda home: None)
    monkeypatch.setattr("memctl.ask.retrieval._embedding_model_problem", lambda settings: None)  # Ollama has it
    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", lambda *a, **k: graph)
    result = retrieve("pytest-asyncio kuzu lock", ["t"], Settings(home=home.root), home, index, top_k=3)
    assert result.method == "hybrid" and not result.fallback_used and result.fallback_reason is None
    ranks = {h.source.source_id: (h.graph_rank, h.notes_rank) for h in result.hits}
    assert ranks["ses_n1"][0] == 1 and ranks["ses_n1"][1] is not None  # in both lists
    assert ranks["ses_n0"] == (None, ranks["ses_n0"][1]) and ranks["ses_n0"][1] is not None
    assert result.hits[0].source.source_id == "ses_n1"


@pytest.mark.parametrize("question", [
    "What width limit does our formatter enforce on every file, and which lock?",
    "Which formatter width limit applies to each file, given the lock?",
])
def test_retrieve_weighs_bm25_hits_by_the_question_words_they_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   question: str) -> None:
    home, index = _home(tmp_path)
    home.cognee.mkdir(parents=True)
    graph = [ContextHit("ruff line length 120", Source("ses_n2", "memory/t/ses_n2.md", "Ruff config", "2026-11-03", "t"),
                        0.1, 1),
             ContextHit("the kuzu lock", Source("ses_n1", "memory/t/ses_n1.md", "Kuzu lock", "2026-11-02", "t"), 0.2, 2)]
    monkeypatch.setattr("memctl.ask.retrieval._location_problem", lambda home: None)
    monkeypatch.setattr("memctl.ask.retrieval._embedding_model_problem", lambda settings: None)  # Ollama has it
    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", lambda *a, **k: graph)
    weighed = retrieve(question, ["t"], Settings(home=home.root), home, index, top_k=3)
    plain = retrieve(question, ["t"], Settings(home=home.root, fusion_notes_coverage_power=0), home, index, top_k=3)
    assert [h.source.source_id for h in weighed.hits][:2] == ["ses_n2", "ses_n1"]
    assert next(h for h in weighed.hits if h.source.source_id == "ses_n1").notes_rank == 1  # BM25 did match it
    assert plain.hits[0].source.source_id == "ses_n1"  # plain RRF: the one incidental word outvotes the graph


@pytest.mark.parametrize("graph_result, reason", [([], "graph search returned nothing"),
                                                  (RuntimeError("locked"), "graph search failed: RuntimeError")])
def test_retrieve_falls_back_to_notes_alone_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        graph_result, reason) -> None:  # noqa: ANN001
    home, index = _home(tmp_path)
    home.cognee.mkdir(parents=True)

    def graph(*a, **k):  # noqa: ANN002, ANN003
        if isinstance(graph_result, Exception):
            raise graph_result
        return graph_result

    monkeypatch.setattr("memctl.ask.retrieval._location_problem", lambda home: None)
    monkeypatch.setattr("memctl.ask.retrieval._embedding_model_problem", lambda settings: None)  # Ollama has it
    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", graph)
    result = retrieve("kuzu lock", ["t"], Settings(home=home.root), home, index, top_k=3)
    assert result.method == "notes" and result.fallback_used and result.fallback_reason.startswith(reason)
    assert result.hits[0].source.source_id == "ses_n1" and result.hits[0].graph_rank is None
    assert result.hits[0].notes_rank == 1


# -- same subject: newer first, and dates marked in the context -------------------------------------------------

@pytest.mark.parametrize("a, b, same", [
    (("t", "Set the orders cache TTL to 5 minutes"), ("t", "Raise the orders cache TTL to 15 minutes"), True),
    (("t", "Set the billing log level to info"), ("t", "Set the billing log level to warn"), True),
    (("t", "Pin pytest-asyncio to 0.23"), ("t", "Pin pytest-asyncio to 0.24"), True),
    (("t", "Set the orders cache TTL to 5 minutes"), ("u", "Set the orders cache TTL to 5 minutes"), False),
    (("t", "Fix the Kuzu lock"), ("t", "Add dark mode support"), False),
    (("t", "Upgrade Django to 5.0"), ("t", "Upgrade React Native to 0.74"), False),
    (("t", ""), ("t", ""), False),
])
def test_same_subject_needs_one_topic_and_similar_titles(a, b, same) -> None:  # noqa: ANN001
    assert same_subject(a[0], a[1], b[0], b[1]) is same


@pytest.mark.parametrize("hits, expected", [
    ([hit("old", "2026-11-01", title="orders cache TTL 5"), hit("x", title="Kuzu lock"),
      hit("new", "2026-11-20", title="orders cache TTL 15")], ["new", "old", "x"]),
    ([hit("new", "2026-11-20", title="log level warn billing"), hit("old", "2026-11-01", title="log level info billing")],
     ["new", "old"]),
    ([hit("a", "2026-11-01", title="orders cache TTL"), hit("b", "2026-11-20", title="orders cache TTL", topic="u")],
     ["a", "b"]),  # other topic: not the same subject
    ([hit("a", "2026-11-01", title="Kuzu lock"), hit("b", "2026-11-20", title="Ruff line length")], ["a", "b"]),
    ([hit("a", "2026-11-05", title="pool size nodes"), hit("b", "2026-11-05", title="pool size nodes")], ["a", "b"]),
])
def test_newer_first_moves_the_newer_same_subject_note_up(hits, expected) -> None:  # noqa: ANN001
    assert [h.source.source_id[4:] for h in newer_first(hits)] == expected


@pytest.mark.parametrize("question, asks", [
    ("Which session set the orders cache TTL to 5 minutes?", True),  # the older title's value, not the newer's
    ("What did we set the orders cache TTL to first?", True),
    ("Why were the billing logs too noisy at first?", True),
    ("What was the cache TTL originally?", True),
    ("What is the CACHE_TTL_SECONDS of the orders service cache?", False),  # what holds now
    ("Which session raised the orders cache TTL to 15 minutes?", False),  # the newer title's value
    ("What TTL did we set in 2026 for 5 services?", False),  # numbers neither title holds apart ("5" is in both here)
])
def test_asks_for_older_only_for_earlier_words_or_the_older_value(question: str, asks: bool) -> None:
    older, newer = "Set the orders cache TTL to 5 minutes", "Raise the orders cache TTL to 15 minutes"
    if question.startswith("What TTL"):
        older, newer = "Set the TTL for 5 services", "Raise the TTL for 5 services"
    assert asks_for_older(question, older, newer) is asks


def test_newer_first_keeps_the_older_note_first_when_the_question_asks_for_it() -> None:
    """A regression: "Which session set the orders cache TTL to 5 minutes?" ranked the newer "15 minutes" note
    first (questions1 set, direct kind); a question about the current value still gets the newer first."""
    hits = [hit("old", "2026-11-01", title="Set the orders cache TTL to 5 minutes"),
            hit("new", "2026-11-20", title="Raise the orders cache TTL to 15 minutes")]
    asked = newer_first(hits, "Which session set the orders cache TTL to 5 minutes?")
    assert [h.source.source_id[4:] for h in asked] == ["old", "new"]
    now = newer_first(hits, "What is the orders cache TTL now?")
    assert [h.source.source_id[4:] for h in now] == ["new", "old"]


@pytest.mark.parametrize("hits, marks", [
    ([hit("new", "2026-11-20", title="Raise the orders cache TTL"), hit("old", "2026-11-01", title="Set the orders cache TTL")],
     ["", ", older than [1] on the same subject"]),
    ([hit("old", "2026-11-01", title="billing log level info"), hit("new", "2026-11-20", title="billing log level warn")],
     ["", ", newer than [1] on the same subject"]),
    ([hit("a", "2026-11-20", title="Kuzu lock"), hit("b", "2026-11-01", title="Ruff config"),
      hit("c", "2026-10-01", title="Kuzu lock again")], ["", "", ", older than [1] on the same subject"]),
    ([hit("a", "2026-11-20", title="orders cache TTL"), hit("b", "2026-11-01", title="orders cache TTL", topic="u")],
     ["", ""]),
    ([hit("a", "2026-11-20", title="orders cache TTL"), hit("b", "2026-11-20", title="orders cache TTL")], ["", ""]),
    ([hit("a", "", title="orders cache TTL"), hit("b", "2026-11-20", title="orders cache TTL")], ["", ""]),
])
def test_context_marks_dates_of_same_subject_excerpts(hits, marks) -> None:  # noqa: ANN001
    text = assemble_context([], hits, 12000).text
    headers = [line for line in text.splitlines() if line.startswith("[") and line[1].isdigit()]
    assert len(headers) == len(hits)
    for line, h, mark in zip(headers, hits, marks):
        date = h.source.date or "undated"
        assert line.endswith(f"(session {h.source.source_id}, {date}{mark})"), line


def test_json_sources_show_each_lists_rank_and_the_fused_score() -> None:
    hits = [replace_rank(hit("a"), graph=2, notes=1), replace_rank(hit("b"), graph=None, notes=3)]
    hits = [h.__class__(h.text, h.source, 0.03, h.graph_rank, h.notes_rank) for h in hits]
    context = assemble_context([], hits, 12000)
    result = AskResult(question="q", answer="a", topics=["t"], route_method="single", route_reason=None,
                       retrieval_method="hybrid", fallback_used=False, fallback_reason=None, sources=context.sources,
                       user_memories=[], route_s=0, retrieve_s=0, answer_s=0, ctx_chars=1, prompt_version="3",
                       source_ranks=context.ranks)
    sources = result.as_dict()["sources"]
    assert [(s["source_id"], s["graph_rank"], s["notes_rank"], s["score"]) for s in sources] == [
        ("ses_a", 2, 1, 0.03), ("ses_b", None, 3, 0.03)]
    assert "source_ranks" not in result.as_dict()
