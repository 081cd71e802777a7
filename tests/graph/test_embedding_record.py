"""memctl.graph.embedding_record: a graph built by one embedding model is never searched or extended with another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.config import DataHome, Settings
from memctl.graph.embedding_record import embedding_mismatch, record_embedding
from memctl.graph.errors import GraphConfigError
from memctl.state_file import StateFileError

WORDLLAMA = {"embedding_model": "wordllama-l2_supercat", "embedding_dimensions": 256, "model_backend": "embedded"}


def _home(tmp_path: Path) -> DataHome:
    (tmp_path / "var").mkdir(parents=True)
    return DataHome(tmp_path / "var")


def test_nothing_recorded_is_no_mismatch_and_the_first_record_stays(tmp_path: Path) -> None:
    home = _home(tmp_path)
    first = Settings(home=home.root)
    assert embedding_mismatch(first, home) is None and not home.graph_embedding.exists()
    record_embedding(first, home)
    assert json.loads(home.graph_embedding.read_text()) == {
        "model": first.embedding_model, "dimensions": first.embedding_dimensions, "backend": "ollama"}
    record_embedding(Settings(home=home.root, embedding_model="other-embed"), home)  # never overwritten
    assert json.loads(home.graph_embedding.read_text())["model"] == first.embedding_model
    assert embedding_mismatch(first, home) is None


def test_another_model_of_the_same_dimensions_is_refused_with_what_to_set(tmp_path: Path) -> None:
    home = _home(tmp_path)
    record_embedding(Settings(home=home.root, embedding_model="nomic-embed-text", embedding_dimensions=768), home)
    problem = embedding_mismatch(Settings(home=home.root, embedding_model="granite-embed", embedding_dimensions=768), home)
    assert problem is not None and "\n" not in problem
    assert "'nomic-embed-text' (768 dimensions" in problem and "'granite-embed' (768)" in problem
    assert "embedding_model = 'nomic-embed-text'" in problem and str(home.root) in problem


def test_an_embedded_home_opened_without_the_embedded_backend_says_to_set_it(tmp_path: Path) -> None:
    home = _home(tmp_path)
    record_embedding(Settings(home=home.root, **WORDLLAMA), home)
    problem = embedding_mismatch(Settings(home=home.root), home)
    assert problem is not None and "MEMCTL_MODEL_BACKEND=embedded" in problem and "256 dimensions" in problem
    assert embedding_mismatch(Settings(home=home.root, **WORDLLAMA), home) is None


@pytest.mark.parametrize("damage", [b"{not json", b'{"model": 3}', b"[" * 100_000])
def test_a_damaged_record_is_a_state_file_error_naming_it(tmp_path: Path, damage: bytes) -> None:
    home = _home(tmp_path)
    home.graph_embedding.write_bytes(damage)
    with pytest.raises(StateFileError) as caught:
        embedding_mismatch(Settings(home=home.root), home)
    assert str(home.graph_embedding) in str(caught.value) and "delete it" in str(caught.value)


def test_configure_refuses_before_cognee_is_touched(tmp_path: Path) -> None:
    from memctl.graph import knowledge_graph

    home = _home(tmp_path)
    record_embedding(Settings(home=home.root, **WORDLLAMA), home)
    with pytest.raises(GraphConfigError, match="MEMCTL_MODEL_BACKEND=embedded") as caught:
        knowledge_graph.configure(Settings(home=home.root), home)
    assert caught.value.exit_code == 2 and not home.cognee.exists()  # refused before any store was made


def test_ask_falls_back_to_the_notes_and_doctor_fails_the_vector_store(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl import doctor
    from memctl.ask.retrieval import _embedding_mismatch
    from memctl.graph import knowledge_graph

    home = _home(tmp_path)
    record_embedding(Settings(home=home.root, **WORDLLAMA), home)
    assert "MEMCTL_MODEL_BACKEND=embedded" in (_embedding_mismatch(Settings(home=home.root), home) or "")
    home.graph_embedding.write_bytes(b"{")
    assert str(home.graph_embedding) in (_embedding_mismatch(Settings(home=home.root), home) or "")
    record_home = _home(tmp_path / "b")
    record_embedding(Settings(home=record_home.root, **WORDLLAMA), record_home)
    monkeypatch.setattr(knowledge_graph, "stored_vector_dimensions", lambda _home: {256})
    check = doctor.check_vector_store(Settings(home=record_home.root, embedding_dimensions=256), record_home)
    assert check.status == "fail" and "wordllama-l2_supercat" in check.detail, check
    assert doctor.check_vector_store(Settings(home=record_home.root, **WORDLLAMA), record_home).status == "ok"
