"""The things a memory carries that could make an agent act: URLs, hosts, e-mail addresses, packages, programs.

Used by the merge gate (:mod:`memctl.validator.merge_gate`): a merged memory may restate what its members
say, but an object no member carried — a new URL, host, address, package or program — is how a merge
launders an instruction, so it is refused. Objects are read from the classifier's plain reading
(:func:`memctl.validator.action_views.reading_views`: TR39 look-alikes folded, NFKC, case folded), so a
look-alike host in the merge is the same object as its Latin spelling in a member.
"""

from __future__ import annotations

import re

from memctl.validator.action_views import reading_views

__all__ = ["carried_objects", "new_objects"]

_URL = re.compile(r"(?<![a-z0-9])(?:https?|ftp|sftp|git|ssh|file|wss?)://[^\s)\]>\"'`]+|(?<![a-z0-9.])www\.[a-z0-9.-]+[^\s)\]>\"'`]*")
_EMAIL = re.compile(r"(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![a-z0-9])")
_HOST = re.compile(r"(?<![a-z0-9_@./-])(?:[a-z0-9-]+\.)+[a-z]{2,12}(?![a-z0-9_-])(?!\.[a-z])")
_IPV4 = re.compile(r"(?<![0-9.])(?:\d{1,3}\.){3}\d{1,3}(?![0-9.])")
_PACKAGE = re.compile(r"(?<![a-z0-9_])(?:pip3?|npm|npx|yarn|pnpm|gem|cargo|apt|apt-get|brew|conda|uv|go|pipx|uvx)\s+"
                      r"(?:pip\s+)?(?:install|add|i|get|run)?\s*((?:-{1,2}[a-z-]+(?:[= ]\S+)?\s+)*)([a-z0-9@/_.-]+)")
# a program name as a command word: after a line start, a space, a pipe, a backtick, "(" or ";" (not "setup.sh")
_PROGRAM = re.compile(r"(?<![^\s|`(;&])(curl|wget|bash|sh|zsh|sudo|chmod|chown|ssh|scp|nc|rm|eval|exec|iex|powershell"
                      r"|python3?|node|crontab|systemctl|launchctl)(?=\s|$|[;)|`<(.,])")
_FILE_SUFFIXES = (".md", ".py", ".txt", ".json", ".yaml", ".yml", ".toml", ".sh", ".js", ".ts", ".go", ".rs", ".lock")


def carried_objects(text: str) -> frozenset[str]:
    """The objects ``text`` carries, as ``kind:value`` strings (``url:https://x.example/a``, ``host:x.example``,
    ``email:a@b.example``, ``package:acme-tools``, ``program:curl``). Never raises on a ``str``."""
    folded = next(reading_views(text))[1] if text.strip() else ""
    found: set[str] = set()
    for match in _URL.finditer(folded):
        url = match.group(0).rstrip(".,;:")
        found.add(f"url:{url}")
        host = url.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
        if host:
            found.add(f"host:{host}")
    found |= {f"email:{m.group(0)}" for m in _EMAIL.finditer(folded)}
    emails_hosts = {m.group(0).split("@", 1)[1] for m in _EMAIL.finditer(folded)}
    for match in _HOST.finditer(folded):
        host = match.group(0)
        if not host.endswith(_FILE_SUFFIXES) and host not in emails_hosts:
            found.add(f"host:{host}")
    found |= {f"host:{m.group(0)}" for m in _IPV4.finditer(folded)}
    found |= {f"package:{m.group(2).rstrip('.,;:')}" for m in _PACKAGE.finditer(folded) if m.group(2) not in ("install", "add")}
    found |= {f"program:{m.group(1)}" for m in _PROGRAM.finditer(folded)}
    return frozenset(found)


def new_objects(members: list[str] | tuple[str, ...], merged: str) -> tuple[str, ...]:
    """The objects ``merged`` carries that none of ``members`` does, sorted (empty when the merge adds none)."""
    known: set[str] = set()
    for member in members:
        known |= carried_objects(member)
    return tuple(sorted(carried_objects(merged) - known))
