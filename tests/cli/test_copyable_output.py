"""Output you can copy: tables never cut or fold an id, a path or a URL (pipe of any COLUMNS, terminal of
any width), and ingest refuses a filter that names nothing instead of exiting 0 having done nothing."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from memctl.cli.tables import print_table, records
from memctl.exit_codes import USAGE
from memctl.store import MemoryStore
from tests.support.cli_in_process import run_cli

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"
LONG_ID = "ses_dd586074bffeT9AQrwa2SB0fm4"
LONG_PATH = "/home/someone/projects/a-rather-long-project-name/var/reports/sleep-2026-12-01T03-00-00.html"


def _memctl(*args: str, columns: int) -> subprocess.CompletedProcess:
    """The command in-process (run_cli), its output a pipe of ``columns`` (Rich reads ``COLUMNS`` per print)."""
    return run_cli(*args, env={"COLUMNS": str(columns)})


@pytest.fixture
def db(tmp_path: Path) -> Path:
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(FIXTURE / name, tmp_path / name)
    return tmp_path / "opencode.db"


def _table() -> Table:
    table = Table(title="plan")
    for column in ("session", "title", "report"):
        table.add_column(column, overflow="fold")
    table.add_row(LONG_ID, "a title long enough to fold over several lines of a narrow terminal", LONG_PATH)
    table.add_row("ses_2", Text("ok", style="green"), "-")
    return table


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_a_piped_table_keeps_every_cell_on_one_line(width: int) -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=width, soft_wrap=True), _table(), whole=("session", "report"))
    text = out.getvalue()
    assert LONG_ID in text and LONG_PATH in text
    assert "a title long enough to fold over several lines of a narrow terminal" in text


@pytest.mark.parametrize("width", [40, 60, 100])
def test_a_terminal_too_narrow_gets_one_line_per_cell(width: int) -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=width, force_terminal=True, color_system=None), _table(),
                whole=("session", "report"))
    text = out.getvalue()
    assert f"session: {LONG_ID}" in text and f"report: {LONG_PATH}" in text and "title: ok" in text


def test_a_terminal_wide_enough_gets_the_table_with_ids_whole() -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=200, force_terminal=True, color_system=None), _table(),
                whole=("session", "report"))
    lines = out.getvalue().splitlines()
    assert any(LONG_ID in line and LONG_PATH in line for line in lines) and "┃ session" in out.getvalue()


def test_records_of_a_headerless_summary_are_label_value_lines() -> None:
    table = Table(title="memctl sleep", show_header=False)
    table.add_column("")
    table.add_column("")
    table.add_row("report", LONG_PATH)
    assert records(table) == ["memctl sleep", f"report: {LONG_PATH}"]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_ingest_dry_run_never_folds_a_session_id(db: Path, tmp_path: Path, columns: int) -> None:
    as_json = _memctl("ingest", "--dry-run", "--json", "--db", str(db), "--home", str(tmp_path / "h"), columns=columns)
    ids = [item["source_id"] for item in json.loads(as_json.stdout)["plan"]]
    assert len(ids) >= 5
    result = _memctl("ingest", "--dry-run", "--db", str(db), "--home", str(tmp_path / "h"), columns=columns)
    assert result.returncode == 0, result.stderr
    assert all(sid in result.stdout for sid in ids)


def test_audit_keeps_paths_whole_in_a_narrow_pipe(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "h" / "store")
    path = "user/global/a-preference-file-with-a-rather-long-descriptive-name.md"
    store.write_text(path, "Use pnpm.\n", actor="cli", reason="a reason long enough to be folded in a table")
    result = _memctl("audit", "--home", str(tmp_path / "h"), columns=50)
    assert result.returncode == 0, result.stderr
    assert path in result.stdout and "a reason long enough to be folded in a table" in result.stdout


def test_doctor_keeps_urls_and_paths_whole_in_a_narrow_pipe(tmp_path: Path) -> None:
    home = tmp_path / "a-data-home-whose-path-is-long-enough-to-be-split-by-a-table"
    result = _memctl("doctor", "--db", str(tmp_path / "none.db"), "--home", str(home), columns=60)
    assert str(home) in result.stdout and "127.0.0.1:9" in result.stdout


def test_a_short_dry_run_prints_no_line_per_session_in_a_pipe(db: Path, tmp_path: Path) -> None:
    """In a pipe a phase prints a line at most every ``min_interval_s`` (2 s) and its end: a run that is quick
    prints one line, not one per session. The bound follows the run's own wall time, so a loaded machine (the
    fresh-clone review's D9: `plan 1/9` then `plan 9/9`) is not a failure while a line per item still is."""
    import time

    from memctl.cli.progress import LineReporter

    started = time.monotonic()
    result = _memctl("ingest", "--dry-run", "--db", str(db), "--home", str(tmp_path / "h"), columns=80)
    elapsed = time.monotonic() - started
    progress = [line for line in result.stderr.splitlines() if line.startswith("memctl: plan ")]
    assert progress and progress[-1].startswith("memctl: plan 9/9"), result.stderr
    assert len(progress) <= 1 + int(elapsed / LineReporter().min_interval_s), (elapsed, progress)


def test_ingest_unknown_project_lists_the_known_ones(db: Path, tmp_path: Path) -> None:
    result = _memctl("ingest", "--dry-run", "--project", "nope", "--db", str(db), "--home", str(tmp_path / "h"),
                     columns=80)
    assert result.returncode == USAGE
    assert "--project nope" in result.stderr and "known projects: alpha, beta, scratch" in result.stderr
    known = _memctl("ingest", "--dry-run", "--json", "--project", "beta", "--db", str(db), "--home",
                    str(tmp_path / "h"), columns=80)
    assert known.returncode == 0 and json.loads(known.stdout)["found"] == 4  # beta: 4 of the 9 sessions


def test_a_graph_phase_dry_run_plans_no_distilling(db: Path, tmp_path: Path) -> None:
    result = _memctl("ingest", "--dry-run", "--json", "--phase", "cognify", "--db", str(db), "--home",
                     str(tmp_path / "h"), columns=80)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert "would_distill" not in data and "plan" not in data
    assert (data["notes_selected"], data["would_add_to_graph"]) == (0, 0)
    assert not (tmp_path / "h").exists()  # a dry run writes nothing


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What ``args`` print on stdout when it is a terminal (a pseudo-terminal), with line ends as ``\\n``."""
    import pty

    main, child = pty.openpty()
    proc = subprocess.Popen(args, stdout=child, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=300)
    os.close(main)
    return out.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
def test_sleep_keeps_its_report_path_whole(tmp_path: Path, fake_ollama, terminal: bool) -> None:
    """The report path is what a scheduled job's log keeps of a sleep: never cut or folded, in a pipe or on
    a 40-column terminal."""
    home = tmp_path / "a-data-home-whose-path-is-long-enough-to-be-cut-by-a-narrow-table"
    home.mkdir()
    args = [sys.executable, "-m", "memctl.cli", "sleep", "--no-rebuild", "--home", str(home)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "40", "LINES": "24", "OLLAMA_HOST": fake_ollama.url}
    if terminal:
        out = _on_a_terminal(args, env)
    else:
        result = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
        assert result.returncode == 0, result.stderr
        out = result.stdout
    import re

    reports = re.findall(r"/\S*reports/sleep-\S+?\.html", out)
    assert len(reports) == 1 and reports[0].startswith(str(home)) and Path(reports[0]).is_file(), out


@pytest.mark.parametrize("columns", [60, 80, 200])
def test_review_keeps_ids_and_store_paths_whole_in_a_pipe(tmp_path: Path, columns: int) -> None:
    """Fresh-clone review D1: `memctl review | cat` cut the `to` path and the `why held` reasons over two lines."""
    from memctl.sleep.review_queue import entries
    from tests.sleep.test_memory_trust import _held

    home, entry_id = _held(tmp_path)
    (entry,) = entries(MemoryStore(home / "store"))
    result = _memctl("review", "--home", str(home), columns=columns)
    assert result.returncode == 0, result.stderr
    assert entry_id in result.stdout and entry.path in result.stdout, result.stdout
    assert all(reason in result.stdout for reason in entry.reasons), result.stdout
    assert "provenance" in result.stdout
