"""Every JSON state file of the data home goes through one typed reader: a damaged file is one error kind.

For each state file (checkpoint, skipped list, topics, topic index, sleep state, graph ledger, Cognee
rejections, forget journal, location, consolidation cache, note-index manifest, route-profile header)
and each kind of damage (truncated, not JSON, not UTF-8, nested past the recursion limit, the wrong
type, a directory in its place), :func:`memctl.state_file.read_state` with the file's model raises
:class:`memctl.state_file.StateFileError` naming the file; the owner's own reader either raises that
error (a record a run depends on) or falls back to its documented default (a cache or a report). And
files as earlier versions wrote them read and write back byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from memctl.config import DataHome, Settings
from memctl.exit_codes import HOME
from memctl.state_file import StateFileError, parse_state, read_state

DAMAGE = {
    "truncated": b'{"sources": {"ses_1": {"status": "disti',
    "not-json": b"this is not json\n",
    "not-utf8": b'{"sources": "\xff\xfe"}',
    "deep-list": b"[" * 200_000 + b"\n",
    "deep-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "wrong-type": b'["a", "list", "where", "an", "object", "belongs"]\n',
    "wrong-field-type": b'{"sources": 3, "paths": 3, "topics": 3, "dirty": 3, "notes": 3, "rejections": 3, '
                        b'"done": 3, "root": 3, "text": 3, "keys": 3, "version": 1, "format": 1}\n',
}


def _models() -> dict[str, tuple[Callable[[DataHome], Path], type]]:
    """State file → (its path in a data home, the model its reader validates it with)."""
    from memctl.catalog.checkpoint import ProgressFile, SkippedFile
    from memctl.catalog.note_search import _Manifest
    from memctl.catalog.topic_index import _IndexFile
    from memctl.catalog.topic_profiles import _ProfileHeader
    from memctl.catalog.topics import TopicsFile
    from memctl.forget.journal import JournalFile, journal_path
    from memctl.graph.embedding_record import EmbeddingRecord
    from memctl.graph.rejections import RejectionsFile
    from memctl.graph.relocate import LocationFile
    from memctl.ingest.graph_ledger import LedgerFile, ledger_path
    from memctl.sleep.consolidate import ConsolidateCacheEntry
    from memctl.sleep.state import SleepStateFile

    return {
        "progress": (lambda h: h.progress, ProgressFile),
        "skipped": (lambda h: h.skipped, SkippedFile),
        "topics": (lambda h: h.topics, TopicsFile),
        "topic_index": (lambda h: h.topic_index, _IndexFile),
        "sleep_state": (lambda h: h.sleep_state, SleepStateFile),
        "ledger": (ledger_path, LedgerFile),
        "rejections": (lambda h: h.graph_rejections, RejectionsFile),
        "journal": (journal_path, JournalFile),
        "location": (lambda h: h.location, LocationFile),
        "graph_embedding": (lambda h: h.graph_embedding, EmbeddingRecord),
        "consolidate_cache": (lambda h: h.consolidate_cache / "k.json", ConsolidateCacheEntry),
        "note_manifest": (lambda h: h.note_index / "alpha" / "manifest.json", _Manifest),
        "route_header": (lambda h: h.route_cache / "alpha.json", _ProfileHeader),
    }


STATE_FILES = sorted(_models())


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("name", STATE_FILES)
def test_a_damaged_state_file_is_one_error_naming_the_file(tmp_path: Path, name: str, damage: str) -> None:
    home = DataHome(tmp_path / "home")
    where, model = _models()[name]
    path = where(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(DAMAGE[damage])
    with pytest.raises(StateFileError) as err:
        read_state(path, model)
    message = str(err.value)
    assert str(path) in message and "\n" not in message and err.value.path == path
    assert err.value.exit_code == HOME


@pytest.mark.parametrize("name", STATE_FILES)
def test_a_directory_where_a_state_file_belongs_is_the_same_error(tmp_path: Path, name: str) -> None:
    where, model = _models()[name]
    path = where(DataHome(tmp_path / "home"))
    path.mkdir(parents=True)
    with pytest.raises(StateFileError, match=str(path)):
        read_state(path, model)


@pytest.mark.parametrize("name", STATE_FILES)
def test_a_missing_state_file_is_none(tmp_path: Path, name: str) -> None:
    where, model = _models()[name]
    assert read_state(where(DataHome(tmp_path / "home")), model) is None
    (tmp_path / "file").write_text("a file where the data home belongs")  # the home's own check refuses it
    assert read_state(where(DataHome(tmp_path / "file")), model) is None


def test_the_reason_says_where_the_shape_is_wrong(tmp_path: Path) -> None:
    from memctl.catalog.topics import TopicsFile

    path = tmp_path / "topics.json"
    with pytest.raises(StateFileError) as err:
        parse_state(b'{"paths": {"/x": 3}}', TopicsFile, path=path, problem="is not a topics file", fix="move it")
    assert str(err.value) == f"{path} is not a topics file (paths./x: Input should be a valid string); move it"
    with pytest.raises(StateFileError, match=r"\(nested too deeply\)"):
        parse_state(DAMAGE["deep-list"], TopicsFile, path=path)


# -- the owners' readers: a record refuses, a cache or report falls back ----------------------------------


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _refusing_readers() -> dict[str, Callable[[DataHome], Any]]:
    from memctl.catalog.checkpoint import Checkpoint
    from memctl.catalog.topic_index import TopicIndex
    from memctl.catalog.topics import TopicRegistry
    from memctl.forget.journal import Journal
    from memctl.graph.embedding_record import embedding_mismatch
    from memctl.sleep.state import SleepState

    return {
        "progress": lambda h: Checkpoint(h.progress, h.skipped),
        "skipped": lambda h: Checkpoint(h.progress, h.skipped),
        "topics": lambda h: TopicRegistry.load(h.topics),
        "topic_index": lambda h: TopicIndex.load(h.topic_index),
        "sleep_state": lambda h: SleepState(h.sleep_state),
        "journal": lambda h: Journal(h).pending(),
        "graph_embedding": lambda h: embedding_mismatch(Settings(home=h.root), h),
    }


@pytest.mark.parametrize("damage", ["truncated", "deep-list", "wrong-type", "not-utf8"])
@pytest.mark.parametrize("name", sorted(_refusing_readers()))
def test_a_record_a_run_depends_on_refuses_a_damaged_file(tmp_path: Path, name: str, damage: str) -> None:
    home = DataHome(tmp_path / "home")
    path = _write(_models()[name][0](home), DAMAGE[damage])
    with pytest.raises(StateFileError) as err:
        _refusing_readers()[name](home)
    assert str(path) in str(err.value) and err.value.exit_code == HOME


def _tolerant_readers() -> dict[str, Callable[[DataHome], Any]]:
    from memctl.catalog.note_search import NoteSearch
    from memctl.catalog.topic_profiles import TopicProfiles
    from memctl.forget.plan import cache_entries_naming
    from memctl.graph.rejections import load_rejections
    from memctl.graph.relocate import read_record
    from memctl.ingest.graph_ledger import _read
    from memctl.store import MemoryStore

    return {
        "ledger": lambda h: _read(h) == {},
        "rejections": lambda h: load_rejections(h.graph_rejections) == [],
        "location": lambda h: read_record(h) is None,
        "consolidate_cache": lambda h: cache_entries_naming(h, {"memory/a.md"}, ["x"]) == [],
        "note_manifest": lambda h: NoteSearch(MemoryStore(h.store), h.note_index)._load("alpha", "f") is None,
        "route_header": lambda h: TopicProfiles(Settings(home=h.root), h)._load("alpha") is None,
    }


@pytest.mark.parametrize("damage", ["truncated", "deep-object", "wrong-type", "not-utf8"])
@pytest.mark.parametrize("name", sorted(_tolerant_readers()))
def test_a_cache_or_report_treats_a_damaged_file_as_absent(tmp_path: Path, name: str, damage: str) -> None:
    home = DataHome(tmp_path / "home")
    where = _models()[name][0]
    path = home.route_cache / "alpha.vec" if name == "route_header" else where(home)
    _write(path, DAMAGE[damage])
    assert _tolerant_readers()[name](home) is True


# -- formats unchanged: files as earlier versions wrote them read and write back byte for byte -------------


def _pretty(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def test_checkpoint_topics_and_sleep_state_round_trip_byte_for_byte(tmp_path: Path) -> None:
    from memctl.catalog.checkpoint import Checkpoint
    from memctl.catalog.topics import TopicRegistry
    from memctl.sleep.state import SleepState

    home = DataHome(tmp_path / "home")
    progress = _pretty({"format": 1, "sources": {"ses_1": {"status": "distilled", "session_updated": 5, "topic": "a",
                                                           "future_key": [1, 2], "updated": "2026-01-01T00:00:00Z"}}})
    skipped = _pretty({"ses_2": {"reason": "short", "skip_kind": "threshold", "updated": "2026-01-01T00:00:00Z"}})
    topics = _pretty({"format": 2, "paths": {"/w/a": "a"},
                      "projects": {"p1": {"topic": "a", "worktree": "/w/a", "aliases": [{"path": "/v/a", "name": "a"}]}}})
    sleep_state = _pretty({"dirty": {"a": ["memory/a/x.md"]}, "declined": [["user/a.md", "user/b.md"]]})
    _write(home.progress, progress)
    _write(home.skipped, skipped)
    _write(home.topics, topics)
    _write(home.sleep_state, sleep_state)

    checkpoint = Checkpoint(home.progress, home.skipped)
    assert checkpoint.entry("ses_1").extra == {"future_key": [1, 2]}
    checkpoint._save()
    registry = TopicRegistry.load(home.topics)
    assert registry.projects["p1"].aliases[0].path == "/v/a"
    registry._dirty = True
    registry.save()
    state = SleepState(home.sleep_state)
    assert state.dirty == {"a": ["memory/a/x.md"]}
    state.save()
    assert [home.progress.read_bytes(), home.skipped.read_bytes(), home.topics.read_bytes(),
            home.sleep_state.read_bytes()] == [progress, skipped, topics, sleep_state]


def test_rejections_and_journal_round_trip_byte_for_byte(tmp_path: Path) -> None:
    from memctl.forget.journal import Journal, journal_path
    from memctl.graph.rejections import load_rejections, update_rejections

    home = DataHome(tmp_path / "home")
    rows = [{"at": "2026-01-01T00:00:00Z", "dataset": "a", "path": "memory/a/x.md", "phase": "cognify",
             "reason": "ValueError: bad"}]
    rejections = _pretty({"rejections": rows, "version": 1})
    _write(home.graph_rejections, rejections)
    loaded = load_rejections(home.graph_rejections)
    assert [r.as_dict() for r in loaded] == rows
    update_rejections(home.graph_rejections, [("b", "memory/b/y.md")], ["cognify"], [])
    assert home.graph_rejections.read_bytes() == rejections  # nothing changed: not rewritten

    journal = _pretty({"command": "forget", "done": ["delete"], "format": 1, "key": "k", "plan": {"paths": ["x"]}})
    _write(journal_path(home), journal)
    pending = Journal(home).pending()
    assert pending is not None and pending["done"] == ["delete"] and pending["plan"] == {"paths": ["x"]}
    rewritten = Journal(home)
    rewritten.data = pending
    rewritten._save()
    assert journal_path(home).read_bytes() == journal
