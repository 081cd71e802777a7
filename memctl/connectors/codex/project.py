"""Project identity of a Codex session: its working directory's git repository.

Codex records only ``cwd`` (and ``git.commit_hash``/``branch``/``repository_url``
in ``session_meta``). memctl files a session under a project the way the
OpenCode connector does: the worktree is the git root above ``cwd`` (the
nearest directory holding a ``.git`` directory or file -- a linked worktree
or submodule has a ``.git`` file), and the project id is OpenCode's own for
that repository -- the first root commit hash (``git rev-list
--max-parents=0 --all``, sorted; OpenCode ``packages/opencode/src/project/project.ts``)
-- so the same repository seen by both agents is one project. ``git`` only
reads here (``GIT_OPTIONAL_LOCKS=0``: not even the index is refreshed).

When the directory is gone, the recorded ``repository_url`` (credentials
removed) identifies the project; with neither, the session belongs to the
``global`` project (OpenCode's name for work outside a repository), and
memctl's topic comes from its directory.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

__all__ = ["GLOBAL_PROJECT_ID", "git_root", "project_identity", "root_commit"]

GLOBAL_PROJECT_ID = "global"
GIT_TIMEOUT_S = 5.0


@lru_cache(maxsize=4096)
def git_root(directory: str) -> str | None:
    """The nearest ancestor of ``directory`` (itself included) holding ``.git``, or None (absolute path)."""
    if not directory:
        return None
    path = Path(directory)
    if not path.is_absolute():
        return None
    for candidate in (path, *path.parents):
        try:
            if (candidate / ".git").exists():
                return str(candidate)
        except OSError:
            return None
    return None


@lru_cache(maxsize=1024)
def root_commit(root: str) -> str | None:
    """The first (sorted) root commit hash of the repository at ``root``, None when git cannot say."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(["git", "-C", root, "rev-list", "--max-parents=0", "--all"], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    hashes = sorted(line.strip() for line in done.stdout.splitlines() if line.strip())
    return hashes[0] if done.returncode == 0 and hashes else None


def _without_credentials(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def project_identity(cwd: str, git: dict) -> tuple[str, str]:
    """``(project id, worktree)`` for a session run in ``cwd`` with ``session_meta.git`` = ``git``.

    Returns the root commit and git root; ``("path:<root>", root)`` for a
    repository without commits; ``("remote:<url>", cwd)`` when the directory
    is gone but a remote was recorded; else ``("global", "/")``.
    """
    root = git_root(cwd)
    if root is not None:
        commit = root_commit(root)
        return (commit or f"path:{root}"), root
    url = git.get("repository_url") if isinstance(git, dict) else None
    if isinstance(url, str) and url.strip():
        clean = _without_credentials(url.strip())
        if clean:
            return f"remote:{clean}", cwd
    return GLOBAL_PROJECT_ID, "/"
