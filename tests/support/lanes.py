"""The suite's lanes for pytest-xdist: which tests must share one worker (a pytest plugin, loaded by tests/conftest.py).

Markers (registered in pyproject.toml):

``e2e``
    End to end: real Cognee/Kuzu/LanceDB/SQLite or real agent binaries. Every test in ``tests/e2e/`` has it
    (tests/e2e/conftest.py adds it by folder, so a new file there cannot forget it); a single e2e test inside a
    package folder carries it by decorator. ``./test.sh --fast`` leaves them out.
``slow``
    Not end to end, but too slow for the fast lane (tens of seconds on two cores): by decorator, or listed in
    :data:`SLOW` (a file or a test, with the figure that put it there).
``serial``
    Needs the machine to itself in some way: a port chosen free and then bound by a child (another worker could
    take it in between), or a signal or deadline timed against a child process's progress. Under
    ``pytest -n 2 --dist loadgroup`` every ``serial`` test runs in one worker, one after the other (xdist group
    ``serial``), never beside another serial test.

``spread``
    A module whose tests share a module-scoped fixture but may run in both workers: each worker builds the
    fixture once (one build more) instead of the module's tests queueing in one worker. For a module whose
    tests take minutes each, where the second build costs less than the queue.

Module-scoped fixtures: a test that uses a fixture of module, package or class scope (an ingested home, a
started server) is grouped with the other tests of its module (xdist group = the module's path), so the
fixture is built once, not once per worker. With ``--dist loadgroup`` a group runs in one worker; without
xdist the groups change nothing.

Source of the grouping rule: pytest-xdist's ``--dist loadgroup`` documentation ("tests grouped by the
``xdist_group`` mark ... are sent to the same worker").
"""

from __future__ import annotations

import pytest

SERIAL_GROUP = "serial"
# Tests marked `slow` here, by file or by test (a nodeid prefix, parameters left out), each with what it cost in
# the first parallel run of the fast lane (MEMCTL_TEST_TIMES log, two workers, load average 11-13 from other
# jobs on the two cores). Add one when a test that is not end to end takes tens of seconds.
SLOW = {
    "tests/cli/test_interrupt_phases.py": "signals in each real Cognee phase: 395 s for one case",
    "tests/graph/test_graph_failures.py::test_failures_of_the_model_server_network_and_stores_are_the_environments":
        "real Cognee against failing model servers and stores: 83 s for one case",
    "tests/catalog/test_topic_aliases.py::test_a_moved_repository_stays_one_topic_from_ingest_to_ask":
        "ingest and ask in real processes: 36 s",
    "tests/ingest/test_ingest_codex.py::test_cli_codex_home": "memctl processes over three sources: 24 s",
    "tests/ingest/test_ingest_codex.py::test_pool_workers_reopen_the_codex_source": "a process pool run: 18 s",
    "tests/ingest/test_ingest_codex.py::test_ask_cites_sessions_of_each_source_and_names_it":
        "an ask in a real process per question: 16-18 s each",
    "tests/cli/test_cli.py::test_not_a_database_and_foreign_schema": "several memctl processes: 23 s",
    "tests/cli/test_cli.py::test_doctor_detects_vectors_of_another_embedding_model": "doctor over a real graph: 47 s",
    "tests/cli/test_cli.py::test_doctor_all_green_and_dimension_check": "doctor over a real graph: 36 s",
    "tests/cli/test_cli_ask_sleep.py::test_remember_refuses_what_sleep_would_reject_and_writes_nothing":
        "a memctl process per refused text: 35 s",
    "tests/cli/test_run_sh.py::test_with_the_models_it_ingests_for_real_and_asks":
        "run.sh's real ingest (Cognee) and ask, twice: 253 s at load 15 (lanes2 branch, 7 Dec 23:25)",
    "tests/cli/test_log_routing.py::test_first_real_ingest_shows_memctl_lines_only":
        "a real ingest (Cognee) and two asks, each a memctl process: most of the file's 45 s (fast lane, load 3.8)",
    # From the first whole parallel run from a clean clone (two workers, load average 16-22 from other jobs):
    "tests/graph/test_knowledge_graph.py::test_offline_guard_fresh_process":
        "a fresh interpreter: Cognee import, add, cognify, search: 145 s (its own home; no later test needs it)",
}
_SHARED_SCOPES = ("module", "package", "class", "session")


def _uses_a_shared_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` requests a fixture defined in its own module with a scope wider than the test."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's FuncFixtureInfo: the fixtures the test closes over
    if info is None:
        return False
    module = getattr(item, "module", None)
    for definitions in info.name2fixturedefs.values():
        last = definitions[-1]
        if last.scope in _SHARED_SCOPES and module is not None and last.func.__module__ == module.__name__:
            return True
    return False


def is_slow(nodeid: str) -> bool:
    """Whether ``nodeid`` (``path::test[params]``) is listed in :data:`SLOW`, as its file or as its test."""
    return any(nodeid == key or nodeid.startswith((key + "::", key + "[")) for key in SLOW)


def group_of(item: pytest.Item) -> str | None:
    """The xdist group ``item`` belongs to: ``serial``, its module's path (shared fixture, unless ``spread``), or
    ``None``."""
    if item.get_closest_marker("serial"):
        return SERIAL_GROUP
    if _uses_a_shared_fixture(item) and not item.get_closest_marker("spread"):
        return item.nodeid.split("::", 1)[0]
    return None


def _group_suffix(item: pytest.Item) -> str:
    """What pytest-xdist appends to a grouped test's nodeid (``@`` + its group names, sorted, ``_``-joined)."""
    names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
    return "@" + "_".join(sorted(names)) if names else ""


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Give every test that needs one an ``xdist_group`` mark (see the module docstring); keep one given by hand.

    Then, in an xdist worker of ``--dist loadgroup``, make sure the group reached the nodeid: pytest-xdist 3.8.0
    writes ``item._nodeid``, which pytest 9.2 no longer reads (it keeps a structured ``item._id``), so every group
    would be dropped without a word (pytest-dev/pytest-xdist#1386 on GitHub; fix proposed in #1388). Here the suffix
    is written where pytest 9.2 reads it; with an older pytest, or once xdist writes it, nothing changes.
    """
    for item in items:
        if is_slow(item.nodeid) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if not item.get_closest_marker("xdist_group"):
            group = group_of(item)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))
    result = yield
    if getattr(config.option, "loadgroup", False):
        from _pytest.nodeid import NodeId  # pytest >= 9.2 only, and only reached there (items have `_id`)

        for item in items:
            suffix = _group_suffix(item)
            if suffix and not item.nodeid.endswith(suffix) and isinstance(getattr(item, "_id", None), NodeId):
                item._id = NodeId.parse(item.nodeid + suffix)
    return result


# -- a duration log, for choosing what is `slow` ----------------------------------------------------------

TIMES_VARIABLE = "MEMCTL_TEST_TIMES"  # a file path: every phase of every test appended as it ends


def pytest_configure(config: pytest.Config) -> None:
    """Read the log's path once, before any test runs (the isolation fixture clears every ``MEMCTL_*`` variable
    while a test runs); an xdist worker never writes it (its reports reach the main process, which does)."""
    import os

    global _TIMES
    _TIMES = None if hasattr(config, "workerinput") else os.environ.get(TIMES_VARIABLE) or None


_TIMES: str | None = None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With ``MEMCTL_TEST_TIMES=PATH``, append ``nodeid<TAB>phase<TAB>seconds<TAB>outcome`` per test phase to PATH.

    Written as each phase ends (a run cut short still leaves its figures); the sum of the seconds is what the
    tests cost one after the other, without collection. Under xdist only the main process writes (the workers'
    reports reach it), so a test is counted once.
    """
    if not _TIMES:
        return
    with open(_TIMES, "a", encoding="utf-8") as log:
        log.write(f"{report.nodeid}\t{report.when}\t{report.duration:.3f}\t{report.outcome}\n")
