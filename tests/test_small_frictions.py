"""Small frictions: Ctrl-C on a read-only command says nothing changed, a terminal's progress bars of
unknown length end as N/N (not 0/?), and `show` of a deleted file points at its history."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.cli.progress import RichReporter
from memctl.exit_codes import INTERRUPTED
from memctl.store import MemoryStore

runner = CliRunner()


def test_ctrl_c_on_ask_says_nothing_changed(tmp_path: Path, monkeypatch) -> None:
    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr("memctl.ask.run.ask", interrupted)
    result = runner.invoke(app, ["ask", "what?", "--home", str(tmp_path / "home")])
    assert result.exit_code == INTERRUPTED
    assert result.stderr.strip() == "error: interrupted; ask only reads the data home: nothing changed"


def test_ctrl_c_on_a_writing_command_still_says_what_finished_is_recorded(tmp_path: Path, monkeypatch) -> None:
    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr("memctl.ask.proposals.stage_proposal", interrupted)
    result = runner.invoke(app, ["remember", "Prefers pnpm.", "--home", str(tmp_path / "home")])
    assert result.exit_code == INTERRUPTED and "what finished is recorded" in result.stderr


def test_bars_of_unknown_length_end_as_n_of_n() -> None:
    out = io.StringIO()
    reporter = RichReporter(Console(file=out, force_terminal=True, width=100, color_system=None))
    reporter.phase("load", None)
    reporter.advance(3)
    reporter.phase("cluster", None)
    reporter.phase("consolidate", 2)
    reporter.advance(2)
    reporter.done()
    last_frame = out.getvalue()[out.getvalue().rfind("load"):]  # the bars as the run left them
    assert "3/3" in last_frame and "0/0" in last_frame and "2/2" in last_frame
    assert "/?" not in last_frame, last_frame


def test_show_of_a_deleted_file_points_at_its_history(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "home" / "store")
    sha = store.write_text("user/global/editor.md", "Use vim.\n", actor="cli", reason="test")
    store.delete("user/global/editor.md", expected_sha=sha, actor="cli", reason="gone")
    result = runner.invoke(app, ["show", "user/global/editor.md", "--home", str(tmp_path / "home")])
    assert result.exit_code != 0
    assert "was deleted" in result.stderr and "memctl history user/global/editor.md" in result.stderr
    old = runner.invoke(app, ["show", "user/global/editor.md", "--version", sha[:12], "--home", str(tmp_path / "home")])
    assert old.exit_code == 0 and old.stdout == "Use vim.\n"
    never = runner.invoke(app, ["show", "user/global/never.md", "--home", str(tmp_path / "home")])
    assert never.exit_code == result.exit_code and "history" not in never.stderr
