"""The MCP server of ``memctl serve`` (official MCP Python SDK, ``mcp.server.fastmcp``): tools, resources, transports.

Tools (:mod:`memctl.serve.tools` does the work; descriptions and argument
schemas here are written for the model that calls them):

* ``memory_search`` — excerpts with provenance, no chat-model call;
* ``memory_ask`` — ``memctl ask``'s answer with its cited sources;
* ``memory_remember`` — stage a proposal (or get the validator's refusal);
* ``memory_topics`` — the topics with descriptions and note counts.

Resources (read-only): ``memctl://topics`` (the topic index as JSON) and
each promoted user memory as ``memctl://user/global/{name}``,
``memctl://user/topics/{topic}/{name}``, ``memctl://user/sessions/{session}/{name}``
(listed one by one, read at the time of the request).

Tool calls run in worker threads (``anyio.to_thread``): memctl's core is
synchronous and drives Cognee on its own event loop
(:func:`memctl.graph.configure.run_sync`). A memctl domain error becomes an MCP
tool error (``isError``) whose text is memctl's message and exit code.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Callable

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import Resource as MCPResource, ToolAnnotations
from pydantic import Field, ValidationError

from memctl import exit_codes
from memctl.about import installed_version
from memctl.ask.api import MAX_QUESTION_CHARS
from memctl.exit_codes import ExitCodeError
from memctl.serve import tools
from memctl.serve.warm import WarmMemory

SERVER_NAME = "memctl"
INSTRUCTIONS = (
    "memctl is the long-term memory of your past coding sessions (distilled notes per project topic, "
    "plus memories the user promoted). Use memory_search first: it returns excerpts with the session id, "
    "note path, title and date, and costs no model call. Cite the session id and title when you use one. "
    "memory_ask returns a complete answer with citations (slower: it calls the local model). "
    "memory_remember only proposes a memory: it is quarantined until the user's `memctl sleep` validates it. "
    "memory_topics lists the projects (topics) you can pass to the other tools."
)
_CODE_NAMES = {value: name for name, value in vars(exit_codes).items() if name.isupper() and isinstance(value, int)}

# A blank topic (" ") is refused here as empty, not looked up and reported as "unknown topic".
TopicsArg = Annotated[list[Annotated[str, Field(pattern=r"\S")]] | None, Field(
    description="Optional: search only these topics (1-2 slugs or project names from memory_topics). "
                "Leave empty to let memctl pick the topics that match the query.",
    max_length=2)]


def invalid_arguments(tool: str, exc: ValidationError) -> str:
    """One line for arguments the tool's schema refused: ``invalid arguments to <tool>: <field>: <problem>;
    …`` and the usage exit code, as :func:`error_text` names it; an empty string is said to be empty."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"] if part != "arguments") or "arguments"
        empty = (error["type"] in ("string_too_short", "string_pattern_mismatch") and error.get("input") is not None
                 and not str(error["input"]).strip())
        problems.append(f"{where}: {'is empty' if empty else error['msg']}")
    usage = exit_codes.USAGE
    return (f"invalid arguments to {tool}: {'; '.join(problems)} "
            f"(memctl exit code {usage} {_CODE_NAMES.get(usage, '')})".replace(" )", ")"))


def error_text(exc: ExitCodeError) -> str:
    """The tool-error text for a memctl domain error: its message and exit code (named as in README "Exit codes")."""
    name = _CODE_NAMES.get(exc.exit_code, "")
    return f"{exc} (memctl exit code {exc.exit_code}{' ' + name if name else ''})"


async def _in_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
    except ExitCodeError as exc:
        raise ToolError(error_text(exc)) from exc


class MemctlMCP(FastMCP):
    """FastMCP whose resource list also names every promoted user memory, read at the time of the request."""

    def __init__(self, warm: WarmMemory, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.warm = warm
        # The SDK reports its own version (mcp's) in serverInfo unless the server names one.
        self._mcp_server.version = installed_version()

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """The SDK's tool call, with a bad argument reported as one plain line (no pydantic URL)."""
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(invalid_arguments(name, cause)) from None
            raise

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        try:
            paths = await anyio.to_thread.run_sync(tools.user_memory_paths, self.warm)
        except ExitCodeError:
            paths = []
        return listed + [MCPResource(uri=f"memctl://{path}", name=path, mimeType="text/markdown",
                                     description="A memory the user promoted (trusted; read-only).")
                         for path in paths]


def build_server(warm: WarmMemory, **settings: Any) -> MemctlMCP:
    """The MCP server over ``warm``; ``settings`` go to FastMCP (``host``, ``port``, ``log_level``…)."""
    server = MemctlMCP(warm, name=SERVER_NAME, instructions=INSTRUCTIONS, **settings)
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)

    @server.tool(annotations=read_only, structured_output=True)
    async def memory_search(
        query: Annotated[str, Field(description="What you want to know, in words (a question or key terms), "
                                                "e.g. 'how did we fix the Kuzu lock error'.",
                                    min_length=1, max_length=MAX_QUESTION_CHARS)],
        topics: TopicsArg = None,
        top_k: Annotated[int, Field(description="How many excerpts to return (1-50).", ge=1,
                                    le=tools.MAX_TOP_K)] = 6,
    ) -> dict[str, Any]:
        """Search memctl's memory of past coding sessions; returns note excerpts, best first, each with its
        provenance (session_id, path, title, date, topic) and, when a turn of the session's transcript found
        it, that turn ({index, excerpt}: the user's request). No chat model is called (one embedding lookup
        at most): read the excerpts yourself.
        retrieval_method 'notes' means only keyword search over the raw notes served (e.g. while an ingest is
        running; fallback_reason says why); any other value means the graph store was searched too."""
        return await _in_thread(tools.memory_search, warm, query, topics, top_k)

    @server.tool(annotations=read_only, structured_output=True)
    async def memory_ask(
        question: Annotated[str, Field(description="The question, in words.", min_length=1,
                                       max_length=MAX_QUESTION_CHARS)],
        topics: TopicsArg = None,
        session: Annotated[str | None, Field(
            description="Optional: your session id; its promoted memories are included (default 'cli').",
            pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")] = None,
    ) -> dict[str, Any]:
        """Answer a question from memory with the local model (like `memctl ask --json`): the answer cites
        sources as [n], and sources[n-1] gives each one's session id, note path, title and date. Slower than
        memory_search (seconds: a model call); prefer memory_search when you can read excerpts yourself."""
        return await _in_thread(tools.memory_ask, warm, question, topics, session)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                             openWorldHint=False), structured_output=True)
    async def memory_remember(
        text: Annotated[str, Field(description="One durable fact, preference or decision, in one or a few "
                                               "sentences, e.g. 'Use pnpm, not npm, in this repo.'",
                                   min_length=1, max_length=4000)],
        session: Annotated[str, Field(description="Your session id (letters, digits, '_', '.', '-').",
                                      pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")],
        topic: Annotated[str | None, Field(description="Optional: the topic (project) it applies to, from "
                                                       "memory_topics. Leave empty for this session only.")] = None,
        global_scope: Annotated[bool, Field(description="True: a preference for every project (like "
                                                        "`memctl remember --global`). Not with topic.")] = False,
        kind: Annotated[str, Field(description="What it is.", pattern="^(preference|decision|note)$")] = "note",
        source: Annotated[str | None, Field(description="Optional: what the text was taken from (a tool's output, "
                                                        "a file, a page), kept in its provenance.",
                                            max_length=300)] = None,
    ) -> dict[str, Any]:
        """Propose a memory. It is scrubbed of secrets and checked by memctl's validator now; if accepted it is
        staged (quarantined), recorded as an agent's, and becomes trusted only when the user's `memctl sleep`
        promotes it; one that would make an agent act, or replace a memory, waits for the user's review.
        Returns staged=true with the staged path, or staged=false with the validator's reason."""
        return await _in_thread(tools.memory_remember, warm, text, session, topic, global_scope, kind, source)

    @server.tool(annotations=read_only, structured_output=True)
    async def memory_topics() -> dict[str, Any]:
        """List the topics (one per project) memctl holds, with a description, the note count, the project
        directory and other names. Pass a topic's slug to memory_search or memory_ask to search only there."""
        return await _in_thread(tools.memory_topics, warm)

    @server.resource("memctl://topics", name="topic index", mime_type="application/json",
                     description="Every topic with its description, note count and notes (session id, path, title, date).")
    def topic_index() -> str:
        return _read(tools.topic_index_document, warm)

    @server.resource("memctl://user/global/{name}", name="global memory", mime_type="text/markdown",
                     description="A promoted global memory (read-only).")
    def global_memory(name: str) -> str:
        return _read(tools.read_user_memory, warm, "global", name)

    @server.resource("memctl://user/topics/{topic}/{name}", name="topic memory", mime_type="text/markdown",
                     description="A promoted memory of one topic (read-only).")
    def topic_memory(topic: str, name: str) -> str:
        return _read(tools.read_user_memory, warm, "topics", topic, name)

    @server.resource("memctl://user/sessions/{session}/{name}", name="session memory", mime_type="text/markdown",
                     description="A promoted memory of one session (read-only).")
    def session_memory(session: str, name: str) -> str:
        return _read(tools.read_user_memory, warm, "sessions", session, name)

    return server


def _read(fn: Callable[..., str], *args: Any) -> str:
    try:
        return fn(*args)
    except ExitCodeError as exc:
        raise ValueError(error_text(exc)) from exc
