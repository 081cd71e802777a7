"""Phase 1's model step: transcript → Markdown work-history note (or JUNK).

One chat call per transcript through the shared Ollama client
(:mod:`memctl.ollama_client`). The prompt is ``memctl/prompts/distill.md``; its
front matter ``version`` is recorded in every note and in the checkpoint, and
a new version re-evaluates sessions previously skipped as JUNK.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from memctl.config import Settings
from memctl.connectors.model import SessionInfo
from memctl.front_matter import read_front_matter, render_front_matter
from memctl.ingest.transcript import UNTITLED, derive_title
from memctl.ollama_client import chat_once, check_model, client_for
from memctl.prompts import Prompt, load_prompt
from memctl.scrub.core import scrub
from memctl.scrub.title import scrub_title

_JUNK_DECORATION = " \t\r\n.*_`'\"!"


def is_junk(text: str) -> bool:
    """True when the model's whole answer is the word JUNK (whitespace, punctuation or
    Markdown emphasis around it tolerated; JUNK inside a longer note is not junk)."""
    return text.strip(_JUNK_DECORATION).upper() == "JUNK"


@dataclass(frozen=True)
class DistillOutcome:
    """Result of one model call: ``junk`` or a note ``body`` (think-stripped, scrubbed)."""

    junk: bool
    body: str
    model: str
    prompt_version: str


class Distiller:
    """Calls the distill model. Thread-safe: one client (httpx) shared by the workers."""

    def __init__(self, settings: Settings, prompt: Prompt | None = None) -> None:
        self.settings = settings
        self.prompt = prompt or load_prompt("distill")
        self.model = settings.distill_model
        self.client = client_for(settings, settings.request_timeout_s)

    def preflight(self) -> None:
        """Check once, before any session is sent, that Ollama answers and has the model.

        Raises:
            ModelError: naming the fix (start Ollama / set OLLAMA_HOST, or ``ollama pull``).
        """
        check_model(self.client, self.settings, self.model, self.settings.request_timeout_s)

    def distill(self, transcript_text: str) -> DistillOutcome:
        """Distill one transcript.

        Raises:
            ModelError: on HTTP errors, timeouts, connection failures, a missing
                model, a malformed reply or an empty answer (``retryable`` says
                whether another attempt may pass).
        """
        answer = chat_once(self.client, self.settings, model=self.model, timeout_s=self.settings.request_timeout_s,
                           messages=[{"role": "system", "content": self.prompt.body},
                                     {"role": "user", "content": transcript_text}],
                           options={"num_ctx": self.settings.distill_num_ctx})
        if is_junk(answer):
            return DistillOutcome(True, "", self.model, self.prompt.version)
        return DistillOutcome(False, scrub(answer).text, self.model, self.prompt.version)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if ms else ""


def render_note(
    info: SessionInfo,
    *,
    topic: str,
    outcome: DistillOutcome,
    transcript_sha256: str,
    child_session_ids: list[str],
    continuation_of: str | None = None,
    title: str | None = None,
    original_title: str | None = None,
) -> str:
    """Render an accepted note: YAML provenance front matter + the model's Markdown body.

    A continuation note (new parts of a session that grew after its note was
    accepted) names the original session in ``continuation_of``.

    ``title`` (scrubbed) replaces the session's own title, e.g. one derived
    for a placeholder (:attr:`memctl.ingest.transcript.Transcript.title`); the
    replaced title is kept as ``original_title`` (scrubbed here). A session
    whose parent no longer exists (``info.parent_id`` on a root session)
    says so in ``orphaned_parent``.

    The bytes depend only on the session, the model output and the provenance
    (no wall-clock time), so re-adding an unchanged note to Cognee is a no-op
    (Cognee deduplicates by content hash).
    """
    meta = {
        "source": info.source,
        "source_id": info.id,
        "topic": topic,
        "title": scrub_title(title if title is not None else info.title),
        **({"original_title": scrub_title(original_title)} if original_title else {}),
        "session_created": _iso(info.time_created),
        "session_updated": _iso(info.time_updated),
        "directory": scrub(info.directory).text,
        "project_worktree": scrub(info.project_worktree).text,
        ("opencode_version" if info.source == "opencode" else "source_version"): info.version,
        "child_sessions": child_session_ids,
        **({"orphaned_parent": info.parent_id} if info.parent_id else {}),
        **({"continuation_of": continuation_of} if continuation_of else {}),
        "model": outcome.model,
        "prompt_version": outcome.prompt_version,
        "transcript_sha256": transcript_sha256,
    }
    return render_front_matter(meta, outcome.body, blank_line=True)


def summary_title(body: str) -> str | None:
    """A title taken from a note's (scrubbed) body: its first Markdown heading, else its
    first non-empty line (see :func:`memctl.ingest.transcript.derive_title`); None for an empty body.

    A line that only echoes the transcript's ``(untitled)`` header is passed over.
    """
    lines = [line for line in body.splitlines() if derive_title(line) not in (None, UNTITLED)]
    headings = [line for line in lines if line.lstrip().startswith("#")]
    return derive_title((headings or lines or [""])[0])


def read_note_meta(text: str) -> dict:
    """A note's provenance front matter (see :func:`render_note`); ``{}`` when absent or unreadable."""
    return read_front_matter(text)
