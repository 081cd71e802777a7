"""Dense note scores with late interaction at sentence level: whole-text cosine plus the best sentence's.

A note's dense score for a question (:func:`dense_scores`) is::

    (1 - share) * cos(q, note) + share * max over the note's sentences s of cos(q, s)

The whole-text vector of a pooled embedding averages everything a note says;
a question about one of its points lands between that point and the rest. The
second term is late interaction over several vectors per document (ColBERT's
MaxSim, Khattab & Zaharia, SIGIR 2020, at the granularity of sentences rather
than tokens; max-passage scoring, Dai & Callan, SIGIR 2019): the sentence
that says what the question asks is matched on its own. The whole-text term
keeps the note's overall subject in the score, so a stray sentence of another
note does not win alone. ``share`` is ``Settings.fusion_dense_sentence_share``
(0..1; 0 gives the whole-text cosine alone, as before this rule). Sentences:
:func:`memctl.catalog.topic_profiles.sentences`; their vectors come from the
same embedding model and are cached with the topic profiles
(:class:`memctl.catalog.topic_profiles.TopicProfiles`), embedded once per
sentence at ingest.

Measured on the quality fixture with WordLlama weights: ``docs/benchmarks.md`` ("Late interaction at sentence level").
"""

from __future__ import annotations

from operator import mul
from typing import Any


def _dot(a, b) -> float:  # noqa: ANN001 - float32 arrays of one length
    return sum(map(mul, a, b))


def dense_scores(vectors: Any, share: float) -> dict[str, float]:
    """Note store path → dense score (see the module doc), −1..1, for every note of ``vectors``; a note
    without sentence vectors scores its whole-text cosine.

    Args:
        vectors: the question's and the notes' vectors, a :class:`memctl.catalog.topic_profiles.NoteVectors`
            (not imported: topic_profiles imports this module).
        share: weight of the best sentence's cosine, 0..1.

    Raises:
        ValueError: ``share`` outside 0..1.
    """
    if not 0 <= share <= 1:
        raise ValueError(f"the sentence share must be within 0..1, got {share}")
    return {path: note_score(vectors.query, whole, parts, share) for path, (whole, parts) in vectors.notes.items()}


def note_score(query, whole, parts, share: float) -> float:  # noqa: ANN001 - float32 arrays of one length
    """One note's dense score (see the module doc): ``query``, ``whole`` and each of ``parts`` unit vectors;
    the whole-text cosine when ``parts`` is empty or ``share`` is 0."""
    cosine = _dot(query, whole)
    if share <= 0 or not parts:
        return cosine
    return (1 - share) * cosine + share * max(_dot(query, part) for part in parts)


__all__ = ["dense_scores", "note_score"]
