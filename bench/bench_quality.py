"""Benchmark: retrieval quality of `memctl ask` — routing accuracy, hit@1, hit@5, MRR for graph, notes, hybrid.

The set (``tests/fixtures/quality_set.py``): 44 sessions in 4 projects, 84
questions — direct, paraphrases sharing no content word with their gold
session, near-duplicate distractors in other projects, facts changed by a
later session (the newer is the gold), two-gold questions. The history is
``tests/fixtures/opencode-quality/opencode.db``, made by the real OpenCode
1.18.34 binary (``tests/fixtures/make_quality_fixture.py``: one ``opencode
run`` per session, on the session's day, titles and replies scripted in the
fake model); ``sessions.json`` beside it maps the set's session keys to
OpenCode's session ids. A copy of that file (the fixture is never opened
in place) is ingested by the real ``memctl ingest`` (subprocess) into real
Cognee, the model being the deterministic fake Ollama server
(``tests/fakes/ollama_server.py``: its distiller keeps the title and first
request; its embeddings are, by default, real weights — WordLlama
``l2_supercat`` at 256 dimensions (``--embedder wordllama``,
``tests/fakes/wordllama_embedder.py``; ``MEMCTL_EMBEDDING_DIMENSIONS=256`` is
set for the ingest and the evaluation) — or, with ``--embedder concepts``,
hashed words, character trigrams and concept groups (``CONCEPT_GROUPS``,
which cover this set's paraphrase vocabulary by construction: plumbing
only, no quality claim)). ``--topics``
ingests only those projects, with one ``memctl ingest --project <slug>``
per topic into the same data home, and keeps only their questions.

Per question, in one warm process:

* routing: the fallback router (:func:`memctl.ask.routing.fallback_route`:
  embedding similarity to each topic's profile plus the lexical match, what
  runs when the model router is unavailable and what ``memory_search`` uses);
  correct when the gold topic is among the routed topics;
* graph: Cognee CHUNKS search alone, one entry per note; notes: BM25 over the
  notes alone; hybrid: :func:`memctl.ask.retrieval.retrieve` as ``ask`` runs
  it (graph of the routed topics, BM25 and dense over every topic, fused,
  newer first) — each over the routed topics and, separately, over the gold
  topic;
* raw-history baselines (:mod:`bench.raw_baselines`): BM25, dense (the same
  embedding server and model) and their RRF over the raw OpenCode sessions,
  on the same questions, per kind;
* hit@1: a gold session ranks first; hit@5: every gold session is in the top
  five; MRR: mean of 1/rank of the first gold (0 when absent from the
  ``top_k`` list); changed: the newer session ranks above the older one;
* time: graph alone, the hybrid before the sentence term (``fusion_dense_sentence_share``
  0, ``fusion_dense_weight`` 1, ``graph_widen_hits`` 0) and the hybrid, per question, interleaved (R
  rounds, the order rotating), medians and ratios (target: <= 1.3x the
  hybrid before).

    .venv/bin/python -m bench.bench_quality              # full set, Markdown tables
    .venv/bin/python -m bench.bench_quality --topics orders billing --routed-only \
        --rounds 0 --json                                 # the CI subset (tests/e2e/test_quality_floor.py)
    .venv/bin/python -m bench.bench_quality --real [URL]  # a real Ollama (distil, embed, route): not in CI
    .venv/bin/python -m bench.bench_quality --home DIR/var --questions FILE   # a question set written elsewhere

``--questions FILE`` replaces the built-in questions with a JSON-lines file
(:func:`tests.fixtures.quality_set.load_questions`: ``{"text", "gold", "kind"}``,
gold the OpenCode session id); memctl and the raw baselines are scored per
kind on it, side by side. Exit 2, one line on stderr, for a file that cannot
be scored.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from tests.fixtures.quality_set import (
    FIXTURE,
    NEW_PARAPHRASES,
    QUESTIONS,
    SESSIONS,
    Question,
    QuestionFileError,
    by_key,
    content_words,
    fixture_ids,
    load_questions,
)

PATHS = ("graph", "notes", "hybrid")


def build_home(base: Path, server, topics: list[str] | None) -> tuple[Path, dict[str, str]]:  # noqa: ANN001
    """Ingest a copy of the quality fixture DB (only ``topics`` when given) with the real CLI into
    ``base/var``; ``(home, session key → OpenCode session id)``.

    Raises:
        SystemExit: an ingest failed, or the fixture does not match the set (:func:`fixture_ids`).
    """
    from tests.support.memctl_process import run_memctl

    ids = fixture_ids(topics)
    db = base / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(FIXTURE / "opencode.db", db)  # opening the fixture itself could write -wal/-shm beside it
    home = base / "var"
    for project in topics or [None]:
        proc = run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--json",
                          *(["--project", project] if project else []))
        if proc.returncode != 0:
            raise SystemExit(f"ingest {project or ''} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return home, ids


def check_paraphrases(questions: list[Question], refuse: bool = True) -> list[str]:
    """The paraphrases that share a content word with their gold session (title + request), one line each.

    Raises:
        SystemExit: with ``refuse`` (the built-in set), at the first such paraphrase. A ``--questions`` file
            is scored anyway (``refuse`` False): its lines are printed to stderr as warnings.
    """
    sessions = by_key()
    found = []
    for q in questions:
        if q.kind.startswith("paraphrase"):
            gold = sessions[q.gold[0]]
            shared = content_words(q.text) & content_words(f"{gold.title} {gold.request}")
            if shared:
                line = f"paraphrase {q.text!r} shares {sorted(shared)} with its gold session"
                if refuse:
                    raise SystemExit(line)
                found.append(line)
    return found


def _ranked_ids(hits) -> list[str]:  # noqa: ANN001
    out: list[str] = []
    for hit in hits:
        if hit.source.source_id not in out:
            out.append(hit.source.source_id)
    return out


def _score(ranked: list[str], gold: list[str]) -> dict[str, float]:
    first = next((i for i, sid in enumerate(ranked, start=1) if sid in gold), None)
    return {"hit1": float(first == 1), "hit5": float(all(g in ranked[:5] for g in gold)),
            "mrr": 1.0 / first if first else 0.0}


def ingested(home: Path, ids: dict[str, str]) -> dict:
    """What the ingest made of the fixture: ``{"topics": [slug, …], "notes": int, "title_mismatches": [key, …]}``
    (notes in the topic index; keys of sessions whose distilled note is missing or whose front-matter title
    or first heading is not the set's title)."""
    from memctl.ask.run import load_index
    from memctl.config import DataHome
    from memctl.front_matter import split_front_matter

    data_home = DataHome(home)
    index = load_index(data_home)
    sessions = by_key()
    mismatches = []
    for key, sid in ids.items():
        path = data_home.note_path(sid)
        meta, body = split_front_matter(path.read_text()) if path.exists() else ({}, "")
        heading = next((line[2:].strip() for line in body.splitlines() if line.startswith("# ")), None)
        if not (meta.get("title") == heading == sessions[key].title):
            mismatches.append(key)
    return {"topics": sorted(index.slugs), "notes": sum(len(index.topics[t].notes) for t in index.slugs),
            "title_mismatches": mismatches}


def evaluate(home: Path, ids: dict[str, str], questions: list[Question], rounds: int,
             scopes: tuple[str, ...] = ("routed", "gold"), model_url: str | None = None,
             embedder: str = "wordllama", db: Path | None = None) -> dict:
    """All figures (see the module doc) as a dict; ``scopes``: routed topics and/or the gold topic;
    ``model_url``: the Ollama server to embed questions with (None: a fresh fake server with ``embedder``);
    ``db``: the OpenCode database the raw-history baselines search (None: the fixture's)."""
    from bench.raw_baselines import RawBaselines, read_sessions, server_embedder
    from memctl.ask.retrieval import _graph_hits, notes_hits, retrieve
    from memctl.ask.routing import fallback_route
    from memctl.ask.run import load_index
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.catalog.turn_index import TurnIndex
    from memctl.config import DataHome, Settings
    from tests.fakes.ollama_server import FakeOllama

    sessions = by_key()
    older = {s.key: s.replaces for s in SESSIONS if s.replaces}
    with contextlib.nullcontext(SimpleNamespace(url=model_url)) if model_url else FakeOllama(embedder=embedder) as server:
        settings = Settings(home=home, ollama_host=server.url)
        data_home = DataHome(home)
        wanted = set(ids.values())
        raw = RawBaselines([s for s in read_sessions(db or FIXTURE / "opencode.db") if s.session_id in wanted],
                           server_embedder(server.url, settings.embedding_model, settings.embedding_dimensions))
        raw_by_kind: dict[str, dict[str, list[dict]]] = {}
        index = load_index(data_home)
        top_k = settings.ask_top_k
        # What ingest does after publishing (a no-op when current; a home made before the turn index gets it here).
        TurnIndex(data_home, settings).refresh(index, TopicProfiles(settings, data_home).embed_texts)
        retrieve("warm up", index.slugs[:1], settings, data_home, index, top_k=1)  # Cognee import and config
        scores: dict[str, dict[str, list[dict]]] = {scope: {p: [] for p in PATHS} for scope in scopes}
        by_kind: dict[str, list[dict]] = {}
        path_by_kind: dict[str, dict[str, list[dict]]] = {}
        routed_ok, two_topic, changed_ok, changed_n, failures, gold_cited = 0, 0, 0, 0, [], 0
        routed_by_kind: dict[str, list[bool]] = {}
        times = {"graph": [], "routed_hybrid": [], "hybrid": []}
        # The hybrid before the sentence term: whole-text dense list (no sentence term) weighing 1, graph over
        # the routed topics only (the turn lists as today).
        before = settings.model_copy(update={"fusion_dense_sentence_share": 0.0, "fusion_dense_weight": 1.0,
                                             "graph_widen_hits": 0})
        for q in questions:
            gold_ids = [ids[k] for k in q.gold]
            gold_topic = q.topic(sessions)
            topics, _how = fallback_route(q.text, index, settings, data_home)
            routed_ok += gold_topic in topics
            routed_by_kind.setdefault(q.kind, []).append(gold_topic in topics)
            two_topic += len(topics) == 2
            for name, ranking in raw.ranked(q.text).items():
                raw_by_kind.setdefault(q.kind, {}).setdefault(name, []).append(_score(ranking[:top_k], gold_ids))
            for scope, scope_topics in (("routed", topics), ("gold", [gold_topic])):
                if scope not in scopes:
                    continue
                hybrid = retrieve(q.text, scope_topics, settings, data_home, index, top_k=top_k,
                                  wide_topics=index.slugs if scope == "routed" else None).hits
                ranked = {
                    "graph": _ranked_ids(_graph_hits(q.text, scope_topics, settings, data_home, index, top_k * 2))[:top_k],
                    "notes": _ranked_ids(notes_hits(q.text, scope_topics, data_home, index, top_k)),
                    "hybrid": _ranked_ids(hybrid),
                }
                if scope == "routed":  # the gold session's hit cites the transcript turn it was found by
                    gold_cited += any(h.turn and h.source.source_id in gold_ids for h in hybrid)
                for path in PATHS:
                    scores[scope][path].append(_score(ranked[path], gold_ids))
                if scope == "routed":
                    by_kind.setdefault(q.kind, []).append(_score(ranked["hybrid"], gold_ids))
                    for path in PATHS:
                        path_by_kind.setdefault(q.kind, {}).setdefault(path, []).append(_score(ranked[path], gold_ids))
                    if scores[scope]["hybrid"][-1]["hit1"] < 1:
                        failures.append({"question": q.text, "kind": q.kind, "gold": list(q.gold), "topics": topics,
                                         "hybrid": ranked["hybrid"][:3]})
                    newer = next((k for k in q.gold if k in older), None)
                    if newer and q.kind == "changed":
                        changed_n += 1
                        ranks = ranked["hybrid"]
                        old_id, new_id = ids[older[newer]], ids[newer]
                        changed_ok += new_id in ranks and (old_id not in ranks or ranks.index(new_id) < ranks.index(old_id))
            # Side by side: graph alone, the hybrid before and today's hybrid, the order rotating.
            for r in range(rounds):
                paths = ("graph", "routed_hybrid", "hybrid")
                for path in paths[r % 3:] + paths[:r % 3]:
                    started = time.perf_counter()
                    if path == "graph":
                        _graph_hits(q.text, topics, settings, data_home, index, top_k)
                    elif path == "routed_hybrid":
                        retrieve(q.text, topics, before, data_home, index, top_k=top_k, wide_topics=index.slugs)
                    else:
                        retrieve(q.text, topics, settings, data_home, index, top_k=top_k, wide_topics=index.slugs)
                    times[path].append((time.perf_counter() - started) * 1000)

    def mean(rows: list[dict], key: str) -> float:
        return round(sum(r[key] for r in rows) / len(rows), 3) if rows else 0.0

    n = len(questions)
    return {
        "questions": n, "sessions": len(ids), "top_k": top_k,
        "routing_accuracy": round(routed_ok / n, 3), "two_topic_routes": two_topic,
        "paths": {scope: {p: {m: mean(rows, m) for m in ("hit1", "hit5", "mrr")} for p, rows in per.items()}
                  for scope, per in scores.items()},
        "hybrid_by_kind": {k: {"n": len(rows), "routing": round(sum(routed_by_kind[k]) / len(rows), 3),
                               **{m: mean(rows, m) for m in ("hit1", "hit5", "mrr")}}
                           for k, rows in sorted(by_kind.items())},
        "by_kind": {k: {p: {m: mean(rows, m) for m in ("hit1", "hit5", "mrr")} for p, rows in per.items()}
                    for k, per in sorted(path_by_kind.items())},
        "raw_by_kind": {k: {p: {m: mean(rows, m) for m in ("hit1", "hit5", "mrr")} for p, rows in per.items()}
                        for k, per in sorted(raw_by_kind.items())},
        "changed_newer_first": f"{changed_ok}/{changed_n}",
        "gold_turn_cited": round(gold_cited / n, 3) if "routed" in scopes else None,
        "time_ms": {p: {"p50": round(statistics.median(v), 2), "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 2)}
                    for p, v in times.items() if v},
        "hybrid_to_graph_time": (round(statistics.median(times["hybrid"]) / statistics.median(times["graph"]), 3)
                                 if times["graph"] else None),
        "hybrid_to_routed_hybrid_time": (round(statistics.median(times["hybrid"])
                                               / statistics.median(times["routed_hybrid"]), 3)
                                         if times["routed_hybrid"] else None),
        "hybrid_misses_at_1": failures,
    }


def markdown(result: dict) -> str:
    """The figures as Markdown tables."""
    lines = [f"{result['sessions']} sessions, {result['questions']} questions, top_k {result['top_k']}; "
             f"fallback routing accuracy {result['routing_accuracy']:.3f} "
             f"({result['two_topic_routes']} questions routed to two topics)", "",
             "| topics | path | hit@1 | hit@5 | MRR |", "|---|---|---|---|---|"]
    for scope, per in result["paths"].items():
        for path, m in per.items():
            lines.append(f"| {scope} | {path} | {m['hit1']:.3f} | {m['hit5']:.3f} | {m['mrr']:.3f} |")
    lines += ["", "| kind (hybrid, routed topics) | n | routing | hit@1 | hit@5 | MRR |", "|---|---|---|---|---|---|"]
    for kind, m in result["hybrid_by_kind"].items():
        lines.append(f"| {kind} | {m['n']} | {m['routing']:.3f} | {m['hit1']:.3f} | {m['hit5']:.3f} | {m['mrr']:.3f} |")
    if result["by_kind"]:
        lines += ["", "| kind (routed topics) | graph hit@1 / hit@5 | notes hit@1 / hit@5 | hybrid hit@1 / hit@5 |",
                  "|---|---|---|---|"]
        for kind, per in result["by_kind"].items():
            cells = [f"{per[p]['hit1']:.3f} / {per[p]['hit5']:.3f}" for p in PATHS]
            lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    if result.get("raw_by_kind"):
        lines += ["", "Side by side with the raw history (hit@1 / hit@5; memctl: routed topics, its routing accuracy):", "",
                  "| questions | memctl | BM25 over raw sessions | dense over raw sessions | RRF of both, raw |",
                  "|---|---|---|---|---|"]
        for kind, m in result["hybrid_by_kind"].items():
            raw = result["raw_by_kind"].get(kind, {})
            cells = [f"{raw[p]['hit1']:.2f} / {raw[p]['hit5']:.2f}" if p in raw else "-" for p in ("bm25", "dense", "rrf")]
            lines.append(f"| {m['n']} {kind} | {m['hit1']:.2f} / {m['hit5']:.2f} (routing {m['routing']:.2f}) | "
                         + " | ".join(cells) + " |")
    lines += ["", f"changed facts, newer ranked above older (hybrid): {result['changed_newer_first']}; "
                  f"questions whose gold session's hit cites a transcript turn: {result['gold_turn_cited']}"]
    if "ingested" in result:
        got = result["ingested"]
        lines += ["", f"ingested: {got['notes']} notes in topics {', '.join(got['topics'])}; "
                      f"distilled titles not the scripted ones: {got['title_mismatches'] or 'none'}"]
    t = result["time_ms"]
    if t:
        lines += ["", "| retrieval per question | p50 ms | p95 ms |", "|---|---|---|",
                  f"| graph alone | {t['graph']['p50']} | {t['graph']['p95']} |",
                  f"| hybrid before (whole-text dense list, routed graph) | {t['routed_hybrid']['p50']} | "
                  f"{t['routed_hybrid']['p95']} |",
                  f"| hybrid: + best-sentence dense term, graph widened to the dense hits' topics | {t['hybrid']['p50']} | "
                  f"{t['hybrid']['p95']} |", "",
                  f"hybrid / graph p50: {result['hybrid_to_graph_time']:.2f}x; hybrid / before p50: "
                  f"{result['hybrid_to_routed_hybrid_time']:.2f}x (target <= 1.3x)"]
    return "\n".join(lines)


def _require_server(url: str) -> None:
    """Exit with a one-line reason when no Ollama server answers at ``url`` (``GET /api/version``)."""
    import httpx

    try:
        httpx.get(f"{url.rstrip('/')}/api/version", timeout=5).raise_for_status()
    except httpx.HTTPError as exc:
        raise SystemExit(f"--real: no Ollama server answers at {url} ({exc}); start one (`ollama serve`) "
                         "and pull memctl's models (`memctl doctor` names them)") from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", nargs="*", help="only these projects (and their questions)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per question and path (0: no timing)")
    parser.add_argument("--home", type=Path, help="reuse an ingested home (made by an earlier run with --keep)")
    parser.add_argument("--keep", type=Path, help="ingest into this directory and keep it")
    parser.add_argument("--skip-kinds", nargs="*", default=[], help="leave out questions of these kinds")
    parser.add_argument("--new-paraphrases", action="store_true",
                        help="add the held-out paraphrases (tests/fixtures/quality_set.NEW_PARAPHRASES, kind "
                             "paraphrase_new), a check against fitting the 26")
    parser.add_argument("--questions", type=Path, metavar="FILE",
                        help="score these questions instead of the built-in set: JSON lines {\"text\", \"gold\", "
                             "\"kind\"}, gold the OpenCode session id in tests/fixtures/opencode-quality/opencode.db "
                             "(sessions.json maps them; a list of one or two), kind optional (default file); "
                             "exit 2 for a file that cannot be scored")
    parser.add_argument("--routed-only", action="store_true", help="skip the gold-topic figures (faster)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--real", nargs="?", const=os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434",
                        metavar="URL", help="use a real Ollama server (default $OLLAMA_HOST or 127.0.0.1:11434) with "
                                            "memctl's configured models instead of the fake one; not in CI")
    parser.add_argument("--embedder", choices=("wordllama", "concepts"), default="wordllama",
                        help="the fake server's embeddings: wordllama (real l2_supercat weights, 256 dimensions; "
                             "the quality figures) or concepts (hashed words and concept groups; plumbing only)")
    args = parser.parse_args(argv)
    if args.questions:
        try:
            asked = [*load_questions(args.questions), *(NEW_PARAPHRASES if args.new_paraphrases else [])]
        except QuestionFileError as exc:
            print(f"bench_quality: {exc}", file=sys.stderr)
            return 2
    else:
        asked = [*QUESTIONS, *(NEW_PARAPHRASES if args.new_paraphrases else [])]
    questions = [q for q in asked if (not args.topics or q.topic(by_key()) in args.topics)
                 and q.kind not in args.skip_kinds]
    if not questions:
        print("bench_quality: no question left (--topics / --skip-kinds removed them all)", file=sys.stderr)
        return 2
    for warning in check_paraphrases(questions, refuse=not args.questions):
        print(f"bench_quality: warning: {warning}", file=sys.stderr)
    # Only once the arguments hold: a refused run leaves the environment as it was (a test calls main()
    # in pytest's own process, and a leaked 256 here made every later ingest child refuse its 768 dimensions).
    if args.embedder == "wordllama" and not args.real:
        os.environ["MEMCTL_EMBEDDING_DIMENSIONS"] = "256"  # WordLlama's native size; the ingest children inherit it
    if args.real:
        _require_server(args.real)
    from tests.fakes.ollama_server import FakeOllama

    with tempfile.TemporaryDirectory() as tmp:
        if args.home:
            home = args.home
            ids = fixture_ids(args.topics)
        else:
            base = args.keep or Path(tmp)
            base.mkdir(parents=True, exist_ok=True)
            with (contextlib.nullcontext(SimpleNamespace(url=args.real)) if args.real
                  else FakeOllama(embedder=args.embedder)) as server:
                home, ids = build_home(base, server, args.topics)
        result = evaluate(home, ids, questions, args.rounds, ("routed",) if args.routed_only else ("routed", "gold"),
                          model_url=args.real, embedder=args.embedder)
        result["model"] = (f"real Ollama at {args.real}" if args.real
                           else f"fake (tests/fakes/ollama_server.py), embeddings: {args.embedder}")
        result["ingested"] = ingested(home, ids)
    print(json.dumps(result, indent=1) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
