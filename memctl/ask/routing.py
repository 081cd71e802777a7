"""Route a question to 1–2 topics: one cheap classifier call, with a deterministic fallback.

Model route: ``prompts/route.md`` + the topic list, ``format`` = a JSON
schema whose ``topics`` items are ``enum``-constrained to the known slugs
(Ollama structured outputs), temperature 0, a short timeout
(``router_timeout_s``). A topic's aliases (the later names of a moved or
renamed project) are listed with it and allowed in the answer, which maps
them back to the slug. Unknown names are dropped; output without any known
topic, invalid JSON, a timeout or any error → the lexical fallback.

Lexical fallback (:func:`lexical_route`): two BM25 (``bm25s``) rankings of
the topics, combined by CombSUM of max-normalised scores (Fox & Shaw,
TREC-2 1994; each ranking's scores divided by its best, then summed):

1. the topic document: slug, alias names, description and note titles;
2. the topic's best note: BM25 over each topic's notes (title and body —
   the distilled summary; :mod:`memctl.ask.note_search`, persisted indexes),
   when the data home is given.

The best topic is taken, and a second one when the scores are close: the
second scores at least :data:`SECOND_TOPIC_MIN_RATIO` (0.8) of the first.
Retrieval then searches both and fuses. If no word of the question occurs
anywhere, the topics with the most notes are taken (never an empty route).
``--topic`` (a slug or an alias) overrides everything; a single topic needs
no call.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from memctl.ask.topic_index import TopicIndex, UnknownTopicError
from memctl.config import DataHome, Settings
from memctl.ollama_client import ModelError, chat_once, client_for
from memctl.prompts import load_prompt

MAX_TOPICS = 2
SECOND_TOPIC_MIN_RATIO = 0.8  # "close": two topics whose combined scores are within 20 % both get searched

__all__ = ["Route", "UnknownTopicError", "combine_scores", "lexical_route", "pick_topics", "route_question",
           "route_schema"]


@dataclass
class Route:
    """Where a question goes. ``method``: override | single | model | fallback; ``reason`` says why a fallback."""

    topics: list[str]
    method: str
    reason: str | None = None
    route_s: float = 0.0


def route_schema(slugs: list[str]) -> dict:
    """JSON schema constraining the router's answer to 1–2 of ``slugs`` (topic slugs and alias names)."""
    return {"type": "object", "properties": {"topics": {
        "type": "array", "items": {"type": "string", "enum": slugs}, "minItems": 1, "maxItems": MAX_TOPICS,
        "uniqueItems": True}}, "required": ["topics"]}


def _topic_document_scores(question: str, index: TopicIndex) -> dict[str, float]:
    """BM25 of ``question`` against each topic's document (slug, aliases, description, note titles); > 0 only."""
    import bm25s
    from bm25s.tokenization import Tokenized, Tokenizer

    slugs = index.slugs
    docs = [" ".join([slug, *(a.name for a in index.topics[slug].aliases), index.topics[slug].description,
                      *(n.title for n in index.topics[slug].notes)]) for slug in slugs]
    tokenizer = Tokenizer(stopwords="en")
    retriever = bm25s.BM25()
    retriever.index(tokenizer.tokenize(docs, return_as="tuple", show_progress=False), show_progress=False)
    ids = tokenizer.tokenize([question], update_vocab=False, return_as="ids", show_progress=False)
    if not ids or not ids[0]:
        return {}
    found, scores = retriever.retrieve(Tokenized(ids=ids, vocab=tokenizer.get_vocab_dict()), k=len(slugs),
                                       show_progress=False)
    return {slugs[int(d)]: float(s) for d, s in zip(found[0], scores[0]) if s > 0}


def _best_note_scores(question: str, index: TopicIndex, home: DataHome) -> dict[str, float]:
    """Per topic, the BM25 score of its best note for ``question`` (> 0 only)."""
    from memctl.ask.note_search import NoteSearch
    from memctl.store import MemoryStore, StoreError

    search = NoteSearch(MemoryStore(home.store), home.note_index)
    best = {}
    for slug in index.slugs:
        try:
            hits = search.index_for(slug).query(question, 1)
        except (OSError, StoreError):  # unreadable notes: the topic documents still route
            continue
        if hits:
            best[slug] = hits[0][1]
    return best


def combine_scores(*rankings: dict[str, float]) -> dict[str, float]:
    """CombSUM of max-normalised scores: each ranking divided by its best score, then summed per topic."""
    combined: dict[str, float] = {}
    for ranking in rankings:
        top = max(ranking.values(), default=0.0)
        for slug, score in ranking.items():
            if top > 0:
                combined[slug] = combined.get(slug, 0.0) + score / top
    return combined


def pick_topics(scores: dict[str, float]) -> list[str]:
    """The best topic, and the second when it scores >= ``SECOND_TOPIC_MIN_RATIO`` of the first (ties: by slug)."""
    scored = sorted(((s, slug) for slug, s in scores.items() if s > 0), key=lambda pair: (-pair[0], pair[1]))
    if not scored:
        return []
    chosen = [scored[0][1]]
    if len(scored) > 1 and scored[1][0] >= SECOND_TOPIC_MIN_RATIO * scored[0][0]:
        chosen.append(scored[1][1])
    return chosen


def lexical_route(question: str, index: TopicIndex, home: DataHome | None = None) -> tuple[list[str], str]:
    """Deterministic fallback: ``(topics, how)`` — one topic, or two when their scores are close; see the module doc.

    ``home``: when given, the topics' notes (their persisted BM25 indexes) count too; without it only the
    topic documents do.
    """
    rankings = [_topic_document_scores(question, index)]
    if home is not None:
        rankings.append(_best_note_scores(question, index, home))
    chosen = pick_topics(combine_scores(*rankings))
    if not chosen:
        by_size = sorted(index.slugs, key=lambda s: (-index.topics[s].note_count, s))
        return by_size[:MAX_TOPICS], "no word of the question matches a topic: largest topics"
    what = "topic descriptions, note titles and notes" if home is not None else "topic descriptions and note titles"
    return chosen, f"lexical match on {what}" + (" (two close scores)" if len(chosen) == 2 else "")


def route_question(question: str, index: TopicIndex, settings: Settings, *,
                   override: list[str] | None = None) -> Route:
    """Pick the topics for ``question``.

    Raises:
        UnknownTopicError: an ``override`` name is no slug or alias in the index (or an alias of several).
    """
    started = time.monotonic()
    if override:
        return Route(index.resolve(override), "override", route_s=time.monotonic() - started)
    if len(index.slugs) == 1:
        return Route(index.slugs, "single", route_s=time.monotonic() - started)
    reason = None
    try:
        topics = _model_route(question, index, settings)
        if topics:
            return Route(topics, "model", route_s=time.monotonic() - started)
        reason = "router answered no known topic"
    except ModelError as exc:
        reason = f"router failed: {exc}"
    except ValueError as exc:
        reason = f"router output invalid: {exc}"
    topics, how = lexical_route(question, index, DataHome(settings.home))
    return Route(topics, "fallback", f"{reason}; {how}", route_s=time.monotonic() - started)


def _model_route(question: str, index: TopicIndex, settings: Settings) -> list[str]:
    prompt = load_prompt("route")
    aliases = index.alias_names()
    listing = "\n".join(f"- {slug}: {index.topics[slug].description}" for slug in index.slugs)
    client = client_for(settings, settings.router_timeout_s)
    content = chat_once(client, settings, model=settings.router_model, timeout_s=settings.router_timeout_s,
                        schema=route_schema([*index.slugs, *aliases]), options={"num_predict": 64},
                        messages=[{"role": "system", "content": prompt.body},
                                  {"role": "user", "content": f"Topics:\n{listing}\n\nQuestion: {question}"}])
    data = json.loads(content)
    if not isinstance(data, dict) or not isinstance(data.get("topics"), list):
        raise ValueError(f"expected {{\"topics\": [...]}}, got {content[:80]!r}")
    known = [t if t in index.topics else aliases[t] for t in data["topics"]
             if isinstance(t, str) and (t in index.topics or t in aliases)]
    return list(dict.fromkeys(known))[:MAX_TOPICS]
