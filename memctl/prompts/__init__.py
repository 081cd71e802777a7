"""The prompt templates (``memctl/prompts/<name>.md``, package data) and their loader.

Each template is Markdown with YAML front matter holding at least a
``version``; the version is recorded with every result the prompt produced
(notes, checkpoint entries, consolidations), and a new distill version
re-evaluates sessions previously skipped as JUNK.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from memctl.front_matter import FrontMatterError, split_front_matter


class PromptError(Exception):
    """A prompt template is missing or its front matter is invalid (a broken installation: a bug, not user input)."""


@dataclass(frozen=True)
class Prompt:
    """A versioned prompt template: ``name``, ``version`` (front matter) and ``body``."""

    name: str
    version: str
    body: str


def load_prompt(name: str) -> Prompt:
    """Load ``memctl/prompts/<name>.md`` (``importlib.resources``: works from a wheel or a zip too).

    Raises:
        PromptError: missing file, missing or unreadable front matter, or no ``version`` key.
    """
    try:
        raw = resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise PromptError(f"prompt template memctl/prompts/{name}.md not found") from exc
    try:
        meta, body = split_front_matter(raw)
    except FrontMatterError as exc:
        raise PromptError(f"memctl/prompts/{name}.md: {exc}") from exc
    if not meta.get("version"):
        raise PromptError(f"memctl/prompts/{name}.md front matter lacks a 'version'")
    return Prompt(name=name, version=str(meta["version"]), body=body.strip() + "\n")
