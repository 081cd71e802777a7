"""Property-based attempts to escape the store root (hypothesis).

Whatever string a caller passes as a path, the store either refuses it with
InvalidPathError or touches a file inside ``<root>/{memory,user,staging}/``.
"""

from __future__ import annotations

import os
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from memctl.store import InvalidPathError, MemoryStore, ReadOnlyPrefixError
from memctl.store.policy import INTERNAL_PREFIXES, PUBLIC_PREFIXES, normalize_path

# Pieces an attacker would combine: traversal, separators, prefixes, unicode look-alikes and controls.
SEGMENTS = st.sampled_from([
    "..", ".", "", "/", "//", "\\", "~", "memory", "user", "staging", "audit", "versions", "etc", "passwd",
    "a.md", ".tmp", ".lock", "..\u2215", "\u2025", "\uff0e\uff0e", "\u2024\u2024", "\x00", "\n", "\t", "\u202e",
    "\u200b", "\ufeff", "C:", "%2e%2e", "..%2f", "e\u0301", "\ud800", "a" * 300, "x",
])
PATHS = st.one_of(
    st.lists(SEGMENTS, min_size=1, max_size=8).map("/".join),
    st.lists(SEGMENTS, min_size=1, max_size=8).map("".join),
    st.text(max_size=64),
)


def _inside_public_prefix(root: Path, canonical: str) -> bool:
    target = (root / canonical).resolve()
    return any(target.is_relative_to((root / p).resolve()) for p in PUBLIC_PREFIXES)


@given(PATHS)
@settings(max_examples=1500, deadline=None)
def test_normalized_paths_stay_inside_public_prefixes(path: str) -> None:
    try:
        canonical = normalize_path(path)
    except InvalidPathError:
        return
    parts = canonical.split("/")
    assert parts[0] in PUBLIC_PREFIXES and parts[0] not in INTERNAL_PREFIXES
    assert all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
    assert "\\" not in canonical and "\x00" not in canonical
    assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Cs") for ch in canonical)
    assert canonical == unicodedata.normalize("NFC", canonical)
    assert normalize_path(canonical) == canonical  # idempotent
    assert _inside_public_prefix(Path("/srv/store"), canonical)


@given(st.lists(PATHS, min_size=1, max_size=6))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_writes_never_touch_anything_outside_the_root(paths: list[str]) -> None:
    with tempfile.TemporaryDirectory() as sandbox_name:
        sandbox = Path(sandbox_name)
        (sandbox / "outside").mkdir()
        store = MemoryStore(sandbox / "store")
        for path in paths:
            for actor in ("ask", "ingest"):
                try:
                    store.write_text(path, "payload", actor=actor, reason="property test")
                except (InvalidPathError, ReadOnlyPrefixError):
                    continue
        assert set(os.listdir(sandbox)) <= {"outside", "store"}
        assert list((sandbox / "outside").iterdir()) == []
        for written in store.list(""):
            assert _inside_public_prefix(store.root, written)
        audit_paths = {r["path"] for r in store.audit.records()}
        assert audit_paths == set(store.list(""))
        for dirpath, _dirs, files in os.walk(store.root):
            rel = Path(dirpath).relative_to(store.root)
            top = rel.parts[0] if rel.parts else ""
            assert top in ("", *PUBLIC_PREFIXES, *INTERNAL_PREFIXES)
            if top == "memory":
                assert all(r["actor"] == "ingest" for r in store.audit.records() if r["path"].startswith("memory/"))
        assert store.verify(deep=True).ok


@given(PATHS)
@settings(max_examples=300, deadline=None)
def test_symlinked_parent_is_never_followed(path: str) -> None:
    with tempfile.TemporaryDirectory() as sandbox_name:
        sandbox = Path(sandbox_name)
        outside = sandbox / "outside"
        outside.mkdir()
        store = MemoryStore(sandbox / "store")
        (store.root / "user").mkdir(parents=True)
        (store.root / "user" / "link").symlink_to(outside)
        try:
            store.write_text("user/link/" + path, "payload", actor="sleep", reason="property test")
        except InvalidPathError:
            pass
        assert list(outside.iterdir()) == []
