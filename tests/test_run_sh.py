"""``./run.sh`` with no arguments: the real ingest of the bundled sample and one ``ask`` with its cited
sessions — on ``OLLAMA_HOST`` when it answers with the configured models, else on the embedded backend
followed by one line naming what to install for real quality.

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

REPO = Path(__file__).resolve().parents[1]
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
           "PYTHONPATH": str(REPO), **variables}
    return subprocess.run(["bash", str(project / "run.sh")], capture_output=True, text=True, timeout=600, env=env)


def _samples(project: Path) -> list[Path]:
    return sorted((project.parent / "tmp").glob("memctl-sample.*"))


@pytest.mark.e2e
def test_without_a_model_server_it_runs_for_real_on_the_embedded_backend(project):
    """Nothing answers at OLLAMA_HOST: the real ingest of the sample on the embedded backend (real SmolLM2 output,
    not canned), one ask citing a session, then one line naming what to install for real quality."""
    pytest.importorskip("llama_cpp")
    result = run_sh(project, "http://127.0.0.1:9")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "(dry run)" not in result.stdout and "cognify" in result.stdout and "distilled" in result.stdout
    assert "sources" in result.stdout and re.search(r"ses_[0-9a-zA-Z]{26}", result.stdout[result.stdout.index("sources"):])
    lines = result.stderr.strip().splitlines()
    assert any(line.startswith("run.sh: no model server (ollama: cannot reach Ollama") for line in lines), lines
    assert lines[-1].startswith("run.sh: that ran on the embedded 135M model. For real quality install Ollama")
    assert "start it (`ollama serve`) or set OLLAMA_HOST=host:port" in lines[-1]
    (home,) = _samples(project)
    notes = list((home / "store" / "memory").rglob("ses_*.md"))
    assert notes, "no note was published"


@pytest.mark.parametrize("ollama_host,variables,toml,error", [
    ("http://[bad", {}, None, "OLLAMA_HOST='http://[bad': ollama_host: Value error, not a host:port or URL"),
    ("not a url::", {}, None, "OLLAMA_HOST='not a url::': ollama_host: Value error"),
    ("ftp://127.0.0.1:11434", {}, None, "OLLAMA_HOST=ftp://127.0.0.1:11434: ollama_host: Value error, expected"),
    ("http://127.0.0.1:9", {}, "workerz = 3\n", "{config}: workerz: Extra inputs are not permitted"),
    ("http://127.0.0.1:9", {}, "distil_model = 'llama3.1:8b'\n", "{config}: distil_model: Extra inputs"),
    ("http://127.0.0.1:9", {}, "workers = 0\n", "{config}: workers: Input should be greater than or equal to 1"),
    ("http://127.0.0.1:9", {}, "head_fraction = 1.5\n", "{config}: head_fraction: Input should be less than 1"),
    ("http://127.0.0.1:9", {}, "workers = \n", "cannot read the config file {config}"),
    ("http://127.0.0.1:9", {"MEMCTL_TRANSCRIPT_PROCESSES": "abc"}, None,
     "MEMCTL_TRANSCRIPT_PROCESSES=abc: transcript_processes: Input should be a valid integer"),
    ("http://127.0.0.1:9", {"MEMCTL_WORKERS": "65"}, None, "MEMCTL_WORKERS=65: workers: Input should be less than"),
    ("http://127.0.0.1:9", {"MEMCTL_GRAPH_PROVIDER": "neo4j"}, None, "MEMCTL_GRAPH_PROVIDER=neo4j: graph_provider: "),
    ("http://127.0.0.1:9", {"MEMCTL_CONFIG": "{config}"}, None, "MEMCTL_CONFIG points at {config}, which is not a file"),
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
    with FakeOllama() as fake:
        result = run_sh(project, fake.url)
        distill_calls = fake.counts["/api/chat"] + fake.counts["/api/generate"]
    assert result.returncode == 0, result.stderr[-3000:]
    assert distill_calls >= 7 and "(dry run)" not in result.stdout
    assert "cognify" in result.stdout and "distilled" in result.stdout
    sources = result.stdout[result.stdout.index("sources"):]
    assert CALC_SESSION in sources and "Fix add() bug in calc.py" in sources
    strangers = [line for line in result.stderr.splitlines() if line.strip() and not SCRIPT_LINE.match(line)]
    assert strangers == [] and "\x1b" not in result.stdout + result.stderr
    (home,) = _samples(project)
    assert (home / "store" / "memory" / "alpha" / f"{CALC_SESSION}.md").is_file()
    assert str(home) in result.stderr.strip().splitlines()[-1]
