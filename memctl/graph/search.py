"""Search Cognee datasets; hits carry the note they came from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from memctl.graph.configure import quiet, require_configured
from memctl.graph.errors import GraphConfigError, GraphMemoryError, validate_dataset_name
from memctl.graph.plain_text import restore

__all__ = ["SearchHit", "search"]


@dataclass
class SearchHit:
    """One search result, normalized.

    Attributes:
        dataset: dataset name the hit came from.
        text: chunk text (CHUNKS) or the generated answer (GRAPH_COMPLETION),
            with special-token text as the note has it (:func:`memctl.graph.plain_text.restore`).
        document_name: Cognee's data item name = the note's file stem (the
            source id), or None for generated answers.
        source_uri: ``file://`` URI of the note, or None.
        score: vector distance as Cognee reports it (lower is closer), or None.
    """

    dataset: str
    text: str
    document_name: str | None = None
    source_uri: str | None = None
    score: float | None = None


@quiet
async def search(query: str, datasets: list[str], *, kind: Literal["chunks", "graph_completion"] = "chunks",
                 top_k: int = 10) -> list[SearchHit]:
    """Search ``datasets`` (only those — access control scopes it).

    Args:
        query: natural-language query.
        datasets: dataset names; must be non-empty.
        kind: ``chunks`` — the note chunks nearest to the query, with
            provenance (no LLM call, one embedding); ``graph_completion`` —
            Cognee's graph-context answer (one LLM call).
        top_k: maximum results per dataset.

    Returns:
        :class:`SearchHit` list in Cognee's order.

    Raises:
        GraphConfigError, InvalidDatasetName, GraphMemoryError (search failed).
    """
    require_configured()
    names = [validate_dataset_name(d) for d in datasets]
    if not names:
        raise GraphConfigError("search needs at least one dataset")
    import cognee
    from cognee import SearchType

    qtype = SearchType.CHUNKS if kind == "chunks" else SearchType.GRAPH_COMPLETION
    try:
        raw = await cognee.search(query, query_type=qtype, datasets=names, top_k=top_k)
    except Exception as exc:
        raise GraphMemoryError(f"search in {', '.join(names)} failed: {type(exc).__name__}: {exc}") from exc
    return normalize_hits(raw)


def normalize_hits(raw: Any) -> list[SearchHit]:
    """Cognee's search answer (a list of ``{"dataset_name", "search_result"}`` groups, or bare
    results) as :class:`SearchHit` rows."""
    hits: list[SearchHit] = []
    for group in raw or []:
        if isinstance(group, dict) and "search_result" in group:
            ds_name = str(group.get("dataset_name") or "")
            results = group.get("search_result") or []
        else:
            ds_name, results = "", [group]
        if not isinstance(results, list):
            results = [results]
        for r in results:
            if isinstance(r, dict):
                meta = r.get("external_metadata")
                if isinstance(meta, str):
                    try:
                        meta = json.loads(meta)
                    except ValueError:
                        meta = None
                uri = ((meta or {}).get("_cognee") or {}).get("source_uri") if isinstance(meta, dict) else None
                score = r.get("score")
                hits.append(SearchHit(dataset=ds_name, text=restore(str(r.get("text", ""))),
                                      document_name=r.get("document_name"), source_uri=uri,
                                      score=float(score) if isinstance(score, (int, float)) else None))
            else:
                hits.append(SearchHit(dataset=ds_name, text=restore(str(r))))
    return hits
