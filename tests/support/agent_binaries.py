"""Install the real agent binaries the end-to-end tests drive (OpenCode, Claude Code, Codex), pinned, from npm.

``./test.sh`` runs ``python -m tests.support.agent_binaries`` before pytest, so a clean machine with the npm registry
runs the real-binary tests instead of skipping them. Each binary goes where its fixture generator and its tests
look (``~/.cache/memctl/<agent>-<version>``, or the variable each honours) and is installed only when missing;
nothing else is downloaded. A failed install is one line on stderr and exit 1: the tests that need that binary
then say they were skipped, by name, in pytest's summary (``-rs``) — never counted as passed.

Usage: ``python -m tests.support.agent_binaries [opencode|claude-code|codex ...]`` (default: all three).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.fixtures import (
    make_claude_code_fixture as claude_fixture,
    make_codex_fixture as codex_fixture,
    make_opencode_fixture as opencode_fixture,
)


def _cache(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else default


def install_opencode() -> Path:
    """OpenCode (``opencode-linux-x64``) at the version the fixtures were made with."""
    return opencode_fixture.ensure_opencode(_cache("MEMCTL_OPENCODE_CACHE", opencode_fixture.DEFAULT_CACHE))


def install_claude_code() -> Path:
    """Claude Code's native binary at the version the fixtures were made with."""
    version = claude_fixture.VERSION
    return claude_fixture.install(Path.home() / ".cache" / "memctl" / f"claude-code-{version}", version)


def install_codex() -> Path:
    """Codex's launcher at the version the fixtures were made with."""
    version = codex_fixture.CODEX_VERSION
    return codex_fixture.install(_cache("MEMCTL_CODEX_CACHE", Path.home() / ".cache" / "memctl" / f"codex-{version}"),
                                 version)


INSTALLERS = {"opencode": install_opencode, "claude-code": install_claude_code, "codex": install_codex}


def main(argv: list[str] | None = None) -> int:
    """Install the named binaries (all by default); 0 when each is there afterwards, 1 otherwise."""
    names = (argv if argv is not None else sys.argv[1:]) or list(INSTALLERS)
    unknown = [name for name in names if name not in INSTALLERS]
    if unknown:
        print(f"agent_binaries: unknown agent {unknown[0]!r} (known: {', '.join(INSTALLERS)})", file=sys.stderr)
        return 2
    if shutil.which("npm") is None:
        print("agent_binaries: npm is not installed; the real-binary tests will be skipped", file=sys.stderr)
        return 1
    status = 0
    for name in names:
        try:
            path = INSTALLERS[name]()
        except (subprocess.CalledProcessError, OSError, SystemExit) as exc:
            print(f"agent_binaries: {name} could not be installed ({exc}); its tests will be skipped", file=sys.stderr)
            status = 1
            continue
        if not path.exists():
            print(f"agent_binaries: {name} install left no binary at {path}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
