"""One Codex rollout file (``rollout-<time>-<uuid>.jsonl``) parsed into content items.

Format (Codex CLI ``codex-rs`` rollout recorder; checked against files
written by ``@openai/codex`` 0.171.0, see ``tests/fixtures/codex-0.171/``):
one JSON object a line, ``{"timestamp": ISO-8601, "type": kind, "payload": {…}}``
(0.171 adds ``ordinal``). Kinds read here:

* ``session_meta`` — ``id``, ``timestamp``, ``cwd``, ``cli_version``,
  ``git`` (``commit_hash``, ``branch``, ``repository_url``),
  ``forked_from_id``, and for a subagent a ``source`` naming the parent
  (``{"subagent": {"thread_spawn": {"parent_thread_id": …}}}``). The first
  one is the rollout's; a later one with another id is a parent's, copied in
  by a fork.
* ``response_item`` — what the model saw: ``message`` (roles ``user``,
  ``assistant``; ``developer``/``system`` instructions are left out, and so
  are user messages that are context Codex injects: environment context,
  AGENTS.md and skill instructions, aborted-turn notices), ``reasoning`` (only
  the readable ``summary``; ``encrypted_content`` and raw ``content`` are
  dropped), ``function_call`` / ``function_call_output`` and
  ``custom_tool_call`` / ``custom_tool_call_output`` (joined on ``call_id``;
  in "code mode" one ``exec`` custom call carries a JavaScript cell that runs
  the shell and patch tools), ``local_shell_call``, ``web_search_call``,
  ``compaction``; ``ghost_snapshot`` is file state, skipped.
* ``compacted`` — a compaction summary (``message``, after Codex's hand-off
  sentence, which is dropped); kept once: the answer to the compaction request
  that Codex also records as an assistant message just before is dropped, and
  ``replacement_history`` (the kept history, repeated) is not read.
* ``turn_context`` — per-turn settings; its ``cwd`` is recorded on each item
  (the directory can change between turns). 0.171 writes it before the turn's
  prompt, 0.50 after it: the prompts read since the last other item take it too.
* ``event_msg`` — the UI's event stream, which repeats user and assistant
  text and reasoning (``user_message``, ``agent_message``,
  ``agent_reasoning``; 0.171's ``item_completed``). Such a text is used only
  when no ``response_item`` of the rollout carries the same text (an echo is
  dropped); every other event is ignored.
* ``world_state``, ``token_usage_record`` — settings and usage, ignored.

Early rollouts (before the wrapper) have a bare meta object on the first line
(``{"id", "timestamp", "instructions", "git"}``), bare response items on
the others and ``{"record_type": "state"}`` lines; they are read the same way.
Any other kind is ignored and counted in ``unknown_types``.

Tool outputs longer than :data:`MAX_TOOL_OUTPUT_CHARS` (Codex's own exec
output cap, 10,000 characters) keep their head and tail, cut at line ends.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from memctl.connectors.codex.lines import MAX_LINE_BYTES, iter_records
from memctl.connectors.model import ReadStats

__all__ = ["INJECTED_PREFIXES", "Item", "MAX_TOOL_OUTPUT_CHARS", "Rollout", "RolloutMeta", "parse_rollout",
           "parse_time", "parent_of"]

MAX_TOOL_OUTPUT_CHARS = 10_000

SUMMARY_PREFIX = "Another language model started to solve this problem"
"""How Codex's compaction hand-off begins (``compacted.message`` and the user message that replaces the history)."""

INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
                     "<skills_instructions>", "<turn_aborted>", "<subagent_notification>", "<permissions instructions>",
                     "<collaboration_mode>", "<personality_spec>", SUMMARY_PREFIX)
"""User-role messages starting with these are context Codex adds, not what the user typed."""

_IGNORED_KINDS = frozenset({"event_msg", "world_state", "token_usage_record", "turn_context"})
_SKIPPED_ITEMS = frozenset({"ghost_snapshot"})
_VOLATILE = frozenset({"id", "internal_chat_message_metadata_passthrough", "metadata", "status", "timestamp",
                       "ordinal"})
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)


def parse_time(value: Any) -> int | None:
    """Epoch milliseconds of an ISO-8601 string (``Z`` allowed) or of a number of seconds; None if neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value * 1000) if value < 1e11 else int(value)
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if dt.tzinfo is None:
            return None
        return int(dt.timestamp() * 1000)
    return None


def parent_of(meta: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(subagent parent thread id, forked-from id)`` named by a ``session_meta`` payload."""
    forked = meta.get("forked_from_id")
    parent = meta.get("parent_thread_id")
    source = meta.get("source")
    stack = [source]
    while stack and not parent:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("parent_thread_id"), str):
                parent = node["parent_thread_id"]
            stack.extend(node.values())
    return (parent if isinstance(parent, str) and parent else None,
            forked if isinstance(forked, str) and forked else None)


@dataclass(slots=True)
class RolloutMeta:
    """The first ``session_meta`` of a rollout (or what the file name says when it has none)."""

    id: str
    time_created: int
    cwd: str = ""
    cli_version: str = ""
    git: dict[str, Any] = field(default_factory=dict)
    parent_id: str | None = None
    forked_from_id: str | None = None
    originator: str = ""


@dataclass(slots=True)
class Item:
    """One content item: ``kind`` is a model part type (``text``, ``reasoning``, ``tool``, ``compaction``).

    :attr:`fingerprint` identifies the records it came from (payloads
    without volatile ids and times) so a child's copy of its parent's history
    can be recognised; it is computed on first use (most sessions have no
    child). ``time`` is epoch ms; ``cwd`` the turn's working directory.
    """

    kind: str
    role: str
    data: dict[str, Any]
    time: int
    sources: list[dict[str, Any]]
    cwd: str = ""
    _fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        """SHA-1 over the stable fields of the item's source records."""
        if self._fingerprint is None:
            digest = hashlib.sha1()
            for payload in self.sources:
                digest.update(_stable_bytes(payload))
            self._fingerprint = digest.hexdigest()
        return self._fingerprint


@dataclass(slots=True)
class Rollout:
    """A parsed rollout: its meta, content items in file order, last record time (epoch ms)."""

    path: Path
    meta: RolloutMeta
    items: list[Item]
    time_updated: int


def _stable_bytes(payload: dict[str, Any]) -> bytes:
    stable = {k: v for k, v in payload.items() if k not in _VOLATILE}
    try:
        return orjson.dumps(stable, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # integers beyond 64 bits and the like
        return json.dumps(stable, sort_keys=True, default=str).encode()


def _text_of(content: Any, kinds: tuple[str, ...]) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    pieces = []
    for part in content:
        if isinstance(part, dict) and part.get("type") in kinds and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif isinstance(part, dict) and part.get("type") in ("input_image", "image"):
            pieces.append("[image]")  # the data: URL is never kept
    return "\n".join(pieces)


def cut_output(text: str, limit: int = MAX_TOOL_OUTPUT_CHARS) -> str:
    """``text`` bounded to about ``limit`` chars: head (60 %) and tail kept, cut at line ends, with a marker."""
    if len(text) <= limit:
        return text
    head_end = text.rfind("\n", 0, int(limit * 0.6)) + 1 or int(limit * 0.6)
    tail_start = text.find("\n", len(text) - int(limit * 0.4))
    tail_start = len(text) - int(limit * 0.4) if tail_start == -1 else tail_start + 1
    return f"{text[:head_end]}… [{tail_start - head_end:,} chars of tool output cut] …\n{text[tail_start:]}"


def _output_text(output: Any) -> tuple[str, bool | None]:
    """Text of a tool output and whether it succeeded (None: not said).

    Shapes: a string (0.171); a string holding ``{"output": …, "metadata":
    {"exit_code": …}}`` (the early ``shell`` tool, 0.20: decoded, a non-zero
    exit code kept as a last line); ``{content, success}``; content items.
    """
    if isinstance(output, str):
        if output.startswith('{"output":'):
            try:
                inner = json.loads(output)
            except ValueError:
                return output, None
            if isinstance(inner, dict) and isinstance(inner.get("output"), str):
                meta = inner.get("metadata") if isinstance(inner.get("metadata"), dict) else {}
                code = meta.get("exit_code")
                suffix = f"\n(exit code {code})" if isinstance(code, int) and code != 0 else ""
                return inner["output"] + suffix, None
        return output, None
    if isinstance(output, dict):
        text, _ = _output_text(output.get("content") if "content" in output else output.get("output"))
        success = output.get("success")
        return text, success if isinstance(success, bool) else None
    if isinstance(output, list):
        return _text_of(output, ("input_text", "output_text", "text")), None
    return "", None


class _Parser:
    def __init__(self, path: Path, stats: ReadStats) -> None:
        self.path, self.stats = path, stats
        self.meta: RolloutMeta | None = None
        self.items: list[Item] = []
        self.calls: dict[str, Item] = {}
        self.echoes: list[tuple[int, Item]] = []
        self.seen_texts: set[tuple[str, str]] = set()
        self.now = 0
        self.last_stamp: Any = None
        self.pending_stamp: Any = None
        self.compactions: set[str] = set()
        self.cwd = ""

    def clock(self) -> int:
        """The latest record time so far (epoch ms); timestamps are parsed only when an item needs one."""
        if self.pending_stamp is not None:
            stamp = parse_time(self.pending_stamp)
            self.pending_stamp = None
            if stamp is not None:
                self.now = max(self.now, stamp)
        return self.now

    def add(self, kind: str, role: str, data: dict[str, Any], sources: list[dict[str, Any]]) -> Item:
        item = Item(kind, role, data, self.clock(), sources, self.cwd)
        self.items.append(item)
        return item

    def record(self, value: dict[str, Any]) -> None:
        raw_stamp = value.get("timestamp")
        if raw_stamp is not None and raw_stamp != self.last_stamp:
            self.last_stamp = self.pending_stamp = raw_stamp
        if "payload" in value and isinstance(value.get("type"), str):
            kind, payload = value["type"], value["payload"]
            if not isinstance(payload, dict):
                self.stats.warn("missing_fields", f"{self.path.name}: {kind} record without an object payload")
                return
        elif value.get("record_type") == "state":
            return
        elif "type" in value:
            kind, payload = "response_item", value  # early rollouts: bare response items
        elif "id" in value and "timestamp" in value:
            kind, payload = "session_meta", value  # early rollouts: bare meta on the first line
        else:
            self.stats.warn("unknown_types", f"{self.path.name}: record without a type")
            return
        if kind == "session_meta":
            self.session_meta(payload)
        elif kind == "response_item":
            self.response_item(payload)
        elif kind == "compacted":
            self.compacted(payload)
        elif kind == "turn_context":
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
                # Before 0.171 the turn's context follows its prompt: the prompt just read belongs to it.
                for item in reversed(self.items):
                    if item.role != "user" or item.kind != "text":
                        break
                    item.cwd = self.cwd
        elif kind == "event_msg":
            self.event(payload)
        elif kind not in _IGNORED_KINDS:
            self.stats.warn("unknown_types", f"{self.path.name}: record kind {kind!r} ignored")

    def session_meta(self, payload: dict[str, Any]) -> None:
        if self.meta is not None:
            return  # a parent's meta copied in by a fork (or a repeat): not this rollout's
        sid = payload.get("id") if isinstance(payload.get("id"), str) else ""
        created = parse_time(payload.get("timestamp"))
        parent, forked = parent_of(payload)
        git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
        self.cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
        self.meta = RolloutMeta(id=sid, time_created=created if created is not None else self.clock(), cwd=self.cwd,
                                cli_version=str(payload.get("cli_version") or ""), git=git, parent_id=parent,
                                forked_from_id=forked, originator=str(payload.get("originator") or ""))
        if created is not None:
            self.now = max(self.now, created)

    def response_item(self, p: dict[str, Any]) -> None:
        kind = p.get("type")
        fp = [p]
        if kind == "message":
            role = p.get("role")
            if role in ("developer", "system"):
                return
            if role not in ("user", "assistant"):
                self.stats.warn("unknown_roles", f"{self.path.name}: message role {role!r} skipped")
                return
            text = _text_of(p.get("content"), ("input_text", "output_text", "text"))
            if not text.strip() or (role == "user" and text.lstrip().startswith(INJECTED_PREFIXES)):
                return
            self.seen_texts.add((role, text.strip()))
            self.add("text", role, {"type": "text", "text": text}, fp)
        elif kind == "reasoning":
            summary = p.get("summary")
            text = "\n".join(s.get("text", "") for s in summary if isinstance(s, dict)) if isinstance(summary, list) else ""
            if text.strip():
                self.seen_texts.add(("reasoning", text.strip()))
                self.add("reasoning", "assistant", {"type": "reasoning", "text": text}, fp)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self.call(p, kind, fp)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(p)
        elif kind == "web_search_call":
            action = p.get("action") if isinstance(p.get("action"), dict) else {}
            self.add("tool", "assistant", {"type": "tool", "tool": "web_search", "callID": str(p.get("id") or ""),
                                           "state": {"status": "completed", "input": action, "output": ""}}, fp)
        elif kind == "compaction":
            self.add("compaction", "user", {"type": "compaction", "auto": True}, fp)
        elif kind not in _SKIPPED_ITEMS:
            self.stats.warn("unknown_types", f"{self.path.name}: response item {kind!r} ignored")

    def call(self, p: dict[str, Any], kind: str, fp: list[dict[str, Any]]) -> None:
        call_id = str(p.get("call_id") or p.get("id") or "")
        name = str(p.get("name") or ("shell" if kind == "local_shell_call" else "unknown"))
        if kind == "function_call":
            raw = p.get("arguments")
            try:
                tool_input = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                tool_input = {"raw": raw}
            if not isinstance(tool_input, dict):
                tool_input = {"arguments": tool_input}
        elif kind == "custom_tool_call":
            key = {"exec": "code", "apply_patch": "patch"}.get(name, "input")
            tool_input = {key: p.get("input") if isinstance(p.get("input"), str) else ""}
        else:
            tool_input = p.get("action") if isinstance(p.get("action"), dict) else {}
        data = {"type": "tool", "tool": name, "callID": call_id, "state": {"status": "pending", "input": tool_input}}
        item = self.add("tool", "assistant", data, fp)
        if call_id:
            self.calls[call_id] = item

    def output(self, p: dict[str, Any]) -> None:
        call_id = str(p.get("call_id") or "")
        item = self.calls.get(call_id)
        if item is None:
            self.stats.warn("orphan_parts", f"{self.path.name}: tool output for unknown call {call_id!r}")
            return
        text, success = _output_text(p.get("output"))
        state = item.data["state"]
        if success is False:
            state.update(status="error", error=cut_output(text))
        else:
            state.update(status="completed", output=cut_output(text))
        if item.data.get("tool") == "spawn_agent":
            try:  # {"agent_id": "<child thread id>", …}: the transcript places the child here
                agent = json.loads(text).get("agent_id")
            except (ValueError, AttributeError):
                agent = None
            if isinstance(agent, str) and agent:
                state["metadata"] = {"sessionId": agent}
        item.sources.append(p)
        item._fingerprint = None

    def compacted(self, p: dict[str, Any]) -> None:
        message = p.get("message") if isinstance(p.get("message"), str) else ""
        if message.startswith(SUMMARY_PREFIX) and ":\n" in message:
            message = message.split(":\n", 1)[1]  # the hand-off boilerplate before the summary
        last = self.items[-1] if self.items else None
        if (last is not None and last.kind == "text" and last.role == "assistant" and not last.data.get("summary")
                and last.data["text"].strip() == message.strip()):
            self.items.pop()  # the compaction request's answer, written as a message just before
            self.stats.duplicate_items += 1
        if message in self.compactions:
            self.stats.duplicate_items += 1
            return
        self.compactions.add(message)
        self.add("compaction", "user", {"type": "compaction", "auto": False}, [{"compaction_marker": message}])
        if message.strip():
            self.add("text", "assistant", {"type": "text", "text": message, "summary": True}, [{"compacted": message}])

    def event(self, p: dict[str, Any]) -> None:
        kind = p.get("type")
        role, text = None, ""
        if kind == "user_message":
            role, text = "user", str(p.get("message") or "")
        elif kind == "agent_message":
            role, text = "assistant", str(p.get("message") or "")
        elif kind == "agent_reasoning":
            role, text = "reasoning", str(p.get("text") or "")
        elif kind == "item_completed" and isinstance(p.get("item"), dict):
            it = p["item"]
            if it.get("type") == "UserMessage":
                role, text = "user", _text_of(it.get("content"), ("text", "Text"))
            elif it.get("type") == "AgentMessage":
                role, text = "assistant", _text_of(it.get("content"), ("text", "Text"))
        if role is None or not text.strip() or text.lstrip().startswith(INJECTED_PREFIXES):
            return
        part = "reasoning" if role == "reasoning" else "text"
        data = {"type": part, "text": text}
        self.echoes.append((len(self.items), Item(part, "assistant" if role == "reasoning" else role, data,
                                                  self.clock(), [data], self.cwd)))

    def finish(self) -> list[Item]:
        """The items with the event texts no response item carried, at their place."""
        extra = [(at, it) for at, it in self.echoes if ((("reasoning" if it.kind == "reasoning" else it.role),
                                                          it.data["text"].strip()) not in self.seen_texts)]
        if not extra:
            return self.items
        merged, last = [], 0
        for at, it in extra:
            merged.extend(self.items[last:at])
            merged.append(it)
            self.seen_texts.add(("reasoning" if it.kind == "reasoning" else it.role, it.data["text"].strip()))
            last = at
        merged.extend(self.items[last:])
        return merged


def id_from_name(path: Path) -> str:
    """The uuid at the end of a rollout file name, or the file stem."""
    m = _UUID.search(path.name)
    return m.group(1).lower() if m else path.stem


def parse_rollout(path: Path, stats: ReadStats, max_line_bytes: int = MAX_LINE_BYTES) -> Rollout:
    """Read one rollout file (streaming, bounded lines) into a :class:`Rollout`.

    Never raises for content: bad lines are counted in ``stats``. A rollout
    without a ``session_meta`` takes its id from the file name and its times
    from its records (or the file's modification time).

    Raises:
        OSError: the file cannot be opened.
    """
    parser = _Parser(path, stats)
    for record in iter_records(path, stats, max_line_bytes):
        parser.record(record.value)
    items = parser.finish()
    parser.pending_stamp = parser.last_stamp
    parser.clock()
    meta = parser.meta
    if meta is None or not meta.id:
        fallback = items[0].time if items else int(path.stat().st_mtime * 1000)
        meta = RolloutMeta(id=id_from_name(path), time_created=meta.time_created if meta else fallback,
                           cwd=meta.cwd if meta else "")
    updated = max([meta.time_created, parser.now] + [it.time for it in items])
    return Rollout(path=path, meta=meta, items=items, time_updated=updated)
