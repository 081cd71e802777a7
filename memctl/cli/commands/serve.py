"""``memctl serve``: memory for the coding agent itself, as an MCP server (stdio, or HTTP on 127.0.0.1).

Thin: protect stdout (stdio), read settings, start the warm state, the ``ask``
relay socket and the transport (:mod:`memctl.serve`). Runs until the client
closes stdin (stdio; exit 0) or the process is stopped: Ctrl-C exits 130, SIGTERM 143, after one
``memctl serve: stopped`` line.
"""

from __future__ import annotations

import os
import signal
import socket
from typing import Annotated

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, app, settings_from_flags
from memctl.exit_codes import INTERRUPTED, OK, Terminated, UsageError

DEFAULT_PORT = 8848


def _port_free(port: int) -> bool:
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _interrupt(signum: int, frame: object) -> None:
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


@app.command()
def serve(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 (endpoint /mcp) instead of "
                                       "stdio; every request needs the bearer token written to <home>/serve.token.")] = False,
    port: Annotated[int, typer.Option("--port", metavar="N", min=0, max=65535,
                                      help="Port for --http (0: any free port, printed on stderr).")] = DEFAULT_PORT,
    release_after: Annotated[float, typer.Option(
        "--release-after", metavar="SECONDS", min=0,
        help="Close the graph store after this long unused, so other readers get in (0: after every call). "
             "Ingest and sleep never wait: the store is closed the moment they start.")] = 60.0,
    home: HomeOption = None,
) -> None:
    """Serve memory to coding agents over MCP (tools memory_search, memory_ask, memory_remember, memory_topics)."""
    from memctl.serve.transport import protect_stdout

    protocol_fd = None if http else protect_stdout()  # first: nothing may reach the client's stream
    settings = settings_from_flags(home)
    if http and port and not _port_free(port):
        raise UsageError(f"port {port} on 127.0.0.1 is taken; pass --port N (or --port 0 for any free port)")
    import anyio

    from memctl.serve.relay import RelayServer
    from memctl.serve.server import build_server
    from memctl.serve.warm import WarmMemory

    warm = WarmMemory(settings, release_after_s=release_after)
    warm.home.refuse_file()
    relay = RelayServer(warm)
    if http:
        warm.home.root.mkdir(parents=True, exist_ok=True)  # the token lives there
    if warm.home.root.is_dir():
        relay.start()
    else:
        relay.status = f"off ({warm.home.root} does not exist yet)"
    relay_note = relay.status
    warm.start()
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    try:
        if http:
            from memctl.serve.http_auth import token_path, write_token
            from memctl.serve.transport import HTTP_PATH, run_http

            token = write_token(warm.home)
            server = build_server(warm, host="127.0.0.1", port=port, log_level="WARNING")

            def ready(bound: int) -> None:
                terminal.write_err(f"memctl serve: MCP on http://127.0.0.1:{bound}{HTTP_PATH} for {warm.home.root} "
                                   f"(bearer token in {token_path(warm.home)}); ask relay: {relay_note}\n")

            anyio.run(run_http, server, port, token, ready)
        else:
            from memctl.serve.transport import run_stdio

            terminal.write_err(f"memctl serve: MCP on stdio for {warm.home.root}; ask relay: {relay_note}\n")
            anyio.run(run_stdio, build_server(warm, log_level="WARNING"), protocol_fd)
    except KeyboardInterrupt as exc:
        # SIGTERM/SIGINT: a thread may sit in a blocking read of stdin, which no cancellation ends and
        # interpreter shutdown would wait for; close everything we hold, then leave at once with the
        # signal's exit code (130 Ctrl-C, 143 SIGTERM) and one line.
        _shut_down(relay, warm)
        terminal.write_err("memctl serve: stopped\n")
        os._exit(exc.exit_code if isinstance(exc, Terminated) else INTERRUPTED)
    _shut_down(relay, warm)


def _leave(signum: int, frame: object) -> None:
    import multiprocessing

    # Cognee's store workers are this process's children; one left running (or still starting) would
    # hold Kuzu's file lock after we are gone and keep the next ingest out.
    for child in multiprocessing.active_children():
        child.kill()
    os._exit(OK)


def _shut_down(relay, warm) -> None:  # noqa: ANN001 - RelayServer, WarmMemory (imported lazily)
    """Remove the relay socket, close Cognee's store handles and its worker processes.

    A client that closed stdin sends SIGTERM a moment later (the MCP SDK waits 2 s): from here on that
    ends the process at once instead of interrupting the shutdown half-way with a traceback.
    """
    signal.signal(signal.SIGTERM, _leave)
    signal.signal(signal.SIGINT, _leave)
    relay.stop()
    warm.stop()
    from memctl.graph.configure import close, is_configured

    if is_configured():
        close()
