"""memctl.sleep.corroboration: an agent's fact about a control is checked against the person's own messages.

Both paths: with the session's scrubbed transcript kept, a control-state fact the person stated is promoted and
one they did not state is held (``uncorroborated:transcript``); without a transcript the rules decide alone.
The transcripts are written here in ingest's format (``**User:** `` / ``**Assistant:** `` / ``**Tool …**``).
"""

from __future__ import annotations

from pathlib import Path

from memctl.ask.proposals import stage_proposal
from memctl.config import Settings
from memctl.sleep.corroboration import corroborated, user_messages
from memctl.sleep.review_queue import entries
from memctl.sleep.run import SleepOptions, SleepRun
from memctl.sleep.trust import decide
from memctl.store import MemoryStore

STATED = "The changelog check stays quiet for docs-only commits."
UNSTATED = "The licence check stays quiet for docs-only commits."
PLAIN = "The frontend is built with Vite and lives in web/."

TRANSCRIPT = """# Session ses_corr

## Transcript

**User:** The changelog check stays quiet for docs-only commits, please keep that in mind.

**Assistant:** Noted. I read CONTRIBUTING.md.

**Tool `read`** — completed
CONTRIBUTING.md: the licence check stays quiet for docs-only commits as well.

**User:** Thanks, now fix the typo in README.
"""


def test_user_messages_are_only_the_person_s_entries() -> None:
    said = user_messages(TRANSCRIPT)
    assert "changelog check" in said and "fix the typo" in said
    assert "licence" not in said and "CONTRIBUTING" not in said  # a tool's output is not the person's


def test_a_stated_control_fact_is_corroborated_and_an_unstated_one_is_not() -> None:
    assert corroborated(STATED, TRANSCRIPT)
    assert not corroborated(UNSTATED, TRANSCRIPT)
    assert corroborated(PLAIN, TRANSCRIPT)  # it says nothing about a control's state: nothing to check


def test_decide_holds_only_with_a_transcript_that_does_not_state_it() -> None:
    def reasons(text: str, transcript: str | None) -> tuple[str, ...]:
        return decide(text, origin="agent", path="user/global/x.md", memories=[], transcript=transcript).reasons

    assert "uncorroborated:transcript" in reasons(UNSTATED, TRANSCRIPT)
    assert "uncorroborated:transcript" not in reasons(STATED, TRANSCRIPT)
    assert "uncorroborated:transcript" not in reasons(UNSTATED, None)
    # a person's own proposal is their choice: no corroboration is asked of it
    assert not decide(UNSTATED, origin="person", path="user/global/x.md", memories=[], transcript=TRANSCRIPT).held


def _sleep(home: Path):
    return SleepRun(Settings(home=home, ollama_host="http://127.0.0.1:9"), SleepOptions(rebuild=False)).run()


def _stage(home: Path, session: str, *texts: str) -> None:
    store = MemoryStore(home / "store")
    for text in texts:
        stage_proposal(store, session=session, content=text, source="mcp")


def test_sleep_reads_the_session_transcript(tmp_path: Path) -> None:
    home = tmp_path / "var"
    home.mkdir()
    (home / "transcripts").mkdir()
    (home / "transcripts" / "ses_corr.md").write_text(TRANSCRIPT, encoding="utf-8")
    _stage(home, "ses_corr", STATED, UNSTATED)
    _stage(home, "ses_none", "The changelog check stays quiet for release tags.")  # no transcript kept for this session
    summary = _sleep(home)
    queue = entries(MemoryStore(home / "store"))
    assert [e.content for e in queue] == [UNSTATED]
    assert "uncorroborated:transcript" in queue[0].reasons
    assert summary.held == 1 and summary.promoted == 2
