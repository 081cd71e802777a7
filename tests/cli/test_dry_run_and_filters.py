"""A dry run's plan is its result (stdout, as `ingest --dry-run`'s), and a filter that names nothing is
refused with what exists instead of reading as "nothing happened"."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.exit_codes import USAGE
from memctl.store import MemoryStore

runner = CliRunner()
VALUE = "hunter2-correct-horse-battery"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    store = MemoryStore(home / "store")
    store.write_text("user/global/editor.md", f"Use vim. The old password was {VALUE}.\n", actor="cli", reason="test")
    store.write_text("staging/sessions/s1/inbox/p1.json", '{"content": "x"}\n', actor="remember", reason="test")
    return home


def test_purge_text_dry_run_prints_its_plan_on_stdout(tmp_path: Path) -> None:
    home = _home(tmp_path)
    result = runner.invoke(app, ["purge", "--text", VALUE, "--dry-run", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("memctl purge of 1 value(s) would:") and "  - " in result.stdout
    assert "would:" not in result.stderr


def test_forget_dry_run_prints_its_plan_on_stdout(tmp_path: Path) -> None:
    home = _home(tmp_path)
    result = runner.invoke(app, ["forget", "user/global/editor.md", "--dry-run", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("memctl forget user/global/editor.md would:") and "  - " in result.stdout
    assert (home / "store" / "user" / "global" / "editor.md").is_file()


def test_audit_refuses_an_actor_that_never_wrote(tmp_path: Path) -> None:
    home = _home(tmp_path)
    result = runner.invoke(app, ["audit", "--actor", "nobody", "--home", str(home)])
    assert result.exit_code == USAGE
    assert "--actor nobody" in result.stderr and "actors in the log: cli, remember" in result.stderr
    known = runner.invoke(app, ["audit", "--actor", "remember", "--json", "--home", str(home)])
    assert known.exit_code == 0 and '"staging/sessions/s1/inbox/p1.json"' in known.stdout
    none_since = runner.invoke(app, ["audit", "--actor", "cli", "--since", "2999-01-01", "--home", str(home)])
    assert none_since.exit_code == 0 and "no audit records match" in none_since.stderr  # a known actor: fine
