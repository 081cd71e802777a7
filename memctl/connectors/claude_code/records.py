"""Claude Code transcript records → the parts of one session (:mod:`memctl.connectors.model`).

Source format (Claude Code 2.1.x, checked against files the 2.1.332 binary
wrote, ``tests/fixtures/claude-code-2.1``): one JSON record a line.
``user``/``assistant``/``system``/``attachment``/``progress`` records are
nodes of a tree: ``uuid``, ``parentUuid`` (``null`` at the start and right
after a compaction, where ``system``/``compact_boundary`` carries
``logicalParentUuid``), ``isSidechain``, ``timestamp`` (ISO 8601),
``sessionId``, ``cwd``, ``gitBranch``, ``version``. ``message`` is the
Anthropic Messages API message: ``role`` and ``content`` (a string or blocks
``text``, ``thinking``, ``redacted_thinking``, ``tool_use``, ``tool_result``,
``image``, ``document``); one assistant response is spread over several
records sharing ``message.id`` (one block each, streamed).

What becomes a part (OpenCode message-v2 shapes, so the transcript reads
every source alike): ``text`` → ``text`` (``isMeta`` user text and the
compaction summary user message are ``synthetic``); ``thinking`` →
``reasoning``; ``tool_use`` → ``tool`` with ``state`` {status, input,
output | error, title, metadata.sessionId of a subagent it started} joined on
``tool_use_id`` with the ``tool_result`` block (any record: parallel calls'
results may sit on sibling branches) or, when the output was moved out
(2.1: ``<persisted-output>`` … ``saved to: …/tool-results/<name>.txt`` and a
2 KB preview; also ``tool-results/<tool_use_id>.txt``), that file of the
session's ``tool-results/`` read bounded (only its name is taken from the
marker: nothing outside the session's directory is opened); a
``compact_boundary`` → ``compaction`` (``auto`` from its ``trigger``).
Dropped: images and documents (counted in ``images_dropped``),
``redacted_thinking`` (encrypted), attachments, progress and every other
system record. ``toolUseResult`` (a structured repeat of the tool output)
is read only for the subagent's ``agentId``.

The conversation is the active branch: from the last main-chain
``user``/``assistant`` record back through ``parentUuid`` (through
``logicalParentUuid`` across a compaction, so the compacted turns are kept
and the compaction summary, their model-written digest, is kept once, as a
synthetic text); a rewound or edited turn left in the file is off that branch
(``inactive_branch_records``). A uuid seen again (``--resume`` / reload
copies) is read once (``duplicate_items``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from memctl.connectors.claude_code.lines import read_bounded_text
from memctl.connectors.model import Part, ReadStats

CHAIN_KINDS = frozenset({"user", "assistant", "system", "attachment", "progress"})
"""Record kinds that are nodes of the uuid/parentUuid tree."""

OTHER_KINDS = frozenset({
    "summary", "custom-title", "ai-title", "agent-name", "tag", "pr-link", "mode", "file-history-snapshot",
    "queue-operation", "last-prompt", "atis-latch", "cost-state", "api-request", "api-request-shape",
    "api-request-blob", "worktree-state", "content-replacement", "marble-origami-commit",
    "marble-origami-snapshot", "task-summary", "speculation-accept", "tools-used",
})
"""Known record kinds that carry no conversation (titles are read from the first three)."""

REQUEST_COPY_PREFIXES = (b'{"type":"api-request', b'{"type":"file-history-snapshot"', b'{"type":"cost-state"')
"""Lines that repeat the whole model request (secrets again) or file contents: skipped undecoded."""

LOCAL_COMMAND_PREFIXES = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>")
"""User records holding a slash command's own output or caveat (not the user's words): synthetic text."""

MAX_SIDE_FILE_BYTES = 256 * 1024
"""At most this many bytes of a ``tool-results/<id>.txt`` side file are read (head and tail)."""


_NODE_KEYS = ("type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "timestamp", "subtype")


def millis(value: Any) -> int:
    """Epoch milliseconds of an ISO 8601 timestamp (``…Z`` accepted), 0 when unreadable."""
    if not isinstance(value, str) or not value:
        return 0
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def _text_of(content: Any, stats: ReadStats) -> str:
    """The text of a tool_result ``content`` (a string or blocks); images dropped and counted."""
    if isinstance(content, str):
        return content
    out: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append(str(block.get("text", "")))
        elif block.get("type") in ("image", "document"):
            stats.images_dropped += 1
            out.append(f"[{block.get('type')} not kept]")
    return "\n".join(out)


@dataclass
class _Result:
    text: str
    is_error: bool
    agent_id: str | None


@dataclass
class History:
    """The decoded records of one transcript file (or of one sidechain group).

    Attributes:
        nodes: tree records by uuid (first occurrence), in file order.
        results: tool results by ``tool_use_id``.
        titles: ``custom-title`` > ``summary`` > ``ai-title`` candidates found.
        last_time: the newest record time (ms).
    """

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    results: dict[str, _Result] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    last_time: int = 0
    sidechain: list[str] = field(default_factory=list)

    def add(self, record: dict[str, Any], stats: ReadStats, where: str) -> None:
        """Take one record in (see the module doc for what is kept)."""
        kind = record.get("type")
        if kind in CHAIN_KINDS:
            uuid = record.get("uuid")
            if not isinstance(uuid, str):
                stats.warn("missing_fields", f"{where}: a {kind} record without uuid")
                return
            if uuid in self.nodes:
                stats.duplicate_items += 1
                return
            self.last_time = max(self.last_time, millis(record.get("timestamp")))
            if kind == "user":
                self._results(record, stats)
            # Only what the branch walk and the parts need is kept: an attachment or a progress
            # record's payload (system prompts, file snapshots) and a user record's toolUseResult
            # (the tool output again) would hold the session's bytes in memory twice.
            if kind in ("attachment", "progress"):
                record = {k: record[k] for k in _NODE_KEYS if k in record}
            elif "toolUseResult" in record:
                record = {k: v for k, v in record.items() if k != "toolUseResult"}
            self.nodes[uuid] = record
        elif kind in OTHER_KINDS:
            for key, name in (("customTitle", "custom"), ("summary", "summary"), ("aiTitle", "ai"), ("title", "ai")):
                value = record.get(key)
                if isinstance(value, str) and value.strip() and kind != "queue-operation":
                    self.titles.setdefault(name, value.strip())
        else:
            stats.warn("unknown_types", f"{where}: unknown record kind {str(kind)[:40]!r}")

    def _results(self, record: dict[str, Any], stats: ReadStats) -> None:
        content = (record.get("message") or {}).get("content")
        if not isinstance(content, list):
            return
        extra = record.get("toolUseResult")
        agent = extra.get("agentId") if isinstance(extra, dict) and isinstance(extra.get("agentId"), str) else None
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                self.results.setdefault(block["tool_use_id"], _Result(
                    _text_of(block.get("content"), stats), bool(block.get("is_error")), agent))

    def title(self) -> str:
        """The best title found ('' when none)."""
        return next((self.titles[k] for k in ("custom", "summary", "ai") if k in self.titles), "")

    def active_branch(self, stats: ReadStats, sidechain: bool = False) -> list[dict[str, Any]]:
        """The records of the active branch, oldest first (see the module doc)."""
        main = [u for u, r in self.nodes.items() if bool(r.get("isSidechain")) == sidechain]
        leaf = next((u for u in reversed(main) if self.nodes[u].get("type") in ("user", "assistant")), None)
        if leaf is None:
            return []
        chain = self.branch(leaf)
        seen = {r["uuid"] for r in chain}
        stats.inactive_branch_records += sum(
            1 for u in main if u not in seen and self.nodes[u].get("type") in ("user", "assistant"))
        return chain

    def branch(self, leaf: str) -> list[dict[str, Any]]:
        """The records from the tree's start to ``leaf``, oldest first (cycles cut)."""
        chain: list[dict[str, Any]] = []
        seen: set[str] = set()
        current: str | None = leaf
        while current and current not in seen and current in self.nodes:
            seen.add(current)
            record = self.nodes[current]
            chain.append(record)
            parent = record.get("parentUuid")
            if not parent and record.get("type") == "system":
                parent = record.get("logicalParentUuid")
            current = parent if isinstance(parent, str) else None
        chain.reverse()
        return chain

    def sidechain_leaves(self) -> list[str]:
        """Sidechain user/assistant records no other record names as parent, in file order."""
        parents = {r.get("parentUuid") for r in self.nodes.values()}
        return [u for u, r in self.nodes.items() if r.get("isSidechain") and u not in parents
                and r.get("type") in ("user", "assistant")]


_PERSISTED = re.compile(r"<persisted-output>.*?saved to: \S*?/tool-results/([^/\s]+)", re.DOTALL)
"""Claude Code 2.1's marker for an output moved out of the transcript (the file name is its own id)."""


def _tool_part_data(block: dict[str, Any], result: _Result | None, side: Callable[[str], str | None]) -> dict[str, Any]:
    tool_id = str(block.get("id", ""))
    tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
    state: dict[str, Any] = {"input": tool_input}
    title = tool_input.get("description")
    if isinstance(title, str):
        state["title"] = title
    if result is None:
        state["status"] = "running"
    else:
        text = result.text
        persisted = _PERSISTED.match(text[:4096])
        moved = side(persisted.group(1) if persisted else f"{tool_id}.txt")
        if moved is not None:
            text = moved
        state["status"] = "error" if result.is_error else "completed"
        state["error" if result.is_error else "output"] = text
        if result.agent_id:
            state["metadata"] = {"sessionId": f"agent-{result.agent_id}"}
    return {"type": "tool", "tool": str(block.get("name", "unknown")), "callID": tool_id, "state": state}


def _part_id(uuid: str, n: int) -> str:
    return f"{uuid}:{n}"


def build_parts(chain: list[dict[str, Any]], history: History, stats: ReadStats,
                side_dir: Path | None) -> list[Part]:
    """The parts of the records in ``chain`` (one branch, oldest first).

    Args:
        side_dir: the session's ``<sessionId>/`` directory holding ``tool-results/``, or None.
    """
    moved: set[str] | None = None

    def side(name: str) -> str | None:
        nonlocal moved
        if side_dir is None or not name:
            return None
        if moved is None:  # one directory listing per session, not a stat per tool call
            folder = side_dir / "tool-results"
            try:
                moved = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
            except OSError:
                moved = set()
        if name not in moved:
            return None
        try:
            return read_bounded_text(side_dir / "tool-results" / name, MAX_SIDE_FILE_BYTES)[0]
        except OSError:
            return None

    parts: list[Part] = []
    seen_blocks: set[tuple[str, str]] = set()
    for record in chain:
        kind, uuid, when = record.get("type"), str(record.get("uuid")), millis(record.get("timestamp"))
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
                parts.append(Part(id=_part_id(uuid, 0), message_id=uuid, role="user", type="compaction",
                                  data={"type": "compaction", "auto": meta.get("trigger") == "auto"}, time_created=when))
            continue
        if kind not in ("user", "assistant"):
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        role = message.get("role") or kind
        if role not in ("user", "assistant"):
            stats.warn("unknown_roles", f"record {uuid}: unknown role {str(role)[:40]!r}")
            continue
        message_id = str(message.get("id") or uuid) if role == "assistant" else uuid
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        synthetic = bool(record.get("isMeta") or record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly")
                         or (isinstance(content, str) and content.startswith(LOCAL_COMMAND_PREFIXES)))
        for n, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            content_key = block.get("id") or block.get("text") or block.get("thinking") or ""
            digest = f"{btype}:{content_key}" if role == "assistant" else f"{uuid}:{n}"
            if (message_id, digest) in seen_blocks:  # a streamed block written twice
                continue
            seen_blocks.add((message_id, digest))
            pid = _part_id(uuid, n)
            if btype == "text":
                data: dict[str, Any] = {"type": "text", "text": str(block.get("text", ""))}
                if synthetic:
                    data["synthetic"] = True
                parts.append(Part(pid, message_id, role, "text", data, when))
            elif btype == "thinking":
                parts.append(Part(pid, message_id, role, "reasoning",
                                  {"type": "reasoning", "text": str(block.get("thinking", ""))}, when))
            elif btype == "tool_use":
                data = _tool_part_data(block, history.results.get(str(block.get("id"))), side)
                parts.append(Part(pid, message_id, role, "tool", data, when))
            elif btype in ("image", "document"):
                stats.images_dropped += 1
            elif btype in ("tool_result", "redacted_thinking", "server_tool_use", "web_search_tool_result"):
                continue  # joined to its call / encrypted / the search result is the tool's output
            else:
                stats.warn("unknown_types", f"record {uuid}: unknown content block {str(btype)[:40]!r}")
    return parts
