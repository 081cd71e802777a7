"""Corroboration: does the user's own side of a session state what an agent proposes to remember about a control?

An agent's proposal carries its session (``staging/sessions/<session>/inbox/``). When that session's scrubbed
transcript is kept (``<home>/transcripts/<session>.md``, written by ingest), sleep can check a proposal that
*touches a control* — tests, review, approval, verification, signing, authentication, secrets, scanning,
protection, expiry, pushes and merges to shared branches, production, a command or an endpoint (the
:data:`memctl.validator.low_risk_control` control words, read in any of the languages of its stems) — against
the messages the person typed (``**User:** `` entries of the transcript; tool output, the assistant's text and
a parent agent's task prompt are not the person's). Such a proposal is *corroborated* when at least
:data:`SHARE` of its subject words (:func:`memctl.sleep.clustering.subject_words`) occur in those messages; when
not, sleep holds it (``uncorroborated:transcript``): a fact about a control that the person never stated came
from somewhere else (a file, a web page, a tool's output) and is exactly what an injected text would plant.

Corroboration only adds caution: it never promotes what the rules hold (:func:`memctl.sleep.trust.decide`).
Without a transcript (no session, never ingested, purged) nothing is checked and the rules decide alone.
Deterministic; never raises on ``str`` input.
"""

from __future__ import annotations

import re

from memctl.data_home import DataHome
from memctl.sleep.clustering import subject_words
from memctl.validator.low_risk_control import touches_control

__all__ = ["SHARE", "corroborated", "session_transcript", "user_messages"]

SHARE = 0.9
"""Share of a proposal's subject words that must occur in the person's messages for it to count as stated."""

_LABEL = re.compile(r"^\*\*(?:User|Assistant|Tool|User \(parent agent's task prompt\))\b[^\n]*?\*\*", re.MULTILINE)
_USER = "**User:** "


def user_messages(transcript: str) -> str:
    """The text of every ``**User:** `` entry of a scrubbed transcript (ingest's format), each up to the next
    entry label, joined by newlines; ``""`` when there is none."""
    parts: list[str] = []
    for match in re.finditer(r"^\*\*User:\*\* ", transcript, re.MULTILINE):
        following = _LABEL.search(transcript, match.end())
        parts.append(transcript[match.end(): following.start() if following else len(transcript)].strip())
    return "\n".join(parts)


def corroborated(content: str, transcript: str) -> bool:
    """True when ``content`` does not touch a control, or when the person's messages of ``transcript`` state
    it (module doc: :data:`SHARE` of its subject words occur there). Never raises on ``str`` input."""
    if not touches_control(content):
        return True
    words = subject_words(content)
    if not words:
        return True
    said = subject_words(user_messages(transcript))
    return len(words & said) / len(words) >= SHARE


def session_transcript(home: DataHome, session: str) -> str | None:
    """The scrubbed transcript of ``session`` (``<home>/transcripts/<session>.md``), or None when there is no
    session, none is kept or it cannot be read (the rules then decide alone). Never raises."""
    if not session or "/" in session or session.startswith("."):
        return None
    try:
        return home.transcript_path(session).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
