"""`memctl ask` through a running `memctl serve` (the Unix socket in the data home): the same result as
in-process, errors with their exit codes, and the in-process path whenever there is no server to ask."""

from __future__ import annotations

import json
import socket
from dataclasses import fields, replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.ask.proposals import Proposal
from memctl.ask.retrieval import Source
from memctl.ask.run import AskError, AskOptions, AskResult
from memctl.cli.main import app
from memctl.config import DataHome, Settings
from memctl.exit_codes import HOME, MODEL, NOTHING_INGESTED, USAGE
from memctl.serve.relay import RelayServer, ask_through_server, socket_path

SOURCES = [Source("ses_a1", "memory/alpha/ses_a1.md", "Fix the Kuzu lock", "2026-11-02", "alpha"),
           Source("ses_b2", "memory/beta/ses_b2.md", "deploy.sh explanation", "2026-11-03", "beta"),
           Source("ses_c3", "memory/alpha/ses_c3.md", "Pin pytest-asyncio", "2026-11-04", "alpha"),
           Source("ses_d4", "user/topics/alpha/pnpm.md", "memory: Use pnpm", "2026-11-05", "alpha")]
PROPOSAL = Proposal(id="20261130T054512Z-a1b2c3", session="cli", target="user",
                    path="user/sessions/cli/20261130T054512Z-a1b2c3.md", content="Use pnpm.", topic=None,
                    kind="preference", created="2026-11-30T05:45:12.345Z", source="ask", redactions=0)


def _ranks(graph: int | None, notes: int | None, score: float | None) -> dict:
    return {"graph_rank": graph, "notes_rank": notes, "score": score}


def _result(answer: str, sources: list[Source], ranks: list[dict] | None = None, proposal: Proposal | None = None,
            fallback: str | None = None) -> AskResult:
    """An AskResult as ask() builds it: every source has its ranks (ContextHit.ranks()) unless ``ranks`` is None."""
    return AskResult(question="q?", answer=answer, topics=[s.topic for s in sources] or ["alpha"], route_method="model",
                     route_reason="the router model named it" if sources else None,
                     retrieval_method="notes" if fallback else "hybrid", fallback_used=bool(fallback),
                     fallback_reason=fallback, sources=sources, user_memories=["user/global/x.md"], route_s=0.01234,
                     retrieve_s=0.1, answer_s=1.5, ctx_chars=1200, prompt_version="3", proposal=proposal,
                     memory_sources=[{"path": "user/global/x.md", "provenance": [
                         {"origin": "agent", "channel": "mcp", "session": "s1", "source": None, "time": "t"}]}],
                     source_ranks={s.path: r for s, r in zip(sources, ranks)} if ranks is not None else {})


RESULTS = [  # several of each kind: hybrid (fused ranks), notes alone (BM25), with a proposal, nothing found
    _result("The lock was released [1].", SOURCES[:1], [_ranks(1, 2, 0.032522)]),
    _result("Pinned [1], the lock [2], pnpm [3].", SOURCES[2:] + SOURCES[:1],
            [_ranks(None, 1, 0.016393), _ranks(2, None, 0.016129), _ranks(1, 3, 0.032266)]),
    _result("deploy.sh pushes to prod [1], see also [2].", SOURCES[:2], [_ranks(None, 1, 7.41), _ranks(None, 2, 3.0)],
            fallback="graph search returned nothing"),
    _result("From the notes [1].", SOURCES[3:], [_ranks(None, 1, 0.5)],
            fallback="the graph store is in use by another memctl process"),
    _result("Noted [1].", SOURCES[1:2], [_ranks(3, 1, 0.032018)], proposal=PROPOSAL),
    _result("Noted twice [1] [2].", SOURCES[:2], [_ranks(1, 1, 0.032787), _ranks(2, 2, 0.032258)], proposal=PROPOSAL),
    _result("Nothing in memory answers this.", []),
    _result("Cited without ranks [1].", SOURCES[1:2]),  # a result built without ranks stays without them
    replace(_result("No proposal [1].", SOURCES[2:3], [_ranks(1, None, 0.016393)]),
            proposal_error="the proposal was not valid JSON"),
]
SOURCE_KEYS = {"source_id", "path", "title", "date", "topic", "agent"}  # agent: derived from the key
RANK_KEYS = {"graph_rank", "notes_rank", "score"}
RESULT_IDS = ["hybrid", "hybrid-three", "notes", "notes-busy", "proposal", "proposal-two", "empty", "no-ranks",
              "proposal-error"]


class StubWarm:
    """Stands in for WarmMemory: answers every ask with ``reply`` (an AskResult, or an exception to raise)."""

    def __init__(self, home: Path, reply: AskResult | Exception, tokens: list[str] | None = None) -> None:
        self.settings = Settings(home=home)
        self.home = DataHome(home)
        self.reply, self.tokens, self.asked = reply, tokens or [], []

    def ask(self, options: AskOptions, on_token=None) -> AskResult:  # noqa: ANN001
        self.asked.append(options)
        if on_token is not None:
            for piece in self.tokens:
                on_token(piece)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "var"
    root.mkdir()
    return root


def _serve(home: Path, reply: AskResult | Exception, tokens: list[str] | None = None) -> tuple[RelayServer, StubWarm]:
    warm = StubWarm(home, reply, tokens)
    relay = RelayServer(warm)
    assert relay.start(), relay.status
    return relay, warm


@pytest.mark.parametrize("result", RESULTS, ids=RESULT_IDS)
def test_the_server_returns_what_ask_returns(home: Path, result: AskResult) -> None:
    relay, warm = _serve(home, result, tokens=["The ", "answer"])
    try:
        options = AskOptions(question="q?", session="ses_1", topics=["alpha"], top_k=3, propose=True)
        pieces: list[str] = []
        got = ask_through_server(Settings(home=home), options, on_token=pieces.append)
        assert got is not None and got.as_dict() == result.as_dict() and got == result
        for source in got.as_dict()["sources"]:  # each source with its ranks, as `ask --json` prints in-process
            assert set(source) == (SOURCE_KEYS | RANK_KEYS if result.source_ranks else SOURCE_KEYS)
        assert pieces == ["The ", "answer"]
        assert warm.asked == [options]  # every option reached the server unchanged
        assert ask_through_server(Settings(home=home), replace(options, use_graph=False)).as_dict() == result.as_dict()
    finally:
        relay.stop()
    assert not socket_path(DataHome(home)).exists()


def test_the_results_cover_every_field_ask_returns() -> None:
    """A field added to AskResult must be set (not empty) in a relayed result here, so its round trip is tested."""
    for name in (f.name for f in fields(AskResult)):
        assert any(getattr(r, name) for r in RESULTS), name


class UnreadableResult:
    """What a server of another memctl might send: ``as_dict()`` gives ``document`` as it is."""

    route_s = retrieve_s = answer_s = 0.0

    def __init__(self, document: dict) -> None:
        self.document = document

    def as_dict(self) -> dict:
        return dict(self.document)


def test_a_result_the_client_cannot_read_means_in_process_and_a_log_line(home: Path, caplog) -> None:  # noqa: ANN001
    for broken in ({"answer": "no other field"}, {**RESULTS[0].as_dict(), "sources": [{"path": "x.md"}]},
                   {**RESULTS[0].as_dict(), "proposal": {"id": "only"}}, {**RESULTS[1].as_dict(), "new_field": 1}):
        relay, _ = _serve(home, UnreadableResult(broken))  # type: ignore[arg-type]
        caplog.clear()
        try:
            assert ask_through_server(Settings(home=home), AskOptions(question="q?")) is None
        finally:
            relay.stop()
        assert "could not be used" in caplog.text and "answering in-process" in caplog.text, broken


@pytest.mark.parametrize("error", [AskError("the question is empty", USAGE), AskError("Ollama is down", MODEL),
                                   AskError("nothing has been ingested", NOTHING_INGESTED),
                                   AskError("unreadable topic index", HOME)])
def test_errors_come_back_with_their_exit_code(home: Path, error: AskError) -> None:
    relay, _ = _serve(home, error)
    try:
        with pytest.raises(AskError) as raised:
            ask_through_server(Settings(home=home), AskOptions(question="q?"))
        assert (str(raised.value), raised.value.exit_code) == (str(error), error.exit_code)
    finally:
        relay.stop()


def test_no_server_stale_socket_or_other_settings_mean_in_process(home: Path) -> None:
    settings = Settings(home=home)
    assert ask_through_server(settings, AskOptions(question="q?")) is None  # no socket
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_path(DataHome(home))))
    stale.close()  # the file stays, nobody listens: a killed server's socket
    assert ask_through_server(settings, AskOptions(question="q?")) is None
    relay, warm = _serve(home, RESULTS[0])  # replaces the stale socket
    try:
        for other in ({"answer_model": "qwen3:8b"}, {"ollama_host": "127.0.0.1:11435"}, {"max_context_chars": 999}):
            assert ask_through_server(Settings(home=home, **other), AskOptions(question="q?")) is None
        assert warm.asked == []  # declined before asking
        second = RelayServer(StubWarm(home, RESULTS[1]))
        assert not second.start() and "another memctl serve" in second.status  # the live owner keeps it
    finally:
        relay.stop()


def test_cli_ask_prints_the_servers_result(home: Path) -> None:
    runner = CliRunner()
    for result in RESULTS:
        relay, _ = _serve(home, result)
        try:
            shown = runner.invoke(app, ["ask", "q?", "--home", str(home), "--json"])
            plain = runner.invoke(app, ["ask", "q?", "--home", str(home)])
        finally:
            relay.stop()
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout) == result.as_dict()
        assert plain.exit_code == 0 and plain.stdout.startswith(result.answer)
        for source in result.sources:
            assert source.title in plain.stdout
    relay, _ = _serve(home, AskError("Ollama is down", MODEL))
    try:
        failed = runner.invoke(app, ["ask", "q?", "--home", str(home), "--json"])
    finally:
        relay.stop()
    assert failed.exit_code == MODEL and json.loads(failed.stdout) == {"error": "Ollama is down", "exit_code": MODEL}
