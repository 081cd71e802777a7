"""memctl.graph.knowledge_graph against real Cognee/Kuzu/LanceDB/SQLite and the fake Ollama.

The e2e tests share one data home and one fake server (module scope) because
``import cognee`` and its first database setup take seconds; they run in
file order and build on each other's state (datasets ``alpha`` and ``beta``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Iterator

import pytest

from memctl.config import DataHome, Settings
from memctl.graph import knowledge_graph as kg
from memctl.graph.offline import OFFLINE_ENV, cl100k_asset, ensure_offline_assets, tiktoken_cache_path
from tests.conftest import guard_network
from tests.fakes.ollama_server import FakeOllama

ROOT = Path(__file__).resolve().parents[2]
REAL_OLLAMA_ROUTES = {"/api/generate", "/api/chat", "/api/embed", "/api/show", "/api/tags", "/api/version"}

NOTES = {
    "ses_alpha1": ("alpha", "# Fix the Kuzu lock\n\n- Request: fix the Kuzu lock in memctl/store.py\n- Tools used: bash, edit\n"),
    "ses_alpha2": ("alpha", "# LanceDB index\n\n- Request: Alice asked for a LanceDB index on notes\n- Tools used: bash\n"),
    "ses_beta1": ("beta", "# Release notes\n\n- Request: Bob wants CHANGELOG.md for the 0.2 release\n- Tools used: edit\n"),
}


def write_note(home: DataHome, source_id: str, topic: str, body: str) -> Path:
    """A distilled note as memctl writes it: YAML front matter + Markdown."""
    path = home.note_path(source_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nsource_id: {source_id}\ntopic: {topic}\nprompt_version: 1\n---\n{body}", encoding="utf-8")
    return path


# ------------------------------------------------------------------ fast unit tests


@pytest.mark.parametrize("name", ["my-project", "a", "topic_2", "x" * 255, "UPPER-ok"])
def test_valid_dataset_names(name: str) -> None:
    assert kg.validate_dataset_name(name) == name


@pytest.mark.parametrize("name", ["", "my.project", "my project", "tab\tname", "a/b", "a\\b", "x" * 256])
def test_invalid_dataset_names(name: str) -> None:
    with pytest.raises(kg.InvalidDatasetName):
        kg.validate_dataset_name(name)


def test_cognee_env_points_at_ollama_native_routes_and_the_home(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    env = kg.cognee_env(Settings(ollama_host="127.0.0.1:9999", graph_model="llama3.1:8b"), home)
    assert env["LLM_ENDPOINT"] == "http://127.0.0.1:9999"  # litellm appends /api/generate
    assert env["LLM_MODEL"] == "ollama/llama3.1:8b"
    assert env["EMBEDDING_ENDPOINT"] == "http://127.0.0.1:9999/api/embed"
    assert env["EMBEDDING_DIMENSIONS"] == "768" and env["EMBEDDING_PROVIDER"] == "ollama"
    assert env["ENABLE_BACKEND_ACCESS_CONTROL"] == "true"
    assert env["OLLAMA_API_BASE"] == "http://127.0.0.1:9999"  # litellm's /api/show fallback
    assert env["RAISE_INCREMENTAL_LOADING_ERRORS"] == "false" and env["LITELLM_MODE"] == "PRODUCTION"
    assert env["COGNEE_ENV_FILE"] == str(home.cognee / "cognee.env")
    assert env["GRAPH_DATABASE_PROVIDER"] == "kuzu" and env["VECTOR_DB_PROVIDER"] == "lancedb"
    for key in ("SYSTEM_ROOT_DIRECTORY", "DATA_ROOT_DIRECTORY", "CACHE_ROOT_DIRECTORY", "COGNEE_LOGS_DIR"):
        assert Path(env[key]).is_relative_to(home.cognee)
    assert kg.cognee_env(Settings(graph_provider="ladybug"), home)["GRAPH_DATABASE_PROVIDER"] == "ladybug"


def test_offline_assets_place_the_real_cl100k_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in OFFLINE_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    cache = ensure_offline_assets(tmp_path / "tk")
    asset = cl100k_asset()
    target = tiktoken_cache_path(cache)
    assert target.name == hashlib.sha1(asset.url.encode()).hexdigest()
    assert hashlib.sha256(target.read_bytes()).hexdigest() == asset.sha256
    import os

    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(cache)
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TELEMETRY_DISABLED"] == "1"
    target.write_bytes(b"corrupt")  # a bad cache file is replaced
    ensure_offline_assets(tmp_path / "tk")
    assert hashlib.sha256(target.read_bytes()).hexdigest() == asset.sha256


def test_tiktoken_loads_from_cache_under_guard_and_guard_catches_download(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard is sensitive: without the cache file tiktoken tries the network."""
    from tiktoken.load import load_tiktoken_bpe

    asset = cl100k_asset()
    cache = ensure_offline_assets(tmp_path / "tk")
    with guard_network() as guard:
        ranks = load_tiktoken_bpe(asset.url, expected_hash=asset.sha256)
    assert len(ranks) > 100_000 and guard.attempts == []
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty"))
    with guard_network() as guard:
        with pytest.raises(Exception):
            load_tiktoken_bpe(asset.url, expected_hash=asset.sha256)
    assert guard.attempts, "the guard must see tiktoken's download attempt"
    assert cache.exists()


def test_api_requires_configure(monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl.graph import configure

    monkeypatch.setattr(configure, "_configured", None)
    with pytest.raises(kg.GraphConfigError):
        kg.run_sync(kg.list_datasets())


# ------------------------------------------------------------------ e2e


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, fake: FakeOllama) -> DataHome:
    home = DataHome(tmp_path_factory.mktemp("kg") / "var")
    kg.configure(Settings(ollama_host=fake.url, home=home.root), home)
    return home


@pytest.mark.e2e
def test_add_cognify_counts_and_idempotence(home: DataHome, fake: FakeOllama) -> None:
    paths = {sid: write_note(home, sid, topic, body) for sid, (topic, body) in NOTES.items()}
    fake.reset_counts()
    t0 = time.monotonic()
    alpha = kg.add_notes_sync("alpha", [paths["ses_alpha1"], paths["ses_alpha2"]], batch_size=1)
    beta = kg.add_notes_sync("beta", [paths["ses_beta1"]], batch_size=10)
    t_add = time.monotonic() - t0
    assert (alpha.batches, alpha.notes, alpha.data_count, len(alpha.data_ids)) == (2, 2, 2, 2)
    assert (beta.batches, beta.data_count) == (1, 1)
    assert alpha.dataset_id and alpha.dataset_id != beta.dataset_id

    t0 = time.monotonic()
    result = kg.cognify_sync(["alpha", "beta"], chunks_per_batch=10, data_per_batch=4)
    t_cognify = time.monotonic() - t0
    assert set(result.status) == {"alpha", "beta"}
    assert all(s == "PipelineRunCompleted" for s in result.status.values())
    print(f"\n[timing] add 3 notes: {t_add:.1f}s, cognify 2 datasets: {t_cognify:.1f}s, "
          f"model calls: {dict(fake.counts)}")

    # Cognee called only routes real Ollama serves (no /v1/api/…), with the models we set
    assert set(fake.counts) <= REAL_OLLAMA_ROUTES, fake.counts
    assert fake.counts["/api/generate"] >= 3 and fake.counts["/api/embed"] > 0
    models = {(p, m) for p, m, _ in fake.calls}
    assert ("/api/generate", "llama3.1:8b") in models and ("/api/embed", "nomic-embed-text") in models
    graph_req = [b for p, _, b in fake.calls if p == "/api/generate" and "knowledge graph" in b.get("prompt", "")]
    assert graph_req and all(b.get("format") == "json" for b in graph_req)
    assert all(b["options"]["num_ctx"] == Settings().distill_num_ctx for b in graph_req)

    assert kg.run_sync(kg.dataset_data_count("alpha")) == 2
    assert kg.run_sync(kg.dataset_data_count("beta")) == 1
    assert kg.run_sync(kg.dataset_data_count("nonexistent")) == 0
    assert {"alpha", "beta"} <= set(kg.run_sync(kg.list_datasets()))
    counts = kg.run_sync(kg.graph_counts("alpha"))
    assert counts.data_items == 2 and counts.nodes > 0 and counts.edges > 0
    assert counts.vector_rows.get("DocumentChunk_text") == 2 and counts.total_vector_rows > 2
    entity_names = counts.vector_rows.get("Entity_name", 0)
    assert entity_names >= 3  # Kuzu, memctl/store.py, Alice, LanceDB … extracted by the fake
    beta_counts = kg.run_sync(kg.graph_counts("beta"))
    assert beta_counts.data_items == 1 and beta_counts.vector_rows.get("DocumentChunk_text") == 1

    # re-adding the same notes changes nothing and costs no model call
    fake.reset_counts()
    again = kg.add_notes_sync("alpha", [paths["ses_alpha1"], paths["ses_alpha2"]], batch_size=5)
    assert again.data_count == 2 and sorted(again.data_ids) == sorted(alpha.data_ids)
    assert kg.add_notes_sync("beta", [paths["ses_beta1"]]).data_count == 1
    kg.cognify_sync(["alpha", "beta"])
    assert fake.model_calls() == 0, fake.counts
    assert kg.run_sync(kg.graph_counts("alpha")) == counts


@pytest.mark.e2e
def test_search_is_scoped_and_traces_to_the_note(home: DataHome) -> None:
    hits = kg.run_sync(kg.search("Kuzu lock in the store", ["alpha"]))
    assert hits and {h.dataset for h in hits} == {"alpha"}
    top = hits[0]
    assert top.document_name == "ses_alpha1"
    assert top.source_uri == home.note_path("ses_alpha1").as_uri()
    assert top.text.startswith("---\nsource_id: ses_alpha1")
    assert all(h.document_name != "ses_beta1" for h in hits)  # access control scopes the search
    answer = kg.run_sync(kg.search("What was fixed?", ["alpha"], kind="graph_completion"))
    assert answer and answer[0].text


@pytest.mark.e2e
def test_changed_note_is_rejected_alone_or_replaced(home: DataHome) -> None:
    path = write_note(home, "ses_alpha1", "alpha", "# Fix the Kuzu lock\n\nrewritten by a newer prompt\n")
    other = write_note(home, "ses_alpha3", "alpha", "# Third\n\nDan renamed the cache directory\n")
    result = kg.add_notes_sync("alpha", [path, other], batch_size=5)
    assert [(r.path, r.phase) for r in result.rejected] == [(str(path.resolve()), "add")]
    assert "changed content" in result.rejected[0].reason
    assert result.data_count == 3  # the other note of the batch went in
    assert kg.run_sync(kg.remove_notes("alpha", [other])) == 1
    replaced = kg.add_notes_sync("alpha", [path], replace_changed=True)
    assert (replaced.rejected, replaced.replaced, replaced.data_count) == ([], 1, 2)
    write_note(home, "ses_alpha1", "alpha", NOTES["ses_alpha1"][1])  # restore
    restored = kg.add_notes_sync("alpha", [path], replace_changed=True)
    assert (restored.replaced, restored.data_count) == (1, 2)
    kg.cognify_sync(["alpha"])


@pytest.mark.e2e
@pytest.mark.parametrize("token", ["<|im_start|>", "<|eot_id|>"])
def test_a_note_added_before_its_plain_copy_existed_keeps_one_document(home: DataHome, token: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A data home from before the plain-text conversion holds such a note as written (tiktoken's
    cl100k accepts these tokens); the next add replaces that document by the plain copy's."""
    from memctl.graph import plain_text

    dataset = "zeta-" + token.strip("<|>").replace("_", "-")
    note = write_note(home, "ses_zeta1", dataset, f"# Chat template\n\nthe template doubles {token}\n")
    monkeypatch.setattr(plain_text, "plain", lambda text: text)
    assert kg.add_notes_sync(dataset, [note]).data_count == 1
    kg.cognify_sync([dataset])
    monkeypatch.undo()
    again = kg.add_notes_sync(dataset, [note])
    assert (again.replaced, again.data_count, again.rejected) == (1, 1, [])
    kg.cognify_sync([dataset])
    hits = kg.run_sync(kg.search("chat template", [dataset]))
    assert [h.document_name for h in hits] == ["ses_zeta1"] and token in hits[0].text
    assert hits[0].source_uri == note.resolve().as_uri()
    assert kg.run_sync(kg.remove_notes(dataset, [note])) == 1 and kg.run_sync(kg.dataset_data_count(dataset)) == 0


@pytest.mark.e2e
def test_add_argument_errors(home: DataHome) -> None:
    with pytest.raises(FileNotFoundError):
        kg.add_notes_sync("alpha", [home.note_path("missing")])
    with pytest.raises(kg.InvalidDatasetName):
        kg.add_notes_sync("bad.name", [])
    with pytest.raises(kg.GraphConfigError):
        kg.add_notes_sync("alpha", [], batch_size=0)
    empty = kg.add_notes_sync("alpha", [])
    assert (empty.batches, empty.data_count) == (0, 2)


@pytest.mark.e2e
def test_failing_embeddings_make_add_raise_the_batch_error(home: DataHome, fake: FakeOllama,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ollama answering 500 on /api/embed during add's embedding probe.

    Cognee probes the embedding endpoint once per process (first add); the
    flag is reset so this add is such a first add. Cognee retries a 500 until
    its 30 s connection-test timeout, so this test takes ~30 s.
    """
    from cognee.modules.pipelines.layers import setup_and_check_environment as probe

    monkeypatch.setattr(probe, "_embeddings_checked", False)
    note = write_note(home, "ses_gamma1", "gamma", "# Gamma\n\nnew note\n")
    fake.fail_next(10_000, status=500, routes=["/api/embed"])
    try:
        with pytest.raises(kg.AddBatchError) as err:
            kg.add_notes_sync("gamma", [note])
    finally:
        fake.clear_faults()
    msg = str(err.value)
    assert "batch 1/1" in msg and "'gamma'" in msg and "ses_gamma1.md" in msg
    assert "Embedding connection test timed out" in msg
    assert (err.value.dataset, err.value.batch_index, err.value.batch_count) == ("gamma", 1, 1)

    # a malformed body is terminal for Cognee: the error is immediate
    monkeypatch.setattr(probe, "_embeddings_checked", False)
    fake.malformed_next(10_000, routes=["/api/embed"])
    try:
        t0 = time.monotonic()
        with pytest.raises(kg.AddBatchError, match="EmbeddingException"):
            kg.add_notes_sync("gamma", [note])
        assert time.monotonic() - t0 < 20
    finally:
        fake.clear_faults()


OFFLINE_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, {root!r})
    from tests.conftest import guard_network
    with guard_network() as guard:
        t0 = time.monotonic()
        from pathlib import Path
        from memctl.config import DataHome, Settings
        from memctl.graph import knowledge_graph as kg
        from memctl.graph.offline import tiktoken_cache_path
        home = DataHome(Path({home!r}))
        kg.configure(Settings(ollama_host={url!r}), home)
        t_import = time.monotonic() - t0
        cache_file = tiktoken_cache_path(home.cognee / "tiktoken")
        import tiktoken
        enc = tiktoken.get_encoding("cl100k_base")   # fresh process: reads the cache file
        note = home.note_path("ses_delta1")
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("---\\nsource_id: ses_delta1\\n---\\n# Offline run\\n\\nCarol checked memctl/offline.py\\n")
        t1 = time.monotonic()
        added = kg.add_notes_sync("delta", [note])
        kg.cognify_sync(["delta"])
        t_run = time.monotonic() - t1
        hits = kg.run_sync(kg.search("offline", ["delta"]))
    print("RESULT " + json.dumps({{
        "attempts": [repr(a) for a in guard.attempts],
        "cache_file_exists": cache_file.is_file(),
        "tokens": len(enc.encode("hello world")),
        "data_count": added.data_count,
        "hits": [h.document_name for h in hits],
        "t_import_configure": t_import, "t_add_cognify": t_run,
    }}))
    """
)


@pytest.mark.e2e
def test_offline_guard_fresh_process(home: DataHome, fake: FakeOllama, tmp_path: Path) -> None:
    """A fresh interpreter with the socket guard installed before any import:
    configure + add + cognify + search make no non-loopback attempt, and
    tiktoken's cl100k_base comes from the cache file memctl placed."""
    other = DataHome(tmp_path / "var")
    script = OFFLINE_SCRIPT.format(root=str(ROOT), home=str(other.root), url=fake.url)
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert proc.returncode == 0 and line, proc.stderr[-4000:]
    result = json.loads(line[len("RESULT "):])
    print(f"\n[timing] fresh process: import+configure {result['t_import_configure']:.1f}s, "
          f"add+cognify 1 note {result['t_add_cognify']:.1f}s")
    assert result["attempts"] == []
    assert result["cache_file_exists"] and result["tokens"] == 2
    assert result["data_count"] == 1 and result["hits"] == ["ses_delta1"]
    # stdout carried only our line: Cognee's stray prints went to stderr
    assert proc.stdout.strip() == line


@pytest.mark.e2e
def test_reconfigure_to_another_home_keeps_stores_apart(home: DataHome, fake: FakeOllama, tmp_path: Path) -> None:
    settings = Settings(ollama_host=fake.url)
    other = DataHome(tmp_path / "var2")
    note = write_note(other, "ses_eps1", "alpha", "# Epsilon\n\nanother home\n")
    before = kg.run_sync(kg.dataset_data_count("alpha"))
    try:
        kg.configure(settings, other)
        assert kg.run_sync(kg.list_datasets()) == []  # fresh home: no store yet, no error
        assert kg.run_sync(kg.dataset_data_count("alpha")) == 0
        assert kg.run_sync(kg.graph_counts("alpha")).nodes == 0
        assert kg.add_notes_sync("alpha", [note]).data_count == 1
        assert (other.cognee / "system" / "databases").is_dir()
    finally:
        kg.configure(Settings(ollama_host=fake.url, home=home.root), home)
    assert kg.run_sync(kg.dataset_data_count("alpha")) == before
