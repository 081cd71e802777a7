"""A copied, moved or restored data home: Cognee's stored paths follow it (memctl.graph.relocate).

Fast, in-process tests on a database with Cognee 1.6.5's path columns (the real Cognee runs in
tests/e2e/test_home_relocation_e2e.py): which strings are rewritten and which are not, one transaction
(a failure inside it leaves the old paths), the data-home lock, the audit record, the refusal of paths
outside the home, and search hits that still name the old root.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from memctl.config import DataHome
from memctl.exit_codes import HomeBusyError
from memctl.graph import relocate
from memctl.graph.plain_text import copy_path
from memctl.store import MemoryStore
from tests.support.memctl_process import hold_lock

OWNER = "0318ac0a-8d72-4865-bf42-8c6811f903f2"


def _make_home(root: Path, *, note_name: str = "ses_a.md", with_copy: bool = True) -> DataHome:
    """A data home whose Cognee database holds the path columns a real ingest writes."""
    home = DataHome(root)
    db = relocate.cognee_db(home)
    db.parent.mkdir(parents=True)
    note = home.store / "memory" / "alpha" / note_name
    MemoryStore(home.store).write_text(f"memory/alpha/{note_name}", "a note", actor="ingest", reason="a note")
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE dataset_database (dataset_id TEXT PRIMARY KEY, vector_database_url TEXT, "
                     "graph_database_url TEXT, graph_database_name TEXT)")
        conn.execute("CREATE TABLE data (id TEXT PRIMARY KEY, raw_data_location TEXT, original_data_location TEXT, "
                     "external_metadata JSON)")
        conn.execute("CREATE TABLE pipeline_runs (id TEXT PRIMARY KEY, run_info JSON)")
        conn.execute("INSERT INTO dataset_database VALUES ('d1', ?, NULL, 'g.pkl')",
                     (f"{home.cognee}/system/databases/{OWNER}/v1.lance.db",))
        meta = json.dumps({"_cognee": {"source_uri": note.as_uri()}})
        conn.execute("INSERT INTO data VALUES ('n1', ?, ?, ?)",
                     ((home.cognee / "data" / OWNER / "text_1.txt").as_uri(), note.as_uri(), meta))
        if with_copy:
            copy = copy_path(home.cognee, note)
            conn.execute("INSERT INTO data VALUES ('n2', ?, ?, ?)",
                         ((home.cognee / "data" / OWNER / "text_2.txt").as_uri(), copy.as_uri(), meta))
        conn.execute("INSERT INTO pipeline_runs VALUES ('r1', ?)", (json.dumps({"data": repr([str(note)])}),))
    return home


def _values(home: DataHome) -> list[str]:
    with sqlite3.connect(relocate.cognee_db(home)) as conn:
        rows = conn.execute("SELECT vector_database_url FROM dataset_database").fetchall()
        rows += conn.execute("SELECT raw_data_location, original_data_location, external_metadata FROM data").fetchall()
        rows += conn.execute("SELECT run_info FROM pipeline_runs").fetchall()
    return [v for row in rows for v in row if v]


def _copy(home: DataHome, target: Path) -> DataHome:
    shutil.copytree(home.root, target, symlinks=True)
    return DataHome(target)


# -- which strings move ----------------------------------------------------------------------------

OLD, NEW = "/srv/a b/var", "/home/u/var"
MOVES = [  # (stored value, value after moving OLD → NEW)
    (f"{OLD}/cognee/system/databases/x/v.lance.db", f"{NEW}/cognee/system/databases/x/v.lance.db"),
    (f"file://{OLD}/cognee/data/x/text_1.txt", f"file://{NEW}/cognee/data/x/text_1.txt"),
    (f"file://{quote(OLD)}/store/memory/t/n.md", f"file://{quote(NEW)}/store/memory/t/n.md"),
    (json.dumps({"_cognee": {"source_uri": f"file://{quote(OLD)}/store/memory/t/n.md"}}),
     json.dumps({"_cognee": {"source_uri": f"file://{quote(NEW)}/store/memory/t/n.md"}})),
    (repr([f"{OLD}/store/memory/t/n.md", f"{OLD}/store/memory/t/m.md"]),
     repr([f"{NEW}/store/memory/t/n.md", f"{NEW}/store/memory/t/m.md"])),
    (OLD, NEW),
]
STAYS = [  # a longer sibling root, the root inside another path, a relative mention, other text
    f"{OLD}2/cognee/data/x.txt",
    f"/backup{OLD}/cognee/data/x.txt",
    f"file:///backup{quote(OLD)}/store/memory/t/n.md",
    "var/cognee/data/x.txt",
    "nothing to see here",
    f"{OLD}.old/store/memory/t/n.md",
]


@pytest.mark.parametrize(("stored", "moved"), MOVES)
def test_every_spelling_of_the_old_root_moves(stored: str, moved: str) -> None:
    home = DataHome(Path(NEW))
    assert relocate._moved_value(stored, [(OLD, NEW, NEW)], home) == moved


@pytest.mark.parametrize("stored", STAYS)
def test_other_paths_and_text_stay(stored: str) -> None:
    assert relocate._moved_value(stored, [(OLD, NEW, NEW)], DataHome(Path(NEW))) == stored


# -- a copied home -----------------------------------------------------------------------------------

def test_a_copied_home_is_relocated_once_with_an_audit_record_and_the_original_untouched(tmp_path: Path) -> None:
    original = _make_home(tmp_path / "original")
    assert relocate.ensure_location(original).old_root is None  # at its own place: only the record is written
    assert json.loads(original.location.read_text())["root"] == str(original.root)
    before = {p: p.read_bytes() for p in original.root.rglob("*") if p.is_file()}
    copy = _copy(original, tmp_path / "copy")
    assert relocate.pending_relocation(copy) == f"{original.root} → {copy.root}"
    done = relocate.ensure_location(copy)
    assert (done.old_root, done.new_root, done.values) == (str(original.root), str(copy.root), 8)
    values = _values(copy)
    assert values and not any(str(original.root) in v for v in values)
    assert all(str(copy.root) in v for v in values)
    # the plain copy's directory is named for the note's new path
    note = copy.store / "memory" / "alpha" / "ses_a.md"
    assert copy_path(copy.cognee, note).as_uri() in values
    record = json.loads(copy.location.read_text())
    assert record["root"] == str(copy.root) and record["previous"][-1]["root"] == str(original.root)
    events = [r for r in MemoryStore(copy.store).audit.records() if r["op"] == "relocate"]
    assert len(events) == 1 and str(original.root) in events[0]["reason"] and str(copy.root) in events[0]["reason"]
    report = MemoryStore(copy.store).verify(deep=True)
    assert report.ok and not report.deep_problems, report
    assert relocate.ensure_location(copy).old_root is None  # once
    assert len([r for r in MemoryStore(copy.store).audit.records() if r["op"] == "relocate"]) == 1
    assert {p: p.read_bytes() for p in original.root.rglob("*") if p.is_file()} == before


def test_a_home_without_a_record_is_relocated_from_the_root_its_vector_store_names(tmp_path: Path) -> None:
    original = _make_home(tmp_path / "old")  # a home from before location.json: no record
    moved = tmp_path / "new"
    original.root.rename(moved)
    home = DataHome(moved)
    assert relocate.ensure_location(home).old_root == str(original.root)
    assert not any(str(original.root) + "/" in v for v in _values(home))
    assert json.loads(home.location.read_text())["previous"] == [{"root": str(original.root),
                                                                 "real_root": str(original.root)}]


def test_a_failure_inside_the_transaction_leaves_the_old_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = _make_home(tmp_path / "original")
    relocate.ensure_location(original)
    copy = _copy(original, tmp_path / "copy")
    values, record = _values(copy), copy.location.read_bytes()
    log = (copy.store / "audit" / "log.jsonl").read_bytes()
    real_update = relocate._update_value
    calls = []

    def killed(*args):  # noqa: ANN002, ANN202
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt("killed mid-way")
        real_update(*args)

    monkeypatch.setattr(relocate, "_update_value", killed)
    with pytest.raises(KeyboardInterrupt):
        relocate.ensure_location(copy)
    assert len(calls) == 3
    assert _values(copy) == values  # the two updates before the kill were rolled back
    assert copy.location.read_bytes() == record and (copy.store / "audit" / "log.jsonl").read_bytes() == log
    monkeypatch.setattr(relocate, "_update_value", real_update)
    assert relocate.ensure_location(copy).values == 8  # the next open does it all


def test_a_moved_home_whose_lock_is_held_is_not_changed(tmp_path: Path) -> None:
    original = _make_home(tmp_path / "original")
    relocate.ensure_location(original)
    copy = _copy(original, tmp_path / "copy")
    values = _values(copy)
    holder = hold_lock(copy.lock_file, 60)
    try:
        with pytest.raises(HomeBusyError, match="moved or copied"):
            relocate.ensure_location(copy)
    finally:
        holder.kill()
        holder.wait()
    assert _values(copy) == values and json.loads(copy.location.read_text())["root"] == str(original.root)
    with copy.lock(wait=False):  # ingest and sleep hold the lock when they configure: no second flock
        assert relocate.ensure_location(copy).values == 8


@pytest.mark.parametrize("foreign", ["/elsewhere/cognee/data/x/t.txt", "file:///mnt/other/store/memory/t/n.md"])
def test_a_path_outside_every_root_of_the_home_is_refused_and_nothing_changes(tmp_path: Path, foreign: str) -> None:
    original = _make_home(tmp_path / "original")
    relocate.ensure_location(original)
    with sqlite3.connect(relocate.cognee_db(original)) as conn:
        conn.execute("INSERT INTO data VALUES ('n9', ?, NULL, NULL)", (foreign,))
    copy = _copy(original, tmp_path / "copy")
    values = _values(copy)
    problem = relocate.location_problem(copy)
    assert problem and "outside every place" in problem and "delete" in problem
    with pytest.raises(relocate.RelocationError):
        relocate.ensure_location(copy)
    assert _values(copy) == values


def test_search_hits_naming_an_old_root_map_into_the_store(tmp_path: Path) -> None:
    original = _make_home(tmp_path / "one")
    relocate.ensure_location(original)
    second = _copy(original, tmp_path / "two")
    relocate.ensure_location(second)
    third = _copy(second, tmp_path / "three")
    relocate.ensure_location(third)
    for root in (original.root, second.root, third.root):
        uri = (root / "store" / "memory" / "alpha" / "ses_a.md").as_uri()
        assert relocate.store_relative(uri, third) == "memory/alpha/ses_a.md"
    assert relocate.store_relative((tmp_path / "other" / "store" / "memory" / "x.md").as_uri(), third) is None
    assert relocate.store_relative(None, third) is None


def test_the_store_refuses_an_unknown_event() -> None:
    from memctl.store import InvalidContentError

    store = MemoryStore(Path("/nonexistent-memctl-store"))
    for op in ("write", "purge", ""):
        with pytest.raises(InvalidContentError):
            store.record_event(op, "cognee/x", actor="memctl", reason="r")
    with pytest.raises(InvalidContentError):
        store.record_event("relocate", "/abs/path", actor="memctl", reason="r")


def test_doctor_names_a_pending_relocation_and_fails_only_a_home_it_cannot_move(tmp_path: Path) -> None:
    from memctl.doctor import check_graph_location

    original = _make_home(tmp_path / "original")
    relocate.ensure_location(original)
    assert (check_graph_location(original).status, check_graph_location(original).detail) == ("ok", str(original.cognee))
    copy = _copy(original, tmp_path / "copy")
    check = check_graph_location(copy)
    assert check.status == "ok" and f"moved: {original.root} → {copy.root}" in check.detail
    with sqlite3.connect(relocate.cognee_db(copy)) as conn:
        conn.execute("INSERT INTO data VALUES ('n9', '/mnt/else/cognee/data/t.txt', NULL, NULL)")
    assert check_graph_location(copy).status == "fail"


# -- crafted roots and paths: after relocation every stored path lies in the home -------------------

def _crafted(tmp_path: Path, previous: list[dict] | None, stored: str) -> tuple[DataHome, list[str], bytes, bytes]:
    """A home recorded at ``tmp/orig`` with ``previous`` roots and one more stored path, copied to
    ``tmp/x/new`` (whose parent is ``tmp/x``)."""
    original = _make_home(tmp_path / "orig")
    relocate.ensure_location(original)
    record = json.loads(original.location.read_text())
    record["previous"] = previous if previous is not None else record["previous"]
    original.location.write_text(json.dumps(record))
    with sqlite3.connect(relocate.cognee_db(original)) as conn:
        conn.execute("INSERT INTO dataset_database VALUES ('d9', ?, NULL, 'g.pkl')", (stored,))
    (tmp_path / "x").mkdir()
    copy = _copy(original, tmp_path / "x" / "new")
    return copy, _values(copy), copy.location.read_bytes(), (copy.store / "audit" / "log.jsonl").read_bytes()


def _crafted_cases(tmp: Path) -> list[tuple[list[dict] | None, str]]:
    outside = f"{tmp}/x/outside/evil.lance.db"
    return [
        ([{"root": "/", "real_root": "/"}], outside),
        ([{"root": "/tmp", "real_root": "/tmp"}], outside),
        ([{"root": str(tmp), "real_root": str(tmp)}], f"{tmp}/elsewhere/evil.lance.db"),
        ([{"root": "tmp/x", "real_root": "tmp/x"}], outside),
        ([{"root": f"{tmp}/x/new/../outside", "real_root": f"{tmp}/x/outside"}], outside),
        ([{"root": f"{tmp}/x/new/../outside", "real_root": f"{tmp}/x/new/../outside"}], outside),
        ([{"root": f"{tmp}/x", "real_root": f"{tmp}/x"}], outside),  # the new home's parent
        (None, f"{tmp}/orig/../x/outside/evil.lance.db"),  # '..' escapes once the old root is rewritten
        (None, f"{tmp}/orig/cognee/../../x/new/../outside/v.lance.db"),
        ([{"root": "/", "real_root": "/"}], f"file://{tmp}/x/outside/evil.lance.db"),
        (None, f"file://{quote(str(tmp))}/x/new/../outside/n.md"),
        ([], f"{tmp}/x/cognee/system/databases/{OWNER}/v9.lance.db"),  # infers the new home's parent
    ]


@pytest.mark.parametrize("case", range(12))
def test_a_crafted_root_or_path_cannot_keep_a_stored_path_outside_the_home(tmp_path: Path, case: int) -> None:
    previous, stored = _crafted_cases(tmp_path)[case]
    home, values, record, log = _crafted(tmp_path, previous, stored)
    with pytest.raises(relocate.RelocationError) as raised:
        relocate.ensure_location(home, actor="import")
    assert raised.value.exit_code == 7 and "outside" in str(raised.value)
    assert (_values(home), home.location.read_bytes(), (home.store / "audit" / "log.jsonl").read_bytes()) == (
        values, record, log)  # nothing changed


@pytest.mark.parametrize("root", ["/", "/tmp", "rel/a", "/srv/a/../b", "/srv/..", "", "{parent}", "{home}",
                                  "{home}/.."])
def test_roots_that_could_claim_paths_outside_the_home_are_not_trusted(tmp_path: Path, root: str) -> None:
    home = DataHome(tmp_path / "h")
    root = root.format(parent=tmp_path, home=home.root)
    assert relocate._trusted_root(root, home) is False
    assert relocate._trusted_root(str(tmp_path / "old" / "h"), home) is True


# -- one record per move, one spelling per directory -------------------------------------------------

def test_two_threads_opening_a_moved_home_at_once_record_one_move(tmp_path: Path) -> None:
    import threading

    home = _make_home(tmp_path / "r0")
    relocate.ensure_location(home)
    for round_ in range(1, 7):
        moved = tmp_path / f"r{round_}"
        home.root.rename(moved)
        home = DataHome(moved)
        barrier, results, errors = threading.Barrier(2), [], []

        def open_home(actor: str, home: DataHome = home, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                results.append(relocate.ensure_location(home, actor=actor))
            except BaseException as exc:  # noqa: BLE001 - the assertion below shows it
                errors.append(exc)

        threads = [threading.Thread(target=open_home, args=(actor,)) for actor in ("ask", "prewarm")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        events = [r for r in MemoryStore(home.store).audit.records() if r["op"] == "relocate"]
        assert len(events) == round_, [e["reason"] for e in events]
        assert sorted(r.values for r in results) == [0, 8]
        record = json.loads(home.location.read_text())
        assert record["root"] == str(moved) and len(record["previous"]) == round_


def _spellings(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "k").mkdir()
    (tmp_path / "link").symlink_to(home)
    monkeypatch.chdir(tmp_path / "j")
    return [f"{tmp_path}/j/../rel/a", f"{tmp_path}/j/k/../../rel/./a", f"{tmp_path}/rel/a/", f"{tmp_path}/rel/a//",
            f"{tmp_path}/link", f"{tmp_path}/link/", "../rel/a", "k/../../rel/a/"]


@pytest.mark.parametrize("case", range(8))
def test_another_spelling_of_the_same_directory_is_no_move(tmp_path: Path, case: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    home = _make_home(tmp_path / "rel" / "a")
    relocate.ensure_location(home)
    record, log = home.location.read_bytes(), (home.store / "audit" / "log.jsonl").read_bytes()
    spelling = _spellings(tmp_path, home.root, monkeypatch)[case]
    again = DataHome(Path(spelling))
    assert ".." not in again.root.parts
    done = relocate.ensure_location(again, actor="ask")
    assert (done.old_root, done.values) == (None, 0)
    assert (again.location.read_bytes(), (again.store / "audit" / "log.jsonl").read_bytes()) == (record, log)
    assert relocate.pending_relocation(again) is None


def test_a_dotdot_after_a_symlink_names_the_directory_the_kernel_reaches(tmp_path: Path) -> None:
    (tmp_path / "deep" / "inner").mkdir(parents=True)
    (tmp_path / "deep" / "rel").mkdir()
    (tmp_path / "hop").symlink_to(tmp_path / "deep" / "inner")
    assert DataHome(tmp_path / "hop" / ".." / "rel").root == (tmp_path / "deep" / "rel").resolve()
    assert DataHome(tmp_path / "deep" / "inner" / ".." / "rel").root == tmp_path / "deep" / "rel"
    assert DataHome(tmp_path / "hop").root == tmp_path / "hop"  # a symlink alone is kept as spelt
