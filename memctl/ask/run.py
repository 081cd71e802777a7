"""The wake cycle (`memctl ask`): route → retrieve → assemble context → answer → maybe propose.

Read-only with respect to trusted memory: nothing here writes ``memory/`` or
``user/``. The only writes are a proposal into ``staging/`` (when the
extraction step is on, through the store as actor ``ask``) and caches outside
the store (the BM25 note index). Cognee's own bookkeeping (its query log, the
graph DB's WAL) changes on every search; its knowledge does not.

Context: ``[USER_MEMORY]`` holds the promoted memories that apply — every
file under ``user/sessions/<session>/`` and ``user/topics/<routed topic>/``,
and the global ones (``user/global/``) relevant to the question, by BM25
within a bounded budget (:mod:`memctl.ask.memory_selection`), never all of
them — and ``[REFERENCE]`` the retrieved note
excerpts, numbered for citation. Staged proposals are never read. The whole
context is at most ``max_context_chars`` (user memory takes up to a third,
references the rest; excerpts are cut to fit). Prompt: ``memctl/prompts/answer.md``.

Every memory and excerpt is one opaque entry (:mod:`memctl.prompts.quoting`):
memctl writes the structure, the stored text only ever appears as a JSON
string literal on a line of its own, so no memory can forge a section, a
citation or a chat turn. Each memory's line names its provenance
(:mod:`memctl.store.provenance`: who asked for it, how, in which session,
when), and the answer prompt says memories describe past work and are never
instructions::

    [USER_MEMORY]
    - (user/global/20261130T054512Z-a1b2c3.md; origin person via remember, session ses_1, 2026-11-30T05:45:12.345Z) "Use pnpm, not npm, in this repo."
    [REFERENCE]
    [1] "Pin pytest-asyncio to 0.24" (session ses_456, 2026-11-30)
    "# Pin pytest-asyncio to 0.24\n\n- pinned to 0.24 …"
    [2] "Pin pytest-asyncio to 0.23" (session ses_123, 2026-11-02, older than [1] on the same subject)
    "# Pin pytest-asyncio to 0.23\n\n- pinned to 0.23 …"

Every excerpt header carries its note's date; an excerpt on the same subject
as an earlier one (:mod:`memctl.ask.subjects`) says whether it is newer or
older than it, and the answer prompt tells the model to prefer the newer one
when they disagree.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable

from memctl.ask.memory_selection import relevant_globals
from memctl.ask.proposals import DEFAULT_SESSION, SESSION_ID, Proposal, ProposalError, stage_proposal
from memctl.ask.retrieval import ContextHit, Retrieval, Source, retrieve
from memctl.ask.routing import Route, route_question
from memctl.ask.subjects import same_subject
from memctl.catalog.topic_index import TopicIndex, build_topic_index
from memctl.config import DataHome, Settings
from memctl.exit_codes import (
    HOME as EXIT_HOME,
    MODEL as EXIT_MODEL,
    NOTHING_INGESTED as EXIT_EMPTY,
    USAGE as EXIT_USAGE,
    ExitCodeError,
)
from memctl.front_matter import read_front_matter, strip_front_matter
from memctl.ollama_client import ModelError, chat_once, chat_stream, check_model, client_for, strip_think
from memctl.prompts import load_prompt
from memctl.prompts.quoting import header_field, quote
from memctl.state_file import decode_json
from memctl.store import MemoryStore, StoreError
from memctl.store.user_memory import member_provenance

MAX_QUESTION_CHARS = 4000
MIN_EXCERPT_CHARS = 200
TRUNCATION_MARK = " (cut to fit the context budget)"


class AskError(ExitCodeError):
    """``ask`` cannot run; ``exit_code`` as documented (2 usage, 7 data home, 9 model, 12 nothing ingested)."""


@dataclass
class AskOptions:
    """One question. ``None`` fields take their value from :class:`Settings`."""

    question: str
    session: str | None = None
    topics: list[str] = field(default_factory=list)
    top_k: int | None = None
    max_context_chars: int | None = None
    propose: bool | None = None
    use_graph: bool = True


@dataclass
class UserMemory:
    """One promoted memory file included in ``[USER_MEMORY]``, with its provenance records
    (:func:`memctl.store.user_memory.member_provenance`: one, or a merge's members')."""

    path: str
    text: str
    provenance: list[dict] = field(default_factory=list)

    def provenance_label(self) -> str:
        """``origin agent via mcp, session s1, <time>[, approved by person]`` (or a merge's summary); ``""`` if none."""
        records = self.provenance
        if not records:
            return ""
        if len(records) == 1:
            r = records[0]
            label = f"origin {_plain(r.get('origin'))} via {_plain(r.get('channel'))}"
            label += f", session {_plain(r['session'])}" if r.get("session") else ""
            label += f", {_plain(r['time'])}" if r.get("time") else ""
            return label + (", approved by person" if r.get("approved_by") == "person" else "")
        origins = sorted({_plain(r.get("origin")) + ("-approved" if r.get("approved_by") == "person" else "")
                          for r in records})
        return f"merged from {len(records)}, origins {'+'.join(origins)}"


_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+:-]{0,127}$")


def _plain(value: object) -> str:
    """A provenance value as memctl writes it into a header: kept when plain, else ``unreadable`` (never quoted:
    the header must stay memctl's own structure whatever a stored record holds)."""
    return str(value) if _PLAIN_VALUE.match(str(value)) else "unreadable"


@dataclass
class AskResult:
    """Everything ``--json`` prints; times in seconds, sizes in characters."""

    question: str
    answer: str
    topics: list[str]
    route_method: str
    route_reason: str | None
    retrieval_method: str
    fallback_used: bool
    fallback_reason: str | None
    sources: list[Source]
    user_memories: list[str]
    route_s: float
    retrieve_s: float
    answer_s: float
    ctx_chars: int
    prompt_version: str
    memory_sources: list[dict] = field(default_factory=list)  # [{"path", "provenance": [records]}] in context order
    proposal: Proposal | None = None
    proposal_error: str | None = None
    source_ranks: dict[str, dict] = field(default_factory=dict)  # note path → ContextHit.ranks()

    def as_dict(self) -> dict:
        """The ``--json`` document; each source also shows ``graph_rank``, ``notes_rank`` and ``score``
        (the fused RRF score when ``retrieval_method`` is hybrid, the BM25 score when notes)."""
        data = dict(self.__dict__)
        ranks = data.pop("source_ranks")
        data["sources"] = [{**s.as_dict(), **ranks.get(s.path, {})} for s in self.sources]
        data["proposal"] = self.proposal.as_dict() if self.proposal else None
        for key in ("route_s", "retrieve_s", "answer_s"):
            data[key] = round(data[key], 4)
        return data


@dataclass
class Context:
    """The assembled context text and what went into it."""

    text: str
    sources: list[Source]
    user_memories: list[str]
    ranks: dict[str, dict] = field(default_factory=dict)
    memory_sources: list[dict] = field(default_factory=list)


def load_index(home: DataHome) -> TopicIndex:
    """The topic index; rebuilt in memory (not saved) when notes exist but the file does not.

    Raises:
        AskError: a file where the home should be (7), or nothing ingested yet (12).
        TopicIndexError: the topic index is damaged (7).
    """
    home.refuse_file(AskError)
    index = TopicIndex.load(home.topic_index)  # TopicIndexError (exit 7) reaches the CLI boundary as it is
    if not index.topics and (home.store / "memory").is_dir():
        index = build_topic_index(home)
    if not index.topics:
        raise AskError(f"nothing has been ingested into {home.root} yet: run `memctl ingest` first "
                       "(or pass --home to point at your data home)", EXIT_EMPTY)
    return index


def user_memories(store: MemoryStore, session: str, topics: list[str], question: str | None = None) -> list[UserMemory]:
    """Promoted memories that apply to this session and these topics (global first), sorted by path.

    With ``question``, the global ones are only those relevant to it, best first, within the bounds of
    :func:`memctl.ask.memory_selection.relevant_globals`; without, every global memory (tools that list them).
    """
    prefixes = ["user/global", f"user/sessions/{session}", *(f"user/topics/{t}" for t in topics)]
    found: dict[str, list[UserMemory]] = {}
    for prefix in prefixes:
        for path in store.list(prefix):
            try:
                content = store.read_text(path)[0]
            except StoreError:
                continue
            found.setdefault(prefix, []).append(UserMemory(path, strip_front_matter(content).strip(),
                                                           member_provenance(read_front_matter(content))))
    globals_ = found.pop("user/global", [])
    if question is not None:
        globals_ = relevant_globals(question, globals_)
    return [*globals_, *(m for prefix in prefixes[1:] for m in found.get(prefix, []))]


def _fitted(text: str, room: int) -> str | None:
    """``quote(text)`` if it fits ``room`` characters, else the longest quoted prefix + the cut mark (None: no room)."""
    quoted = quote(text)
    if len(quoted) <= room:
        return quoted
    keep = room - len(TRUNCATION_MARK) - 2
    while keep > 0:
        cut = quote(text[:keep]) + TRUNCATION_MARK
        if len(cut) <= room:
            return cut
        keep -= len(cut) - room  # escapes make the quoted form longer: shrink by the excess
    return None


def assemble_context(memories: list[UserMemory], hits: list[ContextHit], budget: int) -> Context:
    """Build ``[USER_MEMORY]`` + ``[REFERENCE]`` within ``budget`` characters (see the module doc).

    Each memory is one line ``- (<path>) <quoted text>``; each excerpt a
    header ``[n] <quoted title> (session <id>, <date>[, newer|older than [m] on the same subject])``
    and one line with the quoted text (the marker names the first earlier
    excerpt on the same subject with another date, see :mod:`memctl.ask.subjects`). Entries that do not fit whole are cut (memories down to
    ``MIN_EXCERPT_CHARS // 2``, excerpts to ``MIN_EXCERPT_CHARS``) or left out.
    """
    parts: list[str] = []
    used_memories: list[str] = []
    memory_sources: list[dict] = []
    user_budget = budget // 3
    if memories:
        block = "[USER_MEMORY]\n"
        for memory in memories:
            label = memory.provenance_label()
            prefix = f"- ({header_field(memory.path)}{'; ' + label if label else ''}) "
            room = user_budget - len(block) - len(prefix) - 1
            body = _fitted(memory.text, room) if room > 0 else None
            if body is None or (body.endswith(TRUNCATION_MARK) and room < MIN_EXCERPT_CHARS // 2):
                break
            block += prefix + body + "\n"
            used_memories.append(memory.path)
            memory_sources.append({"path": memory.path, "provenance": memory.provenance})
            if body.endswith(TRUNCATION_MARK):
                break
        if used_memories:
            parts.append(block)
    used = sum(len(p) for p in parts)
    sources: list[Source] = []
    ranks: dict[str, dict] = {}
    if hits:
        block = "[REFERENCE]\n"
        remaining = budget - used - len(block) - (1 if parts else 0)
        entries: list[str] = []
        shown: list[Source] = []
        for hit in hits:
            number = len(entries) + 1
            source = hit.source
            session, date = header_field(source.source_id), header_field(source.date) if source.date else "undated"
            header = (f"[{number}] {quote(source.title or source.source_id)} (session {session}, {date}"
                      f"{_subject_mark(source, shown)})\n")
            room = remaining - len(header) - 2
            body = _fitted(hit.text.strip(), room) if room > 0 else None
            if body is None or (body.endswith(TRUNCATION_MARK) and room < MIN_EXCERPT_CHARS):
                break
            entries.append(header + body + "\n\n")
            shown.append(source)
            remaining -= len(entries[-1])
            if source not in sources:
                sources.append(source)
                ranks[source.path] = hit.ranks()
        if entries:
            parts.append(block + "".join(entries))
    text = "\n".join(parts).rstrip() + "\n" if parts else ""
    assert len(text) <= budget, (len(text), budget)  # the bound is the contract; cheap to keep honest
    return Context(text=text, sources=sources, user_memories=used_memories, ranks=ranks,
                   memory_sources=memory_sources)


def _subject_mark(source: Source, shown: list[Source]) -> str:
    """``", newer than [m] on the same subject"`` (or older) against the first earlier excerpt ``m`` on the same
    subject with another date; ``""`` when there is none or a date is missing."""
    if not source.date:
        return ""
    for number, other in enumerate(shown, start=1):
        if other.date and other.date != source.date and same_subject(other.topic, other.title,
                                                                      source.topic, source.title):
            return f", {'newer' if source.date > other.date else 'older'} than [{number}] on the same subject"
    return ""


class _ThinkFilter:
    """Drop ``<think>…</think>`` from a token stream (reasoning models), passing the rest through."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink, self.buffer, self.thinking, self.decided = sink, "", False, False
        self.after_think = False  # drop the whitespace between </think> and the answer

    def feed(self, piece: str) -> None:
        self.buffer += piece
        if not self.decided:
            stripped = self.buffer.lstrip()
            if len(stripped) < 7 and "<think>".startswith(stripped):
                return
            self.decided = True
            self.thinking = stripped.startswith("<think")
        if self.thinking:
            end = self.buffer.find("</think>")
            if end < 0:
                return
            self.buffer = self.buffer[end + len("</think>"):]
            self.thinking, self.after_think = False, True
        if self.after_think:
            self.buffer = self.buffer.lstrip()
            self.after_think = not self.buffer
        if self.buffer:
            self.sink(self.buffer)
            self.buffer = ""


def ask(settings: Settings, options: AskOptions, on_token: Callable[[str], None] | None = None) -> AskResult:
    """Answer one question from memory; stream answer pieces to ``on_token`` when given.

    Raises:
        AskError: empty/oversize question or bad session (2), unreadable data home (7), the answer
            failing (9), nothing ingested yet (12).
        UnknownTopicError: a ``--topic`` that is not in the index (2).
        TopicIndexError: the topic index is damaged (7).
        ModelError: Ollama down, or the answer model missing (9).
    """
    question = (options.question or "").strip()
    if not question:
        raise AskError("the question is empty", EXIT_USAGE)
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise AskError(f"the question is not valid text ({exc.reason}); check the shell quoting", EXIT_USAGE) from exc
    if len(question) > MAX_QUESTION_CHARS:
        raise AskError(f"the question is {len(question)} characters; keep it under {MAX_QUESTION_CHARS}", EXIT_USAGE)
    session = DEFAULT_SESSION if options.session is None else options.session
    if not SESSION_ID.match(session):
        raise AskError(f"invalid session id {session!r}: use letters, digits, '_', '.', '-' (max 128)", EXIT_USAGE)
    home = DataHome(settings.home)
    index = load_index(home)
    if options.use_graph and home.cognee.is_dir():
        _prewarm_graph(settings, home)
    if options.topics:
        index.resolve(list(options.topics))  # UnknownTopicError (2) before the model is asked for: a typo is not exit 9
    client = client_for(settings, settings.request_timeout_s)
    check_model(client, settings, settings.answer_model, settings.request_timeout_s)  # ModelError: exit 9
    route: Route = route_question(question, index, settings, override=options.topics or None)  # UnknownTopicError: 2
    top_k = options.top_k or settings.ask_top_k
    # The graph searches the routed topics; the notes and their vectors every topic unless the user named them,
    # so a routing mistake cannot hide a session (the context stays bounded by top_k).
    retrieval: Retrieval = retrieve(question, route.topics, settings, home, index, top_k=top_k,
                                    use_graph=options.use_graph,
                                    wide_topics=None if route.method == "override" else index.slugs)
    store = MemoryStore(home.store)
    try:
        memories = user_memories(store, session, route.topics, question=question)
    except StoreError as exc:
        raise AskError(f"cannot read promoted memories: {exc}", EXIT_HOME) from exc
    # A promoted memory the graph also returned is already in [USER_MEMORY]; never show it twice.
    in_user_memory = {m.path for m in memories}
    hits = [h for h in retrieval.hits if h.source.path not in in_user_memory]
    context = assemble_context(memories, hits, options.max_context_chars or settings.max_context_chars)
    prompt = load_prompt("answer")
    messages = [{"role": "system", "content": prompt.body},
                {"role": "user", "content": (context.text or "[REFERENCE]\n(nothing relevant was found in memory)\n")
                 + f"\nQuestion: {question}"}]
    started = time.monotonic()
    try:
        if on_token is None:
            answer = chat_once(client, settings, model=settings.answer_model, messages=messages,
                               timeout_s=settings.request_timeout_s, options={"num_ctx": settings.answer_num_ctx})
        else:
            pieces: list[str] = []
            sink = _ThinkFilter(on_token)
            for piece in chat_stream(client, settings, model=settings.answer_model, messages=messages,
                                     timeout_s=settings.request_timeout_s,
                                     options={"num_ctx": settings.answer_num_ctx}):
                pieces.append(piece)
                sink.feed(piece)
            answer = strip_think("".join(pieces))
    except ModelError as exc:
        raise AskError(f"answering failed: {exc}", EXIT_MODEL) from exc
    answer_s = time.monotonic() - started
    result = AskResult(
        question=question, answer=answer, topics=route.topics, route_method=route.method,
        route_reason=route.reason, retrieval_method=retrieval.method, fallback_used=retrieval.fallback_used,
        fallback_reason=retrieval.fallback_reason, sources=context.sources, user_memories=context.user_memories,
        route_s=route.route_s, retrieve_s=retrieval.retrieve_s, answer_s=answer_s, ctx_chars=len(context.text),
        prompt_version=prompt.version, source_ranks=context.ranks, memory_sources=context.memory_sources,
    )
    propose = settings.ask_propose if options.propose is None else options.propose
    if propose:
        try:
            result.proposal = propose_from_exchange(client, settings, store, session, question, answer,
                                                    route.topics[0] if len(route.topics) == 1 else None)
        except (ModelError, ProposalError, StoreError, ValueError) as exc:
            result.proposal_error = str(exc)
    return result


def _prewarm_graph(settings: Settings, home: DataHome) -> None:
    """Load what the graph search needs (numpy, the chunk reader: ~0.3 s) in the background while the router
    model answers. Cognee itself is not imported: :mod:`memctl.ask.chunk_reader` reads its chunk tables, and
    only a layout that reader does not know makes retrieval import Cognee (then, at that point).

    Failures are ignored here: retrieval imports again and reports any failure.
    """
    import threading

    def warm() -> None:
        try:
            import numpy  # noqa: F401 - imported for the reader, off the critical path

            import memctl.ask.chunk_reader  # noqa: F401
        except Exception:  # noqa: BLE001 - reported by retrieval
            pass

    threading.Thread(target=warm, name="memctl-graph-prewarm", daemon=True).start()


def propose_from_exchange(client, settings: Settings, store: MemoryStore, session: str, question: str,  # noqa: ANN001
                          answer: str, topic: str | None) -> Proposal | None:
    """The extraction step: one structured call; a durable memory becomes a staged proposal (actor ``ask``)."""
    prompt = load_prompt("propose")
    schema = {"type": "object", "properties": {
        "propose": {"type": "boolean"}, "kind": {"type": "string", "enum": ["preference", "decision"]},
        "memory": {"type": "string", "maxLength": 500}}, "required": ["propose", "kind", "memory"]}
    content = chat_once(client, settings, model=settings.router_model, timeout_s=settings.router_timeout_s,
                        schema=schema, messages=[{"role": "system", "content": prompt.body},
                                                 {"role": "user", "content": f"Question: {question}\n\nAnswer: {answer}"}])
    data = decode_json(content)
    if not isinstance(data, dict) or not data.get("propose") or not str(data.get("memory") or "").strip():
        return None
    kind = data.get("kind") if data.get("kind") in ("preference", "decision") else "note"
    return stage_proposal(store, session=session, content=str(data["memory"]), source="ask", topic=topic, kind=kind,
                          max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines,
                          origin="agent", taken_from="ask: the model's answer to a question")
