"""The topic index: for every topic (one Cognee dataset) a name, a description and its notes.

File: ``<home>/topic_index.json`` (outside the store's trusted prefixes: it is
derived data, rebuilt from the checkpoint and ``topics.json`` after every
ingest). Shape (version 1)::

    {"version": 1, "topics": {"alpha": {
        "name": "alpha", "worktree": "/home/me/src/alpha", "note_count": 2,
        "description": "alpha: work in /home/me/src/alpha. Sessions: Fix the Kuzu lock; …",
        "notes": [{"source_id": "ses_…", "path": "memory/alpha/ses_….md",
                   "title": "Fix the Kuzu lock", "date": "2026-11-02"}]}}}

The router offers the slugs and descriptions to the model, the lexical
fallback ranks the descriptions and titles, and retrieval maps a hit's note
path back to its session id, title and date here (no file read per hit).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from memctl.atomic import atomic_write_json
from memctl.config import DataHome
from memctl.connectors.opencode.titles import is_placeholder_title
from memctl.exit_codes import HomeError
from memctl.ingest.checkpoint import Checkpoint

INDEX_VERSION = 1
DESCRIPTION_TITLES = 12
DESCRIPTION_MAX_CHARS = 700


class TopicIndexError(HomeError):
    """The topic index file is unreadable; the message names it and the fix."""


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
    """One topic: slug ``name``, project ``worktree``, ``description``, ``notes`` (newest first)."""

    name: str
    worktree: str
    description: str
    notes: list[NoteRef] = field(default_factory=list)

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

    @classmethod
    def load(cls, path: Path) -> "TopicIndex":
        """Read the index; a missing file is an empty index.

        Raises:
            TopicIndexError: the file exists but is not a version-1 index.
        """
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (ValueError, UnicodeDecodeError, OSError) as exc:
            raise TopicIndexError(f"{path} is unreadable ({exc}); delete it and run `memctl ingest` to rebuild it") from exc
        try:
            if raw.get("version") != INDEX_VERSION:
                raise ValueError(f"version {raw.get('version')!r}")
            topics = {}
            for slug, entry in raw["topics"].items():
                notes = [NoteRef(**n) for n in entry["notes"]]
                topics[slug] = TopicEntry(name=entry["name"], worktree=entry["worktree"],
                                          description=entry["description"], notes=notes)
            return cls(topics)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise TopicIndexError(f"{path} is not a memctl topic index ({exc}); delete it and run "
                                  "`memctl ingest` to rebuild it") from exc

    def save(self, path: Path) -> None:
        """Write atomically (readers never see a partial index)."""
        atomic_write_json(path, {"version": INDEX_VERSION, "topics": {
            slug: {"name": t.name, "worktree": t.worktree, "description": t.description, "note_count": t.note_count,
                   "notes": [asdict(n) for n in t.notes]}
            for slug, t in sorted(self.topics.items())}})


def _date(ms: object) -> str:
    try:
        return datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc).strftime("%Y-%m-%d") if ms else ""
    except (TypeError, ValueError, OverflowError, OSError):
        return ""


def describe(name: str, worktree: str, titles: list[str]) -> str:
    """Deterministic topic description: project name and path, then the newest session titles."""
    head = f"{name}: work in {worktree}." if worktree else f"{name}."
    text = head + (" Sessions: " + "; ".join(titles[:DESCRIPTION_TITLES]) if titles else "")
    return text if len(text) <= DESCRIPTION_MAX_CHARS else text[: DESCRIPTION_MAX_CHARS - 1] + "…"


def build_topic_index(home: DataHome) -> TopicIndex:
    """Rebuild the index from the checkpoint (accepted notes) and ``topics.json`` (worktrees).

    Only notes published in the store (``memory/<topic>/<id>.md`` exists) are listed.
    """
    distilled = Checkpoint(home.progress, home.skipped).distilled()
    worktrees: dict[str, str] = {}
    try:
        paths = json.loads(home.topics.read_text(encoding="utf-8")).get("paths", {})
        worktrees = {slug: path for path, slug in paths.items()}
    except (FileNotFoundError, ValueError, AttributeError):
        pass
    by_topic: dict[str, list[tuple[int, NoteRef]]] = {}
    for sid, entry in distilled.items():
        topic = entry.topic or "misc"
        store_path = f"memory/{topic}/{sid}.md"
        if not (home.store / store_path).is_file():
            continue
        updated = entry.session_updated or 0
        ref = NoteRef(source_id=sid, path=store_path, title=entry.title or sid, date=_date(updated), topic=topic)
        by_topic.setdefault(topic, []).append((updated, ref))
    topics = {}
    for slug, refs in by_topic.items():
        refs.sort(key=lambda pair: (-pair[0], pair[1].source_id))
        notes = [r for _, r in refs]
        worktree = worktrees.get(slug, "")
        # Placeholders (notes of older runs) say nothing a router could match.
        titles = [n.title for n in notes if not is_placeholder_title(n.title)]
        topics[slug] = TopicEntry(name=slug, worktree=worktree, description=describe(slug, worktree, titles),
                                  notes=notes)
    return TopicIndex(topics)
