"""The one scrub every session title passes before it is stored anywhere.

A title is shown to the user and written to the note's front matter, Cognee's documents,
``progress.json``/``skipped.json``, the topic index (and so the route cache's profiles) and the
sleep report, which all read it from one of those. Every writer calls :func:`scrub_title`
(or :func:`scrub_titles` for many at once): it applies the whole detector table
(:func:`memctl.scrub.core.scrub`), so a title is held to the same rules as the transcript.
"""

from __future__ import annotations

from collections.abc import Sequence

from memctl.scrub.core import scrub, scrub_texts

__all__ = ["scrub_title", "scrub_titles"]


def scrub_title(title: str) -> str:
    """``title`` with every secret replaced by ``[REDACTED:<kind>]``; idempotent; never raises.
    An empty title comes back as it was."""
    return scrub(title).text if title else title


def scrub_titles(titles: Sequence[str]) -> list[str]:
    """:func:`scrub_title` for many titles in one pass (same results, one scan of the joined text)."""
    return scrub_texts(list(titles))[0]
