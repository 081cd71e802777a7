"""Settings that used to break silently: OLLAMA_HOST without a port (Ollama's rule: 11434), and the scheduled
jobs, which must run with every non-default setting of the shell that installed them, the OpenCode
database included; a data home that is a file is refused before a plan is printed."""

from __future__ import annotations

import plistlib
from pathlib import Path

import pytest
from ollama._client import _parse_host  # Ollama's own client: the rule memctl must agree with
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.config import Settings
from memctl.exit_codes import HOME, USAGE

runner = CliRunner()


@pytest.mark.parametrize("host", ["0.0.0.0", "gpu-box", "1.2.3.4:56789", "http://1.2.3.4", "https://example.com",
                                  "example.com/path", "example.com:56789/path/", "[0001:002:003:0004::1]",
                                  "http://[::1]:5", "http://127.0.0.1:11434/", " 10.0.0.2 "])
def test_ollama_host_gets_ollamas_default_port(host: str, tmp_path: Path) -> None:
    assert Settings(ollama_host=host, home=tmp_path).ollama_base_url == _parse_host(host.strip())


def test_a_bare_host_goes_to_11434_not_80(tmp_path: Path) -> None:
    assert Settings(ollama_host="0.0.0.0", home=tmp_path).ollama_base_url == "http://0.0.0.0:11434"


def _launchd_env(stdout: str, agents: Path) -> dict[str, str]:
    block = stdout.split(f"would write: {agents / 'com.memctl.ingest.plist'}\n", 1)[1]
    return plistlib.loads(block[:block.index("</plist>") + len("</plist>")].encode())["EnvironmentVariables"]


def test_schedule_carries_non_default_settings_and_the_db_flag(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "oc" / "opencode.db"
    db.parent.mkdir()
    db.write_bytes(b"")
    monkeypatch.setenv("MEMCTL_DISTILL_MODEL", "qwen3:4b")
    monkeypatch.setenv("MEMCTL_WORKERS", "4")
    agents = tmp_path / "agents"
    result = runner.invoke(app, ["schedule", "install", "--dry-run", "--platform", "launchd", "--unit-dir",
                                 str(agents), "--home", str(tmp_path / "home"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    env = _launchd_env(result.stdout, agents)
    assert env["OPENCODE_DB"] == str(db) and env["MEMCTL_DISTILL_MODEL"] == "qwen3:4b" and env["MEMCTL_WORKERS"] == "4"
    assert env["MEMCTL_HOME"] == str(tmp_path / "home")


def test_schedule_carries_opencode_db_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(b"")
    monkeypatch.setenv("OPENCODE_DB", str(db))
    agents = tmp_path / "agents"
    result = runner.invoke(app, ["schedule", "install", "--dry-run", "--platform", "launchd", "--unit-dir",
                                 str(agents), "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    assert _launchd_env(result.stdout, agents)["OPENCODE_DB"] == str(db)


@pytest.mark.parametrize(("make", "flag", "code", "message"), [
    ("file-home", "--home", HOME, "is a file"),
    ("missing-db", "--db", USAGE, "no such file or directory"),
])
def test_schedule_refuses_a_file_home_and_a_missing_db(tmp_path: Path, make: str, flag: str, code: int,
                                                       message: str) -> None:
    target = tmp_path / make
    if make == "file-home":
        target.write_text("not a home", encoding="utf-8")
    args = ["schedule", "install", "--dry-run", "--platform", "launchd", "--unit-dir", str(tmp_path / "agents")]
    args += [flag, str(target)] + (["--home", str(tmp_path / "home")] if flag == "--db" else [])
    result = runner.invoke(app, args)
    assert result.exit_code == code and message in result.stderr
    assert "would write" not in result.stdout
