"""Benchmark: overhead of `memctl ask` excluding model calls, and the context size it produces.

Measures, in one warm process, routing (the deterministic lexical fallback)
+ retrieval + promoted-memory lookup + prompt assembly — everything ask does
except the router and answer model calls — per question, over synthetic data
homes of 1,000 and 10,000 notes in 10 topics (notes ~1.5 KB of topic-specific
text, front matter as ingest writes it):

* raw-notes path (BM25 over ``memory/<topic>/``; indexes built beforehand, as
  ingest does) — floor: p50 <= 150 ms at 10,000 notes;
* Cognee path (CHUNKS search in the routed datasets) on a smaller home
  (``--graph-notes``, default 60: cognify against the fake server costs
  seconds per note); its one query-embedding call goes to the local fake
  server (about a millisecond).

Also prints the ``ctx_chars`` distribution over the question set against
``--max-context-chars`` (it must never exceed it).

    .venv/bin/python -m bench.bench_ask --sizes 1000 10000 --graph-notes 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from memctl.ask.retrieval import retrieve
from memctl.ask.routing import lexical_route
from memctl.ask.run import assemble_context, user_memories
from memctl.catalog.note_search import NoteSearch
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex, describe
from memctl.config import DataHome, Settings
from memctl.store import MemoryStore

FLOOR_P50_MS = 150.0
TOPICS = 10
COMMON = ("fix bug test build deploy config error log update refactor module function service request response "
          "cache database query index migration release version script command output file path").split()


def _topic_words(t: int) -> list[str]:
    rng = random.Random(t)
    return [f"{rng.choice(['kube', 'stripe', 'redis', 'lance', 'kuzu', 'vite', 'rust', 'grpc', 'celery', 'nginx'])}"
            f"{t}{i}" for i in range(40)]


def make_home(root: Path, notes: int, seed: int = 7) -> tuple[DataHome, TopicIndex, list[str]]:
    """Write ``notes`` notes into ``memory/topic<k>/`` directly (the audit log is not what is measured)."""
    rng = random.Random(seed)
    home = DataHome(root)
    topics: dict[str, TopicEntry] = {}
    questions = []
    for i in range(notes):
        t = i % TOPICS
        slug = f"topic{t}"
        words = _topic_words(t)
        title = " ".join(rng.sample(words, 3) + rng.sample(COMMON, 2))
        body = "\n".join("- " + " ".join(rng.choice(words if rng.random() < 0.4 else COMMON) for _ in range(14))
                         for _ in range(14))
        sid = f"ses_{i:06d}"
        text = (f"---\nsource: opencode\nsource_id: {sid}\ntopic: {slug}\ntitle: {title}\n"
                f"session_updated: '2026-11-01T10:00:00Z'\n---\n\n# {title}\n\n{body}\n")
        path = home.store / "memory" / slug / f"{sid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        entry = topics.setdefault(slug, TopicEntry(slug, f"/src/{slug}", "", []))
        entry.notes.append(NoteRef(sid, f"memory/{slug}/{sid}.md", title, "2026-11-01", slug))
        if i < 200:
            questions.append(f"what did we do about {' '.join(title.split()[:2])}?")
    for slug, entry in topics.items():
        entry.description = describe(slug, entry.worktree, [n.title for n in entry.notes])
    index = TopicIndex(topics)
    index.save(home.topic_index)
    store = MemoryStore(home.store)
    for i in range(3):  # a few promoted memories, as sleep would leave them
        store.write_text(f"user/global/pref{i}.md", f"Preference {i}: " + "prefers short answers " * 5,
                         actor="sleep", reason="bench")
    return home, index, questions


def _overhead(settings: Settings, home: DataHome, index: TopicIndex, questions: list[str], use_graph: bool):
    store = MemoryStore(home.store)
    times, ctx, paths = [], [], set()
    for question in questions:
        started = time.perf_counter()
        topics, _ = lexical_route(question, index)
        result = retrieve(question, topics, settings, home, index, top_k=settings.ask_top_k, use_graph=use_graph)
        memories = user_memories(store, "cli", topics)
        context = assemble_context(memories, result.hits, settings.max_context_chars)
        times.append((time.perf_counter() - started) * 1000)
        ctx.append(len(context.text))
        paths.add(result.method)
    return times, ctx, paths


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _row(label: str, notes: int, times: list[float], path: str) -> str:
    p50 = statistics.median(times)
    floor = f"{FLOOR_P50_MS:.0f}" if path == "notes" else "-"
    ratio = f"{p50 / FLOOR_P50_MS:.2f}" if path == "notes" else "-"
    return (f"| {label} | {notes:,} | {len(times)} | {p50:.1f} | {_pct(times, 0.95):.1f} | {floor} | {ratio} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--graph-notes", type=int, default=60, help="notes in the Cognee-path home (0 skips it)")
    parser.add_argument("--max-context-chars", type=int, default=12000)
    args = parser.parse_args()
    rows, ctx_all = [], []
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            home, index, questions = make_home(Path(tmp) / "var", size)
            settings = Settings(home=home.root, max_context_chars=args.max_context_chars)
            started = time.perf_counter()
            search = NoteSearch(MemoryStore(home.store), home.note_index)
            for slug in index.slugs:
                search.index_for(slug)
            build_s = time.perf_counter() - started
            times, ctx, paths = _overhead(settings, home, index, questions[: args.questions], use_graph=False)
            assert paths == {"notes"}
            rows.append(_row("raw notes (BM25)", size, times, "notes") + f" index build {build_s:.1f} s |")
            ctx_all.extend(ctx)
    if args.graph_notes:
        rows.extend(_graph_row(args))
    print("| path | notes | questions | p50 ms | p95 ms | floor p50 ms | ratio to floor | note |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row if row.count("|") == 9 else row + " |")
    print()
    print(f"ctx_chars over {len(ctx_all)} questions: min {min(ctx_all)}, p50 {statistics.median(ctx_all):.0f}, "
          f"p95 {_pct(ctx_all, 0.95):.0f}, max {max(ctx_all)}; limit {args.max_context_chars}; "
          f"above limit: {sum(c > args.max_context_chars for c in ctx_all)}")


def _graph_row(args: argparse.Namespace) -> list[str]:
    from memctl.graph import knowledge_graph
    from tests.fakes.ollama_server import FakeOllama

    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as server:
        home, index, questions = make_home(Path(tmp) / "var", args.graph_notes)
        settings = Settings(home=home.root, ollama_host=server.url, max_context_chars=args.max_context_chars)
        knowledge_graph.configure(settings, home)
        started = time.perf_counter()

        async def build():
            for slug in index.slugs:
                await knowledge_graph.add_notes(slug, [home.store / n.path for n in index.topics[slug].notes])
            await knowledge_graph.cognify(index.slugs)

        knowledge_graph.run_sync(build())
        build_s = time.perf_counter() - started
        # Cognee opens each dataset's stores in a DB worker process and keeps the 6 most recent
        # (DATABASE_MAX_LRU_CACHE_SIZE). Questions rotate over 10 topics, so each first search is
        # cold — what every `memctl ask` process pays; asking it again right away is warm.
        cold, warm = [], []
        for question in questions[: args.questions]:
            for sink in (cold, warm):
                times, _ctx, paths = _overhead(settings, home, index, [question], use_graph=True)
                assert paths == {"hybrid"}, paths  # the graph served (fused with the BM25 list)
                sink.extend(times)
        return [_row("Cognee (CHUNKS), dataset cold", args.graph_notes, cold, "graph") + f" add+cognify {build_s:.0f} s |",
                _row("Cognee (CHUNKS), dataset warm", args.graph_notes, warm, "graph") + " same question again |"]


if __name__ == "__main__":
    main()
