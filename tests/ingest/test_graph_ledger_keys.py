"""The graph ledger's note keys: the note's path relative to the store, the same however it is spelt.

Ingest builds every note path as ``home.store / <relative>``; keys are taken lexically for those (no
``resolve()`` per note: it was half of a no-op run) and by resolving for any other spelling, so a key
recorded by one run is found by the next.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memctl.config import DataHome
from memctl.ingest.graph_ledger import _store_key, record_settled, unsettled_notes


@pytest.mark.parametrize("spell, expected", [
    (lambda home: home.store / "memory" / "alpha" / "ses_1.md", "memory/alpha/ses_1.md"),
    (lambda home: home.store / "memory" / "beta" / ".." / "alpha" / "ses_1.md", "memory/alpha/ses_1.md"),
    (lambda home: Path(os.path.relpath(home.store / "memory" / "alpha" / "ses_1.md")), "memory/alpha/ses_1.md"),
    (lambda home: home.root / "elsewhere" / "ses_1.md", None),
    (lambda home: home.store / ".." / "outside.md", None),
])
def test_a_note_has_one_key_however_its_path_is_spelt(tmp_path: Path, spell, expected: str | None) -> None:  # noqa: ANN001
    home = DataHome(tmp_path / "var")
    (home.store / "memory" / "alpha").mkdir(parents=True)
    (home.store / "memory" / "beta").mkdir(parents=True)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert _store_key(home, spell(home)) == expected
    finally:
        os.chdir(cwd)


def test_a_home_reached_through_a_symlink_keys_notes_alike(tmp_path: Path) -> None:
    real = DataHome(tmp_path / "real")
    note = real.store / "memory" / "alpha" / "ses_1.md"
    note.parent.mkdir(parents=True)
    note.write_text("# a note\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    linked = DataHome(tmp_path / "link")
    assert _store_key(real, note) == _store_key(linked, linked.store / "memory" / "alpha" / "ses_1.md") \
        == _store_key(real, linked.store / "memory" / "alpha" / "ses_1.md") == "memory/alpha/ses_1.md"


def test_a_recorded_note_is_settled_and_an_edited_one_is_not(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    notes = []
    for n in range(3):
        path = home.store / "memory" / "alpha" / f"ses_{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# note {n}\n")
        notes.append(path)
    record_settled(home, {"alpha": notes})  # no Cognee database yet: its datasets hold nothing to lose
    assert unsettled_notes(home, [("alpha", p) for p in notes]) == 0
    notes[1].write_text("# note 1, edited\n")
    assert unsettled_notes(home, [("alpha", p) for p in notes]) == 1
    assert unsettled_notes(home, [("alpha", home.store / "memory" / "alpha" / "new.md")]) == 1  # never recorded
