"""Ingest over several sources: the real Claude Code fixture beside a real OpenCode fixture.

Checks: every source found is read unless ``--source`` says otherwise; keys carry the source
(OpenCode keys unchanged); notes name their source; one topic per repository across sources
(the fixtures' repositories have the same root commits); ``--session`` takes a bare or keyed
id of either source; planted secrets never reach a transcript, a note or a model request.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome, Settings
from memctl.connectors.opencode.errors import UnknownSessionError
from memctl.connectors.registry import discover, key_of, split_key
from memctl.ingest.distill import read_note_meta
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestError, IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_claude_code import relocated_fixture

REPO = Path(__file__).resolve().parents[2]
CLAUDE = REPO / "tests" / "fixtures" / "claude-code-2.1"
OPENCODE = REPO / "tests" / "fixtures" / "opencode-1.14"
CLAUDE_SESSIONS = json.loads((CLAUDE / "sessions.json").read_text())
PLANTED = [s["value"] for s in json.loads((CLAUDE / "planted_secrets.json").read_text())]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("multi")
    claude, _ = relocated_fixture(base)
    shutil.copytree(OPENCODE, base / "opencode")
    return base / "opencode" / "opencode.db", claude


@pytest.fixture(scope="module")
def distilled(sources: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory):
    db, claude = sources
    home = tmp_path_factory.mktemp("home") / "var"
    with FakeOllama() as server:
        summary = IngestRun(Settings(home=home, ollama_host=server.url, settle_minutes=0),
                            IngestOptions(db=db, claude_dir=claude, phase="distill")).run()
        bodies = [json.dumps(body) for _, _, body in server.calls]
    return home, summary, bodies


def test_every_source_found_is_read_and_keys_carry_the_source(distilled) -> None:
    home, summary, _ = distilled
    entries = Checkpoint(DataHome(home).progress, DataHome(home).skipped).entries
    claude_keys = {key_of("claude-code", s["session_id"]) for s in CLAUDE_SESSIONS.values()}
    assert claude_keys <= set(entries)
    opencode_keys = {k for k in entries if k.startswith("ses_")}
    assert opencode_keys and all(split_key(k) == (None, k) for k in opencode_keys)  # OpenCode keys as before
    assert summary.found == len(claude_keys) + len(opencode_keys)
    junk = key_of("claude-code", CLAUDE_SESSIONS["junk_hi"]["session_id"])
    assert entries[junk].status == "skipped"


def test_notes_name_their_source_and_share_the_repository_topic(distilled) -> None:
    home, _, _ = distilled
    entries = Checkpoint(DataHome(home).progress, DataHome(home).skipped).distilled()
    metas = {sid: read_note_meta(DataHome(home).note_path(sid).read_text()) for sid in entries}
    claude = {sid: m for sid, m in metas.items() if sid.startswith("claude-code.")}
    assert claude and all(m["source"] == "claude-code" and m["source_version"] == "2.1.332" for m in claude.values())
    assert all(m["source"] == "opencode" for sid, m in metas.items() if sid.startswith("ses_"))
    alpha_claude = key_of("claude-code", CLAUDE_SESSIONS["bash_secret"]["session_id"])
    assert entries[alpha_claude].topic == "alpha"
    transcript = DataHome(home).transcript_path(alpha_claude).read_text()
    assert transcript.startswith("# Claude Code session: ") and f"- Source id: {alpha_claude}\n" in transcript
    opencode_topics = {e.topic for sid, e in entries.items() if sid.startswith("ses_")}
    assert "alpha" in opencode_topics  # the same repository from both agents: one topic
    topics = json.loads(DataHome(home).topics.read_text())
    assert not any(slug.startswith("alpha-") for slug in json.dumps(topics).split('"') if slug)


def test_planted_secrets_reach_no_transcript_note_or_model_request(distilled) -> None:
    home, summary, bodies = distilled
    assert summary.redactions  # the scrubber saw them
    written = "\n".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())
    for secret in PLANTED:
        assert secret not in written
        assert not any(secret in body for body in bodies)


def test_source_option_and_sessions_of_either_source(sources: tuple[Path, Path], tmp_path: Path) -> None:
    db, claude = sources
    settings = Settings(home=tmp_path / "var", settle_minutes=0)
    only = IngestRun(settings, IngestOptions(db=db, claude_dir=claude, dry_run=True, sources=("claude-code",))).run()
    assert only.found == len(CLAUDE_SESSIONS)
    sid = CLAUDE_SESSIONS["subagent"]["session_id"]
    for spelled in (sid, key_of("claude-code", sid)):
        run = IngestRun(settings, IngestOptions(db=db, claude_dir=claude, dry_run=True, session_ids=(spelled,)))
        run.run()
        assert run.selected_ids == [key_of("claude-code", sid)]
    with pytest.raises((IngestError, UnknownSessionError)):
        IngestRun(settings, IngestOptions(db=db, claude_dir=claude, dry_run=True, session_ids=("nope",))).run()


def test_discover_reads_what_is_there(tmp_path: Path, sources: tuple[Path, Path]) -> None:
    db, claude = sources
    assert [n for n, _ in discover((), {"opencode": db, "claude-code": claude})] == ["opencode", "claude-code"]
    assert [n for n, _ in discover((), {"opencode": tmp_path / "none.db", "claude-code": claude})] == ["claude-code"]
    assert [n for n, _ in discover((), {"opencode": tmp_path / "none.db", "claude-code": tmp_path})] == ["opencode"]
    assert [n for n, _ in discover(("claude-code",), {"opencode": db, "claude-code": tmp_path})] == ["claude-code"]
    # a location given on the command line is read even when nothing is there: its error is shown
    named = discover((), {"opencode": tmp_path / "none.db", "claude-code": claude}, ("opencode",))
    assert [n for n, _ in named] == ["opencode", "claude-code"]


def test_cli_refuses_an_unknown_source_and_a_missing_claude_dir(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    bad = subprocess.run([sys.executable, "-m", "memctl.cli", "ingest", "--source", "cursor", "--home",
                          str(tmp_path / "var"), "--dry-run"], env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown --source cursor" in bad.stderr + bad.stdout
    missing = subprocess.run([sys.executable, "-m", "memctl.cli", "ingest", "--source", "claude-code", "--claude-dir",
                              str(tmp_path / "nothing"), "--home", str(tmp_path / "var"), "--dry-run"],
                             env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 3 and "no Claude Code history" in missing.stderr + missing.stdout
    assert "Traceback" not in missing.stderr + bad.stderr
