"""Reciprocal rank fusion of ranked hit lists (the graph/vector list and the BM25 notes list).

Rule (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms
Condorcet and individual Rank Learning Methods", SIGIR 2009): a document's
fused score is ``sum over lists of weight_list / (k + rank_in_list)``, ranks
from 1; a list that does not hold the document adds nothing. ``k`` (default
60, the paper's constant) and the weights come from
:class:`memctl.config.Settings` (``fusion_k``, ``fusion_graph_weight``,
``fusion_notes_weight``).

Evidence weighting (memctl's rule, on top of the paper's fixed list
weights): a hit of the BM25 notes list adds ``fusion_notes_weight ×
coverage ** fusion_notes_coverage_power / (k + rank)``, where ``coverage`` is
the share of the question's content words (function words such as "how",
"did", "we" removed) that this hit's note holds
(:func:`memctl.catalog.note_search.coverage`; :func:`evidence_weight`, applied by
:func:`memctl.ask.retrieval.fuse` through ``evidence``). RRF sees ranks only,
and with k = 60 the graph's first and second ranks differ by under 2 %: a
BM25 hit that matched one incidental word of a paraphrase would lift any note
the graph put second above the graph's semantic match, as much as a hit that
matched the whole question. With the default power 3 a hit holding a quarter
of the question's words counts 1.6 % of a full hit, half of them 12.5 %,
three quarters 42 %, all of them 100 %; a question with no content word keeps
the full weight, and power 0 gives plain RRF.

Deduplication: a document is one source note (its store path). Within a list
only its first (best) occurrence counts — the graph returns chunks, several
of one note — and across lists the fused entry keeps the text of the list
where it ranks best (a focused chunk beats the whole note on a tie, as the
graph list is given first). Ties on the fused score go to the newer note
(its date, ``YYYY-MM-DD``), then to the store path, so the order is total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, TypeVar

DEFAULT_K = 60


H = TypeVar("H")


@dataclass(frozen=True)
class FusedRanks:
    """A fused hit's ranks: ``ranks`` list name → 1-based rank (absent: not in that list), ``score`` fused."""

    ranks: Mapping[str, int]
    score: float


def dedupe(hits: Sequence[H]) -> list[H]:
    """``hits`` keeping the first hit of each source path (order kept)."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        path = hit.source.path  # type: ignore[attr-defined]
        if path not in seen:
            seen.add(path)
            out.append(hit)
    return out


def reciprocal_rank_fusion(lists: Mapping[str, Sequence[H]], weights: Mapping[str, float],
                           k: int = DEFAULT_K, evidence: Mapping[str, Mapping[str, float]] | None = None,
                           ) -> list[tuple[H, FusedRanks]]:
    """Fuse ranked lists (best first) of hits with a ``source`` (``path``, ``date``); see the module doc.

    Args:
        lists: list name (e.g. ``graph``, ``notes``) → hits best first; duplicates of a path are dropped.
        weights: list name → weight (>= 0; a missing name weighs 1.0).
        k: the RRF constant (>= 1).
        evidence: list name → source path → factor (0..1) multiplying that hit's contribution
            (:func:`evidence_weight`); a missing list or path counts 1.0.

    Returns:
        ``[(hit, FusedRanks)]`` best first, one per source path.

    Raises:
        ValueError: ``k`` < 1, a negative weight, or an evidence factor outside 0..1.
    """
    evidence = evidence or {}
    if k < 1:
        raise ValueError(f"fusion k must be >= 1, got {k}")
    if any(w < 0 for w in weights.values()):
        raise ValueError(f"fusion weights must be >= 0, got {dict(weights)}")
    if any(not 0 <= f <= 1 for factors in evidence.values() for f in factors.values()):
        raise ValueError("evidence factors must be within 0..1")
    best: dict[str, tuple[int, H]] = {}  # path → (best rank over lists, hit from that list)
    ranks: dict[str, dict[str, int]] = {}
    scores: dict[str, float] = {}
    for name, hits in lists.items():
        weight = weights.get(name, 1.0)
        factors = evidence.get(name, {})
        for rank, hit in enumerate(dedupe(hits), start=1):
            path = hit.source.path  # type: ignore[attr-defined]
            ranks.setdefault(path, {})[name] = rank
            scores[path] = scores.get(path, 0.0) + weight * factors.get(path, 1.0) / (k + rank)
            if path not in best or rank < best[path][0]:
                best[path] = (rank, hit)
    order = sorted(scores, key=lambda p: (-scores[p], _newest_first(best[p][1].source.date), p))  # type: ignore[attr-defined]
    return [(best[p][1], FusedRanks(ranks=dict(ranks[p]), score=scores[p])) for p in order]


def evidence_weight(coverage: float, power: float) -> float:
    """A hit's evidence factor: ``coverage ** power`` (0..1; see the module doc).

    Args:
        coverage: share of the question's content words the hit holds, clamped to 0..1.
        power: how sharply weak evidence is discounted (>= 0; 0: always 1.0).

    Raises:
        ValueError: a negative ``power``.
    """
    if power < 0:
        raise ValueError(f"the evidence power must be >= 0, got {power}")
    return min(max(coverage, 0.0), 1.0) ** power


def _newest_first(date: str) -> tuple[int, ...]:
    """Sort key putting later ``YYYY-MM-DD`` dates first and undated notes last."""
    digits = [int(part) for part in (date or "").split("-") if part.isdigit()]
    return tuple(-d for d in digits) + (0,) if digits else (1,)


__all__ = ["DEFAULT_K", "FusedRanks", "dedupe", "evidence_weight", "reciprocal_rank_fusion"]
