"""What is published into the store's memory/ passes the scrubber's detectors (memctl/ingest/publish.py)."""

from __future__ import annotations

from pathlib import Path

from memctl.catalog.checkpoint import Checkpoint
from memctl.config import DataHome
from memctl.ingest.publish import publish_notes
from memctl.store import MemoryStore

SECRETS = ("Sonnenblume42!", "Falcon8812", "Zq8vN2kLm4PxR7tYw3Hs")


def test_a_note_holding_secrets_is_published_scrubbed_and_stays_a_noop_after(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    checkpoint = Checkpoint(home.progress, home.skipped)
    checkpoint.mark_distilled("ses_pub", topic="alpha", title="Deploy", session_updated=1)
    note = home.note_path("ses_pub")
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("---\ntitle: Deploy\n---\n# Deploy\n\n- Kennwort=Sonnenblume42!\n- log in with password Falcon8812\n"
                    "- the staging key, just in case: Zq8vN2kLm4PxR7tYw3Hs\n- plain fact stays\n", encoding="utf-8")
    first = publish_notes(home)
    assert first.written == 1 and first.redacted == 3
    stored, _sha = MemoryStore(home.store).read_text("memory/alpha/ses_pub.md")
    assert all(secret not in stored for secret in SECRETS) and "plain fact stays" in stored
    again = publish_notes(home)
    assert again.written == 0  # the scrubbed text is what the store holds: nothing to do


def test_a_clean_note_is_published_as_it_is(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    Checkpoint(home.progress, home.skipped).mark_distilled("ses_ok", topic="alpha", title="Ok", session_updated=1)
    note = home.note_path("ses_ok")
    note.parent.mkdir(parents=True, exist_ok=True)
    text = "---\ntitle: Ok\n---\n# Ok\n\n- the password field maps to PasswordConfirmationValidatorFactory\n"
    note.write_text(text, encoding="utf-8")
    result = publish_notes(home)
    assert result.written == 1 and result.redacted == 0
    assert MemoryStore(home.store).read_text("memory/alpha/ses_ok.md")[0] == text
