"""Topics: one stable, filesystem-safe slug per OpenCode project; one Cognee dataset per topic.

Identity: a topic belongs to an OpenCode project id. OpenCode derives that id
from the repository's first commit (``packages/opencode/src/project/project.ts``,
``fromDirectory``), so it stays the same when the checkout is moved or renamed,
while ``project.worktree`` follows the new path. The slug is made once, from
the worktree's name when the project is first seen, and never changes (notes,
datasets and promoted memories are filed under it). A later worktree path of
the same project is recorded as an *alias* of the topic (the path and its
last component), which ``--project``, ``ask --topic`` and routing accept.

Sessions of OpenCode's ``global`` project (work outside a git repository,
worktree ``/``) have no identity but their directory: they take the topic from
their own directory, so unrelated scratch work does not pile into one
catch-all topic. A project seen for the first time at a path that already
has a topic nobody else's project owns (a directory that became a repository,
or a data home written before topics were keyed by project id) takes that
topic over.

Slugs are lowercase ``[a-z0-9-]``, at most 48 characters; an empty result
becomes ``misc``. Two different projects with the same name (``~/a/app`` and
``~/b/app``) stay two topics: the second gets a short, path-derived suffix
(``app-3f2a1c``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterable

from pydantic import StrictStr

from memctl.catalog.checkpoint import CheckpointError
from memctl.connectors.model import SessionInfo
from memctl.state_file import StateModel, read_state, write_state

GLOBAL_PROJECT_ID = "global"
MAX_SLUG_CHARS = 48
FORMAT = 2
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_VALID_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


def slugify(name: str) -> str:
    """Return a lowercase ``[a-z0-9-]`` slug of ``name`` (ASCII-folded), ``misc`` if empty."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = _NON_SLUG.sub("-", ascii_name.lower()).strip("-")[:MAX_SLUG_CHARS].strip("-")
    return slug or "misc"


def _by_directory(info: SessionInfo) -> bool:
    """True for sessions whose topic follows their directory, not a project id."""
    worktree = (info.project_worktree or "").rstrip("/")
    return info.project_id in (GLOBAL_PROJECT_ID, "") or not worktree


def topic_source_path(info: SessionInfo) -> str:
    """The path a session's topic derives from: project worktree, or the session directory
    for OpenCode's ``global`` project (and when the worktree is missing or ``/``)."""
    if _by_directory(info):
        return (info.directory or "").rstrip("/") or "/"
    return info.project_worktree.rstrip("/")


@dataclass(frozen=True)
class TopicAlias:
    """Another name of a topic: a later worktree ``path`` of its project and that path's last component."""

    path: str
    name: str

    @classmethod
    def of(cls, path: str) -> "TopicAlias":
        return cls(path=path, name=PurePosixPath(path).name or path)


@dataclass
class ProjectTopic:
    """The topic of one project id: ``topic`` slug, current ``worktree``, ``aliases`` in the order first seen."""

    topic: str
    worktree: str
    aliases: list[TopicAlias] = field(default_factory=list)


class _AliasRecord(StateModel):
    path: StrictStr
    name: StrictStr


class _ProjectRecord(StateModel):
    topic: StrictStr
    worktree: StrictStr
    aliases: list[_AliasRecord] = []


class TopicsFile(StateModel):
    """``topics.json``'s shape as read (see :class:`TopicRegistry`); ``projects`` absent in the earlier format."""

    paths: dict[str, StrictStr] = {}
    projects: dict[str, _ProjectRecord] = {}


class TopicRegistry:
    """Topic assignments, persisted as ``topics.json`` in the data home.

    JSON shape (``format`` 2; a file without ``projects`` is the earlier
    format and still loads, its projects are bound on first sight)::

        {"format": 2,
         "paths": {"/abs/path": "slug", …},     # every path seen → its topic
         "projects": {"<project id>": {"topic": "slug", "worktree": "/current/path",
                                       "aliases": [{"path": "/new/path", "name": "path"}]}}}

    ``paths`` keeps its earlier meaning, so a data home stays readable by an
    older memctl. A registry without a file path (a survey or a dry run) is
    never saved. ``new_aliases`` lists ``(slug, alias)`` recorded since load.
    """

    def __init__(self, path: Path | None, mapping: dict[str, str] | None = None,
                 projects: dict[str, ProjectTopic] | None = None, *, keyed_by_project: bool = False) -> None:
        self.path = path
        self.paths: dict[str, str] = dict(mapping or {})
        self.projects: dict[str, ProjectTopic] = dict(projects or {})
        self.keyed_by_project = keyed_by_project
        self.new_aliases: list[tuple[str, TopicAlias]] = []
        self._dirty = False

    @property
    def dirty(self) -> bool:
        """True when an assignment or alias was added since load (a save would write)."""
        return self._dirty

    @classmethod
    def load(cls, path: Path, *, read_only: bool = False) -> "TopicRegistry":
        """Load ``path`` if it exists; ``read_only`` gives a registry that is never saved.

        Raises:
            CheckpointError: naming the file, when it is not a topics file of either format.
        """
        target = None if read_only else path
        state = read_state(path, TopicsFile, problem="is not a valid topics file",
                           fix="restore it or move it aside (topics are then re-derived from project paths)",
                           error=CheckpointError)
        if state is None:
            return cls(target)
        projects = {pid: ProjectTopic(p.topic, p.worktree, [TopicAlias(path=a.path, name=a.name) for a in p.aliases])
                    for pid, p in state.projects.items()}
        bad = [v for v in [*state.paths.values(), *(p.topic for p in projects.values())] if not _VALID_SLUG.fullmatch(v)]
        if bad:
            raise CheckpointError(f"{path} is not a valid topics file (invalid topic slugs {bad[:3]} (allowed: "
                                  "lowercase a-z, 0-9 and '-')); restore it or move it aside (topics are then "
                                  "re-derived from project paths)", path=path)
        return cls(target, state.paths, projects, keyed_by_project="projects" in state.model_fields_set)

    # -- assignment --------------------------------------------------------------------

    def topic_for(self, info: SessionInfo) -> str:
        """Return the topic slug of a session, assigning (and remembering) a new one or an alias if needed."""
        source = topic_source_path(info)
        if _by_directory(info):
            known = self.paths.get(source)
            if known:
                return known
            return self._assign_path(source, self._new_slug(source))
        project = self.projects.get(info.project_id)
        if project is None:
            slug = self.paths.get(source)
            if slug is None or slug in self._owned():
                slug = self._new_slug(source)
            self.projects[info.project_id] = ProjectTopic(slug, source)
            self._dirty = True
            return self._assign_path(source, slug)
        if project.worktree != source:
            self._moved(project, source)
        return project.topic

    def _moved(self, project: ProjectTopic, source: str) -> None:
        """The project's worktree is now ``source``: remember it (an alias unless it is a path of the topic already)."""
        if self.paths.get(source) != project.topic and all(a.path != source for a in project.aliases):
            alias = TopicAlias.of(source)
            project.aliases.append(alias)
            self.new_aliases.append((project.topic, alias))
        project.worktree = source
        self._dirty = True
        self._assign_path(source, project.topic)

    def _assign_path(self, source: str, slug: str) -> str:
        if self.paths.get(source) != slug:
            self.paths[source] = slug
            self._dirty = True
        return slug

    def _owned(self) -> set[str]:
        return {p.topic for p in self.projects.values()}

    def _new_slug(self, source: str) -> str:
        slug = slugify(PurePosixPath(source).name or source)
        if slug in set(self.paths.values()) | self._owned():
            digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:6]
            slug = f"{slug[: MAX_SLUG_CHARS - 7]}-{digest}"
        return slug

    def adopt(self, sessions: Iterable[tuple[SessionInfo, str]]) -> None:
        """Bind projects not seen before to the topic their sessions were already filed under.

        ``sessions``: ``(info, topic)`` for every session the checkpoint holds, with
        the topic it records. For a data home written before topics were keyed by
        project id, whose project may have moved since: without this, its next
        session would start a second topic named after the new path. The topic of
        the project's current worktree wins when its sessions are in several (an
        earlier memctl split a moved project), else the most used one.
        """
        votes: dict[str, Counter[str]] = {}
        current: dict[str, str] = {}
        for info, topic in sessions:
            if _by_directory(info) or info.project_id in self.projects or not _VALID_SLUG.fullmatch(topic or ""):
                continue
            votes.setdefault(info.project_id, Counter())[topic] += 1
            current[info.project_id] = topic_source_path(info)
        for pid, counts in sorted(votes.items()):
            owned = self._owned()
            free = [t for t, _ in counts.most_common() if t not in owned]
            if not free:
                continue
            source = current[pid]
            slug = self.paths.get(source) if self.paths.get(source) in free else free[0]
            origin = next((p for p, s in self.paths.items() if s == slug), source)
            project = self.projects[pid] = ProjectTopic(slug, origin)
            self._dirty = True
            if origin != source:
                self._moved(project, source)

    # -- names -------------------------------------------------------------------------

    @property
    def slugs(self) -> list[str]:
        """Every topic slug assigned so far, sorted."""
        return sorted(set(self.paths.values()) | self._owned())

    def aliases_of(self, slug: str) -> list[TopicAlias]:
        """The aliases of topic ``slug`` (empty for a topic that never moved)."""
        return [a for p in self.projects.values() if p.topic == slug for a in p.aliases]

    def worktree_of(self, slug: str) -> str:
        """The current worktree of topic ``slug``: its project's, else its first path ('' when unknown)."""
        for project in self.projects.values():
            if project.topic == slug:
                return project.worktree
        return next((p for p, s in self.paths.items() if s == slug), "")

    def names_of(self, slug: str) -> set[str]:
        """Every name that selects topic ``slug``: the slug, each path it was known by and that path's last component."""
        paths = {p for p, s in self.paths.items() if s == slug} | {a.path for a in self.aliases_of(slug)}
        return {slug, *paths, *(PurePosixPath(p).name for p in paths if PurePosixPath(p).name)}

    def matches(self, info: SessionInfo, wanted: str) -> bool:
        """True when ``wanted`` names this session's project: its topic slug or an alias, project id,
        a worktree/directory path it had, or that path's last component."""
        wanted = wanted.rstrip("/") or "/"
        slug = self.topic_for(info)
        source = topic_source_path(info)
        candidates = {info.project_id, source, PurePosixPath(source).name} | self.names_of(slug)
        return wanted in candidates or slugify(wanted) in {slug, *(slugify(a.name) for a in self.aliases_of(slug))}

    def save(self) -> None:
        """Persist assignments atomically (no-op when unchanged or path-less)."""
        if self.path is not None and self._dirty:
            write_state(self.path, {"format": FORMAT, "paths": self.paths, "projects": {
                pid: {"topic": p.topic, "worktree": p.worktree,
                      "aliases": [{"path": a.path, "name": a.name} for a in p.aliases]}
                for pid, p in self.projects.items()}})
            self._dirty = False
            self.keyed_by_project = True


