"""End to end on the embedded backend: real SmolLM2-135M output (not canned) through distill, Cognee's add and
cognify (schema-valid extraction by grammar), and ask — on two sessions of the bundled sample, no model server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CALC_SESSION = "ses_dd585d6f3ffezQYiyGWt18hXLm"  # "Fix add() bug in calc.py"
LOGS_SESSION = "ses_dd585951effeFZ7fZBkquYZEx5"  # "Analyze service logs"

pytestmark = pytest.mark.e2e


def _memctl(*args: str, home: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMCTL_MODEL_BACKEND": "embedded", "MEMCTL_SETTLE_MINUTES": "0", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "memctl.cli.main", *args, "--home", str(home)], env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(2400)  # two real distills and a real cognify on one CPU thread: ~6.5 min of CPU here
def test_ingest_and_ask_on_the_embedded_backend(tmp_path: Path) -> None:
    from memctl.embedded.llama_runtime import library_path

    if library_path() is None:
        pytest.skip("llama-cpp-cffi is not installed (./test.sh installs it)")
    pytest.importorskip("wordllama")
    sample = tmp_path / "sample"
    shutil.copytree(REPO / "tests" / "fixtures" / "opencode-1.18", sample)
    home = tmp_path / "home"
    done = _memctl("ingest", "--db", str(sample / "opencode.db"), "--session", CALC_SESSION, "--session", LOGS_SESSION,
                   "--json", home=home, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["distilled"] >= 1, summary
    notes = sorted((home / "store" / "memory").rglob("ses_*.md"))
    assert notes, "no note was published"
    text = "\n".join(n.read_text() for n in notes)
    assert "transcript size" not in text  # the fake server's canned bullet: this came from the real model
    assert not (home / "graph_rejections.json").exists() or json.loads((home / "graph_rejections.json").read_text()) in ([], {})
    answer = _memctl("ask", "--json", "What was wrong with add() in calc.py?", home=home, timeout=600)
    assert answer.returncode == 0, answer.stderr[-3000:]
    result = json.loads(answer.stdout)
    assert result["answer"].strip()
    cited = json.dumps(result.get("sources", result))
    assert CALC_SESSION in cited or LOGS_SESSION in cited, result
