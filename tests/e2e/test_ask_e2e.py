"""End to end: `memctl ask` over the real OpenCode 1.18 fixture, ingested into real Cognee.

Routing to the right topic and citing the right session; read-only over 20
asks (store files byte-identical; Cognee's knowledge — data items, graph
nodes and edges, vector rows — unchanged); the graph search
still served while another process holds the Kuzu files; fallback to the raw notes when the graph store
is missing; a staged proposal never
reaching an answer before it is promoted. Cognee runs only in subprocesses
(the CLI, or tests/support/ask_batch.py for many asks in one process), so this
process never holds a graph-store lock.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.store import MemoryStore
from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import env_for, ingest_fixture, run_memctl

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "opencode-1.18"

QUESTIONS = [  # (question, expected topic, title of the session that answers it)
    ("How was the add() bug in calc.py fixed?", "alpha", "Fix add() bug in calc.py"),
    ("What does the deploy.sh script do?", "beta", "deploy.sh explanation"),
    ("How did we create the hello.sh script?", "scratch", "hello.sh script creation"),
]
GLOBAL_MEMORY = "Prefers short answers with the exact command to run."


def _env(server: FakeOllama) -> dict[str, str]:
    return env_for(server)


def _memctl(server: FakeOllama, *args: str) -> subprocess.CompletedProcess:
    return run_memctl(server, *args)


def _batch(server: FakeOllama, home: Path, tmp: Path, questions: list[dict], counts: list[str] | None = None) -> dict:
    spec = tmp / f"spec-{len(list(tmp.glob('spec-*')))}.json"
    spec.write_text(json.dumps({"questions": questions, "counts": counts or []}))
    proc = subprocess.run([sys.executable, "-m", "tests.support.ask_batch", str(home), str(spec)], env=_env(server),
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _tree_hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("ask")
    with FakeOllama() as server:
        home = ingest_fixture(base, server)
        MemoryStore(home / "store").write_text("user/global/style.md", GLOBAL_MEMORY, actor="sleep",
                                               reason="promoted in test setup")
        titles = {n["title"]: n for t in json.loads((home / "topic_index.json").read_text())["topics"].values()
                  for n in t["notes"]}
        yield {"home": home, "server": server, "base": base, "titles": titles}


def test_a_graph_store_locked_by_another_process_does_not_stop_the_graph_search(world) -> None:
    # The chunk search reads Cognee's LanceDB tables (memctl/ask/chunk_reader.py), not the Kuzu files: another
    # process holding every Kuzu file no longer sends ask to the raw notes (ingest and sleep still do: they
    # hold the data home's lock, which ask checks first).
    server, home = world["server"], world["home"]
    holder = subprocess.Popen(
        [sys.executable, "-c", "import glob, sys, time, kuzu\n"
         f"dbs = [kuzu.Database(p) for p in glob.glob({str(home / 'cognee')!r} + '/system/databases/*/*.pkl')]\n"
         "conns = [kuzu.Connection(d) for d in dbs]\nprint('held', len(dbs), flush=True)\ntime.sleep(300)\n"],
        stdout=subprocess.PIPE, text=True, env=_env(server))
    try:
        assert holder.stdout.readline().split() == ["held", "3"]  # one Kuzu file per dataset, all locked
        proc = _memctl(server, "ask", QUESTIONS[0][0], "--home", str(home), "--json")
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["retrieval_method"] == "hybrid" and result["fallback_used"] is False, result["fallback_reason"]
    assert result["topics"] == ["alpha"] and result["sources"][0]["title"] == QUESTIONS[0][2]
    assert result["sources"][0]["graph_rank"] == 1
    assert result["answer"].endswith("[1]")


def test_fallback_when_the_graph_store_is_missing(world, tmp_path: Path) -> None:
    copy = tmp_path / "var"
    shutil.copytree(world["home"], copy, ignore=shutil.ignore_patterns("cognee"))
    proc = _memctl(world["server"], "ask", QUESTIONS[1][0], "--home", str(copy), "--json", "--debug")
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert (result["retrieval_method"], result["topics"]) == ("notes", ["beta"])
    assert "no graph store" in result["fallback_reason"]
    assert result["sources"][0]["title"] == QUESTIONS[1][2]
    assert "retrieve_s=" in proc.stderr and "ctx_chars=" in proc.stderr  # --debug timings on stderr
    assert not (copy / "cognee").exists()  # the fallback did not create a graph store


def test_questions_are_routed_and_answered_with_the_right_sources(world, tmp_path: Path) -> None:
    server = world["server"]
    server.reset_counts()
    out = _batch(server, world["home"], tmp_path, [{"question": q} for q, _, _ in QUESTIONS])
    for (question, topic, title), result in zip(QUESTIONS, out["results"]):
        assert result["topics"] == [topic], (question, result)
        assert result["route_method"] == "model"
        assert result["retrieval_method"] == "hybrid" and result["fallback_used"] is False, result["fallback_reason"]
        assert result["sources"][0]["graph_rank"] or result["sources"][0]["notes_rank"]  # ranks shown per list
        cited = result["sources"][0]
        assert cited["title"] == title and cited["topic"] == topic
        assert cited["source_id"] == world["titles"][title]["source_id"]
        assert cited["path"] == f"memory/{topic}/{cited['source_id']}.md"
        # the transcript turn that found it (the turn index ingest built): its number and the request's words
        transcript = " ".join((world["home"] / "transcripts" / f"{cited['source_id']}.md").read_text().split())
        assert cited["turn"]["index"] >= 1 and cited["turn"]["excerpt"][:40] in transcript, cited
        # the graph searched the routed dataset and those of the two best dense hits (graph_widen_hits = 2), no
        # other; BM25 and the dense list search every topic's notes
        widened = {topic} | {s["topic"] for s in result["sources"]
                             if min(s["dense_rank"] or 99, s["turn_dense_rank"] or 99) <= 2}
        assert all(s["topic"] in widened for s in result["sources"] if s["graph_rank"]), result["sources"]
        assert all("dense_rank" in s for s in result["sources"])
        assert result["user_memories"] == []  # the global memory shares no word with it: not pasted in
        assert 0 < result["ctx_chars"] <= 12000 and result["retrieve_s"] > 0
    # one router call (structured, enum-constrained) and one answer call per question
    routers = [b for p, _m, b in server.calls if p == "/api/chat" and isinstance(b.get("format"), dict)]
    assert len(routers) == 3
    assert routers[0]["format"]["properties"]["topics"]["items"]["enum"] == ["alpha", "beta", "scratch"]


def test_cli_ask_prints_the_answer_then_the_sources(world) -> None:
    proc = _memctl(world["server"], "ask", QUESTIONS[2][0], "--home", str(world["home"]))
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer, _, table = proc.stdout.partition("sources")
    assert "[1]" in answer and "hello.sh script creation" in table
    assert "topics: scratch (model)" in proc.stderr


def test_twenty_asks_change_no_trusted_memory_and_no_knowledge(world, tmp_path: Path) -> None:
    home = world["home"]
    before = {prefix: _tree_hashes(home / "store" / prefix) for prefix in ("memory", "user")}
    questions = [{"question": QUESTIONS[i % 3][0] + f" (variant {i})", "session": f"ses_{i % 4}",
                  "propose": i % 5 == 0} for i in range(20)]
    out = _batch(world["server"], home, tmp_path, questions, counts=["alpha", "beta", "scratch"])
    assert all("error" not in r for r in out["results"]), out["results"]
    assert out["counts_before"] == out["counts_after"]
    for name, counts in out["counts_before"].items():
        assert counts["data_items"] > 0 and counts["nodes"] > 0 and counts["edges"] > 0, (name, counts)
        assert sum(counts["vector_rows"].values()) > 0
    after = {prefix: _tree_hashes(home / "store" / prefix) for prefix in ("memory", "user")}
    assert after == before
    # the asks with --propose staged proposals, and only there
    staged = MemoryStore(home / "store").list("staging")
    assert len(staged) == sum(1 for r in out["results"] if r["proposal"]) >= 1
    assert all(p.startswith("staging/sessions/ses_") and "/inbox/" in p for p in staged)
    assert MemoryStore(home / "store").verify(deep=True).ok


def test_a_staged_proposal_never_reaches_an_answer_before_promotion(world, tmp_path: Path) -> None:
    server, home = world["server"], world["home"]
    marker = "Deployments always go through the zq-blue-green pipeline."
    staged = _memctl(server, "remember", marker, "--session", "ses_promo", "--topic", "beta", "--home", str(home),
                     "--json")
    assert staged.returncode == 0, staged.stderr
    proposal = json.loads(staged.stdout)
    assert proposal["path"].startswith("user/topics/beta/")
    server.reset_counts()
    out = _batch(server, home, tmp_path, [{"question": "How do deployments work in beta?", "session": "ses_promo"}])
    result = out["results"][0]
    assert "zq-blue-green" not in result["answer"]
    assert not any("zq-blue-green" in json.dumps(body) for _p, _m, body in server.calls)  # never in any prompt
    assert result["user_memories"] == []  # global memories come only by relevance
    # promotion (what sleep does through the store) makes it count
    MemoryStore(home / "store").write_text(proposal["path"], proposal["content"], actor="sleep",
                                           reason=f"promote proposal {proposal['id']} (test)")
    server.reset_counts()
    out = _batch(server, home, tmp_path, [{"question": "How do deployments work in beta?", "session": "ses_promo"}])
    result = out["results"][0]
    assert proposal["path"] in result["user_memories"]
    prompts = [json.dumps(b) for p, _m, b in server.calls if p == "/api/chat" and not b.get("format")]
    assert any("[USER_MEMORY]" in p and "zq-blue-green" in p for p in prompts)
