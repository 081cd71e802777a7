"""The source-neutral session model every connector produces.

A connector turns one assistant's history store into a stream of
:class:`Session` objects. Everything downstream (normalize, scrub, sample,
distill) only sees this model, so a new source (or a new OpenCode layout)
needs a new connector, never a change to the pipeline.

Times are integer milliseconds since the Unix epoch (OpenCode's own unit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True, slots=True)
class Part:
    """One content part of a message, in chronological order within its session.

    Attributes:
        id: the source's part id (OpenCode `part.id`).
        message_id: the parent message id.
        role: the parent message's role, ``"user"`` or ``"assistant"``.
        type: the part type as the source names it (OpenCode message-v2:
            ``text``, ``reasoning``, ``tool``, ``file``, ``patch``,
            ``subtask``, ``agent``, ``step-start``, ``step-finish``,
            ``snapshot``, ``retry``, ``compaction``, …).
        data: the decoded part JSON (OpenCode `part.data`, message-v2 schema;
            rows of the dev build's ``session_message`` layout are converted
            to the same shape by ``memctl/connectors/opencode/session_message.py``).
            Raw and unscrubbed: it must never be persisted as is.
        time_created: milliseconds since the epoch.
    """

    id: str
    message_id: str
    role: str
    type: str
    data: dict[str, Any]
    time_created: int


@dataclass(frozen=True, slots=True)
class Revert:
    """Where the user undid a session (OpenCode ``session.revert``, set by ``/undo``).

    Everything from message ``message_id`` on (in message order) is not part
    of the conversation; with ``part_id``, that message keeps its parts before
    ``part_id`` (a partial undo). Source: OpenCode
    ``packages/opencode/src/session/revert.ts`` (``revert`` / ``cleanup``)
    and ``session/index.ts`` (``Info.revert = {messageID, partID?,
    snapshot?, diff?}``; ``snapshot`` and ``diff`` are file state, not read).

    Attributes:
        message_id: the first message left out (or the one partly left out).
        part_id: the first part left out within ``message_id``, or None.
    """

    message_id: str
    part_id: str | None = None

    @property
    def key(self) -> str:
        """A short, stable fingerprint (``<message id>/<part id or ''>``) for the checkpoint."""
        return f"{self.message_id}/{self.part_id or ''}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Metadata of one session.

    Attributes:
        id: the source's session id; also memctl's source id.
        title: session title ('' when the source has none).
        directory: working directory the session ran in.
        project_id: the source project id (OpenCode: ``global`` for work
            outside a git repository).
        project_worktree: the project's worktree path ('' or ``/`` for the
            global project).
        parent_id: the parent session id for a subagent (child) session. On a
            session the connector yields as a root it is set only when that
            parent does not exist (an orphaned subagent session).
        time_created, time_updated: milliseconds since the epoch.
        version: the writing tool's version string (OpenCode `session.version`).
        title_is_placeholder: ``title`` is the source's automatic placeholder
            (OpenCode: ``New session - <ISO time>``…), not a real title.
        revert: the undo boundary, or None when nothing is undone.
        source: the name of the source that wrote it (``opencode``, ``claude-code``…:
            :data:`memctl.connectors.registry.SOURCES`).
    """

    id: str
    title: str
    directory: str
    project_id: str
    project_worktree: str
    parent_id: str | None
    time_created: int
    time_updated: int
    version: str
    title_is_placeholder: bool = False
    revert: Revert | None = None
    source: str = "opencode"

    @property
    def revert_key(self) -> str:
        """``revert.key``, or '' when nothing is undone."""
        return self.revert.key if self.revert is not None else ""


@dataclass(slots=True)
class Session:
    """A reconstructed session: metadata, its parts in order, and its children.

    Subagent (child) sessions are folded into their root: the connector only
    yields top-level sessions, each carrying its descendants in ``children``
    (recursively, ordered by creation time). A child is therefore never
    counted as separate top-level work, while its id stays visible for
    provenance.
    """

    info: SessionInfo
    parts: list[Part] = field(default_factory=list)
    children: list["Session"] = field(default_factory=list)

    def all_session_ids(self) -> list[str]:
        """Return this session's id followed by every descendant's id."""
        ids = [self.info.id]
        for child in self.children:
            ids.extend(child.all_session_ids())
        return ids


@dataclass(slots=True)
class ReadStats:
    """Counters of what a connector skipped instead of crashing, and of what it left out on purpose.

    Each skip counter is a number of rows (``unknown_types``: rows or content
    items of a type the connector does not know, e.g. a new OpenCode
    ``session_message`` type; ``unknown_roles``: messages whose role is
    neither ``user`` nor ``assistant``; ``revert_boundary_missing``: a
    session whose undo boundary names a message that is not there, so
    nothing of it is left out). The left-out counters are not errors:
    ``reverted_messages`` (messages wholly or partly undone with ``/undo``)
    and ``reverted_sessions`` (subagent sessions started after the undo
    point). JSON Lines sources (Claude Code, Codex) add: ``oversized_lines`` (a line
    over the reader's byte limit, skipped unread in bounded memory), ``torn_lines`` (a line
    that is not whole JSON, e.g. the last line while the agent writes),
    ``glued_lines`` (two or more objects on one line after an interrupted
    write: every object is still read); and, left out on purpose,
    ``duplicate_items`` (a record repeating one already read: the same uuid, an
    event echo of a message, a parent's history copied into a fork or subagent,
    a compaction summary seen again), ``inactive_branch_records`` (messages off
    the conversation's active branch), ``copied_records`` (the history a forked
    session copied from an earlier one) and ``images_dropped`` (base64 image blocks).
    ``warnings`` keeps the first few human-readable messages
    (bounded) for the run summary.
    """

    sessions: int = 0
    parts: int = 0
    malformed_json: int = 0
    missing_fields: int = 0
    undecodable_text: int = 0
    orphan_parts: int = 0
    unknown_types: int = 0
    unknown_roles: int = 0
    revert_boundary_missing: int = 0
    torn_lines: int = 0
    glued_lines: int = 0
    oversized_lines: int = 0
    reverted_messages: int = 0
    reverted_sessions: int = 0
    duplicate_items: int = 0
    inactive_branch_records: int = 0
    copied_records: int = 0
    images_dropped: int = 0
    warnings: list[str] = field(default_factory=list)

    SKIP_COUNTERS = ("malformed_json", "missing_fields", "undecodable_text", "orphan_parts", "unknown_types",
                     "unknown_roles", "revert_boundary_missing", "oversized_lines", "torn_lines", "glued_lines")
    LEFT_OUT_COUNTERS = ("reverted_messages", "reverted_sessions", "duplicate_items", "inactive_branch_records",
                         "copied_records", "images_dropped")

    MAX_WARNINGS = 50

    def warn(self, counter: str, message: str) -> None:
        """Increment ``counter`` and remember ``message`` (bounded list)."""
        setattr(self, counter, getattr(self, counter) + 1)
        if len(self.warnings) < self.MAX_WARNINGS:
            self.warnings.append(message)

    def skip_counts(self) -> dict[str, int]:
        """The non-zero skip counters by name (for run summaries)."""
        return {name: getattr(self, name) for name in self.SKIP_COUNTERS if getattr(self, name)}

    def left_out_counts(self) -> dict[str, int]:
        """The non-zero left-out counters by name (content undone in the source)."""
        return {name: getattr(self, name) for name in self.LEFT_OUT_COUNTERS if getattr(self, name)}

    @property
    def skipped_rows(self) -> int:
        """Total rows skipped for any reason."""
        return sum(getattr(self, name) for name in self.SKIP_COUNTERS)


@dataclass(frozen=True)
class SessionFilter:
    """Which root sessions to read.

    Attributes:
        since_ms: only sessions updated at or after this epoch-ms time.
        session_ids: only these sessions (a child id selects its root).
        accept: an extra predicate on a root's metadata (e.g. memctl's
            ``--project`` match), applied before any part is read.
        limit: at most this many accepted root sessions.
    """

    since_ms: int | None = None
    session_ids: tuple[str, ...] = ()
    accept: Callable[[SessionInfo], bool] | None = None
    limit: int | None = None
