"""Untrusted text as one opaque, quoted entry of a model prompt.

Memories and note excerpts are data that users, past sessions and models
wrote. Pasted into a prompt as they are, a memory can imitate the structure
memctl builds around it — a ``[USER_MEMORY]`` header, a ``[n] Title
(session …, date)`` citation line, ``User:``/``Assistant:`` turns, a
``<system-reminder>`` block, a chat template's special tokens — and the
model cannot tell it from the real thing. So every such text enters the
prompt through :func:`quote`: one JSON string literal (RFC 8259), which

* is exactly one line: JSON escapes line feeds and every other control
  character; we also escape what JSON leaves raw but readers may break
  lines at (U+0085, U+2028, U+2029) and invisible format characters
  (category Cf: zero-width and bidi controls), so nothing inside can start a
  line of its own;
* cannot end early: a ``"`` inside is escaped, so the entry ends at the
  closing quote memctl wrote;
* carries no chat-role markup or memctl layout: a ``<`` that opens a tag
  or a special token (``<|eot_id|>``, ``<|im_start|>``, ``<start_of_turn>``,
  ``</s>``, ``<<SYS>>``, DeepSeek's ``<｜…｜>``, ``<system-reminder>``) is
  written as ``\\u003c``; a ``[`` that opens a one-word bracket marker
  (``[USER_MEMORY]``, ``[/REFERENCE]``, Mistral's ``[INST]``) or a ``[n]``
  citation at the start of a line as ``\\u005b``; the ``:`` of a role label
  at the start of a line (``User:``, ``**Assistant:**``, ``System (x):``,
  ``Question:``, ``Пользователь:``, ``ユーザー：``, any of ``_ROLE_LABELS``) as ``\\u003a`` — all still valid JSON, so ``json.loads``
  gives back the exact text, but the marker's character sequence never
  reaches the model's tokenizer;
* stays readable: other Unicode is kept as is (``ensure_ascii=False``).

:func:`header_field` is for short values memctl puts in its own header lines
(paths, session ids, dates): kept bare when they are plain, else quoted.
"""

from __future__ import annotations

import json
import re
import unicodedata

_LINE_START = r"(?<![^\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])[ \t]*"
_TAG_OPEN = re.compile(r"<(?=[|\uff5c/!?<A-Za-z_])")
_BRACKET_MARKER = re.compile(r"\[(?=/?[A-Za-z_][A-Za-z0-9_]+\])")
_CITATION_AT_LINE_START = re.compile(_LINE_START + r"(\[)\d+\]")
# Role labels of chat transcripts in the languages memctl's validator reads (English, German, French,
# Spanish, Italian, Portuguese, Dutch, Turkish, Polish, Russian, Chinese, Japanese, Korean).
_ROLE_LABELS = (
    "user|assistant|system|human|ai|model|bot|tool|developer|function|question|answer|operator"
    "|benutzer|nutzer|assistent|utilisateur|assistante?|systeme|système|usuario|usuário|asistente|sistema|utente"
    "|modello|modelo|gebruiker|systeem|kullanıcı|asistan|sistem|użytkownik|asystent|system"
    "|пользователь|ассистент|помощник|система|модель|разработчик|вопрос|ответ"
    "|用户|用戶|助手|系统|系統|ユーザー|アシスタント|システム|사용자|어시스턴트|시스템")
_ROLE_AT_LINE_START = re.compile(
    _LINE_START + r"[>#*_ \t-]*(?:" + _ROLE_LABELS + r")[ \t*_]*(?:\([^)\n]*\))?[ \t*_]*([:：])", re.IGNORECASE)
_PLAIN_FIELD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@+:-]{0,255}$")
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")


def _escaped_positions(text: str) -> list[int]:
    """Indices of the characters :func:`quote` writes as ``\\uXXXX`` (see the module doc)."""
    marks = {i for i, c in enumerate(text) if ord(c) >= 0x7F and unicodedata.category(c) in _ESCAPED_CATEGORIES}
    marks.update(m.start() for m in _TAG_OPEN.finditer(text))
    marks.update(m.start() for m in _BRACKET_MARKER.finditer(text))
    marks.update(m.start(1) for m in _CITATION_AT_LINE_START.finditer(text))
    marks.update(m.start(1) for m in _ROLE_AT_LINE_START.finditer(text))
    return sorted(marks)


def _unicode_escape(char: str) -> str:
    return json.dumps(char, ensure_ascii=True)[1:-1] if ord(char) > 0xFFFF or char in '"\\' else f"\\u{ord(char):04x}"


def quote(text: str) -> str:
    """``text`` as one JSON string literal on one line, with structure-forming sequences escaped.

    ``json.loads(quote(t)) == t`` for every ``str`` ``t`` (lone surrogates
    included); the result holds no line break of any kind, no unescaped
    ``"`` inside, no ``<`` opening a tag or special token, no ``[`` opening a
    one-word bracket marker or a ``[n]`` citation at a line start, and no
    ``:`` ending a chat-role label at a line start (see the module doc).
    """
    out, start = ['"'], 0
    for index in _escaped_positions(text):
        out += [json.dumps(text[start:index], ensure_ascii=False)[1:-1], _unicode_escape(text[index])]
        start = index + 1
    out += [json.dumps(text[start:], ensure_ascii=False)[1:-1], '"']
    return "".join(out)


def header_field(value: str) -> str:
    """A value for a memctl header line: bare when plain (letters, digits, ``._/@+:-``), else :func:`quote`-d."""
    return value if _PLAIN_FIELD.match(value) else quote(value)
