"""The commands people reach for: shell completion, `--verbose` after the command name too, `remember`
without `--session` (the same default as `ask`), and every command in help order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import boundary, log_routing
from memctl.cli.main import app

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()
COMPLETE = "from memctl.cli.main import app; app(prog_name='memctl')"


def _complete(words: str, cword: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "_MEMCTL_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(cword)}
    result = subprocess.run([sys.executable, "-c", COMPLETE], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_bash_completion_completes_commands_and_options() -> None:
    assert _complete("memctl se", 1) == ["search", "serve"]
    assert _complete("memctl ingest --ph", 2) == ["--phase"]
    assert "uninstall" in _complete("memctl mcp ", 2)


def test_install_completion_writes_the_users_shell_file(tmp_path: Path) -> None:
    # Typer reads `--install-completion bash` as a flag plus an extra argument and asks shellingham for the shell
    # of the ancestor processes: a suite started detached from any shell (nohup, `(cmd &)`) got "Shell None is not
    # supported". With detection off the option takes the shell named here.
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "SHELL": "/bin/bash",
           "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    result = subprocess.run([sys.executable, "-c", COMPLETE, "--install-completion", "bash"], capture_output=True,
                            text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    script = (tmp_path / ".bash_completions" / "memctl.sh").read_text()
    assert "_MEMCTL_COMPLETE" in script and "memctl.sh" in (tmp_path / ".bashrc").read_text()


@pytest.mark.parametrize(("args", "expected"), [
    (["ingest", "--verbose", "--dry-run"], ["--verbose", "ingest", "--dry-run"]),
    (["--verbose", "ingest"], ["--verbose", "ingest"]),
    (["remember", "-s", "x", "--", "--verbose"], ["remember", "-s", "x", "--", "--verbose"]),
    (["ask", "q", "--verbose", "--", "--verbose"], ["--verbose", "ask", "q", "--", "--verbose"]),
    (["ask", "q"], ["ask", "q"]),
])
def test_root_flags_are_hoisted_before_the_command(args: list[str], expected: list[str]) -> None:
    assert boundary.hoist_root_flags(args) == expected


@pytest.mark.parametrize("args", [["--verbose", "config", "show"], ["config", "show", "--verbose"],
                                  ["config", "--verbose", "show"]])
def test_verbose_is_accepted_before_and_after_the_command(args: list[str], monkeypatch) -> None:
    seen = []
    real = log_routing.prepare

    def spy(out, err, verbose):  # noqa: ANN001, ANN202
        seen.append(verbose)
        return real(out, err, verbose=verbose)

    monkeypatch.setattr(log_routing, "prepare", spy)
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert seen == [True]


def test_remember_defaults_the_session_like_ask(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    result = runner.invoke(app, ["remember", "Prefers pnpm over npm in this repo.", "--json",
                                 "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    staged = json.loads(result.stdout)
    assert staged["session"] == "cli"
    assert list((tmp_path / "home" / "store" / "staging" / "sessions").iterdir()) == [
        tmp_path / "home" / "store" / "staging" / "sessions" / "cli"]


def test_python_dash_m_memctl_is_the_cli(tmp_path: Path) -> None:
    """A fresh helper reached for ``python -m memctl`` (only ``python -m memctl.cli`` existed): same CLI, same
    exit codes."""
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    version = subprocess.run([sys.executable, "-m", "memctl", "--version"], capture_output=True, text=True,
                             cwd=tmp_path, env=env, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("memctl ")
    typo = subprocess.run([sys.executable, "-m", "memctl", "nosuch"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert typo.returncode == 2 and "No such command" in typo.stderr and "Traceback" not in typo.stderr
