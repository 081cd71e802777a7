"""Sessions of memory tools: a session whose only work is calls to a memory server's MCP tools is not distilled.

Such a session is memctl reading or writing its own memory through ``memctl
serve`` (an ``ask`` from inside an agent, a ``remember`` whose proposal is
already in the inbox), or a peer memory tool doing the same: distilling it
would file memory about memory, and an ``ask`` answer would come back as a
new note. The rule is by tool name only, so that it is cheap and never reads
text:

* a tool belongs to a memory server when its name is ``mcp__<server>__<tool>``
  (Claude Code's and Codex's MCP tool names), ``<server>__<tool>`` (older
  Codex) or ``<server>_<tool>`` (OpenCode: the server key, an underscore, the
  tool) and ``<server>`` is one of :data:`MEMORY_SERVERS`;
* the session is skipped when it (subagents included) made at least one tool
  call and every tool call was to a memory server. A session that also ran
  a shell command, edited a file or called any other tool is distilled as
  usual; a session without tool calls is left to the substance threshold.
"""

from __future__ import annotations

from memctl.connectors.model import Session

__all__ = ["MEMORY_SERVERS", "memory_server", "memory_tool_session"]

MEMORY_SERVERS = frozenset({
    "memctl",  # memctl serve (what `memctl mcp install` names it)
    "memory",  # the MCP reference knowledge-graph memory server
    "claude-mem", "claude_mem", "mem0", "openmemory", "basic-memory", "basic_memory", "graphiti", "graphiti-memory",
    "cipher", "supermemory", "zep", "letta", "cognee", "memory-bank", "memory_bank",
})
"""MCP server names of memory tools (lower case): memctl's own and its peers' usual names."""


def memory_server(tool: str) -> str | None:
    """The memory server a tool name belongs to (see the module doc), else None."""
    name = tool.strip().lower()
    if name.startswith("mcp__"):
        name = name[len("mcp__"):]
    for separator in ("__", "_"):
        head, found, rest = name.partition(separator)
        if found and rest and head in MEMORY_SERVERS:
            return head
    # a server name with an underscore of its own (claude_mem_search, basic_memory_read)
    for server in MEMORY_SERVERS:
        if "_" in server and name.startswith(server + "_") and len(name) > len(server) + 1:
            return server
    return None


def _tool_names(session: Session) -> list[str]:
    names = [str(part.data.get("tool") or "") for part in session.parts if part.type == "tool"]
    for child in session.children:
        names.extend(_tool_names(child))
    return names


def memory_tool_session(session: Session) -> str | None:
    """The skip reason when every tool call of ``session`` (subagents included) went to a memory server, else None."""
    names = _tool_names(session)
    if not names:
        return None
    servers = [memory_server(name) for name in names]
    if any(server is None for server in servers):
        return None
    used = ", ".join(sorted(set(s for s in servers if s)))
    return f"memory tool session: its {len(names)} tool calls all went to memory servers ({used})"
