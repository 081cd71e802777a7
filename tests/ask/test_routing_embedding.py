"""The embedding router: topic profiles from names and notes, cached per topic and rebuilt when a note or the
model changes; combined with the lexical scores; lexical alone (said in the reason) when embedding fails.

The model is the fake Ollama server (tests/fakes/ollama_server.py): its embeddings carry concept groups, a
stand-in for a real model's semantic space, so a question sharing no word with its note still lands near it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.ask.routing import fallback_route, lexical_route, min_max, route_question, route_scores
from memctl.catalog import topic_profiles
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex, describe
from memctl.catalog.topic_profiles import TopicProfiles, names_text, note_text
from memctl.catalog.topics import TopicAlias
from memctl.config import DataHome, Settings
from tests.fakes.ollama_server import FakeOllama

NOTES = {  # topic → titles and bodies (the fake distiller's shape: a title, then the request)
    "shop": [("Fix duplicate order emails", "Customers got two confirmation emails from the Celery task."),
             ("Add cursor pagination to GET /orders", "GET /orders returned 20k rows; page_size 50.")],
    "ops": [("Move the Terraform state to S3", "Terraform state was local; backend s3 with a bucket."),
            ("Scale the Kubernetes node pool", "Node pool default-pool raised from 3 to 5 nodes in gke.tf.")],
    "app": [("Add dark mode support", "Dark mode via useColorScheme; the StatusBar follows the theme."),
            ("Fix the camera crash on Android 14", "The app crashed opening the camera: a permission was missing.")],
}

# Paraphrases: no content word in common with their note, so only the embedding can route them.
PARAPHRASES = [
    ("Shoppers received a second receipt message: why?", "shop"),
    ("Listing purchases was returning too many records", "shop"),
    ("Where does our infrastructure-as-code keep its status file remotely?", "ops"),
    ("How many machines are in the k8s worker group?", "ops"),
    ("How is the night look implemented?", "app"),
    ("Why did taking a photo kill the program on newer phones?", "app"),
]


def _write_note(home: DataHome, slug: str, i: int, title: str, body: str) -> NoteRef:
    sid = f"ses_{slug}{i}"
    path = home.store / "memory" / slug / f"{sid}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nsource_id: {sid}\ntopic: {slug}\ntitle: {title}\n---\n\n# {title}\n\n- Request: {body}\n")
    return NoteRef(sid, f"memory/{slug}/{sid}.md", title, "2026-11-01", slug)


def _home(tmp_path: Path, notes: dict = NOTES) -> tuple[DataHome, TopicIndex]:
    home = DataHome(tmp_path / "var")
    topics = {}
    for slug, entries in notes.items():
        refs = [_write_note(home, slug, i, title, body) for i, (title, body) in enumerate(entries)]
        titles = [r.title for r in refs]
        topics[slug] = TopicEntry(slug, f"/src/{slug}", describe(slug, f"/src/{slug}", titles), refs)
    return home, TopicIndex(topics)


def _rows(home: DataHome, slug: str) -> int:
    """How many vectors the cache file of ``slug`` holds (its header's keys; the body must match)."""
    header, _, body = (home.route_cache / f"{slug}.vec").read_bytes().partition(b"\n")
    meta = json.loads(header)
    assert len(body) == 4 * meta["dim"] * len(meta["keys"])
    return len(meta["keys"])


def _embed_inputs(server: FakeOllama) -> list[list[str]]:
    """The ``input`` lists of the ``/api/embed`` requests the server saw, in order."""
    return [body["input"] if isinstance(body["input"], list) else [body["input"]]
            for path, _model, body in server.calls if path == "/api/embed"]


@pytest.fixture(autouse=True)
def _whole_text_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the note and name texts a profile embeds; the sentence vectors kept beside them
    (``fusion_dense_sentence_share``) have their own tests (tests/catalog/test_late_interaction.py)."""
    monkeypatch.setenv("MEMCTL_FUSION_DENSE_SENTENCE_SHARE", "0")


@pytest.fixture
def server():
    with FakeOllama() as fake:
        yield fake


@pytest.mark.parametrize("question, expected", PARAPHRASES)
def test_paraphrases_route_by_embedding_where_words_cannot(tmp_path: Path, server: FakeOllama, question: str,
                                                           expected: str) -> None:
    home, index = _home(tmp_path)
    topics, how = fallback_route(question, index, Settings(home=home.root, ollama_host=server.url), home)
    assert topics == [expected], how
    assert how.startswith("embedding and lexical match")
    assert lexical_route(question, index, home)[0] != [expected]  # the words alone route elsewhere


@pytest.mark.parametrize("question, expected", [
    ("terraform state s3 backend", ["ops"]),
    ("dark mode theme StatusBar", ["app"]),
    ("duplicate order emails Celery", ["shop"]),
])
def test_direct_questions_still_route_to_their_topic(tmp_path: Path, server: FakeOllama, question: str,
                                                     expected: list[str]) -> None:
    home, index = _home(tmp_path)
    assert fallback_route(question, index, Settings(home=home.root, ollama_host=server.url), home)[0] == expected


def test_profiles_are_cached_and_a_warm_cache_costs_one_request_with_the_question_only(
        tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    first = TopicProfiles(settings, home).scores("how is the night look implemented?", index)
    built = _embed_inputs(server)
    assert len(built) == 1 and built[0][0] == "how is the night look implemented?"
    assert len(built[0]) == 1 + len(index.slugs) + sum(len(v) for v in NOTES.values())  # question, names, notes
    assert sorted(p.name for p in home.route_cache.iterdir()) == [f"{slug}.vec" for slug in sorted(NOTES)]
    server.reset_counts()
    profiles = TopicProfiles(settings, home)
    same = profiles.similarities("how is the night look implemented?", index)  # routing, then retrieval
    assert _embed_inputs(server) == [] and profiles.requests == 0  # the question's vector is kept in the process
    assert same[0] == pytest.approx(first) and len(same[1]) == sum(len(v) for v in NOTES.values())
    topic_profiles._questions.clear()  # a new process: the disk cache serves, the question alone is embedded
    again = profiles.scores("how is the night look implemented?", index)
    assert _embed_inputs(server) == [["how is the night look implemented?"]] and profiles.requests == 1
    assert again == pytest.approx(first)
    assert max(again, key=again.get) == "app"


@pytest.mark.parametrize("slug, new_body, question, moved_to", [
    ("app", "The NGINX ingress now renews expiring HTTPS certs with cert-manager.", "How are TLS certificates rotated?",
     "app"),
    ("shop", "Dark mode and night theme for the storefront.", "How is the night look implemented?", None),
    ("ops", "Customers got refunds: give money back to the buyer via Stripe.", "How do we reimburse a buyer?", "ops"),
])
def test_a_changed_note_is_embedded_again_and_changes_the_route(tmp_path: Path, server: FakeOllama, slug: str,
                                                                new_body: str, question: str,
                                                                moved_to: str | None) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    before = TopicProfiles(settings, home).scores(question, index)
    server.reset_counts()
    ref = index.topics[slug].notes[0]
    path = home.store / ref.path
    path.write_text(path.read_text().replace(NOTES[slug][0][1], new_body))
    after = TopicProfiles(settings, home).scores(question, index)
    inputs = _embed_inputs(server)
    assert len(inputs) == 1 and len(inputs[0]) == 1  # the one changed note (the question's vector is kept)
    assert new_body in inputs[0][0]
    assert after[slug] > before[slug]
    others = [s for s in index.slugs if s != slug]
    assert [after[s] for s in others] == pytest.approx([before[s] for s in others])
    if moved_to:
        assert max(after, key=after.get) == moved_to


def test_a_removed_note_leaves_the_profile(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    TopicProfiles(settings, home).scores("x", index)
    (home.store / index.topics["app"].notes[0].path).unlink()
    TopicProfiles(settings, home).scores("x", index)
    assert _rows(home, "app") == 2  # names + the one note left (was names + 2 notes)


def test_another_embedding_model_rebuilds_every_profile(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    TopicProfiles(Settings(home=home.root, ollama_host=server.url), home).scores("x", index)
    server.reset_counts()
    TopicProfiles(Settings(home=home.root, ollama_host=server.url, embedding_model="other-embed"), home).scores("x", index)
    assert len(_embed_inputs(server)[0]) == 1 + len(index.slugs) + sum(len(v) for v in NOTES.values())


@pytest.mark.parametrize("damage", [b"", b"not a profile", b'{"version": 1, "keys": ["a"], "dim": 768}\n\x00\x01',
                                    b'{"version": 1, "model": "nomic-embed-text", "fingerprint": "x", "keys": ["a"]}'])
def test_an_unreadable_cache_file_is_rebuilt(tmp_path: Path, server: FakeOllama, damage: bytes) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    first = TopicProfiles(settings, home).scores("night look", index)
    (home.route_cache / "app.vec").write_bytes(damage)
    assert TopicProfiles(settings, home).scores("night look", index) == pytest.approx(first)
    assert _rows(home, "app") == 3


def test_unreachable_embedding_model_falls_back_to_lexical_and_says_so(tmp_path: Path) -> None:
    home, index = _home(tmp_path)
    with FakeOllama() as down:
        url = down.url
    for settings in (Settings(home=home.root, ollama_host=url),):  # nothing listens there any more
        topics, how = fallback_route("terraform state lock", index, settings, home)
        assert topics == ["ops"]
        assert how.startswith("embedding router unavailable (cannot reach Ollama") and how.endswith("alone")
    assert not home.route_cache.exists()


@pytest.mark.parametrize("fault", ["missing", "http", "malformed"])
def test_failing_embedding_model_falls_back_to_lexical_and_says_so(tmp_path: Path, fault: str) -> None:
    home, index = _home(tmp_path)
    with FakeOllama(missing_models=["nomic-embed-text"] if fault == "missing" else ()) as fake:
        if fault == "http":
            fake.fail_next(1, status=500, routes=["/api/embed"])
        elif fault == "malformed":
            fake.malformed_next(1, routes=["/api/embed"])
        topics, how = fallback_route("dark mode theme", index, Settings(home=home.root, ollama_host=fake.url), home)
    assert topics == ["app"]
    assert how.startswith("embedding router unavailable (") and "lexical match" in how


def test_the_model_router_failing_and_embedding_working_routes_by_embedding(tmp_path: Path) -> None:
    home, index = _home(tmp_path)
    with FakeOllama(missing_models=["llama3.1:8b"]) as fake:
        route = route_question("How is the night look implemented?", index,
                               Settings(home=home.root, ollama_host=fake.url))
    assert route.topics == ["app"] and route.method == "fallback"
    assert route.reason.startswith("router failed:") and "embedding and lexical match" in route.reason


def test_zero_embedding_weight_routes_lexically_without_a_request(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url, route_embedding_weight=0)
    assert fallback_route("terraform state", index, settings, home) == lexical_route("terraform state", index, home)
    assert _embed_inputs(server) == []


@pytest.mark.parametrize("scores, expected", [
    ({"a": 0.5, "b": 0.3, "c": 0.1}, {"a": 1.0, "b": 0.5, "c": 0.0}),
    ({"a": -0.2, "b": 0.2}, {"a": 0.0, "b": 1.0}),
    ({"a": 0.4, "b": 0.4}, {"a": 0.0, "b": 0.0}),  # nothing to tell apart
    ({}, {}),
])
def test_min_max_maps_best_to_one_and_worst_to_zero(scores: dict, expected: dict) -> None:
    assert min_max(scores) == pytest.approx(expected)


@pytest.mark.parametrize("semantic, lexical, covered, weight, expected", [
    # a lexical match on one word in five barely moves an embedding decision
    ({"a": 0.6, "b": 0.2}, {"b": 2.0}, {"a": 0.0, "b": 0.2}, 1.0, {"a": 1.0, "b": 0.2}),
    # a lexical match on the whole question counts as much as the embedding
    ({"a": 0.6, "b": 0.2}, {"b": 2.0}, {"a": 0.0, "b": 1.0}, 1.0, {"a": 1.0, "b": 1.0}),
    ({"a": 0.5, "b": 0.4, "c": 0.3}, {"a": 1.0, "b": 2.0}, {"a": 0.5, "b": 0.5, "c": 0.0}, 1.0,
     {"a": 1.25, "b": 1.0, "c": 0.0}),
    # the weight scales the embedding side only
    ({"a": 0.6, "b": 0.2}, {"b": 2.0}, {"a": 0.0, "b": 0.5}, 2.0, {"a": 2.0, "b": 0.5}),
    ({"a": 0.6, "b": 0.2}, {}, {}, 1.0, {"a": 1.0, "b": 0.0}),
])
def test_route_scores_add_min_max_similarity_and_covered_lexical_scores(semantic, lexical, covered, weight,
                                                                       expected) -> None:  # noqa: ANN001
    assert route_scores(semantic, lexical, covered, weight) == pytest.approx(expected)


@pytest.mark.parametrize("entry, expected", [
    (TopicEntry("alpha", "/home/me/src/orders", "", [], [TopicAlias("/home/me/src/shop", "shop")]), "alpha shop orders"),
    (TopicEntry("infra", "/src/infra", "", []), "infra"),
    (TopicEntry("misc", "", "", []), "misc"),
])
def test_names_text_holds_slug_aliases_and_path_names_once(entry: TopicEntry, expected: str) -> None:
    assert names_text(entry) == expected


@pytest.mark.parametrize("text, expected_start, max_len", [
    ("---\ntitle: Kuzu lock\n---\n\n# Kuzu lock\n\n- held by ingest\n", "# Kuzu lock", None),
    ("---\ntitle: Ruff config\n---\n\nline length 120\n", "Ruff config\nline length 120", None),
    ("---\ntitle: Long\n---\n\n# Long\n\n" + "word " * 1000, "# Long", 1500),
])
def test_note_text_is_title_and_body_bounded(text: str, expected_start: str, max_len: int | None) -> None:
    got = note_text(text)
    assert got.startswith(expected_start) and "---" not in got
    if max_len:
        assert len(got) == max_len


def test_refresh_builds_every_profile_without_a_question_and_then_costs_nothing(tmp_path: Path,
                                                                              server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    embedded = TopicProfiles(settings, home).refresh(index)
    texts = len(index.slugs) + sum(len(v) for v in NOTES.values())
    assert embedded == texts and [len(i) for i in _embed_inputs(server)] == [texts]
    assert all(_rows(home, slug) == 1 + len(NOTES[slug]) for slug in NOTES)
    server.reset_counts()
    assert TopicProfiles(settings, home).refresh(index) == 0 and _embed_inputs(server) == []  # all current
    profiles = TopicProfiles(settings, home)
    profiles.scores("How is the night look implemented?", index)
    assert _embed_inputs(server) == [["How is the night look implemented?"]]  # the question alone


def test_ingest_builds_the_routing_profiles_so_the_first_question_costs_one_request(tmp_path: Path,
                                                                                    server: FakeOllama) -> None:
    import shutil

    from memctl.ask.run import load_index
    from memctl.ingest.run import IngestOptions, IngestRun

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(fixture / name, tmp_path / name)
    settings = Settings(home=tmp_path / "var", ollama_host=server.url, settle_minutes=0)
    summary = IngestRun(settings, IngestOptions(db=tmp_path / "opencode.db", phase="distill")).run()
    assert summary.notes_published > 0
    home = DataHome(settings.home)
    index = load_index(home)
    assert sorted(p.name for p in home.route_cache.iterdir()) == sorted(f"{slug}.vec" for slug in index.slugs)
    server.reset_counts()
    fallback_route("where did we fix the add bug?", index, settings, home)
    assert len(_embed_inputs(server)) == 1 and _embed_inputs(server)[0] == ["where did we fix the add bug?"]
    server.reset_counts()  # a run with nothing new embeds nothing
    IngestRun(settings, IngestOptions(db=tmp_path / "opencode.db", phase="distill")).run()
    assert _embed_inputs(server) == []


def test_ingest_with_the_embedding_model_down_still_succeeds_and_says_so(tmp_path: Path) -> None:
    import shutil

    from memctl.ingest.run import IngestOptions, IngestRun
    from memctl.reporting import SilentReporter

    lines: list[str] = []

    class Lines(SilentReporter):
        def log(self, message: str) -> None:
            lines.append(message)

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"
    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(fixture / name, tmp_path / name)
    with FakeOllama(missing_models=("no-such-embedder",)) as chat_only:
        settings = Settings(home=tmp_path / "var", ollama_host=chat_only.url, settle_minutes=0,
                            embedding_model="no-such-embedder")
        summary = IngestRun(settings, IngestOptions(db=tmp_path / "opencode.db", phase="distill"), Lines()).run()
    assert summary.exit_code == 0 and summary.notes_published > 0
    assert any(line.startswith("routing profiles not refreshed") for line in lines), lines


@pytest.mark.parametrize("dims", [(768, 384), (384, 768), (768, 1024)])
def test_same_model_name_other_vector_size_is_rebuilt_for_this_very_question(tmp_path: Path,
                                                                             dims: tuple[int, int]) -> None:
    home, index = _home(tmp_path)
    with FakeOllama(embedding_dim=dims[0]) as before:
        TopicProfiles(Settings(home=home.root, ollama_host=before.url), home).scores("warm", index)
    with FakeOllama(embedding_dim=dims[1]) as after:  # `ollama pull` replaced the model behind the name
        settings = Settings(home=home.root, ollama_host=after.url)
        scores = TopicProfiles(settings, home).scores("How is the night look implemented?", index)
        topics, how = fallback_route("How is the night look implemented?", index, settings, home)
    assert sorted(scores) == sorted(NOTES) and max(scores, key=scores.get) == "app"
    assert topics == ["app"] and how.startswith("embedding and lexical match")
    header = (home.route_cache / "app.vec").read_bytes().partition(b"\n")[0]
    assert json.loads(header)["dim"] == dims[1]


@pytest.mark.parametrize("block", ["file", "dangling-symlink"])
def test_an_unwritable_cache_still_routes_by_embedding(tmp_path: Path, server: FakeOllama, block: str) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url)
    home.route_cache.parent.mkdir(parents=True)
    if block == "file":  # nothing can be written under it, whoever runs this (root included)
        home.route_cache.write_text("not a directory")
    else:
        home.route_cache.symlink_to(tmp_path / "missing" / "deeper")
    for _ in range(2):  # nothing cached: each question embeds the profiles again, and routes by them
        topics, how = fallback_route("How is the night look implemented?", index, settings, home)
        assert topics == ["app"] and how.startswith("embedding and lexical match"), how
    assert home.route_cache.is_symlink() or home.route_cache.read_text() == "not a directory"


@pytest.mark.parametrize("question, topic", PARAPHRASES[:3])
def test_ask_says_why_the_model_router_was_not_used_without_json(tmp_path: Path, question: str, topic: str) -> None:
    from tests.support.cli_in_process import run_cli as memctl

    home, index = _home(tmp_path)
    index.save(home.topic_index)
    with FakeOllama(missing_models=("routerx",)) as server:
        proc = memctl("ask", question, "--no-graph", "--home", str(home.root),
                      env={"OLLAMA_HOST": server.url, "MEMCTL_ROUTER_MODEL": "routerx"})
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("topics: "))
    assert line.startswith(f"topics: {topic} (fallback) — router failed") and "routerx" in line, line
    assert "embedding and lexical match" in line


@pytest.mark.parametrize("columns", ["60", "80", "120"])
def test_ask_prints_a_long_session_id_on_one_line_when_piped(tmp_path: Path, columns: str) -> None:
    from tests.support.cli_in_process import run_cli as memctl

    home = DataHome(tmp_path / "var")
    sid = "ses_dd585d6f3ffezQYiyGWt18hXLm"  # OpenCode's ids: 30 characters
    title = "Fix duplicate order emails sent twice by the Celery confirmation task after SMTP timeouts"
    path = home.store / "memory" / "shop" / f"{sid}.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nsource_id: {sid}\ntopic: shop\ntitle: {title}\n---\n\n# {title}\n\n- Request: emails\n")
    ref = NoteRef(sid, f"memory/shop/{sid}.md", title, "2026-11-01", "shop")
    TopicIndex({"shop": TopicEntry("shop", "/src/shop", describe("shop", "/src/shop", [title]), [ref])}).save(
        home.topic_index)
    with FakeOllama() as server:
        proc = memctl("ask", "duplicate order emails Celery", "--no-graph", "--home", str(home.root),
                      env={"OLLAMA_HOST": server.url, "COLUMNS": columns})
    assert proc.returncode == 0, proc.stderr
    assert sid in proc.stdout, proc.stdout
