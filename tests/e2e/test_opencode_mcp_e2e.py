"""`memctl serve` with the REAL OpenCode 1.18.34 binary: configured by `memctl mcp install --opencode`, OpenCode calls
memctl's `memory_search` over MCP (the fake model asks for it) and stores the completed tool part, with memctl's
excerpt, in its own SQLite database (scenario: tests/support/opencode_mcp_e2e.py).

Skipped when OpenCode is not installed in ~/.cache/memctl (or $MEMCTL_OPENCODE_CACHE): nothing is downloaded
here. Install it and run the scenario with `.venv/bin/python -m tests.support.opencode_mcp_e2e`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures import make_opencode_fixture as F
from tests.support import opencode_mcp_e2e as E

BINARY = F.opencode_binary(E.installed_cache())
FIXTURE_SESSIONS = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18" / "sessions.json").read_text())

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not BINARY.exists(), reason=(
        f"OpenCode {F.OPENCODE_VERSION} is not installed at {BINARY} (tests download nothing); install it and run "
        "this scenario with `.venv/bin/python -m tests.support.opencode_mcp_e2e`")),
]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return E.run(tmp_path_factory.mktemp("opencode-mcp") / "work", BINARY, offline=True)


def _search_parts(outcome: dict) -> list[dict]:
    return [p for p in outcome["parts"] if p.get("type") == "tool" and p.get("tool") == E.SEARCH_TOOL]


def test_mcp_install_wrote_the_shape_opencode_1_18_reads(outcome) -> None:
    assert outcome["opencode_version"] == F.OPENCODE_VERSION
    entry = outcome["config"]["mcp"]["memctl"]  # 1.x: directly under mcp, with enabled
    assert entry["type"] == "local" and entry["enabled"] is True and "servers" not in outcome["config"]["mcp"]
    assert entry["command"][-1] == "serve"
    # the server runs with the settings memctl ran with at install: the data home and the model host it was given
    assert set(entry["environment"]) == {"MEMCTL_HOME", "OLLAMA_HOST"}, entry["environment"]
    assert entry["environment"]["MEMCTL_HOME"] == outcome["data_home"]
    assert entry["environment"]["OLLAMA_HOST"].startswith("http://127.0.0.1:")


def test_completed_memory_search_part_with_memctl_excerpt_is_in_opencodes_db(outcome) -> None:
    found = _search_parts(outcome)
    assert len(found) == 1, [(p.get("type"), p.get("tool")) for p in outcome["parts"]]
    part = found[0]
    assert part["session_id"] == outcome["session_id"]
    assert part["state"]["status"] == "completed", part["state"]
    assert part["state"]["input"] == {"query": E.QUERY, "top_k": 3}
    result = json.loads(part["state"]["output"])
    assert result["retrieval_method"] != "notes", result["fallback_reason"]
    first = result["results"][0]
    assert first["title"] == E.EXPECTED_TITLE and first["topic"] == "alpha"
    assert first["session_id"] == FIXTURE_SESSIONS["sessions"]["tools_fix_add"]["session_id"]
    assert first["path"] == f"memory/alpha/{first['session_id']}.md"
    assert first["excerpt"].startswith(f"# {E.EXPECTED_TITLE}")
    assert len(result["results"]) == 3


def test_the_model_got_memctls_result_back_and_finished(outcome) -> None:
    texts = [p["text"] for p in outcome["parts"]
             if p.get("type") == "text" and p["session_id"] == outcome["session_id"]]
    # the closing text names the first title found in the tool message OpenCode sent back to the model
    assert E.FINAL_PREFIX + E.EXPECTED_TITLE in texts, texts
