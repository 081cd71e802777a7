"""Render: scrubbed, bounded fields into the transcript's Markdown (entries, subagent sections, header, titles).

The last stage of :func:`memctl.ingest.transcript.build_transcript`. Fenced
blocks get a fence longer than any backtick run inside them (CommonMark,
section 4.5), so a field can never close its own fence.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from memctl.connectors.model import Session
from memctl.connectors.registry import LABELS
from memctl.ingest.transcript_collect import Entry, Field, Section

MAX_DERIVED_TITLE_CHARS = 80
_TITLE_LEAD = re.compile(r"^(?:[#>*_`~\-\s]|\d+[.)]\s)+")
_BACKTICK_RUN = re.compile(r"`{3,}")


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in _BACKTICK_RUN.findall(text)), default=2)
    return "`" * max(3, longest + 1)


def render_entry(entry: Entry, fields: list[Field]) -> str:
    """One entry as Markdown: its literal markup with the fields' (scrubbed, bounded) text put in."""
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


def _section_open(section: Section, fields: list[Field], continued: bool) -> str:
    title = fields[section.title_field].text
    if section.derive_from is not None:
        title = derive_title(fields[section.derive_from].text) or title
    suffix = " (continued)" if continued else ""
    return f"### Subagent session {section.session_id}: {title}{suffix}"


def _section_close(section: Section) -> str:
    return f"### End of subagent session {section.session_id}"


def assemble(
    rendered: list[str],
    entries: list[Entry],
    sections: list[Section],
    fields: list[Field],
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


SOURCE_LABELS = LABELS
"""How the transcript header names each source (an unknown name is used as is)."""


def render_header(session: Session, fields: list[Field], title: str, directory: int, project: int,
                  parent: int | None) -> str:
    """The transcript's header lines: source and title, ids, directory, project, times (UTC), orphan parent."""
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
