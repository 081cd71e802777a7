"""Turn-level evidence: each session's scrubbed transcript cut into turns, searchable by BM25 and by embedding.

A *turn* is one user request with its outcome: from a ``**User:** `` line of
the transcript ingest keeps (``<home>/transcripts/<session>.md``, written by
:mod:`memctl.ingest.transcript`, already scrubbed and bounded) up to the next
one — the assistant's text, the tool calls with their commands and outputs,
a folded subagent session. Text before the first request (a session that
starts with a tool call) is turn 1. Each turn is cut to :data:`TURN_CHARS`
characters (head kept: the request and the first of its outcome). Turns are
numbered from 1 in transcript order; ``excerpt`` is the request's first
:data:`EXCERPT_CHARS` characters on one line.

Only sessions with a published note are indexed (the topic index names them):
a turn hit maps back to that note (``note``), so fusion counts it for the
note's session, and ``ask --json`` cites the turn (``{"index", "excerpt"}``).

Per topic, under ``<home>/index/turns/<topic>/`` (:attr:`DataHome.turn_index`):
``manifest.json`` — ``{"version", "fingerprint", "model", "dim", "turns":
[{"source_id", "note", "index", "excerpt", "key"}, …]}`` (``key``: sha256 of the turn's text) — bm25s's files of the turn
texts (tokenizer with English stop words, as :mod:`memctl.catalog.note_search`)
and ``vectors.f32``: one unit-norm float32 row of ``dim`` per turn, in the
machine's byte order (``dim`` 0 and no rows when the embedding model could not
answer). The fingerprint hashes the topic's note paths and their transcripts'
names, sizes and mtimes. Written into a temp directory, then swapped in.

Built by ``memctl ingest`` after publishing (:func:`refresh_turns`, only the
topics whose fingerprint changed, turns whose text was embedded before reuse
their vector); deleted by ``forget`` and ``purge`` with the note indexes
(:mod:`memctl.forget.derived`). ``ask`` only reads it: a missing or stale
topic index (fingerprint changed since) gives no turn hits for that topic,
never a rebuild, so the wake cycle writes nothing here.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, StrictInt, StrictStr

from memctl.catalog.topic_index import TopicIndex
from memctl.config import DataHome, Settings

MANIFEST = "manifest.json"
VECTORS = "vectors.f32"
TURN_VERSION = 1
TURN_CHARS = 2000  # a request and the start of its outcome; long tool outputs add little to "what was done"
EXCERPT_CHARS = 160
_USER = "**User:** "
_TRANSCRIPT = re.compile(r"^## Transcript\s*$", re.M)


@dataclass(frozen=True)
class Turn:
    """One indexed turn: the session it came from, that session's note (store path), its 1-based number in
    the transcript and a one-line excerpt of the request."""

    source_id: str
    note: str
    index: int
    excerpt: str

    def cite(self) -> dict[str, object]:
        """``{"index", "excerpt"}``, as ``ask --json`` sources and MCP ``memory_search`` results carry it."""
        return {"index": self.index, "excerpt": self.excerpt}


def split_turns(transcript: str) -> list[str]:
    """The turns of one transcript (see the module doc), each cut to :data:`TURN_CHARS`; ``[]`` for an empty body."""
    match = _TRANSCRIPT.search(transcript)
    body = transcript[match.end():] if match else transcript
    turns: list[list[str]] = [[]]
    for line in body.splitlines():
        if line.startswith(_USER) and any(part.strip() for part in turns[-1]):
            turns.append([])
        turns[-1].append(line)
    texts = ["\n".join(lines).strip() for lines in turns]
    return [t[:TURN_CHARS] for t in texts if t]


def excerpt_of(turn: str) -> str:
    """The turn's request (its first line without the ``**User:**`` label), whitespace folded, cut to
    :data:`EXCERPT_CHARS` characters."""
    first = turn.split("\n\n", 1)[0]
    if first.startswith(_USER):
        first = first[len(_USER):]
    folded = " ".join(first.split())
    return folded if len(folded) <= EXCERPT_CHARS else folded[:EXCERPT_CHARS - 1] + "…"


class _TurnRow(BaseModel):
    source_id: StrictStr
    note: StrictStr
    index: StrictInt
    excerpt: StrictStr
    key: StrictStr = ""


class _Manifest(BaseModel):
    """``manifest.json`` of one topic's turn index as read."""

    version: object = None
    fingerprint: object = None
    model: object = None
    byteorder: object = None
    dim: int = 0
    turns: list[_TurnRow]


class TopicTurns:
    """One topic's loaded turn index: ``turns[i]`` is BM25 document ``i`` and row ``i`` of ``vectors``
    (a float32 numpy array ``(len(turns), dim)``, or None without vectors)."""

    def __init__(self, turns: list[Turn], retriever, tokenizer, vectors) -> None:  # noqa: ANN001 - bm25s, numpy
        self.turns = turns
        self.retriever = retriever
        self.tokenizer = tokenizer
        self.vectors = vectors

    def lexical(self, text: str, k: int) -> list[tuple[Turn, float]]:
        """Up to ``k`` turns by BM25 score (> 0), best first."""
        from bm25s.tokenization import Tokenized

        if not self.turns:
            return []
        ids = self.tokenizer.tokenize([text], update_vocab=False, return_as="ids", show_progress=False)
        if not ids or not ids[0]:
            return []
        docs, scores = self.retriever.retrieve(Tokenized(ids=ids, vocab=self.tokenizer.get_vocab_dict()),
                                               k=min(k, len(self.turns)), show_progress=False)
        return [(self.turns[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def dense(self, query, k: int) -> list[tuple[Turn, float]]:  # noqa: ANN001 - a unit-norm vector
        """Up to ``k`` turns by cosine similarity to ``query`` (unit norm, the index's size), best first;
        ``[]`` without vectors or for a query of another size."""
        import numpy as np

        if self.vectors is None or not len(self.turns) or self.vectors.shape[1] != len(query):
            return []
        sims = self.vectors @ np.asarray(query, dtype=np.float32)
        order = np.argsort(-sims, kind="stable")[:k]
        return [(self.turns[int(i)], float(sims[int(i)])) for i in order]


class TurnIndex:
    """The per-topic turn indexes of one data home; see the module doc.

    Args:
        home: the data home (transcripts read from ``home.transcripts``; indexes under ``home.turn_index``).
        settings: ``embedding_model`` names the vectors (a manifest of another model has none usable).
    """

    def __init__(self, home: DataHome, settings: Settings) -> None:
        self.home = home
        self.settings = settings
        self.root = home.turn_index

    def fingerprint(self, topic: str, index: TopicIndex) -> tuple[str, list[tuple[str, str]]]:
        """``(hash, [(source id, note path), …])`` of ``topic``'s published notes and their transcripts."""
        entry = index.topics.get(topic)
        notes = sorted((n.source_id, n.path) for n in (entry.notes if entry else []))
        digest = hashlib.sha256(f"v{TURN_VERSION}\n".encode())
        for source_id, path in notes:
            try:
                st = os.stat(self.home.transcript_path(source_id))
                stamp = f"{st.st_size}\0{st.st_mtime_ns}"
            except OSError:
                stamp = "-"
            digest.update(f"{source_id}\0{path}\0{stamp}\n".encode())
        return digest.hexdigest(), notes

    def load(self, topic: str, index: TopicIndex) -> TopicTurns | None:
        """``topic``'s index when it is current (fingerprint and model match), else None; reads only."""
        return self._load(topic, self.fingerprint(topic, index)[0])

    def _manifest(self, topic: str) -> _Manifest | None:
        from memctl.state_file import StateFileError, read_state

        try:
            return read_state(self.root / topic / MANIFEST, _Manifest)
        except StateFileError:
            return None

    def _load(self, topic: str, fingerprint: str) -> TopicTurns | None:
        import bm25s
        import numpy as np
        from bm25s.tokenization import Tokenizer

        directory = self.root / topic
        manifest = self._manifest(topic)
        if manifest is None or manifest.version != TURN_VERSION or manifest.fingerprint != fingerprint:
            return None
        turns = [Turn(r.source_id, r.note, r.index, r.excerpt) for r in manifest.turns]
        vectors = None
        try:
            if turns:
                retriever = bm25s.BM25.load(str(directory), mmap=True, show_progress=False)
                tokenizer = Tokenizer(stopwords="en")
                tokenizer.load_vocab(str(directory))
            else:
                retriever = tokenizer = None
            if (manifest.dim and manifest.model == self.settings.embedding_model
                    and manifest.byteorder == sys.byteorder):
                flat = np.fromfile(directory / VECTORS, dtype=np.float32)
                if flat.size == len(turns) * manifest.dim:
                    vectors = flat.reshape(len(turns), manifest.dim)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # swapped mid-read or torn: no turn hits this time
        return TopicTurns(turns, retriever, tokenizer, vectors)

    def refresh(self, index: TopicIndex, embed=None) -> int:  # noqa: ANN001 - Callable[[list[str]], list[vector]]
        """Rebuild every topic whose fingerprint changed (and drop the indexes of topics no longer there);
        returns how many topics were rebuilt. ``embed`` (texts → unit-norm vectors) makes the dense rows;
        turns embedded before with the same model keep their vector. A failing ``embed`` (any exception
        it raises) leaves that topic without vectors.

        Raises:
            OSError: the index directory cannot be written.
        """
        rebuilt = 0
        if self.root.is_dir():
            for stale in self.root.iterdir():
                if stale.is_dir() and not stale.name.startswith(".") and stale.name not in index.topics:
                    shutil.rmtree(stale, ignore_errors=True)
        for topic in index.slugs:
            fingerprint, notes = self.fingerprint(topic, index)
            manifest = self._manifest(topic)
            if manifest is not None and manifest.version == TURN_VERSION and manifest.fingerprint == fingerprint:
                continue
            self.build(topic, fingerprint, notes, embed)
            rebuilt += 1
        return rebuilt

    def build(self, topic: str, fingerprint: str, notes: list[tuple[str, str]], embed=None) -> None:  # noqa: ANN001
        """Cut ``notes``' transcripts into turns, index them (BM25 and, with ``embed``, vectors) and swap the
        topic's directory in; see :meth:`refresh`."""
        import bm25s
        import numpy as np
        from bm25s.tokenization import Tokenizer

        turns: list[Turn] = []
        texts: list[str] = []
        for source_id, note in notes:
            try:
                transcript = self.home.transcript_path(source_id).read_text(encoding="utf-8")
            except OSError:
                continue  # a note whose transcript is gone (purged, or published before transcripts were kept)
            for number, text in enumerate(split_turns(transcript), start=1):
                turns.append(Turn(source_id, note, number, excerpt_of(text)))
                texts.append(text)
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        vectors = self._vectors(topic, texts, keys, embed) if texts else None
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{topic}.", dir=self.root))
        try:
            if texts:
                tokenizer = Tokenizer(stopwords="en")
                retriever = bm25s.BM25()
                retriever.index(tokenizer.tokenize(texts, return_as="tuple", show_progress=False), show_progress=False)
                retriever.save(str(tmp), show_progress=False)
                tokenizer.save_vocab(str(tmp))
            dim = 0
            if vectors is not None:
                dim = int(vectors.shape[1])
                np.ascontiguousarray(vectors, dtype=np.float32).tofile(tmp / VECTORS)
            (tmp / MANIFEST).write_text(json.dumps({
                "version": TURN_VERSION, "fingerprint": fingerprint, "model": self.settings.embedding_model,
                "byteorder": sys.byteorder, "dim": dim,
                "turns": [{"source_id": t.source_id, "note": t.note, "index": t.index, "excerpt": t.excerpt,
                           "key": key} for t, key in zip(turns, keys)]}), encoding="utf-8")
            final = self.root / topic
            old = None
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{topic}.old.", dir=self.root))
                os.replace(final, old / "index")
            os.replace(tmp, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _vectors(self, topic: str, texts: list[str], keys: list[str], embed):  # noqa: ANN001, ANN202
        """``(len(texts), dim)`` float32 rows; vectors of unchanged texts come from the topic's current file."""
        import numpy as np

        if embed is None:
            return None
        known: dict[str, object] = {}
        old = self._manifest(topic)
        if old is not None and old.dim and old.model == self.settings.embedding_model and old.byteorder == sys.byteorder:
            try:
                flat = np.fromfile(self.root / topic / VECTORS, dtype=np.float32).reshape(-1, old.dim)
                hashes = [row.key for row in old.turns]
                known = dict(zip(hashes, flat)) if len(hashes) == len(flat) else {}
            except (OSError, ValueError):
                known = {}
        missing = [i for i, key in enumerate(keys) if key not in known]
        try:
            fresh = embed([texts[i] for i in missing]) if missing else []
        except Exception:  # noqa: BLE001 - no embedding model: the topic keeps its BM25 turns only
            return None
        rows = dict(zip((keys[i] for i in missing), fresh))
        try:
            matrix = np.asarray([rows[k] if k in rows else known[k] for k in keys], dtype=np.float32)
        except ValueError:
            return None  # rows of different sizes (the model behind the name changed): rebuilt next time whole
        return matrix

    def search(self, question: str, query, topics: list[str], index: TopicIndex,  # noqa: ANN001
               depth: int) -> tuple[list[tuple[Turn, float]], list[tuple[Turn, float]]]:
        """``(BM25 turns, dense turns)`` over ``topics``, each up to ``depth`` best first; ``query`` the
        question's unit-norm vector (None: no dense list). Topics without a current index add nothing."""
        lexical: list[tuple[Turn, float]] = []
        dense: list[tuple[Turn, float]] = []
        for topic in topics:
            loaded = self.load(topic, index)
            if loaded is None:
                continue
            lexical.extend(loaded.lexical(question, depth))
            if query is not None:
                dense.extend(loaded.dense(query, depth))
        lexical.sort(key=lambda pair: (-pair[1], pair[0].note, pair[0].index))
        dense.sort(key=lambda pair: (-pair[1], pair[0].note, pair[0].index))
        return lexical[:depth], dense[:depth]


__all__ = ["EXCERPT_CHARS", "TURN_CHARS", "Turn", "TurnIndex", "TopicTurns", "excerpt_of", "split_turns"]
