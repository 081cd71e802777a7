"""A non-default OpenCode database named once, in the config file (``opencode_db``) or ``MEMCTL_OPENCODE_DB``:
ingest and doctor read it, ``schedule install`` carries it into the ingest job, ``--db`` and ``OPENCODE_DB``
still win over it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"
runner = CliRunner()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """The fixture database copied into a directory no default points at."""
    where = tmp_path / "elsewhere" / "opencode"
    where.mkdir(parents=True)
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        if (FIXTURE / name).exists():
            shutil.copy2(FIXTURE / name, where / name)
    return where


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "memctl.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("MEMCTL_CONFIG", str(path))
    return path


def _dry_run(tmp_path: Path, *args: str) -> tuple[int, dict | None, str]:
    result = runner.invoke(app, ["ingest", "--dry-run", "--source", "opencode", "--json", "--home",
                                 str(tmp_path / "var"), *args])
    try:
        return result.exit_code, json.loads(result.stdout), result.stderr
    except ValueError:
        return result.exit_code, None, result.stderr


def test_ingest_reads_the_database_the_config_file_names(tmp_path, monkeypatch, database) -> None:
    _config(tmp_path, monkeypatch, f'opencode_db = "{database}"\n')
    code, summary, err = _dry_run(tmp_path)
    assert code == 0, err
    assert summary is not None and summary["found"] == 9


def test_memctl_opencode_db_variable_names_it_too(tmp_path, monkeypatch, database) -> None:
    monkeypatch.setenv("MEMCTL_OPENCODE_DB", str(database / "opencode.db"))
    code, summary, err = _dry_run(tmp_path)
    assert code == 0 and summary is not None and summary["found"] == 9, err


def test_db_flag_and_opencode_db_variable_win_over_the_setting(tmp_path, monkeypatch, database) -> None:
    from memctl.exit_codes import SOURCE

    _config(tmp_path, monkeypatch, f'opencode_db = "{database}"\n')
    code, _, err = _dry_run(tmp_path, "--db", str(tmp_path / "missing.db"))
    assert code == SOURCE and str(tmp_path / "missing.db") in err
    monkeypatch.setenv("OPENCODE_DB", str(tmp_path / "gone.db"))
    code, _, err = _dry_run(tmp_path)
    assert code == SOURCE and str(tmp_path / "gone.db") in err


def test_a_missing_database_in_the_config_file_is_named_not_skipped(tmp_path, monkeypatch) -> None:
    from memctl.exit_codes import SOURCE

    _config(tmp_path, monkeypatch, f'opencode_db = "{tmp_path / "typo.db"}"\n')
    code, _, err = _dry_run(tmp_path)
    assert code == SOURCE and str(tmp_path / "typo.db") in err


def test_doctor_checks_the_database_the_setting_names(tmp_path, monkeypatch, database) -> None:
    monkeypatch.setenv("MEMCTL_OPENCODE_DB", str(database))
    result = runner.invoke(app, ["doctor", "--json", "--home", str(tmp_path / "var")])
    checks = json.loads(result.stdout)
    shown = " ".join(json.dumps(c) for c in checks if "opencode" in json.dumps(c).lower())
    assert str(database) in shown, shown


def test_schedule_install_carries_the_configured_database_into_the_ingest_job(tmp_path, monkeypatch, database) -> None:
    _config(tmp_path, monkeypatch, f'opencode_db = "{database}"\n')
    home = tmp_path / "var"
    home.mkdir()
    result = runner.invoke(app, ["schedule", "install", "--dry-run", "--platform", "systemd", "--unit-dir",
                                 str(tmp_path / "units"), "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert f"OPENCODE_DB={database}" in result.stdout
    assert not (tmp_path / "units").exists()  # a dry run writes nothing
