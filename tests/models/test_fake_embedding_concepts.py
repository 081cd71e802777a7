"""The fake model's embeddings: lexical feature hashing plus the concept groups that stand in for semantics."""

from __future__ import annotations

import math

import pytest

from tests.fakes.ollama_server import CONCEPT_GROUPS, concepts, embed_text


def cosine(a: str, b: str) -> float:
    return sum(x * y for x, y in zip(embed_text(a), embed_text(b)))


@pytest.mark.parametrize("text, expected", [
    ("Shoppers received a second receipt message", ["customer", "duplicate", "receipt", "email"]),
    ("test_checkout_concurrency", ["concurrency", "order", "test"]),  # snake_case parts
    ("CameraScreen and DNSCache", ["dns", "cache", "photo"]),  # camelCase parts, an acronym
    ("give money back; log into the bastion", ["refund", "ssh", "ssh"]),  # phrases
    ("the end-of-business summary", ["daily", "report"]),
    ("banana smoothie recipe", []),
])
def test_concepts_come_from_words_sub_words_and_phrases(text: str, expected: list[str]) -> None:
    assert sorted(concepts(text)) == sorted(expected)


@pytest.mark.parametrize("name", sorted(CONCEPT_GROUPS))
def test_every_member_of_a_group_evokes_that_group(name: str) -> None:
    for member in CONCEPT_GROUPS[name]:
        assert name in concepts(member), (name, member)


@pytest.mark.parametrize("question, near, far", [
    ("Shoppers received a second receipt message", "Customers got two confirmation emails",
     "Customers got an invoice PDF"),
    ("How is the night look implemented?", "Dark mode via useColorScheme; the theme follows",
     "Nightly Postgres backups"),
    ("How many machines are in the k8s worker group?", "Kubernetes node pool raised to 5 nodes",
     "Kuzu graph lock held by ingest"),
    ("Where does our infrastructure-as-code keep its status remotely?", "Terraform state in an s3 bucket",
     "Terraform docs theme"),
])
def test_a_paraphrase_is_nearer_its_source_than_a_lexical_neighbour(question: str, near: str, far: str) -> None:
    assert cosine(question, near) > cosine(question, far) + 0.05


@pytest.mark.parametrize("a, b", [
    ("the kuzu graph database lock", "kuzu graph lock problem"),
    ("banana smoothie recipe with oats", "a smoothie recipe with banana"),
])
def test_shared_words_still_make_texts_close_and_the_vector_is_unit_and_deterministic(a: str, b: str) -> None:
    assert cosine(a, b) > 0.5 and cosine(a, "unrelated quartz volcano") < 0.2
    assert embed_text(a) == embed_text(a)
    assert math.isclose(sum(x * x for x in embed_text(a)), 1.0, rel_tol=1e-9)
