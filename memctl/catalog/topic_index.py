"""The topic index: for every topic (one Cognee dataset) a name, a description and its notes.

File: ``<home>/topic_index.json`` (outside the store's trusted prefixes: it is
derived data, rebuilt from the checkpoint and ``topics.json`` after every
ingest). Shape (version 1)::

    {"version": 1, "topics": {"alpha": {
        "name": "alpha", "worktree": "/home/me/src/orders", "note_count": 2,
        "aliases": [{"path": "/home/me/src/orders", "name": "orders"}],
        "description": "alpha (also orders): work in /home/me/src/orders. Sessions: Fix the Kuzu lock; …",
        "notes": [{"source_id": "ses_…", "path": "memory/alpha/ses_….md",
                   "title": "Fix the Kuzu lock", "date": "2026-11-02"}]}}}

``aliases`` (later worktree paths of a moved or renamed project, see
:mod:`memctl.catalog.topics`) is absent from indexes written before it
existed; they load with none. The router offers the slugs, their aliases and
descriptions to the model, the lexical fallback ranks the descriptions and
titles, ``--topic`` takes a slug or an alias (:meth:`TopicIndex.resolve`), and
retrieval maps a hit's note path back to its session id, title and date here
(no file read per hit).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, StrictStr

from memctl.catalog.checkpoint import Checkpoint, CheckpointError
from memctl.catalog.topics import TopicAlias, TopicRegistry, slugify
from memctl.config import DataHome
from memctl.connectors.opencode.titles import is_placeholder_title
from memctl.exit_codes import UsageError
from memctl.state_file import StateFileError, StateModel, read_state, write_state

INDEX_VERSION = 1
DESCRIPTION_TITLES = 12
DESCRIPTION_MAX_CHARS = 700


class TopicIndexError(StateFileError):
    """The topic index file is unreadable; the message names it and the fix."""


class _NoteRecord(BaseModel):
    source_id: StrictStr
    path: StrictStr
    title: StrictStr
    date: StrictStr
    topic: StrictStr


class _AliasRecord(BaseModel):
    path: StrictStr
    name: StrictStr


class _TopicRecord(BaseModel):
    name: StrictStr
    worktree: StrictStr
    description: StrictStr
    notes: list[_NoteRecord]
    aliases: list[_AliasRecord] = []


class _IndexFile(StateModel):
    """``topic_index.json``'s shape as read (see :meth:`TopicIndex.save`)."""

    version: object = None
    topics: dict[str, _TopicRecord]


class UnknownTopicError(UsageError, ValueError):
    """A topic name (``--topic``) is no slug or alias, or an alias of several topics; the message lists the known ones."""


@dataclass(frozen=True)
class NoteRef:
    """Provenance of one accepted note: session id, store path, title, date (YYYY-MM-DD)."""

    source_id: str
    path: str
    title: str
    date: str
    topic: str


@dataclass
class TopicEntry:
    """One topic: slug ``name``, current project ``worktree``, ``description``, ``notes`` (newest first),
    ``aliases`` (the later paths and names of a moved or renamed project)."""

    name: str
    worktree: str
    description: str
    notes: list[NoteRef] = field(default_factory=list)
    aliases: list[TopicAlias] = field(default_factory=list)

    @property
    def note_count(self) -> int:
        return len(self.notes)


@dataclass
class TopicIndex:
    """All topics by slug. Empty when nothing has been ingested yet."""

    topics: dict[str, TopicEntry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_path = {n.path: n for t in self.topics.values() for n in t.notes}

    def note_by_path(self, store_path: str) -> NoteRef | None:
        """The note published at ``store_path`` (``memory/<topic>/<id>.md``), if known."""
        return self._by_path.get(store_path)

    @property
    def slugs(self) -> list[str]:
        return sorted(self.topics)

    def alias_names(self) -> dict[str, str]:
        """Alias name → slug, for names that are no slug themselves and belong to one topic only."""
        owners: dict[str, set[str]] = {}
        for slug, entry in self.topics.items():
            for alias in entry.aliases:
                owners.setdefault(alias.name, set()).add(slug)
        return {name: next(iter(slugs)) for name, slugs in sorted(owners.items())
                if len(slugs) == 1 and name not in self.topics}

    def resolve(self, names: list[str]) -> list[str]:
        """The slugs ``names`` select, in order, without repeats: a slug as is, else the topic
        with that alias (its name, its path, or a name with the same slug).

        Raises:
            UnknownTopicError: a name is no slug and no alias, or an alias of several topics.
        """
        found = {name: self._named(name) for name in names}
        unknown = [name for name, slugs in found.items() if not slugs]
        if unknown:
            raise UnknownTopicError(f"unknown topic {', '.join(unknown)}; known topics: "
                                    f"{self.listing() or 'none (run memctl ingest first)'}")
        shared = [f"{name} ({' or '.join(slugs)})" for name, slugs in found.items() if len(slugs) > 1]
        if shared:
            raise UnknownTopicError(f"topic name {', '.join(shared)} names several topics; pass the slug")
        return list(dict.fromkeys(found[name][0] for name in names))

    def _named(self, name: str) -> list[str]:
        if name in self.topics:
            return [name]
        wanted = name.rstrip("/") or name
        return sorted({slug for slug, entry in self.topics.items() for alias in entry.aliases
                       if wanted in (alias.name, alias.path) or slugify(wanted) == slugify(alias.name)})

    def listing(self) -> str:
        """``slug (also alias, …)`` for every topic, comma-separated (for messages)."""
        return ", ".join(slug + (f" (also {', '.join(dict.fromkeys(a.name for a in self.topics[slug].aliases))})"
                                 if self.topics[slug].aliases else "") for slug in self.slugs)

    @classmethod
    def load(cls, path: Path) -> "TopicIndex":
        """Read the index; a missing file is an empty index.

        Raises:
            TopicIndexError: the file exists but is not a version-1 index.
        """
        fix = "delete it and run `memctl ingest` to rebuild it"
        state = read_state(path, _IndexFile, problem="is not a memctl topic index", fix=fix, error=TopicIndexError)
        if state is None:
            return cls()
        if state.version != INDEX_VERSION:
            raise TopicIndexError(f"{path} is not a memctl topic index (version {state.version!r}); {fix}", path=path)
        return cls({slug: TopicEntry(name=entry.name, worktree=entry.worktree, description=entry.description,
                                     notes=[NoteRef(**n.model_dump()) for n in entry.notes],
                                     aliases=[TopicAlias(**a.model_dump()) for a in entry.aliases])
                    for slug, entry in state.topics.items()})

    def save(self, path: Path) -> None:
        """Write atomically (readers never see a partial index)."""
        write_state(path, {"version": INDEX_VERSION, "topics": {
            slug: {"name": t.name, "worktree": t.worktree, "description": t.description, "note_count": t.note_count,
                   "aliases": [asdict(a) for a in t.aliases], "notes": [asdict(n) for n in t.notes]}
            for slug, t in sorted(self.topics.items())}})


def _date(ms: object) -> str:
    try:
        return datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc).strftime("%Y-%m-%d") if ms else ""
    except (TypeError, ValueError, OverflowError, OSError):
        return ""


def describe(name: str, worktree: str, titles: list[str], aliases: list[str] | None = None) -> str:
    """Deterministic topic description: project name (and alias names) and path, then the newest session titles."""
    also = [a for a in dict.fromkeys(aliases or ()) if a != name]
    label = f"{name} (also {', '.join(also)})" if also else name
    head = f"{label}: work in {worktree}." if worktree else f"{label}."
    text = head + (" Sessions: " + "; ".join(titles[:DESCRIPTION_TITLES]) if titles else "")
    return text if len(text) <= DESCRIPTION_MAX_CHARS else text[: DESCRIPTION_MAX_CHARS - 1] + "…"


def build_topic_index(home: DataHome) -> TopicIndex:
    """Rebuild the index from the checkpoint (accepted notes) and ``topics.json`` (worktrees, aliases).

    Only notes published in the store (``memory/<topic>/<id>.md`` exists) are listed.
    An unreadable ``topics.json`` gives topics without worktree or aliases (ingest reports that file).
    """
    distilled = Checkpoint(home.progress, home.skipped).distilled()
    try:
        registry = TopicRegistry.load(home.topics, read_only=True)
    except CheckpointError:
        registry = TopicRegistry(None)
    by_topic: dict[str, list[tuple[int, NoteRef]]] = {}
    for sid, entry in distilled.items():
        topic = entry.topic or "misc"
        store_path = f"memory/{topic}/{sid}.md"
        if not (home.store / store_path).is_file():
            continue
        updated = entry.session_updated or 0
        ref = NoteRef(source_id=sid, path=store_path, title=entry.title or sid, date=_date(updated), topic=topic)
        by_topic.setdefault(topic, []).append((updated, ref))
    # Titles go through the one title scrub (progress.json of older versions may hold raw ones). Imported here:
    # the scrubber's engines load in ~0.4 s, which reading the index (every ask) does not need.
    from memctl.scrub.title import scrub_titles

    flat = [(slug, index) for slug, refs in by_topic.items() for index in range(len(refs))]
    scrubbed = scrub_titles([by_topic[slug][index][1].title for slug, index in flat])
    for (slug, index), title in zip(flat, scrubbed, strict=True):
        updated, ref = by_topic[slug][index]
        if title != ref.title:
            by_topic[slug][index] = (updated, replace(ref, title=title))
    topics = {}
    for slug, refs in by_topic.items():
        refs.sort(key=lambda pair: (-pair[0], pair[1].source_id))
        notes = [r for _, r in refs]
        worktree, aliases = registry.worktree_of(slug), registry.aliases_of(slug)
        # Placeholders (notes of older runs) say nothing a router could match.
        titles = [n.title for n in notes if not is_placeholder_title(n.title)]
        topics[slug] = TopicEntry(name=slug, worktree=worktree, notes=notes, aliases=aliases,
                                  description=describe(slug, worktree, titles, [a.name for a in aliases]))
    return TopicIndex(topics)
