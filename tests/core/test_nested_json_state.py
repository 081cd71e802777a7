"""A state or cache file of the data home holding JSON nested deeper than Python's recursion limit.

``json.loads`` raises ``RecursionError`` (not ``ValueError``) for it, so a reader that caught only
``ValueError`` crashed with a traceback every run (a reviewer's `[`×200,000 in a route-profile cache
made every `memctl ask` fail). Each reader must treat it as the damaged file it is: a cache is rebuilt
or ignored, a state file is a domain error with an exit code — never a RecursionError.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from memctl.config import DataHome, Settings
from memctl.exit_codes import ExitCodeError

DEEP = "[" * 200_000 + "\n"
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def _route_cache(home: DataHome) -> object:
    from memctl.catalog.topic_profiles import TopicProfiles

    home.route_cache.mkdir(parents=True, exist_ok=True)
    (home.route_cache / "alpha.vec").write_text(DEEP)
    return TopicProfiles(Settings(home=home.root), home)._load("alpha")


def _topic_index(home: DataHome) -> object:
    from memctl.catalog.topic_index import TopicIndex

    home.topic_index.parent.mkdir(parents=True, exist_ok=True)
    home.topic_index.write_text(DEEP)
    return TopicIndex.load(home.topic_index)


def _checkpoint(home: DataHome) -> object:
    from memctl.catalog.checkpoint import Checkpoint

    home.progress.parent.mkdir(parents=True, exist_ok=True)
    home.progress.write_text(DEEP)
    return Checkpoint(home.progress, home.skipped)


def _ledger(home: DataHome) -> object:
    from memctl.ingest.graph_ledger import _read, ledger_path

    ledger_path(home).parent.mkdir(parents=True, exist_ok=True)
    ledger_path(home).write_text(DEEP_OBJECT)
    return _read(home)


def _sleep_state(home: DataHome) -> object:
    from memctl.sleep.state import SleepState

    home.sleep_state.parent.mkdir(parents=True, exist_ok=True)
    home.sleep_state.write_text(DEEP)
    return SleepState(home.sleep_state)


def _journal(home: DataHome) -> object:
    from memctl.forget.journal import Journal, journal_path

    journal_path(home).parent.mkdir(parents=True, exist_ok=True)
    journal_path(home).write_text(DEEP)
    return Journal(home)


def _location(home: DataHome) -> object:
    from memctl.graph.relocate import read_record

    home.location.parent.mkdir(parents=True, exist_ok=True)
    home.location.write_text(DEEP_OBJECT)
    return read_record(home)


def _registry(home: DataHome) -> object:
    from memctl.catalog.topics import TopicRegistry

    path = home.root / "topics.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEEP)
    return TopicRegistry.load(path)


@pytest.mark.parametrize("reader", [_route_cache, _topic_index, _checkpoint, _ledger, _sleep_state, _journal,
                                    _location, _registry], ids=lambda f: f.__name__.strip("_"))
def test_deeply_nested_json_is_a_damaged_file_not_a_crash(tmp_path: Path, reader: Callable[[DataHome], object]) -> None:
    home = DataHome(tmp_path / "var")
    try:
        reader(home)
    except RecursionError as exc:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"{reader.__name__}: RecursionError escaped: {exc}")
    except ExitCodeError as exc:  # a state file: refused with a message and an exit code
        assert exc.exit_code > 0 and str(exc)
