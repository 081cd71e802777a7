"""The gate a merged memory passes before sleep writes it: the validator, as for a proposal.

One function for both places that judge a merge — the driver before it writes
(:meth:`memctl.sleep.run.SleepRun._apply`) and a Flyte consolidation task
(:mod:`memctl.sleep.engine_flyte`, so a refused merge is never cached) — so they
cannot disagree. Given the members' texts, it also refuses a merge that carries a URL, host, e-mail
address, package or program no member carried (:mod:`memctl.validator.carried`): a model's merge must
not join harmless fragments into a new instruction. :func:`merge_is_action_bearing` says whether the
merge, or any member, would wait for a person's review (a merge never promotes what a member could not).
"""

from __future__ import annotations

from typing import Sequence

from memctl.validator.action import classify_action
from memctl.validator.carried import new_objects
from memctl.validator.core import ValidationLimits, validate_proposal

CONSOLIDATED_LIMIT_FACTOR = 4  # a merged memory may be this many times a single memory's size


def check_merged(cluster_key: str, scope: str, text: str, limits: ValidationLimits,
                 members: Sequence[str] | None = None) -> tuple[str, str | None]:
    """A merged memory through the validator, like a proposal (bounds ``CONSOLIDATED_LIMIT_FACTOR`` times
    ``limits``), and, when ``members`` (the member memories' texts) are given, refused if it carries an
    object none of them did. Returns ``(target path, None)`` when it may be written, ``(target, reason)``
    when it is refused."""
    target = f"{scope}/consolidated-{cluster_key[:16]}.md"
    verdict = validate_proposal({"id": f"consolidated-{cluster_key[:16]}", "session": "sleep", "target": "user",
                                 "path": target, "content": text},
                                limits=ValidationLimits(limits.max_bytes * CONSOLIDATED_LIMIT_FACTOR,
                                                        limits.max_lines * CONSOLIDATED_LIMIT_FACTOR))
    if verdict.ok and members is not None:
        added = new_objects(tuple(members), text)
        if added:
            return target, (f"merged memory for {target} refused: it carries {', '.join(added[:5])}, which no member "
                            "carried; members kept")
    if verdict.ok:
        return target, None
    return target, f"merged memory for {target} refused by the validator ({verdict.reason}: {verdict.detail}); " \
                   "members kept"


def merge_is_action_bearing(members: Sequence[str], merged: str) -> bool:
    """True when the merge or any member is action-bearing (:func:`memctl.validator.action.classify_action`):
    such a merge waits for a person, as its members would have."""
    return classify_action(merged).action_bearing or any(classify_action(m).action_bearing for m in members)
