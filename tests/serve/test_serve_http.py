"""`memctl serve --http`: 127.0.0.1 only, a fresh 0600 bearer token in the data home, 401 without it, MCP with it;
domain errors arrive as MCP tool errors with memctl's exit code."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import psutil
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memctl.exit_codes import NOTHING_INGESTED
from tests.support.memctl_process import REPO

# Not `serial`: the server binds port 0 (the OS picks a free one, read from its first line), so no other worker can
# take the port between a probe and the bind; a taken port is one the test itself holds.

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory):
    """One ``memctl serve --http --port 0`` for the module (the tests only send requests and read its files): a
    server start per test cost 10 s a test at load 15. Yields ``{"proc", "home", "url", "port"}``."""
    home = tmp_path_factory.mktemp("serve-http") / "var"
    proc = subprocess.Popen([sys.executable, "-m", "memctl.cli", "serve", "--http", "--port", "0",
                             "--home", str(home)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        assert found and found.group(1) != "0", line + proc.stderr.read()
        port = int(found.group(1))
        yield {"proc": proc, "home": home, "url": f"http://127.0.0.1:{port}/mcp", "port": port}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.stdout.read() == ""  # nothing on stdout in HTTP mode either


def test_token_file_and_loopback_only(http_server) -> None:
    token_file = http_server["home"] / "serve.token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert len(token_file.read_text().strip()) >= 40
    listening = [c.laddr for c in psutil.Process(http_server["proc"].pid).net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening), listening
    assert {addr.port for addr in listening} == {http_server["port"]}


@pytest.mark.parametrize("authorization", [None, "", "Bearer", "Bearer wrong-token", "Basic dXNlcjpwYXNz", "token {t}",
                                           "Bearer {t}x", "Bearer x{t}"])
def test_requests_without_the_token_get_401(http_server, authorization: str | None) -> None:
    token = (http_server["home"] / "serve.token").read_text().strip()
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization.format(t=token)
    for method in ("POST", "GET", "DELETE"):
        response = httpx.request(method, http_server["url"], headers=headers,
                                 json=INITIALIZE if method == "POST" else None, timeout=10)
        assert response.status_code == 401, (method, response.text)
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert token not in response.text


def test_with_the_token_mcp_works_and_errors_carry_exit_codes(http_server) -> None:
    token = (http_server["home"] / "serve.token").read_text().strip()
    raw = httpx.post(http_server["url"], headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"}, json=INITIALIZE,
                     timeout=10)
    assert raw.status_code == 200, raw.text

    async def scenario() -> None:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client, \
                streamable_http_client(http_server["url"], http_client=client) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert names == {"memory_search", "memory_ask", "memory_remember", "memory_topics"}
            for tool, arguments in (("memory_topics", {}), ("memory_search", {"query": "kuzu lock"})):
                result = await session.call_tool(tool, arguments)
                assert result.isError and f"exit code {NOTHING_INGESTED}" in result.content[0].text
                assert "memctl ingest" in result.content[0].text

    anyio.run(scenario)


def test_a_taken_port_is_a_usage_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "memctl.cli", "serve", "--http", "--port", str(port), "--home",
                               str(tmp_path / "var")], capture_output=True, text=True, timeout=120, cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 2 and f"port {port}" in proc.stderr and proc.stdout == ""
