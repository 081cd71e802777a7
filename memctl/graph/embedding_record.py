"""Which embedding model made the graph's vectors, so a later run with another one is refused, not mixed in.

Cognee's vector collections (LanceDB) hold the chunks' embeddings. A question embedded by another model —
a changed ``embedding_model``, or the embedded backend's WordLlama home opened without
``MEMCTL_MODEL_BACKEND=embedded`` — is compared with vectors of a different space: with the same
dimensions nothing fails and retrieval quietly returns noise; with other dimensions Cognee fails deep in
a search or a cognify. memctl's own vector caches (topic profiles, turn index) are keyed by the model and
rebuilt, but the graph is not: rebuilding it means re-cognifying every note.

So the first successful cognify of a data home records the model here (``graph_embedding.json``:
model, dimensions, backend), and every later use of the graph compares: :func:`embedding_mismatch` gives
the one line that says what the home was built with and what to set. A home built before this record
existed gets its record at its next successful cognify (nothing to compare until then).
"""

from __future__ import annotations

from memctl.config import Settings
from memctl.data_home import DataHome
from memctl.state_file import StateModel, read_state, write_state

__all__ = ["EmbeddingRecord", "embedding_mismatch", "record_embedding"]


class EmbeddingRecord(StateModel):
    """``graph_embedding.json``: the embedding model (``Settings.embedding_model``), its dimensions and the
    model backend (``Settings.model_backend``) the graph's vectors were made with."""

    model: str
    dimensions: int
    backend: str = "ollama"


def _current(settings: Settings) -> EmbeddingRecord:
    return EmbeddingRecord(model=settings.embedding_model, dimensions=settings.embedding_dimensions,
                           backend=settings.model_backend)


def embedding_mismatch(settings: Settings, home: DataHome) -> str | None:
    """None when the graph's vectors were made by ``settings``' embedding model (or nothing is recorded
    yet); else one line naming what the home was built with, what the settings say and what to set.

    Raises:
        memctl.state_file.StateFileError: ``graph_embedding.json`` is damaged (exit 7, the file named).
    """
    recorded = read_state(home.graph_embedding, EmbeddingRecord,
                          fix="delete it; the next ingest or sleep writes it again")
    if recorded is None:
        return None
    now = _current(settings)
    if (recorded.model, recorded.dimensions) == (now.model, now.dimensions):
        return None
    if recorded.backend == "embedded" and now.backend != "embedded":
        fix = "run with MEMCTL_MODEL_BACKEND=embedded (or model_backend = \"embedded\" in the config file)"
    else:
        fix = (f"set embedding_model = {recorded.model!r} and embedding_dimensions = {recorded.dimensions} "
               f"(MEMCTL_EMBEDDING_MODEL, MEMCTL_EMBEDDING_DIMENSIONS), or use a new data home for the new model")
    return (f"the graph in {home.root} was built with embedding model {recorded.model!r} ({recorded.dimensions} "
            f"dimensions, {recorded.backend} backend) but the settings say {now.model!r} ({now.dimensions}); "
            f"its vectors cannot be compared across models: {fix}")


def record_embedding(settings: Settings, home: DataHome) -> None:
    """Write ``graph_embedding.json`` for ``settings`` unless it exists; call after a successful cognify.

    Raises:
        OSError: the data home is not writable (the file is then untouched).
    """
    if not home.graph_embedding.exists():
        write_state(home.graph_embedding, _current(settings))
