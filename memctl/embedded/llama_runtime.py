"""llama.cpp for the embedded backend: the prebuilt CPU library inside the ``llama-cpp-cffi`` wheel.

Why this runtime: llama-cpp-python publishes no Linux wheels on PyPI, and its source build took over half an hour
on a 2-core machine. The ``llama-cpp-cffi`` wheel (PyPI, MIT, tangledgroup/llama-cpp-cffi) carries llama.cpp
already compiled as a CFFI extension, ``llama/_llama_cpp_cpu.*.so``: it installs in seconds. Version 0.4.20 is
pinned (constraints.txt): it is the newest whose library loads with Debian 12's libstdc++ (0.4.21 and later need
GCC 14's ``__cxa_call_terminate``).

The package's ``__init__`` imports transformers and huggingface-hub (its high-level API downloads models), which
memctl neither installs nor wants: it is installed with ``--no-deps`` and only its compiled extension is loaded,
by file path (:func:`load_library`), so nothing of the package's Python code runs. What memctl calls is llama.cpp's
own C API (``llama.h`` of that build): model and context creation, ``llama_chat_apply_template`` with the GGUF's
template, ``llama_tokenize``, ``llama_decode``, the sampler chain (greedy, or top-k/top-p/temperature with a fixed
seed), the grammar sampler, and ``llama_json_schema_to_grammar`` (llama.cpp's own JSON-schema → GBNF converter,
exported by this build).

Errors: :class:`LlamaRuntimeError` (a subclass of ``RuntimeError``) names what is missing or failed.
"""

from __future__ import annotations

import codecs
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import threading
from pathlib import Path
from typing import Any, Iterator

__all__ = ["DISTRIBUTION", "LlamaChat", "LlamaRuntimeError", "json_schema_grammar", "library_path", "load_library"]

DISTRIBUTION = "llama-cpp-cffi"
EXTENSION_NAME = "_llama_cpp_cpu"
TOP_K = 40
TOP_P = 0.95
# Free-text answers only: a 135M model decoding greedily repeats one sentence until its token cap (measured: the
# sample's notes and ask's answer were the same sentence 5-10 times). llama.cpp's repetition penalty over the
# last 64 tokens; 1.1: on a calc.py question 1.0 ran to the cap repeating itself, 1.1 stopped after 86 tokens
# (1.2 and 1.3 drifted further from the facts). JSON answers are left alone (their grammar repeats on purpose).
REPEAT_LAST_N = 64
REPEAT_PENALTY = 1.1

_loaded: tuple[Any, Any] | None = None
_load_lock = threading.Lock()


def _discard_log_line(level: Any, text: Any, user_data: Any) -> None:
    return None


class LlamaRuntimeError(RuntimeError):
    """llama.cpp could not be found, loaded or run (the message names the package or the failing call)."""


def library_path() -> Path | None:
    """The compiled CPU extension of the installed ``llama-cpp-cffi``, or None when it is not installed.

    Found without importing the ``llama`` package (its ``__init__`` imports transformers). The distribution is
    checked by name, so another package that happens to be called ``llama`` is not taken for it.
    """
    try:
        importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    spec = importlib.util.find_spec("llama")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for path in sorted(Path(folder).glob(f"{EXTENSION_NAME}.*.so")):
            return path
    return None


def load_library() -> tuple[Any, Any]:
    """``(lib, ffi)`` of llama.cpp, loaded once per process, with llama.cpp's and ggml's log lines silenced.

    Raises:
        LlamaRuntimeError: the wheel is not installed, or its library does not load on this system.
    """
    global _loaded
    with _load_lock:
        if _loaded is None:
            path = library_path()
            if path is None:
                raise LlamaRuntimeError(f"{DISTRIBUTION} is not installed: pip install --no-deps {DISTRIBUTION}==0.4.20")
            loader = importlib.machinery.ExtensionFileLoader(EXTENSION_NAME, str(path))
            spec = importlib.util.spec_from_file_location(EXTENSION_NAME, path, loader=loader)
            if spec is None:
                raise LlamaRuntimeError(f"cannot load {path}")
            try:
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
            except ImportError as exc:
                raise LlamaRuntimeError(f"{path.name} does not load here ({exc})") from exc
            lib, ffi = module.lib, module.ffi
            # The extension declares this log callback for Python to define: a no-op here, so llama.cpp does not
            # print every tensor it loads on the user's stderr (the package's own definition is in the __init__
            # we do not run).
            ffi.def_extern(name="llama_cpp_cffi_ggml_log_callback")(_discard_log_line)
            lib.llama_log_set(lib.llama_cpp_cffi_ggml_log_callback, ffi.NULL)
            lib.llama_backend_init()
            _loaded = (lib, ffi)
        return _loaded


class LlamaChat:
    """One GGUF chat model and one context on the CPU; calls must be serialized by the caller.

    Args:
        gguf: the model file.
        n_ctx: the context window in tokens (prompt and answer together).
        threads: CPU threads for prompt and generation.

    Raises:
        LlamaRuntimeError: the library is missing, or the model or its context cannot be created.
    """

    lazy_grammar = True  # False: the grammar filters every step's whole vocabulary (for comparison only)
    repeat_penalty = REPEAT_PENALTY  # free-text answers only (1: none)

    def __init__(self, gguf: Path, *, n_ctx: int, threads: int) -> None:
        self.lib, self.ffi = load_library()
        lib, ffi = self.lib, self.ffi
        params = lib.llama_model_default_params()
        self.model = lib.llama_model_load_from_file(str(gguf).encode(), params)
        if self.model == ffi.NULL:
            raise LlamaRuntimeError(f"llama.cpp could not load {gguf}")
        self.vocab = lib.llama_model_get_vocab(self.model)
        context_params = lib.llama_context_default_params()
        context_params.n_ctx = n_ctx
        context_params.n_batch = min(512, n_ctx)
        context_params.n_ubatch = min(512, n_ctx)
        context_params.n_threads = threads
        context_params.n_threads_batch = threads
        self.context = lib.llama_new_context_with_model(self.model, context_params)
        if self.context == ffi.NULL:
            raise LlamaRuntimeError(f"llama.cpp could not create a {n_ctx}-token context")
        self.n_ctx = int(lib.llama_n_ctx(self.context))
        self.n_batch = int(lib.llama_n_batch(self.context))
        template = lib.llama_model_chat_template(self.model, ffi.NULL)
        if template == ffi.NULL:
            raise LlamaRuntimeError(f"{gguf.name} carries no chat template")
        self._template = template
        self.finish_reason = "stop"
        self.prompt_tokens = 0  # of the last generate call
        self.completion_tokens = 0
        self.grammar_resamples = 0  # tokens the grammar rejected and were drawn again (since load)

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """Token ids of ``text`` (no BOS added; ``special``: parse special tokens such as ``<|im_start|>``)."""
        data = text.encode("utf-8")
        size = len(data) + 8
        while True:
            tokens = self.ffi.new("llama_token[]", size)
            count = self.lib.llama_tokenize(self.vocab, data, len(data), tokens, size, False, special)
            if count >= 0:
                return list(tokens[0:count])
            size = -count

    def prompt(self, messages: list[dict[str, str]]) -> str:
        """``messages`` (``role``/``content``) rendered by the GGUF's chat template, the assistant turn opened."""
        ffi = self.ffi
        keep = []
        items = ffi.new("struct llama_chat_message[]", max(len(messages), 1))
        for index, message in enumerate(messages):
            role = ffi.new("char[]", str(message.get("role") or "user").encode("utf-8"))
            content = ffi.new("char[]", str(message.get("content") or "").encode("utf-8"))
            keep += [role, content]
            items[index].role = role
            items[index].content = content
        size = 4096 + 2 * sum(len(str(m.get("content") or "").encode("utf-8")) for m in messages)
        while True:
            buffer = ffi.new("char[]", size)
            written = self.lib.llama_chat_apply_template(self._template, items, len(messages), True, buffer, size)
            if written < 0:
                raise LlamaRuntimeError("llama.cpp could not apply the model's chat template")
            if written <= size:
                return ffi.buffer(buffer, written)[:].decode("utf-8", errors="replace")
            size = written + 1

    def generate(self, messages: list[dict[str, str]], *, grammar: str | None = None, temperature: float = 0.0,
                 max_tokens: int = 512, seed: int = 0) -> Iterator[str]:
        """Text pieces of the answer to ``messages`` (UTF-8 safe: a character split across tokens is held back).

        ``grammar``: GBNF the answer must match (root rule ``root``). Generation stops at an end-of-generation
        token (``finish_reason`` "stop"), after ``max_tokens`` or at the end of the context ("length").

        Raises:
            LlamaRuntimeError: the prompt does not fit the context, or a decode fails.
        """
        lib, ffi = self.lib, self.ffi
        tokens = self.tokenize(self.prompt(messages), special=True)
        if len(tokens) >= self.n_ctx:
            raise LlamaRuntimeError(f"the prompt is {len(tokens)} tokens; the context holds {self.n_ctx}")
        lib.llama_kv_cache_clear(self.context)
        self.prompt_tokens, self.completion_tokens = len(tokens), 0
        free_chain = self._sampler_chain(None, temperature, seed, penalize=grammar is None)
        grammar_chain = self._sampler_chain(grammar, temperature, seed, penalize=False) if grammar is not None else None
        try:
            prompt_tokens = ffi.new("llama_token[]", tokens)
            for start in range(0, len(tokens), self.n_batch):
                count = min(self.n_batch, len(tokens) - start)
                if lib.llama_decode(self.context, lib.llama_batch_get_one(prompt_tokens + start, count)) != 0:
                    raise LlamaRuntimeError("llama.cpp could not read the prompt")
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            piece = ffi.new("char[]", 256)
            one = ffi.new("llama_token[1]")
            position = len(tokens)
            self.finish_reason = "length"
            for _ in range(max_tokens):
                if position >= self.n_ctx:
                    break
                token = self._sample(free_chain, grammar_chain)
                if lib.llama_vocab_is_eog(self.vocab, token):
                    self.finish_reason = "stop"
                    break
                size = lib.llama_token_to_piece(self.vocab, token, piece, 256, 0, False)
                if size > 0:
                    text = decoder.decode(ffi.buffer(piece, size)[:])
                    if text:
                        yield text
                one[0] = token
                if lib.llama_decode(self.context, lib.llama_batch_get_one(one, 1)) != 0:
                    raise LlamaRuntimeError("llama.cpp could not continue the answer")
                position += 1
                self.completion_tokens += 1
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail
        finally:
            lib.llama_sampler_free(free_chain)
            if grammar_chain is not None:
                lib.llama_sampler_free(grammar_chain)

    def _sample(self, free_chain: Any, grammar_chain: Any) -> int:
        """The next token: drawn without the grammar first, and only when the grammar rejects it drawn again
        with the grammar applied to the whole vocabulary (llama.cpp's ``common_sampler_sample`` does the same:
        checking one token against the grammar is far cheaper than filtering ~49k candidates every step)."""
        lib, ffi = self.lib, self.ffi
        if grammar_chain is not None and not self.lazy_grammar:
            return lib.llama_sampler_sample(grammar_chain, self.context, -1)
        token = lib.llama_sampler_sample(free_chain, self.context, -1)
        if grammar_chain is None:
            return token
        grammar = lib.llama_sampler_chain_get(grammar_chain, 0)
        single = ffi.new("llama_token_data[1]")
        single[0].id, single[0].logit, single[0].p = token, 1.0, 0.0
        candidates = ffi.new("llama_token_data_array *", {"data": single, "size": 1, "selected": -1, "sorted": False})
        lib.llama_sampler_apply(grammar, candidates)
        if single[0].logit != float("-inf"):
            lib.llama_sampler_accept(grammar, token)
            return token
        self.grammar_resamples += 1
        return lib.llama_sampler_sample(grammar_chain, self.context, -1)  # accepts the token in its grammar too

    def _sampler_chain(self, grammar: str | None, temperature: float, seed: int, *, penalize: bool) -> Any:
        lib, ffi = self.lib, self.ffi
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if penalize and self.repeat_penalty > 1:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_penalties(REPEAT_LAST_N, self.repeat_penalty, 0.0, 0.0))
        if grammar is not None:
            rules = ffi.new("char[]", grammar.encode("utf-8"))
            root = ffi.new("char[]", b"root")
            sampler = lib.llama_sampler_init_grammar(self.vocab, rules, root)
            if sampler == ffi.NULL:
                lib.llama_sampler_free(chain)
                raise LlamaRuntimeError("llama.cpp refused the grammar built from the JSON schema")
            lib.llama_sampler_chain_add(chain, sampler)
        if temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
        else:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(TOP_K))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(TOP_P, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temperature))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(seed))
        return chain

    def close(self) -> None:
        """Free the context and the model (idempotent)."""
        if getattr(self, "context", None) is not None:
            self.lib.llama_free(self.context)
            self.context = None
        if getattr(self, "model", None) is not None:
            self.lib.llama_model_free(self.model)
            self.model = None


def json_schema_grammar(schema: Any) -> str:
    """GBNF for ``schema`` (a JSON schema, as a dict) by llama.cpp's own converter.

    Raises:
        LlamaRuntimeError: the library is missing or the converter rejects the schema.
    """
    lib, ffi = load_library()
    text = ffi.new("char[]", json.dumps(schema).encode("utf-8"))
    result = lib.llama_json_schema_to_grammar(text)
    if result == ffi.NULL:
        raise LlamaRuntimeError("llama.cpp could not convert the JSON schema to a grammar")
    try:
        return ffi.string(result).decode("utf-8")
    finally:
        lib.free(result)
