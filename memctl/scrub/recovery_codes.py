"""Two-factor recovery codes: the one-time codes an account prints for when the second factor is lost.

Services print them as a list under a heading (GitHub "recovery codes", Google "backup codes",
Google Authenticator PAM "emergency scratch codes", Dropbox/Bitwarden "recovery code", Apple and
BitLocker "recovery key"), one or several per line, or after a colon on the heading's line. Each
one signs in once without the second factor, so every code is a secret (kind ``recovery_code``).

Found: after a heading word (:data:`_HEADINGS`), the rest of its line after a ``:`` and the lines
that follow while they hold only code-like tokens (letters and digits in groups joined by ``-``,
separated by spaces, commas or semicolons, with an optional bullet or number); every token there
that holds a digit and at least four letters or digits is replaced. A line of words ends the list
("1. Download them" holds no code; "recovery codes are in 1Password" has no colon).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector

__all__ = ["RECOVERY_CODE_DETECTORS"]

_HEADINGS = ("recovery code", "backup code", "scratch code", "recovery key", "recovery-code", "backup-code",
             "wiederherstellungscode", "código de recuperación", "codes de récupération", "code de secours",
             "códigos de backup", "リカバリーコード", "バックアップコード", "恢复代码", "备用码", "복구 코드")
_TOKEN = r"[A-Za-z0-9]{2,32}(?:-[A-Za-z0-9]{2,32}){0,7}"
# A line of codes: an optional bullet, then codes, each optionally numbered ("1. 3852 9146   2. 6071 2384").
_CODE_LINE = re.compile(r"[ \t]*(?:[-*•>]+[ \t]*)?(?:(?:\d{1,2}[.)][ \t]+)?" + _TOKEN + r"[ \t,;]*)+")
_CODE = re.compile(r"(?<![\w-])" + _TOKEN + r"(?![\w-])")
_MAX_LINES = 24


def _codes_in(text: str, start: int, end: int) -> Iterator[Span]:
    for match in _CODE.finditer(text, start, end):
        code = match.group(0)
        if sum(c.isalnum() for c in code) >= 4 and any(c.isdigit() for c in code):
            yield match.start(), match.end(), "recovery_code"


def _recovery_code_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for heading in _HEADINGS:
        if heading not in gates:
            continue
        pos = lowered.find(heading)
        while pos != -1:
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end == -1 else line_end
            colon = text.find(":", pos, line_end)
            if colon == -1:
                colon = text.find("：", pos, line_end)
            if colon != -1:
                yield from _codes_in(text, colon + 1, line_end)
            # the lines after the heading, while they hold only codes
            for _ in range(_MAX_LINES):
                start = line_end + 1
                if start >= len(text):
                    break
                line_end = text.find("\n", start)
                line_end = len(text) if line_end == -1 else line_end
                if not text[start:line_end].strip() or _CODE_LINE.fullmatch(text, start, line_end) is None:
                    break
                yield from _codes_in(text, start, line_end)
            pos = lowered.find(heading, pos + len(heading))


RECOVERY_CODE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "recovery_code",
        finder=_recovery_code_spans,
        literals=_HEADINGS,
        requires=_HEADINGS,
        origin="memctl: two-factor recovery codes under their heading (GitHub, Google, PAM, Bitwarden, Apple)",
    ),
)
"""One finder for the layouts in the module docstring."""
