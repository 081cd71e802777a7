"""Route a question to 1–2 topics: one cheap classifier call, with a deterministic fallback.

Model route: ``prompts/route.md`` + the topic list, ``format`` = a JSON
schema whose ``topics`` items are ``enum``-constrained to the known slugs
(Ollama structured outputs), temperature 0, a short timeout
(``router_timeout_s``). A topic's aliases (the later names of a moved or
renamed project) are listed with it and allowed in the answer, which maps
them back to the slug. Unknown names are dropped; output without any known
topic, invalid JSON, a timeout or any error → the lexical fallback: BM25
(``bm25s``) over each topic's slug, alias names, description and note titles,
the best one, and a second when it scores at least half as high. If no word
of the question occurs anywhere, the topics with the most notes are taken
(never an empty route). ``--topic`` (a slug or an alias) overrides
everything; a single topic needs no call.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from memctl.ask.topic_index import TopicIndex, UnknownTopicError
from memctl.config import Settings
from memctl.ollama_client import ModelError, chat_once, client_for
from memctl.prompts import load_prompt

MAX_TOPICS = 2
SECOND_TOPIC_MIN_RATIO = 0.5

__all__ = ["Route", "UnknownTopicError", "lexical_route", "route_question", "route_schema"]


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


def lexical_route(question: str, index: TopicIndex) -> tuple[list[str], str]:
    """Deterministic fallback: ``(topics, how)``; see the module doc."""
    import bm25s
    from bm25s.tokenization import Tokenized, Tokenizer

    slugs = index.slugs
    docs = [" ".join([slug, *(a.name for a in index.topics[slug].aliases), index.topics[slug].description,
                      *(n.title for n in index.topics[slug].notes)]) for slug in slugs]
    tokenizer = Tokenizer(stopwords="en")
    retriever = bm25s.BM25()
    retriever.index(tokenizer.tokenize(docs, return_as="tuple", show_progress=False), show_progress=False)
    ids = tokenizer.tokenize([question], update_vocab=False, return_as="ids", show_progress=False)
    scored: list[tuple[float, str]] = []
    if ids and ids[0]:
        found, scores = retriever.retrieve(Tokenized(ids=ids, vocab=tokenizer.get_vocab_dict()), k=len(slugs),
                                           show_progress=False)
        scored = sorted(((float(s), slugs[int(d)]) for d, s in zip(found[0], scores[0]) if s > 0),
                        key=lambda pair: (-pair[0], pair[1]))
    if not scored:
        by_size = sorted(slugs, key=lambda s: (-index.topics[s].note_count, s))
        return by_size[:MAX_TOPICS], "no word of the question matches a topic: largest topics"
    chosen = [scored[0][1]]
    if len(scored) > 1 and scored[1][0] >= SECOND_TOPIC_MIN_RATIO * scored[0][0]:
        chosen.append(scored[1][1])
    return chosen, "lexical match on topic descriptions and note titles"


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
    topics, how = lexical_route(question, index)
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
