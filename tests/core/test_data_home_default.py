"""One data home per user wherever the command runs, `memctl config show` with each setting's source, and
doctor naming the home and what chose it. The tests' own homes stay isolated from the real user's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.main import app

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _memctl(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO), **env})


def test_the_default_home_is_the_users_data_dir_not_the_current_directory(tmp_path, monkeypatch) -> None:
    from memctl.config import Settings

    monkeypatch.delenv("MEMCTL_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for where in (tmp_path / "a", tmp_path / "b" / "c"):
        where.mkdir(parents=True)
        monkeypatch.chdir(where)
        assert Path(Settings().home) == tmp_path / "xdg" / "memctl"


def test_the_tests_default_home_is_inside_the_tests_temp_dir(isolated_environment, monkeypatch) -> None:
    # A test that forgets --home and drops MEMCTL_HOME still writes under its temp dir, never the real user's.
    from memctl.config import DataHome, Settings

    monkeypatch.delenv("MEMCTL_HOME")
    assert DataHome(Settings().home).root.is_relative_to(isolated_environment)
    assert Path(os.environ["XDG_CONFIG_HOME"]).is_relative_to(isolated_environment)


def test_config_show_names_the_same_home_from_two_directories(tmp_path) -> None:
    env = {"MEMCTL_HOME": "", "XDG_DATA_HOME": str(tmp_path / "xdg")}
    homes = []
    for where in (tmp_path / "project-a", tmp_path / "project-b"):
        where.mkdir()
        result = _memctl("config", "show", "--json", cwd=where, env=env)
        assert result.returncode == 0, result.stderr
        first = json.loads(result.stdout)["settings"][0]
        assert first["name"] == "home" and first["source"] == "default"
        homes.append(first["value"])
    assert homes == [str(tmp_path / "xdg" / "memctl")] * 2
    assert not (tmp_path / "project-a" / "var").exists()


@pytest.mark.parametrize(("args", "env", "file_text", "expected"), [
    ((), {}, None, ("default", "")),
    ((), {"MEMCTL_DISTILL_MODEL": "qwen3:4b"}, None, ("environment", "MEMCTL_DISTILL_MODEL")),
    ((), {"memctl_distill_model": "qwen3:4b"}, None, ("environment", "memctl_distill_model")),
    ((), {}, 'distill_model = "qwen3:4b"\n', ("config file", "FILE")),
    ((), {"MEMCTL_DISTILL_MODEL": "qwen3:4b"}, 'distill_model = "phi4"\n', ("environment", "MEMCTL_DISTILL_MODEL")),
])
def test_config_show_says_where_each_setting_came_from(tmp_path, monkeypatch, args, env, file_text, expected) -> None:
    config = tmp_path / "config.toml"
    if file_text is not None:
        config.write_text(file_text, encoding="utf-8")
        monkeypatch.setenv("MEMCTL_CONFIG", str(config))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = runner.invoke(app, ["config", "show", "--json", *args])
    assert result.exit_code == 0, result.output
    row = next(r for r in json.loads(result.stdout)["settings"] if r["name"] == "distill_model")
    assert (row["source"], row["where"]) == (expected[0], str(config) if expected[1] == "FILE" else expected[1])
    assert row["value"] == ("llama3.1:8b" if expected[0] == "default" else "qwen3:4b")


def test_config_show_tells_a_home_flag_from_the_home_variable(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEMCTL_HOME", str(tmp_path / "from-env"))
    shown = json.loads(runner.invoke(app, ["config", "show", "--json"]).stdout)["settings"][0]
    assert (shown["value"], shown["source"], shown["where"]) == (str(tmp_path / "from-env"), "environment", "MEMCTL_HOME")
    result = runner.invoke(app, ["config", "show", "--json", "--home", str(tmp_path / "flag")])
    shown = json.loads(result.stdout)["settings"][0]
    assert (shown["value"], shown["source"], shown["where"]) == (str(tmp_path / "flag"), "flag", "--home")


def test_config_show_lines_are_toml_that_reads_back(tmp_path, monkeypatch) -> None:
    import tomllib

    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 0, result.output
    parsed = tomllib.loads(result.stdout)
    assert parsed["ollama_host"] == "127.0.0.1:9" and parsed["embedding_dimensions"] == 768
    assert "# environment OLLAMA_HOST" in result.stdout


def test_doctor_says_where_the_home_is_and_what_chose_it(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("MEMCTL_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    old = tmp_path / "project" / "var"
    old.mkdir(parents=True)
    (old / "progress.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "project")
    result = runner.invoke(app, ["doctor", "--json", "--db", str(tmp_path / "none.db")])
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["data home"]["detail"] == f"{tmp_path / 'xdg' / 'memctl'} writable (default)"
    assert checks["older data home"]["status"] == "warn" and f"--home {old}" in checks["older data home"]["fix"]
    result = runner.invoke(app, ["doctor", "--json", "--db", str(tmp_path / "none.db"), "--home", str(old)])
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["data home"]["detail"] == f"{old} writable (flag --home)" and "older data home" not in checks


def test_where_data_goes_names_every_path_of_the_data_home() -> None:
    """The README's "Where data goes" points to docs/data-home.md, which lists every DataHome path."""
    from memctl.config import DataHome
    from memctl.ingest.graph_ledger import ledger_path

    listing = (REPO / "docs" / "data-home.md").read_text(encoding="utf-8")
    home = DataHome(Path("/r"))
    paths = [getattr(home, name) for name in dir(DataHome) if isinstance(getattr(DataHome, name), property)]
    paths.append(ledger_path(home))
    missing = [str(p.relative_to(home.root)) for p in paths
               if f"| `{p.relative_to(home.root).as_posix()}" not in listing]
    assert missing == []
