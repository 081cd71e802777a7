"""The gate a merged memory passes before sleep writes it: the validator, as for a proposal.

One function for both places that judge a merge — the driver before it writes
(:meth:`memctl.sleep.run.SleepRun._apply`) and a Flyte consolidation task
(:mod:`memctl.sleep.engine_flyte`, so a refused merge is never cached) — so they
cannot disagree.
"""

from __future__ import annotations

from memctl.validator.core import ValidationLimits, validate_proposal

CONSOLIDATED_LIMIT_FACTOR = 4  # a merged memory may be this many times a single memory's size


def check_merged(cluster_key: str, scope: str, text: str, limits: ValidationLimits) -> tuple[str, str | None]:
    """A merged memory through the validator, like a proposal (bounds ``CONSOLIDATED_LIMIT_FACTOR`` times
    ``limits``). Returns ``(target path, None)`` when it may be written, ``(target, reason)`` when it is refused."""
    target = f"{scope}/consolidated-{cluster_key[:16]}.md"
    verdict = validate_proposal({"id": f"consolidated-{cluster_key[:16]}", "session": "sleep", "target": "user",
                                 "path": target, "content": text},
                                limits=ValidationLimits(limits.max_bytes * CONSOLIDATED_LIMIT_FACTOR,
                                                        limits.max_lines * CONSOLIDATED_LIMIT_FACTOR))
    if verdict.ok:
        return target, None
    return target, f"merged memory for {target} refused by the validator ({verdict.reason}: {verdict.detail}); " \
                   "members kept"
