"""The command line as a user meets it: start-up cost, dry run, bad input, exit codes, doctor.

Start-up, help and doctor run the console script in a process of its own (:func:`memctl`); the tests of a
command's output, exit code and files run it in-process (:func:`tests.support.cli_in_process.run_cli`: the same
app and error boundary, without the 1-20 s a process cost each on the shared two-core machine).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fixtures.synthetic_opencode import build_database
from tests.support.cli_in_process import run_cli

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"


def memctl(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, cwd=cwd)


@pytest.fixture
def fixture_copy(tmp_path: Path) -> Path:
    d = tmp_path / "oc"
    d.mkdir()
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(FIXTURE / name, d / name)
    return d / "opencode.db"


def test_help_does_not_import_cognee() -> None:
    code = (
        "import sys\n"
        "from memctl.cli.main import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "try:\n    app(['ingest', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('COGNEE_LOADED' if 'cognee' in sys.modules else 'COGNEE_ABSENT')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "ingest" in result.stdout
    assert result.stdout.strip().endswith("COGNEE_ABSENT"), result.stdout[-300:]


HEAVY_MODULES = ("cognee", "litellm", "lancedb", "kuzu", "sqlalchemy", "ollama", "httpx", "pydantic_settings",
                 "memctl.config", "mcp", "flyte")


def test_every_help_imports_nothing_heavy() -> None:
    """`--help` of the root and of every command and subcommand imports no heavy library (the
    start-up budget is 150 ms for `memctl --help`, 200 ms for any help; bench/bench_startup.py
    measures it): the modules each help loaded are listed by a fresh interpreter."""
    code = (
        "import sys, json, typer\n"
        "from memctl.cli.main import app\n"
        "root = typer.main.get_command(app)\n"
        "def paths(cmd, prefix):\n"
        "    yield prefix\n"
        "    for name, sub in getattr(cmd, 'commands', {}).items():\n"
        "        yield from paths(sub, prefix + [name])\n"
        "heavy = json.loads(sys.argv[1])\n"
        "found = {}\n"
        "for argv in paths(root, []):\n"
        "    try:\n"
        "        app(argv + ['--help'], standalone_mode=True)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    found[' '.join(argv) or '(root)'] = sorted(m for m in heavy if m in sys.modules)\n"
        "print('RESULT ' + json.dumps(found))\n"
    )
    result = subprocess.run([sys.executable, "-c", code, json.dumps(HEAVY_MODULES)], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT "))
    found = json.loads(line[len("RESULT "):])
    assert len(found) >= 12 and "ingest" in found and "schedule install" in found
    assert {argv: mods for argv, mods in found.items() if mods} == {}


def test_dry_run_plans_and_writes_nothing(fixture_copy: Path, tmp_path: Path) -> None:
    home = tmp_path / "var"
    result = run_cli("ingest", "--dry-run", "--json", "--db", str(fixture_copy), "--home", str(home))
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["dry_run"] and plan["found"] == 9
    assert plan["skipped_threshold"] == 1 and plan["would_distill"] == 8
    assert plan["estimated_input_tokens"] > 1000
    actions = {item["title"]: item for item in plan["plan"]}
    assert actions["Greeting"]["action"] == "skip" and "below substance threshold" in actions["Greeting"]["why"]
    assert not home.exists()
    # planted secrets are not echoed in the plan either
    planted = json.loads((FIXTURE / "planted_secrets.json").read_text())
    assert not any(s["value"] in result.stdout for s in planted if "\n" not in s["value"])


def test_dry_run_human_output(fixture_copy: Path, tmp_path: Path) -> None:
    result = run_cli("ingest", "--dry-run", "--db", str(fixture_copy), "--home", str(tmp_path / "var"))
    assert result.returncode == 0
    assert "would distill" in result.stdout and "estimated input tokens" in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["ingest", "--phase", "bogus"], 2, "'bogus' is not one of 'all', 'distill', 'add', 'cognify'"),
        (["ingest", "--since", "last tuesday"], 2, "cannot read --since"),
        (["ingest", "--limit", "0"], 2, "limit"),
        (["ingest", "--db", "/nonexistent/opencode.db"], 3, "OpenCode database not found"),
    ],
)
def test_bad_input_gets_a_clear_error_and_exit_code(args: list[str], code: int, message: str, tmp_path: Path) -> None:
    result = run_cli(*args, "--home", str(tmp_path / "var"))
    assert result.returncode == code, result.stderr
    assert message in (result.stderr + result.stdout)
    assert "Traceback" not in result.stderr


def test_not_a_database_and_foreign_schema(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not sqlite\n" * 100)
    result = memctl("ingest", "--dry-run", "--db", str(junk))
    assert result.returncode == 3 and "not a readable SQLite database" in result.stderr
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE chats (id TEXT)")
    conn.commit()
    conn.close()
    result = memctl("ingest", "--dry-run", "--db", str(other))
    assert result.returncode == 3 and "found chats" in result.stderr
    assert "Traceback" not in result.stderr


def test_db_from_environment_variable(tmp_path: Path) -> None:
    db = build_database(tmp_path / "env.db", 2, turns=2)
    result = run_cli("ingest", "--dry-run", "--json", env={"OPENCODE_DB": str(db)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["found"] == 2


def test_unreachable_ollama_fails_fast_with_exit_9_and_marks_nothing(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 2, turns=2)
    home = tmp_path / "var"
    result = run_cli("ingest", "--phase", "distill", "--json", "--db", str(db), "--home", str(home),
                    env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert result.returncode == 9, result.stderr
    assert "cannot reach Ollama" in result.stderr and "OLLAMA_HOST" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (home / "progress.json").exists()  # nothing marked as error


@pytest.mark.parametrize(
    ("setup", "message"),
    [("file", "is a file"), ("topics", "not a valid topics file"), ("topics-slug", "invalid topic slugs"),
     ("progress-list", "progress.json is corrupt")],
)
def test_data_home_problems_exit_7_without_traceback(tmp_path: Path, setup: str, message: str) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    home = tmp_path / "var"
    if setup == "file":
        home.write_text("not a directory")
    else:
        home.mkdir()
        if setup == "topics":
            (home / "topics.json").write_text('{"paths": [1]}')
        elif setup == "topics-slug":
            (home / "topics.json").write_text('{"paths": {"/x": "../../etc"}}')
        else:
            (home / "progress.json").write_text("[]")
    result = run_cli("ingest", "--phase", "distill", "--db", str(db), "--home", str(home))
    assert result.returncode == 7, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_unknown_session_is_a_usage_error(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    result = run_cli("ingest", "--dry-run", "--db", str(db), "--session", "ses_nope")
    assert result.returncode == 2 and "ses_nope" in result.stderr


def test_absurd_since_age_is_a_usage_error() -> None:
    result = run_cli("ingest", "--dry-run", "--since", "99999999999999d", "--db", "/nonexistent.db")
    assert result.returncode == 2 and "--since" in result.stderr and "Traceback" not in result.stderr


def test_corrupt_checkpoint_exit_7(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    home = tmp_path / "var"
    home.mkdir()
    (home / "progress.json").write_text("{ not json")
    result = run_cli("ingest", "--phase", "distill", "--db", str(db), "--home", str(home))
    assert result.returncode == 7 and "progress.json is corrupt" in result.stderr
    assert (home / "progress.json").read_text() == "{ not json"  # nothing lost


@pytest.mark.parametrize(
    ("content", "message"),
    [('workers = "many"\n', "workers"), ("workerz = 4\n", "workerz: Extra inputs"), ("workers = 0\n", "greater than or equal to 1"),
     ("request_timeout_s = 0\n", "request_timeout_s"), ('ollama_host = "not a url::"\n', "ollama_host: Value error"), ("workers = \n", "cannot read the config file"), (None, "not a file")],
)
def test_invalid_config_file_is_a_usage_error(tmp_path: Path, content: str | None, message: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST")  # the environment outranks the file: let the file's ollama_host count
    config = tmp_path / "config.toml"
    if content is not None:
        config.write_text(content)
    result = run_cli("ingest", "--dry-run", "--db", "/nonexistent.db", env={"MEMCTL_CONFIG": str(config)})
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_doctor_reports_missing_model_and_dimension_mismatch(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama(models=("llama3.1:8b",), embedding_models=("nomic-embed-text",), embedding_dim=1024) as server:
        result = memctl("doctor", "--json", "--db", str(db), "--home", str(tmp_path / "var"),
                        env={"OLLAMA_HOST": server.url})
    assert result.returncode == 8
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["ollama"]["status"] == "ok"
    assert checks["embedding model"]["status"] == "fail" and checks["embedding model"]["fix"] == "ollama pull nomic-embed-text"
    assert checks["opencode db"]["status"] == "ok"
    assert checks["data home"]["status"] == "ok"


def test_doctor_all_green_and_dimension_check(tmp_path: Path) -> None:
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama(embedding_dim=1024) as server:
        result = memctl("doctor", "--json", "--db", str(db), "--home", str(tmp_path / "var"), env={"OLLAMA_HOST": server.url})
        checks = {c["name"]: c for c in json.loads(result.stdout)}
        assert checks["embedding dimension"]["status"] == "fail"
        assert "MEMCTL_EMBEDDING_DIMENSIONS=1024" in checks["embedding dimension"]["fix"]
    with FakeOllama() as server:
        result = memctl("doctor", "--json", "--db", str(db), "--home", str(tmp_path / "var"), env={"OLLAMA_HOST": server.url})
    assert result.returncode == 0, result.stdout
    assert {c["status"] for c in json.loads(result.stdout)} == {"ok"}


def test_doctor_without_ollama(tmp_path: Path) -> None:
    result = memctl("doctor", "--db", str(tmp_path / "none.db"), "--home", str(tmp_path / "var"),
                    env={"OLLAMA_HOST": "127.0.0.1:9", "COLUMNS": "250"})
    assert result.returncode == 8
    assert "ollama serve" in result.stdout and "OPENCODE_DB" in result.stdout


def test_doctor_flags_problematic_models() -> None:
    from memctl.doctor import problematic_model

    assert problematic_model("mistral:7b") and problematic_model("phi3") and problematic_model("qwen2.5:7b")
    assert not problematic_model("qwen2.5:14b") and not problematic_model("llama3.1:8b")


def test_doctor_detects_vectors_of_another_embedding_model(tmp_path: Path) -> None:
    """Switching embedding models leaves old-size vectors behind; doctor names the fix."""
    import lancedb
    import pyarrow as pa

    home = tmp_path / "var"
    store = home / "cognee" / "system" / "databases" / "some-dataset.lance.db"
    store.mkdir(parents=True)
    schema = pa.schema([pa.field("id", pa.string()), pa.field("vector", pa.list_(pa.float32(), 1024))])
    lancedb.connect(str(store)).create_table("DocumentChunk_text", schema=schema)
    db = build_database(tmp_path / "opencode.db", 1, turns=2)
    with FakeOllama() as server:
        result = memctl("doctor", "--json", "--db", str(db), "--home", str(home), env={"OLLAMA_HOST": server.url})
    assert result.returncode == 8
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    vector = checks["vector store"]
    assert vector["status"] == "fail" and "[1024]" in vector["detail"] and "768" in vector["detail"]
    assert "rebuild" in vector["fix"]


def test_doctor_names_the_layouts_with_session_counts(tmp_path: Path) -> None:
    """The dev-build fixture holds sessions of both layouts; --db may be the directory."""
    import shutil

    from memctl.doctor import check_source

    source = tmp_path / "opencode"
    source.mkdir()
    shutil.copy2(Path(__file__).resolve().parents[1] / "fixtures" / "opencode-dev" / "opencode-dev.db", source)
    check = check_source(source)
    assert check.status == "ok", check.detail
    assert check.detail.startswith(f"{source / 'opencode-dev.db'}: 6 top-level sessions (1 subagent")
    assert "message/part (OpenCode 1.2 – 1.18, dev build `opencode run`): 4 sessions" in check.detail
    assert "session_message (dev build 0.0.0-dev-202609212252 HTTP API): 3 sessions" in check.detail
    shutil.copy2(source / "opencode-dev.db", source / "opencode.db")
    refused = check_source(source)
    assert refused.status == "fail" and "holds both opencode.db" in refused.detail


@pytest.mark.parametrize("session", ["ses_" + "w" * 70, "ses_short"])
def test_piped_output_never_cuts_a_path_across_lines(tmp_path: Path, session: str) -> None:
    """A pipe is 80 columns to Rich: the staged path must still be whole on its line (scripts grep it)."""
    home = tmp_path / "a" / "rather" / "long" / "data" / "home" / "path" / "for" / "the" / "wrap" / "check"
    home.mkdir(parents=True)
    result = run_cli("remember", "The deploy script for alpha lives under ops/deploy/alpha/run-the-deploy.sh",
                    "-s", session, "--global", "--home", str(home), env={"COLUMNS": ""})
    assert result.returncode == 0, result.stderr
    staged = next(home.joinpath("store", "staging", "sessions", session, "inbox").glob("*.json"))
    relative = staged.relative_to(home / "store").as_posix()
    assert any(relative in line for line in result.stdout.splitlines()), result.stdout
