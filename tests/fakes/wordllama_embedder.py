"""Real embedding weights for the fake model server: WordLlama's ``l2_supercat`` model, 256 dimensions.

WordLlama (``wordllama`` on PyPI, pinned in ``constraints.txt``) ships the
``l2_supercat`` weights (``weights/l2_supercat_256.safetensors``) and the
tokenizer configuration (``tokenizers/l2_supercat_tokenizer_config.json``)
inside its wheel. Its loader looks for the tokenizer in the package, then in
``<cache_dir>/tokenizers/``, then downloads from Hugging Face; this module
copies the bundled tokenizer JSON into a private cache directory's
``tokenizers/`` and loads with ``disable_download=True``, so a missing file is
a ``FileNotFoundError`` and never a network request.

Vectors are WordLlama's token embeddings average-pooled and L2-normalised
(``WordLlamaInference.embed(norm=True)``): a real, if small, semantic space,
used by the quality benchmark so that no quality figure rests on the
concept-group embedder (:func:`tests.fakes.ollama_server.embed_text`).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

CONFIG = "l2_supercat"
DIMENSIONS = 256  # the model's native size; memctl's ``embedding_dimensions`` must match
TOKENIZER_FILE = f"{CONFIG}_tokenizer_config.json"

_lock = threading.Lock()
_model = None


def bundled_file(kind: str, name: str) -> Path:
    """The path of a file shipped in the wordllama wheel (``kind``: ``weights`` or ``tokenizers``).

    Raises:
        FileNotFoundError: the installed wheel does not hold it.
    """
    import wordllama

    path = Path(wordllama.__file__).resolve().parent / kind / name
    if not path.is_file():
        raise FileNotFoundError(f"wordllama's wheel holds no {kind}/{name} (installed: {path.parent})")
    return path


def load(cache_dir: Path | None = None):  # noqa: ANN201 - a wordllama.WordLlamaInference
    """Load ``l2_supercat`` at :data:`DIMENSIONS` with downloads disabled (the tokenizer JSON copied into
    ``<cache_dir>/tokenizers/`` first; a fresh temporary directory when ``cache_dir`` is None).

    Raises:
        FileNotFoundError: the wheel lacks the weights or the tokenizer (never a download instead).
    """
    from wordllama import WordLlama

    cache = Path(cache_dir) if cache_dir is not None else Path(tempfile.mkdtemp(prefix="memctl-wordllama-"))
    (cache / "tokenizers").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundled_file("tokenizers", TOKENIZER_FILE), cache / "tokenizers" / TOKENIZER_FILE)
    bundled_file("weights", f"{CONFIG}_{DIMENSIONS}.safetensors")
    return WordLlama.load(config=CONFIG, cache_dir=cache, dim=DIMENSIONS, disable_download=True)


def model():  # noqa: ANN201
    """The process's one loaded model (loaded on first use, thread-safe)."""
    global _model
    with _lock:
        if _model is None:
            _model = load()
        return _model


def embed_texts(texts: list[str], dim: int = DIMENSIONS) -> list[list[float]]:
    """Unit-norm vectors (``dim`` floats each, ``dim`` <= 256: a prefix, renormalised) of ``texts``, in order.

    Raises:
        ValueError: ``dim`` outside 1..256.
    """
    import math

    if not 0 < dim <= DIMENSIONS:
        raise ValueError(f"WordLlama {CONFIG} gives at most {DIMENSIONS} dimensions, asked {dim}")
    if not texts:
        return []
    rows = model().embed([t if t.strip() else " " for t in texts], norm=True)
    out = []
    for row in rows:
        values = [float(x) for x in row[:dim]]
        norm = math.sqrt(sum(x * x for x in values))
        out.append([x / norm for x in values] if norm > 0 else values)
    return out


__all__ = ["CONFIG", "DIMENSIONS", "bundled_file", "embed_texts", "load", "model"]
