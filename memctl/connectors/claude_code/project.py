"""Project identity of a working directory: its git root and an id shared with OpenCode.

So that one repository is one topic whatever agent worked in it, the id is
the one OpenCode gives the project (``packages/opencode/src/project/project.ts``,
``fromDirectory``): the id cached in ``<git dir>/opencode`` when OpenCode has
written one, else the first of the sorted root commits (``git rev-list
--max-parents=0 --all``). The worktree is the directory holding ``.git`` (a
file for linked worktrees: its ``gitdir:`` line is followed for the cache).
Outside a repository, or when the directory no longer exists, the id is
``global`` and the worktree ``/`` (OpenCode's own values), so the topic follows
the directory. Nothing is written: git runs read-only commands only, with
``GIT_OPTIONAL_LOCKS=0`` so it does not even refresh its index.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

GLOBAL = ("global", "/")


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:
        first = dot.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if first.startswith("gitdir:"):
        target = Path(first[7:].strip())
        return target if target.is_absolute() else (root / target)
    return None


@lru_cache(maxsize=4096)
def project_of(directory: str) -> tuple[str, str]:
    """``(project id, worktree)`` of ``directory``; :data:`GLOBAL` outside git or when it is gone."""
    if not directory or not directory.startswith("/"):
        return GLOBAL
    path = Path(directory)
    root = next((p for p in (path, *path.parents) if (p / ".git").exists()), None)
    if root is None or not path.exists():
        return GLOBAL
    git_dir = _git_dir(root)
    if git_dir is not None:
        for candidate in (git_dir / "opencode", git_dir.parent.parent / "opencode"):
            try:
                cached = candidate.read_text(encoding="utf-8").strip()
            except OSError:
                continue
            if cached:
                return cached, str(root)
    try:
        out = subprocess.run(["git", "rev-list", "--max-parents=0", "--all"], cwd=root, capture_output=True,
                             text=True, timeout=10, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}, check=False)
    except (OSError, subprocess.SubprocessError):
        return "", str(root)
    roots = sorted(line.strip() for line in out.stdout.splitlines() if line.strip())
    return (roots[0] if roots else ""), str(root)
