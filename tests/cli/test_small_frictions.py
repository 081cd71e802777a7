"""Small frictions: Ctrl-C on a read-only command says nothing changed, a terminal's progress bars of
unknown length end as N/N (not 0/?), and `show` of a deleted file points at its history."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
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
    (tmp_path / "home").mkdir()  # a named home must exist for ask (exit 7 otherwise)
    result = runner.invoke(app, ["ask", "what?", "--home", str(tmp_path / "home")])
    assert result.exit_code == INTERRUPTED
    assert result.stderr.strip() == "error: interrupted; ask only reads the data home: nothing changed"


def test_ctrl_c_on_a_writing_command_still_says_what_finished_is_recorded(tmp_path: Path, monkeypatch) -> None:
    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr("memctl.ask.proposals.stage_proposal", interrupted)
    (tmp_path / "home").mkdir()  # a named home must exist for remember (exit 7 otherwise)
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


def test_a_run_that_fails_before_writing_leaves_no_home_behind(tmp_path: Path) -> None:
    from memctl.config import DataHome
    from memctl.exit_codes import HomeError

    home = DataHome(tmp_path / "typo" / "home")
    try:
        with home.lock(wait=False):
            raise HomeError("the model is down")
    except HomeError:
        pass
    assert not home.root.exists() and (tmp_path / "typo").is_dir()  # only what the lock created goes
    used = DataHome(tmp_path / "used")
    with used.lock(wait=False):
        (used.root / "progress.json").write_text("{}", encoding="utf-8")
    assert (used.root / "progress.json").is_file()
    existing = DataHome(tmp_path / "existing")
    existing.root.mkdir()
    with existing.lock(wait=False):
        pass
    assert existing.root.is_dir()  # a home that was there stays, even empty


def test_ingest_with_ollama_down_leaves_no_empty_home(tmp_path: Path) -> None:
    import shutil

    from memctl.exit_codes import MODEL

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(fixture / name, tmp_path / name)
    result = runner.invoke(app, ["ingest", "--db", str(tmp_path / "opencode.db"), "--home", str(tmp_path / "home")],
                           env={"MEMCTL_SETTLE_MINUTES": "0"})
    assert result.exit_code == MODEL and "cannot reach Ollama" in result.stderr
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("named_by", ["--home", "MEMCTL_HOME", "config file"])
def test_remember_refuses_a_named_home_that_does_not_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           named_by: str) -> None:
    from memctl.exit_codes import HOME

    typo = tmp_path / "typo"
    args = ["remember", "Prefers pnpm."]
    if named_by == "--home":
        args += ["--home", str(typo)]
    elif named_by == "MEMCTL_HOME":
        monkeypatch.setenv("MEMCTL_HOME", str(typo))
    else:
        monkeypatch.delenv("MEMCTL_HOME")
        (tmp_path / "memctl.toml").write_text(f'home = "{typo}"\n')
        monkeypatch.setenv("MEMCTL_CONFIG", str(tmp_path / "memctl.toml"))
    result = runner.invoke(app, args)
    where = str(tmp_path / "memctl.toml") if named_by == "config file" else named_by
    assert result.exit_code == HOME, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: the data home {typo} (from {where}) does not exist; check the path, or start a home there "
        f"with `memctl ingest --home {typo}`"]
    assert not typo.exists() and result.stdout == ""
    typo.mkdir()  # made on purpose: a new home is accepted
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and list((typo / "store" / "staging").rglob("*.json")), again.output


def test_remember_creates_the_per_user_default_home_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMCTL_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    result = runner.invoke(app, ["remember", "Prefers pnpm."])
    assert result.exit_code == 0, result.output
    assert f"created the data home {tmp_path / 'xdg' / 'memctl'}" in result.stderr
    assert list((tmp_path / "xdg" / "memctl" / "store" / "staging").rglob("*.json"))
