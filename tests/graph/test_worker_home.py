"""Cognee's database workers start with HOME inside the data home (a fresh reviewer found Ladybug's empty
``~/.lbdb/extension/…`` folders in their own home after a sleep); memctl's own process keeps the user's HOME."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from memctl.graph.worker_spawn import confine_workers


def _write_home(out: str) -> None:
    Path(out).write_text(os.environ.get("HOME", ""))


def _spawned_home(tmp_path: Path, name: str) -> str:
    from cognee_db_workers import harness

    out = tmp_path / f"{name}.txt"
    context = multiprocessing.get_context("spawn")
    with harness.spawn_without_main():
        process = context.Process(target=_write_home, args=(str(out),))
        process.start()
    process.join(120)
    assert process.exitcode == 0
    return out.read_text()


def test_a_spawned_worker_gets_the_data_homes_folder_and_the_parent_keeps_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert confine_workers(tmp_path / "home" / "cognee" / "worker-home") is True
    assert _spawned_home(tmp_path, "first") == str(tmp_path / "home" / "cognee" / "worker-home")
    assert (tmp_path / "home" / "cognee" / "worker-home").is_dir()
    assert os.environ["HOME"] == str(tmp_path / "user")  # restored once the spawn is over
    # A later configure of another home moves later spawns there; wrapping twice is harmless.
    assert confine_workers(tmp_path / "other" / "cognee" / "worker-home") is True
    assert _spawned_home(tmp_path, "second") == str(tmp_path / "other" / "cognee" / "worker-home")
    assert os.environ["HOME"] == str(tmp_path / "user")


def test_a_worker_home_that_cannot_be_made_leaves_home_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    confine_workers(blocker / "worker-home")  # under a file: cannot be created
    assert _spawned_home(tmp_path, "blocked") == str(tmp_path / "user")
