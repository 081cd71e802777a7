"""Text spelling a tokenizer's special token reaches Cognee as plain text, and comes back unchanged.

Special tokens of several tokenizers (GPT-2/4 BPE and FIM of tiktoken, Llama 3, ChatML/Qwen, Phi-3,
DeepSeek with its fullwidth bars), each inside prose, in a title line, in code and back to back.
tiktoken is the real ``cl100k_base`` from memctl's offline cache: raw text makes it raise, the plain
text never does.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from memctl.graph.offline import ensure_offline_assets
from memctl.graph.plain_text import cognee_input, copy_path, plain, restore

TIKTOKEN_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"]
MODEL_SPECIALS = [
    "<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|reserved_special_token_7|>",
    "<|im_start|>", "<|im_end|>", "<|im_sep|>",
    "<|user|>", "<|assistant|>", "<|system|>", "<|end|>",
    "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<｜fim▁hole｜>",
]
SHAPES = [
    "Our generations end with the literal text {t} and the cleaner must strip it.",
    "# Strip {t} from generations\n\n- Request: strip {t}\n",
    "```python\nSTOP = '{t}'\nassert clean('a{t}') == 'a'\n```",
    "{t}{t}assistant\n",
]


@pytest.fixture(scope="module")
def cl100k(tmp_path_factory: pytest.TempPathFactory):
    """The real cl100k_base, read from memctl's offline copy (the process environment is left as it was)."""
    import os

    import tiktoken

    saved = dict(os.environ)
    try:
        ensure_offline_assets(tmp_path_factory.mktemp("tiktoken"))
        return tiktoken.get_encoding("cl100k_base")
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("token", TIKTOKEN_SPECIALS)
def test_tiktoken_refuses_the_raw_text_and_accepts_the_plain_text(cl100k, token: str, shape: str) -> None:
    text = shape.format(t=token)
    with pytest.raises(ValueError, match="disallowed special token"):
        cl100k.encode(text)
    converted = plain(text)
    assert token not in converted
    assert cl100k.encode(converted)  # no raise: every token of it is ordinary text
    assert restore(converted) == text


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("token", TIKTOKEN_SPECIALS + MODEL_SPECIALS)
def test_no_special_token_of_any_tokenizer_survives_and_the_text_comes_back(token: str, shape: str) -> None:
    text = shape.format(t=token)
    converted = plain(text)
    assert token not in converted
    assert converted.count("\\") - text.count("\\") == 2 * text.count(token)  # one backslash per bar
    assert restore(converted) == text


@pytest.mark.parametrize("text", [
    "plain prose about | pipes | and <tags>",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "x || y and a <| b or c |> d",
    "<|> is empty, <||> too",
    "<|line\nbreak|> spans two lines",
    "<div class='x'>html</div> and </s> and <start_of_turn>",
    "<|" + "n" * 65 + "|> is too long a name",
])
def test_text_without_a_special_token_is_left_alone(text: str) -> None:
    assert plain(text) == text and restore(text) == text


@pytest.mark.parametrize("text", [
    "<\\|endoftext\\|> already written with backslashes",
    "<\\\\|eot_id\\\\|> twice",
    "<\\|im_start|> only one side",
    "mixed <|eot_id|> and <\\|eot_id\\|>",
])
def test_text_that_already_looks_converted_comes_back_exactly(text: str) -> None:
    assert restore(plain(text)) == text
    assert plain(text) != text


_ALPHABET = st.sampled_from(["<", ">", "|", "｜", "\\", "a", "_", " ", "\n", "eot_id", "endoftext", "▁"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_restore_inverts_plain_for_any_text(text: str) -> None:
    converted = plain(text)
    assert restore(converted) == text
    for token in TIKTOKEN_SPECIALS + MODEL_SPECIALS:
        assert token not in converted


def _note(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / "store" / "memory" / "topic" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nsource_id: {path.stem}\n---\n{body}", encoding="utf-8")
    return path.resolve()


def test_a_clean_note_is_handed_over_as_it_is(tmp_path: Path) -> None:
    note = _note(tmp_path, "ses_clean.md", "# Parser cache\n\nnothing special here <div>\n")
    item, location, other = cognee_input(tmp_path / "cognee", note)
    assert (item, location, other) == (str(note), note, copy_path(tmp_path / "cognee", note))
    assert not (tmp_path / "cognee").exists()


@pytest.mark.parametrize("token", ["<|endoftext|>", "<|eot_id|>", "<｜User｜>"])
def test_a_note_with_a_special_token_is_handed_over_as_a_plain_copy_with_its_provenance(
        tmp_path: Path, token: str) -> None:
    note = _note(tmp_path, "ses_special.md", f"# Strip {token}\n\nthe cleaner strips {token}\n")
    before = note.read_bytes()
    item, location, other = cognee_input(tmp_path / "cognee", note)
    copy = copy_path(tmp_path / "cognee", note)
    assert (location, other) == (copy, note) and copy.name == note.name
    assert copy.parent.name == hashlib.sha1(str(note).encode()).hexdigest()[:16]
    assert item.data == str(copy) and item.external_metadata == {"source_uri": note.as_uri()}
    assert token not in copy.read_text(encoding="utf-8")
    assert restore(copy.read_text(encoding="utf-8")) == before.decode("utf-8")
    assert note.read_bytes() == before  # the stored note is never changed
