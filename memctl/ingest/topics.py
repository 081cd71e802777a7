"""Topics: one stable, filesystem-safe slug per OpenCode project; one Cognee dataset per topic.

Rule: the slug of the project's worktree name (its last path component). Sessions
of OpenCode's ``global`` project (work outside a git repository, worktree ``/``)
take the topic from their own directory instead, so unrelated scratch work does
not pile into one catch-all topic. Slugs are lowercase ``[a-z0-9-]``, at most
48 characters; an empty result becomes ``misc``.

Two different worktrees with the same name (``~/a/app`` and ``~/b/app``) would
collide; :class:`TopicRegistry` resolves that by giving the second one a short,
path-derived suffix (``app-3f2a1c``) and remembering the mapping.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from pathlib import Path, PurePosixPath

from memctl.atomic import atomic_write_json
from memctl.connectors.model import SessionInfo
from memctl.ingest.checkpoint import CheckpointError

GLOBAL_PROJECT_ID = "global"
MAX_SLUG_CHARS = 48
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_VALID_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


def slugify(name: str) -> str:
    """Return a lowercase ``[a-z0-9-]`` slug of ``name`` (ASCII-folded), ``misc`` if empty."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = _NON_SLUG.sub("-", ascii_name.lower()).strip("-")[:MAX_SLUG_CHARS].strip("-")
    return slug or "misc"


def topic_source_path(info: SessionInfo) -> str:
    """The path a session's topic derives from: project worktree, or the session directory
    for OpenCode's ``global`` project (and when the worktree is missing or ``/``)."""
    worktree = (info.project_worktree or "").rstrip("/")
    if info.project_id == GLOBAL_PROJECT_ID or not worktree:
        return (info.directory or "").rstrip("/") or "/"
    return worktree


class TopicRegistry:
    """Path → slug assignments, persisted as ``topics.json`` in the data home.

    JSON shape: ``{"paths": {"/abs/worktree": "slug", …}}``. A dry run uses a
    registry that is never saved.
    """

    def __init__(self, path: Path | None, mapping: dict[str, str] | None = None) -> None:
        self.path = path
        self.paths: dict[str, str] = dict(mapping or {})
        self._dirty = False

    @classmethod
    def load(cls, path: Path) -> "TopicRegistry":
        """Load ``path`` if it exists.

        Raises:
            CheckpointError: naming the file, when it is not ``{"paths": {str: str}}``.
        """
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            paths = data.get("paths", {}) if isinstance(data, dict) else None
            if not isinstance(paths, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in paths.items()):
                raise ValueError('expected {"paths": {"/project/path": "slug", ...}}')
            bad = [v for v in paths.values() if not _VALID_SLUG.fullmatch(v)]
            if bad:
                raise ValueError(f"invalid topic slugs {bad[:3]} (allowed: lowercase a-z, 0-9 and '-')")
            return cls(path, paths)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CheckpointError(
                f"{path} is not a valid topics file ({exc}); restore it or move it aside "
                "(topics are then re-derived from project paths)"
            ) from exc

    def topic_for(self, info: SessionInfo) -> str:
        """Return the topic slug of a session, assigning (and remembering) a new one if needed."""
        source = topic_source_path(info)
        known = self.paths.get(source)
        if known:
            return known
        slug = slugify(PurePosixPath(source).name or source)
        if slug in set(self.paths.values()):
            digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:6]
            slug = f"{slug[: MAX_SLUG_CHARS - 7]}-{digest}"
        self.paths[source] = slug
        self._dirty = True
        return slug

    def matches(self, info: SessionInfo, wanted: str) -> bool:
        """True when ``wanted`` names this session's project: its topic slug, project id,
        worktree/directory path, or that path's last component."""
        wanted = wanted.rstrip("/") or "/"
        source = topic_source_path(info)
        candidates = {self.topic_for(info), info.project_id, source, PurePosixPath(source).name}
        return wanted in candidates or slugify(wanted) == self.topic_for(info)

    def save(self) -> None:
        """Persist assignments atomically (no-op when unchanged or path-less)."""
        if self.path is not None and self._dirty:
            atomic_write_json(self.path, {"paths": self.paths})
            self._dirty = False
