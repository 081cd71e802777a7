"""Phase 1's model step: transcript → Markdown work-history note (or JUNK).

Talks to Ollama through the official ``ollama`` Python client (``/api/chat``,
``OLLAMA_HOST``). The prompt is ``prompts/distill.md``; its front matter
``version`` is recorded in every note and in the checkpoint, and a new version
re-evaluates sessions previously skipped as JUNK (ingester design).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources

import httpx
import ollama
import yaml

from connectors.model import SessionInfo
from memctl.config import Settings
from memctl.scrub import scrub
from memctl.transcript import UNTITLED, derive_title

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)
_JUNK_DECORATION = " \t\r\n.*_`'\"!"


class PromptError(Exception):
    """A prompt template is missing or its front matter is invalid."""


class DistillError(Exception):
    """One distillation attempt failed (HTTP error, timeout, empty output, missing model).

    The message is user-facing; the session is recorded as ``error`` and retried next run.
    ``retryable`` is False when retrying cannot help (a model that is not pulled).
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass(frozen=True)
class Prompt:
    """A versioned prompt template: ``name``, ``version`` (front matter) and ``body``."""

    name: str
    version: str
    body: str


def load_prompt(name: str) -> Prompt:
    """Load ``prompts/<name>.md``: YAML front matter between ``---`` lines, then the body.

    Raises:
        PromptError: missing file, missing front matter, or no ``version`` key.
    """
    try:
        raw = resources.files("prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise PromptError(f"prompt template prompts/{name}.md not found") from exc
    if not raw.startswith("---\n"):
        raise PromptError(f"prompts/{name}.md has no front matter (it must start with '---')")
    try:
        header, body = raw[4:].split("\n---\n", 1)
        meta = yaml.safe_load(header) or {}
    except (ValueError, yaml.YAMLError) as exc:
        raise PromptError(f"prompts/{name}.md has unreadable front matter: {exc}") from exc
    if not meta.get("version"):
        raise PromptError(f"prompts/{name}.md front matter lacks a 'version'")
    return Prompt(name=name, version=str(meta["version"]), body=body.strip() + "\n")


def strip_think(text: str) -> str:
    """Remove ``<think>…</think>`` blocks (reasoning models emit them; an unclosed one runs to the end)."""
    return _THINK_BLOCK.sub("", text).strip()


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
    """Calls the distill model. Thread-safe: one ``ollama.Client`` (httpx) shared by workers."""

    def __init__(self, settings: Settings, prompt: Prompt | None = None) -> None:
        self.settings = settings
        self.prompt = prompt or load_prompt("distill")
        self.model = settings.distill_model
        self.client = ollama.Client(host=settings.ollama_base_url, timeout=settings.request_timeout_s)

    def _response_error(self, exc: ollama.ResponseError) -> DistillError:
        """Ollama's error reply as a DistillError; 404 means the model is not pulled."""
        if exc.status_code == 404:
            return DistillError(
                f"model {self.model!r} is not available on {self.settings.ollama_base_url}: run `ollama pull {self.model}`",
                retryable=False,
            )
        return DistillError(f"Ollama returned HTTP {exc.status_code}: {exc.error}")

    def preflight(self) -> None:
        """Check once, before any session is sent, that Ollama answers and has the model.

        Raises:
            DistillError: naming the fix (start Ollama / set OLLAMA_HOST, or ``ollama pull``).
        """
        try:
            self.client.show(self.model)
        except ollama.ResponseError as exc:
            raise self._response_error(exc) from exc
        except (httpx.HTTPError, ConnectionError) as exc:
            raise DistillError(
                f"cannot reach Ollama at {self.settings.ollama_base_url} ({exc}): start it (`ollama serve`) "
                "or point OLLAMA_HOST at it"
            ) from exc

    def distill(self, transcript_text: str) -> DistillOutcome:
        """Distill one transcript.

        Raises:
            DistillError: on HTTP errors, timeouts, connection failures, a
                missing model, or an empty answer.
        """
        try:
            response = self.client.chat(
                model=self.model,
                messages=[
                    {"role": "system", "content": self.prompt.body},
                    {"role": "user", "content": transcript_text},
                ],
                options={"temperature": 0, "num_ctx": self.settings.distill_num_ctx},
                stream=False,
            )
        except ollama.ResponseError as exc:
            raise self._response_error(exc) from exc
        except httpx.TimeoutException as exc:
            raise DistillError(f"Ollama did not answer within {self.settings.request_timeout_s:g} s") from exc
        except (httpx.HTTPError, ConnectionError) as exc:
            raise DistillError(f"cannot reach Ollama at {self.settings.ollama_base_url}: {exc}") from exc
        except ValueError as exc:  # a malformed body the client cannot decode
            raise DistillError(f"Ollama sent a malformed response: {exc}") from exc
        content = (response.message.content or "") if response.message else ""
        answer = strip_think(content)
        if not answer:
            raise DistillError("the model returned an empty answer")
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
    for a placeholder (:attr:`memctl.transcript.Transcript.title`); the
    replaced title is kept as ``original_title`` (scrubbed here). A session
    whose parent no longer exists (``info.parent_id`` on a root session)
    says so in ``orphaned_parent``.

    The bytes depend only on the session, the model output and the provenance
    (no wall-clock time), so re-adding an unchanged note to Cognee is a no-op
    (Cognee deduplicates by content hash).
    """
    meta = {
        "source": "opencode",
        "source_id": info.id,
        "topic": topic,
        "title": title if title is not None else scrub(info.title).text,
        **({"original_title": scrub(original_title).text} if original_title else {}),
        "session_created": _iso(info.time_created),
        "session_updated": _iso(info.time_updated),
        "directory": scrub(info.directory).text,
        "project_worktree": scrub(info.project_worktree).text,
        "opencode_version": info.version,
        "child_sessions": child_session_ids,
        **({"orphaned_parent": info.parent_id} if info.parent_id else {}),
        **({"continuation_of": continuation_of} if continuation_of else {}),
        "model": outcome.model,
        "prompt_version": outcome.prompt_version,
        "transcript_sha256": transcript_sha256,
    }
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{header}---\n\n{outcome.body.strip()}\n"


def summary_title(body: str) -> str | None:
    """A title taken from a note's (scrubbed) body: its first Markdown heading, else its
    first non-empty line (see :func:`memctl.transcript.derive_title`); None for an empty body.

    A line that only echoes the transcript's ``(untitled)`` header is passed over.
    """
    lines = [line for line in body.splitlines() if derive_title(line) not in (None, UNTITLED)]
    headings = [line for line in lines if line.lstrip().startswith("#")]
    return derive_title((headings or lines or [""])[0])


def read_note_meta(text: str) -> dict:
    """Parse a note's front matter; returns {} when absent or unreadable."""
    if not text.startswith("---\n"):
        return {}
    try:
        header, _ = text[4:].split("\n---\n", 1)
        meta = yaml.safe_load(header)
    except (ValueError, yaml.YAMLError):
        return {}
    return meta if isinstance(meta, dict) else {}


def sha256_text(text: str) -> str:
    """Hex SHA-256 of UTF-8 ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
