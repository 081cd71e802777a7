"""The autouse ``isolated_environment`` fixture: no test sees the user's memctl, Ollama or OpenCode setup."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import CLOSED_PORT_HOST

REPO = Path(__file__).resolve().parents[2]


def _memctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)


def test_the_environment_points_into_the_tests_own_temp_dir(isolated_environment: Path) -> None:
    assert os.environ["MEMCTL_HOME"] == str(isolated_environment / "home")
    assert os.environ["XDG_CONFIG_HOME"].startswith(str(isolated_environment))
    assert os.environ["XDG_DATA_HOME"].startswith(str(isolated_environment))
    assert os.environ["OLLAMA_HOST"] == CLOSED_PORT_HOST
    assert [n for n in os.environ if n.startswith("MEMCTL_")] == ["MEMCTL_HOME"]
    assert "OPENCODE_DB" not in os.environ


def test_a_child_process_without_home_writes_into_the_isolated_home(isolated_environment: Path) -> None:
    repo_var = sorted(p.name for p in (REPO / "var").iterdir())
    (isolated_environment / "home").mkdir()  # remember refuses a MEMCTL_HOME that does not exist
    result = _memctl("remember", "Prefers pnpm over npm.", "--session", "s1", "--json")
    assert result.returncode == 0, result.stderr
    staged = json.loads(result.stdout)
    assert (isolated_environment / "home" / "store" / "staging" / "sessions" / "s1" / "inbox" / f"{staged['id']}.json").is_file()
    assert sorted(p.name for p in (REPO / "var").iterdir()) == repo_var


def test_a_child_process_reads_the_config_file_of_the_isolated_config_dir(isolated_environment: Path) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "memctl" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('workers = "many"\n')
    result = _memctl("ingest", "--dry-run", "--db", str(isolated_environment / "none.db"))
    assert result.returncode == 2 and str(config) in result.stderr and "workers" in result.stderr


def test_a_child_process_finds_no_opencode_history_and_no_ollama(isolated_environment: Path) -> None:
    result = _memctl("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert result.returncode == 8
    assert checks["ollama"]["status"] == "fail" and CLOSED_PORT_HOST in checks["ollama"]["detail"]
    assert checks["opencode db"]["status"] == "fail"
    assert str(isolated_environment / "data" / "opencode" / "opencode.db") in checks["opencode db"]["detail"]
