"""Route a question to 1–2 topics: one cheap classifier call, with a deterministic fallback.

Model route: ``prompts/route.md`` + the topic list, ``format`` = a JSON
schema whose ``topics`` items are ``enum``-constrained to the known slugs
(Ollama structured outputs), temperature 0, a short timeout
(``router_timeout_s``). A topic's aliases (the later names of a moved or
renamed project) are listed with it and allowed in the answer, which maps
them back to the slug. Unknown names are dropped; output without any known
topic, invalid JSON, a timeout or any error → the fallback below.

Without the model (it failed, timed out, or named no known topic),
:func:`fallback_route` combines two routers, and the best topic is taken, and
a second one when the scores are close: the second scores at least
:data:`SECOND_TOPIC_MIN_RATIO` (0.8) of the first. Retrieval then searches
both and fuses.

1. Lexical (:func:`lexical_route`, also alone when the embedding model is
   unreachable): two BM25 (``bm25s``) rankings of the topics, combined by
   CombSUM of max-normalised scores (Fox & Shaw, TREC-2 1994; each
   ranking's scores divided by its best, then summed): the topic document
   (slug, alias names, description and note titles), and the topic's best
   note (BM25 over each topic's notes — title and body, the distilled
   summary; :mod:`memctl.catalog.note_search`, persisted indexes) when the data
   home is given. If no word of the question occurs anywhere, the topics
   with the most notes are taken (never an empty route).
2. Embedding (:mod:`memctl.catalog.topic_profiles`): the question's best cosine
   similarity over each topic's profile (its names and its notes, embedded
   by ``embedding_model``, cached in the data home), one ``/api/embed``
   request per question. Embeddings match paraphrases and synonyms, which
   words cannot.

Combination (memctl's rule, in the CombSUM family): per topic,
``route_embedding_weight × minmax(cosine) + coverage × lexical / 2``, where
``minmax`` maps the best topic's similarity to 1 and the worst's to 0 (Lee,
"Analyses of multiple evidence combination", SIGIR 1997), ``lexical`` is the
CombSUM above (0..2, hence the halving) and ``coverage`` the share of the
question's content words the topic's names, titles and notes hold
(:func:`memctl.catalog.note_search.coverage`): a lexical match on one incidental
word of a paraphrase counts little against the embedding, a match on most of
the question counts fully. ``route_embedding_weight`` 0 routes lexically
only, without an embedding call.

A topic the question names (its slug or an alias name as whole words) is
always among the topics without the model: with another topic scoring higher,
both are searched (:func:`with_named`). ``--topic`` (a slug or an alias)
overrides everything; a single topic needs no call.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from memctl.catalog.topic_index import TopicIndex, UnknownTopicError
from memctl.config import DataHome, Settings
from memctl.ollama_client import ModelError, chat_once, client_for
from memctl.prompts import load_prompt
from memctl.state_file import decode_json

MAX_TOPICS = 2
SECOND_TOPIC_MIN_RATIO = 0.8  # "close": two topics whose combined scores are within 20 % both get searched

__all__ = ["Route", "UnknownTopicError", "combine_scores", "fallback_route", "lexical_evidence", "lexical_route",
           "min_max", "named_topics", "pick_topics", "route_question", "route_schema", "route_scores", "with_named"]


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


def _topic_document(index: TopicIndex, slug: str) -> str:
    """A topic's document for BM25: slug, alias names, description and note titles."""
    entry = index.topics[slug]
    return " ".join([slug, *(a.name for a in entry.aliases), entry.description, *(n.title for n in entry.notes)])


def _topic_document_scores(question: str, index: TopicIndex) -> dict[str, float]:
    """BM25 of ``question`` against each topic's document (:func:`_topic_document`); > 0 only."""
    import bm25s
    from bm25s.tokenization import Tokenized, Tokenizer

    slugs = index.slugs
    docs = [_topic_document(index, slug) for slug in slugs]
    tokenizer = Tokenizer(stopwords="en")
    retriever = bm25s.BM25()
    retriever.index(tokenizer.tokenize(docs, return_as="tuple", show_progress=False), show_progress=False)
    ids = tokenizer.tokenize([question], update_vocab=False, return_as="ids", show_progress=False)
    if not ids or not ids[0]:
        return {}
    found, scores = retriever.retrieve(Tokenized(ids=ids, vocab=tokenizer.get_vocab_dict()), k=len(slugs),
                                       show_progress=False)
    return {slugs[int(d)]: float(s) for d, s in zip(found[0], scores[0]) if s > 0}


def _best_note_scores(question: str, index: TopicIndex, home: DataHome,
                      vocabularies: dict[str, set[str]] | None = None) -> dict[str, float]:
    """Per topic, the BM25 score of its best note for ``question`` (> 0 only); each topic's note terms
    are added to ``vocabularies`` when given."""
    from memctl.catalog.note_search import NoteSearch
    from memctl.store import MemoryStore, StoreError

    search = NoteSearch(MemoryStore(home.store), home.note_index)
    best = {}
    for slug in index.slugs:
        try:
            topic_index = search.index_for(slug)
            hits = topic_index.query(question, 1)
        except (OSError, StoreError):  # unreadable notes: the topic documents still route
            continue
        if vocabularies is not None:
            vocabularies.setdefault(slug, set()).update(topic_index.vocabulary())
        if hits:
            best[slug] = hits[0][1]
    return best


def lexical_evidence(question: str, index: TopicIndex, home: DataHome | None = None
                     ) -> tuple[dict[str, float], dict[str, float]]:
    """``(scores, coverage)`` per topic: the CombSUM of the BM25 rankings (0..2 with ``home``, else 0..1;
    > 0 only) and the share of the question's content words the topic's document and notes hold (0..1)."""
    from memctl.catalog.note_search import content_terms, coverage

    vocabularies = {slug: content_terms(_topic_document(index, slug)) for slug in index.slugs}
    rankings = [_topic_document_scores(question, index)]
    if home is not None:
        rankings.append(_best_note_scores(question, index, home, vocabularies))
    return combine_scores(*rankings), {slug: coverage(question, terms) for slug, terms in vocabularies.items()}


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
    what = "topic descriptions, note titles and notes" if home is not None else "topic descriptions and note titles"
    return _chosen(lexical_evidence(question, index, home)[0], index, f"lexical match on {what}", question)


def _words(text: str) -> str:
    """``text`` lower-cased with every run of non-alphanumerics one space, padded: `` mobile app ``."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def named_topics(question: str, index: TopicIndex) -> list[str]:
    """The topics whose slug or alias name the question holds as whole words (``mobile-app`` also as
    "mobile app"), by slug."""
    said = _words(question)
    return [slug for slug in index.slugs
            if any(_words(name) in said for name in (slug, *(a.name for a in index.topics[slug].aliases))
                   if _words(name).strip())]


def with_named(chosen: list[str], named: list[str], scores: dict[str, float]) -> list[str]:
    """``chosen`` made to hold the topics the question names: a named topic is always searched (the user
    said which project), the best-scoring one first; never more than :data:`MAX_TOPICS`."""
    by_score = sorted(named, key=lambda slug: (-scores.get(slug, 0.0), slug))
    if len(by_score) >= MAX_TOPICS:
        return by_score[:MAX_TOPICS]
    if not by_score or by_score[0] in chosen:
        return chosen
    return [chosen[0], by_score[0]] if chosen and chosen[0] != by_score[0] else by_score


def _chosen(scores: dict[str, float], index: TopicIndex, how: str, question: str) -> tuple[list[str], str]:
    """:func:`pick_topics` of ``scores`` and the topics the question names (:func:`with_named`), with the
    reason; the largest topics when nothing scores and none is named."""
    named = named_topics(question, index)
    chosen = with_named(pick_topics(scores), named, scores)
    if not chosen:
        by_size = sorted(index.slugs, key=lambda s: (-index.topics[s].note_count, s))
        return by_size[:MAX_TOPICS], "no word of the question matches a topic: largest topics"
    extra = [slug for slug in chosen if slug in named and slug not in pick_topics(scores)]
    return chosen, how + (" (two close scores)" if len(chosen) == 2 and not extra else "") + (
        f" (the question names {', '.join(extra)})" if extra else "")


def min_max(scores: dict[str, float]) -> dict[str, float]:
    """``scores`` mapped linearly onto 0..1 (best 1, worst 0); all 0 when they are all equal."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {slug: (s - low) / (high - low) if high > low else 0.0 for slug, s in scores.items()}


def fallback_route(question: str, index: TopicIndex, settings: Settings, home: DataHome) -> tuple[list[str], str]:
    """Route without the model router: ``(topics, how)`` — one topic, or two when their scores are close;
    embedding and lexical evidence combined as in the module doc. An unreachable embedding model
    leaves the lexical router alone, and ``how`` says so. Never raises for a model failure or an unreadable
    note or cache."""
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.store import StoreError

    if settings.route_embedding_weight <= 0:
        return lexical_route(question, index, home)
    try:
        semantic = TopicProfiles(settings, home).scores(question, index)
    except (ModelError, OSError, StoreError) as exc:  # OSError/StoreError: a note went away while profiling
        topics, how = lexical_route(question, index, home)
        return topics, f"embedding router unavailable ({exc}); {how} alone"
    lexical, covered = lexical_evidence(question, index, home)
    combined = route_scores(semantic, lexical, covered, settings.route_embedding_weight)
    return _chosen(combined, index, "embedding and lexical match on topic names, note titles and notes", question)


def route_scores(semantic: dict[str, float], lexical: dict[str, float], covered: dict[str, float],
                 embedding_weight: float = 1.0) -> dict[str, float]:
    """Per topic, ``embedding_weight × minmax(semantic) + covered × lexical / 2`` (the module doc's rule).

    Args:
        semantic: topic → best cosine similarity (any range; min-max normalised here).
        lexical: topic → CombSUM of the two BM25 rankings (0..2).
        covered: topic → share (0..1) of the question's content words the topic holds.
        embedding_weight: ``Settings.route_embedding_weight``.
    """
    similar = min_max(semantic)
    topics = set(semantic) | set(lexical)
    return {slug: embedding_weight * similar.get(slug, 0.0) + covered.get(slug, 0.0) * lexical.get(slug, 0.0) / 2
            for slug in topics}


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
    topics, how = fallback_route(question, index, settings, DataHome(settings.home))
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
    data = decode_json(content)
    if not isinstance(data, dict) or not isinstance(data.get("topics"), list):
        raise ValueError(f"expected {{\"topics\": [...]}}, got {content[:80]!r}")
    known = [t if t in index.topics else aliases[t] for t in data["topics"]
             if isinstance(t, str) and (t in index.topics or t in aliases)]
    return list(dict.fromkeys(known))[:MAX_TOPICS]
