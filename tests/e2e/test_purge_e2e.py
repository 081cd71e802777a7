"""End to end with real Cognee/Kuzu/LanceDB/SQLite and the fake Ollama server: forget, purge --text,
purge --session, and a SIGKILLed purge finished by the next run.

One home is built once (a crafted OpenCode database with planted values → `memctl ingest` →
`memctl remember` → `memctl sleep`); every test works on its own copy.
"""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from memctl.store import MemoryStore
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text
from tests.support.memctl_process import env_for, run_memctl
from tests.support.purge_child import run_killed

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]

V_RAW = "QuokkaLantern48213zeta"          # raw in a user message, a note and a memory
V_JSON = 'Mango"Tundra\\9921'             # escaped in every JSON file that quotes it
V_B64 = "OrchidVault5531kappa"            # base64 in a tool output
V_URL = "Nebula Finch 4410"               # URL-encoded in a command
V_MEMORY = "Falcon-Ledger-7243"           # only in a remembered memory (reports, Cognee, store)
VALUES = [V_RAW, V_JSON, V_B64, V_URL, V_MEMORY]
FACT = "Deploy windows for the lantern service are on Thursdays after the standup."
PURGED_MARK = "HeronCacheMarker"


def forms(value: str) -> list[bytes]:
    """The byte forms the issue names (raw, JSON-escaped, base64), plus URL-encoded; written
    independently of memctl.forget.needles so a gap there fails here."""
    raw = value.encode()
    out = {raw, json.dumps(value)[1:-1].encode(), json.dumps(value, ensure_ascii=False)[1:-1].encode(),
           base64.b64encode(raw), base64.b64encode(raw).rstrip(b"="), base64.urlsafe_b64encode(raw).rstrip(b"="),
           quote(value, safe="").encode()}
    return sorted(out)


def scan(home: Path, values: list[str]) -> dict[str, list[str]]:
    """value → files under ``home`` holding any of its forms (every file, Cognee's stores included)."""
    found: dict[str, list[str]] = {}
    for path in sorted(home.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        for value in values:
            if any(form in data for form in forms(value)):
                found.setdefault(value, []).append(str(path.relative_to(home)))
    return found


def _build_db(path: Path) -> None:
    db = CraftedDb(path)
    sid = db.session("ses_plant_a", "Configure the lantern service")
    db.user(sid, f"Please configure the lantern service; the magic word is {V_RAW} and the team code is "
                 f"{V_JSON}, put both in settings.toml for everyone.")
    encoded = base64.b64encode(V_B64.encode()).decode()
    db.assistant(sid, [bash("cat settings.toml", f'word = "{V_RAW}"\nblob = "{encoded}"'),
                       bash(f"curl -s 'https://search.example.invalid/find?q={quote(V_URL, safe='')}'", "[]"),
                       text("Done, the settings are in place.")])
    sid = db.session("ses_other_b", "Refactor the parser module")
    db.user(sid, "Refactor the parser module into smaller functions and add tests for the tokenizer edge cases.")
    db.assistant(sid, [bash("pytest tests/test_parser.py", "12 passed"), text("Refactored.")])
    sid = db.session("ses_purge_c", "Tune the heron cache eviction")
    db.user(sid, f"Tune the heron cache eviction policy, the {PURGED_MARK} benchmark regressed after the last "
                 "change and the hit rate dropped below eighty percent.")
    db.assistant(sid, [bash("python bench/heron.py", "hit rate 0.81"), text("Tuned the eviction policy.")])
    db.close()


def _memctl(server: FakeOllama, home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_memctl(server, *args, "--home", str(home))


def _ok(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout) if proc.stdout.strip().startswith(("{", "[")) else {}


@pytest.fixture(scope="module")
def server():
    with FakeOllama() as fake:
        yield fake


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, server: FakeOllama) -> dict:
    base = tmp_path_factory.mktemp("purge")
    (base / "oc").mkdir()
    db = base / "oc" / "opencode.db"
    _build_db(db)
    home = base / "var"
    _ok(run_memctl(server, "ingest", "--db", str(db), "--home", str(home), "--json"))
    fact = _ok(_memctl(server, home, "remember", FACT, "--session", "ses_other_b", "--topic", "alpha", "--json"))
    planted = _ok(_memctl(server, home, "remember", f"The lantern team code is {V_JSON} and the ledger is "
                          f"{V_MEMORY}.", "--session", "ses_plant_a", "--topic", "alpha", "--json"))
    night = _ok(_memctl(server, home, "sleep", "--json"))
    assert night["promoted"] == 2 and night["topics_rebuilt"] == ["alpha"]
    return {"base": base, "db": db, "home": home, "fact": fact["path"], "planted": planted["path"]}


def _copy(built: dict, tmp_path: Path) -> Path:
    home = tmp_path / "var"
    shutil.copytree(built["home"], home, symlinks=True)
    return home


def _documents(server: FakeOllama, home: Path, dataset: str) -> list[str]:
    """``original_data_location`` of every document in ``dataset`` (a child process: Cognee is process-global)."""
    code = ("import json\nfrom memctl.graph import knowledge_graph as kg\nfrom memctl.config import Settings, DataHome\n"
            f"s = Settings(home={str(home)!r}); kg.configure(s, DataHome(s.home))\nimport cognee\n"
            "async def f():\n    ds = await kg.find_dataset(" + repr(dataset) + ")\n"
            "    return [] if ds is None else [r.original_data_location for r in await cognee.datasets.list_data(ds.id)]\n"
            "print(json.dumps(kg.run_sync(f())))\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env_for(server), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ask(server: FakeOllama, home: Path, question: str, *args: str) -> dict:
    return _ok(_memctl(server, home, "ask", question, "--json", *args))


def test_forget_removes_a_promoted_fact_and_a_note_for_good(built: dict, server: FakeOllama, tmp_path: Path) -> None:
    home = _copy(built, tmp_path)
    fact_path, note = built["fact"], "memory/alpha/ses_other_b.md"
    store = MemoryStore(home / "store")
    fact_sha = store.sha(fact_path)
    before = _ask(server, home, "When are deploy windows for the lantern service?")
    assert fact_path in before["user_memories"]  # it is used before it is forgotten
    assert any(fact_path in d for d in _documents(server, home, "alpha"))
    for path, extra in ((fact_path, ()), (note, ("--as-ingest",))):
        result = _ok(_memctl(server, home, "forget", path, "--yes", "--json", *extra))
        assert result["deleted"] is True and result["documents_removed"] == 1
        assert not store.exists(path)
    documents = _documents(server, home, "alpha")
    assert not any(fact_path in d or note in d for d in documents) and documents
    questions = ["When are deploy windows for the lantern service?", "How was the parser module refactored?"]
    for question in questions:
        for args in ((), ("--no-graph",)):
            answer = _ask(server, home, question, *args)
            assert fact_path not in answer["user_memories"]
            assert not any(s["path"] in (fact_path, note) for s in answer["sources"])
            assert "Thursdays" not in answer["answer"] and "Refactor the parser" not in answer["answer"]
    # a second sleep and an ingest bring neither back
    _ok(_memctl(server, home, "sleep", "--json"))
    _ok(run_memctl(server, "ingest", "--db", str(built["db"]), "--home", str(home), "--json"))
    assert not store.exists(fact_path) and not store.exists(note)
    assert not any(fact_path in d or note in d for d in _documents(server, home, "alpha"))
    index = json.loads((home / "topic_index.json").read_text())
    assert note not in json.dumps(index)
    # history and rollback still work: the content stays in versions/
    assert [v.op for v in store.history(fact_path)][-1] == "delete"
    _ok(_memctl(server, home, "rollback", fact_path, "--to", fact_sha[:12], "--yes"))
    assert store.sha(fact_path) == fact_sha
    assert store.verify(deep=True).ok


def test_purge_text_leaves_no_form_of_a_value_anywhere(built: dict, server: FakeOllama, tmp_path: Path) -> None:
    home = _copy(built, tmp_path)
    assert set(scan(home, VALUES)) == set(VALUES)  # every planted value reached the home first
    assert any("cognee/system/databases" in f for f in scan(home, [V_RAW])[V_RAW])
    secrets = tmp_path / "secrets.txt"
    secrets.write_text("\n".join(VALUES) + "\n")
    result = _ok(_memctl(server, home, "purge", "--secret-file", str(secrets), "--yes", "--json"))
    assert result["remaining"] == [] and result["datasets_rebuilt"] == ["alpha"] and result["blobs_replaced"] >= 3
    assert scan(home, VALUES) == {}
    verified = _memctl(server, home, "audit", "verify", "--deep", "--json")
    assert verified.returncode == 0, verified.stdout
    log = (home / "store" / "audit" / "log.jsonl").read_text()
    assert '"op":"purge"' in log
    # the memories are still there, redacted, and memctl still works
    assert "[REDACTED:purged]" in MemoryStore(home / "store").read_text(built["planted"])[0]
    answer = _ask(server, home, "What is the lantern team code?")
    assert answer["sources"] and all(v not in answer["answer"] for v in VALUES)
    _ok(run_memctl(server, "ingest", "--db", str(built["db"]), "--home", str(home), "--json"))
    _ok(_memctl(server, home, "remember", "The lantern service restarts nightly.", "--session", "s9",
                "--topic", "alpha", "--json"))
    night = _ok(_memctl(server, home, "sleep", "--json"))
    assert night["promoted"] == 1 and night["topics_rebuilt"] == ["alpha"]
    assert scan(home, VALUES) == {}
    assert _memctl(server, home, "audit", "verify", "--deep").returncode == 0


COGNEE_DB = "cognee/system/databases/cognee_db"


@pytest.mark.parametrize("questions", [
    (f"Is {V_RAW} the lantern code?", "What is the lantern ledger?"),   # the value in the question and in a chunk
    ("What is the lantern team code and the ledger?",),                   # only in the retrieved chunks
])
def test_purge_text_after_asks_leaves_no_form_in_cognees_search_history(built: dict, server: FakeOllama,
                                                                        tmp_path: Path, questions: tuple) -> None:
    home = _copy(built, tmp_path)
    for question in questions:
        _ask(server, home, question)
    before = scan(home, VALUES)
    # ask reads the graph's chunks without Cognee (no search history row) and keeps them in its chunk cache:
    # the values are there first, and Cognee's history holds them only when ask fell back to Cognee's search
    assert any("cache/chunks/" in f or COGNEE_DB in f for files in before.values() for f in files), before
    secrets = tmp_path / "secrets.txt"
    secrets.write_text("\n".join(VALUES) + "\n")
    result = _ok(_memctl(server, home, "purge", "--secret-file", str(secrets), "--yes", "--json"))
    assert result["remaining"] == [] and not (home / "cache" / "chunks").exists()
    assert scan(home, VALUES) == {}
    with sqlite3.connect(home / COGNEE_DB) as conn:
        assert conn.execute("SELECT count(*) FROM queries").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM results").fetchone()[0] == 0


def test_forget_after_an_ask_leaves_the_memory_out_of_cognees_search_history(built: dict, server: FakeOllama,
                                                                              tmp_path: Path) -> None:
    home = _copy(built, tmp_path)
    _ask(server, home, "What is the lantern ledger?")
    holders = scan(home, [V_MEMORY]).get(V_MEMORY, [])
    assert any("cache/chunks/" in f or COGNEE_DB in f for f in holders), holders  # the ask's copy, first
    _ok(_memctl(server, home, "forget", built["planted"], "--yes", "--json"))
    after = scan(home, [V_MEMORY]).get(V_MEMORY, [])
    assert not any("cache/chunks/" in f or COGNEE_DB in f for f in after), after


def _distill_calls_with(server: FakeOllama, needle: str) -> int:
    return sum(1 for path, _model, body in list(server.calls) if path == "/api/chat" and needle in json.dumps(body))


def test_purge_session_removes_it_and_ingest_skips_it_until_allowed(built: dict, server: FakeOllama,
                                                                    tmp_path: Path) -> None:
    home = _copy(built, tmp_path)
    store = MemoryStore(home / "store")
    note = "memory/alpha/ses_purge_c.md"
    note_versions = [v.version for v in store.history(note)]
    assert store.exists(note) and any(note in d for d in _documents(server, home, "alpha"))
    result = _ok(_memctl(server, home, "purge", "--session", "ses_purge_c", "--yes", "--json"))
    assert result["files_deleted"] == 2 and result["store_deleted"] == 1 and result["datasets_rebuilt"] == ["alpha"]
    assert not store.exists(note) and not any(store.blobs.has(v) for v in note_versions if v)
    assert scan(home, [PURGED_MARK]) == {}
    assert not (home / "transcripts" / "ses_purge_c.md").exists()
    assert not any(note in d for d in _documents(server, home, "alpha"))
    assert any("ses_other_b" in d for d in _documents(server, home, "alpha"))  # the rest of the topic stays
    assert json.loads((home / "progress.json").read_text())["sources"]["ses_purge_c"]["status"] == "purged"
    assert _memctl(server, home, "audit", "verify", "--deep").returncode == 0
    server.reset_counts()
    _ok(run_memctl(server, "ingest", "--db", str(built["db"]), "--home", str(home), "--json"))
    assert _distill_calls_with(server, PURGED_MARK) == 0 and not store.exists(note)
    assert _memctl(server, home, "purge", "--session", "ses_purge_c", "--allow-reingest", "--yes").returncode == 0
    server.reset_counts()
    again = _ok(run_memctl(server, "ingest", "--db", str(built["db"]), "--home", str(home), "--json"))
    assert again["distilled"] == 1 and _distill_calls_with(server, PURGED_MARK) == 1
    assert store.exists(note) and any(note in d for d in _documents(server, home, "alpha"))


def _state(server: FakeOllama, home: Path) -> dict:
    """What must be equal after an interrupted-then-finished purge and an uninterrupted one."""
    store = MemoryStore(home / "store")
    files = {p: store.read_text(p)[0] for p in store.list("")}
    blobs = sorted(p.name for p in (home / "store" / "versions").rglob("*") if p.is_file())
    plain = {str(p.relative_to(home)): p.read_bytes() for d in ("transcripts", "distilled")
             for p in sorted((home / d).glob("*.md"))}
    return {"files": files, "blobs": blobs, "plain": plain, "found": scan(home, VALUES),
            "documents": sorted(Path(d).name for d in _documents(server, home, "alpha")),
            "journal": (home / "forget-journal.json").exists(), "verify": store.verify(deep=True).ok}


@pytest.fixture(scope="module")
def uninterrupted(built: dict, server: FakeOllama, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The end state of an uninterrupted purge of every planted value (computed once)."""
    base = tmp_path_factory.mktemp("reference")
    secrets = base / "secrets.txt"
    secrets.write_text("\n".join(VALUES) + "\n")
    reference = _copy(built, base)
    _ok(_memctl(server, reference, "purge", "--secret-file", str(secrets), "--yes", "--json"))
    return _state(server, reference)


@pytest.mark.parametrize("point", ["journal=purge-text:journal", "journal=purge-text:store", "store=write",
                                   "journal=purge-text:graph:alpha"])
def test_a_purge_killed_anywhere_is_finished_by_the_next_run(built: dict, server: FakeOllama, tmp_path: Path,
                                                             uninterrupted: dict, point: str) -> None:
    secrets = tmp_path / "secrets.txt"
    secrets.write_text("\n".join(VALUES) + "\n")
    home = _copy(built, tmp_path / "killed")
    args = ["purge", "--secret-file", str(secrets), "--yes", "--home", str(home)]
    killed = run_killed(point, args, env_for(server))
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert (home / "forget-journal.json").exists()
    other = _memctl(server, home, "forget", built["fact"], "--yes")
    assert other.returncode == 2 and "has not finished" in other.stderr  # nothing else runs meanwhile
    finished = _ok(_memctl(server, home, "purge", "--secret-file", str(secrets), "--yes", "--json"))
    assert finished["resumed"] is True and finished["remaining"] == []
    state = _state(server, home)
    assert state == uninterrupted
    assert state["found"] == {} and state["verify"] and not state["journal"]
