"""Shared pytest fixtures: the environment isolation, the fake Ollama server, the fake chat client
and the offline guard.

``isolated_environment`` (autouse)
    Every test runs as if on a machine without memctl set up: no ``MEMCTL_*``
    variable, no ``OPENCODE_DB`` or ``AI_MEMORY_STORE_DEBUG``; ``MEMCTL_HOME``,
    ``XDG_CONFIG_HOME`` and ``XDG_DATA_HOME`` point into the test's own temp
    directory (so the user's config file and OpenCode history are never read,
    a forgotten ``--home`` never writes into the repository, and a test that
    drops ``MEMCTL_HOME`` gets the per-user default home, ``$XDG_DATA_HOME/memctl``,
    inside that directory too, never the real user's), and
    ``OLLAMA_HOST`` at a closed local port (127.0.0.1:9), so only a test that
    starts a fake server reaches a model. It changes ``os.environ``, so child
    processes inherit it. Yields the temp directory.

``fake_chat``
    An in-process :class:`tests.fakes.chat_client.FakeChatClient` that every
    model call of memctl uses for this test (unit tests of distill, ask and
    sleep); the wire-level ``fake_ollama`` stays for end-to-end tests.

``fake_ollama``
    A started :class:`tests.fakes.ollama_server.FakeOllama` on 127.0.0.1 with
    default knobs; stopped after the test. Read ``fake_ollama.url``.

``no_external_network``
    Patches ``socket.socket.connect``/``connect_ex``, ``socket.create_connection``
    and ``socket.getaddrinfo`` (also ``asyncio`` loops' resolver, which calls
    ``socket.getaddrinfo``) so any attempt to reach an address other than
    loopback (127.0.0.0/8, ::1, ``localhost``) or a Unix socket is recorded
    and refused with ``OSError``. Yields the :class:`NetworkGuard`; at
    teardown the test fails if any attempt was recorded, even if the code
    under test swallowed the error. Only this process is guarded (not child
    processes).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.chat_client import FakeChatClient  # noqa: E402
from tests.fakes.ollama_server import FakeOllama  # noqa: E402

# The lanes: `serial` tests and tests sharing a module-scoped fixture get an xdist group (pytest -n 2 --dist loadgroup).
pytest_plugins = ["tests.support.lanes"]

# The signal tests send Ctrl-C to memctl processes. A suite started as a background job of a non-interactive
# shell (`cmd &`, nohup, some CI runners) inherits SIGINT ignored, an ignored signal stays ignored across exec,
# and every memctl the tests start would ignore Ctrl-C. Handling it here gives the children the default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

CLOSED_PORT_HOST = "127.0.0.1:9"  # the discard port: nothing listens, a connection is refused at once
_CLEARED = ("OPENCODE_DB", "AI_MEMORY_STORE_DEBUG")


# The MEMCTL_* variables the suite started with (isolated_environment removes them for each test).
_SESSION_MEMCTL = {name: value for name, value in os.environ.items() if name.startswith("MEMCTL_")}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After every test's teardown, ``MEMCTL_*`` is as the session started. A variable set in this process
    outside monkeypatch (code a test ran in-process: a bench's ``main()`` set MEMCTL_EMBEDDING_DIMENSIONS)
    survived, because isolated_environment's monkeypatch restores what it found; and the next module-scoped
    fixture, set up before any function-scoped one, gave it to its memctl children (CI: 28 e2e errors)."""
    yield
    for name in [n for n in os.environ if n.startswith("MEMCTL_")]:
        if name not in _SESSION_MEMCTL:
            del os.environ[name]
    os.environ.update(_SESSION_MEMCTL)


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Isolate the test (and its child processes) from the user's memctl, Ollama and OpenCode setup."""
    root = tmp_path_factory.mktemp("env")
    for name in [n for n in os.environ if n.startswith("MEMCTL_")] + list(_CLEARED):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMCTL_HOME", str(root / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root / "claude"))  # never the user's ~/.claude (not created)
    monkeypatch.setenv("CODEX_HOME", str(root / "codex"))  # never the user's ~/.codex (not created)
    monkeypatch.setenv("OLLAMA_HOST", CLOSED_PORT_HOST)
    from memctl.catalog import topic_profiles

    topic_profiles._questions.clear()  # question vectors kept by an earlier test's process state
    yield root


@pytest.fixture
def fake_chat(monkeypatch: pytest.MonkeyPatch) -> FakeChatClient:
    """Every Ollama client memctl builds during the test is this in-process fake (see its docstring)."""
    fake = FakeChatClient()
    monkeypatch.setattr("memctl.ollama_client._make_client", lambda host, timeout_s: fake.bind(host, timeout_s))
    return fake


def _is_loopback_host(host: Any) -> bool:
    if host is None:
        return True  # getaddrinfo(None, port) = local wildcard
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).strip("[]")
    if host.lower() in ("localhost", "localhost.localdomain", "ip6-localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Records (and refuses) every non-loopback connection or DNS attempt.

    Attributes:
        attempts: list of ``(kind, address)`` where kind is ``connect``,
            ``create_connection`` or ``getaddrinfo``.
    """

    def __init__(self) -> None:
        self.attempts: list[tuple[str, Any]] = []

    def check(self, kind: str, address: Any, family: int | None = None) -> None:
        """Raise ``OSError`` (and record) if ``address`` is not loopback."""
        if family is not None and family == getattr(socket, "AF_UNIX", object()):
            return
        if isinstance(address, (str, bytes)) and family is None and kind == "connect":
            return  # AF_UNIX path
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback_host(host):
            self.attempts.append((kind, address))
            raise OSError(101, f"network access blocked by test guard: {kind} {address!r}")


@contextlib.contextmanager
def guard_network() -> Iterator[NetworkGuard]:
    """Context manager form of the guard (no assertion): yields the guard.

    Usable outside pytest fixtures, e.g. at the top of a subprocess script
    (``from tests.conftest import guard_network``).
    """
    guard = NetworkGuard()
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create = socket.create_connection
    real_gai = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        guard.check("connect", address, self.family)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        guard.check("connect", address, self.family)
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        guard.check("create_connection", address)
        return real_create(address, *args, **kwargs)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        guard.check("getaddrinfo", host)
        return real_gai(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.create_connection = create_connection  # type: ignore[assignment]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield guard
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.create_connection = real_create  # type: ignore[assignment]
        socket.getaddrinfo = real_gai  # type: ignore[assignment]


@pytest.fixture
def no_external_network() -> Iterator[NetworkGuard]:
    """Refuse and record any non-loopback network attempt; fail if any happened."""
    with guard_network() as guard:
        yield guard
    assert guard.attempts == [], f"external network attempts: {guard.attempts}"


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A started fake Ollama server on 127.0.0.1 (random port)."""
    with FakeOllama() as server:
        yield server
