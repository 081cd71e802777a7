"""The values of ``memctl purge --secret-file F``: one a line, as a text editor wrote them.

Read as UTF-8 with any byte-order mark removed — at the start of the file (``utf-8-sig``) and at the
start of a line (files concatenated with ``cat`` keep each one's BOM), since a value never begins
with U+FEFF and one left in would match nothing. Lines end in LF or CRLF; blank lines (and a line
that held only a BOM or whitespace) are skipped. Other whitespace is part of the value.
"""

from __future__ import annotations

from pathlib import Path

from memctl.exit_codes import UsageError
from memctl.os_errors import describe

BOM = "\ufeff"


def parse_values(raw: bytes) -> list[str]:
    """The values in ``raw`` (see the module doc), in file order, duplicates kept.

    Raises:
        UnicodeDecodeError: ``raw`` is not UTF-8.
    """
    text = raw.decode("utf-8-sig")
    values = []
    for line in text.split("\n"):
        line = line.removesuffix("\r").lstrip(BOM)
        if line.strip():
            values.append(line)
    return values


def read_values(path: Path) -> list[str]:
    """The values of the secret file at ``path``; never echoes one.

    Raises:
        UsageError: unreadable, not UTF-8, or no value in it (exit 2).
    """
    try:
        values = parse_values(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read --secret-file {describe(exc, path)}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read --secret-file {path}: not UTF-8 text") from exc
    if not values:
        raise UsageError(f"--secret-file {path} holds no value (one value a line)")
    return values
