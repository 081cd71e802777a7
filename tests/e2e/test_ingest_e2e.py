"""End to end: the real OpenCode 1.18 fixture → `memctl ingest` (real CLI process) →
notes → real Cognee (Kuzu, LanceDB, SQLite) against the fake Ollama server.

Checks the issue's acceptance list: notes for the useful sessions, junk skipped,
no planted secret anywhere under the data home (Cognee's stores included),
progress states, the source database and its -wal byte-identical (no other
file appears), and a second run that makes no model call and adds no data.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.ingest.distill import read_note_meta
from tests.fakes.ollama_server import FakeOllama

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"
MODEL_ROUTES = ("/api/chat", "/api/generate", "/v1/chat/completions", "/api/embed", "/v1/embeddings", "/api/show")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _secret_probes(value: str) -> list[str]:
    """The planted value, or for a multi-line value (a PEM block) each distinctive body line."""
    if "\n" not in value:
        return [value]
    return [line for line in value.splitlines() if len(line) > 20 and "-----" not in line]


def _run(db: Path, home: Path, server: FakeOllama, *extra: str) -> tuple[int, dict, str]:
    env = {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "memctl.cli", "ingest", "--db", str(db), "--home", str(home), "--json", *extra],
        env=env, capture_output=True, text=True, timeout=900,
    )
    try:
        summary = json.loads(proc.stdout)
    except ValueError:
        summary = {}
    return proc.returncode, summary, proc.stderr


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory):
    """One full ingest (module-scoped: Cognee work is the slow part), then a second run."""
    base = tmp_path_factory.mktemp("e2e")
    source_dir = base / "opencode"
    source_dir.mkdir()
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(FIXTURE / name, source_dir / name)
    db = source_dir / "opencode.db"
    before = {name: _sha(source_dir / name) for name in ("opencode.db", "opencode.db-wal")}
    listing = sorted(os.listdir(source_dir))
    home = base / "var"
    with FakeOllama() as server:
        code1, first, err1 = _run(db, home, server)
        calls_first = {route: server.counts[route] for route in MODEL_ROUTES}
        server.reset_counts()
        code2, second, err2 = _run(db, home, server)
        calls_second = {route: server.counts[route] for route in MODEL_ROUTES}
        # Cognee's structured (graph/summary) calls carry `format`; its per-process
        # connection test is a bare /api/generate and its embedding probe one /api/embed.
        calls_second["structured"] = sum(
            1 for path, _model, body in server.calls
            if path == "/api/generate" and isinstance(body, dict) and body.get("format")
        )
    yield {
        "db": db, "source_dir": source_dir, "home": home, "before": before, "listing": listing,
        "first": (code1, first, err1, calls_first), "second": (code2, second, err2, calls_second),
    }


def test_first_run_distills_useful_sessions_and_skips_junk(ingested) -> None:
    code, summary, err, calls = ingested["first"]
    assert code == 0, err
    manifest = json.loads((FIXTURE / "sessions.json").read_text())["sessions"].values()
    roots = [s for s in manifest if not s.get("parent_id")]
    assert summary["found"] == len(roots) == 9
    assert (summary["skipped_threshold"], summary["skipped_junk"], summary["distilled"], summary["errors"]) == (1, 1, 7, 0)
    assert summary["add_status"] == "ok" and summary["cognify_status"] == "ok"
    assert summary["notes_added"] == summary["notes_submitted"] == 7
    assert calls["/api/chat"] == 8  # one distill call per session above the threshold
    assert calls["/api/generate"] > 0 and calls["/api/embed"] > 0  # Cognee really cognified
    # Embedding texts travel in list requests (Cognee alone: one request per text, ~30 per note;
    # bench_model_calls measures ~2.5 per note) and litellm's model lookup is made once, not per call.
    assert calls["/api/embed"] <= 5 * 7
    assert calls["/api/show"] <= 10

    home = DataHome(ingested["home"])
    progress = json.loads(home.progress.read_text())["sources"]
    by_title = {entry["title"]: (sid, entry) for sid, entry in progress.items()}
    assert by_title["Greeting"][1]["status"] == "skipped" and by_title["Greeting"][1]["skip_kind"] == "threshold"
    assert by_title["Quick check-in"][1]["status"] == "skipped" and by_title["Quick check-in"][1]["skip_kind"] == "junk"
    skipped = json.loads(home.skipped.read_text())
    assert set(skipped) == {by_title["Greeting"][0], by_title["Quick check-in"][0]}
    distilled = {sid for sid, e in progress.items() if e["status"] == "distilled"}
    assert {p.stem for p in home.distilled.glob("*.md")} == distilled
    # transcripts exist for everything that went to the model
    assert {p.stem for p in home.transcripts.glob("*.md")} == distilled | {by_title["Quick check-in"][0]}
    for sid in distilled:
        meta = read_note_meta(home.note_path(sid).read_text())
        assert meta["source_id"] == sid and meta["prompt_version"] and meta["model"] == "llama3.1:8b"
        assert meta["transcript_sha256"] == _sha(home.transcript_path(sid))
        assert meta["topic"] in {"alpha", "beta", "scratch"}
    # the subagent's work is inside its parent's note provenance, not a separate note
    sid, _ = by_title["Find TODO comments via subagent"]
    assert len(read_note_meta(home.note_path(sid).read_text())["child_sessions"]) == 1
    # global project → topic from the directory
    assert progress[by_title["hello.sh script creation"][0]]["topic"] == "scratch"
    # every accepted note is published to the store's memory/<topic>/<id>.md by actor ingest, audited
    from memctl.store import MemoryStore

    store = MemoryStore(home.store)
    expected = {f"memory/{progress[sid]['topic']}/{sid}.md" for sid in distilled}
    assert set(store.list("memory")) == expected
    records = list(store.audit.records())
    assert {r["path"] for r in records} == expected and len(records) == len(expected)  # second run: no-op
    assert {(r["op"], r["actor"]) for r in records} == {("write", "ingest")}
    for sid in distilled:
        assert store.read_text(f"memory/{progress[sid]['topic']}/{sid}.md")[0] == home.note_path(sid).read_text()
    assert store.verify(deep=True).ok


def test_no_planted_secret_anywhere_under_the_data_home(ingested) -> None:
    planted = json.loads((FIXTURE / "planted_secrets.json").read_text())
    assert len(planted) >= 8
    files = [p for p in ingested["home"].rglob("*") if p.is_file()]
    assert any("cognee" in p.parts for p in files)  # Cognee's own stores are searched too
    leaks = []
    for path in files:
        data = path.read_bytes()
        for secret in planted:
            for probe in _secret_probes(secret["value"]):
                if probe.encode() in data:
                    leaks.append((secret["kind"], str(path)))
    assert leaks == []


def test_source_database_is_untouched(ingested) -> None:
    source_dir = ingested["source_dir"]
    after = {name: _sha(source_dir / name) for name in ("opencode.db", "opencode.db-wal")}
    assert after == ingested["before"]
    assert sorted(os.listdir(source_dir)) == ingested["listing"]


def test_second_run_redoes_nothing(ingested) -> None:
    code, summary, err, calls = ingested["second"]
    assert code == 0, err
    assert summary["already_done"] == 9 and summary["distilled"] == 0
    # The graph ledger says Cognee holds every note: Cognee is not started, no note is offered,
    # and not even a model probe is sent.
    assert summary["add_status"] == summary["cognify_status"] == "nothing to do"
    assert summary["notes_submitted"] == 0 and summary["notes_added"] == 0
    assert calls["structured"] == 0 and all(calls[route] == 0 for route in MODEL_ROUTES), calls


def test_datasets_hold_one_item_per_note(ingested) -> None:
    from memctl.graph import knowledge_graph

    home = DataHome(ingested["home"])
    with FakeOllama() as server:
        knowledge_graph.configure(Settings(home=home.root, ollama_host=server.url), home)
        progress = json.loads(home.progress.read_text())["sources"]
        expected: dict[str, int] = {}
        for entry in progress.values():
            if entry["status"] == "distilled":
                expected[entry["topic"]] = expected.get(entry["topic"], 0) + 1

        async def counts() -> dict[str, int]:
            return {name: await knowledge_graph.dataset_data_count(name) for name in await knowledge_graph.list_datasets()}

        assert knowledge_graph.run_sync(counts()) == expected  # after two runs: no duplicates
        graph = knowledge_graph.run_sync(knowledge_graph.graph_counts("alpha"))
        assert graph.nodes > 0 and graph.edges > 0 and graph.total_vector_rows > 0


def test_cognify_progress_counts_notes_not_topics(ingested) -> None:
    """The cognify phase's total is the notes still to cognify (7 notes in 3 topics), and its
    progress lines end at 7/7; a second run has nothing left to cognify."""
    code, summary, err, _ = ingested["first"]
    assert code == 0, err
    assert "memctl: phase cognify started (7 items)" in err
    ticks = [line for line in err.splitlines() if line.startswith("memctl: cognify ")]
    assert ticks and ticks[-1].startswith("memctl: cognify 7/7 (") and "ETA" not in ticks[-1]
    counts = [int(t.split()[2].split("/")[0]) for t in ticks]
    assert all(a < b for a, b in zip(counts, counts[1:])), ticks  # forward only, no repeated line
    _, _, err2, _ = ingested["second"]
    assert "phase cognify" not in err2  # nothing to cognify: the phase does not run
