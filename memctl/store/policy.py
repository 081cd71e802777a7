"""Path and actor policy of the memory store: the prefix is the access policy.

The storage model (README, "The memory store"):
``memory/`` is read-only ground truth that only ingestion writes, ``user/``
holds promoted memories, ``staging/`` untrusted proposals, ``review/`` the
proposals sleep held for a person to decide on (nothing that answers or
consolidates reads it: :mod:`memctl.sleep.review_queue`); ``audit/`` and
``versions/`` are the store's own and never addressable through the API.

A store path is a relative POSIX path such as ``user/global/editor.md``.
:func:`normalize_path` turns caller input into the one canonical spelling or
raises :class:`InvalidPathError`; the store only ever touches canonical paths.
"""

from __future__ import annotations

import re
import unicodedata

from memctl.store.errors import InvalidContentError, InvalidPathError, ReadOnlyPrefixError

PUBLIC_PREFIXES = ("memory", "user", "staging", "review")
TMP_PREFIX = ".memctl-"  # the store's temp files: short (leaves room for names up to NAME_MAX), never addressable
INTERNAL_PREFIXES = ("audit", "versions")

# Who may write under each public prefix. ``None``: any actor (quarantine).
# user/ is the trusted output of the sleep cycle's validator: the model-driven
# actors (ask, remember) may only propose into staging/. "cli" is a human
# acting through `memctl rollback`; "person" a decision taken in `memctl review`
# on an interactive terminal. review/ is written by sleep (it holds a proposal)
# and by a person's decision, never by ask, remember or the MCP server.
WRITERS: dict[str, frozenset[str] | None] = {
    "memory": frozenset({"ingest"}),
    "user": frozenset({"sleep", "cli", "person"}),
    "staging": None,
    "review": frozenset({"sleep", "person"}),
}

MAX_PATH_BYTES = 1024
MAX_NAME_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_DEPTH = 16
MAX_REASON_CHARS = 2000
_ACTOR = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")
_DRIVE = re.compile(r"^[A-Za-z]:")


def _bad(path: object, why: str) -> InvalidPathError:
    return InvalidPathError(f"invalid store path {path!r}: {why}")


def normalize_path(path: str, *, prefix_only: bool = False) -> str:
    """Return the canonical form of a store path, or raise.

    Normalisation: Unicode NFC (macOS file systems hand back NFD), empty and
    ``.`` components dropped (``user//a/./b`` → ``user/a/b``).

    Args:
        path: caller input, e.g. ``"user/global/editor.md"``.
        prefix_only: accept a bare prefix or directory (``"user"``,
            ``"memory/alpha/"``) for listing; ``""`` then means everything.

    Raises:
        InvalidPathError: not a string; NUL, control, format (zero-width,
            bidi) or line-separator characters; a backslash; absolute or
            drive-letter paths; a ``..`` component; a component starting with
            ``.`` (reserved for the store's temp and lock files), equal to
            ``~``, or with leading/trailing whitespace; a trailing ``/`` for a file; a name over 255 bytes, a path over 1024 bytes or deeper than
            16; an internal prefix (``audit/``, ``versions/``) or none of the
            public ones; a bare prefix where a file is required.
    """
    if not isinstance(path, str):
        raise _bad(path, "a store path is a string")
    if prefix_only and path.strip("/") == "":
        if path.startswith("/"):
            raise _bad(path, "absolute paths are not allowed; use a path relative to the store, e.g. user/…")
        return ""
    for ch in path:
        if ch == "\x00":
            raise _bad(path, "contains a NUL character")
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            raise _bad(path, f"contains the control or invisible character U+{ord(ch):04X}")
    if "\\" in path:
        raise _bad(path, "contains a backslash; store paths use '/'")
    if path.startswith("/") or _DRIVE.match(path):
        raise _bad(path, "absolute paths are not allowed; use a path relative to the store, e.g. user/…")
    path_nfc = unicodedata.normalize("NFC", path)
    parts = [p for p in path_nfc.split("/") if p not in ("", ".")]
    if not parts:
        raise _bad(path, "empty path")
    for part in parts:
        if part == "..":
            raise _bad(path, "'..' components are not allowed")
        if part.startswith("."):
            raise _bad(path, f"component {part!r} is reserved (names starting with '.' belong to the store)")
        if part == "~":
            raise _bad(path, "'~' is not expanded in store paths; name the file relative to the store")
        if part != part.strip():
            raise _bad(path, f"component {part!r} starts or ends with whitespace")
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise _bad(path, f"a name is longer than {MAX_NAME_BYTES} bytes")
    canonical = "/".join(parts)
    if len(canonical.encode("utf-8")) > MAX_PATH_BYTES:
        raise _bad(path, f"longer than {MAX_PATH_BYTES} bytes")
    if len(parts) > MAX_DEPTH:
        raise _bad(path, f"deeper than {MAX_DEPTH} levels")
    if parts[0] in INTERNAL_PREFIXES:
        raise _bad(path, f"{parts[0]}/ is internal to the store and never addressable")
    if parts[0] not in PUBLIC_PREFIXES:
        raise _bad(path, f"must start with one of {', '.join(p + '/' for p in PUBLIC_PREFIXES)}")
    if len(parts) == 1 and not prefix_only:
        raise _bad(path, f"{parts[0]}/ is a prefix, not a file; name a file under it")
    if not prefix_only and path_nfc.rstrip().endswith("/"):
        raise _bad(path, "ends with '/': name a file, not a directory")
    return canonical


def check_actor(actor: str) -> str:
    """Validate an actor name (``ingest``, ``sleep``, ``ask``, ``remember``, ``cli``, …).

    Raises:
        InvalidContentError: not 1–64 chars of ``[a-z0-9_.:-]`` starting with a letter.
    """
    if not isinstance(actor, str) or not _ACTOR.match(actor):
        raise InvalidContentError(
            f"invalid actor {actor!r}: use 1-64 lowercase letters, digits or _.:- starting with a letter"
        )
    return actor


def check_reason(reason: str) -> str:
    """Validate the human-readable reason recorded in the audit log.

    Raises:
        InvalidContentError: empty/blank, or longer than 2000 characters.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidContentError("every change needs a reason (a short sentence for the audit log)")
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidContentError(f"reason is {len(reason)} characters; keep it under {MAX_REASON_CHARS}")
    return reason


def check_may_write(canonical_path: str, actor: str) -> None:
    """Raise :class:`ReadOnlyPrefixError` unless ``actor`` may write ``canonical_path``.

    The rule table is :data:`WRITERS`.
    """
    prefix = canonical_path.split("/", 1)[0]
    allowed = WRITERS.get(prefix, frozenset())
    if allowed is not None and actor not in allowed:
        who = ", ".join(sorted(allowed)) or "nobody"
        raise ReadOnlyPrefixError(f"{prefix}/ is read-only to actor {actor!r} (only {who} may write it): {canonical_path}")


def is_canonical(path: str) -> bool:
    """Whether ``path`` is already in canonical form (what :func:`normalize_path` returns for it); False for a path
    :func:`normalize_path` refuses."""
    try:
        return normalize_path(path) == path
    except InvalidPathError:
        return False
