"""Claude Code history connector: a strictly read-only, streaming reader of ``projects/*/*.jsonl``.

Where: ``${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<cwd with / as ->/<sessionId>.jsonl``
(:func:`resolve_claude_dir`). Layout of a project directory:

* ``<sessionId>.jsonl`` — one session (a root);
* ``<sessionId>/subagents/agent-<agentId>.jsonl`` (+ ``.meta.json`` with the
  agent type and description) — its subagents (2.1.x);
* ``agent-<agentId>.jsonl`` beside the sessions — subagents of 2.0.x, tied to
  their session by the ``sessionId`` of their records;
* ``<sessionId>/tool-results/<tool_use_id>.txt`` — tool output moved out of the
  transcript (read bounded).

Records are decoded by :mod:`memctl.connectors.claude_code.records` from lines
read by :mod:`memctl.connectors.claude_code.lines` (bounded lines, torn and
glued lines counted). Subagents and in-file sidechains (``isSidechain``
records of older versions) become children of their session. A session
forked with ``--fork-session`` starts with a copy of its origin's records
(same uuids, this session's id): the copy is left out (``copied_records``)
when the origin file is there.

Same public methods as :class:`memctl.connectors.opencode.source.OpenCodeSource`
(``check_schema``, ``iter_root_infos``, ``count_roots``, ``read_session``,
``iter_sessions``, ``close``) and the same :class:`SessionFilter`. Session ids
are the ``sessionId`` uuids; a subagent's id is ``agent-<agentId>``. Times are
epoch milliseconds; ``time_updated`` is the newest record ``timestamp`` found in
the file's last 16 KiB (256 KiB when none is there; else the modification time).

Read-only: files are opened ``"rb"``, directories only listed; nothing is
created, locked or changed under the Claude directory.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from memctl.connectors.claude_code.lines import DEFAULT_MAX_LINE_BYTES, iter_records
from memctl.connectors.claude_code.project import project_of
from memctl.connectors.claude_code.records import REQUEST_COPY_PREFIXES, History, build_parts, millis
from memctl.connectors.location import history_location
from memctl.connectors.model import ReadStats, Session, SessionInfo
from memctl.connectors.opencode.errors import SourceError, SourceNotFoundError, UnknownSessionError
from memctl.connectors.opencode.source import SessionFilter

__all__ = ["ClaudeCodeSource", "SessionFilter", "resolve_claude_dir"]

_TIMESTAMP = re.compile(rb'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"')
TAIL_WINDOWS = (16 * 1024, 256 * 1024)
"""Bytes read from a file's end, smallest first, to find its newest record time."""

HEAD_LINES = 64
"""Lines read from the start of a file to list its session (cwd, version, first time, first uuid)."""


def resolve_claude_dir(explicit: str | Path | None = None, env: dict[str, str] | None = None) -> Path:
    """``--claude-dir`` > ``CLAUDE_CONFIG_DIR`` > ``~/.claude`` (not checked here)."""
    return history_location(explicit, env, "CLAUDE_CONFIG_DIR", "~/.claude")


@dataclass(frozen=True)
class _Listed:
    info: SessionInfo
    path: Path
    first_uuid: str


class ClaudeCodeSource:
    """Read-only reader of one Claude Code configuration directory.

    Raises (constructor): SourceNotFoundError when ``<dir>/projects`` is not a directory.
    """

    name = "claude-code"

    def __init__(self, claude_dir: Path, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.claude_dir = Path(claude_dir).expanduser().absolute()
        self.projects = self.claude_dir / "projects"
        if not self.projects.is_dir():
            raise SourceNotFoundError(
                f"no Claude Code history at {self.projects}. Pass --claude-dir DIR or set CLAUDE_CONFIG_DIR "
                "(default: ~/.claude).")
        self.db_path = self.claude_dir  # what pool workers reopen (the OpenCode source's attribute name)
        self.max_line_bytes = max_line_bytes
        self.stats = ReadStats()
        self._listing: list[_Listed] | None = None
        self._by_id: dict[str, _Listed] = {}
        self._by_first_uuid: dict[tuple[Path, str], list[_Listed]] = {}
        self._legacy_agents: dict[str, list[Path]] = {}

    # -- listing -------------------------------------------------------------------

    def _records(self, path: Path, head: bool = False, stats: ReadStats | None = None) -> Iterator[dict]:
        return iter_records(path, self.stats if stats is None else stats, max_line_bytes=self.max_line_bytes,
                            skip_prefixes=REQUEST_COPY_PREFIXES, max_lines=HEAD_LINES if head else None)

    @staticmethod
    def _last_time(path: Path, size: int) -> int:
        """The newest record time (ms) in the file's last bytes, 0 when none is found there."""
        with open(path, "rb") as handle:
            for window in TAIL_WINDOWS:
                handle.seek(max(0, size - window))
                found = _TIMESTAMP.findall(handle.read(window))
                if found:
                    return max(millis(t.decode()) for t in found)
                if window >= size:
                    break
        return 0

    def _list_one(self, path: Path) -> _Listed | None:
        scratch = ReadStats()  # a head scan counts nothing: the full read does
        first_time, cwd, version, first_uuid, title = 0, "", "", "", ""
        try:
            stat = path.stat()
            mtime = int(stat.st_mtime * 1000)
            last = self._last_time(path, stat.st_size)
            for record in self._records(path, head=True, stats=scratch):
                first_time = first_time or millis(record.get("timestamp"))
                cwd = cwd or (record.get("cwd") if isinstance(record.get("cwd"), str) else "")
                version = version or (record.get("version") if isinstance(record.get("version"), str) else "")
                if not first_uuid and record.get("type") == "user" and isinstance(record.get("uuid"), str):
                    first_uuid = record["uuid"]
                if record.get("type") in ("custom-title", "summary") and not title:
                    title = str(record.get("customTitle") or record.get("summary") or "")
                if cwd and version and first_uuid and first_time:
                    break
        except OSError as exc:
            self.stats.warn("missing_fields", f"{path}: unreadable ({exc.strerror or exc})")
            return None
        if not first_uuid:
            return None  # no conversation (only bookkeeping records, or nothing yet)
        project_id, worktree = project_of(cwd)
        info = SessionInfo(id=path.stem, title=title, directory=cwd, project_id=project_id,
                           project_worktree=worktree, parent_id=None, time_created=first_time or mtime,
                           time_updated=max(last or mtime, first_time), version=version, title_is_placeholder=not title,
                           source=self.name)
        return _Listed(info, path, first_uuid)

    def _list(self) -> list[_Listed]:
        if self._listing is None:
            listed: list[_Listed] = []
            for project in sorted(p for p in self.projects.iterdir() if p.is_dir()):
                for path in sorted(project.glob("*.jsonl")):
                    if path.name.startswith("agent-"):
                        continue
                    item = self._list_one(path)
                    if item is not None:
                        listed.append(item)
            listed.sort(key=lambda item: (item.info.time_created, item.info.id))
            self._listing = listed
            self._by_id = {item.info.id: item for item in listed}
            self._by_first_uuid = {}
            for item in listed:  # oldest first: the first of a group is the origin of the others
                self._by_first_uuid.setdefault((item.path.parent, item.first_uuid), []).append(item)
        return self._listing

    def check_schema(self) -> dict[str, int]:
        """List the sessions (head scans only); returns ``{"sessions": n}``. Nothing to validate beyond
        the directory: an unreadable file or record is counted, never fatal."""
        return {"sessions": len(self._list())}

    def _root_ids(self, wanted: tuple[str, ...]) -> set[str]:
        self._list()
        roots: set[str] = set()
        for sid in wanted:
            if sid in self._by_id:
                roots.add(sid)
                continue
            owner = self._agent_owner(sid)
            if owner is None:
                raise UnknownSessionError(f"session {sid!r} not found in {self.projects}")
            roots.add(owner)
        return roots

    def _agent_owner(self, sid: str) -> str | None:
        if not sid.startswith("agent-"):
            return None
        for item in self._list():
            if (item.path.parent / item.info.id / "subagents" / f"{sid}.jsonl").is_file():
                return item.info.id
            if any(p.stem == sid for p in self._legacy(item.path.parent).get(item.info.id, [])):
                return item.info.id
        return None

    def iter_root_infos(self, flt: SessionFilter = SessionFilter()) -> Iterator[SessionInfo]:
        """Yield root-session metadata, oldest first (``time_created``, id)."""
        wanted = self._root_ids(flt.session_ids) if flt.session_ids else None
        yielded = 0
        for item in self._list():
            info = item.info
            if wanted is not None and info.id not in wanted:
                continue
            if flt.since_ms is not None and info.time_updated < flt.since_ms:
                continue
            if flt.accept is not None and not flt.accept(info):
                continue
            yield info
            yielded += 1
            if flt.limit is not None and yielded >= flt.limit:
                return

    def count_roots(self, flt: SessionFilter = SessionFilter()) -> int:
        """Root sessions matching ``since_ms``/``session_ids`` (``accept`` and ``limit`` not applied)."""
        total = sum(1 for item in self._list() if flt.since_ms is None or item.info.time_updated >= flt.since_ms)
        if flt.session_ids:
            total = min(total, len(flt.session_ids))
        return min(total, flt.limit) if flt.limit is not None else total

    # -- reading -------------------------------------------------------------------

    def _legacy(self, project: Path) -> dict[str, list[Path]]:
        """2.0.x subagent files beside the sessions, by the session id of their records."""
        key = str(project)
        if key not in self._legacy_agents:
            owners: dict[str, list[Path]] = {}
            for path in sorted(project.glob("agent-*.jsonl")):
                try:
                    owner = next((r["sessionId"] for r in self._records(path, head=True, stats=ReadStats())
                                  if isinstance(r.get("sessionId"), str)), None)
                except OSError:
                    owner = None
                if owner:
                    owners.setdefault(owner, []).append(path)
            self._legacy_agents[key] = owners  # type: ignore[assignment]
        return self._legacy_agents[key]  # type: ignore[return-value]

    def _history(self, path: Path) -> History:
        history = History()
        try:
            for record in self._records(path):
                history.add(record, self.stats, path.name)
        except OSError as exc:
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from exc
        return history

    def _origin_uuids(self, item: _Listed) -> set[str]:
        """The record uuids of the older session this one was forked from (empty when none)."""
        self._list()
        group = self._by_first_uuid.get((item.path.parent, item.first_uuid), [])
        if not group or group[0] is item:
            return set()
        return set(self._history_quiet(group[0].path).nodes)

    def _history_quiet(self, path: Path) -> History:
        history, scratch = History(), ReadStats()
        try:
            for record in iter_records(path, scratch, max_line_bytes=self.max_line_bytes,
                                       skip_prefixes=REQUEST_COPY_PREFIXES):
                history.add(record, scratch, path.name)
        except OSError:
            pass
        return history

    def read_session(self, info: SessionInfo) -> Session:
        """Read one root session with its subagents and sidechains as children.

        Raises:
            UnknownSessionError: the session's file is gone; SourceError: it cannot be read.
        """
        self._list()
        item = self._by_id.get(info.id)
        if item is None:
            raise UnknownSessionError(f"session {info.id!r} not found in {self.projects}")
        history = self._history(item.path)
        copied = self._origin_uuids(item)
        chain = history.active_branch(self.stats)
        if copied:
            kept = [r for r in chain if r.get("uuid") not in copied]
            self.stats.copied_records += len(chain) - len(kept)
            chain = kept
        side_dir = item.path.parent / item.info.id
        title = history.title()
        if title and info.title_is_placeholder:
            info = replace(info, title=title, title_is_placeholder=False)
        session = Session(info=info, parts=build_parts(chain, history, self.stats, side_dir))
        self.stats.sessions += 1
        self.stats.parts += len(session.parts)
        session.children.extend(self._sidechains(history, info, side_dir))
        session.children.extend(self._subagents(item, info))
        session.children.sort(key=lambda child: (child.info.time_created, child.info.id))
        return session

    def _child(self, sid: str, info: SessionInfo, history: History, chain: list[dict], side_dir: Path | None,
               title: str, version: str = "") -> Session | None:
        if not chain:
            return None
        first = millis(chain[0].get("timestamp")) or info.time_created
        last = max((millis(r.get("timestamp")) for r in chain), default=first)
        child_info = SessionInfo(id=sid, title=title, directory=info.directory, project_id=info.project_id,
                                 project_worktree=info.project_worktree, parent_id=info.id, time_created=first,
                                 time_updated=max(last, first), version=version or info.version,
                                 title_is_placeholder=not title, source=self.name)
        self.stats.sessions += 1
        parts = build_parts(chain, history, self.stats, side_dir)
        self.stats.parts += len(parts)
        return Session(info=child_info, parts=parts)

    def _sidechains(self, history: History, info: SessionInfo, side_dir: Path) -> list[Session]:
        """In-file sidechain records (versions before subagent files): one child per sidechain branch."""
        children = []
        for n, leaf in enumerate(history.sidechain_leaves(), start=1):
            child = self._child(f"{info.id}-sidechain-{n}", info, history, history.branch(leaf), side_dir, "")
            if child is not None:
                children.append(child)
        return children

    def _subagents(self, item: _Listed, info: SessionInfo) -> list[Session]:
        folder = item.path.parent / item.info.id / "subagents"
        paths = sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []
        paths += self._legacy(item.path.parent).get(item.info.id, [])
        children = []
        for path in paths:
            title = ""
            meta = path.with_name(path.stem + ".meta.json")
            try:
                raw = json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else {}
                if isinstance(raw, dict):
                    title = str(raw.get("description") or raw.get("agentType") or "")
            except (OSError, ValueError):
                self.stats.warn("malformed_json", f"{meta}: unreadable subagent metadata")
            history = self._history(path)
            chain = history.active_branch(self.stats, sidechain=True) or history.active_branch(self.stats)
            child = self._child(path.stem, info, history, chain, item.path.parent / item.info.id, title)
            if child is not None:
                children.append(child)
        return children

    def iter_sessions(self, flt: SessionFilter = SessionFilter()) -> Iterator[Session]:
        """Stream reconstructed root sessions (children folded in), oldest first."""
        for info in self.iter_root_infos(flt):
            yield self.read_session(info)

    def close(self) -> None:
        """Forget the listing (no file is held open between calls)."""
        self._listing = None
