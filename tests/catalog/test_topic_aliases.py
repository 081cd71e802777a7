"""A topic is an OpenCode project id: a moved or renamed checkout keeps its topic and gains an alias.

OpenCode keeps ``project.id`` (the repository's first commit) when a checkout
moves and re-points ``project.worktree``; sessions of the ``global`` project
(no repository) have only their directory. These tests hold: the slug of a
project never changes, every later path is an alias (topics.json, the topic
index, doctor), ``--project``/``--topic``/routing accept an alias, two
projects that share a name stay two topics, and a topics.json of the earlier
format (``{"paths": …}`` only) still loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.ask.routing import UnknownTopicError, lexical_route, route_question
from memctl.catalog.checkpoint import CheckpointError
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex, build_topic_index, describe
from memctl.catalog.topics import TopicAlias, TopicRegistry
from memctl.config import DataHome, Settings
from memctl.connectors.model import SessionInfo
from memctl.doctor import check_topics
from memctl.ingest.options import IngestOptions
from memctl.ingest.run import IngestRun
from tests.fakes.ollama_server import FakeOllama
from tests.support.cli_in_process import run_cli
from tests.support.crafted_opencode import CraftedDb, bash, text

REPO = Path(__file__).resolve().parents[2]


def _info(sid: str = "ses_1", project_id: str = "prj_1", worktree: str = "/home/dev/src/app",
          directory: str | None = None) -> SessionInfo:
    return SessionInfo(id=sid, title="t", directory=directory if directory is not None else worktree,
                       project_id=project_id, project_worktree=worktree, parent_id=None, time_created=1,
                       time_updated=2, version="1.18.34")


# -- the registry --------------------------------------------------------------------------------------

# (paths the one project had, in order) → the slug it keeps and the aliases it gains
MOVES = [
    pytest.param(["/home/dev/code/alpha", "/home/dev/code/orders-service"], "alpha", ["orders-service"], id="renamed"),
    pytest.param(["/home/dev/src/app", "/srv/work/app"], "app", ["app"], id="moved"),
    pytest.param(["/home/dev/a/billing", "/home/dev/b/payments", "/opt/x/ledger"], "billing", ["payments", "ledger"],
                 id="moved-twice"),
    pytest.param(["/w/Shop Front", "/w/shop_front_v2", "/w/Shop Front"], "shop-front", ["shop_front_v2"],
                 id="moved-back"),
    pytest.param(["/home/dev/Café", "/home/dev/cafe-app/"], "cafe", ["cafe-app"], id="unicode-and-trailing-slash"),
]


@pytest.mark.parametrize(("paths", "slug", "alias_names"), MOVES)
def test_a_moved_or_renamed_project_keeps_its_topic_and_gains_aliases(tmp_path: Path, paths: list[str], slug: str,
                                                                      alias_names: list[str]) -> None:
    registry = TopicRegistry(tmp_path / "topics.json")
    for n, path in enumerate(paths):
        assert registry.topic_for(_info(f"ses_{n}", "prj_moving", path)) == slug
        registry.save()
        registry = TopicRegistry.load(tmp_path / "topics.json")  # every step survives a reload
    current = paths[-1].rstrip("/")
    assert [a.name for a in registry.aliases_of(slug)] == alias_names
    assert registry.worktree_of(slug) == current and registry.slugs == [slug]
    assert {registry.paths[p.rstrip("/")] for p in paths} == {slug}
    data = json.loads((tmp_path / "topics.json").read_text())
    assert data["projects"]["prj_moving"]["topic"] == slug and data["projects"]["prj_moving"]["worktree"] == current
    for n, path in enumerate(paths):  # every name the project had selects its sessions
        info = _info(f"ses_{n}", "prj_moving", current)
        for wanted in (slug, path, path.rstrip("/").rsplit("/", 1)[-1], "prj_moving", *alias_names):
            assert registry.matches(info, wanted), wanted
        assert not registry.matches(info, "unrelated")


@pytest.mark.parametrize(("first", "second"), [
    (("prj_a", "/a/app"), ("prj_b", "/b/app")),
    (("prj_a", "/x/My App"), ("prj_b", "/y/my-app")),
    (("prj_a", "/home/dev/tools"), ("prj_b", "/home/dev/work/tools/")),
    (("prj_a", "/srv/api"), ("global", "/tmp/api")),
])
def test_two_projects_with_the_same_name_stay_two_topics(tmp_path: Path, first: tuple[str, str],
                                                         second: tuple[str, str]) -> None:
    registry = TopicRegistry(tmp_path / "topics.json")
    one = registry.topic_for(_info("ses_1", *first))
    two = registry.topic_for(_info("ses_2", *second, directory=second[1]))
    assert one != two and two.startswith(one + "-")
    registry.save()
    reloaded = TopicRegistry.load(tmp_path / "topics.json")
    assert reloaded.topic_for(_info("ses_3", *first)) == one
    assert reloaded.topic_for(_info("ses_4", *second, directory=second[1])) == two
    assert not reloaded.aliases_of(one) and not reloaded.aliases_of(two)
    assert not reloaded.matches(_info("ses_3", *first), two)


@pytest.mark.parametrize("old", ["/home/dev/code/alpha", "/srv/alpha", "/w/alpha/"])
def test_a_new_project_at_a_moved_projects_old_path_gets_its_own_topic(old: str) -> None:
    registry = TopicRegistry(None)
    assert registry.topic_for(_info("ses_1", "prj_old", old)) == "alpha"
    assert registry.topic_for(_info("ses_2", "prj_old", "/home/dev/code/orders")) == "alpha"
    newcomer = registry.topic_for(_info("ses_3", "prj_new", old))
    assert newcomer.startswith("alpha-")
    assert registry.topic_for(_info("ses_4", "prj_old", "/home/dev/code/orders")) == "alpha"
    assert registry.paths[old.rstrip("/")] == newcomer  # the directory now belongs to the new project


@pytest.mark.parametrize(("directory", "slug"), [
    ("/tmp/scratch-work", "scratch-work"), ("/home/dev/notes", "notes"), ("/", "misc"), ("", "misc"),
    ("/home/dev/Downloads/", "downloads"),
])
def test_global_sessions_take_the_topic_of_their_directory_and_never_move(directory: str, slug: str) -> None:
    registry = TopicRegistry(None)
    for worktree in ("/", ""):
        assert registry.topic_for(_info("ses_1", "global", worktree, directory=directory)) == slug
    assert "global" not in registry.projects and not registry.aliases_of(slug)
    other = registry.topic_for(_info("ses_2", "global", "/", directory="/var/tmp/elsewhere"))
    assert other == "elsewhere" and registry.topic_for(_info("ses_3", "global", "/", directory=directory)) == slug


@pytest.mark.parametrize("directory", ["/home/dev/proto", "/tmp/spike", "/home/dev/src/new thing"])
def test_a_directory_that_became_a_repository_keeps_its_topic(directory: str) -> None:
    registry = TopicRegistry(None)
    before = registry.topic_for(_info("ses_1", "global", "/", directory=directory))
    assert registry.topic_for(_info("ses_2", "prj_after_git_init", directory)) == before
    assert registry.topic_for(_info("ses_3", "prj_after_git_init", directory + "-renamed")) == before
    assert [a.name for a in registry.aliases_of(before)] == [directory.rsplit("/", 1)[-1] + "-renamed"]


# -- the earlier format --------------------------------------------------------------------------------

LEGACY = [
    {"paths": {"/home/dev/src/app": "app"}},
    {"paths": {"/home/dev/src/app": "app", "/tmp/scratch": "scratch", "/b/app": "app-3f2a1c"}},
    {"paths": {}},
]


@pytest.mark.parametrize("legacy", LEGACY)
def test_a_topics_file_of_the_earlier_format_loads_and_keeps_its_slugs(tmp_path: Path, legacy: dict) -> None:
    path = tmp_path / "topics.json"
    path.write_text(json.dumps(legacy))
    registry = TopicRegistry.load(path)
    assert not registry.keyed_by_project and registry.paths == legacy["paths"]
    for n, (source, slug) in enumerate(legacy["paths"].items()):
        assert registry.topic_for(_info(f"ses_{n}", f"prj_{n}", source)) == slug
    registry.topic_for(_info("ses_x", "prj_x", "/home/dev/src/fresh"))
    registry.save()
    written = json.loads(path.read_text())
    assert written["format"] == 2 and written["paths"].items() >= legacy["paths"].items()  # older readers read paths
    again = TopicRegistry.load(path)
    assert again.keyed_by_project and again.topic_for(_info("ses_y", "prj_x", "/home/dev/src/fresh")) == "fresh"


@pytest.mark.parametrize(("content", "message"), [
    ('{"paths": {"/x": "a"}, "projects": []}', "(projects: Input should be a valid dictionary)"),
    ('{"paths": {"/x": "a"}, "projects": {"p": {"topic": "a"}}}', "(projects.p.worktree: Field required)"),
    ('{"paths": {}, "projects": {"p": {"topic": "../etc", "worktree": "/x"}}}', "invalid topic slugs"),
    ('{"paths": {}, "projects": {"p": {"topic": "a", "worktree": 3}}}', "projects.p.worktree: Input should be a valid string"),
])
def test_a_damaged_projects_section_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "topics.json").write_text(content)
    with pytest.raises(CheckpointError, match="not a valid topics file") as err:
        TopicRegistry.load(tmp_path / "topics.json")
    assert message in str(err.value)


@pytest.mark.parametrize(("legacy_paths", "votes", "expected", "aliases"), [
    # moved after the last run of an earlier memctl: its sessions are in alpha, the project is now elsewhere
    ({"/c/alpha": "alpha"}, ["alpha", "alpha"], "alpha", ["orders-service"]),
    # an earlier memctl already split it: the topic of the current path wins, no alias needed
    ({"/c/alpha": "alpha", "/c/orders-service": "orders-service"}, ["alpha", "orders-service"], "orders-service", []),
    # most sessions decide when the current path is unknown
    ({"/c/one": "one", "/c/two": "two"}, ["one", "two", "two"], "two", ["orders-service"]),
])
def test_projects_of_an_earlier_data_home_are_bound_to_the_topics_of_their_sessions(
        legacy_paths: dict, votes: list[str], expected: str, aliases: list[str]) -> None:
    registry = TopicRegistry(None, legacy_paths)
    now = "/c/orders-service"
    registry.adopt((_info(f"ses_{n}", "prj_moved", now), topic) for n, topic in enumerate(votes))
    assert registry.topic_for(_info("ses_new", "prj_moved", now)) == expected
    assert [a.name for a in registry.aliases_of(expected)] == aliases
    assert registry.dirty


def test_adopting_never_takes_a_topic_another_project_owns() -> None:
    registry = TopicRegistry(None, {"/c/alpha": "alpha"})
    assert registry.topic_for(_info("ses_0", "prj_owner", "/c/alpha")) == "alpha"
    registry.adopt([(_info("ses_1", "prj_other", "/d/beta"), "alpha"), (_info("ses_2", "global", "/", "/tmp/t"), "t")])
    assert "prj_other" not in registry.projects and "global" not in registry.projects
    assert registry.topic_for(_info("ses_3", "prj_other", "/d/beta")) == "beta"


# -- the topic index, --topic and routing ---------------------------------------------------------------


def _entry(slug: str, aliases: list[str], titles: list[str]) -> TopicEntry:
    refs = [NoteRef(f"ses_{slug}_{i}", f"memory/{slug}/ses_{slug}_{i}.md", t, "2026-11-01", slug)
            for i, t in enumerate(titles)]
    alias_refs = [TopicAlias.of(f"/home/dev/code/{a}") for a in aliases]
    worktree = alias_refs[-1].path if alias_refs else f"/home/dev/code/{slug}"
    return TopicEntry(slug, worktree, describe(slug, worktree, titles, [a.name for a in alias_refs]), refs, alias_refs)


def _index() -> TopicIndex:
    return TopicIndex({
        "alpha": _entry("alpha", ["orders-service"], ["UTC timestamps in exporter"]),
        "billing": _entry("billing", ["payments", "ledger-core"], ["Invoice rounding"]),
        "docs": _entry("docs", [], ["Sphinx theme"]),
        "web": _entry("web", ["shared-ui"], ["Button styles"]),
        "mobile": _entry("mobile", ["shared-ui"], ["Tab bar"]),
    })


@pytest.mark.parametrize(("names", "slugs"), [
    (["orders-service"], ["alpha"]),
    (["/home/dev/code/orders-service"], ["alpha"]),
    (["/home/dev/code/orders-service/"], ["alpha"]),
    (["Orders Service"], ["alpha"]),
    (["ledger-core", "payments", "billing"], ["billing"]),
    (["alpha", "ledger-core"], ["alpha", "billing"]),
    (["docs"], ["docs"]),
])
def test_topic_accepts_a_slug_or_an_alias(tmp_path: Path, names: list[str], slugs: list[str]) -> None:
    settings = Settings(home=tmp_path, ollama_host="http://127.0.0.1:9")  # an override makes no call
    route = route_question("anything", _index(), settings, override=names)
    assert (route.topics, route.method) == (slugs, "override")


def test_an_unknown_or_shared_topic_name_is_a_usage_error_listing_the_aliases(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, ollama_host="http://127.0.0.1:9")
    with pytest.raises(UnknownTopicError, match=r"unknown topic nope; known topics: alpha \(also orders-service\)"):
        route_question("x", _index(), settings, override=["nope"])
    with pytest.raises(UnknownTopicError, match=r"shared-ui \(mobile or web\) names several topics"):
        route_question("x", _index(), settings, override=["shared-ui"])


@pytest.mark.parametrize(("question", "slug"), [
    ("how does the orders-service retry uploads?", "alpha"),
    ("what changed in payments last week", "billing"),
    ("ledger core migration status", "billing"),
])
def test_the_lexical_fallback_matches_alias_names(question: str, slug: str) -> None:
    assert lexical_route(question, _index())[0][0] == slug


@pytest.mark.parametrize(("answer", "slugs"), [
    (["orders-service"], ["alpha"]), (["payments", "docs"], ["billing", "docs"]), (["alpha", "orders-service"], ["alpha"]),
])
def test_the_model_router_may_answer_with_an_alias(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   answer: list[str], slugs: list[str]) -> None:
    seen: dict = {}

    def chat_once(*_a, schema: dict, messages: list, **_k) -> str:
        seen["enum"], seen["prompt"] = schema["properties"]["topics"]["items"]["enum"], messages[-1]["content"]
        return json.dumps({"topics": answer})

    monkeypatch.setattr("memctl.ask.routing.chat_once", chat_once)
    route = route_question("q", _index(), Settings(home=tmp_path))
    assert (route.topics, route.method) == (slugs, "model")
    assert {"orders-service", "payments", "ledger-core"} <= set(seen["enum"]) and "shared-ui" not in seen["enum"]
    assert "- alpha: alpha (also orders-service): work in /home/dev/code/orders-service." in seen["prompt"]


def test_a_topic_index_written_before_aliases_loads_without_them(tmp_path: Path) -> None:
    old = {"version": 1, "topics": {"alpha": {"name": "alpha", "worktree": "/c/alpha", "note_count": 1,
                                              "description": "alpha: work in /c/alpha.",
                                              "notes": [{"source_id": "ses_1", "path": "memory/alpha/ses_1.md",
                                                         "title": "T", "date": "2026-11-01", "topic": "alpha"}]}}}
    (tmp_path / "topic_index.json").write_text(json.dumps(old))
    index = TopicIndex.load(tmp_path / "topic_index.json")
    assert index.topics["alpha"].aliases == [] and index.resolve(["alpha"]) == ["alpha"]
    index.save(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["topics"]["alpha"]["aliases"] == []


# -- doctor ------------------------------------------------------------------------------------------------


def test_doctor_lists_the_aliases_of_moved_projects(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "var")
    assert check_topics(home).detail == "none yet"
    registry = TopicRegistry(home.topics)
    registry.topic_for(_info("ses_1", "prj_1", "/c/alpha"))
    registry.topic_for(_info("ses_2", "prj_1", "/c/orders-service"))
    registry.topic_for(_info("ses_3", "prj_2", "/c/docs"))
    registry.save()
    check = check_topics(home)
    assert check.status == "ok"
    assert check.detail == "2 topics; alpha also orders-service (/c/orders-service)"
    home.topics.write_text('{"paths": {"/x": "Bad Slug"}}')
    assert check_topics(home).status == "fail"


# -- end to end: case "worktree moved" ---------------------------------------------------------------------

OLD, NEW = "/home/dev/code/alpha", "/home/dev/code/orders-service"


def _work(db: CraftedDb, sid: str, title: str, project: tuple[str, str], marker: str) -> None:
    db.session(sid, title, project=project)
    db.user(sid, f"{title}: change the exporter accordingly and add a regression test for it. {marker}")
    db.assistant(sid, [bash("pytest tests/test_exporter.py", f"{marker} 3 passed"), text(f"{marker}: done.")])


def _ingest(db: Path, home: Path, server: FakeOllama, **options) -> dict:
    settings = Settings(home=home, ollama_host=server.url, workers=1, settle_minutes=0)
    return IngestRun(settings, IngestOptions(db=db, phase="distill", **options)).run().as_dict()


def _memctl(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env})


def test_a_moved_repository_stays_one_topic_from_ingest_to_ask(tmp_path: Path) -> None:
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    _work(db, "ses_before_move", "UTC timestamps in exporter", ("prj_orders", OLD), "BEFORE_MOVE_MARKER")
    _work(db, "ses_same_name", "Unrelated alpha project", ("prj_other", "/srv/elsewhere/alpha"), "OTHER_MARKER")
    db.close()
    with FakeOllama() as server:
        assert _ingest(db_path, home, server)["distilled"] == 2
        db = CraftedDb.reopen(db_path)
        db.conn.execute("UPDATE project SET worktree = ? WHERE id = ?", (NEW, "prj_orders"))
        _work(db, "ses_after_move", "Retry on warehouse 429", ("prj_orders", NEW), "AFTER_MOVE_MARKER")
        db.close()
        plan = IngestRun(Settings(home=home, settle_minutes=0),
                         IngestOptions(db=db_path, dry_run=True, project="orders-service")).run()
        assert [(p.source_id, p.topic, p.action) for p in plan.plan] == [
            ("ses_before_move", "alpha", "done"), ("ses_after_move", "alpha", "distill")]
        assert _ingest(db_path, home, server)["distilled"] == 1
        answers = {name: _memctl("ask", "how are exporter timestamps written and how are 429s retried?",
                                 "--topic", name, "--no-graph", "--json",
                                 env={"MEMCTL_HOME": str(home), "OLLAMA_HOST": server.url})
                   for name in ("orders-service", NEW, "alpha")}
    progress = json.loads((home / "progress.json").read_text())["sources"]
    assert {sid: e["topic"] for sid, e in progress.items()} == {
        "ses_before_move": "alpha", "ses_after_move": "alpha", "ses_same_name": progress["ses_same_name"]["topic"]}
    assert progress["ses_same_name"]["topic"].startswith("alpha-")
    assert sorted(p.name for p in (home / "store" / "memory" / "alpha").iterdir()) == [
        "ses_after_move.md", "ses_before_move.md"]
    index = build_topic_index(DataHome(home))
    assert index.topics["alpha"].aliases == [TopicAlias(NEW, "orders-service")]
    assert index.topics["alpha"].worktree == NEW and "also orders-service" in index.topics["alpha"].description
    saved = json.loads((home / "topic_index.json").read_text())["topics"]["alpha"]
    assert saved["aliases"] == [{"path": NEW, "name": "orders-service"}]

    for name, result in answers.items():
        assert result.returncode == 0, (name, result.stderr)
        answer = json.loads(result.stdout)
        assert answer["topics"] == ["alpha"], name
        assert {s["source_id"] for s in answer["sources"]} == {"ses_before_move", "ses_after_move"}, name
    doctor = _memctl("doctor", "--json", "--db", str(db_path), env={"MEMCTL_HOME": str(home)})
    assert doctor.stdout, doctor.stderr
    topics = next(c for c in json.loads(doctor.stdout) if c["name"] == "topics")
    assert f"alpha also orders-service ({NEW})" in topics["detail"]


def _distilled_before_move(tmp_path: Path, server: FakeOllama) -> tuple[Path, Path]:
    """One session of ``prj_orders`` at OLD, distilled into a new home: ``(database, home)``."""
    db_path, home = tmp_path / "opencode.db", tmp_path / "var"
    db = CraftedDb(db_path)
    _work(db, "ses_before_move", "UTC timestamps in exporter", ("prj_orders", OLD), "BEFORE_MOVE_MARKER")
    db.close()
    assert _ingest(db_path, home, server)["distilled"] == 1
    return db_path, home


def _move(db_path: Path, new: str, *, new_session: bool) -> None:
    """What OpenCode does when the checkout moved: ``project.worktree`` re-pointed (and maybe a session there)."""
    db = CraftedDb.reopen(db_path)
    db.conn.execute("UPDATE project SET worktree = ? WHERE id = ?", (new, "prj_orders"))
    if new_session:
        _work(db, "ses_after_move", "Retry on warehouse 429", ("prj_orders", new), "AFTER_MOVE_MARKER")
    db.close()


def test_a_move_before_the_upgrade_joins_the_topic_the_checkpoint_recorded(tmp_path: Path) -> None:
    """A data home of the earlier format (topics.json with paths only), then the move: no second topic."""
    with FakeOllama() as server:
        db_path, home = _distilled_before_move(tmp_path, server)
        (home / "topics.json").write_text(json.dumps({"paths": {OLD: "alpha"}}))  # as the earlier memctl wrote it
        _move(db_path, NEW, new_session=True)
        assert _ingest(db_path, home, server)["distilled"] == 1
    progress = json.loads((home / "progress.json").read_text())["sources"]
    assert progress["ses_after_move"]["topic"] == "alpha"
    topics = json.loads((home / "topics.json").read_text())
    assert topics["projects"]["prj_orders"]["aliases"] == [{"path": NEW, "name": "orders-service"}]


@pytest.mark.parametrize("new", [NEW, "/srv/checkouts/alpha", "/home/dev/code/Alpha Renamed"])
def test_a_move_without_a_new_session_is_recorded_without_a_model_call(tmp_path: Path, new: str) -> None:
    with FakeOllama() as server:
        db_path, home = _distilled_before_move(tmp_path, server)
        _move(db_path, new, new_session=False)
        server.reset_counts()
        summary = _ingest(db_path, home, server)
        assert dict(server.counts) == {} and (summary["already_done"], summary["exit_code"]) == (1, 0)
    name = new.rsplit("/", 1)[-1]
    assert json.loads((home / "topics.json").read_text())["projects"]["prj_orders"]["aliases"] == [
        {"path": new, "name": name}]
    assert TopicIndex.load(home / "topic_index.json").resolve([name]) == ["alpha"]


@pytest.mark.parametrize(("name", "slug"), [("orders-service", "alpha"), ("alpha", "alpha"),
                                            ("/home/dev/code/payments", "billing")])
def test_remember_topic_accepts_an_alias_and_stages_under_the_topic(tmp_path: Path, name: str, slug: str) -> None:
    home = tmp_path / "var"
    _index().save(DataHome(home).topic_index)
    result = run_cli("remember", "Retries use exponential backoff.", "-s", "s1", "--topic", name, "--json",
                     "--home", str(home))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["path"].startswith(f"user/topics/{slug}/")


@pytest.mark.parametrize(("name", "shown"), [("nope", "unknown topic nope"), ("shared-ui", "names several topics"),
                                             ("/no/such/path sk-FAKE0000", "characters, not shown")])
def test_remember_refuses_an_unknown_or_shared_topic_name(tmp_path: Path, name: str, shown: str) -> None:
    home = tmp_path / "var"
    _index().save(DataHome(home).topic_index)
    result = run_cli("remember", "x y z", "-s", "s1", "--topic", name, "--home", str(home))
    assert result.returncode == 2 and shown in result.stderr, result.stderr
    assert "sk-FAKE0000" not in result.stderr and not (home / "store" / "staging").exists()
