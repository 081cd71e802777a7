"""The history sources memctl knows, and one reader over several of them.

A source is one entry of :data:`SOURCES` (:class:`SourceKind`): its name (what
``--source`` takes and notes' front matter say), how its store is found
(``locate``: the explicit option, else its environment variable, else the
default path), whether it is there (``present``) and how it is opened
(``open``). Adding a source is one entry here plus its option in
:class:`memctl.ingest.options.IngestOptions` and ``memctl ingest`` (as Codex's
``--codex-home``: ``CODEX_HOME``, then ``~/.codex``; present when ``sessions/``
or ``archived_sessions/`` is there).

Identity across sources: a session's key in memctl (checkpoint, note file,
citations) is the source's own id for OpenCode (``ses_…``: keys written
before other sources existed stay valid) and ``<source>.<id>`` for the others
(``claude-code.<uuid>``, ``codex.<uuid>``), so ids of two sources never collide and a key
names its source. ``--session`` takes either spelling.

:class:`CombinedSource` has the public methods of one source (what ingest
calls) and reads every opened source: root sessions merged oldest first,
one shared :class:`~memctl.connectors.model.ReadStats`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from memctl.connectors.model import ReadStats, Session, SessionFilter, SessionInfo
from memctl.connectors.opencode.errors import SourceNotFoundError, UnknownSessionError

__all__ = ["LABELS", "SOURCES", "CombinedSource", "SourceKind", "discover", "key_of", "label_of", "open_sources",
           "source_names", "split_key"]

LABELS = {"opencode": "OpenCode", "claude-code": "Claude Code", "codex": "Codex"}
"""How transcripts and answers name each source (an unknown name is used as is)."""


def _opencode_locate(explicit: Path | None) -> Path:
    from memctl.connectors.opencode.source import resolve_db_path

    return resolve_db_path(explicit)


def _opencode_present(path: Path) -> bool:
    from memctl.connectors.opencode.source import locate_database

    try:
        locate_database(path)
    except SourceNotFoundError:
        return False
    return True


def _opencode_open(path: Path) -> Any:
    from memctl.connectors.opencode.source import OpenCodeSource

    return OpenCodeSource(path)


def _claude_locate(explicit: Path | None) -> Path:
    from memctl.connectors.claude_code.source import resolve_claude_dir

    return resolve_claude_dir(explicit)


def _claude_open(path: Path) -> Any:
    from memctl.connectors.claude_code.source import ClaudeCodeSource

    return ClaudeCodeSource(path)


def _codex_locate(explicit: Path | None) -> Path:
    from memctl.connectors.codex.source import resolve_codex_home

    return resolve_codex_home(explicit)


def _codex_present(path: Path) -> bool:
    return any((path / sub).is_dir() for sub in ("sessions", "archived_sessions"))


def _codex_open(path: Path) -> Any:
    from memctl.connectors.codex.source import CodexSource

    return CodexSource(path)


@dataclass(frozen=True)
class SourceKind:
    """One kind of history store.

    Attributes:
        name: ``opencode``, ``claude-code``…; also the key prefix of its sessions (none for OpenCode).
        option: the CLI option naming its location (for messages).
        locate: explicit path or None → the path to read (environment and default applied).
        present: whether a store is at that path.
        open: path → a reader with ``check_schema``, ``iter_root_infos``, ``count_roots``,
            ``read_session``, ``close`` and ``stats`` (raises a SourceError when unreadable).
    """

    name: str
    option: str
    locate: Callable[[Path | None], Path]
    present: Callable[[Path], bool]
    open: Callable[[Path], Any]

    @property
    def prefix(self) -> str:
        """What keys of this source start with ('' for OpenCode)."""
        return "" if self.name == "opencode" else self.name + "."


SOURCES: dict[str, SourceKind] = {
    kind.name: kind for kind in (
        SourceKind("opencode", "--db", _opencode_locate, _opencode_present, _opencode_open),
        SourceKind("claude-code", "--claude-dir", _claude_locate, lambda p: (p / "projects").is_dir(), _claude_open),
        SourceKind("codex", "--codex-home", _codex_locate, _codex_present, _codex_open),
    )
}


def source_names() -> tuple[str, ...]:
    """The names ``--source`` accepts."""
    return tuple(SOURCES)


def key_of(source: str, session_id: str) -> str:
    """memctl's key of a source's session id (see the module doc)."""
    return SOURCES[source].prefix + session_id if source in SOURCES else session_id


def split_key(key: str) -> tuple[str | None, str]:
    """``(source, id)`` of a key with a source prefix, ``(None, key)`` otherwise."""
    for kind in SOURCES.values():
        if kind.prefix and key.startswith(kind.prefix):
            return kind.name, key[len(kind.prefix):]
    return None, key


def label_of(key: str) -> str:
    """The name of the agent whose session ``key`` is (``codex.<id>`` → Codex; a key without a prefix → OpenCode)."""
    source, _ = split_key(key)
    return LABELS.get(source or "opencode", source or "OpenCode")


def discover(requested: tuple[str, ...], explicit: dict[str, Path | None],
             named: tuple[str, ...] = ()) -> tuple[tuple[str, str], ...]:
    """Which sources a run reads: ``requested`` (``--source``, each read even when its store is
    missing, so that the error names it), else every source whose store is there or whose location
    was given on the command line (``named``: a wrong ``--db`` is an error, not silently skipped),
    else OpenCode (whose missing database is then the error the user sees).

    Args:
        requested: source names (already validated against :data:`SOURCES`).
        explicit: per source name, the path its option gave (None: environment or default).
        named: sources whose location option was given on the command line.

    Returns:
        ``((name, path), …)`` in :data:`SOURCES` order, for :func:`open_sources`.
    """
    names = [name for name in SOURCES if name in requested] if requested else list(SOURCES)
    found = [(name, SOURCES[name].locate(explicit.get(name))) for name in names]
    if not requested:
        present = [(name, path) for name, path in found if name in named or SOURCES[name].present(path)]
        found = present or [("opencode", SOURCES["opencode"].locate(explicit.get("opencode")))]
    return tuple((name, str(path)) for name, path in found)


def open_sources(spec: tuple[tuple[str, str], ...]) -> "CombinedSource":
    """Open ``((source name, path), …)`` (picklable: what pool workers are given).

    Raises:
        SourceError: a source cannot be opened (message names it).
    """
    opened = []
    try:
        for name, path in spec:
            opened.append((SOURCES[name], SOURCES[name].open(Path(path))))
    except Exception:
        for _, source in opened:
            source.close()
        raise
    return CombinedSource(opened, spec)


class CombinedSource:
    """Several opened sources read as one (see the module doc)."""

    def __init__(self, opened: list[tuple[SourceKind, Any]], spec: tuple[tuple[str, str], ...] = ()) -> None:
        self.sources = opened
        # One counter set for the run: the first source's own (OpenCode's decoders hold it), shared by the others.
        self.stats: ReadStats = opened[0][1].stats if opened else ReadStats()
        for _, source in opened[1:]:
            source.stats = self.stats
        self.spec = spec or tuple((kind.name, str(source.db_path)) for kind, source in opened)
        """What :func:`open_sources` reopens in a pool worker: ``((name, path), …)``."""

    @property
    def db_path(self) -> Path:
        """The first source's location (what messages name when one source is read)."""
        return Path(self.spec[0][1]) if self.spec else Path()

    @property
    def names(self) -> list[str]:
        """The names of the sources read, in order."""
        return [kind.name for kind, _ in self.sources]

    def check_schema(self) -> None:
        """Check every source (raises what the source raises)."""
        for _, source in self.sources:
            source.check_schema()

    @staticmethod
    def _keyed(kind: SourceKind, info: SessionInfo) -> SessionInfo:
        if not kind.prefix:
            return info if info.source == kind.name else replace(info, source=kind.name)
        return replace(info, id=kind.prefix + info.id, source=kind.name)

    def _wanted(self, session_ids: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """Per source, the ids of ``session_ids`` it holds.

        Raises:
            UnknownSessionError: an id no source holds.
        """
        wanted: dict[str, list[str]] = {kind.name: [] for kind, _ in self.sources}
        for key in session_ids:
            named, raw = split_key(key)
            found = False
            for kind, source in self.sources:
                if named is not None and kind.name != named:
                    continue
                try:
                    next(iter(source.iter_root_infos(SessionFilter(session_ids=(raw,)))), None)
                except UnknownSessionError:
                    continue
                wanted[kind.name].append(raw)
                found = True
                break
            if not found:
                where = ", ".join(self.names)
                raise UnknownSessionError(f"session {key!r} not found in the sources read ({where})")
        return {name: tuple(ids) for name, ids in wanted.items()}

    def _filters(self, flt: SessionFilter) -> list[tuple[SourceKind, Any, SessionFilter]]:
        wanted = self._wanted(flt.session_ids) if flt.session_ids else None
        out = []
        for kind, source in self.sources:
            if wanted is not None and not wanted[kind.name]:
                continue
            accept = None
            if flt.accept is not None:
                def accept(info: SessionInfo, kind: SourceKind = kind, outer=flt.accept) -> bool:
                    return outer(self._keyed(kind, info))
            out.append((kind, source, SessionFilter(since_ms=flt.since_ms, accept=accept, limit=flt.limit,
                                                    session_ids=wanted[kind.name] if wanted else ())))
        return out

    def iter_root_infos(self, flt: SessionFilter = SessionFilter()) -> Iterator[SessionInfo]:
        """Root sessions of every source, merged oldest first (``time_created``, key); keys as in the module doc."""
        def keyed(kind: SourceKind, source: Any, sub: SessionFilter) -> Iterator[SessionInfo]:
            for info in source.iter_root_infos(sub):
                yield self._keyed(kind, info)

        streams = [keyed(kind, source, sub) for kind, source, sub in self._filters(flt)]
        merged = heapq.merge(*streams, key=lambda info: (info.time_created, info.id))
        for n, info in enumerate(merged, start=1):
            yield info
            if flt.limit is not None and n >= flt.limit:
                return

    def count_roots(self, flt: SessionFilter = SessionFilter()) -> int:
        """The sum of the sources' counts (a progress total), at most ``limit``."""
        total = sum(source.count_roots(sub) for _, source, sub in self._filters(flt))
        return min(total, flt.limit) if flt.limit is not None else total

    def read_session(self, info: SessionInfo) -> Session:
        """Read one root session from the source that listed it; the root keeps its key."""
        for kind, source in self.sources:
            if kind.name == info.source:
                raw = info.id[len(kind.prefix):] if kind.prefix and info.id.startswith(kind.prefix) else info.id
                session = source.read_session(replace(info, id=raw))
                session.info = replace(session.info, id=info.id, source=kind.name)
                for child in session.children:
                    _mark(child, kind.name)
                return session
        raise UnknownSessionError(f"session {info.id!r}: source {info.source!r} is not read in this run")

    def iter_sessions(self, flt: SessionFilter = SessionFilter()) -> Iterator[Session]:
        """Stream reconstructed root sessions of every source, oldest first."""
        for info in self.iter_root_infos(flt):
            yield self.read_session(info)

    def close(self) -> None:
        """Close every source."""
        for _, source in self.sources:
            source.close()


def _mark(session: Session, name: str) -> None:
    if session.info.source != name:
        session.info = replace(session.info, source=name)
    for child in session.children:
        _mark(child, name)
