"""Bound: scrub every collected field on its full text, then cut it to its bound; sample entries to the budget.

The second stage of :func:`memctl.ingest.transcript.build_transcript`. Secrets
are replaced (:func:`memctl.scrub.core.scrub_texts`) before any cut, so a cut never
leaves half a secret behind; a field far longer than its bound is scrubbed only
in two windows around the kept head and tail. Every cut says how much was cut
(``… [truncated 12,345 chars]``). Sizes are characters.
"""

from __future__ import annotations

import re

from memctl.ingest.transcript_collect import Field
from memctl.scrub.core import multiline_secret_before, scrub_texts

# Fields far longer than their bound are scrubbed only in windows around the
# kept head and tail, reaching this far past each cut and then to whitespace
# (see _scrub_windows).
_SCRUB_WINDOW_MARGIN = 1024
_WHITESPACE_REACH = 16384
_WHITESPACE = re.compile(r"\s")
_LINE_SNAP = 200  # a cut moves to a line break this close, for readability


def _split_point(limit: int, head_share: float) -> tuple[int, int]:
    head = int(limit * head_share)
    return head, limit - head


def _head_end(text: str, end: int) -> int:
    """Where to end a kept head of about ``end`` chars.

    Snapped back to a line break when one is within :data:`_LINE_SNAP` chars
    (and a quarter of the head), and never inside a redaction marker.
    """
    end = min(end, len(text))
    newline = text.rfind("\n", max(0, end - min(_LINE_SNAP, end // 4)), end)
    if newline > 0:
        end = newline
    start = text.rfind("[REDACTED:", max(0, end - 40), end)
    if start != -1:
        close = text.find("]", start)
        if close == -1 or close >= end:
            return start
    return end


def _tail_start(text: str, start: int) -> int:
    """Where to start a kept tail of about ``len(text) - start`` chars.

    Snapped forward past a line break when one is within :data:`_LINE_SNAP`
    chars (and a quarter of the tail), and never inside a redaction marker.
    """
    start = max(0, start)
    newline = text.find("\n", start, start + min(_LINE_SNAP, (len(text) - start) // 4))
    if newline != -1 and newline + 1 < len(text):
        start = newline + 1
    begin = text.rfind("[REDACTED:", max(0, start - 40), start)
    if begin != -1:
        close = text.find("]", begin)
        if close != -1 and close >= start:
            return close + 1
    return start


def _join_cut(head_text: str, tail_text: str, cut: int) -> str:
    marker = f"… [truncated {cut:,} chars]"
    if tail_text:
        return f"{head_text}\n{marker}\n{tail_text}"
    return f"{head_text}\n{marker}"


def _bound(text: str, limit: int, head_share: float) -> tuple[str, int]:
    """Cut ``text`` to about ``limit`` chars (head + tail) plus a cut line; return (text, chars cut)."""
    if len(text) <= limit:
        return text, 0
    head, tail = _split_point(limit, head_share)
    head_text = text[: _head_end(text, head)]
    tail_text = text[_tail_start(text, len(text) - tail) :] if tail else ""
    cut = len(text) - len(head_text) - len(tail_text)
    return _join_cut(head_text, tail_text, cut), cut


def _bound_windows(head_window: str, tail_window: str, limit: int, head_share: float, total: int) -> tuple[str, int]:
    """Like :func:`_bound` for a field scrubbed as two windows of a ``total``-char text."""
    head, tail = _split_point(limit, head_share)
    head_text = head_window[: _head_end(head_window, head)]
    tail_text = tail_window[_tail_start(tail_window, len(tail_window) - tail) :] if tail else ""
    cut = max(0, total - len(head_text) - len(tail_text))
    return _join_cut(head_text, tail_text, cut), cut


def _scrub_windows(raw: str, limit: int | None, head_share: float) -> tuple[int, int] | None:
    """``(head_end, tail_start)`` of the two windows to scrub for an oversize field, or None.

    The windows reach :data:`_SCRUB_WINDOW_MARGIN` chars past the kept head
    and before the kept tail, then out to the nearest whitespace, so a
    whitespace-free secret (token, JWT, URL) is never split by a window edge
    and any shorter multi-word one (``password: …``) overlapping the kept text
    is seen whole. None (scrub everything) when the field is not much longer
    than its bound, no whitespace is near the edges, or a private key block
    starts before the tail window (a PEM body has no marker of its own).
    """
    if limit is None or len(raw) <= limit + 3 * _SCRUB_WINDOW_MARGIN:
        return None
    head, tail = _split_point(limit, head_share)
    found = _WHITESPACE.search(raw, head + _SCRUB_WINDOW_MARGIN, head + _SCRUB_WINDOW_MARGIN + _WHITESPACE_REACH)
    if found is None:
        return None
    head_end = found.start()
    tail_edge = len(raw) - tail - _SCRUB_WINDOW_MARGIN
    tail_start = max(raw.rfind(c, max(0, tail_edge - _WHITESPACE_REACH), tail_edge) for c in " \n\t")
    if tail_start < 0 or tail_start <= head_end:
        return None
    if multiline_secret_before(raw, tail_start + 64):
        return None
    return head_end, tail_start


def scrub_and_bound(fields: list[Field]) -> dict[str, int]:
    """Scrub every field on its full text, then bound it; return redaction counts.

    A field much longer than its bound is scrubbed only in two windows around
    the kept head and tail (:func:`_scrub_windows`).

    Cut text is not scrubbed again: every secret was replaced on the full
    text, so a cut can only produce a look-alike of a secret out of
    non-secret text (e.g. a long identifier cut to 20 characters), never
    expose one.
    """
    inputs: list[str] = []
    for f in fields:
        raw = f.raw
        window = _scrub_windows(raw, f.limit, f.head_share)
        if window is not None:
            f.window = window
            inputs.append(raw[: window[0]])
            inputs.append(raw[window[1] :])
        else:
            inputs.append(raw)

    scrubbed, counts = scrub_texts(inputs)

    position = 0
    for f in fields:
        if f.window is not None:
            head_window, tail_window = scrubbed[position], scrubbed[position + 1]
            position += 2
            assert f.limit is not None
            f.text, f.cut = _bound_windows(head_window, tail_window, f.limit, f.head_share, len(f.raw))
        else:
            text = scrubbed[position]
            position += 1
            if f.limit is not None:
                f.text, f.cut = _bound(text, f.limit, f.head_share)
            else:
                f.text = text
    return counts


def sample_entries(sizes: list[int], budget: int, head_fraction: float) -> tuple[int, int]:
    """Head and tail sampling of entries of ``sizes`` chars to ``budget`` chars, ``head_fraction`` of it
    from the start: ``(head_count, tail_start)``, keep ``[:head_count]`` and ``[tail_start:]``."""
    total = sum(sizes)
    if total <= budget:
        return len(sizes), len(sizes)
    head_budget = int(budget * min(max(head_fraction, 0.0), 1.0))
    used = 0
    head_count = 0
    while head_count < len(sizes) and used + sizes[head_count] <= head_budget:
        used += sizes[head_count]
        head_count += 1
    tail_budget = budget - used - 100  # room for the omission marker
    tail_used = 0
    tail_start = len(sizes)
    while tail_start > head_count and tail_used + sizes[tail_start - 1] <= tail_budget:
        tail_used += sizes[tail_start - 1]
        tail_start -= 1
    return head_count, tail_start
