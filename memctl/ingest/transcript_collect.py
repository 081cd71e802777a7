"""Collect: one root session's parts into fields, entries and subagent sections (nothing scrubbed yet).

The first stage of :func:`memctl.ingest.transcript.build_transcript`: lifecycle
parts are dropped and counted, every other part becomes one :class:`Entry` of
literal markup and indexes into :attr:`Collector.fields` (the strings taken from
the session, scrubbed and bounded next by :mod:`memctl.ingest.transcript_bound`),
and subagent sessions are folded in at the ``task`` call that started them or
at their creation time. Part data is OpenCode's message-v2 JSON
(``packages/opencode/src/session/message-v2.ts``); the other connectors map
their records to it. A credential file's values are redacted here, by value,
as the tool part is read (:mod:`memctl.scrub.sensitive_source`).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from memctl.config import Settings
from memctl.connectors.model import Part, Session
from memctl.scrub.sensitive_source import KIND as SOURCE_KIND, redact_tool_part

LIFECYCLE_PART_TYPES = frozenset({"step-start", "step-finish", "snapshot", "retry", "agent"})
"""OpenCode message-v2 part types that carry no content (dropped and counted)."""

TOOL_STATUSES = ("pending", "running", "completed", "error")
"""message-v2 ``ToolState`` statuses (OpenCode ``packages/opencode/src/session/message-v2.ts``)."""


_HEAD_SHARE_TEXT = 0.6
_HEAD_SHARE_REASONING = 1.0
_HEAD_SHARE_TOOL_INPUT = 0.8
_HEAD_SHARE_TOOL_OUTPUT = 0.3
MAX_TITLE_CHARS = 300
MAX_PATH_CHARS = 500
MAX_NAME_CHARS = 200
_MAX_PATCH_FILES = 60
_TASK_ID_OUTPUT = re.compile(r'(?:<task id="([^"\s]+)"|task_id: (\S+))')
UNTITLED = "(untitled)"
"""The header title of a session without a title and without user text to derive one from."""


@dataclass(slots=True)
class Field:
    """One string taken from the session: scrubbed, then maybe bounded."""

    raw: str
    limit: int | None = None  # None: not bounded (short metadata)
    head_share: float = 1.0
    # Filled in by scrub_and_bound:
    text: str = ""
    cut: int = 0
    window: tuple[int, int] | None = None  # (head_end, tail_start): only raw[:head_end] and raw[tail_start:] scrubbed


# An entry is a list of segments: literal markup (str), a field index (int),
# or ("fence", field index, info string) for a fenced block.
Segment = str | int | tuple[str, int, str]


@dataclass(slots=True)
class Entry:
    """One rendered unit (a part): its segments, the subagent sections it sits in, the fields it shows."""

    segments: list[Segment]
    path: tuple[int, ...]  # indexes into Collector.sections, outermost first
    field_ids: list[int]


@dataclass(slots=True)
class Section:
    """A subagent session folded into the transcript: its id, title field and first entry (-1 until placed)."""

    session_id: str
    title_field: int
    first_entry: int = -1
    derive_from: int | None = None  # a placeholder title: derive it from this (user text) field


@dataclass(slots=True)
class Block:
    """Entries that stay together when children are placed by time."""

    time: int
    entries: list[Entry]


class Collector:
    """Collects fields, entries, sections and counters for one root session (``settings`` gives the bounds)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.fields: list[Field] = []
        self.sections: list[Section] = []
        self.dropped_lifecycle = 0
        self.user_chars = 0
        self.substance_chars = 0
        self.tool_calls = 0
        self.unknown_parts: dict[str, int] = {}
        self.child_ids: list[str] = []
        self.compacted_outputs = 0
        self.read_warnings: dict[str, int] = {}
        self.first_user_field: dict[tuple[int, ...], int] = {}  # section path → its first user text field
        self.source_redactions: dict[str, int] = {}  # values of credential files, redacted by value

    def warn(self, kind: str) -> None:
        self.read_warnings[kind] = self.read_warnings.get(kind, 0) + 1

    def add_field(self, raw: str, limit: int | None = None, head_share: float = 1.0) -> int:
        self.fields.append(Field(raw=raw, limit=limit, head_share=head_share))
        return len(self.fields) - 1

    # -- sessions ---------------------------------------------------------

    def collect(self, session: Session, path: tuple[int, ...], is_root: bool) -> list[Entry]:
        """Return the entries of ``session`` in order, its children folded in."""
        children = {child.info.id: child for child in session.children}
        placed: set[str] = set()
        blocks: list[Block] = []
        for part in session.parts:
            entry = self.part_entry(part, path, is_root)
            if entry is None:
                continue
            block = Block(time=part.time_created, entries=[entry])
            child_id = _spawned_child_id(part) if part.type == "tool" else None
            if child_id is not None and child_id in children:
                if child_id in placed:
                    note = self.add_field(child_id, MAX_NAME_CHARS)
                    entry.segments.extend(["\n_(continues subagent session ", note, ", shown above)_"])
                    entry.field_ids.append(note)
                else:
                    placed.add(child_id)
                    block.entries.extend(self.child_entries(children[child_id], path))
            blocks.append(block)
        # Children not tied to a task call: at their creation time (stable).
        times = [block.time for block in blocks]
        for child in session.children:
            if child.info.id in placed:
                continue
            at = bisect_right(times, child.info.time_created)
            blocks.insert(at, Block(time=child.info.time_created, entries=self.child_entries(child, path)))
            times.insert(at, child.info.time_created)
        return [entry for block in blocks for entry in block.entries]

    def child_entries(self, child: Session, path: tuple[int, ...]) -> list[Entry]:
        self.child_ids.append(child.info.id)
        placeholder = child.info.title_is_placeholder or not child.info.title.strip()
        title = self.add_field(UNTITLED if placeholder else child.info.title, MAX_TITLE_CHARS)
        section = Section(session_id=child.info.id, title_field=title)
        self.sections.append(section)
        child_path = path + (len(self.sections) - 1,)
        entries = self.collect(child, child_path, is_root=False)
        if placeholder:
            section.derive_from = self.first_user_field.get(child_path)
        if not entries:
            entries = [Entry(["_(no content parts)_"], child_path, [])]
        return entries

    # -- parts ------------------------------------------------------------

    def part_entry(self, part: Part, path: tuple[int, ...], is_root: bool) -> Entry | None:
        """Render one part as an entry, or None when it is dropped."""
        data = part.data if isinstance(part.data, dict) else {}
        kind = part.type
        if kind in LIFECYCLE_PART_TYPES:
            self.dropped_lifecycle += 1
            return None
        if kind == "text":
            if data.get("synthetic") or data.get("ignored"):
                self.dropped_lifecycle += 1
                return None
            return self.text_entry(part, data, path, is_root)
        if kind == "reasoning":
            text = _as_text(data.get("text")).strip()
            if not text:
                return None
            self.substance_chars += len(text)
            f = self.add_field(text, self.settings.max_reasoning_chars, _HEAD_SHARE_REASONING)
            return Entry(["**Reasoning (hint):** ", f], path, [f])
        if kind == "tool":
            return self.tool_entry(data, path)
        if kind == "file":
            return self.file_entry(data, path)
        if kind == "patch":
            return self.patch_entry(data, path)
        if kind == "subtask":
            return self.subtask_entry(data, path, counts_as_user=is_root and part.role == "user")
        if kind == "compaction":
            label = "[context compacted]" if not data.get("auto") else "[context compacted automatically]"
            return Entry([label], path, [])
        self.unknown_parts[kind] = self.unknown_parts.get(kind, 0) + 1
        self.warn("unknown_part_types")
        return None

    def text_entry(self, part: Part, data: dict[str, Any], path: tuple[int, ...], is_root: bool) -> Entry | None:
        text = _as_text(data.get("text")).strip()
        if not text:
            return None
        self.substance_chars += len(text)
        if part.role == "user":
            if is_root:
                self.user_chars += len(text)
                label = "**User:** "
            else:
                label = "**User (parent agent's task prompt):** "
        else:
            label = "**Assistant:** "
        f = self.add_field(text, self.settings.max_text_chars, _HEAD_SHARE_TEXT)
        if part.role == "user":
            self.first_user_field.setdefault(path, f)
        return Entry([label, f], path, [f])

    def tool_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> Entry:
        self.tool_calls += 1
        settings = self.settings
        if isinstance(data.get("state"), dict):
            state = data["state"]
        else:
            state = {}
            self.warn("tool_parts_without_state")
        status = _as_text(state.get("status")) or "unknown"
        if state and status not in TOOL_STATUSES:
            self.warn("unknown_tool_status")
        name = self.add_field(_as_text(data.get("tool")) or "unknown", MAX_NAME_CHARS)
        segments: list[Segment] = ["**Tool `", name, "`** — ", status]
        ids = [name]
        title = _as_text(state.get("title")).strip()
        if title:
            t = self.add_field(title, MAX_TITLE_CHARS)
            segments.extend([" — ", t])
            ids.append(t)
        times = state.get("time")
        if status == "completed" and isinstance(times, dict) and times.get("compacted"):
            # OpenCode pruned this output from its own context: old, bulky, already used.
            self.compacted_outputs += 1
            segments.append(" — output compacted by OpenCode, left out")
            return Entry(segments, path, ids)

        tool_input = state.get("input")
        output = _as_text(state.get("output")) if status == "completed" else ""
        output_chars = len(output)  # substance is measured on what the tool printed
        # A credential file read, written or printed: every value goes, keys stay (before any bound).
        original_input = tool_input
        tool_input, output, by_value = redact_tool_part(_as_text(data.get("tool")), tool_input, output)
        if by_value:
            self.source_redactions[SOURCE_KIND] = self.source_redactions.get(SOURCE_KIND, 0) + by_value
        if tool_input in (None, {}, []) and state.get("raw"):
            input_text = _as_text(state.get("raw"))
        elif tool_input in (None, {}, []):
            input_text = ""
        else:
            input_text = json.dumps(tool_input, ensure_ascii=False, default=str)
        if input_text:
            self.substance_chars += len(input_text) if original_input is tool_input else len(
                json.dumps(original_input, ensure_ascii=False, default=str)
            )
            i = self.add_field(input_text, settings.max_tool_input_chars, _HEAD_SHARE_TOOL_INPUT)
            segments.extend(["\nInput:\n", ("fence", i, "json")])
            ids.append(i)

        if status == "completed":
            self.substance_chars += output_chars
            if output.strip():
                o = self.add_field(output, settings.max_tool_output_chars, _HEAD_SHARE_TOOL_OUTPUT)
                segments.extend(["\nOutput:\n", ("fence", o, "")])
                ids.append(o)
            else:
                segments.append("\nOutput: (empty)")
        elif status == "error":
            error = _as_text(state.get("error"))
            self.substance_chars += len(error)
            e = self.add_field(error or "(no message)", settings.max_tool_output_chars, _HEAD_SHARE_TOOL_OUTPUT)
            segments.extend(["\nError:\n", ("fence", e, "")])
            ids.append(e)
        else:
            segments.append(f"\n(no output: the call was {status} when the session was recorded)")

        attachments = state.get("attachments")
        if isinstance(attachments, list) and attachments:
            names = ", ".join(_file_label(a) for a in attachments if isinstance(a, dict))
            if names:
                a = self.add_field(names, settings.max_tool_input_chars)
                segments.extend(["\nAttachments: ", a])
                ids.append(a)
        return Entry(segments, path, ids)

    def file_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> Entry:
        f = self.add_field(_file_label(data), MAX_PATH_CHARS)
        return Entry(["**Attached file:** ", f], path, [f])

    def patch_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> Entry | None:
        """OpenCode PatchPart: the files a step changed (absolute paths), listed
        up to ``max_tool_input_chars`` then counted."""
        raw_files = data.get("files")
        files = [_as_text(f) for f in raw_files if _as_text(f)] if isinstance(raw_files, list) else []
        if not files:
            return None
        budget = self.settings.max_tool_input_chars
        listed: list[str] = []
        used = 0
        for name in files[:_MAX_PATCH_FILES]:
            if listed and used + len(name) + 2 > budget:
                break
            listed.append(name)
            used += len(name) + 2
        text = ", ".join(listed)
        if len(listed) < len(files):
            text += f", … and {len(files) - len(listed)} more"
        f = self.add_field(text)
        return Entry([f"**Files changed ({len(files)}):** ", f], path, [f])

    def subtask_entry(self, data: dict[str, Any], path: tuple[int, ...], counts_as_user: bool) -> Entry:
        """OpenCode SubtaskPart: a command run as a subtask (``run --command``
        with ``subtask: true``); in the root user message it is what the user
        asked for, so its prompt counts as user text."""
        agent = self.add_field(_as_text(data.get("agent")) or "unknown", MAX_NAME_CHARS)
        description = self.add_field(_as_text(data.get("description")), MAX_TITLE_CHARS)
        prompt_text = _as_text(data.get("prompt")).strip()
        self.substance_chars += len(prompt_text)
        if counts_as_user:
            self.user_chars += len(prompt_text)
        prompt = self.add_field(prompt_text, self.settings.max_text_chars, _HEAD_SHARE_TEXT)
        if counts_as_user and prompt_text:
            self.first_user_field.setdefault(path, prompt)
        segments: list[Segment] = ["**Subtask for agent `", agent, "`:** ", description, "\nPrompt: ", prompt]
        ids = [agent, description, prompt]
        command = _as_text(data.get("command"))
        if command:
            c = self.add_field(command, MAX_NAME_CHARS)
            segments.extend(["\nCommand: ", c])
            ids.append(c)
        return Entry(segments, path, ids)


def _as_text(value: Any) -> str:
    """A JSON value as text: strings as is, None as '', others as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _file_label(data: dict[str, Any]) -> str:
    """``name (mime)`` for an OpenCode FilePart; never its ``url`` (may be base64 data)."""
    name = _as_text(data.get("filename"))
    source = data.get("source")
    if not name and isinstance(source, dict):
        name = _as_text(source.get("path")) or _as_text(source.get("uri"))
    if not name:
        url = _as_text(data.get("url"))
        name = url[len("file://") :] if url.startswith("file://") else "(unnamed)"
    mime = _as_text(data.get("mime")) or "unknown type"
    return f"{name} ({mime})"


def _spawned_child_id(part: Part) -> str | None:
    """The subagent session a ``task`` tool call started (OpenCode tool/task.ts).

    ``state.metadata.sessionId`` is set as soon as the child exists (1.18:
    next to ``parentSessionId``); the completed output also names it
    (1.18: ``<task id="ses_…" state="completed">``; earlier versions:
    ``task_id: ses_…``); a resumed task names it in ``state.input.task_id``.
    """
    data = part.data if isinstance(part.data, dict) else {}
    state = data.get("state")
    if not isinstance(state, dict):
        return None
    metadata = state.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("sessionId"), str):
        return metadata["sessionId"]
    output = state.get("output")
    if isinstance(output, str):
        found = _TASK_ID_OUTPUT.match(output)
        if found:
            return found.group(1) or found.group(2)
    tool_input = state.get("input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("task_id"), str):
        return tool_input["task_id"]
    return None


# ---------------------------------------------------------------------------
# Scrub, then bound
# ---------------------------------------------------------------------------
