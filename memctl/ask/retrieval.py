"""Retrieval for the wake cycle: hybrid (graph + notes + transcript turns, fused), or the raw notes alone.

1. Graph list: Cognee ``CHUNKS`` search (vector search over note chunks:
   one embedding call, no LLM call inside Cognee) scoped to the routed
   datasets, bounded by ``graph_search_timeout_s``; read from Cognee's files by
   :mod:`memctl.ask.chunk_reader` without importing Cognee when their layout is the
   one it knows, else by Cognee itself. Each hit's
   ``source_uri`` (the published note ``memory/<topic>/<id>.md``) maps back
   to its session id, title and date through the topic index.
2. Notes list: BM25 over the raw notes (:mod:`memctl.catalog.note_search`) of
   every topic (``wide_topics``; ask passes all topics unless the user named
   them with ``--topic``), so a routing mistake cannot hide a session: the
   graph is scoped by the route for cost, the notes are not.
3. Dense list: the question's cosine similarity to every note's vector over
   the same topics (:meth:`memctl.catalog.topic_profiles.TopicProfiles.similarities`:
   the embedding router's cached note vectors, rebuilt incrementally; the
   question is embedded once for routing and retrieval), mixed with the
   best cosine of one of the note's sentences (late interaction at sentence
   level, :mod:`memctl.catalog.late_interaction`, ``fusion_dense_sentence_share``).
   It finds a paraphrase whose words and extracted entities miss. An unreachable
   embedding model leaves the dense list empty, never fails retrieval.
   ``fusion_dense_weight`` 0 turns it off.
4. Turn lists: BM25 (each hit counted by the share of the question's words
   its turn holds, as the notes list) and, with ``fusion_turn_dense_weight``,
   cosine over the transcript turns of the same topics
   (:mod:`memctl.catalog.turn_index`: a user request with its outcome, built
   by ingest, only read here; a missing or stale index adds nothing). A turn
   hit counts for its session's note; the fused hit cites the turn
   (``turn``: index and excerpt). With ``graph_widen_hits`` the graph also
   searches the topics of the best dense hits.
5. Hybrid (the default when the graph answers): the lists, each
   :data:`CANDIDATE_FACTOR` × ``top_k`` deep, fused by reciprocal rank fusion
   (:mod:`memctl.ask.fusion`; ``fusion_k`` and the per-list weights in
   :class:`~memctl.config.Settings`; each BM25 hit counts by the share of
   the question's content words its note holds, so a paraphrase's
   incidental word matches do not outvote the graph's semantic match), one
   entry per source note, the ``top_k`` best kept; of two notes on the same
   subject the newer goes first unless the question asks for the older one
   (:mod:`memctl.ask.subjects`, :func:`~memctl.ask.subjects.asks_for_older`). Each hit
   carries its rank in each list and the fused
   score (``--json`` shows them). The graph and the notes fail on different
   questions, so the fused list beats either alone (figures:
   ``bench/bench_quality.py``, ``docs/benchmarks.md``).
6. Fallback: when the graph layer is missing, raises (its store locked by a
   running ingest or sleep, an incomplete graph) or times out, or returns
   nothing, the notes list (fused with the dense list when there is one) serves. Retrieval never returns nothing just
   because the graph layer failed; :class:`Retrieval` says which path served
   and why.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlparse

from memctl.ask.fusion import evidence_weight, reciprocal_rank_fusion
from memctl.ask.subjects import newer_first
from memctl.catalog.note_search import NoteSearch, content_terms, coverage
from memctl.catalog.topic_index import TopicIndex
from memctl.config import DataHome, Settings
from memctl.front_matter import read_front_matter as read_note_meta, strip_front_matter
from memctl.store import MemoryStore


@dataclass(frozen=True)
class Source:
    """Provenance of a context excerpt: session id, note path in the store, title, date, topic; ``agent``
    names where the session was recorded."""

    source_id: str
    path: str
    title: str
    date: str
    topic: str

    @property
    def agent(self) -> str:
        """``OpenCode``, ``Claude Code``, ``Codex`` (from the session key), or ``memory`` for a promoted memory."""
        from memctl.connectors.registry import label_of

        return "memory" if self.path.startswith("user/") else label_of(self.source_id)

    def as_dict(self) -> dict[str, str]:
        """The fields and ``agent``."""
        return {**self.__dict__, "agent": self.agent}


CANDIDATE_FACTOR = 2  # each list is fetched this many times top_k deep, so fusion sees more than it keeps


@dataclass(frozen=True)
class ContextHit:
    """One excerpt for the ``[REFERENCE]`` section: note text (front matter removed) and its source.

    ``score``: the path's own score (Cognee distance, BM25 score) or, for a
    hybrid hit, the fused RRF score; ``graph_rank`` / ``notes_rank``: 1-based
    rank in each list (None: not in that list, or the list was not searched).
    """

    text: str
    source: Source
    score: float | None = None
    graph_rank: int | None = None
    notes_rank: int | None = None
    dense_rank: int | None = None
    turns_rank: int | None = None
    turn_dense_rank: int | None = None
    turn: dict | None = None  # {"index", "excerpt"}: the transcript turn this hit's best turn rank came from

    def ranks(self) -> dict[str, object]:
        """``{"graph_rank", "notes_rank", "dense_rank", "turns_rank", "turn_dense_rank", "score", "turn"}``
        as ``--json`` shows them (score rounded to 6 places; ``turn`` None when no turn list held it)."""
        return {"graph_rank": self.graph_rank, "notes_rank": self.notes_rank, "dense_rank": self.dense_rank,
                "turns_rank": self.turns_rank, "turn_dense_rank": self.turn_dense_rank,
                "score": None if self.score is None else round(float(self.score), 6), "turn": self.turn}


@dataclass
class Retrieval:
    """Result: ``hits`` best first; ``method`` hybrid | notes; ``fallback_reason`` when the notes alone served."""

    hits: list[ContextHit] = field(default_factory=list)
    method: str = "hybrid"
    fallback_reason: str | None = None
    retrieve_s: float = 0.0

    @property
    def fallback_used(self) -> bool:
        return self.method == "notes"


def _store_path(uri: str | None, store_root: Path, home: DataHome | None = None) -> str | None:
    if not uri:
        return None
    local = Path(unquote(urlparse(uri).path)) if uri.startswith("file:") else Path(uri)
    try:
        return local.resolve().relative_to(store_root.resolve()).as_posix()
    except (ValueError, OSError):
        pass
    if home is None:
        return None
    # Cognee's vectors keep the note's path from cognify time: a home moved since names its old root.
    from memctl.graph.relocate import store_relative

    return store_relative(uri, home)


def source_for(store_path: str, text: str, index: TopicIndex) -> Source:
    """Provenance of a note: from the topic index, else from the note's own front matter."""
    ref = index.note_by_path(store_path)
    if ref is not None:
        return Source(ref.source_id, ref.path, ref.title, ref.date, ref.topic)
    meta = read_note_meta(text)
    parts = store_path.split("/")
    if parts[0] == "user":  # a promoted memory (added to its topic's dataset by sleep)
        body = strip_front_matter(text).strip().splitlines()
        title = (body[0].lstrip("-*# ").strip()[:80] if body else "") or "memory"
        topic = parts[2] if len(parts) > 3 and parts[1] == "topics" else ""
        return Source(str(meta.get("session") or "user memory"), store_path, f"memory: {title}",
                      str(meta.get("created") or "")[:10], topic)
    return Source(str(meta.get("source_id") or Path(store_path).stem), store_path, str(meta.get("title") or ""),
                  str(meta.get("session_updated") or "")[:10], parts[1] if len(parts) > 2 else "")


def _graph_hits(question: str, topics: list[str], settings: Settings, home: DataHome, index: TopicIndex,
               top_k: int) -> list[ContextHit]:
    """The graph list: up to ``top_k`` chunk hits over ``topics``' datasets, closest first (``graph_rank`` set).

    Raises:
        asyncio.TimeoutError: past ``graph_search_timeout_s``; any Cognee error as raised.
    """
    raws = direct_chunks(question, topics, settings, home, index, top_k)
    if raws is None:
        from memctl.graph import knowledge_graph

        knowledge_graph.configure(settings, home)

        async def bounded():
            return await asyncio.wait_for(knowledge_graph.search(question, topics, kind="chunks", top_k=top_k),
                                          timeout=settings.graph_search_timeout_s)

        raws = knowledge_graph.run_sync(bounded())
    hits = []
    for raw in raws:
        store_path = _store_path(raw.source_uri, home.store, home)
        if store_path is None:
            continue  # not one of our published files: no provenance, so never cited
        hits.append(ContextHit(text=strip_front_matter(raw.text), source=source_for(store_path, raw.text, index),
                               score=raw.score))
    # Cognee scores are distances (lower is closer) per dataset; merge datasets by distance.
    hits.sort(key=lambda h: (h.score is None, h.score if h.score is not None else 0.0))
    return [replace(h, graph_rank=rank) for rank, h in enumerate(hits[:top_k], start=1)]


def direct_chunks(question: str, topics: list[str], settings: Settings, home: DataHome, index: TopicIndex,
                  top_k: int) -> list | None:
    """Cognee's chunk search answered from its files (:mod:`memctl.ask.chunk_reader`: no Cognee import), as
    :class:`memctl.graph.search.SearchHit` rows; None when the reader does not know this layout or cannot get
    the question's embedding, and Cognee's own search must answer."""
    from memctl.ask.chunk_reader import ReaderUnavailable, nearest_chunks, query_vector
    from memctl.ollama_client import ModelError

    try:
        return nearest_chunks(query_vector(question, settings, home, index), topics, home, top_k)
    except (ReaderUnavailable, ModelError, OSError, ValueError, RuntimeError):  # lance: OSError / ValueError
        return None


def notes_hits(question: str, topics: list[str], home: DataHome, index: TopicIndex, top_k: int) -> list[ContextHit]:
    """The notes list: up to ``top_k`` BM25 hits over ``topics``' raw notes, best first (``notes_rank`` set)."""
    notes = NoteSearch(MemoryStore(home.store), home.note_index).search(question, topics, top_k)
    return [ContextHit(text=strip_front_matter(n.text), source=source_for(n.path, n.text, index), score=n.score,
                       notes_rank=rank) for rank, n in enumerate(notes, start=1)]


def dense_hits(question: str, topics: list[str], settings: Settings, home: DataHome, index: TopicIndex,
               top_k: int) -> list[ContextHit]:
    """The dense list: up to ``top_k`` notes of ``topics`` by cosine similarity of their cached vectors to
    the question's (best first, ``dense_rank`` set, ``score`` the cosine); empty when
    ``fusion_dense_weight`` is 0 or the embedding model cannot answer (never raises for it)."""
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.ollama_client import ModelError
    from memctl.store import StoreError

    if settings.fusion_dense_weight <= 0 or not topics:
        return []
    try:
        # the cosine, mixed with the best sentence's when fusion_dense_sentence_share > 0 (as routing scores)
        _topics, sims = TopicProfiles(settings, home).similarities(question, index)
    except (ModelError, OSError, StoreError):
        return []
    wanted = set(topics)
    store = MemoryStore(home.store)
    hits: list[ContextHit] = []
    for path in sorted(sims, key=lambda p: (-sims[p], p)):
        ref = index.note_by_path(path)
        topic = ref.topic if ref is not None else (path.split("/")[1] if path.count("/") >= 2 else "")
        if topic not in wanted:
            continue
        try:
            text = store.read_text(path)[0]
        except Exception:  # noqa: BLE001 - a note removed since its vector was made is simply not a hit
            continue
        hits.append(ContextHit(text=strip_front_matter(text), source=source_for(path, text, index), score=sims[path],
                               dense_rank=len(hits) + 1))
        if len(hits) >= top_k:
            break
    return hits


def turn_hits(question: str, topics: list[str], settings: Settings, home: DataHome, index: TopicIndex,
              depth: int) -> tuple[list[ContextHit], list[ContextHit], dict[str, float]]:
    """``(BM25 turn hits, dense turn hits, evidence)`` over ``topics``' turn indexes
    (:mod:`memctl.catalog.turn_index`, read only), each hit the turn's session note with ``turn`` set,
    one per note (its best turn), up to ``depth``; ``evidence``: per note path, the share of the
    question's content words its best BM25 turn holds, to ``fusion_notes_coverage_power``. Empty lists
    when the weights are 0, an index is missing or stale, or the embedding model cannot answer."""
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.catalog.turn_index import TurnIndex, split_turns
    from memctl.ollama_client import ModelError
    from memctl.store import StoreError

    if not topics or (settings.fusion_turns_weight <= 0 and settings.fusion_turn_dense_weight <= 0):
        return [], [], {}
    query = None
    if settings.fusion_turn_dense_weight > 0:
        try:
            query = TopicProfiles(settings, home).question_vector(question, index)
        except (ModelError, OSError, StoreError):
            query = None
    lexical, dense = TurnIndex(home, settings).search(question, query, topics, index, depth * 3)
    store = MemoryStore(home.store)
    texts: dict[str, str | None] = {}
    evidence: dict[str, float] = {}

    def as_hits(pairs, rank_field: str, weigh: bool) -> list[ContextHit]:  # noqa: ANN001
        hits: list[ContextHit] = []
        for turn, score in pairs:
            if any(h.source.path == turn.note for h in hits):
                continue
            if turn.note not in texts:
                try:
                    texts[turn.note] = store.read_text(turn.note)[0]
                except Exception:  # noqa: BLE001 - a note removed since the index was built is not a hit
                    texts[turn.note] = None
            text = texts[turn.note]
            if text is None:
                continue
            if weigh:
                try:
                    turn_text = split_turns(home.transcript_path(turn.source_id).read_text(encoding="utf-8"))
                    held = content_terms(turn_text[turn.index - 1]) if turn.index <= len(turn_text) else set()
                except OSError:
                    held = set()
                evidence[turn.note] = evidence_weight(coverage(question, held), settings.fusion_notes_coverage_power)
            hits.append(ContextHit(text=strip_front_matter(text), source=source_for(turn.note, text, index),
                                   score=score, turn=turn.cite(), **{rank_field: len(hits) + 1}))
            if len(hits) >= depth:
                break
        return hits

    lexical_hits = as_hits(lexical, "turns_rank", True) if settings.fusion_turns_weight > 0 else []
    dense_hits_ = as_hits(dense, "turn_dense_rank", False)
    return lexical_hits, dense_hits_, evidence


def notes_evidence(question: str, notes: list[ContextHit], power: float) -> dict[str, float]:
    """Per note path of the notes list, its evidence factor: the share of ``question``'s content words the
    note holds, raised to ``power`` (:func:`memctl.ask.fusion.evidence_weight`)."""
    return {h.source.path: evidence_weight(coverage(question, content_terms(h.text)), power) for h in notes}


def fuse(graph: list[ContextHit], notes: list[ContextHit], settings: Settings, top_k: int, *,
         question: str | None = None, dense: list[ContextHit] | None = None,
         turns: tuple[list[ContextHit], list[ContextHit], dict[str, float]] | None = None) -> list[ContextHit]:
    """The ``top_k`` best of the lists by reciprocal rank fusion (:mod:`memctl.ask.fusion`), one per note;
    each hit carries its rank in every list, its fused ``score`` and the turn it was found by (the better
    ranked of its turn hits). With ``question``, each notes hit counts by its evidence
    (:func:`notes_evidence`, ``fusion_notes_coverage_power``); ``dense`` hits weigh ``fusion_dense_weight``;
    ``turns`` (:func:`turn_hits`) adds the BM25 turns (weighed by their evidence) and the dense turns."""
    lexical_turns, dense_turns, turn_evidence = turns or ([], [], {})
    evidence = {"notes": notes_evidence(question, notes, settings.fusion_notes_coverage_power)} if question else {}
    if question and lexical_turns:
        evidence["turns"] = turn_evidence
    fused = reciprocal_rank_fusion({"graph": graph, "notes": notes, "dense": dense or [], "turns": lexical_turns,
                                    "turn_dense": dense_turns},
                                   {"graph": settings.fusion_graph_weight, "notes": settings.fusion_notes_weight,
                                    "dense": settings.fusion_dense_weight, "turns": settings.fusion_turns_weight,
                                    "turn_dense": settings.fusion_turn_dense_weight},
                                   k=settings.fusion_k, evidence=evidence)
    cited = {}
    for hit in sorted([*lexical_turns, *dense_turns], key=lambda h: min(h.turns_rank or 99, h.turn_dense_rank or 99)):
        cited.setdefault(hit.source.path, hit.turn)
    return [replace(hit, score=ranks.score, graph_rank=ranks.ranks.get("graph"), notes_rank=ranks.ranks.get("notes"),
                    dense_rank=ranks.ranks.get("dense"), turns_rank=ranks.ranks.get("turns"),
                    turn_dense_rank=ranks.ranks.get("turn_dense"), turn=cited.get(hit.source.path))
            for hit, ranks in fused[:top_k]]


def _location_problem(home: DataHome) -> str | None:
    """Why the graph cannot serve from this home, or None. A moved or copied home is relocated here
    when its lock is free: rewriting Cognee's stored paths is a fix of derived metadata under the
    lock ingest and sleep take (no memory or knowledge changes), and without it the first questions
    after a restore would be answered from the raw notes until the next ingest or sleep. When the
    lock is busy, ask never waits: it answers from the raw notes and says why."""
    from memctl.exit_codes import ExitCodeError
    from memctl.graph.relocate import ensure_location

    try:
        ensure_location(home, actor="ask")
    except ExitCodeError as exc:  # refused (stores outside the home) or busy (another run holds the lock)
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - a failed relocation degrades to the raw notes, as any graph failure
        return f"this data home moved and its graph paths could not be updated: {type(exc).__name__}: {exc}"
    return None


def retrieve(question: str, topics: list[str], settings: Settings, home: DataHome, index: TopicIndex, *,
             top_k: int, use_graph: bool = True, wide_topics: list[str] | None = None) -> Retrieval:
    """Context for ``question``: at most ``top_k`` hits, best first; see the module doc. The graph searches
    ``topics`` (the route); the notes and dense lists ``wide_topics`` (default: ``topics``).

    Never raises for a graph failure (the notes serve, and ``fallback_reason`` says why).
    """
    import time

    started = time.monotonic()
    result = Retrieval()
    reason = None
    graph: list[ContextHit] = []
    depth = min(top_k * CANDIDATE_FACTOR, 50)
    wide = list(dict.fromkeys([*topics, *(wide_topics or [])]))
    dense = dense_hits(question, wide, settings, home, index, depth)
    turns = turn_hits(question, wide, settings, home, index, depth)
    if settings.graph_widen_hits > 0 and wide_topics:
        # The best dense evidence names its topics: the graph searches them too, so a routing mistake
        # cannot hide a session from it (the context stays bounded by top_k, not by topic).
        picked = [h.source.topic for h in [*dense[:settings.graph_widen_hits], *turns[1][:settings.graph_widen_hits]]]
        topics = list(dict.fromkeys([*topics, *(t for t in picked if t in index.topics)]))
    if not use_graph:
        reason = "graph search disabled (--no-graph)"
    elif not home.cognee.is_dir():
        reason = f"no graph store at {home.cognee} (run `memctl ingest` to build it)"
    elif (moved := _location_problem(home)) is not None:
        reason = moved
    elif (missing := _embedding_model_problem(settings)) is not None:
        reason = missing  # in milliseconds, where Cognee would wait out its timeout and blame it
    elif (mismatch := _embedding_mismatch(settings, home)) is not None:
        reason = mismatch  # the graph's vectors are of another model: comparing them would be noise
    else:
        try:
            graph = _graph_hits(question, topics, settings, home, index, depth)
            if not graph:
                reason = "graph search returned nothing"
        except asyncio.TimeoutError:
            reason = f"graph search took longer than {settings.graph_search_timeout_s:g} s"
        except Exception as exc:  # noqa: BLE001 - any graph-layer failure degrades to the raw notes
            reason = _graph_failure_reason(exc)
    if reason is None:
        result.hits = fuse(graph, notes_hits(question, wide, home, index, depth), settings, top_k, question=question,
                           dense=dense, turns=turns)
    else:
        evidence = dense or turns[0] or turns[1]
        notes = notes_hits(question, wide, home, index, depth if evidence else top_k)
        result.hits = (fuse([], notes, settings, top_k, question=question, dense=dense, turns=turns) if evidence
                       else notes[:top_k])
        result.method, result.fallback_reason = "notes", reason
    result.hits = newer_first(result.hits, question)
    result.retrieve_s = time.monotonic() - started
    return result


def _embedding_mismatch(settings: Settings, home: DataHome) -> str | None:
    """:func:`memctl.graph.embedding_record.embedding_mismatch`, a damaged record read as a reason too."""
    from memctl.graph.embedding_record import embedding_mismatch
    from memctl.state_file import StateFileError

    try:
        return embedding_mismatch(settings, home)
    except StateFileError as exc:
        return str(exc)


MODEL_CHECK_TIMEOUT_S = 5.0  # /api/show of a running Ollama answers in milliseconds


def _embedding_model_problem(settings: Settings) -> str | None:
    """Why the graph search cannot run for want of its embedding model (not pulled, Ollama down), naming the
    model and the fix (``ollama pull …``); None when Ollama has it."""
    from memctl.ollama_client import ModelError, check_model, client_for

    timeout_s = min(MODEL_CHECK_TIMEOUT_S, settings.graph_search_timeout_s)
    try:
        check_model(client_for(settings, timeout_s), settings, settings.embedding_model, timeout_s)
    except ModelError as exc:
        return f"the graph search needs the embedding model: {exc}"
    return None


def _graph_failure_reason(exc: BaseException) -> str:
    """Why the graph could not answer, in the user's terms: a graph store locked by another process
    (Kuzu allows one writer process: an ingest, a sleep, another ask opening it) says so and what to
    do; anything else names the error, cut to 200 characters."""
    from memctl.graph.failures import is_store_busy

    if is_store_busy(exc):
        return ("the graph store is in use by another memctl process (an ingest, a sleep, or another ask "
                "opening it); answered from the notes — ask again when it is done, or run `memctl serve` so "
                "that one process holds the graph for every ask")
    return f"graph search failed: {type(exc).__name__}: {str(exc)[:200]}"

