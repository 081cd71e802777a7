"""The MCP server's bad-argument errors are one plain line (no pydantic URL), and it reports memctl's version."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import anyio
import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from memctl.about import installed_version
from memctl.config import Settings
from memctl.serve.server import build_server
from memctl.serve.warm import WarmMemory


def _server(tmp_path: Path):  # noqa: ANN202
    return build_server(WarmMemory(Settings(home=tmp_path / "home"), release_after_s=0))


def _call(tmp_path: Path, tool: str, arguments: dict) -> tuple[bool, str]:
    async def main() -> tuple[bool, str]:
        async with create_connected_server_and_client_session(_server(tmp_path)._mcp_server) as client:
            result = await client.call_tool(tool, arguments)
            return result.isError, result.content[0].text

    return anyio.run(main)


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("memory_search", {"query": ""}, "invalid arguments to memory_search: query: is empty (memctl exit code 2 USAGE)"),
    ("memory_ask", {"question": ""}, "invalid arguments to memory_ask: question: is empty (memctl exit code 2 USAGE)"),
    ("memory_search", {"query": "x", "topics": [" "]},
     "invalid arguments to memory_search: topics.0: is empty (memctl exit code 2 USAGE)"),
    ("memory_ask", {"question": "x", "topics": ["orders", ""]},
     "invalid arguments to memory_ask: topics.1: is empty (memctl exit code 2 USAGE)"),
    ("memory_search", {"query": "x", "top_k": 99},
     "invalid arguments to memory_search: top_k: Input should be less than or equal to 50 (memctl exit code 2 USAGE)"),
])
def test_a_bad_argument_is_one_plain_line(tmp_path: Path, tool: str, arguments: dict, expected: str) -> None:
    is_error, text = _call(tmp_path, tool, arguments)
    assert is_error and text == expected
    assert "pydantic" not in text and "http" not in text


def test_a_domain_error_still_names_its_exit_code(tmp_path: Path) -> None:
    is_error, text = _call(tmp_path, "memory_search", {"query": "anything"})
    assert is_error and "nothing has been ingested" in text and "(memctl exit code 12 " in text


def test_the_server_reports_memctls_version_not_the_sdks(tmp_path: Path) -> None:
    options = _server(tmp_path)._mcp_server.create_initialization_options()
    assert options.server_name == "memctl" and options.server_version == installed_version()
    assert installed_version() not in ("unknown", "")
    assert options.server_version != version("mcp")
