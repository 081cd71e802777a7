"""Every session of the real Codex fixture through the transcript builder: planted secrets never get through."""

from __future__ import annotations

import json
import shutil

import pytest

from memctl.config import Settings
from memctl.connectors.codex.source import CodexSource
from memctl.ingest.transcript import build_transcript
from tests.support import crafted_codex as C

PLANTED = json.loads((C.FIXTURE / "planted_secrets.json").read_text())
MANIFEST = json.loads((C.FIXTURE / "sessions.json").read_text())


def _transcripts(fixture, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    home = tmp_path_factory.mktemp("codex") / "home"
    shutil.copytree(fixture, home)
    settings = Settings()
    out = {}
    for session in CodexSource(home).iter_sessions():
        raw = json.dumps([p.data for p in session.parts] + [[p.data for p in c.parts] for c in session.children])
        out[session.info.id] = (raw, build_transcript(session, settings))
    return out


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    return _transcripts(C.FIXTURE, tmp_path_factory)


def test_every_root_session_gives_a_transcript(transcripts) -> None:
    roots = {e["id"] for e in MANIFEST.values() if e["how"] in ("exec",)}
    assert set(transcripts) == roots
    for _, transcript in transcripts.values():
        assert transcript.text.strip() and transcript.entries > 0


@pytest.mark.parametrize("secret", PLANTED, ids=[s["kind"] for s in PLANTED])
def test_planted_secret_reaches_the_reader_but_never_the_transcript(transcripts, secret) -> None:
    raw_hits = [sid for sid, (raw, _) in transcripts.items() if secret["value"] in raw.replace("\\n", "\n")]
    assert raw_hits == [MANIFEST["beta_secrets"]["id"]]  # planted where the manifest says: the test can fail
    for sid, (_, transcript) in transcripts.items():
        assert secret["value"] not in transcript.text, (secret["kind"], sid)
        assert secret["value"] not in (transcript.title or "")


def test_redactions_are_counted_in_the_secret_session(transcripts) -> None:
    _, transcript = transcripts[MANIFEST["beta_secrets"]["id"]]
    assert sum(transcript.redactions.values()) >= len({s["kind"] for s in PLANTED}) - 2
    assert "[REDACTED:" in transcript.text


def test_subagent_and_fork_are_folded_in_once(transcripts) -> None:
    _, parent = transcripts[MANIFEST["beta_subagent"]["id"]]
    assert parent.child_session_ids == [MANIFEST["beta_helper"]["id"]]
    # the child sits right after the spawn_agent call that started it, its task prompt once
    assert parent.text.count("**User (parent agent's task prompt):**") == 1
    assert parent.text.index("**Tool `spawn_agent`**") < parent.text.index("### Subagent session") < parent.text.index(
        "**Tool `wait_agent`**")
    _, tests = transcripts[MANIFEST["alpha_tests"]["id"]]
    assert tests.child_session_ids == [MANIFEST["alpha_fork"]["id"]]
    assert tests.text.count("**User:** Run the calc tests and tell me what fails.") == 1


@pytest.mark.parametrize("fixture", ["codex-0.50", "codex-0.20"])
@pytest.mark.parametrize("secret", PLANTED, ids=[s["kind"] for s in PLANTED])
def test_older_versions_secrets_never_reach_the_transcript(tmp_path_factory, secret, fixture) -> None:
    older = C.FIXTURE.parent / fixture
    early = _transcripts(older, tmp_path_factory)
    secret_id = json.loads((older / "sessions.json").read_text())["beta_secrets"]["id"]
    assert [sid for sid, (raw, _) in early.items() if secret["value"] in raw.replace("\\n", "\n")] == [secret_id]
    assert all(secret["value"] not in t.text for _, t in early.values())
