"""OpenCode's placeholder titles never become a note's title or a topic's routing text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memctl.catalog.topic_index import TopicIndex
from memctl.config import Settings
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.connectors.opencode.titles import is_placeholder_title
from memctl.ingest.distill import read_note_meta, summary_title
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from memctl.ingest.transcript import build_transcript, derive_title
from memctl.scrub.core import scrub
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text

REPO = Path(__file__).resolve().parents[2]

PLACEHOLDERS = [
    "New session - 2026-11-29T22:06:41.000Z",
    "New session - 2025-01-02T03:04:05.678Z",
    "Child session - 2026-11-30T05:40:34.828Z",
    "ACP Session 00000000-dead-beef-0000-000000000000",
    "ACP Session 0f8fad5b-d9cb-469f-a165-70867728950e",
    "ACP Session 0F8FAD5B-D9CB-469F-A165-70867728950E",
    "New session - 2026-11-29T22:06:41.000Z (fork #1)",   # a fork of an untitled session
    "ACP Session 0f8fad5b-d9cb-469f-a165-70867728950e (fork #3)",
    "New session - 2026-11-29T22:06:41Z",                 # no milliseconds
    "  New session - 2026-11-29T22:06:41.000Z  ",
    "",
    "   ",
]
REAL_TITLES = [
    "Fix flaky retry test",
    "New session - fix the parser",
    "New session",
    "ACP Session for the login bug",
    "Child session - 2026-11-29",
    "New session - 2026-11-29T22:06:41.000Z and the cache",
    "Pin pytest-asyncio (fork #1)",
    "ACP Session 1234",
]


@pytest.mark.parametrize("title", PLACEHOLDERS)
def test_placeholders_are_recognised(title: str) -> None:
    assert is_placeholder_title(title)


@pytest.mark.parametrize("title", REAL_TITLES)
def test_real_titles_are_kept(title: str) -> None:
    assert not is_placeholder_title(title)


@pytest.mark.parametrize(("source", "expected"), [
    ("Switch the project from flake8 to ruff", "Switch the project from flake8 to ruff"),
    ("  # Fix   the\tbuild  \nand more lines", "Fix the build"),
    ("\n\n> quoted first line", "quoted first line"),
    ("- [ ] migrate the database", "[ ] migrate the database"),
    ("1. split migration 0042 into two", "split migration 0042 into two"),
    ("The Postgres migration 0042 deadlocks when it runs next to the nightly vacuum; split it into two",
     "The Postgres migration 0042 deadlocks when it runs next to the nightly vacuum…"),
    ("x" * 200, "x" * 80 + "…"),
    ("use [REDACTED:github_token] to push the release tag to the mirror and then open the pull request",
     "use [REDACTED:github_token] to push the release tag to the mirror and then open…"),
    # a long unbroken run across the limit: the cut goes before the marker, never inside it
    ("Deploy is failing. Set up a .env with DATABASE_URL=postgres://[REDACTED:url_credentials]@db.example.com/app",
     "Deploy is failing. Set up a .env with DATABASE_URL=postgres://…"),
    ("Deploy with key=[REDACTED:aws_secret_key] please " + "y" * 100,
     "Deploy with key=[REDACTED:aws_secret_key] please…"),
    ("", None),
    ("  \n # \n", None),
])
def test_derived_titles(source: str, expected: str | None) -> None:
    assert derive_title(source) == expected


@pytest.mark.parametrize(("body", "expected"), [
    ("# Pinned pytest-asyncio\n\n- Request: fix the test", "Pinned pytest-asyncio"),
    ("Some intro line\n## Decision: use ruff\n", "Decision: use ruff"),
    ("- Replaced flake8 with ruff\n- pre-commit runs ruff", "Replaced flake8 with ruff"),
    ("# (untitled)\n\n## Sorted the TODO list\n", "Sorted the TODO list"),  # our header echoed back
    ("# (untitled)\n\n- Request: (none)\n", "Request: (none)"),
    ("", None),
])
def test_summary_titles(body: str, expected: str | None) -> None:
    assert summary_title(body) == expected


def test_the_dev_fixtures_placeholder_sessions_get_titles_from_their_first_prompt(tmp_path: Path) -> None:
    """The real dev build wrote three sessions still titled ``New session - <ISO>``."""
    for name in ("opencode-dev.db",):
        shutil.copy2(REPO / "tests" / "fixtures" / "opencode-dev" / name, tmp_path / name)
    source = OpenCodeSource(tmp_path / "opencode-dev.db")
    sessions = [s for s in source.iter_sessions() if s.info.title.startswith("New session - ")]
    assert len(sessions) == 3 and all(s.info.title_is_placeholder for s in sessions)
    settings = Settings(home=tmp_path / "var")
    for session in sessions:
        transcript = build_transcript(session, settings)
        first_user = next(p.data["text"] for p in session.parts if p.role == "user" and p.type == "text")
        assert transcript.title == derive_title(scrub(first_user).text) and transcript.title
        assert "FAKE" not in transcript.title  # one of them starts with planted fake credentials
        assert transcript.original_title == session.info.title
        assert transcript.text.startswith(f"# OpenCode session: {transcript.title}\n")
        assert "New session - " not in transcript.text


FAKE_TOKEN = "ghp_R8mK2vQ9xT4bN7cL1pZ6wY3sD5fH0jG2aE8u"  # GitHub token shape; fake (as in test_transcript)


def test_placeholder_sessions_get_derived_scrubbed_titles_and_keep_the_original(tmp_path: Path) -> None:
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    asks = {
        "ses_t1": ("New session - 2026-11-29T22:06:41.000Z",
                   "Switch the project from flake8 and isort to ruff, keep the line length of 100"),
        "ses_t2": ("Child session - 2026-11-29T23:10:02.000Z",  # an orphan subagent keeps its placeholder too
                   "Split the Postgres migration 0042 so the index is created concurrently"),
        "ses_t3": ("ACP Session 00000000-dead-beef-0000-000000000000",
                   f"Push with token {FAKE_TOKEN} and tag the release"),
        "ses_t4": ("Real title stays", "Move the Docker image to a multi-stage build on python slim"),
    }
    for sid, (title, ask) in asks.items():
        db.session(sid, title)
        db.user(sid, ask)
        db.assistant(sid, [bash("make check", "all green"), text("done as asked")])
    db.session("ses_t5", "New session - 2026-11-30T01:00:00.000Z")  # no user text: the summary names it
    db.message("ses_t5", "user", [{"type": "file", "filename": "notes.txt", "mime": "text/plain",
                                   "url": "file:///tmp/notes.txt"}])
    db.assistant("ses_t5", [bash("cat notes.txt", "TODO: rotate the deploy keys\n" * 12),
                            text("Read the notes and sorted the TODO list by urgency; the key rotation goes first.")])
    db.close()
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)
        summary = IngestRun(settings, IngestOptions(db=db_path, phase="distill")).run()
        assert summary.distilled == 5
        sent = json.dumps([body for _p, _m, body in list(server.calls)])
    assert FAKE_TOKEN not in sent
    metas = {sid: read_note_meta((home / "distilled" / f"{sid}.md").read_text()) for sid in [*asks, "ses_t5"]}
    assert metas["ses_t1"]["title"] == "Switch the project from flake8 and isort to ruff, keep the line length of 100"
    assert metas["ses_t2"]["title"] == "Split the Postgres migration 0042 so the index is created concurrently"
    assert metas["ses_t3"]["title"] == "Push with token [REDACTED:github_token] and tag the release"
    assert metas["ses_t4"]["title"] == "Real title stays" and "original_title" not in metas["ses_t4"]
    for sid in ("ses_t1", "ses_t2", "ses_t3"):
        assert metas[sid]["original_title"] == asks[sid][0]
    note5 = (home / "distilled" / "ses_t5.md").read_text()
    body5 = note5.split("\n---\n", 1)[1]
    assert metas["ses_t5"]["title"] == summary_title(body5)
    assert metas["ses_t5"]["title"] not in ("(untitled)", "") and not is_placeholder_title(metas["ses_t5"]["title"])
    assert metas["ses_t5"]["original_title"] == "New session - 2026-11-30T01:00:00.000Z"
    progress = json.loads((home / "progress.json").read_text())["sources"]
    assert {sid: progress[sid]["title"] for sid in metas} == {sid: m["title"] for sid, m in metas.items()}
    index = TopicIndex.load(home / "topic_index.json")
    description = index.topics["alpha"].description
    assert "session - 20" not in description and "ACP Session" not in description
    assert "Switch the project from flake8" in description and "[REDACTED:github_token]" in description
    assert FAKE_TOKEN not in (home / "topic_index.json").read_text()


def test_placeholders_left_in_older_checkpoints_stay_out_of_topic_descriptions(tmp_path: Path) -> None:
    from memctl.catalog.checkpoint import Checkpoint
    from memctl.catalog.topic_index import build_topic_index
    from memctl.config import DataHome

    home = DataHome(tmp_path / "var")
    checkpoint = Checkpoint(home.progress, home.skipped)
    titles = {"ses_a": "New session - 2026-11-29T22:06:41.000Z", "ses_b": "Pin pytest-asyncio",
              "ses_c": "ACP Session 00000000-dead-beef-0000-000000000000"}
    for sid, title in titles.items():
        checkpoint.mark_distilled(sid, topic="alpha", title=title, session_updated=1)
        note = home.store / "memory" / "alpha" / f"{sid}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("---\n---\nbody\n")
    description = build_topic_index(home).topics["alpha"].description
    assert description == "alpha. Sessions: Pin pytest-asyncio"


TITLE_SECRETS = ("Sonnenblume42!", "Zq8vN2kLm4PxR7tYw3Hs", "Falcon8812")


def test_a_secret_in_a_session_title_reaches_no_stored_file_and_no_model_request(tmp_path: Path) -> None:
    """A real (non-placeholder) title holding credentials of the context kinds: every place a
    title is stored (note front matter, progress.json, topic_index.json, transcripts, Cognee's
    inputs under the data home) and the model request see only markers."""
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    titles = {
        "ses_s1": "Fix login, Kennwort=Sonnenblume42! in staging",
        "ses_s2": "the staging key, just in case: Zq8vN2kLm4PxR7tYw3Hs",
        "ses_s3": "log in with password Falcon8812 then deploy",
    }
    for sid, title in titles.items():
        db.session(sid, title)
        db.user(sid, "Move the Docker image to a multi-stage build on python slim and keep the cache mounts")
        db.assistant(sid, [bash("make check", "all green"), text("done as asked")])
    db.close()
    with FakeOllama() as server:
        settings = Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)
        summary = IngestRun(settings, IngestOptions(db=db_path, phase="distill")).run()
        assert summary.distilled == 3
        sent = json.dumps([body for _p, _m, body in list(server.calls)])
    for secret in TITLE_SECRETS:
        assert secret not in sent
    stored = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "progress.json" for p in stored) and any(p.name == "topic_index.json" for p in stored)
    for path in stored:
        content = path.read_bytes()
        for secret in TITLE_SECRETS:
            assert secret.encode() not in content, path
    metas = {sid: read_note_meta((home / "distilled" / f"{sid}.md").read_text()) for sid in titles}
    assert metas["ses_s1"]["title"].startswith("Fix login, Kennwort=[REDACTED:")
    assert "[REDACTED:" in metas["ses_s2"]["title"] and "[REDACTED:" in metas["ses_s3"]["title"]


def test_the_title_scrub_is_one_function_and_idempotent() -> None:
    from memctl.scrub.title import scrub_title, scrub_titles

    titles = ["Kennwort=Sonnenblume42! for db", "Plain title", "", "token Zq8vN2kLm4PxR7tYw3Hs"]
    once = scrub_titles(titles)
    assert once == [scrub_title(t) for t in titles]
    assert [scrub_title(t) for t in once] == once
    assert once[1] == "Plain title" and once[2] == ""
    assert all(secret not in " ".join(once) for secret in TITLE_SECRETS)
