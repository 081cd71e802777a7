"""The gate a merged memory passes before sleep writes it: re-judged like a new proposal, and never laundering.

One function for both places that judge a merge — the driver before it writes
(:meth:`memctl.sleep.run.SleepRun._apply`) and a Flyte consolidation task
(:mod:`memctl.sleep.engines.flyte_engine`, so a refused merge is never cached) — so they
cannot disagree. :func:`check_merged` refuses a merge (the members are kept) when

* the validator refuses it as it would a proposal (bounds ``CONSOLIDATED_LIMIT_FACTOR`` times a
  single memory's);
* it drops a member's fact (:func:`memctl.validator.consolidation_check.substance_problem`);
* it adds something that would make the agent act that no member had (:func:`introduced_actions`): a
  URL, a host or other dotted name, a command word, a package after an install verb, a command-line
  option, a backticked span. A model's rephrasing has no reason to invent any of those, and two
  harmless fragments joined into one instruction usually need one (a split payload).

Whether an accepted merge is promoted or held for a person is sleep's decision
(:func:`memctl.sleep.trust.decide_merge`): the result is classified again, and a merge never becomes
trusted as more than its least trusted member.

Given the members' texts it also refuses a merge that carries a URL, host, e-mail address, package or
program no member carried (:mod:`memctl.validator.carried`); :func:`merge_is_action_bearing` says whether
the merge, or any member, would wait for a person's review (a merge never promotes what a member could not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from memctl.validator.action import classify_action
from memctl.validator.carried import new_objects
from memctl.validator.consolidation_check import MemberLike, substance_problem
from memctl.validator.core import ValidationLimits, validate_proposal

CONSOLIDATED_LIMIT_FACTOR = 4  # a merged memory may be this many times a single memory's size

_URL = re.compile(r"\b(?:https?|ftp|git|ssh|file)://[^\s<>\"'`)\]]+", re.IGNORECASE)
_DOTTED = re.compile(r"(?<![\w.@-])(?:[a-z0-9][a-z0-9_-]*\.)+[a-z][a-z0-9-]*(?![\w-])", re.IGNORECASE)
_COMMAND_WORD = re.compile(
    r"\b(?:curl|wget|bash|zsh|sh|sudo|su|pip3?|pipx|uv|npm|npx|pnpm|yarn|brew|apt(?:-get)?|gem|cargo|go|"
    r"docker|kubectl|chmod|chown|ssh|scp|rsync|nc|ncat|powershell|iex|eval|exec|base64|openssl|git)\b",
    re.IGNORECASE)
_INSTALL = re.compile(r"\b(?:install|add|i|get)\s+((?:-{1,2}[\w-]+(?:[= ]\S+)?\s+)*)([@\w./:-]+)", re.IGNORECASE)
_OPTION = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?:=\S+)?", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_NOT_HOSTS = frozenset({"e.g", "i.e", "a.k.a", "etc", "vs"})


def _actions(text: str) -> set[tuple[str, str]]:
    """``(kind, token)`` pairs that make a text act: URLs, dotted names, command words, installed packages,
    options, backticked spans; tokens lowercased."""
    found: set[tuple[str, str]] = {("url", u.rstrip(".,;:!?").lower()) for u in _URL.findall(text)}
    without_urls = _URL.sub(" ", text)
    found |= {("host", d.lower()) for d in _DOTTED.findall(without_urls) if d.lower().rstrip(".") not in _NOT_HOSTS}
    found |= {("command", c.lower()) for c in _COMMAND_WORD.findall(text)}
    found |= {("package", m.group(2).lower()) for m in _INSTALL.finditer(text)}
    found |= {("option", o.lower()) for o in _OPTION.findall(without_urls) if len(o) > 2}
    found |= {("backticked", " ".join(b.lower().split())) for b in _BACKTICKED.findall(text)}
    return found


def introduced_actions(member_texts: Sequence[str], merged: str) -> list[str]:
    """What ``merged`` carries that no member does, as ``"<kind> <token>"`` strings, sorted (empty: nothing).

    A token counts as present when it occurs, case-insensitively, anywhere in a member's text (so a merge
    may quote a member's command in backticks, or drop a URL's trailing slash, without being refused).
    """
    haystack = "\n".join(member_texts).lower()
    flat = " ".join(haystack.split())
    return sorted(f"{kind} {token}" for kind, token in _actions(merged)
                  if token not in haystack and token not in flat and token.rstrip("/") not in haystack)


@dataclass(frozen=True, slots=True)
class _PlainMember:
    """A member given as its text alone (path and creation time unknown)."""

    path: str
    created: str
    text: str


def check_merged(cluster_key: str, scope: str, text: str, limits: ValidationLimits,
                 members: Sequence[MemberLike | str] | None = ()) -> tuple[str, str | None]:
    """A merged memory through the validator, like a proposal (bounds ``CONSOLIDATED_LIMIT_FACTOR`` times
    ``limits``), then the no-laundering checks against ``members`` (see the module doc).

    Returns ``(target path, None)`` when it may be written (or held, sleep decides), ``(target, reason)``
    when it is refused.
    """
    target = f"{scope}/consolidated-{cluster_key[:16]}.md"
    verdict = validate_proposal({"id": f"consolidated-{cluster_key[:16]}", "session": "sleep", "target": "user",
                                 "path": target, "content": text},
                                limits=ValidationLimits(limits.max_bytes * CONSOLIDATED_LIMIT_FACTOR,
                                                        limits.max_lines * CONSOLIDATED_LIMIT_FACTOR))
    if not verdict.ok:
        return target, f"merged memory for {target} refused by the validator ({verdict.reason}: {verdict.detail}); " \
                       "members kept"
    if members:
        # Plain strings are members without a path or time (the texts alone are compared).
        members = [_PlainMember(f"member-{i}", "", m) if isinstance(m, str) else m for i, m in enumerate(members)]
        texts = [m.text for m in members]
        added = [*new_objects(tuple(texts), text), *introduced_actions(texts, text)]
        if added:
            return target, (f"merged memory for {target} refused: it adds what no member had "
                            f"({', '.join(added[:5])}); members kept")
        lost = substance_problem(members, text)
        if lost is not None:
            return target, (f"merged memory for {target} refused: it drops or changes a member's fact ({lost}); "
                            "members kept")
    return target, None


def merge_is_action_bearing(members: Sequence[str], merged: str) -> bool:
    """True when the merge or any member is action-bearing (:func:`memctl.validator.action.classify_action`):
    such a merge waits for a person, as its members would have."""
    return classify_action(merged).action_bearing or any(classify_action(m).action_bearing for m in members)
