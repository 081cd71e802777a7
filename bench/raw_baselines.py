"""The raw-history baselines of ``bench.bench_quality``: what a user could do without memctl — search the raw sessions.

Each session of an OpenCode 1.18 database (the ``session`` and ``part``
tables; a subagent's session is folded into its root parent's, as memctl
notes them) becomes one document: its title, then every text part (user and
assistant), tool call input command and tool output, in the parts' order.
Three rankings of those documents per question:

* ``bm25``: Okapi BM25 (``bm25s``, English stop words, as memctl's notes search);
* ``dense``: cosine similarity of embeddings from the same ``/api/embed``
  server and model memctl uses (documents cut to :data:`DENSE_CHARS`
  characters: an embedding model's input window);
* ``rrf``: reciprocal rank fusion of both (k = 60, Cormack et al., SIGIR 2009).
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

DENSE_CHARS = 2000
RRF_K = 60


@dataclass(frozen=True)
class RawSession:
    """One root session's document: OpenCode session id and the concatenated text."""

    session_id: str
    text: str


def read_sessions(db: Path) -> list[RawSession]:
    """The root sessions of an OpenCode 1.18 database, each with its subagents' text folded in. The file is
    read from a temporary copy: even a read-only SQLite connection to a WAL database creates ``-wal`` and
    ``-shm`` files beside it, and the fixture must stay untouched.

    Raises:
        sqlite3.Error: not an OpenCode 1.18 database.
    """
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "opencode.db"
        shutil.copyfile(db, copy)
        return _read_copy(copy)


def _read_copy(db: Path) -> list[RawSession]:
    conn = sqlite3.connect(db)
    try:
        parents = dict(conn.execute("SELECT id, parent_id FROM session"))
        titles = dict(conn.execute("SELECT id, title FROM session"))
        parts = conn.execute("SELECT session_id, data FROM part ORDER BY session_id, time_created, id").fetchall()
    finally:
        conn.close()

    def root(sid: str) -> str:
        seen = set()
        while parents.get(sid) and sid not in seen:
            seen.add(sid)
            sid = parents[sid]
        return sid

    texts: dict[str, list[str]] = {sid: [titles[sid] or ""] for sid in parents if not parents[sid]}
    for sid, data in parts:
        try:
            part = json.loads(data)
        except (TypeError, ValueError):
            continue
        pieces = []
        if part.get("type") == "text":
            pieces.append(part.get("text") or "")
        elif part.get("type") == "tool":
            state = part.get("state") or {}
            pieces += [str((state.get("input") or {}).get("command") or ""), str(state.get("output") or "")]
        texts.setdefault(root(sid), []).extend(p for p in pieces if p)
    return [RawSession(sid, "\n".join(chunks)) for sid, chunks in sorted(texts.items())]


class RawBaselines:
    """BM25, dense and their RRF over raw sessions; ``embed(texts) -> unit vectors`` is memctl's embedding model."""

    def __init__(self, sessions: list[RawSession], embed) -> None:  # noqa: ANN001 - a callable
        import bm25s
        from bm25s.tokenization import Tokenizer

        self.ids = [s.session_id for s in sessions]
        self.embed = embed
        self.tokenizer = Tokenizer(stopwords="en")
        self.bm25 = bm25s.BM25()
        self.bm25.index(self.tokenizer.tokenize([s.text for s in sessions], return_as="tuple", show_progress=False),
                        show_progress=False)
        self.vectors = embed([s.text[:DENSE_CHARS] for s in sessions])

    def bm25_ranked(self, question: str) -> list[str]:
        """Session ids by BM25 score (> 0 only), best first."""
        from bm25s.tokenization import Tokenized

        ids = self.tokenizer.tokenize([question], update_vocab=False, return_as="ids", show_progress=False)
        if not ids or not ids[0]:
            return []
        docs, scores = self.bm25.retrieve(Tokenized(ids=ids, vocab=self.tokenizer.get_vocab_dict()),
                                          k=len(self.ids), show_progress=False)
        return [self.ids[int(d)] for d, s in zip(docs[0], scores[0]) if s > 0]

    def dense_ranked(self, question: str) -> list[str]:
        """Session ids by cosine similarity to the question's embedding, best first."""
        query = self.embed([question])[0]
        sims = [sum(a * b for a, b in zip(query, v)) for v in self.vectors]
        return [self.ids[i] for i in sorted(range(len(sims)), key=lambda i: -sims[i])]

    def ranked(self, question: str) -> dict[str, list[str]]:
        """``{"bm25", "dense", "rrf"}`` → session ids best first."""
        lists = {"bm25": self.bm25_ranked(question), "dense": self.dense_ranked(question)}
        fused: dict[str, float] = {}
        for ranking in lists.values():
            for rank, sid in enumerate(ranking, start=1):
                fused[sid] = fused.get(sid, 0.0) + 1.0 / (RRF_K + rank)
        return {**lists, "rrf": sorted(fused, key=lambda sid: (-fused[sid], sid))}


def server_embedder(url: str, model: str, dimensions: int):  # noqa: ANN201 - a callable
    """``embed(texts) -> unit-norm vectors`` through ``POST {url}/api/embed`` (the server memctl uses)."""
    import httpx

    def embed(texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), 64):
            reply = httpx.post(f"{url.rstrip('/')}/api/embed", timeout=120,
                               json={"model": model, "input": texts[start:start + 64], "dimensions": dimensions})
            reply.raise_for_status()
            for row in reply.json()["embeddings"]:
                norm = math.sqrt(sum(x * x for x in row)) or 1.0
                out.append([x / norm for x in row])
        return out

    return embed


__all__ = ["DENSE_CHARS", "RRF_K", "RawBaselines", "RawSession", "read_sessions", "server_embedder"]
