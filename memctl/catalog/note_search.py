"""Lexical (BM25) search over the raw notes under ``memory/<topic>/`` — the fallback of retrieval.

When graph/vector search fails or finds nothing, ask still answers from the
notes themselves. Ranking is Okapi BM25 from the ``bm25s`` library (its
tokenizer with English stop words, no stemming). Building an index costs
about 0.2 ms per note, so each topic's index is persisted under
``<home>/index/notes/<topic>/`` with a manifest holding a fingerprint of the
topic's directory (names, sizes, mtimes); a query loads it memory-mapped and
rebuilds only when the notes changed. The index is a cache: deleting it is
always safe.

:func:`coverage` tells how much of a question a lexical match explains: the
share of the question's content terms (bm25s's splitter, minus NLTK's English
function words as bm25s ships them, ``STOPWORDS_EN_PLUS``) that occur in the
matched texts. Hybrid retrieval and the embedding router weigh BM25's
evidence by it: a paraphrase shares few words with its note, and BM25's
best hit for it is then a match on incidental words.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, StrictStr

from memctl.front_matter import read_front_matter, strip_front_matter
from memctl.store import MemoryStore

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
_TERM = re.compile(r"(?u)\b\w\w+\b")  # bm25s's default splitter: the terms its indexes hold


def content_terms(text: str) -> set[str]:
    """The lower-cased BM25 terms of ``text`` that carry content (function words such as "how", "did", "we" removed)."""
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return set(_TERM.findall(text.lower())) - set(STOPWORDS_EN_PLUS)


def coverage(question: str, terms: set[str]) -> float:
    """Share (0..1) of ``question``'s :func:`content_terms` found in ``terms``; 1.0 when it has none (nothing to judge)."""
    wanted = content_terms(question)
    return len(wanted & terms) / len(wanted) if wanted else 1.0


@dataclass(frozen=True)
class NoteHit:
    """One ranked note: its store path, BM25 score (higher is better) and full text."""

    path: str
    score: float
    text: str


def _indexed_text(text: str) -> str:
    """What BM25 indexes of one note: its front-matter ``title`` (see :mod:`memctl.front_matter`), then its body."""
    title = read_front_matter(text).get("title")
    return f"{title if isinstance(title, str) else ''}\n{strip_front_matter(text)}"


class _Manifest(BaseModel):
    """``manifest.json`` of one topic's index as read: its format version, the notes' fingerprint and paths."""

    version: object = None
    fingerprint: object = None
    paths: list[StrictStr]


class _TopicIndex:
    """A loaded BM25 index of one topic: ``paths[i]`` is document ``i``."""

    def __init__(self, retriever, tokenizer, paths: list[str]) -> None:  # noqa: ANN001 - bm25s types
        self.retriever = retriever
        self.tokenizer = tokenizer
        self.paths = paths

    def vocabulary(self) -> set[str]:
        """Every term of the topic's notes."""
        return set(self.tokenizer.get_vocab_dict()) if self.paths else set()

    def query(self, text: str, k: int) -> list[tuple[str, float]]:
        from bm25s.tokenization import Tokenized

        if not self.paths:
            return []
        ids = self.tokenizer.tokenize([text], update_vocab=False, return_as="ids", show_progress=False)
        if not ids or not ids[0]:
            return []
        docs, scores = self.retriever.retrieve(Tokenized(ids=ids, vocab=self.tokenizer.get_vocab_dict()),
                                               k=min(k, len(self.paths)), show_progress=False)
        return [(self.paths[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]


class NoteSearch:
    """BM25 over published notes, per topic, with persisted indexes.

    Args:
        store: the memory store (notes are read through it, so its path policy holds).
        index_dir: ``DataHome.note_index``; created on first build.
    """

    def __init__(self, store: MemoryStore, index_dir: Path) -> None:
        self.store = store
        self.index_dir = Path(index_dir)

    def fingerprint(self, topic: str) -> tuple[str, list[str]]:
        """``(hash of names, sizes and mtimes, sorted note paths)`` of ``memory/<topic>/``."""
        paths = self.store.list(f"memory/{topic}")
        digest = hashlib.sha256()
        for path in paths:
            st = os.stat(self.store.root / path)
            digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return digest.hexdigest(), paths

    def _load(self, topic: str, fingerprint: str) -> _TopicIndex | None:
        import bm25s
        from bm25s.tokenization import Tokenizer

        from memctl.state_file import StateFileError, read_state

        directory = self.index_dir / topic
        try:
            manifest = read_state(directory / MANIFEST, _Manifest)
        except StateFileError:
            return None  # torn or written by hand: rebuild
        if manifest is None or manifest.version != MANIFEST_VERSION or manifest.fingerprint != fingerprint:
            return None
        try:
            retriever = bm25s.BM25.load(str(directory), mmap=True, show_progress=False)
            tokenizer = Tokenizer(stopwords="en")
            tokenizer.load_vocab(str(directory))
            return _TopicIndex(retriever, tokenizer, manifest.paths)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, stale, or swapped mid-read: rebuild

    def build(self, topic: str) -> _TopicIndex:
        """(Re)build and persist the index of one topic; returns it loaded."""
        import bm25s
        from bm25s.tokenization import Tokenizer

        fingerprint, paths = self.fingerprint(topic)
        texts = []
        for path in paths:
            text = self.store.read_text(path)[0]
            texts.append(_indexed_text(text))
        tokenizer = Tokenizer(stopwords="en")
        retriever = bm25s.BM25()
        if texts:
            retriever.index(tokenizer.tokenize(texts, return_as="tuple", show_progress=False), show_progress=False)
        index = _TopicIndex(retriever, tokenizer, paths)
        if texts:
            self._persist(topic, retriever, tokenizer, fingerprint, paths)
        return index

    def _persist(self, topic: str, retriever, tokenizer, fingerprint: str, paths: list[str]) -> None:  # noqa: ANN001
        """Write into a temp dir, then swap it in; a concurrent builder or reader never sees half an index."""
        self.index_dir.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{topic}.", dir=self.index_dir))
        try:
            retriever.save(str(tmp), show_progress=False)
            tokenizer.save_vocab(str(tmp))
            (tmp / MANIFEST).write_text(json.dumps({"version": MANIFEST_VERSION, "fingerprint": fingerprint,
                                                    "paths": paths}), encoding="utf-8")
            final = self.index_dir / topic
            old = None
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{topic}.old.", dir=self.index_dir))
                os.replace(final, old / "index")
            os.replace(tmp, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass  # another process swapped first, or the home is read-only: the in-memory index serves
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def index_for(self, topic: str) -> _TopicIndex:
        """The current index of ``topic`` (loaded, or rebuilt when its notes changed)."""
        fingerprint, _ = self.fingerprint(topic)
        return self._load(topic, fingerprint) or self.build(topic)

    def search(self, query: str, topics: list[str], top_k: int) -> list[NoteHit]:
        """The ``top_k`` best notes for ``query`` across ``topics`` (score > 0 only), best first."""
        ranked: list[tuple[float, str]] = []
        for topic in topics:
            ranked.extend((score, path) for path, score in self.index_for(topic).query(query, top_k))
        ranked.sort(key=lambda pair: (-pair[0], pair[1]))
        hits = []
        for score, path in ranked[:top_k]:
            try:
                hits.append(NoteHit(path=path, score=score, text=self.store.read_text(path)[0]))
            except Exception:  # noqa: BLE001 - a note deleted since indexing is simply not a hit
                continue
        return hits
