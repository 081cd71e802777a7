"""Distill, the ingest executor, ask's router and sleep's consolidation against the in-process fake chat client.

These are unit tests: no server, no Cognee. ``fake_chat`` (tests/conftest.py) is the
client every model call of memctl gets; its failures are the ones the ollama
library and httpx raise, so the one error map (:func:`memctl.ollama_client.model_error`)
is on the path of every test here.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome, Settings
from memctl.connectors.model import Part, Session, SessionInfo
from memctl.ingest.distill import Distiller
from memctl.ingest.executor import DistillExecutor
from memctl.ingest.plan import Action, plan_work
from memctl.ingest.summary import IngestSummary
from memctl.ingest.transcript import build_transcript
from memctl.ollama_client import ModelError
from memctl.reporting import SilentReporter
from tests.fakes.chat_client import FakeChatClient

T0 = 1_780_000_000_000


def _settings(tmp_path: Path, **kw) -> Settings:
    return Settings(home=tmp_path / "var", **kw)


def _session(sid: str = "ses_a", *, turns: int = 3, start: int = 0, updated: int | None = None) -> Session:
    parts = []
    for n in range(start, start + turns):
        parts.append(Part(f"prt_{sid}_{n}u", f"msg_{n}u", "user", "text",
                          {"type": "text", "text": f"Please fix the flaky retry loop in the uploader, step {n}."},
                          T0 + n * 2000))
        parts.append(Part(f"prt_{sid}_{n}a", f"msg_{n}a", "assistant", "text",
                          {"type": "text", "text": f"Fixed step {n}: the backoff now caps at 30 s and the jitter is "
                                                   "seeded per request, so two workers never retry in lockstep. " * 3},
                          T0 + n * 2000 + 1000))
    info = SessionInfo(id=sid, title="Fix uploader retries", directory="/src/app", project_id="prj",
                       project_worktree="/src/app", parent_id=None, time_created=T0,
                       time_updated=updated or T0 + (start + turns) * 2000, version="1.18.34")
    return Session(info=info, parts=parts)


# -- distill ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "junk"), [("JUNK", True), ("**junk.**", True), (" Junk\n", True),
                                              ("# Retries\nJUNK data was removed.", False)])
def test_distill_tells_junk_from_a_note(tmp_path: Path, fake_chat: FakeChatClient, answer: str, junk: bool) -> None:
    fake_chat.queue(answer)
    outcome = Distiller(_settings(tmp_path)).distill("transcript")
    assert outcome.junk is junk and (outcome.body == "") is junk
    model, messages = fake_chat.chats()[0]
    assert model == "llama3.1:8b" and messages[-1] == {"role": "user", "content": "transcript"}


@pytest.mark.parametrize("answer", ["<think>the key is ghp_abcdefghijklmnopqrstuvwxyz0123456789</think>\nThe fix: cap backoff.",
                                    "<thinking>\nplan\n</thinking>The fix: cap backoff.",
                                    "<think>unclosed reasoning runs to the end"])
def test_distill_drops_reasoning_blocks(tmp_path: Path, fake_chat: FakeChatClient, answer: str) -> None:
    fake_chat.queue(answer)
    try:
        outcome = Distiller(_settings(tmp_path)).distill("transcript")
    except ModelError as exc:  # nothing but reasoning: an empty answer
        assert exc.kind == "empty" and "<think" in answer and "</think" not in answer
        return
    assert outcome.body == "The fix: cap backoff." and "ghp_" not in outcome.body


@pytest.mark.parametrize(("kind", "error_kind", "retryable", "text"), [
    ("unreachable", "unreachable", True, "cannot reach Ollama"),
    ("timeout", "timeout", True, "did not answer within"),
    ("http", "http", True, "HTTP 500"),
    ("missing", "missing_model", False, "ollama pull llama3.1:8b"),
    ("malformed", "malformed", True, "malformed"),
])
def test_every_failure_maps_to_one_model_error(tmp_path: Path, fake_chat: FakeChatClient, kind: str, error_kind: str,
                                               retryable: bool, text: str) -> None:
    fake_chat.fail_next(1, kind, methods=("chat",))
    with pytest.raises(ModelError, match=text) as info:
        Distiller(_settings(tmp_path)).distill("transcript")
    assert (info.value.kind, info.value.retryable, info.value.exit_code) == (error_kind, retryable, 9)


def test_preflight_names_the_pull_command_and_the_client_uses_the_configured_host(tmp_path: Path,
                                                                                 fake_chat: FakeChatClient) -> None:
    fake_chat.models = {"nomic-embed-text"}
    settings = _settings(tmp_path, ollama_host="10.1.2.3:4567", request_timeout_s=42)
    with pytest.raises(ModelError, match=r"run `ollama pull llama3\.1:8b`"):
        Distiller(settings).preflight()
    assert fake_chat.hosts == [("http://10.1.2.3:4567", 42)]


# -- the executor: one checkpoint writer ---------------------------------------------------------


def _executor(tmp_path: Path, fake_chat: FakeChatClient, *, reparse_all: bool = False, attempts: int = 2):
    settings = _settings(tmp_path)
    home = DataHome(settings.home)
    checkpoint = Checkpoint(home.progress, home.skipped)
    summary = IngestSummary()
    executor = DistillExecutor(Distiller(settings), checkpoint, home, summary, SilentReporter(), workers=2,
                               attempts=attempts, reparse_all=reparse_all)
    return settings, home, checkpoint, summary, executor


def _submit(executor: DistillExecutor, settings: Settings, session: Session, entry=None,
            action: Action = Action.DISTILL) -> None:
    work = plan_work(session, entry, action, title=session.info.title, topic="app")
    assert work is not None
    executor.submit(work, build_transcript(work.session, settings))


def test_outcomes_are_recorded_with_notes_written_before_the_checkpoint(tmp_path: Path, fake_chat: FakeChatClient) -> None:
    answers = {"ses_note": "## Uploader\nBackoff capped at 30 s.", "ses_junk": "JUNK", "ses_fail": None}
    attempts: dict[str, int] = {}

    def reply(model, messages, schema):  # noqa: ANN001, ANN202
        sid = next(s for s in answers if s in messages[-1]["content"])
        attempts[sid] = attempts.get(sid, 0) + 1
        if answers[sid] is None:
            raise httpx.ReadTimeout("timed out")
        return answers[sid]

    fake_chat.reply_with(reply)
    settings, home, checkpoint, summary, executor = _executor(tmp_path, fake_chat, attempts=2)
    with executor:
        for sid in answers:
            _submit(executor, settings, _session(sid))
        executor.finish()
    assert (summary.distilled, summary.skipped_junk, summary.errors) == (1, 1, 1)
    assert attempts == {"ses_note": 1, "ses_junk": 1, "ses_fail": 2}  # a timeout is retried, up to the bound
    note = home.note_path("ses_note").read_text()
    assert checkpoint.entry("ses_note").note_sha256 and "Backoff capped" in note and "transcript_sha256" in note
    assert checkpoint.status("ses_junk") == "skipped" and checkpoint.entry("ses_junk").skip_kind == "junk"
    failed = checkpoint.entry("ses_fail")
    assert failed.status == "error" and failed.attempts == 1 and "did not answer within" in failed.error
    assert summary.error_details == [{"source_id": "ses_fail", "error": failed.error}]
    assert not home.note_path("ses_junk").exists() and not home.note_path("ses_fail").exists()
    assert all(home.transcript_path(sid).exists() for sid in answers)  # persisted before each model call
    stored = json.loads(home.progress.read_text())["sources"]
    assert {sid: e["status"] for sid, e in stored.items()} == {"ses_note": "distilled", "ses_junk": "skipped",
                                                              "ses_fail": "error"}


def test_a_continuation_advances_its_root_only_when_accepted(tmp_path: Path, fake_chat: FakeChatClient) -> None:
    settings, home, checkpoint, summary, _unused = _executor(tmp_path, fake_chat)

    def run(session: Session, action: Action) -> None:  # one ingest run: a fresh executor, the same checkpoint
        with DistillExecutor(Distiller(settings), checkpoint, home, summary, SilentReporter(), workers=1,
                             attempts=1, reparse_all=False) as executor:
            _submit(executor, settings, session, checkpoint.entry(session.info.id), action)
            executor.finish()

    first = _session("ses_r", turns=2)
    run(first, Action.DISTILL)
    root = checkpoint.entry("ses_r")
    grown = _session("ses_r", turns=4, updated=first.info.time_updated + 10_000)
    fake_chat.queue("JUNK")
    run(grown, Action.CONTINUE)
    after_junk = checkpoint.entry("ses_r")
    assert checkpoint.status("ses_r-cont1") == "skipped"
    assert after_junk.covered_until == root.covered_until and after_junk.session_updated == grown.info.time_updated
    assert after_junk.continuations is None  # the number is reused by the next try
    fake_chat.queue("## More\nThe jitter is seeded per request.")
    run(grown, Action.CONTINUE)
    accepted = checkpoint.entry("ses_r")
    assert accepted.continuations == 1 and accepted.covered_until > root.covered_until
    assert checkpoint.entry("ses_r-cont1").continuation_of == "ses_r"
    assert "continuation_of: ses_r" in home.note_path("ses_r-cont1").read_text()
    assert "step 0" not in home.transcript_path("ses_r-cont1").read_text()  # only the new parts


def test_preflight_runs_once_before_the_first_call(tmp_path: Path, fake_chat: FakeChatClient) -> None:
    settings, home, checkpoint, summary, executor = _executor(tmp_path, fake_chat)
    fake_chat.models = set()
    with executor, pytest.raises(ModelError, match="ollama pull"):
        _submit(executor, settings, _session("ses_x"))
    assert not home.transcript_path("ses_x").exists() and checkpoint.entries == {}
    assert [c[0] for c in fake_chat.calls] == ["show"]


# -- ask: routing and the answer ------------------------------------------------------------------


def _index():
    from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex

    def entry(slug: str, title: str) -> TopicEntry:
        return TopicEntry(name=slug, worktree=f"/src/{slug}", description=f"{slug}: {title}",
                          notes=[NoteRef(f"ses_{slug}", f"memory/{slug}/ses_{slug}.md", title, "2026-11-01", slug)])

    return TopicIndex({"alpha": entry("alpha", "Kuzu lock timeouts"), "beta": entry("beta", "React table paging")})


@pytest.mark.parametrize(("reply", "method", "topics"), [
    ('{"topics": ["beta"]}', "model", ["beta"]),
    ('{"topics": ["beta", "alpha", "gamma"]}', "model", ["beta", "alpha"]),
    ('{"topics": ["nope"]}', "fallback", ["alpha"]),
    ("not json", "fallback", ["alpha"]),
])
def test_router_answers_are_constrained_to_known_topics(tmp_path: Path, fake_chat: FakeChatClient, reply: str,
                                                        method: str, topics: list[str]) -> None:
    from memctl.ask.routing import route_question

    fake_chat.queue(reply)
    route = route_question("why does the Kuzu lock time out?", _index(), _settings(tmp_path))
    assert (route.method, route.topics) == (method, topics)


@pytest.mark.parametrize("kind", ["unreachable", "timeout", "missing", "http"])
def test_router_failures_fall_back_to_the_lexical_route(tmp_path: Path, fake_chat: FakeChatClient, kind: str) -> None:
    from memctl.ask.routing import route_question

    fake_chat.fail_next(1, kind, methods=("chat",))
    route = route_question("React table paging is broken", _index(), _settings(tmp_path))
    assert route.method == "fallback" and route.topics[0] == "beta" and "router failed" in (route.reason or "")


# -- sleep: consolidation ---------------------------------------------------------------------------


def _task():
    from memctl.sleep.consolidate import ConsolidationTask, Member

    return ConsolidationTask(cluster="k" * 64, scope="user/global", members=[
        Member("user/global/a.md", "a" * 64, "2026-11-01T00:00:00Z", "Uses npm for installs."),
        Member("user/global/b.md", "b" * 64, "2026-11-20T00:00:00Z", "Uses pnpm, not npm, for installs.")])


def test_consolidation_calls_the_model_once_then_answers_from_the_cache(tmp_path: Path, fake_chat: FakeChatClient) -> None:
    from memctl.sleep.consolidate import consolidate

    settings, cache = _settings(tmp_path), tmp_path / "cache"
    fake_chat.queue("Uses pnpm, not npm, for installs.")
    first = consolidate(_task(), settings, cache)
    again = consolidate(_task(), settings, cache)
    assert first.model_called and not again.model_called and again.text == first.text
    assert len(fake_chat.chats()) == 1
    sent = fake_chat.chats()[0][1][-1]["content"]
    assert sent.index("Uses npm") < sent.index("Uses pnpm")  # oldest first: the newest statement wins


@pytest.mark.parametrize("kind", ["unreachable", "timeout", "missing", "malformed"])
def test_consolidation_failures_name_the_cluster_and_cache_nothing(tmp_path: Path, fake_chat: FakeChatClient,
                                                                    kind: str) -> None:
    from memctl.sleep.consolidate import ConsolidationError, consolidate

    fake_chat.fail_next(1, kind, methods=("chat",))
    with pytest.raises(ConsolidationError, match="cluster kkkkkkkkkkkk"):
        consolidate(_task(), _settings(tmp_path), tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())
