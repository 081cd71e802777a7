"""Cognee runs with memctl's settings only: a user's ``.env`` (in the working directory, a parent,
a grandparent, or named by ``COGNEE_ENV_FILE``) and stray Cognee variables in the shell change nothing.

The placements run in fresh interpreters that really ``import cognee`` (its ``.env`` loading happens
once, at import) and report what Cognee's own configuration objects hold. The end-to-end proof with
a real ingest and ask is in tests/e2e/test_graph_isolation_e2e.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import dotenv
import pytest

from memctl.config import DataHome, Settings
from memctl.graph.environment import cognee_env, env_file_text, pin_environment

REPO = Path(__file__).resolve().parents[2]

# What a project's own .env may say; every value would move memctl's graph, models or scoping.
HOSTILE = {
    "ENABLE_BACKEND_ACCESS_CONTROL": "false",
    "LLM_ENDPOINT": "http://127.0.0.1:1/hostile",
    "LLM_MODEL": "openai/gpt-4o",
    "EMBEDDING_ENDPOINT": "http://127.0.0.1:1/hostile/embed",
    "VECTOR_DB_PROVIDER": "pgvector",
    "VECTOR_DB_URL": "/tmp/hostile-vectors",
    "GRAPH_DATABASE_PROVIDER": "neo4j",
    "GRAPH_DATABASE_URL": "bolt://127.0.0.1:1",
    "SYSTEM_ROOT_DIRECTORY": "/tmp/hostile-system",
    "LLM_EXTRACTION_ENDPOINT": "http://127.0.0.1:1/extract",
    "OLLAMA_API_BASE": "http://127.0.0.1:1",
    "RAISE_INCREMENTAL_LOADING_ERRORS": "true",
    "HOSTILE_ONLY_IN_DOTENV": "1",
}


@pytest.fixture
def restored_environ() -> Iterator[None]:
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.parametrize("value", [
    "plain", "with space", "it's quoted", 'double "quotes"', "back\\slash\\", "#not a comment",
    "${HOME} would expand", "/home/u/${X}/var", "$PATH too", '{"num_ctx": 16384}', "a=b=c",
    "http://127.0.0.1:18431/api/embed",
])
def test_loading_the_env_file_as_cognee_does_leaves_every_value_exact(tmp_path: Path, value: str,
                                                                      restored_environ: None) -> None:
    """Cognee loads the file with python-dotenv, override=True, after memctl set the environment."""
    path = tmp_path / "cognee.env"
    env = {"MEMCTL_PROBE_VALUE": value, "MEMCTL_PROBE_OTHER": "x"}
    path.write_text(env_file_text(env), encoding="utf-8")
    written = dotenv.dotenv_values(path)
    assert written == (env if "${" not in value else {"MEMCTL_PROBE_OTHER": "x"})
    os.environ.update(env)
    dotenv.load_dotenv(path, override=True)
    assert {k: os.environ[k] for k in env} == env


def test_setting_names_come_from_every_settings_class_without_importing_cognee() -> None:
    code = ("import sys, json\nfrom memctl.graph.environment import cognee_setting_names\n"
            "print(json.dumps([sorted(cognee_setting_names()), 'cognee' in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    names, imported = json.loads(proc.stdout)
    assert imported is False
    for name in ("VECTOR_DB_URL", "GRAPH_DATABASE_URL", "DB_PATH", "LLM_EXTRACTION_ENDPOINT", "EMBEDDING_API_KEY",
                 "HUGGINGFACE_TOKENIZER", "CHUNK_SIZE", "AWS_ENDPOINT_URL", "CACHE_BACKEND", "IMPROVE_AUTO_ENABLED",
                 "STORAGE_BACKEND", "COGNEE_ALLOWED_LOCAL_FILE_ROOTS"):
        assert name in names, name
    for own in ("OLLAMA_HOST", "MEMCTL_HOME", "PATH", "HOME", "TIKTOKEN_CACHE_DIR", "LOG_LEVEL", "HF_HUB_OFFLINE"):
        assert own not in names, own


def test_pinning_clears_stray_cognee_variables_and_writes_memctls_file_once(tmp_path: Path,
                                                                            restored_environ: None) -> None:
    os.environ.update({k: v for k, v in HOSTILE.items() if k != "HOSTILE_ONLY_IN_DOTENV"})
    os.environ.update({"DB_PATH": "/tmp/hostile-db", "COGNEE_ENV_FILE": "/tmp/hostile.env", "CHUNK_SIZE": "7"})
    settings, home = Settings(ollama_host="127.0.0.1:18431"), DataHome(tmp_path / "var")
    env = pin_environment(settings, home)
    assert env == cognee_env(settings, home)
    assert {k: os.environ[k] for k in env} == env
    assert "DB_PATH" not in os.environ and "CHUNK_SIZE" not in os.environ
    assert "VECTOR_DB_URL" not in os.environ and "GRAPH_DATABASE_URL" not in os.environ
    env_file = Path(env["COGNEE_ENV_FILE"])
    assert env_file.parent == home.cognee and dotenv.dotenv_values(env_file) == env
    stat = env_file.stat()
    pin_environment(settings, home)
    assert (env_file.stat().st_ino, env_file.stat().st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)


PROBE = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    from memctl.config import DataHome, Settings
    from memctl.graph import knowledge_graph as kg
    home = DataHome(Path(sys.argv[1]))
    kg.configure(Settings(ollama_host=sys.argv[2], home=home.root), home)
    import litellm
    from cognee.shared import env_file
    from cognee.context_global_variables import backend_access_control_enabled
    from cognee.infrastructure.databases.graph.config import get_graph_config
    from cognee.infrastructure.databases.vector.config import get_vectordb_config
    from cognee.infrastructure.databases.vector.embeddings.config import get_embedding_config
    from cognee.infrastructure.llm.config import get_llm_config
    print("RESULT " + json.dumps({
        "loaded": env_file.load_env_file(),
        "access_control": backend_access_control_enabled(),
        "graph": get_graph_config().graph_database_provider,
        "graph_url": get_graph_config().graph_database_url,
        "vector": get_vectordb_config().vector_db_provider,
        "vector_url": get_vectordb_config().vector_db_url,
        "llm": [get_llm_config().llm_provider, get_llm_config().llm_model, get_llm_config().llm_endpoint],
        "extraction": get_llm_config().llm_extraction_endpoint,
        "embed": get_embedding_config().embedding_endpoint,
        "env": {k: os.environ.get(k) for k in json.loads(sys.argv[3])},
    }))
""")


def _dotenv(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in HOSTILE.items()), encoding="utf-8")
    return path


PLACEMENTS = {
    "cwd": lambda base: (_dotenv(base / "proj" / "sub" / ".env"), {}),
    "parent": lambda base: (_dotenv(base / "proj" / ".env"), {}),
    "grandparent": lambda base: (_dotenv(base / ".env"), {}),
    "cwd and parent": lambda base: (_dotenv(base / "proj" / "sub" / ".env") and _dotenv(base / "proj" / ".env"), {}),
    "COGNEE_ENV_FILE": lambda base: (None, {"COGNEE_ENV_FILE": str(_dotenv(base / "elsewhere" / "hostile.env"))}),
    "shell variables": lambda base: (None, {k: v for k, v in HOSTILE.items() if k != "HOSTILE_ONLY_IN_DOTENV"}),
}


@pytest.mark.e2e
@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_a_hostile_dotenv_or_shell_changes_none_of_cognees_settings(tmp_path: Path, placement: str) -> None:
    cwd = tmp_path / "proj" / "sub"
    cwd.mkdir(parents=True)
    _, extra_env = PLACEMENTS[placement](tmp_path)
    home = tmp_path / "var"
    host = "http://127.0.0.1:18431"
    env = {**os.environ, "PYTHONPATH": str(REPO), **extra_env}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(home), host, json.dumps(sorted(HOSTILE))], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    got = json.loads(line[len("RESULT "):])
    pinned = cognee_env(Settings(ollama_host=host), DataHome(home))
    assert got["loaded"] == str((home / "cognee" / "cognee.env").resolve())
    assert got["access_control"] is True
    assert (got["graph"], got["graph_url"]) == ("kuzu", "")
    assert got["vector"] == "lancedb" and Path(got["vector_url"]).is_relative_to(home / "cognee")
    assert got["llm"] == ["ollama", "ollama/llama3.1:8b", host] and got["embed"] == host + "/api/embed"
    assert got["extraction"] in (None, "")
    assert got["env"] == {k: pinned.get(k) for k in HOSTILE}  # HOSTILE_ONLY_IN_DOTENV: None, litellm loaded no .env
