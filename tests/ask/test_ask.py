"""The wake cycle's parts without Cognee: topic index, routing and its fallbacks, BM25 note search,
context assembly and its bound, proposals, and `ask` over the raw notes (graph off or failing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from memctl.ask.proposals import ProposalError, stage_proposal
from memctl.ask.retrieval import ContextHit, Source, retrieve
from memctl.ask.routing import UnknownTopicError, lexical_route, route_question
from memctl.ask.run import AskOptions, UserMemory, ask, assemble_context
from memctl.catalog.note_search import NoteSearch
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex, TopicIndexError, build_topic_index
from memctl.config import DataHome, Settings
from memctl.exit_codes import ExitCodeError
from memctl.ingest.run import IngestOptions, IngestRun
from memctl.store import MemoryStore
from tests.fakes.ollama_server import FakeOllama


def _index() -> TopicIndex:
    def topic(slug: str, worktree: str, titles: list[str]) -> TopicEntry:
        notes = [NoteRef(f"ses_{slug}{i}", f"memory/{slug}/ses_{slug}{i}.md", t, "2026-11-01", slug)
                 for i, t in enumerate(titles)]
        return TopicEntry(slug, worktree, f"{slug}: work in {worktree}. Sessions: " + "; ".join(titles), notes)

    return TopicIndex({
        "payments": topic("payments", "/src/payments", ["Stripe webhook retries", "Refund ledger schema"]),
        "infra": topic("infra", "/src/infra", ["Terraform state lock", "Kubernetes ingress TLS"]),
        "docs": topic("docs", "/src/docs", ["Sphinx theme"]),
    })


# -- routing -----------------------------------------------------------------------------------------


def test_lexical_route_is_deterministic_and_picks_the_matching_topic() -> None:
    index = _index()
    assert lexical_route("why did the terraform state lock fail?", index)[0] == ["infra"]
    assert lexical_route("stripe webhook retries and the refund ledger", index)[0] == ["payments"]
    topics, how = lexical_route("zzz qqq", index)
    assert topics == ["infra", "payments"] and "largest" in how  # never empty; ties by slug


def test_model_route_uses_a_schema_of_known_slugs(tmp_path: Path) -> None:
    with FakeOllama() as server:
        s = Settings(home=tmp_path, ollama_host=server.url)
        route = route_question("How is TLS set up for the Kubernetes ingress?", _index(), s)
        body = next(b for p, _m, b in server.calls if p == "/api/chat")
    assert (route.topics, route.method) == (["infra"], "model")
    assert body["format"]["properties"]["topics"]["items"]["enum"] == ["docs", "infra", "payments"]
    assert body["format"]["properties"]["topics"]["maxItems"] == 2


@pytest.mark.parametrize("fault", ["http500", "malformed", "timeout", "missing_model", "down"])
def test_router_failures_fall_back_to_lexical(tmp_path: Path, fault: str) -> None:
    with FakeOllama(missing_models=["router:1b"] if fault == "missing_model" else ()) as server:
        url = server.url
        if fault == "http500":
            server.fail_next(1, status=500)
        elif fault == "malformed":
            server.malformed_next(1)
        elif fault == "timeout":
            server.hang_next(1, seconds=5)
        s = Settings(home=tmp_path, ollama_host="http://127.0.0.1:9" if fault == "down" else url,
                     router_model="router:1b", router_timeout_s=1)
        route = route_question("terraform state lock", _index(), s)
    assert (route.topics, route.method) == (["infra"], "fallback")
    assert route.reason and "lexical" in route.reason


def test_router_answer_without_known_slugs_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memctl.ask.routing.chat_once", lambda *a, **k: '{"topics": ["nope", "../etc"]}')
    route = route_question("terraform state lock", _index(), Settings(home=tmp_path))
    assert route.method == "fallback" and "no known topic" in route.reason and route.topics == ["infra"]
    monkeypatch.setattr("memctl.ask.routing.chat_once", lambda *a, **k: "not json")
    assert route_question("terraform", _index(), Settings(home=tmp_path)).method == "fallback"


def test_override_and_single_topic_need_no_model_call(tmp_path: Path) -> None:
    s = Settings(home=tmp_path, ollama_host="http://127.0.0.1:9")  # nothing listens there
    assert route_question("x", _index(), s, override=["docs", "docs"]).topics == ["docs"]
    with pytest.raises(UnknownTopicError, match="known topics: docs, infra, payments"):
        route_question("x", _index(), s, override=["nope"])
    single = TopicIndex({"docs": _index().topics["docs"]})
    assert route_question("anything", single, s).method == "single"


# -- context -----------------------------------------------------------------------------------------


def _hit(n: int, size: int) -> ContextHit:
    return ContextHit(text=f"# Note {n}\n" + "word " * (size // 5), source=Source(f"ses_{n}", f"memory/t/ses_{n}.md",
                                                                                   f"Title {n}", "2026-11-01", "t"))


@given(st.lists(st.integers(0, 6000), max_size=8), st.lists(st.integers(0, 3000), max_size=5),
       st.integers(500, 20000))
@hsettings(max_examples=200, deadline=None)
def test_context_never_exceeds_the_budget(hit_sizes: list[int], memory_sizes: list[int], budget: int) -> None:
    hits = [_hit(i, n) for i, n in enumerate(hit_sizes)]
    memories = [UserMemory(f"user/global/m{i}.md", "pref " * (n // 5)) for i, n in enumerate(memory_sizes)]
    context = assemble_context(memories, hits, budget)
    assert len(context.text) <= budget
    assert [s.source_id for s in context.sources] == [f"ses_{i}" for i in range(len(context.sources))]
    for source in context.sources:
        assert f"(session {source.source_id}, 2026-11-01)" in context.text


def test_context_sections_and_citation_numbers() -> None:
    context = assemble_context([UserMemory("user/global/a.md", "prefers vim")], [_hit(1, 50), _hit(2, 50)], 5000)
    assert context.text.startswith('[USER_MEMORY]\n- (user/global/a.md) "prefers vim"\n')
    assert '[REFERENCE]\n[1] "Title 1" (session ses_1, 2026-11-01)\n"# Note 1\\nword' in context.text
    assert '[2] "Title 2" (session ses_2, 2026-11-01)' in context.text
    assert context.user_memories == ["user/global/a.md"]


# -- note search -------------------------------------------------------------------------------------


def _notes(store: MemoryStore, topic: str, notes: dict[str, str]) -> None:
    for sid, body in notes.items():
        store.write_text(f"memory/{topic}/{sid}.md", f"---\nsource_id: {sid}\ntitle: {body.splitlines()[0]}\n---\n\n"
                         f"# {body}\n", actor="ingest", reason="test note")


def test_note_search_ranks_persists_and_rebuilds_when_notes_change(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    _notes(store, "infra", {"s1": "Terraform state lock\nDynamoDB lock table stuck", "s2": "Ingress TLS\ncert-manager",
                            "s3": "Unrelated\nnothing here"})
    search = NoteSearch(store, tmp_path / "index")
    hits = search.search("why is the terraform lock stuck", ["infra"], 5)
    assert [h.path for h in hits] == ["memory/infra/s1.md"] and hits[0].score > 0
    manifest = tmp_path / "index" / "infra" / "manifest.json"
    stamp = manifest.stat().st_mtime_ns
    search.search("terraform", ["infra"], 5)
    assert manifest.stat().st_mtime_ns == stamp  # unchanged notes: loaded, not rebuilt
    _notes(store, "infra", {"s4": "Terraform upgrade\nprovider 5.0"})
    assert "memory/infra/s4.md" in [h.path for h in search.search("terraform provider", ["infra"], 5)]
    assert json.loads(manifest.read_text())["paths"][-1] == "memory/infra/s4.md"
    assert search.search("zzzz", ["infra"], 5) == []
    assert search.search("terraform", ["empty-topic"], 5) == []


# -- proposals ---------------------------------------------------------------------------------------


def test_stage_proposal_is_scrubbed_audited_and_only_in_staging(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    proposal = stage_proposal(store, session="ses_1", content=f"Use pnpm. My token is {token}", source="remember",
                              topic="infra")
    assert proposal.staged_path == f"staging/sessions/ses_1/inbox/{proposal.id}.json"
    assert proposal.path == f"user/topics/infra/{proposal.id}.md" and proposal.redactions == 1
    staged = json.loads(store.read_text(proposal.staged_path)[0])
    assert token not in json.dumps(staged) and "[REDACTED:github_token]" in staged["content"]
    assert set(staged) == {"id", "session", "target", "path", "content", "topic", "kind", "created", "source",
                           "redactions", "provenance"}
    assert staged["provenance"] == {"origin": "agent", "channel": "remember", "session": "ses_1", "source": None,
                                    "time": staged["created"]}
    assert store.list("user") == [] and store.list("memory") == []
    (record,) = store.audit.records()
    assert (record["actor"], record["path"]) == ("remember", proposal.staged_path)
    assert stage_proposal(store, session="s", content="x", source="remember", global_scope=True).path.startswith(
        "user/global/")
    for bad in ({"session": "../x"}, {"session": ""}, {"content": "  "}, {"content": "x" * 4001},
                {"topic": "Bad Topic"}, {"content": "é" * 1001, "max_bytes": 2000},
                {"content": "a\nb\nc", "max_lines": 2}):
        kwargs = {"session": "s", "content": "ok", "source": "remember", **bad}
        with pytest.raises(ProposalError):
            stage_proposal(store, **kwargs)


# -- ask over the raw notes --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ingested_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.fixtures.synthetic_opencode import build_database

    base = tmp_path_factory.mktemp("wake")
    db = build_database(base / "opencode.db", 4, turns=2)
    with FakeOllama() as server:
        s = Settings(home=base / "var", ollama_host=server.url, settle_minutes=0)
        IngestRun(s, IngestOptions(db=db, phase="distill")).run()
    return base / "var"


def test_ingest_maintains_the_topic_index_and_note_indexes(ingested_home: Path) -> None:
    home = DataHome(ingested_home)
    index = TopicIndex.load(home.topic_index)
    assert index.topics and sum(t.note_count for t in index.topics.values()) == 4
    assert build_topic_index(home).topics.keys() == index.topics.keys()
    for slug, topic in index.topics.items():
        assert all(n.path == f"memory/{slug}/{n.source_id}.md" for n in topic.notes)
        assert (home.note_index / slug / "manifest.json").is_file()
    home.topic_index.write_text("{broken")
    with pytest.raises(TopicIndexError, match="delete it and run `memctl ingest`"):
        TopicIndex.load(home.topic_index)
    build_topic_index(home).save(home.topic_index)


def test_ask_without_graph_answers_from_raw_notes_and_cites(ingested_home: Path) -> None:
    index = TopicIndex.load(DataHome(ingested_home).topic_index)
    note = next(iter(index.topics.values())).notes[0]
    with FakeOllama() as server:
        s = Settings(home=ingested_home, ollama_host=server.url)
        result = ask(s, AskOptions(question=f"What happened in {note.title}?", use_graph=False))
    assert result.retrieval_method == "notes" and result.fallback_used and "disabled" in result.fallback_reason
    assert result.sources and note.source_id in [src.source_id for src in result.sources]
    assert "[1]" in result.answer and result.ctx_chars <= s.max_context_chars


def test_retrieval_falls_back_when_the_graph_returns_nothing(ingested_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                             fake_chat) -> None:  # noqa: ANN001 - Ollama has the models
    home = DataHome(ingested_home)
    home.cognee.mkdir(exist_ok=True)
    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", lambda *a, **k: [])
    index = TopicIndex.load(home.topic_index)
    result = retrieve("session", index.slugs[:1], Settings(home=ingested_home), home, index, top_k=3)
    assert result.method == "notes" and result.fallback_reason == "graph search returned nothing"

    def boom(*a, **k):  # noqa: ANN002, ANN003
        raise RuntimeError("IO exception: Could not set lock on file")

    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", boom)
    result = retrieve("session", index.slugs[:1], Settings(home=ingested_home), home, index, top_k=3)
    # a graph store locked by another process is said in the user's terms, not as Kuzu's text
    assert result.method == "notes" and result.hits
    assert "in use by another memctl process" in result.fallback_reason and "IO exception" not in result.fallback_reason

    def other(*a, **k):  # noqa: ANN002, ANN003
        raise ValueError("a broken chunk")

    monkeypatch.setattr("memctl.ask.retrieval._graph_hits", other)
    result = retrieve("session", index.slugs[:1], Settings(home=ingested_home), home, index, top_k=3)
    assert result.fallback_reason == "graph search failed: ValueError: a broken chunk"
    home.cognee.rmdir()


@pytest.mark.parametrize("case, code, fragment", [
    ("empty", 2, "question is empty"),
    ("unknown_topic", 2, "unknown topic"),
    ("bad_session", 2, "invalid session id"),
    ("ollama_down", 9, "cannot reach Ollama"),
    ("model_missing", 9, "ollama pull"),
    ("nothing_ingested", 12, "run `memctl ingest` first"),
])
def test_ask_errors_are_clear_with_their_exit_code(ingested_home: Path, tmp_path: Path, case: str, code: int,
                                                   fragment: str) -> None:
    with FakeOllama(missing_models=["llama3.1:8b"] if case == "model_missing" else ()) as server:
        home = tmp_path / "empty" if case == "nothing_ingested" else ingested_home
        host = "http://127.0.0.1:9" if case == "ollama_down" else server.url
        options = AskOptions(question="" if case == "empty" else "what happened?",
                             topics=["nope"] if case == "unknown_topic" else [],
                             session="../x" if case == "bad_session" else None)
        with pytest.raises(ExitCodeError) as info:
            ask(Settings(home=home, ollama_host=host), options)
    assert info.value.exit_code == code and fragment in str(info.value)


def test_ask_streams_the_answer_and_drops_think_blocks(ingested_home: Path) -> None:
    from memctl.ask.run import _ThinkFilter

    pieces: list[str] = []
    with FakeOllama() as server:
        result = ask(Settings(home=ingested_home, ollama_host=server.url),
                     AskOptions(question="what happened in the sessions?", use_graph=False), on_token=pieces.append)
        streamed = [b for p, _m, b in server.calls if p == "/api/chat" and b.get("stream") is not False]
    assert len(pieces) > 1 and "".join(pieces).strip() == result.answer  # arrived in pieces, nothing lost
    assert streamed and streamed[-1].get("stream", True) is True
    out: list[str] = []
    sink = _ThinkFilter(out.append)
    for piece in ["<thi", "nk>plan the", " answer</think>", "\nThe ", "answer [1]"]:
        sink.feed(piece)
    assert "".join(out) == "The answer [1]"
    out.clear()
    plain = _ThinkFilter(out.append)
    for piece in ["No ", "thinking here"]:
        plain.feed(piece)
    assert "".join(out) == "No thinking here"


def test_a_copied_data_home_never_uses_the_original_graph_store(tmp_path: Path) -> None:
    """Cognee keeps absolute paths: a copy would read (and sleep would cognify into) the original's stores."""
    import shutil
    import sqlite3

    from memctl.doctor import check_graph_location
    from memctl.graph.knowledge_graph import graph_store_location_problem

    original = DataHome(tmp_path / "original")
    db = original.cognee / "system" / "databases" / "cognee_db"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE dataset_database (vector_database_url TEXT)")
        conn.execute("CREATE TABLE data (raw_data_location TEXT)")
        conn.execute("INSERT INTO dataset_database VALUES (?)", (str(original.cognee / "system/databases/x.lance.db"),))
        conn.execute("INSERT INTO data VALUES (?)", ((original.cognee / "data" / "t.txt").as_uri(),))
    assert graph_store_location_problem(original) is None
    copy = DataHome(tmp_path / "copy")
    shutil.copytree(original.root, copy.root)
    problem = graph_store_location_problem(copy)
    assert problem and str(original.cognee) in problem and "delete" in problem
    assert check_graph_location(copy).status == "fail"
    index = TopicIndex({"t": TopicEntry("t", "", "t", [])})
    result = retrieve("q", ["t"], Settings(home=copy.root), copy, index, top_k=3)
    assert result.method == "notes" and "moved or copied" in result.fallback_reason
