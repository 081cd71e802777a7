"""The human output of `memctl ingest`, `sleep`, `ask` and `config show` is drawn from the typed results' fields
(IngestSummary, SleepSummary, AskResult, Origin), never from their ``as_dict()`` keys."""

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


def test_a_sleep_table_is_drawn_from_the_summarys_fields() -> None:
    from memctl.cli.commands.sleep import summary_table
    from memctl.sleep.summary import SleepSummary

    summary = SleepSummary(proposals=5, promoted=2, rejected=2, rejected_reasons={"secret": 1, "too long": 1},
                           held=3, held_reasons={"action": 2, "supersedes": 1}, review_queue=3, clusters_found=3,
                           clusters_consolidated=2, memories_merged=4, model_calls=6, cache_hits=2,
                           topics_rebuilt=["alpha"], topics_failed={"beta": "boom"}, wall_s=12.345,
                           report_html="/h/reports/sleep-1.html")
    rows = _rows(_render(summary_table(summary)))
    assert rows == {"proposals": "5", "promoted": "2", "rejected": "2 (secret 1, too long 1)",
                    "held for review": "3 (would act 2, replaces a memory 1)", "review queue": "3 (memctl review)",
                    "clusters found / consolidated": "3 / 2", "memories merged": "4",
                    "model calls / cache hits": "6 / 2", "topics rebuilt": "alpha", "topics failed": "beta",
                    "wall time": "12.3 s", "report": "/h/reports/sleep-1.html"}


def _answer(sources: list) -> object:  # noqa: ANN401 - an AskResult
    from memctl.ask.run import AskResult

    return AskResult(question="q", answer="a [1]", topics=["alpha"], route_method="single", route_reason=None,
                     retrieval_method="notes", fallback_used=False, fallback_reason=None, sources=sources,
                     user_memories=[], route_s=0, retrieve_s=0, answer_s=0, ctx_chars=10, prompt_version="4")


def test_an_answers_sources_table_is_drawn_from_the_result() -> None:
    from memctl.ask.retrieval import Source
    from memctl.cli.commands.ask import sources_table

    opencode = Source("ses_abc", "memory/alpha/ses_abc.md", "Fix the lock", "2026-11-02", "alpha")
    text = _render(sources_table(_answer([opencode])))
    assert "ses_abc" in text and "Fix the lock" in text and "2026-11-02" in text and "from" not in text
    codex = Source("codex.019a", "memory/alpha/codex.019a.md", "Retry", "2026-11-03", "alpha")
    table = sources_table(_answer([opencode, codex]))
    assert [str(c.header) for c in table.columns] == ["#", "session", "from", "title", "date", "topic"]
    assert "Codex" in _render(table) and "OpenCode" in _render(table)


def test_config_show_lines_are_drawn_from_the_origins() -> None:
    from pathlib import Path

    from memctl.cli.commands.config import origin_lines
    from memctl.settings_origin import Origin

    lines = origin_lines([Origin("home", Path("/h"), "flag", "--home"), Origin("opencode_db", None, "default", ""),
                          Origin("workers", 4, "environment", "MEMCTL_WORKERS")])
    assert [line.split("  #")[0].rstrip() for line in lines] == ['home = "/h"', "# opencode_db (unset)", "workers = 4"]
    assert [line.split("  # ")[1] for line in lines] == ["flag --home\n", "default\n", "environment MEMCTL_WORKERS\n"]


def test_the_sources_title_says_which_the_answer_cites() -> None:
    """Fresh-clone review D5: six sources listed under an answer citing [1] read as six cited sessions."""
    from memctl.ask.retrieval import Source
    from memctl.cli.commands.ask import sources_table

    sources = [Source(f"ses_{n}", f"memory/alpha/ses_{n}.md", f"t{n}", "2026-11-02", "alpha") for n in range(1, 4)]
    answer = _answer(sources)
    assert str(sources_table(answer).title) == "sources (the answer cites [1]; the others were in its context)"
    answer.answer = "We fixed it [1][3], see also [9]."
    assert str(sources_table(answer).title) == "sources (the answer cites [1] [3]; the others were in its context)"
    answer.answer = "Memory does not say."
    assert str(sources_table(answer).title) == "sources (the answer cites none of them; they were in its context)"
    answer.answer = "Both [1] [2] [3]."
    assert str(sources_table(answer).title) == "sources"


def test_config_show_names_the_embedded_backend_as_the_source_of_what_it_set(tmp_path, monkeypatch) -> None:
    """Left-alone note: `config show` called the embedded backend's random port and its models "# default"."""
    import json as jsonlib

    from tests.support.cli_in_process import run_cli

    monkeypatch.setenv("MEMCTL_MODEL_BACKEND", "embedded")
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "mine:7b")  # the backend wins for this run: say so
    monkeypatch.setenv("MEMCTL_MIN_USER_CHARS", "300")  # above the backend's floor: the user's value stands
    monkeypatch.setenv("MEMCTL_HOME", str(tmp_path))
    result = run_cli("config", "show", "--json")
    assert result.returncode == 0, result.stderr
    source = {s["name"]: (s["source"], s["where"], s["value"]) for s in jsonlib.loads(result.stdout)["settings"]}
    assert source["distill_model"] == ("model_backend", "embedded (for this run)", "smollm2-135m-instruct")
    assert source["model_base_url"][:2] == ("model_backend", "embedded (for this run)")
    assert source["embedding_dimensions"][0] == "model_backend"
    assert source["min_user_chars"] == ("environment", "MEMCTL_MIN_USER_CHARS", 300)
    assert source["model_backend"][:2] == ("environment", "MEMCTL_MODEL_BACKEND")
    assert source["head_fraction"][0] == "default"
    from memctl.embedded import endpoint

    assert endpoint.current() is None  # run_cli closed the run's endpoint, as the end of a process would
