"""End to end on the embedded backend: real SmolLM2-135M output (not canned) through distill, Cognee's add and
cognify (schema-valid extraction by grammar), and ask — on ./run.sh's subset of the bundled sample (its two junk
sessions, skipped before the model, and two useful ones; docs/models.md), no model server."""

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
DEPLOY_SESSION = "ses_dd584fe2effe6pJPewkztVQclj"  # "deploy.sh explanation"
JUNK_SESSIONS = ("ses_dd586074bffeT9AQrwa2SB0fm4", "ses_dd585f727ffespuFM7cU78Zje5")  # "Greeting", "Quick check-in"

pytestmark = pytest.mark.e2e


def _memctl(*args: str, home: Path, timeout: int = 900, **variables: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMCTL_MODEL_BACKEND": "embedded", "MEMCTL_SETTLE_MINUTES": "0", "PYTHONPATH": str(REPO),
           **variables}
    return subprocess.run([sys.executable, "-m", "memctl.cli.main", *args, "--home", str(home)], env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(2400)  # two real distills and a real cognify: 136 s of CPU, 19 min of wall time at load 20
def test_ingest_and_ask_on_the_embedded_backend(tmp_path: Path) -> None:
    from memctl.embedded.llama_runtime import library_path

    if library_path() is None:
        pytest.skip("llama-cpp-cffi is not installed (./test.sh installs it)")
    pytest.importorskip("wordllama")
    sample = tmp_path / "sample"
    shutil.copytree(REPO / "tests" / "fixtures" / "opencode-1.18", sample)
    home = tmp_path / "home"
    sessions = [arg for session in (*JUNK_SESSIONS, CALC_SESSION, DEPLOY_SESSION) for arg in ("--session", session)]
    done = _memctl("ingest", "--db", str(sample / "opencode.db"), *sessions, "--json", home=home, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["skipped_threshold"] == 2 and summary["distilled"] == 2, summary
    notes = sorted((home / "store" / "memory").rglob("ses_*.md"))
    assert notes, "no note was published"
    text = "\n".join(n.read_text() for n in notes)
    assert "transcript size" not in text  # the fake server's canned bullet: this came from the real model
    assert not (home / "graph_rejections.json").exists() or json.loads((home / "graph_rejections.json").read_text()) in ([], {})
    # ./run.sh's second run: the same sample into the same home is a checkpointed no-op, no model call.
    trace = tmp_path / "again.jsonl"
    again = _memctl("ingest", "--db", str(sample / "opencode.db"), *sessions, "--json", home=home,
                    MEMCTL_EMBEDDED_TRACE=str(trace))
    assert again.returncode == 0, again.stderr[-3000:]
    repeat = json.loads(again.stdout)
    assert repeat["already_done"] == 4 and repeat["distilled"] == 0, repeat
    assert not trace.exists() or '"chat' not in trace.read_text()
    answer = _memctl("ask", "--json", "What was wrong with add() in calc.py?", home=home, timeout=600)
    assert answer.returncode == 0, answer.stderr[-3000:]
    result = json.loads(answer.stdout)
    assert result["answer"].strip()
    cited = json.dumps(result.get("sources", result))
    assert CALC_SESSION in cited or DEPLOY_SESSION in cited, result
