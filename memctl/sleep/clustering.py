"""Cluster related user memories: same scope, same subject.

Memories merge only within one scope (``user/global``, one topic, one
session). Inside a scope two memories are *related* when their subject words
overlap: content words (lowercased, 3+ characters, not English stop words —
bm25s's list plus a few, and the words that say where a memory applies — repo, project,
codebase — not what it is about) weighted by inverse document frequency within the
scope, ``idf(w) = ln(1 + N / df(w))``, so words every memory uses ("runs",
"service") count little and the names of systems count a lot. Related means
an IDF-weighted overlap coefficient ``Σidf(A∩B) / min(Σidf(A), Σidf(B))`` of
at least 0.4 with at least two shared words — or any shared word when either
memory has at most three content words (short preferences such as "use
pnpm"). Clusters are the connected components of that relation (union-find),
so notes about the same system end up together even when they only share
words pairwise. Deterministic: members sorted by path, clusters by their
first member.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass

from memctl.store.user_memory import UserMemoryFile

MIN_OVERLAP = 0.4
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]{3,}")


def _bm25s_stopwords() -> tuple[str, ...]:
    """bm25s' English stopword list (``bm25s/stopwords.py``, ``STOPWORDS_EN``), read from that one file:
    the package's ``__init__`` imports numpy (~0.2 s cold), which word matching never uses. Falls back to
    the ordinary import if the file is not where the installed package keeps it.

    Raises:
        ImportError: bm25s is not installed.
    """
    import importlib.util

    package = importlib.util.find_spec("bm25s")  # locates the package without running its __init__
    folder = package.submodule_search_locations if package else None
    if folder:
        spec = importlib.util.spec_from_file_location("memctl_bm25s_stopwords", f"{list(folder)[0]}/stopwords.py")
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
                return tuple(module.STOPWORDS_EN)
            except (OSError, AttributeError):
                pass
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)


def _stopwords() -> frozenset[str]:
    return frozenset(_bm25s_stopwords()) | {
        "use", "uses", "using", "always", "never", "prefer", "prefers", "should", "now", "here", "there", "also",
        "just", "from", "our", "we", "you", "your", "all", "any", "been", "has", "have", "when", "which", "who",
        # Where a memory applies, not what it is about: two short memories of one topic that share only
        # "repo" ("Use pnpm in this repo", "Run pytest -x in the repo") are not on the same subject.
        "repo", "repos", "repository", "repositories", "project", "projects", "codebase"}


_STOP = _stopwords()


def subject_words(text: str) -> frozenset[str]:
    """The content words of a memory (see the module doc)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP)


def related(a: frozenset[str], b: frozenset[str], idf: dict[str, float] | None = None) -> bool:
    """True when two memories' subject words overlap enough (see the module doc); ``idf`` None weighs all 1."""
    shared = a & b
    if not shared:
        return False
    if min(len(a), len(b)) <= 3:
        return True
    if len(shared) < 2:
        return False

    def weight(words: frozenset[str]) -> float:
        return sum(idf.get(w, 1.0) for w in words) if idf else float(len(words))

    return weight(shared) / min(weight(a), weight(b)) >= MIN_OVERLAP


@dataclass(frozen=True)
class Cluster:
    """Related memories of one scope; ``key`` is a hash of the member paths and shas (stable id)."""

    scope: str
    members: tuple[UserMemoryFile, ...]

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        for m in self.members:
            digest.update(f"{m.path}\0{m.sha}\n".encode())
        return digest.hexdigest()


def cluster_memories(memories: list[UserMemoryFile]) -> list[Cluster]:
    """All clusters (singletons included), grouped by scope then subject."""
    by_scope: dict[str, list[UserMemoryFile]] = {}
    for memory in sorted(memories, key=lambda m: m.path):
        by_scope.setdefault(memory.scope, []).append(memory)
    clusters: list[Cluster] = []
    for scope, members in sorted(by_scope.items()):
        words = [subject_words(m.text) for m in members]
        df: dict[str, int] = {}
        for bag in words:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        idf = {w: math.log(1 + len(members) / n) for w, n in df.items()}
        parent = list(range(len(members)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                if related(words[i], words[j], idf):
                    parent[find(j)] = find(i)
        groups: dict[int, list[UserMemoryFile]] = {}
        for i, member in enumerate(members):
            groups.setdefault(find(i), []).append(member)
        clusters.extend(Cluster(scope, tuple(group)) for group in groups.values())
    return sorted(clusters, key=lambda c: c.members[0].path)
