"""Where ``./run.sh`` keeps the bundled sample's data home, so a second run finds the sample already ingested.

The home is ``<user cache dir>/memctl/run-sh/<key>/home`` (platformdirs' user cache dir: ``$XDG_CACHE_HOME``, else
``~/.cache`` on Linux), outside the checkout. ``<key>`` is the first 16 hex digits of a SHA-256 over everything
that decides what the ingest writes, so a home is reused only by the run that would build the same one:

* every file of the ``memctl`` package that runs (the imported one: ``.venv``'s editable install of the checkout;
  code, prompts, data; ``__pycache__`` left out), the checkout's ``pyproject.toml`` and ``constraints.txt`` — a new
  memctl version or a changed checkout gets a new home;
* the sample's files (``tests/fixtures/opencode-1.18/opencode.db*``) and the run's mode (``./run.sh``'s backend and
  session subset);
* the settings sources: every ``MEMCTL_*`` variable (but the trace file and the settle time, which change no
  output), ``OLLAMA_HOST``, and the config file's bytes — another model or embedding size gets a new home.

Homes of other keys under ``run-sh/`` are stale (nothing reuses them) and :func:`prepare` removes them.
``python -m memctl.embedded.run_home <repo> <mode> [--fresh]`` prints ``<home>\\t<reused|new>``; ``--fresh``
(``RUN_SH_FRESH=1``) removes the home first. Exit 2 with one line on stderr when the repo has no sample.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Mapping

from platformdirs import user_cache_dir

__all__ = ["SAMPLE_GLOB", "homes_root", "prepare", "run_key"]

SAMPLE_GLOB = "tests/fixtures/opencode-1.18/opencode.db*"
# Variables that change no ingested output: leaving them out keeps a traced run on the same home.
_UNKEYED = {"MEMCTL_EMBEDDED_TRACE", "MEMCTL_SETTLE_MINUTES"}
_ROOT_FILES = ("pyproject.toml", "constraints.txt")


def homes_root() -> Path:
    """``<user cache dir>/memctl/run-sh``: the folder holding ``./run.sh``'s sample homes, one per key."""
    return Path(user_cache_dir("memctl", appauthor=False)) / "run-sh"


def _inputs(package: Path, repo: Path) -> list[tuple[str, Path]]:
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return [*((f"memctl/{p.relative_to(package).as_posix()}", p) for p in files),
            *((name, repo / name) for name in _ROOT_FILES if (repo / name).is_file()),
            *((p.relative_to(repo).as_posix(), p) for p in sorted(repo.glob(SAMPLE_GLOB)))]


def run_key(repo: Path, mode: str, environ: Mapping[str, str] | None = None, package: Path | None = None) -> str:
    """The 16-hex-digit key of the sample home for ``repo`` (a checkout), ``mode`` (free text naming the backend
    and subset), ``environ`` (default ``os.environ``) and ``package`` (the ``memctl`` package folder; default the
    imported one): see the module docstring for what goes in.

    Raises:
        FileNotFoundError: ``repo`` has no bundled sample (``SAMPLE_GLOB``).
    """
    if not any(repo.glob(SAMPLE_GLOB)):
        raise FileNotFoundError(f"{repo} has no bundled sample ({SAMPLE_GLOB})")
    environ = os.environ if environ is None else environ
    if package is None:
        import memctl

        package = Path(memctl.__file__).resolve().parent
    digest = hashlib.sha256()
    for name, path in _inputs(package, repo):
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(b"mode\0" + mode.encode() + b"\0")
    for name in sorted(environ):
        if (name.startswith("MEMCTL_") and name not in _UNKEYED) or name == "OLLAMA_HOST":
            digest.update(f"{name}={environ[name]}\0".encode())
    from memctl.config import config_file_path

    config = config_file_path()
    if config.is_file():
        digest.update(b"config\0" + config.read_bytes())
    return digest.hexdigest()[:16]


def prepare(repo: Path, mode: str, fresh: bool = False, environ: Mapping[str, str] | None = None,
            package: Path | None = None) -> tuple[Path, bool]:
    """The sample home for this checkout and mode, and whether an earlier run left it (``True``: reuse it).

    Removes the other keys' homes under :func:`homes_root` (stale), and this key's home too when ``fresh``. The
    home's parent is created (memctl refuses a ``--home`` whose parent is missing); the home itself is left to
    ``memctl ingest``.

    Raises:
        FileNotFoundError: as :func:`run_key`.
    """
    key = run_key(repo, mode, environ, package)
    root = homes_root()
    if root.is_dir():
        for other in root.iterdir():
            if other.name != key and other.is_dir():
                shutil.rmtree(other, ignore_errors=True)
    home = root / key / "home"
    if fresh and home.parent.exists():
        shutil.rmtree(home.parent)
    reused = home.is_dir() and any(home.iterdir())
    home.parent.mkdir(parents=True, exist_ok=True)
    return home, reused


def main(argv: list[str]) -> int:
    """CLI for run.sh: ``<repo> <mode> [--fresh]`` → prints ``<home>\\t<reused|new>``; exit 2 on bad input."""
    args = [a for a in argv if a != "--fresh"]
    if len(args) != 2:
        print("usage: python -m memctl.embedded.run_home <repo> <mode> [--fresh]", file=sys.stderr)
        return 2
    try:
        home, reused = prepare(Path(args[0]).resolve(), args[1], fresh="--fresh" in argv)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{home}\t{'reused' if reused else 'new'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
