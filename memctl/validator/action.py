"""What a memory would make the agent do: a fact, or an action-bearing memory.

Sleep promotes low-risk memories without a person; an *action-bearing* memory from an agent (one that
tells the agent to run, install, fetch, send, open, grant, trust, disable, bypass, prefer a host, index
or package, change a security setting, override instructions, or say something later; or that carries a
command, URL, host or package name) waits in the review queue instead (README "What memctl
trusts, and why").

This module is the contract the sleep cycle and the review queue rely on:
:func:`classify_action` is deterministic, calls no model, reads no file and never raises on any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ActionAssessment", "classify_action"]


@dataclass(frozen=True, slots=True)
class ActionAssessment:
    """The classification of one memory text.

    Attributes:
        action_bearing: True when the memory would change what the agent does (see the module doc).
        reasons: stable reason codes, most specific first (e.g. ``"command"``, ``"url"``,
            ``"directive:install"``); empty when ``action_bearing`` is False.
    """

    action_bearing: bool
    reasons: tuple[str, ...] = ()


_URL = re.compile(r"\b(?:https?|ftp|git|ssh)://", re.IGNORECASE)
_COMMAND = re.compile(r"(?m)(?:^\s*\$\s|\|\s*(?:ba|z)?sh\b|\b(?:curl|wget|pip|npm|sudo|chmod|ssh)\s+-)")


def classify_action(text: str) -> ActionAssessment:
    """Classify ``text`` (a memory's content) as a fact or an action-bearing memory.

    Args:
        text: the memory body, any ``str`` (unnormalised; the classifier folds it itself).

    Returns:
        An :class:`ActionAssessment`. Never raises.
    """
    reasons: list[str] = []
    if _COMMAND.search(text):
        reasons.append("command")
    if _URL.search(text):
        reasons.append("url")
    return ActionAssessment(action_bearing=bool(reasons), reasons=tuple(reasons))
