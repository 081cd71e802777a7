"""The embedded backend's llama.cpp runtime (the llama-cpp-cffi wheel's compiled library): real SmolLM2-135M
output, grammar-constrained JSON, token counts, and a clear error when the wheel is missing."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

import pytest

from memctl.embedded import llama_runtime
from memctl.embedded.llama_runtime import LlamaChat, LlamaRuntimeError, json_schema_grammar, library_path
from memctl.embedded.models import EmbeddedModelError, EmbeddedModels, available_models, gguf_path

needs_library = pytest.mark.skipif(library_path() is None, reason="llama-cpp-cffi is not installed (./test.sh installs it)")

SCHEMA = {"type": "object", "properties": {"summary": {"type": "string", "maxLength": 80},
                                           "files": {"type": "array", "items": {"type": "string", "maxLength": 40},
                                                     "maxItems": 3}},
          "required": ["summary", "files"]}


@pytest.fixture(scope="module")
def chat() -> LlamaChat:
    if library_path() is None:
        pytest.skip("llama-cpp-cffi is not installed (./test.sh installs it)")
    model = LlamaChat(gguf_path(), n_ctx=2048, threads=1)
    yield model
    model.close()


@needs_library
def test_the_package_python_code_is_never_imported() -> None:
    # Its __init__ imports transformers and huggingface-hub (model downloads); only the compiled library is loaded.
    llama_runtime.load_library()
    assert "llama" not in sys.modules and "transformers" not in sys.modules


@needs_library
def test_json_schema_grammar_is_llama_cpps_gbnf() -> None:
    grammar = json_schema_grammar(SCHEMA)
    assert "root ::=" in grammar and "summary" in grammar and "files" in grammar


def test_a_schema_answer_is_valid_json_of_that_schema_and_greedy_is_repeatable(chat: LlamaChat) -> None:
    messages = [{"role": "system", "content": "Answer in JSON."},
                {"role": "user", "content": "We fixed add() in calc.py: it subtracted. Summarize with the files."}]
    first = "".join(chat.generate(messages, grammar=json_schema_grammar(SCHEMA), max_tokens=160))
    value = json.loads(first)
    assert set(value) == {"summary", "files"} and isinstance(value["files"], list) and len(value["files"]) <= 3
    assert chat.finish_reason == "stop"
    again = "".join(chat.generate(messages, grammar=json_schema_grammar(SCHEMA), max_tokens=160))
    assert again == first  # the context is cleared between answers; greedy decoding repeats itself


def test_checking_the_grammar_after_sampling_gives_the_same_answer(chat: LlamaChat) -> None:
    # The grammar is applied to the whole vocabulary only when the freely drawn token breaks it; greedy decoding
    # must then pick exactly what filtering every step would have picked.
    messages = [{"role": "user", "content": "List the files we changed to fix add() in calc.py, as JSON."}]
    grammar = json_schema_grammar(SCHEMA)
    try:
        chat.lazy_grammar = False
        eager = "".join(chat.generate(messages, grammar=grammar, max_tokens=120))
        chat.lazy_grammar = True
        before = chat.grammar_resamples
        lazy = "".join(chat.generate(messages, grammar=grammar, max_tokens=120))
    finally:
        chat.lazy_grammar = True
    assert lazy == eager
    assert 0 < chat.grammar_resamples - before < chat.completion_tokens  # the grammar did steer, not on every token


def test_only_free_text_is_penalized_for_repeating(chat: LlamaChat) -> None:
    lib = chat.lib
    free = chat._sampler_chain(None, 0.0, 0, penalize=True)
    constrained = chat._sampler_chain(json_schema_grammar(SCHEMA), 0.0, 0, penalize=False)
    try:
        assert lib.llama_sampler_chain_n(free) == 2  # penalties, greedy
        assert lib.llama_sampler_chain_n(constrained) == 2  # grammar, greedy
    finally:
        lib.llama_sampler_free(free)
        lib.llama_sampler_free(constrained)


def test_the_token_budget_ends_an_answer_with_length(chat: LlamaChat) -> None:
    pieces = list(chat.generate([{"role": "user", "content": "Count from one to one hundred in words."}], max_tokens=5))
    assert chat.finish_reason == "length" and 1 <= len(pieces) <= 5


def test_special_tokens_are_parsed_only_when_asked(chat: LlamaChat) -> None:
    text = "<|im_start|>user"
    assert len(chat.tokenize(text, special=True)) < len(chat.tokenize(text, special=False))
    assert chat.tokenize("") == []


def test_the_chat_template_is_the_ggufs(chat: LlamaChat) -> None:
    prompt = chat.prompt([{"role": "user", "content": "hello"}])
    assert "<|im_start|>user\nhello<|im_end|>" in prompt and prompt.rstrip().endswith("<|im_start|>assistant")


def test_a_prompt_over_the_context_is_refused(chat: LlamaChat) -> None:
    with pytest.raises(LlamaRuntimeError, match="the context holds 2048"):
        list(chat.generate([{"role": "user", "content": "word " * 5000}]))


def test_without_the_wheel_the_chat_model_is_not_served_and_the_error_names_it(monkeypatch, tmp_path: Path) -> None:
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        if name == llama_runtime.DISTRIBUTION:
            raise importlib.metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(llama_runtime, "_loaded", None)
    assert library_path() is None
    assert "smollm2-135m-instruct" not in available_models()
    with pytest.raises(EmbeddedModelError, match="llama-cpp-cffi is not installed"):
        EmbeddedModels(tmp_path, num_ctx=2048, threads=1).chat([{"role": "user", "content": "hi"}], max_tokens=4)
