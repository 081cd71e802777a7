"""The embedding router's topic profiles: each topic as vectors of the embedding model, cached per topic.

A topic's profile is one vector for its names (slug, alias names, the last
component of its worktree and alias paths) and one per published note (its
title and the start of its body — the distilled summary — up to
:data:`NOTE_CHARS` characters), embedded by ``Settings.embedding_model``
through Ollama's ``/api/embed`` (:func:`memctl.ollama_client.embed`, the
model Cognee's vectors use). A question's score for a topic is its best
cosine similarity over the topic's vectors: the topic's closest note, as the
lexical router's best-note ranking. Embeddings place paraphrases and
synonyms near each other, which no word match can.

Cache: ``<home>/cache/route/<topic>.vec`` (:attr:`memctl.config.DataHome.route_cache`;
derived data outside the store, so ``ask`` stays read-only with respect to
memory), one file written atomically (temp file, fsync, rename): a JSON
header line, then the vectors as float32 in the machine's byte order, one
unit-norm row per key::

    {"version": 2, "model": "<embedding model>", "fingerprint": "<names, sizes, mtimes of memory/<topic>/
     (NoteSearch.fingerprint)>", "keys": ["<sha256 of each embedded text: its content hash>", ...],
     "paths": ["" for the names vector, else the note's store path, one per key],
     "dim": 768, "byteorder": "little"}\n<len(keys) × dim float32>

With ``fusion_dense_sentence_share`` > 0 the header also holds ``"parts"``
(the sha256 of each sentence of the notes, :func:`sentences`) and
``"part_of"`` (per key, the indices of its sentences), and their vectors
follow the keys' rows: dense note retrieval scores a note by its best
sentence too (:mod:`memctl.catalog.late_interaction`). A file without them
is rebuilt once when the share is turned on.

When the model and the fingerprint match, the vectors serve without reading
a note. Otherwise the notes are read, each text's sha256 is looked up, only
texts without a vector are embedded, and the rows of notes no longer there
are dropped; a file of another model or version is rebuilt whole. The
question and the texts to embed travel in one ``/api/embed`` request
(``embedding_batch_size`` texts per request beyond that), so a warm cache
costs one request per question; the question's vector is kept in the
process (:data:`QUESTION_CACHE` questions), so routing and dense note
retrieval (:meth:`TopicProfiles.similarities`, used by
:mod:`memctl.ask.retrieval`) share that one request. An unwritable cache is
no error: the vectors serve from memory.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from array import array
from dataclasses import dataclass
from operator import mul
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, StrictStr

from memctl import ollama_client
from memctl.atomic import atomic_write_bytes
from memctl.catalog.note_search import NoteSearch
from memctl.catalog.topic_index import TopicEntry, TopicIndex
from memctl.config import DataHome, Settings
from memctl.front_matter import read_front_matter, strip_front_matter
from memctl.graph.plain_text import plain
from memctl.ollama_client import ModelError, embed
from memctl.store import MemoryStore, StoreError

PROFILE_VERSION = 2  # 2: the note path of each vector ("paths"), for dense note retrieval (sentence vectors,
#   optional, ride in version 2: a file without them loads; code that does not know them rebuilds a file with them)
_clients: dict[tuple, object] = {}
_questions: dict[tuple, array] = {}  # (model, host, question) → its vector: routing and retrieval embed it once
QUESTION_CACHE = 256
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\n+")
MIN_SENTENCE_CHARS = 12
NOTE_CHARS = 1500  # a note's title and summary fit; the long tail of a note adds little to "what is it about"


def _client(settings: Settings):  # noqa: ANN202 - an ollama.Client
    """One client per host, timeout and client factory for the process: building one loads the CA bundle
    (~50 ms), more than the embedding request itself; the factory is part of the key so that a test's
    replacement of :func:`memctl.ollama_client._make_client` is honoured."""
    key = (ollama_client._make_client, settings.model_provider, settings.model_endpoint, settings.router_timeout_s)
    if key not in _clients:
        _clients[key] = ollama_client.client_for(settings, settings.router_timeout_s)
    return _clients[key]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def names_text(entry: TopicEntry) -> str:
    """What the topic's name vector embeds: slug, alias names, last components of its paths (deduplicated)."""
    paths = [entry.worktree, *(a.path for a in entry.aliases)]
    names = [entry.name, *(a.name for a in entry.aliases), *(PurePosixPath(p).name for p in paths if p)]
    return " ".join(dict.fromkeys(n for n in names if n))


def note_text(text: str) -> str:
    """What a note's vector embeds: its front-matter title, then its body, cut to :data:`NOTE_CHARS`."""
    title = read_front_matter(text).get("title")
    body = strip_front_matter(text).strip()
    return (f"{title}\n{body}" if isinstance(title, str) and title not in body[:200] else body)[:NOTE_CHARS]


class _ProfileHeader(BaseModel):
    """The JSON first line of a topic's ``.vec`` cache file as read (see ``TopicProfiles._save``)."""

    version: object = None
    model: object = None
    fingerprint: object = None
    byteorder: object = None
    keys: list[StrictStr]
    paths: list[StrictStr]
    dim: int
    parts: list[StrictStr] | None = None
    part_of: list[list[int]] | None = None


@dataclass
class _Profile:
    """One topic's cached vectors: ``keys[i]`` (sha256 of the text) names ``vectors[i]`` (float32, unit norm),
    embedded from the note at store path ``paths[i]`` ("" for the topic's names)."""

    model: str
    fingerprint: str
    keys: list[str]
    vectors: list[array]
    paths: list[str]
    parts: list[str] | None = None  # sha256 of each sentence embedded (None: sentence vectors off)
    part_vectors: list[array] | None = None  # parts[i]'s vector
    part_of: list[list[int]] | None = None  # per key, indices into parts of that text's sentences


@dataclass(frozen=True)
class NoteVectors:
    """What dense note retrieval scores a question with (:meth:`TopicProfiles.note_vectors`).

    ``query``: the question's unit vector; ``notes``: note store path → (its unit vector, its sentences' unit
    vectors: empty when ``fusion_dense_sentence_share`` is 0).
    """

    query: array
    notes: dict[str, tuple[array, tuple[array, ...]]]


def sentences(text: str) -> list[str]:
    """The sentences of an embedded note text (:func:`note_text`): its lines, each cut after ``.``, ``;``,
    ``!`` or ``?`` followed by a space; list markers and heading marks stripped; pieces under
    :data:`MIN_SENTENCE_CHARS` characters or of one word dropped (deduplicated, order kept)."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip().lstrip("-*#> ").strip()
        if len(piece) >= MIN_SENTENCE_CHARS and len(piece.split()) >= 2 and piece not in out:
            out.append(piece)
    return out


def _dot(a: array, b: array) -> float:
    # Plain Python: numpy is not a declared dependency; 768 dimensions × a few hundred notes take milliseconds.
    return sum(map(mul, a, b))


class TopicProfiles:
    """Topic profiles for one data home and embedding model; see the module doc.

    Args:
        settings: ``embedding_model``, ``embedding_batch_size``, ``router_timeout_s`` (per request), Ollama host.
        home: the data home (notes read through its store; cache under ``home.route_cache``).
    """

    def __init__(self, settings: Settings, home: DataHome) -> None:
        self.settings = settings
        self.home = home
        self.store = MemoryStore(home.store)
        self.search = NoteSearch(self.store, home.note_index)
        self.requests = 0  # /api/embed requests made by this instance
        self.embedded = 0  # note and name texts embedded by the last update

    def scores(self, question: str, index: TopicIndex) -> dict[str, float]:
        """Per topic of ``index``, the best cosine similarity of ``question`` over its profile (−1..1).

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        return self.similarities(question, index)[0]

    def similarities(self, question: str, index: TopicIndex) -> tuple[dict[str, float], dict[str, float]]:
        """``(topic → best score, note store path → score)`` of ``question`` over every topic's profile
        (−1..1): the cosine, or with ``fusion_dense_sentence_share`` > 0 the cosine mixed with the best
        sentence's (:func:`memctl.catalog.late_interaction.note_score`); one ``/api/embed`` request at most
        (none when the question was embedded before in this process and every profile is current).

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        query, profiles = self._current(question, index)
        from memctl.catalog.late_interaction import note_score

        share = self.settings.fusion_dense_sentence_share if self._split else 0.0
        topics: dict[str, float] = {}
        notes: dict[str, float] = {}
        for slug, profile in profiles.items():
            if not profile.vectors or len(profile.vectors[0]) != len(query):
                continue
            sims = [note_score(query, v, self._parts(profile, i), share) for i, v in enumerate(profile.vectors)]
            topics[slug] = max(sims)
            for path, sim in zip(profile.paths, sims):
                if path:
                    notes[path] = max(sim, notes.get(path, -1.0))
        return topics, notes

    def _current(self, question: str, index: TopicIndex) -> tuple[array, dict[str, _Profile]]:
        """``(question's vector, topic → current profile)``, the profiles of the question's vector size."""
        query, profiles = self._update(index, question)
        assert query is not None
        if any(len(v) != len(query) for p in profiles.values() for v in p.vectors):
            # The model behind the name changed (another vector size): rebuild those profiles now, so this
            # question gets embedding evidence too (one more request).
            _questions.pop(self._question_key(question), None)
            query, profiles = self._update(index, question, dim=len(query))
            assert query is not None
        return query, profiles

    @staticmethod
    def _parts(profile: _Profile, i: int) -> tuple[array, ...]:
        """The sentence vectors of ``profile``'s text ``i`` (none when the profile has no sentence vectors)."""
        if profile.part_of is None or profile.part_vectors is None:
            return ()
        return tuple(profile.part_vectors[p] for p in profile.part_of[i])

    def question_vector(self, question: str, index: TopicIndex) -> array:
        """``question``'s unit-norm embedding (float32), the one routing and :meth:`similarities` use: no
        request when this process embedded it before.

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        cached = _questions.get(self._question_key(question))
        if cached is not None:
            return cached
        query, _profiles = self._update(index, question)
        assert query is not None
        return query

    def note_vectors(self, question: str, index: TopicIndex) -> NoteVectors:
        """The question's vector with every note's vector and its sentences' vectors (see :class:`NoteVectors`);
        one ``/api/embed`` request at most, none when all of it was embedded before.

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        query, profiles = self._current(question, index)
        notes: dict[str, tuple[array, tuple[array, ...]]] = {}
        for profile in profiles.values():
            if not profile.vectors or len(profile.vectors[0]) != len(query):
                continue
            for i, (path, vector) in enumerate(zip(profile.paths, profile.vectors)):
                if path:
                    notes[path] = (vector, self._parts(profile, i))
        return NoteVectors(query, notes)

    @property
    def _split(self) -> bool:
        """Whether sentence vectors are kept (``fusion_dense_sentence_share`` > 0 and a dense list at all)."""
        return self.settings.fusion_dense_sentence_share > 0 and self.settings.fusion_dense_weight > 0

    def _question_key(self, question: str) -> tuple:
        return (self.settings.embedding_model, self.settings.ollama_base_url, question)

    def refresh(self, index: TopicIndex) -> int:
        """Bring every topic's cached profile up to date without a question; how many texts were embedded.

        ``memctl ingest`` calls it after publishing notes, so the first question after a large ingest
        costs one request instead of one per ``embedding_batch_size`` new notes. No request when every
        profile is current.

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        self._update(index, None)
        return self.embedded

    def _update(self, index: TopicIndex, question: str | None,
                dim: int | None = None) -> tuple[array | None, dict[str, _Profile]]:
        """Embed ``question`` (if any) with every text a stale profile needs, save the updated profiles;
        ``(question's vector or None, topic → profile)``. ``dim``: the model's vector size, when known —
        a cached profile of another size is stale and none of its vectors is reused."""
        cached: dict[str, _Profile | None] = {}
        wanted: dict[str, dict[str, str]] = {}  # topic → {sha: text} its profile needs
        fingerprints: dict[str, str] = {}
        for slug in index.slugs:
            fingerprint, paths = self.search.fingerprint(slug)
            fingerprints[slug] = fingerprint
            profile = self._load(slug)
            if profile is not None and dim is not None and any(len(v) != dim for v in profile.vectors):
                profile = None
            if profile is not None and self._split and profile.part_of is None:
                profile = None  # made without sentence vectors: the dense list needs them (re-embedded once)
            cached[slug] = profile
            if profile is not None and profile.fingerprint == fingerprint:
                continue
            texts = [("", names_text(index.topics[slug])), *self._note_texts(paths)]
            wanted[slug] = {_sha(t): (path, t) for path, t in texts if t.strip()}
        known = {k: v for p in cached.values() if p is not None for k, v in zip(p.keys, p.vectors)}
        missing = list(dict.fromkeys(sha for need in wanted.values() for sha in need if sha not in known))
        texts_by_sha = {sha: t for need in wanted.values() for sha, (_path, t) in need.items()}
        cached_query = None if question is None else _questions.get(self._question_key(question))
        if cached_query is not None and dim is not None and len(cached_query) != dim:
            cached_query = None
        head = [] if question is None or cached_query is not None else [question]
        # Sentence vectors: each sentence of a stale profile's note texts gets one, embedded in the same request;
        # a sentence any current profile holds (by its sha256) is not sent again.
        split = ({sha: {_sha(x): x for x in sentences(t)} for need in wanted.values() for sha, (path, t) in need.items()
                  if path} if self._split else {})
        known_parts = {k: v for p in cached.values() if p is not None and p.parts is not None and p.part_vectors
                       for k, v in zip(p.parts, p.part_vectors) if dim is None or len(v) == dim}
        new_parts = list(dict.fromkeys(k for by in split.values() for k in by if k not in known_parts))
        part_texts = {k: x for by in split.values() for k, x in by.items()}
        to_embed = [*head, *(texts_by_sha[s] for s in missing), *(part_texts[k] for k in new_parts)]
        vectors = self._embed(to_embed) if to_embed else []
        self.embedded = len(missing)
        query = vectors[0] if head else cached_query
        if head and question is not None:
            if len(_questions) >= QUESTION_CACHE:
                _questions.pop(next(iter(_questions)))
            _questions[self._question_key(question)] = vectors[0]
        fresh = dict(zip(missing, vectors[len(head):len(head) + len(missing)]))
        known_parts.update(zip(new_parts, vectors[len(head) + len(missing):]))
        profiles: dict[str, _Profile] = {}
        for slug in index.slugs:
            profile = cached[slug]
            if slug in wanted:
                keys = list(wanted[slug])
                profile = _Profile(self.settings.embedding_model, fingerprints[slug], keys,
                                   [fresh[k] if k in fresh else known[k] for k in keys],
                                   [wanted[slug][k][0] for k in keys])
                if self._split:
                    parts = list(dict.fromkeys(p for k in keys for p in split.get(k, {})))
                    at = {p: i for i, p in enumerate(parts)}
                    profile.parts, profile.part_vectors = parts, [known_parts[p] for p in parts]
                    profile.part_of = [[at[p] for p in split.get(k, {})] for k in keys]
                self._save(slug, profile)
            assert profile is not None
            profiles[slug] = profile
        return query, profiles

    def _note_texts(self, paths: list[str]) -> list[tuple[str, str]]:
        texts = []
        for path in paths:
            try:
                texts.append((path, note_text(self.store.read_text(path)[0])))
            except (OSError, StoreError):  # removed or unreadable since listing: not part of the profile
                continue
        return texts

    def embed_texts(self, texts: list[str]) -> list[array]:
        """Unit-norm float32 vectors of ``texts`` with the embedding model, batched (what the turn index stores).

        Raises:
            ModelError: the embedding model is unreachable, missing, slow or answers garbage.
        """
        return self._embed(texts)

    def _embed(self, texts: list[str]) -> list[array]:
        """Unit-norm float32 vectors of ``texts``, ``embedding_batch_size`` per request (the first carries the question)."""
        client = _client(self.settings)
        size = self.settings.embedding_batch_size
        out: list[array] = []
        for start in range(0, len(texts), size):
            # A tokenizer's special token quoted in a note travels escaped, as every text memctl sends to a model
            # (memctl.graph.plain_text): a server parsing it would act on it (end the input, switch roles).
            batch = [plain(text) for text in texts[start:start + size]]
            self.requests += 1
            rows = embed(client, self.settings, self.settings.embedding_model, batch, self.settings.router_timeout_s)
            for row in rows:
                values: list[float] = []
                try:
                    values = [float(x) for x in row]
                    norm = math.sqrt(sum(x * x for x in values))
                except (TypeError, ValueError, OverflowError):
                    norm = math.nan
                if not values or not math.isfinite(norm):
                    raise ModelError(f"{self.settings.embedding_model!r} returned an unusable vector", "malformed")
                out.append(array("f", (x / norm for x in values) if norm > 0 else values))
        if len({len(v) for v in out}) > 1:
            raise ModelError(f"{self.settings.embedding_model!r} returned vectors of different lengths", "malformed")
        return out

    def path(self, slug: str) -> Path:
        """The cache file of topic ``slug``."""
        return self.home.route_cache / f"{slug}.vec"

    def _load(self, slug: str) -> _Profile | None:
        from memctl.state_file import StateFileError, parse_state

        path = self.path(slug)
        try:
            header, _, body = path.read_bytes().partition(b"\n")
            meta = parse_state(header, _ProfileHeader, path=path)
            keys, dim, paths, parts, part_of = meta.keys, meta.dim, meta.paths, meta.parts, meta.part_of
            flat = array("f")
            flat.frombytes(body)
        except (OSError, ValueError, StateFileError):
            return None  # missing, emptied or torn by hand, or another format: rebuilt
        rows = len(keys) + len(parts or [])
        if (meta.version != PROFILE_VERSION or meta.model != self.settings.embedding_model
                or meta.byteorder != sys.byteorder or len(flat) != rows * dim
                or len(paths) != len(keys) or (parts is None) != (part_of is None)
                or (part_of is not None and (len(part_of) != len(keys)
                                             or any(not 0 <= p < len(parts or []) for ps in part_of for p in ps)))):
            return None
        vectors = [flat[i * dim:(i + 1) * dim] for i in range(rows)]
        return _Profile(meta.model, str(meta.fingerprint), keys, vectors[:len(keys)], paths, parts,
                        None if parts is None else vectors[len(keys):], part_of)

    def _save(self, slug: str, profile: _Profile) -> None:
        dim = len(profile.vectors[0]) if profile.vectors else 0
        header = json.dumps({"version": PROFILE_VERSION, "model": profile.model, "fingerprint": profile.fingerprint,
                             "keys": profile.keys, "paths": profile.paths, "dim": dim, "byteorder": sys.byteorder,
                             "parts": profile.parts, "part_of": profile.part_of})
        flat = array("f")
        for vector in [*profile.vectors, *(profile.part_vectors or [])]:
            flat.extend(vector)
        try:
            self.home.route_cache.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path(slug), header.encode("utf-8") + b"\n" + flat.tobytes())
        except OSError:
            pass  # a read-only home: the profile serves from memory this time


__all__ = ["NOTE_CHARS", "PROFILE_VERSION", "NoteVectors", "TopicProfiles", "names_text", "note_text", "sentences"]
