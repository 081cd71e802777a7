"""Text that spells a tokenizer's special token, made plain before it reaches Cognee.

Notes are about coding sessions, and sessions about language models quote
their special tokens: ``<|endoftext|>``, ``<|im_start|>``, ``<|fim_prefix|>``,
``<|eot_id|>``, ``<|begin_of_text|>``, DeepSeek's ``<｜begin▁of▁sentence｜>``.
Two things go wrong when such text reaches Cognee as it is:

* tiktoken's ``Encoding.encode`` raises ``ValueError`` ("disallowed special
  token") for every special token of its encoding unless the caller passes
  ``disallowed_special=()`` (tiktoken ``core.py``); Cognee 1.6.5 counts chunk
  tokens with a plain ``encode(text)``
  (``cognee/infrastructure/llm/tokenizer/TikToken/adapter.py``), so cognify
  fails for the note's whole dataset. ``cl100k_base``'s special tokens are
  ``<|endoftext|>``, ``<|fim_prefix|>``, ``<|fim_middle|>``, ``<|fim_suffix|>``
  and ``<|endofprompt|>``; ``o200k_base``/``r50k_base`` use the same shape.
* a model server that parses special tokens in the prompt text (llama.cpp's
  tokenizer with ``parse_special``, which Ollama uses for the rendered
  template) would read ``<|eot_id|>`` inside a note as the end of a turn.

So every ``<|name|>`` / ``<｜name｜>`` (1–64 characters of name, no bar, angle
bracket, backslash or whitespace inside — the shape of every special token
in the chat templates of Llama 3, ChatML/Qwen, Phi, GPT-2/4 BPE,
StarCoder FIM and DeepSeek) reaches Cognee with one backslash added before
each bar: ``<\\|endoftext\\|>``. That text is no special token of any of
those tokenizers. It is reversible: a sequence that already has backslashes
before its bars gets one more, and :func:`restore` removes exactly one, so
``restore(plain(t)) == t`` for every string.

The stored note is never changed: :func:`cognee_input` hands Cognee the note
itself when it holds no such token, else a plain copy under
``<home>/cognee/plain-text/`` whose Cognee ``source_uri`` is the note's own
``file://`` URI (provenance unchanged) and whose name is the note's file stem.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from memctl.atomic import atomic_write_text

__all__ = ["COPY_DIR", "cognee_input", "copy_path", "plain", "restore"]

COPY_DIR = "plain-text"
_BARS = "|\uff5c"
_NAME = r"[^<>|\uff5c\\\s]{1,64}"
_SPECIAL = re.compile(rf"<(\\*)([{_BARS}])({_NAME})(\\*)([{_BARS}])>")
_ESCAPED = re.compile(rf"<(\\+)([{_BARS}])({_NAME})(\\+)([{_BARS}])>")


def plain(text: str) -> str:
    """``text`` with one backslash added before both bars of every special-token-shaped
    sequence (see the module doc); text without one is returned unchanged."""
    return _SPECIAL.sub(lambda m: f"<\\{m[1]}{m[2]}{m[3]}\\{m[4]}{m[5]}>", text)


def restore(text: str) -> str:
    """The inverse of :func:`plain`: ``restore(plain(t)) == t`` for every ``str``."""
    return _ESCAPED.sub(lambda m: f"<{m[1][1:]}{m[2]}{m[3]}{m[4][1:]}{m[5]}>", text)


def copy_path(cognee_root: Path, note: Path) -> Path:
    """Where the plain copy of ``note`` lives: ``<cognee_root>/plain-text/<16 hex of
    sha1(note path)>/<note name>`` (one directory per note, so the copy keeps the note's
    file name, which Cognee records as the document name)."""
    digest = hashlib.sha1(str(note).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cognee_root / COPY_DIR / digest / note.name


def cognee_input(cognee_root: Path, note: Path) -> tuple[Any, Path, Path]:
    """What ``cognee.add`` is given for ``note`` (an absolute path), and the two places a
    document of this note can have come from.

    Returns ``(item, location, other)``: ``item`` is ``str(note)`` when the
    note needs no change, else a ``cognee.tasks.ingestion.data_item.DataItem``
    for its plain copy (written atomically when missing or different);
    ``location`` is the file Cognee records as the document's origin;
    ``other`` is the other representation's file (a document from there is
    stale once the note changed kind).

    Raises:
        OSError / UnicodeDecodeError: the note cannot be read as UTF-8, or the copy
            cannot be written.
    """
    text = note.read_text(encoding="utf-8")
    converted = plain(text)
    copy = copy_path(cognee_root, note)
    if converted == text:
        return str(note), note, copy
    if not copy.is_file() or copy.read_text(encoding="utf-8") != converted:
        atomic_write_text(copy, converted)
    from cognee.tasks.ingestion.data_item import DataItem

    return DataItem(data=str(copy), external_metadata={"source_uri": note.as_uri()}), copy, note
