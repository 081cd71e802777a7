"""The figures of one ingest run (``--json`` prints them) and the rows of a dry run's plan."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from memctl.exit_codes import ADD_FAILED, COGNIFY_FAILED, FAILED_ITEMS, OK

PLAN_ROWS_MAX = 200  # a dry run over 20,000 sessions keeps counts for all, rows for the first few


@dataclass
class PlanItem:
    """One line of a dry-run plan (``estimated_tokens``: of the model input, for ``distill`` rows)."""

    source_id: str
    title: str
    topic: str
    action: str  # distill | skip (threshold) | done | defer
    why: str
    estimated_tokens: int = 0


@dataclass
class IngestSummary:
    """Figures of one run; ``--json`` prints :meth:`as_dict`."""

    dry_run: bool = False
    phase: str = "all"
    found: int = 0
    already_done: int = 0
    deferred_active: int = 0
    skipped_threshold: int = 0
    skipped_junk: int = 0
    distilled: int = 0
    recovered: int = 0
    errors: int = 0
    error_details: list[dict[str, str]] = field(default_factory=list)
    estimated_input_tokens: int = 0
    would_distill: int = 0
    redactions: dict[str, int] = field(default_factory=dict)
    read_warnings: dict[str, int] = field(default_factory=dict)  # rows not understood, by kind
    left_out: dict[str, int] = field(default_factory=dict)  # undone in the source, or pruned by it
    orphaned_sessions: int = 0  # subagent sessions whose parent no longer exists
    notes_published: int = 0
    notes_unpublished: int = 0
    notes_submitted: int = 0
    notes_added: int = 0
    datasets: list[str] = field(default_factory=list)
    notes_rejected: list[dict[str, str]] = field(default_factory=list)  # topic, note, phase, reason
    add_status: str = "not run"
    cognify_status: str = "not run"
    wall_s: float = 0.0
    plan: list[PlanItem] = field(default_factory=list)
    plan_omitted: int = 0
    # The dry run of --phase add|cognify: accepted notes selected, and those the graph does not hold yet.
    notes_selected: int = 0
    would_add_to_graph: int = 0

    def add_plan(self, item: PlanItem) -> None:
        """Keep a bounded number of plan rows (memory must not grow with the number of sessions)."""
        if item.action == "distill":
            self.would_distill += 1
        if len(self.plan) < PLAN_ROWS_MAX:
            self.plan.append(item)
        else:
            self.plan_omitted += 1

    @property
    def sessions_per_hour(self) -> float:
        handled = self.distilled + self.skipped_junk + self.skipped_threshold + self.errors
        return handled / self.wall_s * 3600 if self.wall_s > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """0 ok; 1 some sessions failed to distill; 4 the add phase failed or rejected a note; 5 the
        cognify phase failed or rejected a note (the other notes went on: :mod:`memctl.ingest.graph_phases`).
        Run-level failures raise :class:`memctl.ingest.run.IngestError` with their own code instead."""
        phases = {r.get("phase") for r in self.notes_rejected}
        if self.add_status.startswith("failed") or "add" in phases:
            return ADD_FAILED
        if self.cognify_status.startswith("failed") or "cognify" in phases:
            return COGNIFY_FAILED
        return FAILED_ITEMS if self.errors else OK

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sessions_per_hour"] = round(self.sessions_per_hour, 1)
        data["wall_s"] = round(self.wall_s, 3)
        data["exit_code"] = self.exit_code
        if not self.dry_run:
            for key in ("plan", "plan_omitted", "would_distill", "estimated_input_tokens"):
                data.pop(key)
        if not self.dry_run or self.phase in ("all", "distill"):
            for key in ("notes_selected", "would_add_to_graph"):
                data.pop(key)
        else:
            for key in ("plan", "plan_omitted", "would_distill", "estimated_input_tokens"):
                data.pop(key)
        return data
