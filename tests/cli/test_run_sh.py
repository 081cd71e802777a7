"""``./run.sh`` with no arguments: the real ingest of the bundled sample and one ``ask`` with its cited
sessions when ``OLLAMA_HOST`` answers with the configured models, else the dry run and one line saying how
to get the real run.

The script runs from a copy of the project's entry files whose ``.venv`` hands every call to this test's
environment (so nothing is installed); the model server is the fake one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parents[2]
CALC_SESSION = "ses_dd585d6f3ffezQYiyGWt18hXLm"  # "Fix add() bug in calc.py" in the bundled sample
SCRIPT_LINE = re.compile(r"^(memctl: |run\.sh: |topics: )")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """run.sh, its pins and the sample, with a .venv whose python and memctl are this environment's."""
    root = tmp_path / "project"
    (root / "tests" / "fixtures").mkdir(parents=True)
    for name in ("run.sh", "constraints.txt", "pyproject.toml"):
        shutil.copy2(REPO / name, root / name)
    shutil.copytree(REPO / "tests" / "fixtures" / "opencode-1.18", root / "tests" / "fixtures" / "opencode-1.18")
    bindir = root / ".venv" / "bin"
    bindir.mkdir(parents=True)
    for name, target in (("python", sys.executable), ("memctl", str(Path(sys.executable).parent / "memctl"))):
        (bindir / name).write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
        (bindir / name).chmod(0o755)
    (root / ".venv" / ".installed-run").touch()  # newer than the copied pins: no install
    (tmp_path / "tmp").mkdir()
    return root


def run_sh(project: Path, ollama_host: str, **variables: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OLLAMA_HOST": ollama_host, "TMPDIR": str(project.parent / "tmp"), "COLUMNS": "200",
           "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(project.parent / "cache"), **variables}
    return subprocess.run(["bash", str(project / "run.sh")], capture_output=True, text=True, timeout=600, env=env)


def _samples(project: Path) -> list[Path]:
    """The data homes run.sh left: the sample's (under the user cache dir) and any throw-away one."""
    return sorted([*(project.parent / "tmp").glob("memctl-*"), *(project.parent / "cache").glob("memctl/run-sh/*/home")])


# Each case is run.sh in a process of its own (bash, then memctl; the script is what is tested). The fast lane keeps
# one case of each kind (nothing listening; a server without a model), the other two are `slow` (whole suite): the
# same path through the script, with another fix in its hint.
_SLOW_CASE = pytest.mark.slow


@pytest.mark.parametrize("server,fix", [
    (None, "start it (`ollama serve`) or set OLLAMA_HOST=host:port"),
    (dict(models=["llama3.1:8b"]), "ollama pull nomic-embed-text"),
    pytest.param(dict(models=["nomic-embed-text:latest"]), "ollama pull llama3.1:8b", marks=_SLOW_CASE),
    pytest.param(dict(embedding_dim=384), "set MEMCTL_EMBEDDING_DIMENSIONS=384", marks=_SLOW_CASE),
], ids=["nothing listening", "no embedding model", "no chat model", "another embedding size"])
def test_without_the_models_it_is_the_dry_run_and_one_line_on_the_real_run(project, server, fix):
    # RUN_SH_EMBEDDED=0: the dry run instead of the embedded backend's real run (tests/e2e/test_embedded_e2e.py)
    if server is None:
        result = run_sh(project, "http://127.0.0.1:9", RUN_SH_EMBEDDED="0")
    else:
        with FakeOllama(**server) as fake:
            result = run_sh(project, fake.url, RUN_SH_EMBEDDED="0")
            assert fake.counts["/api/chat"] == 0 and fake.counts["/api/generate"] == 0  # no model ran
    assert result.returncode == 0, result.stderr[-3000:]
    assert "memctl ingest (dry run)" in result.stdout and "would distill" in result.stdout
    hint = result.stderr.strip().splitlines()[-1]
    assert hint.startswith("run.sh: that was the dry run (") and f"For the real run: {fix}, then ./run.sh again" in hint
    assert sum("run.sh:" in line for line in result.stderr.splitlines()) == 1
    assert hint.count("`ollama ") == fix.count("`ollama ")  # the fix said once, not again in the detail
    assert _samples(project) == []  # no data home was left behind


# Twelve settings errors, each run.sh in its own process: the fast lane keeps one from the environment and one
# from the config file; the other ten are `slow` (the same one-line path through the script; the messages are also
# checked in-process by tests/cli/test_cli.py::test_invalid_config_file_is_a_usage_error and
# tests/cli/test_config_problems.py).
@pytest.mark.parametrize("ollama_host,variables,toml,error", [
    ("http://[bad", {}, None, "OLLAMA_HOST='http://[bad': ollama_host: Value error, not a host:port or URL"),
    pytest.param("not a url::", {}, None, "OLLAMA_HOST='not a url::': ollama_host: Value error", marks=_SLOW_CASE),
    pytest.param("ftp://127.0.0.1:11434", {}, None, "OLLAMA_HOST=ftp://127.0.0.1:11434: ollama_host: Value error, expected", marks=_SLOW_CASE),
    ("http://127.0.0.1:9", {}, "workerz = 3\n", "{config}: workerz: Extra inputs are not permitted"),
    pytest.param("http://127.0.0.1:9", {}, "distil_model = 'llama3.1:8b'\n", "{config}: distil_model: Extra inputs", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {}, "workers = 0\n", "{config}: workers: Input should be greater than or equal to 1", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {}, "head_fraction = 1.5\n", "{config}: head_fraction: Input should be less than 1", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {}, "workers = \n", "cannot read the config file {config}", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {"MEMCTL_TRANSCRIPT_PROCESSES": "abc"}, None,
     "MEMCTL_TRANSCRIPT_PROCESSES=abc: transcript_processes: Input should be a valid integer", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {"MEMCTL_WORKERS": "65"}, None, "MEMCTL_WORKERS=65: workers: Input should be less than", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {"MEMCTL_GRAPH_PROVIDER": "neo4j"}, None, "MEMCTL_GRAPH_PROVIDER=neo4j: graph_provider: ", marks=_SLOW_CASE),
    pytest.param("http://127.0.0.1:9", {"MEMCTL_CONFIG": "{config}"}, None, "MEMCTL_CONFIG points at {config}, which is not a file", marks=_SLOW_CASE),
], ids=["OLLAMA_HOST bad IPv6", "OLLAMA_HOST bad port", "OLLAMA_HOST not http", "unknown key", "misspelt key",
        "workers out of range", "head_fraction out of range", "TOML syntax", "MEMCTL_ variable not an int",
        "MEMCTL_ variable out of range", "MEMCTL_ variable not a choice", "MEMCTL_CONFIG missing"])
def test_an_invalid_configuration_is_one_line_and_doctors_exit_code(project, tmp_path, ollama_host, variables,
                                                                      toml, error):
    config = tmp_path / "memctl.toml"
    if toml is not None:
        config.write_text(toml)
        variables = {**variables, "MEMCTL_CONFIG": str(config)}
    variables = {name: value.format(config=config) for name, value in variables.items()}
    result = run_sh(project, ollama_host, **variables)
    assert result.returncode == 2, result.stderr[-3000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and error.format(config=config) in lines[0], lines
    assert "Traceback" not in result.stderr and result.stdout == ""  # no dry run after it
    assert _samples(project) == []  # no data home was left behind


def test_with_the_models_it_ingests_for_real_and_asks(project):
    with FakeOllama() as fake:  # one server for both runs: OLLAMA_HOST is part of the home's key
        result = run_sh(project, fake.url)
        distill_calls = fake.counts["/api/chat"] + fake.counts["/api/generate"]
        again = run_sh(project, fake.url)
        again_calls = fake.counts["/api/chat"] + fake.counts["/api/generate"] - distill_calls
    assert result.returncode == 0, result.stderr[-3000:]
    assert distill_calls >= 7 and "(dry run)" not in result.stdout
    assert "cognify" in result.stdout and "distilled" in result.stdout
    sources = result.stdout[result.stdout.index("sources"):]
    assert CALC_SESSION in sources and "Fix add() bug in calc.py" in sources
    strangers = [line for line in result.stderr.splitlines() if line.strip() and not SCRIPT_LINE.match(line)]
    assert strangers == [] and "\x1b" not in result.stdout + result.stderr
    (home,) = _samples(project)
    assert (home / "store" / "memory" / "alpha" / f"{CALC_SESSION}.md").is_file()
    assert str(home) in result.stderr.strip().splitlines()[-1] and "reusing" not in result.stderr

    # Again: the same home, said on one line; the checkpoint skips what is ingested, so no distill call.
    assert again.returncode == 0, again.stderr[-3000:]
    assert [line for line in again.stderr.splitlines() if line.startswith("run.sh: reusing")] == [
        f"run.sh: reusing the sample's memory from an earlier ./run.sh of this checkout in {home} "
        "(what is already ingested is skipped; RUN_SH_FRESH=1 starts over)"]
    assert CALC_SESSION in again.stdout[again.stdout.index("sources"):]
    assert again_calls <= 2  # the router and the answer: nothing distilled again

    # RUN_SH_FRESH=1, a changed checkout or sample: tests/embedded/test_run_home.py (each a whole ingest again here).


def test_the_first_run_says_it_is_installing_before_the_quiet_pip(project: Path) -> None:
    """A fresh review found the first ./run.sh silent for ~7 minutes while pip (-q) filled .venv."""
    real_python = (project / ".venv" / "bin" / "python").read_text()
    log = project / "pip-calls.txt"
    (project / ".venv" / "bin" / "python").write_text(
        '#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$*" >> "' + str(log) + '"; exit 0; fi\n'
        + real_python.split("\n", 1)[1])
    (project / ".venv" / ".installed-run").unlink()
    result = run_sh(project, "http://127.0.0.1:9", RUN_SH_EMBEDDED="0")
    assert result.returncode == 0, result.stderr[-3000:]
    first = result.stderr.splitlines()[0]
    assert first.startswith("run.sh: installing memctl") and "into .venv (first run: " in first
    assert "install" in log.read_text() and (project / ".venv" / ".installed-run").exists()
    again = run_sh(project, "http://127.0.0.1:9", RUN_SH_EMBEDDED="0")  # installed: no such line
    assert "installing memctl" not in again.stderr
