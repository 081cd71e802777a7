"""Contract between the fake Ollama server and scripted conversations.

A *chat script* is a callable ``(request_json: dict) -> ScriptedTurn | None``
given to ``FakeOllama(chat_script=...)``. For every ``/v1/chat/completions``
request the server first asks the script; ``None`` means "not mine" and the
server falls back to its default deterministic behaviour. The server renders
a ``ScriptedTurn`` in the OpenAI chat-completions wire format: as SSE chunks
(``data: {...}`` lines, then ``data: [DONE]``) when the request has
``"stream": true``, else as one JSON body. Reasoning goes out as
``delta.reasoning_content``; each tool call as ``delta.tool_calls`` entries
(index, id, type ``function``, name, JSON-string arguments), with
``finish_reason`` ``"tool_calls"``; otherwise ``finish_reason`` ``"stop"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class ScriptedToolCall:
    """One tool call the fake model asks for: ``arguments`` is a JSON-able dict."""

    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class ScriptedTurn:
    """One assistant turn: optional reasoning, text and tool calls."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ScriptedToolCall] = field(default_factory=list)


ChatScript = Callable[[dict[str, Any]], "ScriptedTurn | None"]
