"""The direct chunk reader (memctl/ask/chunk_reader.py) against Cognee's own search, and the cold path it makes.

On the real OpenCode 1.18 fixture ingested into real Cognee (the fake model server answers the models):

* for every note title as a question, over one topic and over all of them, and for free questions, the
  reader returns what Cognee's CHUNKS search returns — same chunks, same datasets, same order, same text and
  source, distances equal to 1e-5 — and ``retrieve`` cites the same sources in the same order either way;
* a cold ``memctl search`` and ``memctl ask`` in a fresh process import neither Cognee, litellm nor lancedb,
  and still answer from the graph (``hybrid``);
* a cold ``ask`` leaves every Kuzu and LanceDB file byte-identical;
* a layout the reader does not know (no database, a dataset that is not there) is refused with
  ``ReaderUnavailable``, which sends retrieval to Cognee's own search.

Cognee runs only in subprocesses (tests/support/chunk_parity.py), so this process never holds a graph-store lock.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.ask.chunk_reader import ReaderUnavailable, dataset_stores
from memctl.config import DataHome
from tests.fakes.ollama_server import FakeOllama
from tests.support.memctl_process import REPO, env_for, ingest_fixture, run_memctl

pytestmark = pytest.mark.e2e

HEAVY = ("cognee", "litellm", "lancedb")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("chunks")
    with FakeOllama() as server:
        home = ingest_fixture(base, server)
        yield {"home": home, "server": server, "base": base}


def _cases(home: Path) -> list[dict]:
    index = json.loads((home / "topic_index.json").read_text())["topics"]
    slugs = sorted(index)
    cases = []
    for slug, topic in sorted(index.items()):
        for note in topic["notes"]:
            cases.append({"question": f"What happened in {note['title']}?", "topics": [slug], "top_k": 12})
            cases.append({"question": note["title"], "topics": slugs, "top_k": 4})
    for question in ("how did we fix the failing tests", "which script deploys the app", "TODO comments",
                     "errors in the service logs"):
        cases.append({"question": question, "topics": slugs, "top_k": 12})
        cases.append({"question": question, "topics": slugs[::-1][:2], "top_k": 2})
    return cases


def test_the_reader_returns_what_cognees_search_returns(world, tmp_path: Path) -> None:
    home, server = world["home"], world["server"]
    cases = _cases(home)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"cases": cases}))
    proc = subprocess.run([sys.executable, "-m", "tests.support.chunk_parity", str(home), str(spec)], env=env_for(server),
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)["cases"]
    assert len(results) == len(cases) >= 20
    compared = 0
    for case, result in zip(cases, results):
        cognee, reader = result["cognee"], result["reader"]
        assert cognee, case  # every case has chunks to compare
        assert [r[:3] + r[4:] for r in reader] == [r[:3] + r[4:] for r in cognee], case
        assert reader[0][3] == pytest.approx(cognee[0][3], abs=1e-5)
        for mine, theirs in zip(reader, cognee):
            assert mine[3] == pytest.approx(theirs[3], abs=1e-5), case
        assert result["reader_retrieve"] == result["cognee_retrieve"], case
        assert result["methods"] == ["hybrid", "hybrid"], case
        compared += len(cognee)
    assert compared > 3 * len(cases)


def _cold(server: FakeOllama, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``memctl *args`` in a fresh interpreter with ``-X importtime``: its result and the top-level
    packages it imported (every import is logged on stderr, even when the CLI ends with ``os._exit``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "memctl.cli", *args], env=env_for(server),
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in proc.stderr.splitlines()
               if line.startswith("import time:") and line.count("|") == 2}
    return proc, modules


def test_a_cold_search_reads_the_graph_without_importing_cognee(world) -> None:
    proc, modules = _cold(world["server"], "search", "how was the add bug fixed", "--json", "--home", str(world["home"]))
    assert json.loads(proc.stdout)["retrieval_method"] == "hybrid"
    assert "memctl" in modules and "numpy" in modules  # the probe sees the imports; the reader ran
    assert not modules & set(HEAVY), modules & set(HEAVY)


def _stores(home: Path) -> dict[str, str]:
    databases = home / "cognee" / "system" / "databases"
    files = [p for p in sorted(databases.rglob("*")) if p.is_file()
             and any(part.endswith((".lance.db", ".pkl")) for part in p.relative_to(databases).parts)]
    return {str(p.relative_to(databases)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_a_cold_ask_is_read_only_for_kuzu_and_lancedb_and_imports_no_cognee(world) -> None:
    home = world["home"]
    before = _stores(home)
    assert any(".pkl" in name for name in before) and any(".lance" in name for name in before)
    proc, modules = _cold(world["server"], "ask", "How was the add() bug in calc.py fixed?", "--json", "--debug",
                          "--home", str(home))
    result = json.loads(proc.stdout)
    debug = [line for line in proc.stderr.splitlines() if line.startswith("memctl:")]
    assert result["retrieval_method"] == "hybrid", debug
    assert any(s["title"] == "Fix add() bug in calc.py" for s in result["sources"])
    importers = [line for line in proc.stderr.splitlines() if "| cognee" in line or "| litellm" in line][-3:]
    assert not modules & set(HEAVY), (modules & set(HEAVY), debug, importers)
    assert _stores(home) == before


def test_a_layout_the_reader_does_not_know_is_refused(world, tmp_path: Path) -> None:
    home = DataHome(world["home"])
    assert sorted(dataset_stores(home, ["alpha", "beta"])) == ["alpha", "beta"]
    with pytest.raises(ReaderUnavailable, match="no dataset named nope"):
        dataset_stores(home, ["alpha", "nope"])
    with pytest.raises(ReaderUnavailable, match="no relational database"):
        dataset_stores(DataHome(tmp_path / "empty"), ["alpha"])


def test_the_cli_answers_the_same_through_the_reader_as_before(world) -> None:
    proc = run_memctl(world["server"], "search", "deploy script", "--json", "--home", str(world["home"]))
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout)
    assert found["retrieval_method"] == "hybrid" and found["results"][0]["title"] == "deploy.sh explanation"


def test_the_row_cache_serves_until_the_table_commits_again(world, tmp_path: Path, monkeypatch) -> None:
    import shutil

    from memctl.ask import chunk_reader

    source = dataset_stores(DataHome(world["home"]), ["alpha"])["alpha"] / chunk_reader.CHUNK_TABLE
    table = tmp_path / "copy" / chunk_reader.CHUNK_TABLE
    shutil.copytree(source, table)
    home = DataHome(tmp_path / "home")
    matrix, rows = chunk_reader.cached_chunks(home, "alpha", table)  # read from the table, cache written
    assert (tmp_path / "home" / "cache" / "chunks" / "alpha.vec").is_file() and rows and matrix.shape[0] == len(rows)
    reads = []
    real = chunk_reader._read_chunks
    monkeypatch.setattr(chunk_reader, "_read_chunks", lambda t: reads.append(t) or real(t))
    again, rows_again = chunk_reader.cached_chunks(home, "alpha", table)
    assert reads == [] and rows_again == rows and (again == matrix).all()  # served by the cache
    import os

    manifest = sorted((table / "_versions").glob("*.manifest"))[0]
    os.utime(manifest, ns=(manifest.stat().st_atime_ns, manifest.stat().st_mtime_ns + 1_000_000))  # a new commit's stamp
    chunk_reader.cached_chunks(home, "alpha", table)
    assert reads == [table]  # a new manifest: the table is read again
