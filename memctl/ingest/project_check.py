"""``ingest --project NAME`` that names no project of the source: refused with the projects that exist.

A filter that matches nothing used to exit 0 having done nothing, indistinguishable from "all done";
``ask --topic`` already refuses an unknown topic by listing the known ones, and this does the same for
``--project``. A project is known by what :meth:`memctl.catalog.topics.TopicRegistry.matches` accepts;
the listing shows each project's topic slug and the last component of its worktree.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from memctl.catalog.topics import TopicRegistry, topic_source_path
from memctl.connectors.opencode.source import OpenCodeSource

LISTED_MAX = 30  # projects named in the message; more are counted


def known_projects(source: OpenCodeSource, registry: TopicRegistry) -> list[str]:
    """``slug`` (or ``slug (worktree name)`` when they differ) of every project with a top-level session, sorted.

    Raises:
        memctl.connectors.opencode.source.SourceError: the database cannot be listed.
    """
    names: set[str] = set()
    for info in source.iter_root_infos():
        slug = registry.topic_for(info)
        folder = PurePosixPath(topic_source_path(info)).name
        names.add(slug if not folder or folder == slug else f"{slug} ({folder})")
    return sorted(names)


def unknown_project_message(source: OpenCodeSource, registry: TopicRegistry, wanted: str) -> str | None:
    """None when ``wanted`` names a project of ``source``, else the one-line refusal listing the known ones.

    Raises:
        memctl.connectors.opencode.source.SourceError: the database cannot be listed.
    """
    if any(registry.matches(info, wanted) for info in source.iter_root_infos()):
        return None
    known = known_projects(source, registry)
    listing = ", ".join(known[:LISTED_MAX]) + (f", … {len(known) - LISTED_MAX} more" if len(known) > LISTED_MAX else "")
    return (f"--project {wanted}: no session of {source.db_path} belongs to such a project; known projects: "
            f"{listing or 'none (the database holds no session)'}")
