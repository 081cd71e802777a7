"""The bearer token of ``memctl serve --http``: made per start, kept in the data home, checked on every request.

The streamable HTTP endpoint listens on 127.0.0.1 only, but any local
process (and a web page, through DNS rebinding) can reach a loopback port, so
every request must carry ``Authorization: Bearer <token>`` (RFC 6750 §2.1).
The token is 32 random bytes (``secrets.token_urlsafe``), written atomically
to ``<home>/serve.token`` with mode 0600 (readable by this user only) before
the port opens; a client (OpenCode's ``headers``, ``curl -H``) reads it from
there. Anything else is answered ``401`` with ``WWW-Authenticate: Bearer``.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any, Awaitable, Callable

from memctl.atomic import atomic_write_text
from memctl.config import DataHome

TOKEN_NAME = "serve.token"
TOKEN_BYTES = 32

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def token_path(home: DataHome) -> Path:
    """``<home>/serve.token``."""
    return home.root / TOKEN_NAME


def write_token(home: DataHome) -> str:
    """A new random token, written to :func:`token_path` atomically with mode 0600; returns it.

    Raises:
        OSError: the data home is not writable.
    """
    token = secrets.token_urlsafe(TOKEN_BYTES)
    atomic_write_text(token_path(home), token + "\n", mode=0o600)
    return token


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            return credentials.strip() if scheme.lower() == "bearer" else None
    return None


class BearerTokenGate:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401 (constant-time compare).

    Args:
        app: the wrapped ASGI app (the MCP streamable HTTP app).
        token: the expected token.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":  # lifespan events carry no request
            await self.app(scope, receive, send)
            return
        given = _bearer(scope)
        if given is not None and secrets.compare_digest(given.encode("utf-8"), self.token):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "missing or wrong bearer token: send 'Authorization: Bearer <token>' with "
                                    f"the token from the data home's {TOKEN_NAME}"}).encode("utf-8")
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="memctl"'),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
