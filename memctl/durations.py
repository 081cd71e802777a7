"""Durations and points in time as users type them: ``90m``, ``6h``, ``7d``; ``2026-11-01``.

One grammar for every flag that takes one (``ingest --since``, ``audit
--since``, ``schedule install --sleep-every``): a whole number and a unit,
``m``/``min`` (minutes), ``h`` (hours) or ``d`` (days), case-insensitive,
spaces allowed around it.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone

from memctl.exit_codes import UsageError

_DURATION = re.compile(r"^\s*(\d+)\s*(m|min|h|d)\s*$", re.IGNORECASE)
UNIT_SECONDS = {"m": 60, "min": 60, "h": 3600, "d": 86400}


class DurationError(UsageError, ValueError):
    """A duration or time a user typed cannot be read; the message shows accepted forms (exit 2)."""


def parse_duration(text: str) -> int:
    """``"90m"`` → 5400, ``"6h"`` → 21600, ``"1d"`` → 86400 (seconds; whole numbers only).

    Raises:
        DurationError: not ``<number><m|min|h|d>``.
    """
    match = _DURATION.match(text or "")
    if not match:
        raise DurationError(f"{text!r} is not a duration; use minutes, hours or days such as 90m, 6h or 1d")
    return int(match.group(1)) * UNIT_SECONDS[match.group(2).lower()]


def parse_since(value: str, now: float | None = None) -> datetime:
    """Parse ``--since``: an age (``7d``, ``12h``, ``30m``; before ``now``, epoch seconds, default the
    clock) or an ISO date/datetime (``2026-11-01``, ``2026-11-01T08:00``; UTC unless it names an offset).
    Returns an aware datetime.

    Raises:
        DurationError: with an example of the accepted forms.
    """
    value = value.strip()
    if _DURATION.match(value):
        try:
            return datetime.fromtimestamp((time.time() if now is None else now) - parse_duration(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError) as exc:
            raise DurationError(f"--since {value!r} reaches before the year 1; use a smaller age or a date") from exc
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise DurationError(f"cannot read --since {value!r}: use a date like 2026-11-01, a time like "
                            "2026-11-01T08:00, or an age like 7d / 12h") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
