"""Normalize one session into the bounded, scrubbed Markdown the distiller reads.

Pipeline (the ingester's "Before the LLM" steps, in this order):

1. Drop lifecycle parts: ``step-start``, ``step-finish``, ``snapshot``,
   ``retry``, ``agent`` and synthetic or ignored text. ``compaction`` becomes
   a one-line ``[context compacted]`` marker.
2. Turn every remaining part into one *entry* (OpenCode part.data JSON,
   message-v2 schema — see ``connectors/model.py``):

   ==========  ===========================================================
   text        the text, bounded by ``max_text_chars``
   reasoning   a hint, bounded by ``max_reasoning_chars`` (head only)
   tool        name, status, title; ``state.input`` as JSON bounded by
               ``max_tool_input_chars``; ``state.output`` (completed) or
               ``state.error`` (error) bounded by ``max_tool_output_chars``,
               keeping more of the end (errors are usually there);
               pending/running say so; attachments by filename/mime only.
               An output OpenCode has pruned from its own context
               (``state.time.compacted`` set: ``SessionCompaction.prune`` in
               ``packages/opencode/src/session/compaction.ts``; its model
               then sees ``[Old tool result content cleared]``) is left out:
               the entry is one line, name, status, title and a marker
   file        filename (or source path) and mime only — never ``url``,
               which is often a base64 ``data:`` URL
   patch       the list of changed files
   subtask     agent, description and prompt (bounded like text)
   ==========  ===========================================================

3. A tool part that reads, writes or prints a credential file (``.env``, ``*.pem``,
   ``.netrc``…: :mod:`memctl.scrub.sensitive_source`) has every value of it redacted, keys
   kept, when the entry is collected. Then scrub secrets (:mod:`memctl.scrub.core`) on the FULL field text first, then
   bound it, so a cut never leaves half a secret behind; the header (title,
   directory, project) is scrubbed the same way. Every cut says how much
   was cut: ``… [truncated 12,345 chars]``.
4. Fold subagent sessions in at the ``task`` tool call that started them
   (``state.metadata.sessionId``, else the ``task_id:`` line of its output),
   otherwise at their creation time, inside ``### Subagent session <id>:
   <title>`` … ``### End of subagent session <id>``.
5. Sample: if the entries exceed ``transcript_budget_chars``, keep head
   entries up to ``head_fraction`` of the budget and tail entries for the
   rest, with ``[… omitted N entries (M chars) from the middle of the
   session …]`` between them.
6. Substance threshold: a session whose user text is under
   ``min_user_chars`` AND whose content is under ``min_substance_chars`` gets
   a ``skip_reason`` (no model call needed).

Titles: a placeholder title (``SessionInfo.title_is_placeholder``, e.g.
OpenCode's ``New session - <ISO time>``) or an empty one is replaced by one
derived from the session's first user text (a subtask prompt the user ran
counts), after scrubbing (:func:`derive_title`); subagent section headers
likewise.

Rows the normalizer does not know are counted in ``read_warnings`` by kind:
``unknown_part_types``, ``tool_parts_without_state`` (rendered with status
``unknown``), ``unknown_tool_status``.

The output is deterministic: the same session always gives the same bytes
(the SHA-256 is used for provenance and caching). Sizes are characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from memctl.config import Settings
from memctl.connectors.model import Part, Session
from memctl.connectors.registry import LABELS
from memctl.scrub.core import multiline_secret_before, scrub_texts
from memctl.scrub.sensitive_source import KIND as SOURCE_KIND, redact_tool_part

__all__ = ["Transcript", "build_transcript", "derive_title", "LIFECYCLE_PART_TYPES", "CHARS_PER_TOKEN",
           "TOOL_STATUSES", "UNTITLED"]

LIFECYCLE_PART_TYPES = frozenset({"step-start", "step-finish", "snapshot", "retry", "agent"})
"""OpenCode message-v2 part types that carry no content (dropped and counted)."""

TOOL_STATUSES = ("pending", "running", "completed", "error")
"""message-v2 ``ToolState`` statuses (OpenCode ``packages/opencode/src/session/message-v2.ts``)."""

MAX_DERIVED_TITLE_CHARS = 80
UNTITLED = "(untitled)"
"""The header title of a session without a title and without user text to derive one from."""

CHARS_PER_TOKEN = 4
"""``estimated_tokens = len(text) // CHARS_PER_TOKEN``: the usual ~4 characters
per token of BPE tokenizers on English and code; an estimate, not a count."""

# Share of a bounded field kept from its start (the rest comes from its end).
_HEAD_SHARE_TEXT = 0.6
_HEAD_SHARE_REASONING = 1.0
_HEAD_SHARE_TOOL_INPUT = 0.8
_HEAD_SHARE_TOOL_OUTPUT = 0.3

# Fields far longer than their bound are scrubbed only in windows around the
# kept head and tail, reaching this far past each cut and then to whitespace
# (see _scrub_windows).
_SCRUB_WINDOW_MARGIN = 1024
_WHITESPACE_REACH = 16384
_WHITESPACE = re.compile(r"\s")
_LINE_SNAP = 200  # a cut moves to a line break this close, for readability
_MAX_TITLE_CHARS = 300
_MAX_PATH_CHARS = 500
_MAX_NAME_CHARS = 200
_MAX_PATCH_FILES = 60
_TASK_ID_OUTPUT = re.compile(r'(?:<task id="([^"\s]+)"|task_id: (\S+))')
_TITLE_LEAD = re.compile(r"^(?:[#>*_`~\-\s]|\d+[.)]\s)+")
_BACKTICK_RUN = re.compile(r"`{3,}")


@dataclass(slots=True)
class Transcript:
    """The model input for one session plus what was done to produce it.

    Attributes:
        source_id: the root session id (memctl's source id).
        text: final Markdown: a short header, then the entries.
        sha256: hex SHA-256 of ``text`` encoded as UTF-8.
        entries: number of entries present in ``text`` (after sampling).
        omitted_entries: entries left out by head + tail sampling.
        omitted_chars: characters of those omitted entries.
        dropped_lifecycle: lifecycle parts dropped (step-start, step-finish,
            snapshot, retry, agent, synthetic/ignored text), children included.
        truncated: parts with at least one field cut to its bound.
        redactions: secrets replaced, per kind (``{"github_token": 1}``).
        user_chars: characters of the root session's own user text.
        substance_chars: characters of content before bounding: user and
            assistant text, reasoning, tool input and output/error, subtask
            prompts (children included).
        tool_calls: tool parts (children included).
        estimated_tokens: ``len(text) // 4`` (see :data:`CHARS_PER_TOKEN`).
        skip_reason: why the session should be skipped without a model call
            (empty, or below the substance threshold); None to distill it.
        child_session_ids: every descendant session id, depth first.
        unknown_parts: part types this module does not know, with counts
            (not rendered: a new OpenCode part type shows up here).
        title: the session's title for notes and indexes, scrubbed: the
            source's own, or for a placeholder (or empty) one the title
            derived from the first user text; None when there is none to
            derive from (the caller may derive one from the note's summary).
        original_title: the scrubbed placeholder ``title`` replaced (None
            when the source's title is kept, or was empty).
        compacted_outputs: tool outputs left out because OpenCode had pruned them.
        read_warnings: rows not understood, counted by kind (see the module doc).
    """

    source_id: str
    text: str
    sha256: str
    entries: int
    omitted_entries: int
    omitted_chars: int
    dropped_lifecycle: int
    truncated: int
    redactions: dict[str, int]
    user_chars: int
    substance_chars: int
    tool_calls: int
    estimated_tokens: int
    skip_reason: str | None
    child_session_ids: list[str]
    unknown_parts: dict[str, int] = field(default_factory=dict)
    title: str | None = None
    original_title: str | None = None
    compacted_outputs: int = 0
    read_warnings: dict[str, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Field:
    """One string taken from the session: scrubbed, then maybe bounded."""

    raw: str
    limit: int | None = None  # None: not bounded (short metadata)
    head_share: float = 1.0
    # Filled in by _scrub_and_bound:
    text: str = ""
    cut: int = 0
    window: tuple[int, int] | None = None  # (head_end, tail_start): only raw[:head_end] and raw[tail_start:] scrubbed


# An entry is a list of segments: literal markup (str), a field index (int),
# or ("fence", field index, info string) for a fenced block.
_Segment = str | int | tuple[str, int, str]


@dataclass(slots=True)
class _Entry:
    segments: list[_Segment]
    path: tuple[int, ...]  # indexes into _Builder.sections, outermost first
    field_ids: list[int]


@dataclass(slots=True)
class _Section:
    session_id: str
    title_field: int
    first_entry: int = -1
    derive_from: int | None = None  # a placeholder title: derive it from this (user text) field


@dataclass(slots=True)
class _Block:
    """Entries that stay together when children are placed by time."""

    time: int
    entries: list[_Entry]


class _Builder:
    """Collects fields, entries, sections and counters for one root session."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.fields: list[_Field] = []
        self.sections: list[_Section] = []
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
        self.fields.append(_Field(raw=raw, limit=limit, head_share=head_share))
        return len(self.fields) - 1

    # -- sessions ---------------------------------------------------------

    def collect(self, session: Session, path: tuple[int, ...], is_root: bool) -> list[_Entry]:
        """Return the entries of ``session`` in order, its children folded in."""
        children = {child.info.id: child for child in session.children}
        placed: set[str] = set()
        blocks: list[_Block] = []
        for part in session.parts:
            entry = self.part_entry(part, path, is_root)
            if entry is None:
                continue
            block = _Block(time=part.time_created, entries=[entry])
            child_id = _spawned_child_id(part) if part.type == "tool" else None
            if child_id is not None and child_id in children:
                if child_id in placed:
                    note = self.add_field(child_id, _MAX_NAME_CHARS)
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
            blocks.insert(at, _Block(time=child.info.time_created, entries=self.child_entries(child, path)))
            times.insert(at, child.info.time_created)
        return [entry for block in blocks for entry in block.entries]

    def child_entries(self, child: Session, path: tuple[int, ...]) -> list[_Entry]:
        self.child_ids.append(child.info.id)
        placeholder = child.info.title_is_placeholder or not child.info.title.strip()
        title = self.add_field(UNTITLED if placeholder else child.info.title, _MAX_TITLE_CHARS)
        section = _Section(session_id=child.info.id, title_field=title)
        self.sections.append(section)
        child_path = path + (len(self.sections) - 1,)
        entries = self.collect(child, child_path, is_root=False)
        if placeholder:
            section.derive_from = self.first_user_field.get(child_path)
        if not entries:
            entries = [_Entry(["_(no content parts)_"], child_path, [])]
        return entries

    # -- parts ------------------------------------------------------------

    def part_entry(self, part: Part, path: tuple[int, ...], is_root: bool) -> _Entry | None:
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
            return _Entry(["**Reasoning (hint):** ", f], path, [f])
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
            return _Entry([label], path, [])
        self.unknown_parts[kind] = self.unknown_parts.get(kind, 0) + 1
        self.warn("unknown_part_types")
        return None

    def text_entry(self, part: Part, data: dict[str, Any], path: tuple[int, ...], is_root: bool) -> _Entry | None:
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
        return _Entry([label, f], path, [f])

    def tool_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> _Entry:
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
        name = self.add_field(_as_text(data.get("tool")) or "unknown", _MAX_NAME_CHARS)
        segments: list[_Segment] = ["**Tool `", name, "`** — ", status]
        ids = [name]
        title = _as_text(state.get("title")).strip()
        if title:
            t = self.add_field(title, _MAX_TITLE_CHARS)
            segments.extend([" — ", t])
            ids.append(t)
        times = state.get("time")
        if status == "completed" and isinstance(times, dict) and times.get("compacted"):
            # OpenCode pruned this output from its own context: old, bulky, already used.
            self.compacted_outputs += 1
            segments.append(" — output compacted by OpenCode, left out")
            return _Entry(segments, path, ids)

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
        return _Entry(segments, path, ids)

    def file_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> _Entry:
        f = self.add_field(_file_label(data), _MAX_PATH_CHARS)
        return _Entry(["**Attached file:** ", f], path, [f])

    def patch_entry(self, data: dict[str, Any], path: tuple[int, ...]) -> _Entry | None:
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
        return _Entry([f"**Files changed ({len(files)}):** ", f], path, [f])

    def subtask_entry(self, data: dict[str, Any], path: tuple[int, ...], counts_as_user: bool) -> _Entry:
        """OpenCode SubtaskPart: a command run as a subtask (``run --command``
        with ``subtask: true``); in the root user message it is what the user
        asked for, so its prompt counts as user text."""
        agent = self.add_field(_as_text(data.get("agent")) or "unknown", _MAX_NAME_CHARS)
        description = self.add_field(_as_text(data.get("description")), _MAX_TITLE_CHARS)
        prompt_text = _as_text(data.get("prompt")).strip()
        self.substance_chars += len(prompt_text)
        if counts_as_user:
            self.user_chars += len(prompt_text)
        prompt = self.add_field(prompt_text, self.settings.max_text_chars, _HEAD_SHARE_TEXT)
        if counts_as_user and prompt_text:
            self.first_user_field.setdefault(path, prompt)
        segments: list[_Segment] = ["**Subtask for agent `", agent, "`:** ", description, "\nPrompt: ", prompt]
        ids = [agent, description, prompt]
        command = _as_text(data.get("command"))
        if command:
            c = self.add_field(command, _MAX_NAME_CHARS)
            segments.extend(["\nCommand: ", c])
            ids.append(c)
        return _Entry(segments, path, ids)


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


def _split_point(limit: int, head_share: float) -> tuple[int, int]:
    head = int(limit * head_share)
    return head, limit - head


def _head_end(text: str, end: int) -> int:
    """Where to end a kept head of about ``end`` chars.

    Snapped back to a line break when one is within :data:`_LINE_SNAP` chars
    (and a quarter of the head), and never inside a redaction marker.
    """
    end = min(end, len(text))
    newline = text.rfind("\n", max(0, end - min(_LINE_SNAP, end // 4)), end)
    if newline > 0:
        end = newline
    start = text.rfind("[REDACTED:", max(0, end - 40), end)
    if start != -1:
        close = text.find("]", start)
        if close == -1 or close >= end:
            return start
    return end


def _tail_start(text: str, start: int) -> int:
    """Where to start a kept tail of about ``len(text) - start`` chars.

    Snapped forward past a line break when one is within :data:`_LINE_SNAP`
    chars (and a quarter of the tail), and never inside a redaction marker.
    """
    start = max(0, start)
    newline = text.find("\n", start, start + min(_LINE_SNAP, (len(text) - start) // 4))
    if newline != -1 and newline + 1 < len(text):
        start = newline + 1
    begin = text.rfind("[REDACTED:", max(0, start - 40), start)
    if begin != -1:
        close = text.find("]", begin)
        if close != -1 and close >= start:
            return close + 1
    return start


def _join_cut(head_text: str, tail_text: str, cut: int) -> str:
    marker = f"… [truncated {cut:,} chars]"
    if tail_text:
        return f"{head_text}\n{marker}\n{tail_text}"
    return f"{head_text}\n{marker}"


def _bound(text: str, limit: int, head_share: float) -> tuple[str, int]:
    """Cut ``text`` to about ``limit`` chars (head + tail) plus a cut line; return (text, chars cut)."""
    if len(text) <= limit:
        return text, 0
    head, tail = _split_point(limit, head_share)
    head_text = text[: _head_end(text, head)]
    tail_text = text[_tail_start(text, len(text) - tail) :] if tail else ""
    cut = len(text) - len(head_text) - len(tail_text)
    return _join_cut(head_text, tail_text, cut), cut


def _bound_windows(head_window: str, tail_window: str, limit: int, head_share: float, total: int) -> tuple[str, int]:
    """Like :func:`_bound` for a field scrubbed as two windows of a ``total``-char text."""
    head, tail = _split_point(limit, head_share)
    head_text = head_window[: _head_end(head_window, head)]
    tail_text = tail_window[_tail_start(tail_window, len(tail_window) - tail) :] if tail else ""
    cut = max(0, total - len(head_text) - len(tail_text))
    return _join_cut(head_text, tail_text, cut), cut


def _scrub_windows(raw: str, limit: int | None, head_share: float) -> tuple[int, int] | None:
    """``(head_end, tail_start)`` of the two windows to scrub for an oversize field, or None.

    The windows reach :data:`_SCRUB_WINDOW_MARGIN` chars past the kept head
    and before the kept tail, then out to the nearest whitespace, so a
    whitespace-free secret (token, JWT, URL) is never split by a window edge
    and any shorter multi-word one (``password: …``) overlapping the kept text
    is seen whole. None (scrub everything) when the field is not much longer
    than its bound, no whitespace is near the edges, or a private key block
    starts before the tail window (a PEM body has no marker of its own).
    """
    if limit is None or len(raw) <= limit + 3 * _SCRUB_WINDOW_MARGIN:
        return None
    head, tail = _split_point(limit, head_share)
    found = _WHITESPACE.search(raw, head + _SCRUB_WINDOW_MARGIN, head + _SCRUB_WINDOW_MARGIN + _WHITESPACE_REACH)
    if found is None:
        return None
    head_end = found.start()
    tail_edge = len(raw) - tail - _SCRUB_WINDOW_MARGIN
    tail_start = max(raw.rfind(c, max(0, tail_edge - _WHITESPACE_REACH), tail_edge) for c in " \n\t")
    if tail_start < 0 or tail_start <= head_end:
        return None
    if multiline_secret_before(raw, tail_start + 64):
        return None
    return head_end, tail_start


def _scrub_and_bound(fields: list[_Field]) -> dict[str, int]:
    """Scrub every field on its full text, then bound it; return redaction counts.

    A field much longer than its bound is scrubbed only in two windows around
    the kept head and tail (:func:`_scrub_windows`).

    Cut text is not scrubbed again: every secret was replaced on the full
    text, so a cut can only produce a look-alike of a secret out of
    non-secret text (e.g. a long identifier cut to 20 characters), never
    expose one.
    """
    inputs: list[str] = []
    for f in fields:
        raw = f.raw
        window = _scrub_windows(raw, f.limit, f.head_share)
        if window is not None:
            f.window = window
            inputs.append(raw[: window[0]])
            inputs.append(raw[window[1] :])
        else:
            inputs.append(raw)

    scrubbed, counts = scrub_texts(inputs)

    position = 0
    for f in fields:
        if f.window is not None:
            head_window, tail_window = scrubbed[position], scrubbed[position + 1]
            position += 2
            assert f.limit is not None
            f.text, f.cut = _bound_windows(head_window, tail_window, f.limit, f.head_share, len(f.raw))
        else:
            text = scrubbed[position]
            position += 1
            if f.limit is not None:
                f.text, f.cut = _bound(text, f.limit, f.head_share)
            else:
                f.text = text
    return counts


# ---------------------------------------------------------------------------
# Rendering and sampling
# ---------------------------------------------------------------------------


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in _BACKTICK_RUN.findall(text)), default=2)
    return "`" * max(3, longest + 1)


def _render_entry(entry: _Entry, fields: list[_Field]) -> str:
    out: list[str] = []
    for segment in entry.segments:
        if isinstance(segment, str):
            out.append(segment)
        elif isinstance(segment, int):
            out.append(fields[segment].text)
        else:
            _, index, info = segment
            body = fields[index].text.rstrip("\n")
            fence = _fence_for(body) if "```" in body else "```"
            out.append(f"{fence}{info}\n{body}\n{fence}")
    return "".join(out)


def _format_time(ms: int) -> str:
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return "unknown"


def _section_open(section: _Section, fields: list[_Field], continued: bool) -> str:
    title = fields[section.title_field].text
    if section.derive_from is not None:
        title = derive_title(fields[section.derive_from].text) or title
    suffix = " (continued)" if continued else ""
    return f"### Subagent session {section.session_id}: {title}{suffix}"


def _section_close(section: _Section) -> str:
    return f"### End of subagent session {section.session_id}"


def _assemble(
    rendered: list[str],
    entries: list[_Entry],
    sections: list[_Section],
    fields: list[_Field],
    keep: list[int],
    omission: tuple[int, str] | None,
) -> list[str]:
    """Join kept entries with subagent section markers at path changes.

    ``omission`` is (position in ``keep`` before which the omission marker
    goes, marker text). A section re-entered after the omission, or first
    seen after it although it started earlier, is headed "(continued)".
    """
    blocks: list[str] = []
    open_path: tuple[int, ...] = ()
    for position, index in enumerate(keep):
        if omission is not None and position == omission[0]:
            blocks.append(omission[1])
        path = entries[index].path
        common = 0
        while common < len(open_path) and common < len(path) and open_path[common] == path[common]:
            common += 1
        for section_index in reversed(open_path[common:]):
            blocks.append(_section_close(sections[section_index]))
        for section_index in path[common:]:
            section = sections[section_index]
            blocks.append(_section_open(section, fields, continued=section.first_entry < index))
        open_path = path
        blocks.append(rendered[index])
    if omission is not None and omission[0] >= len(keep):
        blocks.append(omission[1])
    for section_index in reversed(open_path):
        blocks.append(_section_close(sections[section_index]))
    return blocks


def _sample(sizes: list[int], budget: int, head_fraction: float) -> tuple[int, int]:
    """Return (head_count, tail_start): keep ``[:head_count]`` and ``[tail_start:]``."""
    total = sum(sizes)
    if total <= budget:
        return len(sizes), len(sizes)
    head_budget = int(budget * min(max(head_fraction, 0.0), 1.0))
    used = 0
    head_count = 0
    while head_count < len(sizes) and used + sizes[head_count] <= head_budget:
        used += sizes[head_count]
        head_count += 1
    tail_budget = budget - used - 100  # room for the omission marker
    tail_used = 0
    tail_start = len(sizes)
    while tail_start > head_count and tail_used + sizes[tail_start - 1] <= tail_budget:
        tail_used += sizes[tail_start - 1]
        tail_start -= 1
    return head_count, tail_start


SOURCE_LABELS = LABELS
"""How the transcript header names each source (an unknown name is used as is)."""


def _header(session: Session, fields: list[_Field], title: str, directory: int, project: int,
            parent: int | None) -> str:
    info = session.info
    lines = [
        f"# {SOURCE_LABELS.get(info.source, info.source)} session: {title}",
        "",
        f"- Source id: {info.id}",
        f"- Directory: {fields[directory].text}",
        f"- Project: {fields[project].text}",
        f"- Started: {_format_time(info.time_created)}; last updated: {_format_time(info.time_updated)}",
    ]
    if parent is not None:
        lines.append(f"- Parent session: {fields[parent].text} (not in the history any more: an orphaned "
                     "subagent session)")
    return "\n".join(lines)


def derive_title(text: str, limit: int = MAX_DERIVED_TITLE_CHARS) -> str | None:
    """A one-line title from (already scrubbed) text: its first non-empty line without
    Markdown lead characters, whitespace collapsed, cut at a word boundary to ``limit``
    chars with ``…``. None when nothing is left.

    A cut never splits a ``[REDACTED:kind]`` marker, so a scrubbed text gives
    a scrubbed title.
    """
    for line in text.splitlines():
        line = " ".join(_TITLE_LEAD.sub("", line).split())
        if line:
            break
    else:
        return None
    if len(line) <= limit:
        return line
    cut = line.rfind(" ", 0, limit)
    end = cut if cut >= limit // 2 else limit
    marker = line.rfind("[REDACTED:", 0, end)
    if marker != -1 and not 0 <= line.find("]", marker) < end:
        end = marker  # a long unbroken run: cut before the marker, never inside it
    head = line[:end].rstrip(" ,;:-=")
    return (head or line[:end]) + "…"


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def build_transcript(session: Session, settings: Settings) -> Transcript:
    """Normalize, scrub, bound and sample one root session into a :class:`Transcript`.

    Args:
        session: a top-level session from a connector (``memctl.connectors.model``),
            parts in chronological order, subagent sessions in ``children``.
            Part data is OpenCode's message-v2 part JSON; missing or
            wrongly-typed fields are tolerated (rendered as empty), never raised.
        settings: the bounds (``max_text_chars``, ``max_reasoning_chars``,
            ``max_tool_input_chars``, ``max_tool_output_chars``), the sampling
            budget (``transcript_budget_chars``, ``head_fraction``) and the
            substance threshold (``min_user_chars``, ``min_substance_chars``).

    Returns:
        The transcript. Its ``text`` is deterministic for a given session and
        settings; entries stay within ``transcript_budget_chars`` plus the
        omission marker and subagent section headers.
    """
    builder = _Builder(settings)
    info = session.info
    placeholder = info.title_is_placeholder or not info.title.strip()
    title = builder.add_field(info.title or UNTITLED, _MAX_TITLE_CHARS)
    parent = builder.add_field(info.parent_id, _MAX_NAME_CHARS) if info.parent_id else None
    directory = builder.add_field(info.directory or "(unknown)", _MAX_PATH_CHARS)
    worktree = info.project_worktree
    project_label = (
        f"{worktree} ({info.project_id})" if worktree and worktree != "/" else f"none — global ({info.project_id or 'unknown'})"
    )
    project = builder.add_field(project_label, _MAX_PATH_CHARS)

    entries = builder.collect(session, (), is_root=True)
    redactions = _scrub_and_bound(builder.fields)
    for kind, count in builder.source_redactions.items():
        redactions[kind] = redactions.get(kind, 0) + count

    fields = builder.fields
    sections = builder.sections
    rendered = [_render_entry(entry, fields) for entry in entries]
    truncated = sum(1 for entry in entries if any(fields[i].cut for i in entry.field_ids))
    for index, entry in enumerate(entries):
        for section_index in entry.path:
            if sections[section_index].first_entry < 0:
                sections[section_index].first_entry = index

    # Size of each entry in the unsampled text, its section markers included.
    sizes: list[int] = []
    previous: tuple[int, ...] = ()
    for index, entry in enumerate(entries):
        size = len(rendered[index]) + 2
        if entry.path != previous:
            size += 80 * (len(entry.path) + len(previous))
        sizes.append(size)
        previous = entry.path

    head_count, tail_start = _sample(sizes, settings.transcript_budget_chars, settings.head_fraction)
    omitted = tail_start - head_count
    if omitted > 0:
        omitted_chars = sum(len(rendered[i]) for i in range(head_count, tail_start))
        marker = f"[… omitted {omitted:,} entries ({omitted_chars:,} chars) from the middle of the session …]"
        keep = list(range(head_count)) + list(range(tail_start, len(entries)))
        blocks = _assemble(rendered, entries, sections, fields, keep, (head_count, marker))
    else:
        omitted_chars = 0
        keep = list(range(len(entries)))
        blocks = _assemble(rendered, entries, sections, fields, keep, None)

    if placeholder:
        first_user = builder.first_user_field.get(())
        display_title = derive_title(fields[first_user].text) if first_user is not None else None
        original_title = fields[title].text if info.title.strip() else None
    else:
        display_title, original_title = fields[title].text, None
    header = _header(session, fields, display_title or UNTITLED, directory, project, parent)
    if builder.child_ids:
        header += f"\n- Subagent sessions: {len(builder.child_ids)}"
    body = "\n\n".join(blocks) if blocks else "_(no content parts)_"
    text = f"{header}\n\n## Transcript\n\n{body}\n"

    skip_reason: str | None = None
    if not entries:
        skip_reason = f"empty session: no content parts ({builder.dropped_lifecycle} lifecycle parts dropped)"
    elif builder.user_chars < settings.min_user_chars and builder.substance_chars < settings.min_substance_chars:
        skip_reason = (
            f"below substance threshold: {builder.user_chars} user chars (min {settings.min_user_chars}), "
            f"{builder.substance_chars} content chars (min {settings.min_substance_chars}), "
            f"{builder.tool_calls} tool calls"
        )

    return Transcript(
        source_id=info.id,
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        entries=len(keep),
        omitted_entries=max(omitted, 0),
        omitted_chars=omitted_chars,
        dropped_lifecycle=builder.dropped_lifecycle,
        truncated=truncated,
        redactions=dict(sorted(redactions.items())),
        user_chars=builder.user_chars,
        substance_chars=builder.substance_chars,
        tool_calls=builder.tool_calls,
        estimated_tokens=len(text) // CHARS_PER_TOKEN,
        skip_reason=skip_reason,
        child_session_ids=list(builder.child_ids),
        unknown_parts=dict(sorted(builder.unknown_parts.items())),
        title=display_title,
        original_title=original_title,
        compacted_outputs=builder.compacted_outputs,
        read_warnings=dict(sorted(builder.read_warnings.items())),
    )
