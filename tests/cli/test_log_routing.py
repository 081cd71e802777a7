"""Library output off the terminal: print()s, log records, warnings and colour codes of libraries go to
``<home>/logs/library.log``; the terminal shows memctl's lines only (``--verbose`` shows more, without
colour codes on a pipe). End to end: a first real ingest (real Cognee, the fake model server) with stderr
captured as a pipe.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import log_routing
from memctl.cli.log_routing import LibraryOutput, strip_ansi
from memctl.cli.main import app
from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import FIXTURE_118, run_memctl

ESC = "\x1b"
# Every line memctl itself writes on stderr starts like one of these (progress, notes, errors).
MEMCTL_LINE = re.compile(r"^(memctl: |topics: |error: |warning: |note: |proposed a memory )")


@pytest.mark.parametrize("coloured,plain", [
    ("\x1b[2m2026-11-30T20:30:20\x1b[0m [\x1b[32m\x1b[1minfo     \x1b[0m] done", "2026-11-30T20:30:20 [info     ] done"),
    ("\x1b[1;31mERROR\x1b[0m x", "ERROR x"),
    ("\x1b[38;5;208morange\x1b[39m", "orange"),
    ("\x1b[38;2;255;0;0mred\x1b[0m", "red"),
    ("\x1b]8;;https://docs.cognee.ai/\x1b\\docs\x1b]8;;\x1b\\", "docs"),
    ("\x1b]0;title\x07text", "text"),
    ("\x1b[2K\x1b[1Gprogress 3/7\x1b[?25l", "progress 3/7"),
    ("no colour at all", "no colour at all"),
])
def test_strip_ansi(coloured, plain):
    assert strip_ansi(coloured) == plain


# -- a command whose "library" writes every kind of output ------------------------------------------

LIBRARY_LINES = ["sync_operations table already exists, skipping creation", "coloured structlog line",
                 "WARNING lancedb: a library warning", "a byte writer line", "last progress state"]


def _chatty_checks(settings, db_path, claude_dir=None, codex_home=None, home_origin=""):  # noqa: ANN001, ANN202 - stands in for memctl.doctor.run_checks
    print("sync_operations table already exists, skipping creation")  # alembic migrations do this
    sys.stderr.write("\x1b[2m2026\x1b[0m [\x1b[32minfo\x1b[0m] \x1b[1mcoloured structlog line\x1b[0m\n")
    logging.getLogger("lancedb").warning("a library warning")
    sys.stdout.buffer.write(b"a byte writer line\n")
    sys.stderr.write("progress 1/2\rlast progress state\n")
    return []


@pytest.fixture
def chatty(monkeypatch):
    monkeypatch.setattr("memctl.doctor.run_checks", _chatty_checks)


def test_library_output_goes_to_the_log_not_the_terminal(chatty, tmp_path):
    home = tmp_path / "home"
    result = CliRunner().invoke(app, ["doctor", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [] and result.stderr == ""
    log = log_routing.log_path(home).read_text(encoding="utf-8")
    assert ESC not in log
    for line in LIBRARY_LINES:
        assert line in log, line
    assert "progress 1/2" in log and "last progress state" in log


def test_verbose_shows_library_lines_on_stderr_without_colour(chatty, tmp_path):
    result = CliRunner().invoke(app, ["--verbose", "doctor", "--json", "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == []
    assert ESC not in result.stderr
    for line in LIBRARY_LINES:
        assert line in result.stderr, line
    assert ESC not in log_routing.log_path(tmp_path / "home").read_text(encoding="utf-8")


def test_a_leaked_stdout_redirect_cannot_move_memctl_json(monkeypatch, tmp_path):
    """A library (or a background thread) that leaves ``sys.stdout`` redirected to stderr."""
    def leak(settings, db_path, claude_dir=None, codex_home=None, home_origin=""):  # noqa: ANN001, ANN202
        contextlib.redirect_stdout(sys.stderr).__enter__()
        print("printed while redirected")
        return []

    monkeypatch.setattr("memctl.doctor.run_checks", leak)
    result = CliRunner().invoke(app, ["doctor", "--json", "--home", str(tmp_path / "home")])
    assert json.loads(result.stdout) == [] and result.stderr == ""


def test_an_unwritable_log_directory_hides_the_lines_and_the_command_still_works(chatty, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "logs").write_text("a file where the log directory belongs")
    result = CliRunner().invoke(app, ["doctor", "--json", "--home", str(home)])
    assert result.exit_code == 0 and json.loads(result.stdout) == [] and result.stderr == ""


def test_streams_and_environment_are_given_back(chatty, tmp_path, monkeypatch):
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    seen = {}

    def look(settings, db_path, claude_dir=None, codex_home=None, home_origin=""):  # noqa: ANN001, ANN202
        seen.update(stdout=type(sys.stdout), stderr=type(sys.stderr), level=os.environ.get("LOG_LEVEL"))
        return []

    monkeypatch.setattr("memctl.doctor.run_checks", look)
    before = logging.getLogger().handlers[:], logging.getLogger().level
    CliRunner().invoke(app, ["--verbose", "doctor", "--json", "--home", str(tmp_path / "home")])
    assert seen == {"stdout": LibraryOutput, "stderr": LibraryOutput, "level": "INFO"}
    assert (logging.getLogger().handlers, logging.getLogger().level) == before
    assert "LOG_LEVEL" not in os.environ
    assert not isinstance(sys.stdout, LibraryOutput) and not isinstance(sys.stderr, LibraryOutput)


def test_help_of_a_command_still_prints():
    result = CliRunner().invoke(app, ["ingest", "--help"])
    assert result.exit_code == 0 and "--dry-run" in result.stdout


# -- end to end: a first real ingest, stderr a pipe --------------------------------------------------


def test_first_real_ingest_shows_memctl_lines_only(tmp_path: Path) -> None:
    source = tmp_path / "opencode"
    source.mkdir()
    for path in FIXTURE_118.glob("opencode.db*"):
        shutil.copy2(path, source / path.name)
    home = tmp_path / "var"
    with FakeOllama() as server:
        ingest = run_memctl(server, "ingest", "--db", str(source / "opencode.db"), "--home", str(home))
        quiet_ask = run_memctl(server, "ask", "What was wrong with add() in calc.py?", "--home", str(home))
        verbose_ask = run_memctl(server, "--verbose", "ask", "What was wrong with add() in calc.py?", "--home",
                                 str(home))
    assert ingest.returncode == 0, ingest.stderr[-3000:]
    for proc in (ingest, quiet_ask):
        assert ESC not in proc.stdout and ESC not in proc.stderr
        strangers = [line for line in proc.stderr.splitlines() if line.strip() and not MEMCTL_LINE.match(line)]
        assert strangers == [], strangers
    assert "cognify 7/7" in ingest.stderr and "distilled" in ingest.stdout
    log = log_routing.log_path(home).read_text(encoding="utf-8")
    assert "table already exists, skipping creation" in log and ESC not in log

    assert verbose_ask.returncode == 0 and ESC not in verbose_ask.stderr
    # A library's INFO line (httpx's request log) is shown with --verbose only. Not Cognee's own
    # "Logging initialized": it appears only when the graph prewarm imports Cognee before the answer
    # ends, which depends on the machine's load.
    assert "HTTP Request: POST" in verbose_ask.stderr
    assert "HTTP Request" not in quiet_ask.stderr and "Logging initialized" not in quiet_ask.stderr
