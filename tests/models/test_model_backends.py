"""Model backends: the OpenAI-compatible provider (against the wire-level fake server's /v1 routes), Cognee's
settings for it, doctor's checks, and the embedded endpoint's lifecycle (no port left open)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from memctl.config import DataHome, Settings
from memctl.doctor import check_ollama
from memctl.embedded.models import EMBED_DIMENSIONS, EMBED_MODEL, MAX_ARRAY_ITEMS, MAX_STRING_CHARS, bounded_schema
from memctl.embedded.server import schema_from_prompt
from memctl.graph.environment import cognee_env
from memctl.ollama_client import ModelError, chat_once, check_model, client_for, embed, pulled_models
from memctl.openai_compat import OpenAICompatClient
from tests.fakes.ollama_server import FakeOllama

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_DB = ROOT / "tests" / "fixtures" / "opencode-1.18" / "opencode.db"


def _openai_settings(server: FakeOllama, tmp_path: Path, **extra: object) -> Settings:
    return Settings(home=tmp_path / "home", model_provider="openai", model_base_url=server.url + "/v1",
                    distill_model="m1", graph_model="m1", embedding_model="emb-embed", embedding_dimensions=256,
                    **extra)


@pytest.fixture
def openai_server():
    with FakeOllama(models=["m1:latest", "emb-embed:latest"], embedding_dim=256) as server:
        yield server


def test_provider_switch_uses_the_v1_routes(openai_server: FakeOllama, tmp_path: Path) -> None:
    settings = _openai_settings(openai_server, tmp_path)
    client = client_for(settings, 10)
    assert isinstance(client, OpenAICompatClient)
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["answer", "n"]}
    reply = json.loads(chat_once(client, settings, model="m1", messages=[{"role": "user", "content": "count the files"}],
                                 timeout_s=10, schema=schema))
    assert isinstance(reply["answer"], str) and isinstance(reply["n"], int)
    vectors = embed(client, settings, "emb-embed", ["a", "b", "c"], 10)
    assert [len(v) for v in vectors] == [256, 256, 256]
    assert "m1:latest" in pulled_models(client, settings, 10)
    check_model(client, settings, "m1", 10)  # a bare name matches <name>:latest
    paths = set(openai_server.counts)
    assert {"/v1/chat/completions", "/v1/embeddings", "/v1/models"} <= paths
    assert not any(p.startswith("/api/") for p in paths), paths


def test_openai_errors_name_the_server_not_ollama(openai_server: FakeOllama, tmp_path: Path) -> None:
    settings = _openai_settings(openai_server, tmp_path)
    client = client_for(settings, 10)
    with pytest.raises(ModelError) as missing:
        check_model(client, settings, "not-loaded", 10)
    assert missing.value.kind == "missing_model" and "ollama pull" not in str(missing.value)
    unreachable = _openai_settings(openai_server, tmp_path).model_copy(update={"model_base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(ModelError) as down:
        pulled_models(client_for(unreachable, 5), unreachable, 5)
    assert down.value.kind == "unreachable" and "MEMCTL_MODEL_BASE_URL" in str(down.value)


def test_api_key_comes_from_the_named_variable(openai_server: FakeOllama, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVER_KEY", "sk-local-123")
    settings = _openai_settings(openai_server, tmp_path, model_api_key_env="MY_SERVER_KEY")
    assert settings.model_api_key == "sk-local-123"
    client = client_for(settings, 10)
    assert client._http.headers["Authorization"] == "Bearer sk-local-123"
    env = cognee_env(settings, DataHome(settings.home))
    assert env["LLM_API_KEY"] == "sk-local-123" and env["EMBEDDING_API_KEY"] == "sk-local-123"


def test_cognee_gets_the_same_provider(openai_server: FakeOllama, tmp_path: Path) -> None:
    settings = _openai_settings(openai_server, tmp_path)
    env = cognee_env(settings, DataHome(settings.home))
    base = openai_server.url + "/v1"
    assert (env["LLM_PROVIDER"], env["LLM_MODEL"], env["LLM_ENDPOINT"]) == ("custom", "openai/m1", base)
    assert (env["EMBEDDING_PROVIDER"], env["EMBEDDING_ENDPOINT"]) == ("openai_compatible", base)
    assert "OLLAMA_API_BASE" not in env
    ollama_env = cognee_env(Settings(home=tmp_path / "home"), DataHome(tmp_path / "home"))
    assert ollama_env["LLM_PROVIDER"] == "ollama" and ollama_env["EMBEDDING_ENDPOINT"].endswith("/api/embed")


def test_doctor_checks_the_models_on_an_openai_server(openai_server: FakeOllama, tmp_path: Path) -> None:
    checks = {c.name: c for c in check_ollama(_openai_settings(openai_server, tmp_path))}
    assert checks["model backend"].detail.startswith("OpenAI-compatible server at ")
    assert checks["model server"].status == "ok"
    assert checks["embedding dimension"].status == "ok" and checks["embedding dimension"].detail == "256"
    wrong = {c.name: c for c in check_ollama(_openai_settings(openai_server, tmp_path).model_copy(
        update={"graph_model": "absent-model", "embedding_dimensions": 768}))}
    assert wrong["graph model"].status == "fail" and "/v1/models" in wrong["graph model"].fix
    assert wrong["embedding dimension"].status == "fail" and "256" in wrong["embedding dimension"].detail


def test_bad_provider_value_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "MEMCTL_MODEL_PROVIDER": "anthropic", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "memctl.cli.main", "doctor", "--home", str(tmp_path / "h")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "model_provider" in done.stderr and "Traceback" not in done.stderr


def test_schema_in_prompt_becomes_the_grammar_schema() -> None:
    schema = {"type": "object", "properties": {"nodes": {"type": "array", "items": {"type": "string"}}}}
    prompt = ("Extract a graph.\n\nYou MUST respond with valid JSON conforming to this schema:\n```json\n"
              + json.dumps(schema, indent=2) + "\n```\nDo not include any text outside the JSON object.")
    found, messages = schema_from_prompt([{"role": "system", "content": prompt}, {"role": "user", "content": "x"}])
    assert found == schema
    assert "MUST respond" not in messages[0]["content"] and messages[0]["content"].startswith("Extract a graph.")
    assert schema_from_prompt([{"role": "user", "content": "plain"}])[0] is None


def test_bounded_schema_caps_arrays_and_free_strings() -> None:
    schema = {"type": "object", "$defs": {"Node": {"type": "object", "properties": {
        "id": {"type": "string"}, "kind": {"type": "string", "enum": ["a", "b"]}}}},
        "properties": {"nodes": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                       "tags": {"type": "array", "items": {"type": "string"}, "minItems": 8}}}
    bounded = bounded_schema(schema)
    assert bounded["properties"]["nodes"]["maxItems"] == MAX_ARRAY_ITEMS == 4
    assert bounded["properties"]["tags"]["maxItems"] == 8  # never below minItems
    assert bounded["$defs"]["Node"]["properties"]["id"]["maxLength"] == MAX_STRING_CHARS == 100
    assert "maxLength" not in bounded["$defs"]["Node"]["properties"]["kind"]
    assert "maxItems" not in schema["properties"]["nodes"]  # the original is untouched


def _refused(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_endpoint_lifecycle_in_process(tmp_path: Path) -> None:
    pytest.importorskip("wordllama")
    from memctl.embedded import endpoint

    settings = endpoint.attach(Settings(home=tmp_path / "home", model_backend="embedded"))
    try:
        server = endpoint.current()
        assert server is not None and settings.model_endpoint == server.base_url
        assert settings.model_provider == "openai" and settings.embedding_dimensions == EMBED_DIMENSIONS
        models = httpx.get(server.base_url + "/models", timeout=10).json()
        assert EMBED_MODEL in [m["id"] for m in models["data"]]
        vectors = embed(client_for(settings, 30), settings, EMBED_MODEL, ["calc.py add fix", "weather"], 30)
        assert len(vectors) == 2 and all(len(v) == EMBED_DIMENSIONS for v in vectors)
        assert vectors[0] != vectors[1]
        assert (tmp_path / "home" / "cache" / "embedded" / "tokenizers" / "l2_supercat_tokenizer_config.json").is_file()
        port = server.port
        assert not _refused(port)
    finally:
        endpoint.detach()
    assert endpoint.current() is None
    assert _refused(port)


def test_no_port_left_open_after_a_command(tmp_path: Path) -> None:
    """doctor on the embedded backend names its endpoint; once the process exits nothing listens there."""
    pytest.importorskip("wordllama")
    env = {**os.environ, "MEMCTL_MODEL_BACKEND": "embedded", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "memctl.cli.main", "doctor", "--json", "--home", str(tmp_path / "h"),
                           "--db", str(FIXTURE_DB)], env=env, capture_output=True, text=True, timeout=300)
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    backend = checks["model backend"]["detail"]
    assert backend.startswith("embedded: SmolLM2-135M-Instruct")
    assert checks["embedding dimension"]["detail"] == "256", checks
    port = int(re.search(r"http://127\.0\.0\.1:(\d+)/v1", backend).group(1))
    assert _refused(port)
