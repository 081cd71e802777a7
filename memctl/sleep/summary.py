"""What one sleep run did: :class:`SleepSummary`, the typed result ``memctl sleep`` prints (a table, or
``--json`` as :meth:`SleepSummary.as_dict`) and whose :attr:`~SleepSummary.exit_code` it exits with
(codes: :mod:`memctl.exit_codes`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from memctl.exit_codes import (
    FAILED_ITEMS as EXIT_FAILED,
    MODEL as EXIT_MODEL,
    OK as EXIT_OK,
)


@dataclass
class SleepSummary:
    """Counts of one run (``--json`` prints :meth:`as_dict`)."""

    proposals: int = 0
    promoted: int = 0
    rejected: int = 0
    rejected_reasons: dict[str, int] = field(default_factory=dict)
    held: int = 0
    held_reasons: dict[str, int] = field(default_factory=dict)
    review_queue: int = 0
    clusters_found: int = 0
    clusters_consolidated: int = 0
    clusters_failed: list[dict[str, Any]] = field(default_factory=list)
    memories_merged: int = 0
    interrupted_applies_finished: int = 0
    topics_rebuilt: list[str] = field(default_factory=list)
    topics_failed: dict[str, str] = field(default_factory=dict)
    model_calls: int = 0
    cache_hits: int = 0
    cognify_runs: int = 0
    errors: list[str] = field(default_factory=list)
    model_unavailable: str | None = None
    report_html: str = ""
    report_json: str = ""
    wall_s: float = 0.0

    @property
    def exit_code(self) -> int:
        """0 ok; 9 the consolidation model was unusable; 1 a cluster or topic failed (retried next run)."""
        if self.model_unavailable:
            return EXIT_MODEL
        return EXIT_FAILED if (self.errors or self.topics_failed or self.clusters_failed) else EXIT_OK

    def as_dict(self) -> dict[str, Any]:
        """Every field (``wall_s`` rounded to ms) plus ``exit_code``: the ``--json`` output's keys."""
        data = asdict(self)
        data["wall_s"] = round(self.wall_s, 3)
        data["exit_code"] = self.exit_code
        return data
