"""The four MCP tools and the resources, as plain functions over :class:`memctl.serve.warm.WarmMemory`.

The same code as the CLI: ``memory_ask`` is :func:`memctl.ask.run.ask`;
``memory_search`` is ``ask`` without the model — routing by ``topics`` (a
slug or an alias, :meth:`TopicIndex.resolve`) or else the router's fallback
(:func:`memctl.ask.routing.fallback_route`: embedding and lexical, no chat
model call), then
:func:`memctl.ask.retrieval.retrieve` (graph, else the raw notes, with the
reason); ``memory_remember`` is ``memctl remember``'s core
(:func:`memctl.ask.proposals.stage_proposal`: scrubbed, validated at once,
written only into ``staging/``). Nothing here writes ``memory/`` or ``user/``.

Errors are memctl's domain errors (:class:`memctl.exit_codes.ExitCodeError`,
each with its exit code); :mod:`memctl.serve.server` turns them into MCP tool
errors. Every function returns JSON-ready dicts.
"""

from __future__ import annotations

import json
import re

from memctl.ask.api import MAX_QUESTION_CHARS, AskOptions, ProposalError, Retrieval, stage_proposal
from memctl.exit_codes import UsageError
from memctl.serve.warm import WarmMemory
from memctl.store import MemoryStore

MAX_TOP_K = 50
MAX_EXCERPT_CHARS = 2000
CUT_MARK = " […]"
KINDS = ("preference", "decision", "note")
USER_PREFIXES = ("user/global", "user/topics", "user/sessions")
_MEMORY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$")
REFUSED_PREFIX = "not staged: "


def _question(text: str, what: str) -> str:
    cleaned = (text or "").strip()
    if not cleaned:
        raise UsageError(f"the {what} is empty")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise UsageError(f"the {what} is {len(cleaned)} characters; keep it under {MAX_QUESTION_CHARS}")
    return cleaned


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_EXCERPT_CHARS else text[: MAX_EXCERPT_CHARS - len(CUT_MARK)].rstrip() + CUT_MARK


def memory_search(warm: WarmMemory, query: str, topics: list[str] | None = None, top_k: int | None = None) -> dict:
    """Note excerpts for ``query`` with provenance; no model call (an embedding at most).

    Returns:
        ``{"query", "topics", "route_method", "route_reason", "retrieval_method", "fallback_reason",
        "results": [{"rank", "session_id", "path", "title", "date", "topic", "score", "excerpt", "turn"}]}``
        (``turn``: ``{"index", "excerpt"}`` of the transcript turn that found the note, or None);
        excerpts at most :data:`MAX_EXCERPT_CHARS` characters, best first.

    Raises:
        UsageError: empty or oversize query, ``top_k`` outside 1–50, unknown topic (2).
        memctl.ask.run.AskError: unreadable data home (7), nothing ingested (12).
    """
    from memctl.ask.api import fallback_route, retrieve

    query = _question(query, "query")
    k = warm.settings.ask_top_k if top_k is None else top_k
    if not 1 <= k <= MAX_TOP_K:
        raise UsageError(f"top_k must be between 1 and {MAX_TOP_K}, got {k}")
    index = warm.topic_index()
    if topics:
        slugs, method, why = index.resolve(list(topics)), "override", None
    elif len(index.slugs) == 1:
        slugs, method, why = index.slugs, "single", None
    else:
        slugs, why = fallback_route(query, index, warm.settings, warm.home)
        method = "fallback"

    def work(reason: str | None) -> Retrieval:
        found = retrieve(query, slugs, warm.settings, warm.home, index, top_k=k, use_graph=reason is None,
                         wide_topics=None if method == "override" else index.slugs)  # as ask: notes of every topic
        if reason is not None:
            found.fallback_reason = reason
        return found

    found: Retrieval = warm.call(work)  # type: ignore[assignment]
    return {
        "query": query, "topics": slugs, "route_method": method, "route_reason": why,
        "retrieval_method": found.method, "fallback_reason": found.fallback_reason,
        "results": [{"rank": rank, "session_id": hit.source.source_id, "path": hit.source.path,
                     "title": hit.source.title, "date": hit.source.date, "topic": hit.source.topic,
                     "score": None if hit.score is None else round(float(hit.score), 4), "excerpt": _excerpt(hit.text),
                     "turn": hit.turn}
                    for rank, hit in enumerate(found.hits, start=1)],
    }


def memory_ask(warm: WarmMemory, question: str, topics: list[str] | None = None,
               session: str | None = None) -> dict:
    """``memctl ask --json``'s document for ``question`` (the answer with its cited sources).

    Raises:
        memctl.ask.run.AskError: as ``memctl ask`` (2 usage, 7 data home, 9 model, 12 nothing ingested).
    """
    options = AskOptions(question=question, session=session, topics=list(topics or ()))
    return warm.ask(options).as_dict()


def memory_remember(warm: WarmMemory, text: str, session: str, topic: str | None = None, global_scope: bool = False,
                    kind: str = "note", source: str | None = None) -> dict:
    """Stage ``text`` as a proposal (``staging/`` only); ``memctl sleep`` decides whether it becomes trusted.

    Its provenance is always ``origin: agent`` via ``mcp`` (whoever is on the other end of the MCP
    connection is a program), with ``source`` as what the text was taken from.

    Returns:
        ``{"staged": true, "staged_path", "promoted_path_if_accepted", "redactions", "proposal"}``, or
        ``{"staged": false, "reason"}`` when the validator refuses the text (nothing is written).

    Raises:
        UsageError: ``topic`` with ``global_scope``, an unknown topic or kind, a bad session id, empty or
            oversize text (2).
        memctl.store.StoreError: the store refused the write.
    """
    if topic and global_scope:
        raise UsageError("topic and global exclude each other: a memory is global, per topic, or per session")
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}")
    if topic:
        topic = warm.topic_index().resolve([topic])[0]
    settings = warm.settings
    try:
        proposal = stage_proposal(MemoryStore(warm.home.store), session=session, content=text, source="mcp",
                                  topic=topic, kind=kind, global_scope=global_scope,
                                  max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines,
                                  origin="agent", taken_from=source)
    except ProposalError as exc:
        message = str(exc)
        if message.startswith(REFUSED_PREFIX):
            return {"staged": False, "reason": message[len(REFUSED_PREFIX):]}
        raise
    return {"staged": True, "staged_path": proposal.staged_path, "promoted_path_if_accepted": proposal.path,
            "redactions": proposal.redactions, "proposal": proposal.as_dict()}


def memory_topics(warm: WarmMemory) -> dict:
    """``{"topics": [{"topic", "description", "note_count", "worktree", "aliases"}]}``, sorted by slug.

    Raises:
        memctl.ask.run.AskError: unreadable index (7), nothing ingested (12).
    """
    index = warm.topic_index()
    return {"topics": [{"topic": slug, "description": entry.description, "note_count": entry.note_count,
                        "worktree": entry.worktree, "aliases": sorted({a.name for a in entry.aliases})}
                       for slug, entry in sorted(index.topics.items())]}


def topic_index_document(warm: WarmMemory) -> str:
    """The topic index as JSON text (the ``memctl://topics`` resource)."""
    index = warm.topic_index()
    return json.dumps({"topics": {slug: {"description": t.description, "note_count": t.note_count,
                                         "worktree": t.worktree, "aliases": [a.name for a in t.aliases],
                                         "notes": [n.__dict__ for n in t.notes]}
                                  for slug, t in sorted(index.topics.items())}}, ensure_ascii=False, indent=1)


def user_memory_paths(warm: WarmMemory) -> list[str]:
    """Store paths of every promoted user memory (``user/global|topics|sessions/…``), sorted."""
    store = MemoryStore(warm.home.store)
    return sorted(p for prefix in USER_PREFIXES for p in store.list(prefix))


def read_user_memory(warm: WarmMemory, *parts: str) -> str:
    """The text of the promoted memory ``user/<parts…>`` (read-only).

    Raises:
        UsageError: a part that is no plain file or directory name (no ``..``, no ``/``).
        memctl.store.StoreError: no such memory.
    """
    if not parts or any(not _MEMORY_NAME.match(p) or ".." in p for p in parts):
        raise UsageError("a memory is named user/global/<file>, user/topics/<topic>/<file> or "
                         "user/sessions/<session>/<file>")
    return MemoryStore(warm.home.store).read_text("user/" + "/".join(parts))[0]


__all__ = ["memory_ask", "memory_remember", "memory_search", "memory_topics",
           "read_user_memory", "topic_index_document", "user_memory_paths"]


