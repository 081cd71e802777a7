"""Late interaction at sentence level in the dense notes list (memctl.catalog.late_interaction) and the sentence
vectors the topic profiles keep for it (memctl.catalog.topic_profiles, ``fusion_dense_sentence_share``)."""

from __future__ import annotations

import json
import math
from array import array
from pathlib import Path

import pytest

from memctl.ask.retrieval import dense_hits
from memctl.catalog import topic_profiles
from memctl.catalog.late_interaction import dense_scores, note_score
from memctl.catalog.topic_profiles import NoteVectors, TopicProfiles, note_text, sentences
from memctl.config import Settings
from tests.ask.test_routing_embedding import NOTES, _embed_inputs, _home
from tests.fakes.ollama_server import FakeOllama


def _unit(*xs: float) -> array:
    norm = math.sqrt(sum(x * x for x in xs))
    return array("f", (x / norm for x in xs))


def _vectors() -> NoteVectors:
    """Note ``a``'s whole text is nearer the question; one sentence of note ``b`` says exactly what it asks."""
    notes = {"memory/t/a.md": (_unit(0.8, 0.6, 0), (_unit(0.6, 0.8, 0), _unit(0.7, 0.7, 0.1))),
             "memory/t/b.md": (_unit(0.6, 0, 0.8), (_unit(1, 0, 0.05), _unit(0, 0.1, 1)))}
    return NoteVectors(_unit(1, 0, 0), notes)


def test_share_zero_is_the_cosine_of_the_whole_texts() -> None:
    vectors = _vectors()
    got = dense_scores(vectors, 0.0)
    for path, (whole, _parts) in vectors.notes.items():
        assert got[path] == pytest.approx(sum(a * b for a, b in zip(vectors.query, whole)), abs=1e-6)
    assert max(got, key=got.get) == "memory/t/a.md"


def test_the_sentence_that_says_what_is_asked_lifts_its_note() -> None:
    vectors = _vectors()
    mixed = dense_scores(vectors, 0.5)
    assert max(mixed, key=mixed.get) == "memory/t/b.md"
    whole, parts = vectors.notes["memory/t/b.md"]
    best = max(sum(a * b for a, b in zip(vectors.query, p)) for p in parts)
    assert mixed["memory/t/b.md"] == pytest.approx(0.5 * 0.6 + 0.5 * best, abs=1e-6)


def test_a_note_without_sentence_vectors_scores_its_whole_text() -> None:
    query, whole = _unit(1, 0, 0), _unit(0.6, 0.8, 0)
    assert note_score(query, whole, (), 0.5) == pytest.approx(0.6, abs=1e-6)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="within 0..1"):
        dense_scores(_vectors(), share)


def test_sentences_are_lines_and_sentence_ends_without_list_marks_or_fragments() -> None:
    text = ("Raise the cache TTL\n\n- Request: Redis load too high; raise it to 900. Stale prices are purged.\n"
            "- Tools used: bash\n- ok\n- Tools used: bash")
    assert sentences(text) == ["Raise the cache TTL", "Request: Redis load too high;", "raise it to 900.",
                               "Stale prices are purged.", "Tools used: bash"]


@pytest.fixture
def server():
    with FakeOllama() as fake:
        yield fake


def _header(path: Path) -> tuple[dict, int]:
    header, _, body = path.read_bytes().partition(b"\n")
    return json.loads(header), len(body)


def test_profiles_keep_sentence_vectors_and_a_question_costs_its_own_embedding_only(tmp_path: Path,
                                                                                    server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url, fusion_dense_sentence_share=0.5)
    got = TopicProfiles(settings, home).note_vectors("How is the night look implemented?", index)
    meta, body = _header(home.route_cache / "app.vec")
    assert len(meta["part_of"]) == len(meta["keys"]) and meta["part_of"][0] == []  # the names vector has none
    assert body == 4 * meta["dim"] * (len(meta["keys"]) + len(meta["parts"]))
    assert "Dark mode via useColorScheme" not in json.dumps(meta)  # hashes only: no note text in the header
    assert len(got.notes) == sum(len(v) for v in NOTES.values())
    for path, (_whole, parts) in got.notes.items():  # one vector per sentence of the embedded text
        assert len(parts) == len(sentences(note_text((home.store / path).read_text()))) >= 2
    server.reset_counts()
    topic_profiles._questions.clear()
    TopicProfiles(settings, home).note_vectors("Which night look?", index)
    assert _embed_inputs(server) == [["Which night look?"]]


def test_profiles_made_without_sentences_are_rebuilt_once_the_share_is_set(tmp_path: Path,
                                                                           server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    TopicProfiles(Settings(home=home.root, ollama_host=server.url, fusion_dense_sentence_share=0), home).refresh(index)
    meta, body = _header(home.route_cache / "ops.vec")
    assert meta["parts"] is None and body == 4 * meta["dim"] * len(meta["keys"])  # share 0: the files as before
    on = TopicProfiles(Settings(home=home.root, ollama_host=server.url, fusion_dense_sentence_share=0.5), home)
    on.refresh(index)
    assert on.embedded == sum(len(v) for v in NOTES.values()) + len(NOTES)  # every note and name text again
    # the title and the request's sentences ("Terraform state was local;" | "backend s3 with a bucket.") of each
    assert len(_header(home.route_cache / "ops.vec")[0]["parts"]) == 5


def test_the_dense_list_and_routing_use_the_sentence_term(tmp_path: Path, server: FakeOllama) -> None:
    home, index = _home(tmp_path)
    settings = Settings(home=home.root, ollama_host=server.url, fusion_dense_sentence_share=0.5)
    question = "How is the night look implemented?"
    hits = dense_hits(question, index.slugs, settings, home, index, 3)
    assert hits[0].source.topic == "app" and "Dark mode" in hits[0].text
    expected = dense_scores(TopicProfiles(settings, home).note_vectors(question, index), 0.5)
    assert [h.score for h in hits] == pytest.approx(sorted(expected.values(), reverse=True)[:3])
    topics, notes = TopicProfiles(settings, home).similarities(question, index)
    assert notes == pytest.approx(expected) and max(topics, key=topics.get) == "app"
