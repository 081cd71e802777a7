"""``memctl ask`` through a running ``memctl serve``: a Unix socket in the data home.

``memctl serve`` listens on ``<home>/serve.sock`` (mode 0600; the first
server of a data home owns it, a stale socket left by a killed server is
replaced). ``memctl ask`` connects, sends one request and gets back what
:func:`memctl.ask.run.ask` returns in-process — :meth:`AskResult.as_dict` —
so the CLI prints the same either way. Wire format, one JSON document per
line (UTF-8)::

    → {"version": 1, "op": "ask", "settings": {…}, "options": {…AskOptions…}, "stream": true}
    ← {"token": "piece of the answer"}            (only with "stream", any number)
    ← {"result": {…AskResult.as_dict()…}}        or  {"error": "message", "exit_code": 9}
      or {"decline": "why"}                       (the client then runs in-process)

The server declines when its settings differ from the client's (another
model, another Ollama): answering with its own would not be the same output.
The client runs in-process whenever there is no socket, the connection is
refused (a stale socket), the socket path is too long for ``AF_UNIX``, or the
server declines or breaks the protocol before any answer text was shown.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from dataclasses import asdict, fields
from pathlib import Path
from typing import Callable

from memctl.ask.api import AskError, AskOptions, AskResult, Proposal, Source
from memctl.config import DataHome, Settings
from memctl.exit_codes import MODEL, ExitCodeError
from memctl.state_file import decode_json

SOCKET_NAME = "serve.sock"
PROTOCOL_VERSION = 1
MAX_REQUEST_BYTES = 256 * 1024
CONNECT_TIMEOUT_S = 2.0

logger = logging.getLogger(__name__)


def socket_path(home: DataHome) -> Path:
    """``<home>/serve.sock``."""
    return home.root / SOCKET_NAME


def settings_fingerprint(settings: Settings) -> str:
    """The settings as canonical JSON (data home made absolute): equal strings mean the same answer."""
    data = settings.model_dump(mode="json")
    data["home"] = str(DataHome(settings.home).root)
    return json.dumps(data, sort_keys=True)


_SOURCE_FIELDS = frozenset(f.name for f in fields(Source))
_SOURCE_DERIVED = frozenset({"agent"})  # in as_dict, computed from the fields: neither a field nor a rank


def result_from_dict(data: dict) -> AskResult:
    """The :class:`AskResult` whose ``as_dict()`` is ``data``: sources, their ranks and the proposal rebuilt.

    ``as_dict`` merges each source's ranks (``graph_rank``, ``notes_rank``, ``dense_rank``, ``score``: :meth:`ContextHit.ranks`)
    into its source entry; they are split off again into ``source_ranks`` by note path.

    Raises:
        TypeError, KeyError, ValueError: ``data`` is not an ``as_dict()`` document of this memctl.
    """
    document = dict(data)
    sources, ranks = [], {}
    for entry in document.get("sources") or []:
        source = Source(**{k: v for k, v in entry.items() if k in _SOURCE_FIELDS})
        sources.append(source)
        rank = {k: v for k, v in entry.items() if k not in _SOURCE_FIELDS | _SOURCE_DERIVED}
        if rank:
            ranks[source.path] = rank
    document["sources"], document["source_ranks"] = sources, ranks
    document["proposal"] = Proposal(**document["proposal"]) if document.get("proposal") else None
    return AskResult(**document)


# -- client --------------------------------------------------------------------------------------------------


def _send(sock: socket.socket, document: dict) -> None:
    sock.sendall(json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n")


def ask_through_server(settings: Settings, options: AskOptions,
                       on_token: Callable[[str], None] | None = None) -> AskResult | None:
    """Ask the data home's running server; None when there is none to ask (then run in-process).

    Raises:
        AskError: the server's answer was an error (its message and exit code, as in-process), or the
            server went away after part of the answer was shown (9).
    """
    path = socket_path(DataHome(settings.home))
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    shown = False
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(str(path))
        except OSError:
            return None  # stale socket (server killed) or a path too long for AF_UNIX
        sock.settimeout(None)  # an answer takes as long as the model takes
        _send(sock, {"version": PROTOCOL_VERSION, "op": "ask", "settings": settings_fingerprint(settings),
                     "options": asdict(options), "stream": on_token is not None})
        with sock.makefile("r", encoding="utf-8") as replies:
            for line in replies:
                message = decode_json(line)
                if "token" in message and on_token is not None:
                    on_token(str(message["token"]))
                    shown = True
                elif "result" in message:
                    return result_from_dict(message["result"])
                elif "error" in message:
                    raise AskError(str(message["error"]), int(message.get("exit_code", MODEL)))
                elif "decline" in message:
                    return None
        if shown:
            raise AskError("the memctl server stopped in the middle of the answer; ask again", MODEL)
        return None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        if shown:
            raise AskError(f"the memctl server stopped in the middle of the answer ({exc}); ask again", MODEL) from exc
        # Answering in-process beside a warm server finds its graph store locked (notes only): leave a trace.
        logger.warning("memctl serve's answer on %s could not be used (%s: %s); answering in-process", path,
                       type(exc).__name__, exc)
        return None
    finally:
        sock.close()


# -- server --------------------------------------------------------------------------------------------------


class RelayServer:
    """Serves ``ask`` requests on the data home's socket, answering with ``warm.ask``.

    Args:
        warm: the server's :class:`memctl.serve.warm.WarmMemory`.
    """

    def __init__(self, warm) -> None:  # noqa: ANN001 - WarmMemory (imported lazily: it pulls in ask)
        self.warm = warm
        self.path = socket_path(warm.home)
        self.fingerprint = settings_fingerprint(warm.settings)
        self._sock: socket.socket | None = None
        self._inode: int | None = None
        self.status = "not started"

    def start(self) -> bool:
        """Bind the socket unless a live server owns it; True when this process now serves it."""
        if self.path.exists():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.settimeout(CONNECT_TIMEOUT_S)
                probe.connect(str(self.path))
                self.status = f"another memctl serve answers on {self.path}"
                return False
            except OSError:
                self.path.unlink(missing_ok=True)  # stale: its server is gone
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket file is created 0600: only this user may ask
        try:
            sock.bind(str(self.path))
        except OSError as exc:
            sock.close()
            self.status = f"cannot listen on {self.path}: {exc}"
            return False
        finally:
            os.umask(old_umask)
        sock.listen(16)
        self._sock, self._inode = sock, self.path.stat().st_ino
        threading.Thread(target=self._accept, name="memctl-serve-relay", daemon=True).start()
        self.status = f"listening on {self.path}"
        return True

    def stop(self) -> None:
        """Close the socket and remove its file if it is still ours."""
        if self._sock is None:
            return
        try:
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()
        except OSError:
            pass
        self._sock.close()
        self._sock = None

    def _accept(self) -> None:
        while self._sock is not None:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), name="memctl-serve-ask", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                with conn.makefile("rb") as incoming:
                    line = incoming.readline(MAX_REQUEST_BYTES + 1)
                request = decode_json(line)
                if request.get("version") != PROTOCOL_VERSION or request.get("op") != "ask":
                    _send(conn, {"decline": "unknown request"})
                    return
                if request.get("settings") != self.fingerprint:
                    _send(conn, {"decline": "the server runs with other settings"})
                    return
                options = AskOptions(**request["options"])
                on_token = (lambda piece: _send(conn, {"token": piece})) if request.get("stream") else None
                result = self.warm.ask(options, on_token=on_token)
                document = result.as_dict()
                # as_dict rounds the timings; send them whole so `--debug` prints the same digits
                document.update(route_s=result.route_s, retrieve_s=result.retrieve_s, answer_s=result.answer_s)
                reply = {"result": document}
            except ExitCodeError as exc:
                reply = {"error": str(exc), "exit_code": exc.exit_code}
            except (OSError, ValueError, TypeError, KeyError):
                return  # the client went away or sent garbage: nothing to answer
            try:
                _send(conn, reply)
            except OSError:
                pass
