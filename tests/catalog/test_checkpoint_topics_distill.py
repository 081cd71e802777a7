"""Checkpoint state machine, topic slugs, prompt loading and model-output rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.catalog.checkpoint import Checkpoint, CheckpointError
from memctl.catalog.topics import TopicRegistry, slugify
from memctl.connectors.model import SessionInfo
from memctl.ingest.distill import is_junk, read_note_meta
from memctl.ingest.plan import Action, PlanRules, decide
from memctl.ollama_client import strip_think
from memctl.prompts import load_prompt


def _info(**kw) -> SessionInfo:
    base = dict(id="ses_1", title="t", directory="/home/dev/src/app", project_id="prj_1",
                project_worktree="/home/dev/src/app", parent_id=None, time_created=1, time_updated=2, version="1.18.34")
    return SessionInfo(**(base | kw))


# -- checkpoint ------------------------------------------------------------------------


def _checkpoint(tmp_path: Path) -> Checkpoint:
    return Checkpoint(tmp_path / "progress.json", tmp_path / "skipped.json")


def _decide(cp: Checkpoint, sid: str, *, prompt_version: str = "1", reparse_skipped: bool = False,
            reparse_all: bool = False, updated: int = 2) -> Action:
    rules = PlanRules(prompt_version=prompt_version, reparse_skipped=reparse_skipped, reparse_all=reparse_all)
    return decide(_info(id=sid, time_updated=updated), cp.entry(sid), rules).action


def test_state_machine_decisions(tmp_path: Path) -> None:
    cp = _checkpoint(tmp_path)
    assert _decide(cp, "a") is Action.DISTILL
    cp.mark_error("a", error="boom", topic="t")
    assert cp.status("a") == "error" and cp.entry("a").attempts == 1
    cp.mark_error("a", error="boom again", topic="t")
    assert cp.entry("a").attempts == 2
    assert _decide(cp, "a") is Action.DISTILL
    cp.mark_distilled("a", topic="t", note_sha256="x")
    assert _decide(cp, "a") is Action.SKIP
    assert _decide(cp, "a", reparse_all=True) is Action.DISTILL

    cp.mark_skipped("j", reason="model answered JUNK", skip_kind="junk", prompt_version="1", topic="t")
    cp.mark_skipped("s", reason="below threshold", skip_kind="threshold", prompt_version="1", topic="t")
    assert _decide(cp, "j") is Action.SKIP
    # a new prompt version re-evaluates JUNK skips, not threshold skips
    assert _decide(cp, "j", prompt_version="2") is Action.DISTILL
    assert _decide(cp, "s", prompt_version="2") is Action.SKIP
    assert _decide(cp, "s", prompt_version="2", reparse_skipped=True) is Action.DISTILL


def test_grown_sessions_continue_or_are_re_evaluated_and_active_ones_wait(tmp_path: Path) -> None:
    cp = _checkpoint(tmp_path)
    cp.mark_distilled("d", topic="t", session_updated=100, covered_until=90)
    cp.mark_skipped("s", reason="below threshold", skip_kind="threshold", prompt_version="1", session_updated=100)
    assert _decide(cp, "d", updated=100) is Action.SKIP and _decide(cp, "d", updated=101) is Action.CONTINUE
    assert _decide(cp, "s", updated=100) is Action.SKIP and _decide(cp, "s", updated=101) is Action.DISTILL
    active = PlanRules(prompt_version="1", settle_minutes=10, now_ms=101 + 60_000)
    for sid in ("d", "s", "new"):  # anything with work to do waits while the session is still being written
        assert decide(_info(id=sid, time_updated=101), cp.entry(sid), active).action is Action.DEFER
    assert decide(_info(id="d", time_updated=100), cp.entry("d"), active).action is Action.SKIP
    settled = PlanRules(prompt_version="1", settle_minutes=10, now_ms=101 + 11 * 60_000)
    assert decide(_info(id="d", time_updated=101), cp.entry("d"), settled).action is Action.CONTINUE


def test_damaged_numbers_in_the_checkpoint_are_a_clear_error(tmp_path: Path) -> None:
    for value in ("soon", [1], {"a": 1}, "12x"):
        entry = {"status": "distilled", "session_updated": value}
        (tmp_path / "progress.json").write_text(json.dumps({"format": 1, "sources": {"x": entry}}))
        with pytest.raises(CheckpointError, match="session_updated=.* for x, not a number"):
            _checkpoint(tmp_path)


def test_entries_keep_their_stored_shape(tmp_path: Path) -> None:
    stored = {"status": "distilled", "topic": "t", "continuations": 0, "future_key": {"kept": True}, "updated": "x"}
    (tmp_path / "progress.json").write_text(json.dumps({"format": 1, "sources": {"a": stored}}))
    cp = _checkpoint(tmp_path)
    assert cp.entry("a").continuations == 0 and cp.entry("a").to_json() == stored
    cp.update("a", title="renamed")
    again = json.loads((tmp_path / "progress.json").read_text())["sources"]["a"]
    assert again["future_key"] == {"kept": True} and again["title"] == "renamed" and "error" not in again


def test_checkpoint_persists_and_mirrors_skips(tmp_path: Path) -> None:
    cp = _checkpoint(tmp_path)
    cp.mark_skipped("j", reason="model answered JUNK", skip_kind="junk", prompt_version="1", topic="t", title="hi")
    cp.mark_distilled("d", topic="t")
    again = _checkpoint(tmp_path)
    assert again.status("j") == "skipped" and again.status("d") == "distilled"
    skipped = json.loads((tmp_path / "skipped.json").read_text())
    assert skipped["j"]["reason"] == "model answered JUNK" and skipped["j"]["title"] == "hi"
    # a skipped id that later distills leaves skipped.json
    again.mark_distilled("j", topic="t")
    assert "j" not in json.loads((tmp_path / "skipped.json").read_text())
    assert again.counts() == {"distilled": 2, "skipped": 0, "error": 0}


def test_error_never_downgrades_a_final_outcome(tmp_path: Path) -> None:
    cp = _checkpoint(tmp_path)
    cp.mark_skipped("j", reason="junk", skip_kind="junk", prompt_version="1")
    cp.mark_error("j", error="timeout")
    assert cp.status("j") == "skipped"


def test_corrupt_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "progress.json").write_text("{half")
    with pytest.raises(CheckpointError, match="progress.json is corrupt"):
        _checkpoint(tmp_path)


# -- topics ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [("my-app", "my-app"), ("My App (v2)", "my-app-v2"), ("Café_Ünïcode", "cafe-unicode"), ("///", "misc"), ("", "misc"),
     ("x" * 80, "x" * 48)],
)
def test_slugify(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_global_project_takes_topic_from_directory() -> None:
    registry = TopicRegistry(None)
    assert registry.topic_for(_info(project_id="global", project_worktree="/", directory="/tmp/scratch-work")) == "scratch-work"
    assert registry.topic_for(_info(project_id="global", project_worktree="/", directory="/home/dev/notes")) == "notes"
    assert registry.topic_for(_info()) == "app"


def test_same_name_different_worktrees_do_not_collide(tmp_path: Path) -> None:
    registry = TopicRegistry(tmp_path / "topics.json")
    first = registry.topic_for(_info(project_worktree="/a/app", directory="/a/app"))
    second = registry.topic_for(_info(project_id="prj_2", project_worktree="/b/app", directory="/b/app"))
    assert first == "app" and second.startswith("app-") and second != first
    registry.save()
    reloaded = TopicRegistry.load(tmp_path / "topics.json")
    assert reloaded.topic_for(_info(project_id="prj_2", project_worktree="/b/app", directory="/b/app")) == second


def test_project_filter_matches_slug_path_and_name() -> None:
    registry = TopicRegistry(None)
    info = _info(project_worktree="/home/dev/src/My App", directory="/home/dev/src/My App")
    for wanted in ("my-app", "My App", "/home/dev/src/My App", "/home/dev/src/My App/", "prj_1"):
        assert registry.matches(info, wanted), wanted
    assert not registry.matches(info, "other")


# -- distill rules ---------------------------------------------------------------------


def test_prompt_has_version_and_required_asks() -> None:
    prompt = load_prompt("distill")
    assert prompt.version
    for phrase in ("Tasks attempted", "Decisions", "Reusable lessons", "Failures", "Follow-ups", "JUNK"):
        assert phrase in prompt.body


@pytest.mark.parametrize(
    ("answer", "junk"),
    [("JUNK", True), ("  junk.\n", True), ("**JUNK**", True), ("JUNK: nothing here", False),
     ("# Note\nThe JUNK drawer module was refactored", False), ("", False)],
)
def test_exact_junk_rule(answer: str, junk: bool) -> None:
    assert is_junk(answer) is junk


def test_think_blocks_are_stripped() -> None:
    assert strip_think("<think>secret plan</think>\n# Note\nbody") == "# Note\nbody"
    assert strip_think("<think>unterminated reasoning that never ends") == ""
    assert strip_think("<think>a</think>JUNK") == "JUNK"


def test_note_front_matter_round_trip() -> None:
    assert read_note_meta("---\nsource_id: x\ntopic: t\n---\n\nbody") == {"source_id": "x", "topic": "t"}
    assert read_note_meta("no front matter") == {}
    assert read_note_meta("---\n: [broken\n---\nbody") == {}
