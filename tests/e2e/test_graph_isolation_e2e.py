"""End to end, in real subprocesses: a hostile ``.env`` next to the user's work and a connection guard.

Each run puts a ``.env`` in the working directory or its parent that tries to turn Cognee's
per-dataset stores off and to send its model calls elsewhere, then runs ``memctl ingest``,
``memctl ask --topic``, ``memctl remember`` and ``memctl sleep`` (which rebuilds the topic) from
that directory. Every process, Cognee's spawned database workers included, runs under a
``sitecustomize`` guard that records and refuses any TCP connection other than to the fake model
server's 127.0.0.1 port. Expected: a search scoped to one topic never returns another topic's
note, the rebuild happens, and the guard saw no other address.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text
from tests.support.memctl_process import REPO

pytestmark = pytest.mark.e2e

GUARD = textwrap.dedent("""
    # Installed through PYTHONPATH in every memctl process of the test: record and refuse any TCP
    # connection other than to the one allowed host:port.
    import json, os, socket, traceback

    _ALLOWED = os.environ["MEMCTL_TEST_ALLOWED_ADDRESS"]
    _LOG = os.environ["MEMCTL_TEST_CONNECTION_LOG"]
    _connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex

    def _check(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and f"{address[0]}:{address[1]}" != _ALLOWED:
            with open(_LOG, "a") as log:
                log.write(json.dumps({"pid": os.getpid(), "address": f"{address[0]}:{address[1]}",
                                      "stack": traceback.format_stack()[-12:-1]}) + "\\n")
            raise ConnectionRefusedError(111, f"connection to {address[0]}:{address[1]} refused by the test guard")

    def connect(self, address):
        _check(self, address)
        return _connect(self, address)

    def connect_ex(self, address):
        _check(self, address)
        return _connect_ex(self, address)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
""")

HOSTILE_PORT = 9  # what the .env names instead of the configured server


def _dotenv(path: Path) -> None:
    path.write_text(
        "ENABLE_BACKEND_ACCESS_CONTROL=false\n"
        f"LLM_ENDPOINT=http://127.0.0.1:{HOSTILE_PORT}\n"
        f"EMBEDDING_ENDPOINT=http://127.0.0.1:{HOSTILE_PORT}/api/embed\n"
        f"OLLAMA_API_BASE=http://127.0.0.1:{HOSTILE_PORT}\n"
        "VECTOR_DB_PROVIDER=pgvector\n"
        "GRAPH_DATABASE_PROVIDER=neo4j\n", encoding="utf-8")


def _database(path: Path) -> Path:
    db = CraftedDb(path)
    for project, sid, ask, command, output, reply in (
        (("prj_fake_alpha", "/home/dev/src/alpha"), "ses_alpha_host",
         "Where does the alpha service deploy for staging? Write the host, the port and the ssh user into the runbook.",
         "grep -n staging docs/runbook.md", "12: staging host stg-alpha-zebra-01.example port 2222 user deploy",
         "ALPHA_ONLY_MARKER: alpha staging runs on stg-alpha-zebra-01.example port 2222, ssh user deploy."),
        (("prj_fake_beta", "/home/dev/src/beta"), "ses_beta_lint",
         "Replace flake8 with ruff in the beta repository and make the CI lint job fail on any new warning.",
         "ruff check .", "All checks passed!",
         "BETA_MARKER: ruff replaces flake8 in beta; CI runs ruff check --output-format github."),
    ):
        sid = db.session(sid, f"Work on {project[1].rsplit('/', 1)[1]}", project=project)
        db.user(sid, ask)
        db.assistant(sid, [bash(command, output), text(reply)])
    db.close()
    return path


def test_the_guard_sees_a_connection_made_in_a_subprocess(tmp_path: Path) -> None:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "connections.jsonl"
    env = {**os.environ, "PYTHONPATH": str(guard), "MEMCTL_TEST_ALLOWED_ADDRESS": "127.0.0.1:1",
           "MEMCTL_TEST_CONNECTION_LOG": str(log)}
    code = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\nexcept OSError:\n    pass\n"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    assert [json.loads(line)["address"] for line in log.read_text().splitlines()] == ["127.0.0.1:9"]


@pytest.mark.parametrize("dotenv_in", ["cwd", "parent"])
def test_hostile_dotenv_changes_nothing_and_no_connection_leaves_the_configured_host(
        tmp_path: Path, dotenv_in: str) -> None:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    cwd = tmp_path / "work" / "project"
    cwd.mkdir(parents=True)
    _dotenv(cwd / ".env" if dotenv_in == "cwd" else cwd.parent / ".env")
    db = _database(tmp_path / "opencode.db")
    home, log = tmp_path / "var", tmp_path / "connections.jsonl"
    with FakeOllama() as server:
        port = server.url.rsplit(":", 1)[1]
        env = {**os.environ, "OLLAMA_HOST": server.url, "PYTHONPATH": f"{guard}{os.pathsep}{REPO}",
               "MEMCTL_TEST_ALLOWED_ADDRESS": f"127.0.0.1:{port}", "MEMCTL_TEST_CONNECTION_LOG": str(log),
               "MEMCTL_SETTLE_MINUTES": "0"}

        def memctl(*args: str) -> dict:
            proc = subprocess.run([sys.executable, "-m", "memctl.cli", *args, "--home", str(home), "--json"],
                                  cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
            assert proc.returncode == 0, (args, proc.stderr[-3000:])
            return json.loads(proc.stdout)

        ingested = memctl("ingest", "--db", str(db))
        assert (ingested["distilled"], ingested["add_status"], ingested["cognify_status"]) == (2, "ok", "ok")
        assert ingested["datasets"] == ["alpha", "beta"]
        beta = memctl("ask", "What is the staging host name, port and ssh user?", "--topic", "beta")
        assert beta["retrieval_method"] == "hybrid"
        assert [s["source_id"] for s in beta["sources"]] == ["ses_beta_lint"]
        alpha = memctl("ask", "What is the staging host name, port and ssh user?", "--topic", "alpha")
        assert [s["source_id"] for s in alpha["sources"]] == ["ses_alpha_host"]
        memctl("remember", "Deploys of beta use the blue pipeline.", "--session", "s1", "--topic", "beta")
        night = memctl("sleep")
        assert night["topics_rebuilt"] == ["beta"] and night["topics_failed"] == {}
        requests = len(server.calls)
    stores = sorted(p.name for p in (home / "cognee" / "system" / "databases").iterdir())
    assert "cognee.lancedb" not in stores and "cognee_graph_kuzu" not in stores  # no shared store
    assert requests > 0
    stray = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    assert stray == [], json.dumps(stray[:3], indent=1)
