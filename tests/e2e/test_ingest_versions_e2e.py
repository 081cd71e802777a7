"""End to end over the real 1.2.1, 1.14.48 and dev-build fixtures: `memctl ingest`
(real CLI process) against the fake Ollama server.

The releases 1.2 and 1.14 run the distill phase only (connector → transcript →
distill → notes; the Cognee phases are the same code as for any other note and
are covered by the 1.18 and dev runs). The dev-build database, with sessions
of both layouts, runs the whole pipeline into real Cognee, then a second time.
Each checks: every useful session distilled once, junk skipped, no planted
secret under the data home, the source database byte-identical with no new
file beside it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memctl.config import DataHome
from memctl.ingest.distill import read_note_meta
from tests.e2e.test_ingest_e2e import MODEL_ROUTES, REPO, _run, _secret_probes, _sha
from tests.fakes.ollama_server import FakeOllama

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True, scope="module")
def _no_settle_delay():
    """These fixtures were written recently: without this a session touched within
    ``settle_minutes`` of now would be left for a later run (``_run`` passes the
    environment on to the CLI process)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMCTL_SETTLE_MINUTES", "0")
        yield

FIXTURES = REPO / "tests" / "fixtures"
# scenario -> expected outcome, the same for every release (SMALL_SET of the generator)
EXPECTED = {"junk_hi": "threshold", "junk_ping": "junk", "tools_fix_add": "distilled",
            "subagent_todos": "distilled", "secrets": "distilled", "global_script": "distilled"}


def _copy_source(name: str, base: Path) -> tuple[Path, dict[str, str], list[str]]:
    """Copy a fixture's database file(s) to ``base/source``; return the directory
    (passed as --db: memctl finds the file in it), hashes and listing."""
    source = base / "source"
    source.mkdir()
    for path in (FIXTURES / name).iterdir():
        if ".db" in path.name:
            shutil.copy2(path, source / path.name)
    return source, {p.name: _sha(p) for p in source.iterdir()}, sorted(os.listdir(source))


def _outcomes(home: Path, name: str) -> dict[str, str]:
    progress = json.loads(DataHome(home).progress.read_text())["sources"]
    manifest = json.loads((FIXTURES / name / "sessions.json").read_text())["sessions"]
    out = {}
    for scenario, info in manifest.items():
        entry = progress.get(info["session_id"])
        if entry is not None:
            out[scenario] = entry["status"] if entry["status"] != "skipped" else entry["skip_kind"]
    return out


def _leaks(home: Path) -> list[tuple[str, str]]:
    planted = json.loads((FIXTURES / "opencode-1.18" / "planted_secrets.json").read_text())
    leaks = []
    for path in (p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        leaks += [(s["kind"], str(path)) for s in planted for probe in _secret_probes(s["value"]) if probe.encode() in data]
    return leaks


@pytest.mark.parametrize("name", ["opencode-1.2", "opencode-1.14"])
def test_distill_phase_over_each_release(name: str, tmp_path: Path) -> None:
    source, hashes, listing = _copy_source(name, tmp_path)
    home = tmp_path / "var"
    with FakeOllama() as server:
        code, summary, err = _run(source, home, server, "--phase", "distill")
        chat_calls = server.counts["/api/chat"]
    assert code == 0, err
    assert summary["found"] == 6
    assert (summary["skipped_threshold"], summary["skipped_junk"], summary["distilled"], summary["errors"]) == (1, 1, 4, 0)
    assert chat_calls == 5  # one distill call per session above the threshold, none twice
    assert _outcomes(home, name) == EXPECTED
    notes = sorted(DataHome(home).distilled.glob("*.md"))
    assert len(notes) == 4
    assert {read_note_meta(p.read_text())["topic"] for p in notes} == {"alpha", "beta", "scratch"}
    assert _leaks(home) == []
    assert {p.name: _sha(p) for p in source.iterdir()} == hashes
    assert sorted(os.listdir(source)) == listing


@pytest.fixture(scope="module")
def dev_ingested(tmp_path_factory: pytest.TempPathFactory):
    """The full pipeline twice over the dev-build database (both layouts)."""
    base = tmp_path_factory.mktemp("dev-e2e")
    source, hashes, listing = _copy_source("opencode-dev", base)
    home = base / "var"
    with FakeOllama() as server:
        first = _run(source, home, server)
        calls_first = {route: server.counts[route] for route in MODEL_ROUTES}
        server.reset_counts()
        second = _run(source, home, server)
        calls_second = {route: server.counts[route] for route in MODEL_ROUTES}
    yield {"source": source, "hashes": hashes, "listing": listing, "home": home,
           "first": (*first, calls_first), "second": (*second, calls_second)}


def test_dev_build_first_run(dev_ingested) -> None:
    code, summary, err, calls = dev_ingested["first"]
    assert code == 0, err
    assert summary["found"] == 6
    assert (summary["skipped_threshold"], summary["skipped_junk"], summary["distilled"], summary["errors"]) == (1, 1, 4, 0)
    assert summary["add_status"] == "ok" and summary["cognify_status"] == "ok"
    assert summary["notes_added"] == summary["notes_submitted"] == 4
    assert calls["/api/chat"] == 5
    assert _outcomes(dev_ingested["home"], "opencode-dev") == EXPECTED
    manifest = json.loads((FIXTURES / "opencode-dev" / "sessions.json").read_text())["sessions"]
    home = DataHome(dev_ingested["home"])
    # both layouts made it into notes: the HTTP-API sessions too, with their tool calls
    for scenario in ("tools_fix_add", "secrets"):
        assert manifest[scenario]["driven_by"] == "http-api"
        transcript = home.transcript_path(manifest[scenario]["session_id"]).read_text()
        assert "**Tool `bash`** — completed" in transcript
    subagent = manifest["subagent_todos"]["session_id"]
    assert len(read_note_meta(home.note_path(subagent).read_text())["child_sessions"]) == 1


def test_dev_build_no_secret_under_the_data_home(dev_ingested) -> None:
    assert any("cognee" in p.parts for p in dev_ingested["home"].rglob("*") if p.is_file())
    assert _leaks(dev_ingested["home"]) == []


def test_dev_build_source_untouched(dev_ingested) -> None:
    source = dev_ingested["source"]
    assert {p.name: _sha(p) for p in source.iterdir()} == dev_ingested["hashes"]
    assert sorted(os.listdir(source)) == dev_ingested["listing"] == ["opencode-dev.db"]


def test_dev_build_second_run_redoes_nothing(dev_ingested) -> None:
    code, summary, err, calls = dev_ingested["second"]
    assert code == 0, err
    assert summary["already_done"] == 6 and summary["distilled"] == 0
    assert summary["notes_added"] == 0 and calls["/api/chat"] == 0
