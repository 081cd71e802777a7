"""Codex CLI history connector: strictly read-only reader of ``$CODEX_HOME`` rollouts.

Where: ``--codex-home`` > ``CODEX_HOME`` > ``~/.codex`` (:func:`resolve_codex_home`);
sessions are ``sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` and
``archived_sessions/rollout-*.jsonl`` (one file per thread; the uuid is the
session id). Each file is parsed by :mod:`memctl.connectors.codex.rollout`
(streaming, bounded lines: :mod:`memctl.connectors.codex.lines`).

Same public contract as :class:`memctl.connectors.opencode.source.OpenCodeSource`
(``check_schema``, ``iter_root_infos``, ``count_roots``, ``read_session``,
``iter_sessions``, ``close``, ``stats``) and the same :class:`SessionFilter`.

* Listing reads only the head of each file (its ``session_meta``) and its
  last few kilobytes (the last timestamp), never a whole file.
* Subagent threads (``session_meta.source`` naming a ``parent_thread_id``)
  and forks (``forked_from_id``) are folded into their parent's session as
  children, like OpenCode's subagent sessions. A child starts with a copy of
  its parent's history: the leading items of the child that are in the
  parent's rollout are removed (counted in ``duplicate_items``). A child
  whose parent rollout is gone is a root with ``parent_id`` kept (an orphan).
* A thread found both in ``sessions/`` and ``archived_sessions/`` is read
  once (the larger file).
* Project identity: :mod:`memctl.connectors.codex.project` (cwd → git root).
* Sessions of memory tools are not skipped here (the ingest decides).

Read-only: files are opened ``rb`` and ``stat``-ed; nothing is created,
locked or renamed under ``CODEX_HOME`` (Codex's SQLite state databases are
not opened: the rollouts hold everything read here).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from memctl.connectors.codex.lines import MAX_LINE_BYTES, iter_records
from memctl.connectors.codex.project import project_identity
from memctl.connectors.codex.rollout import Item, Rollout, id_from_name, parent_of, parse_rollout, parse_time
from memctl.connectors.location import history_location
from memctl.connectors.model import Part, ReadStats, Session, SessionInfo
from memctl.connectors.opencode.errors import SourceError, SourceNotFoundError, UnknownSessionError
from memctl.connectors.opencode.source import SessionFilter

__all__ = ["CodexLayout", "CodexSource", "SessionFilter", "resolve_codex_home"]

HEAD_RECORDS = 4
"""Records read from the top of a file to find its ``session_meta``."""

TAIL_BYTES = 64 * 1024
"""Bytes read from the end of a file to find its last timestamp."""

MAX_DEPTH = 8


def resolve_codex_home(explicit: str | Path | None = None, env: dict[str, str] | None = None) -> Path:
    """``--codex-home`` > ``CODEX_HOME`` > ``~/.codex`` (Codex's own rule; nothing is checked here)."""
    return history_location(explicit, env, "CODEX_HOME", "~/.codex")


@dataclass(frozen=True)
class CodexLayout:
    """What :meth:`CodexSource.check_schema` found: rollout files, sessions, CLI versions seen (sorted)."""

    home: str
    files: int
    sessions: int
    roots: int
    versions: tuple[str, ...]


@dataclass(slots=True)
class _Entry:
    path: Path
    id: str
    time_created: int
    time_updated: int
    cwd: str
    version: str
    git: dict
    parent: str | None
    size: int


class CodexSource:
    """Read-only reader of one ``CODEX_HOME``.

    Raises (constructor): SourceNotFoundError when the directory is missing or holds
    neither ``sessions/`` nor ``archived_sessions/``.
    """

    def __init__(self, home: Path, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.home = Path(home).expanduser().absolute()
        if not self.home.is_dir() or not any((self.home / d).is_dir() for d in ("sessions", "archived_sessions")):
            raise SourceNotFoundError(
                f"no Codex history at {self.home} (no sessions/ or archived_sessions/ directory). "
                "Pass --codex-home PATH or set CODEX_HOME (default: ~/.codex).")
        self.max_line_bytes = max_line_bytes
        self.stats = ReadStats()
        self._index: dict[str, _Entry] | None = None
        self._children: dict[str, list[str]] = {}

    # -- listing ---------------------------------------------------------------------

    def _files(self) -> Iterator[Path]:
        for sub in ("sessions", "archived_sessions"):
            base = self.home / sub
            if base.is_dir():
                for dirpath, dirnames, filenames in os.walk(base):
                    dirnames.sort()
                    for name in sorted(filenames):
                        if name.startswith("rollout-") and name.endswith(".jsonl"):
                            yield Path(dirpath) / name

    def _last_time(self, path: Path, size: int) -> int | None:
        with open(path, "rb") as handle:
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read(TAIL_BYTES).decode("utf-8", errors="replace")
        for line in reversed(tail.splitlines()):
            start = line.find('"timestamp"')
            if start == -1:
                continue
            try:
                value = json.loads(line).get("timestamp")
            except (ValueError, AttributeError):
                continue
            stamp = parse_time(value)
            if stamp is not None:
                return stamp
        return None

    def _entry(self, path: Path) -> _Entry | None:
        try:
            st = path.stat()
            meta: dict = {}
            quiet = ReadStats()  # the head is read again in full by read_session; count once there
            for n, record in enumerate(iter_records(path, quiet, self.max_line_bytes)):
                value = record.value
                if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
                    meta = value["payload"]
                    break
                if "type" not in value and "id" in value and "timestamp" in value:
                    meta = value
                    break
                if n + 1 >= HEAD_RECORDS:
                    break
            last = self._last_time(path, st.st_size)
        except OSError as exc:
            self.stats.warn("missing_fields", f"{path}: unreadable ({exc.strerror or exc})")
            return None
        sid = meta.get("id") if isinstance(meta.get("id"), str) and meta.get("id") else id_from_name(path)
        created = parse_time(meta.get("timestamp"))
        if created is None:
            created = last if last is not None else int(st.st_mtime * 1000)
        parent, forked = parent_of(meta)
        git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
        return _Entry(path=path, id=sid, time_created=created, time_updated=max(created, last or created),
                      cwd=meta.get("cwd") if isinstance(meta.get("cwd"), str) else "",
                      version=str(meta.get("cli_version") or ""), git=git, parent=parent or forked, size=st.st_size)

    def _load(self) -> dict[str, _Entry]:
        if self._index is not None:
            return self._index
        index: dict[str, _Entry] = {}
        for path in self._files():
            entry = self._entry(path)
            if entry is None:
                continue
            have = index.get(entry.id)
            if have is not None:
                self.stats.duplicate_items += 1  # the same thread in sessions/ and archived_sessions/
                if have.size >= entry.size:
                    continue
            index[entry.id] = entry
        children: dict[str, list[str]] = {}
        for entry in index.values():
            if entry.parent and entry.parent in index and entry.parent != entry.id:
                children.setdefault(entry.parent, []).append(entry.id)
        for ids in children.values():
            ids.sort(key=lambda i: (index[i].time_created, i))
        self._index, self._children = index, children
        return index

    def _is_root(self, entry: _Entry, index: dict[str, _Entry]) -> bool:
        return not entry.parent or entry.parent not in index or self._root_of(entry.id, index) == entry.id

    def _root_of(self, sid: str, index: dict[str, _Entry]) -> str:
        """The top ancestor; in a parent cycle (a broken file), the cycle's oldest member."""
        path, current = [sid], sid
        while True:
            parent = index[current].parent
            if not parent or parent not in index:
                return current
            if parent in path:
                cycle = path[path.index(parent):]
                return min(cycle, key=lambda i: (index[i].time_created, i))
            path.append(parent)
            current = parent

    def _latest(self, sid: str, index: dict[str, _Entry], depth: int = 0) -> int:
        entry = index[sid]
        if depth >= MAX_DEPTH:
            return entry.time_updated
        return max([entry.time_updated] + [self._latest(c, index, depth + 1) for c in self._children.get(sid, ())
                                           if c != sid])

    def _info(self, entry: _Entry, index: dict[str, _Entry], as_root: bool) -> SessionInfo:
        project_id, worktree = project_identity(entry.cwd, entry.git)
        parent = entry.parent if (entry.parent and (not as_root or entry.parent not in index)) else None
        return SessionInfo(id=entry.id, title="", directory=entry.cwd, project_id=project_id,
                           project_worktree=worktree, parent_id=parent, time_created=entry.time_created,
                           time_updated=self._latest(entry.id, index) if as_root else entry.time_updated,
                           version=entry.version)

    # -- contract ----------------------------------------------------------------------

    def check_schema(self) -> CodexLayout:
        """List the rollouts (heads and tails only) and report what was found.

        Raises:
            SourceError: the directory cannot be listed.
        """
        try:
            index = self._load()
        except OSError as exc:
            raise SourceError(f"cannot read Codex history at {self.home}: {exc.strerror or exc}") from exc
        roots = sum(1 for e in index.values() if self._is_root(e, index))
        versions = tuple(sorted({e.version for e in index.values() if e.version}))
        return CodexLayout(home=str(self.home), files=len(index), sessions=len(index), roots=roots, versions=versions)

    def _selected(self, flt: SessionFilter) -> list[_Entry]:
        index = self._load()
        if flt.session_ids:
            wanted: list[str] = []
            for sid in flt.session_ids:
                key = sid.lower() if sid.lower() in index else sid
                if key not in index:
                    raise UnknownSessionError(f"session {sid!r} not found in {self.home}")
                root = self._root_of(key, index)
                if root not in wanted:
                    wanted.append(root)
            entries = [index[w] for w in wanted]
        else:
            entries = [e for e in index.values() if self._is_root(e, index)]
        if flt.since_ms is not None:
            entries = [e for e in entries if self._latest(e.id, index) >= flt.since_ms]
        return sorted(entries, key=lambda e: (e.time_created, e.id))

    def iter_root_infos(self, flt: SessionFilter = SessionFilter()) -> Iterator[SessionInfo]:
        """Yield root-session metadata, oldest first (``since_ms`` on the latest time of the root or a child)."""
        index = self._load()
        yielded = 0
        for entry in self._selected(flt):
            info = self._info(entry, index, as_root=True)
            if flt.accept is not None and not flt.accept(info):
                continue
            yield info
            yielded += 1
            if flt.limit is not None and yielded >= flt.limit:
                return

    def count_roots(self, flt: SessionFilter = SessionFilter()) -> int:
        """Number of root sessions matching ``since_ms``/``session_ids`` (``accept`` not applied; ``limit`` is)."""
        total = len(self._selected(flt))
        return min(total, flt.limit) if flt.limit is not None else total

    def read_session(self, info: SessionInfo) -> Session:
        """Read one root session with its parts and its children (subagents, forks), copies removed.

        Raises:
            UnknownSessionError: ``info.id`` is not a rollout of this home.
            SourceError: its file cannot be read.
        """
        index = self._load()
        if info.id not in index:
            raise UnknownSessionError(f"session {info.id!r} not found in {self.home}")
        return self._read_tree(info, index, parent_items=None, depth=0, seen={info.id})

    def _parse(self, entry: _Entry) -> Rollout:
        try:
            return parse_rollout(entry.path, self.stats, self.max_line_bytes)
        except OSError as exc:
            raise SourceError(f"cannot read Codex rollout {entry.path}: {exc.strerror or exc}") from exc

    def _read_tree(self, info: SessionInfo, index: dict[str, _Entry], parent_items: list[Item] | None,
                   depth: int, seen: set[str]) -> Session:
        rollout = self._parse(index[info.id])
        items = rollout.items
        if parent_items:
            items = self._without_copy(items, parent_items)
        session = Session(info=info, parts=[self._part(info.id, n, it) for n, it in enumerate(items)])
        self.stats.sessions += 1
        self.stats.parts += len(session.parts)
        if depth >= MAX_DEPTH:
            return session
        for child_id in self._children.get(info.id, ()):
            if child_id in seen:
                continue  # a parent cycle: each thread is read once
            seen.add(child_id)
            child_info = self._info(index[child_id], index, as_root=False)
            session.children.append(self._read_tree(child_info, index, rollout.items, depth + 1, seen))
        return session

    def _without_copy(self, items: list[Item], parent_items: list[Item]) -> list[Item]:
        """``items`` without the leading run that repeats the parent's history."""
        known = {it.fingerprint for it in parent_items}
        cut = 0
        while cut < len(items) and items[cut].fingerprint in known:
            cut += 1
        self.stats.duplicate_items += cut
        return items[cut:]

    @staticmethod
    def _part(session_id: str, n: int, item: Item) -> Part:
        data = dict(item.data)
        if item.cwd:
            data["cwd"] = item.cwd
        return Part(id=f"{session_id}:{n}", message_id=f"{session_id}:{n}", role=item.role, type=item.kind,
                    data=data, time_created=item.time)

    def iter_sessions(self, flt: SessionFilter = SessionFilter()) -> Iterator[Session]:
        """Stream reconstructed root sessions (children folded in), oldest first."""
        for info in self.iter_root_infos(flt):
            yield self.read_session(info)

    def close(self) -> None:
        """Nothing to release (files are opened per read); kept for the connector contract."""
        self._index = None
