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

Stages, one module each: collect (:mod:`memctl.ingest.transcript_collect`,
steps 1–2 and the credential files of 3), bound (:mod:`memctl.ingest.transcript_bound`, the
scrub and cuts of 3, and 5) and render (:mod:`memctl.ingest.transcript_render`, 4's
sections and the header); this module runs them and decides 6.

The output is deterministic: the same session always gives the same bytes
(the SHA-256 is used for provenance and caching). Sizes are characters.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memctl.config import Settings
from memctl.connectors.model import Session
from memctl.ingest.transcript_bound import sample_entries, scrub_and_bound
from memctl.ingest.transcript_collect import (
    LIFECYCLE_PART_TYPES,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_TITLE_CHARS,
    TOOL_STATUSES,
    UNTITLED,
    Collector,
)
from memctl.ingest.transcript_render import SOURCE_LABELS, assemble, derive_title, render_entry, render_header

__all__ = ["Transcript", "build_transcript", "derive_title", "LIFECYCLE_PART_TYPES", "CHARS_PER_TOKEN",
           "TOOL_STATUSES", "UNTITLED", "SOURCE_LABELS"]

CHARS_PER_TOKEN = 4
"""``estimated_tokens = len(text) // CHARS_PER_TOKEN``: the usual ~4 characters
per token of BPE tokenizers on English and code; an estimate, not a count."""


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
    builder = Collector(settings)
    info = session.info
    placeholder = info.title_is_placeholder or not info.title.strip()
    title = builder.add_field(info.title or UNTITLED, MAX_TITLE_CHARS)
    parent = builder.add_field(info.parent_id, MAX_NAME_CHARS) if info.parent_id else None
    directory = builder.add_field(info.directory or "(unknown)", MAX_PATH_CHARS)
    worktree = info.project_worktree
    project_label = (
        f"{worktree} ({info.project_id})" if worktree and worktree != "/" else f"none — global ({info.project_id or 'unknown'})"
    )
    project = builder.add_field(project_label, MAX_PATH_CHARS)

    entries = builder.collect(session, (), is_root=True)
    redactions = scrub_and_bound(builder.fields)
    for kind, count in builder.source_redactions.items():
        redactions[kind] = redactions.get(kind, 0) + count

    fields = builder.fields
    sections = builder.sections
    rendered = [render_entry(entry, fields) for entry in entries]
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

    head_count, tail_start = sample_entries(sizes, settings.transcript_budget_chars, settings.head_fraction)
    omitted = tail_start - head_count
    if omitted > 0:
        omitted_chars = sum(len(rendered[i]) for i in range(head_count, tail_start))
        marker = f"[… omitted {omitted:,} entries ({omitted_chars:,} chars) from the middle of the session …]"
        keep = list(range(head_count)) + list(range(tail_start, len(entries)))
        blocks = assemble(rendered, entries, sections, fields, keep, (head_count, marker))
    else:
        omitted_chars = 0
        keep = list(range(len(entries)))
        blocks = assemble(rendered, entries, sections, fields, keep, None)

    if placeholder:
        first_user = builder.first_user_field.get(())
        display_title = derive_title(fields[first_user].text) if first_user is not None else None
        original_title = fields[title].text if info.title.strip() else None
    else:
        display_title, original_title = fields[title].text, None
    header = render_header(session, fields, display_title or UNTITLED, directory, project, parent)
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
