"""The human tables of `memctl ingest` and `memctl sleep` are drawn from the typed summaries' fields."""

from __future__ import annotations

import io

from rich.console import Console

from memctl.cli.commands.ingest import _plan_table, _summary_table
from memctl.cli.tables import print_table
from memctl.ingest.summary import IngestSummary, PlanItem


def _render(table) -> str:  # noqa: ANN001 - a rich Table
    out = io.StringIO()
    print_table(Console(file=out, width=200), table, whole=("",))
    return out.getvalue()


def _rows(text: str) -> dict[str, str]:
    """``{label: value}`` of a two-column box table."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 2 and cells[0]:
            rows[cells[0]] = cells[1]
    return rows


def test_a_run_table_shows_its_counts_recovered_and_rates() -> None:
    summary = IngestSummary(found=7, already_done=2, distilled=3, recovered=1, errors=1, skipped_junk=1,
                            redactions={"github_token": 2}, datasets=["alpha", "beta"], add_status="ok",
                            notes_published=3, notes_unpublished=1, wall_s=7.249, orphaned_sessions=1)
    rows = _rows(_render(_summary_table(summary)))
    assert rows["sessions found"] == "7" and rows["distilled"] == "3 (1 recovered)" and rows["errors"] == "1"
    assert rows["published to memory/ (new or changed / removed)"] == "3 / 1"
    assert rows["datasets"] == "alpha, beta" and rows["secrets redacted"] == "github_token 2"
    assert rows["orphaned subagent sessions"] == "1" and rows["wall time"] == "7.2 s"
    assert rows["sessions/hour"] == f"{round(summary.sessions_per_hour, 1):,.0f}" == "2,483"
    assert "would distill" not in rows and "source rows skipped" not in rows


def test_a_dry_run_table_and_plan() -> None:
    summary = IngestSummary(dry_run=True, found=2, would_distill=1, estimated_input_tokens=12_345)
    rows = _rows(_render(_summary_table(summary)))
    assert rows["would distill"] == "1" and rows["estimated input tokens"] == "12,345"
    assert "distilled" not in rows and "sessions/hour" not in rows
    graph = _rows(_render(_summary_table(IngestSummary(dry_run=True, phase="cognify", found=4, notes_selected=3,
                                                       would_add_to_graph=2))))
    assert graph == {"sessions found": "4", "notes selected": "3", "notes the graph lacks (would cognify)": "2",
                     "wall time": "0.0 s"}
    plan = _render(_plan_table([PlanItem("ses_1", "a title", "alpha", "distill", "new", 120)]))
    assert "ses_1" in plan and "alpha" in plan and "120" in plan
