"""How ``memctl serve`` talks: MCP over stdio (default) or streamable HTTP on 127.0.0.1 with a bearer token.

stdio: the protocol owns the process's standard output. Before anything else
runs, :func:`protect_stdout` moves the original stdout to a private file
descriptor for the protocol and points descriptor 1 at stderr, so nothing
else can reach the client's stream: not memctl's own lines, not a library's
``print()`` or C-level write, not Cognee's database worker processes (they
inherit descriptor 1). Python-level library output still goes to
``<home>/logs/library.log`` (:mod:`memctl.cli.log_routing`).

HTTP: the SDK's streamable HTTP app (endpoint ``/mcp``) behind
:class:`memctl.serve.http_auth.BearerTokenGate`, served by uvicorn bound to
127.0.0.1 only (no other interface is ever offered).
"""

from __future__ import annotations

import io
import os
import sys
from typing import Callable

import anyio

from memctl.serve.server import MemctlMCP

HTTP_HOST = "127.0.0.1"
HTTP_PATH = "/mcp"


def protect_stdout() -> int:
    """Reserve the current stdout for the protocol; descriptor 1 then writes to stderr. Returns the protocol's fd."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


async def run_stdio(server: MemctlMCP, protocol_fd: int) -> None:
    """Serve MCP on stdin and ``protocol_fd`` until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    reader = anyio.wrap_file(io.TextIOWrapper(os.fdopen(os.dup(0), "rb", buffering=0), encoding="utf-8",
                                              errors="replace"))
    writer = anyio.wrap_file(io.TextIOWrapper(os.fdopen(protocol_fd, "wb", buffering=0), encoding="utf-8",
                                              write_through=True))
    async with stdio_server(stdin=reader, stdout=writer) as (read_stream, write_stream):
        await server._mcp_server.run(read_stream, write_stream, server._mcp_server.create_initialization_options())


async def run_http(server: MemctlMCP, port: int, token: str, on_ready: Callable[[int], None]) -> None:
    """Serve MCP over streamable HTTP on ``127.0.0.1:port`` (``/mcp``), every request needing ``token``.

    ``on_ready(port)`` is called once the socket listens (``port`` 0 picks a free one).

    Raises:
        OSError: the port is taken.
        KeyboardInterrupt: SIGINT, or SIGTERM as the caller's handler raises it, once uvicorn has stopped.
    """
    import uvicorn

    from memctl.serve.http_auth import BearerTokenGate

    app = BearerTokenGate(server.streamable_http_app(), token)
    config = uvicorn.Config(app, host=HTTP_HOST, port=port, log_config=None, log_level="warning", lifespan="on",
                            access_log=False)
    web = uvicorn.Server(config)

    async def announce() -> None:
        while not web.started:
            if web.should_exit:
                return
            await anyio.sleep(0.05)
        on_ready(web.servers[0].sockets[0].getsockname()[1])

    stopped_by: KeyboardInterrupt | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(announce)
        try:
            await web.serve()
        except KeyboardInterrupt as exc:
            # uvicorn takes SIGINT/SIGTERM itself, shuts down gracefully, then raises the signal again
            # with the caller's handler back in place: leave the task group first, so the caller gets
            # the interrupt itself rather than a BaseExceptionGroup wrapping it.
            stopped_by = exc
        group.cancel_scope.cancel()
    if stopped_by is not None:
        raise stopped_by
