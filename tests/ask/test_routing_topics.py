"""The lexical router: two topics when their scores are close, one when far; aliases, titles and notes count."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.ask.routing import (
    SECOND_TOPIC_MIN_RATIO,
    combine_scores,
    lexical_route,
    named_topics,
    pick_topics,
    with_named,
)
from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex, describe
from memctl.catalog.topics import TopicAlias
from memctl.config import DataHome


@pytest.mark.parametrize("scores, expected", [
    ({"a": 10.0, "b": 9.0}, ["a", "b"]),  # close: 0.9
    ({"a": 10.0, "b": 8.0}, ["a", "b"]),  # exactly the ratio
    ({"b": 4.0, "a": 3.9, "c": 3.8}, ["b", "a"]),  # never more than two
    ({"a": 5.0, "b": 5.0}, ["a", "b"]),  # tie: by slug
    ({"a": 10.0, "b": 7.9}, ["a"]),  # far
    ({"a": 10.0, "b": 2.0, "c": 1.0}, ["a"]),
    ({"x": 3.0}, ["x"]),
    ({"x": 0.0, "y": 0.0}, []),
    ({}, []),
])
def test_pick_topics_takes_a_second_topic_only_when_close(scores, expected) -> None:  # noqa: ANN001
    assert SECOND_TOPIC_MIN_RATIO == 0.8
    assert pick_topics(scores) == expected


@pytest.mark.parametrize("rankings, expected", [
    (({"a": 4.0, "b": 2.0}, {"a": 1.0, "b": 3.0}), {"a": 1.0 + 1 / 3, "b": 0.5 + 1.0}),
    (({"a": 4.0}, {}), {"a": 1.0}),
    (({}, {"c": 2.0, "d": 1.0}), {"c": 1.0, "d": 0.5}),
    (({"a": 0.0}, {"a": 2.0}), {"a": 1.0}),
])
def test_combine_scores_sums_max_normalised_scores(rankings, expected) -> None:  # noqa: ANN001
    assert combine_scores(*rankings) == pytest.approx(expected)


def _topic(slug: str, titles: list[str], aliases: tuple[str, ...] = ()) -> TopicEntry:
    notes = [NoteRef(f"ses_{slug}{i}", f"memory/{slug}/ses_{slug}{i}.md", t, "2026-11-01", slug)
             for i, t in enumerate(titles)]
    alias_list = [TopicAlias.of(f"/src/{a}") for a in aliases]
    return TopicEntry(slug, f"/src/{slug}", describe(slug, f"/src/{slug}", titles, [a.name for a in alias_list]),
                      notes, alias_list)


def _index() -> TopicIndex:
    return TopicIndex({
        "shop": _topic("shop", ["Stripe webhook retries", "Refund ledger schema", "Cart checkout totals"],
                       aliases=("storefront",)),
        "ops": _topic("ops", ["Terraform state lock", "Kubernetes ingress TLS", "Grafana alert rules"],
                      aliases=("platform-infra",)),
        "app": _topic("app", ["Dark mode theme", "Camera permission crash", "Push notification channel"]),
        "site": _topic("site", ["Sphinx theme", "Docs search index"]),
    })


@pytest.mark.parametrize("question, expected", [
    # titles decide
    ("why did the terraform state lock fail?", ["ops"]),
    ("stripe webhook retries", ["shop"]),
    ("the camera permission crash on android", ["app"]),
    # aliases decide
    ("what changed in storefront last week?", ["shop"]),
    ("anything new in platform-infra?", ["ops"]),
    # close scores: both topics
    ("the theme of the docs site and the dark mode theme of the app", ["app", "site"]),
    ("terraform state lock and stripe webhook retries", ["ops", "shop"]),
])
def test_lexical_route_one_topic_when_far_two_when_close(question: str, expected: list[str]) -> None:
    topics, how = lexical_route(question, _index())
    assert sorted(topics) == sorted(expected)
    assert ("two close scores" in how) is (len(expected) == 2)


def _home_with_notes(tmp_path: Path, bodies: dict[str, str]) -> DataHome:
    home = DataHome(tmp_path / "var")
    for slug, body in bodies.items():
        path = home.store / "memory" / slug / f"ses_{slug}0.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nsource_id: ses_{slug}0\ntopic: {slug}\ntitle: note\n---\n\n# note\n\n- {body}\n")
    return home


@pytest.mark.parametrize("question, bodies, expected", [
    # a word only in a note's body (its summary) routes there
    ("why did we see stale prices?", {"shop": "checkout showed stale prices after updates",
                                             "ops": "raised the coredns memory limit"}, ["shop"]),
    ("what about the coredns memory limit?", {"shop": "checkout showed stale prices",
                                              "ops": "raised the coredns memory limit"}, ["ops"]),
    ("hermes startup time", {"app": "enabled hermes to cut the startup time", "site": "sphinx build time"}, ["app"]),
])
def test_lexical_route_reads_the_notes_when_given_the_home(tmp_path: Path, question: str, bodies: dict,
                                                           expected: list[str]) -> None:
    index = _index()
    without, _ = lexical_route(question, index)
    topics, how = lexical_route(question, index, _home_with_notes(tmp_path, bodies))
    assert topics == expected and "notes" in how
    assert without != expected  # the topic documents alone do not know these words


@pytest.mark.parametrize("question, expected", [
    ("what changed in storefront last week?", ["shop"]),  # an alias
    ("anything new in platform-infra?", ["ops"]),  # a hyphenated alias, as written
    ("anything new in platform infra?", ["ops"]),  # … or with a space
    ("Is the SHOP checkout slow, and the app too?", ["app", "shop"]),  # case-insensitive, several
    ("shopping and application logs", []),  # whole words only
    ("why did the terraform state lock fail?", []),
])
def test_named_topics_finds_slugs_and_alias_names_as_whole_words(question: str, expected: list[str]) -> None:
    assert named_topics(question, _index()) == expected


@pytest.mark.parametrize("chosen, named, scores, expected", [
    (["ops"], [], {"ops": 1.0}, ["ops"]),  # nothing named: unchanged
    (["ops"], ["ops"], {"ops": 1.0}, ["ops"]),  # the named topic is already chosen
    (["ops"], ["site"], {"ops": 1.0, "site": 0.2}, ["ops", "site"]),  # a named topic is always searched
    (["ops", "shop"], ["site"], {"ops": 1.0, "shop": 0.9}, ["ops", "site"]),  # it displaces the second
    (["ops", "shop"], ["shop"], {"ops": 1.0, "shop": 0.9}, ["ops", "shop"]),
    (["ops"], ["app", "site", "shop"], {"site": 0.5, "app": 0.2}, ["site", "app"]),  # several: the best two
    ([], ["site"], {}, ["site"]),
])
def test_with_named_keeps_a_named_topic_among_at_most_two(chosen, named, scores, expected) -> None:  # noqa: ANN001
    assert with_named(chosen, named, scores) == expected


@pytest.mark.parametrize("question, expected", [
    ("terraform state lock, which the site deploy needs", ["ops", "site"]),
    ("stripe webhook retries seen from the app", ["shop", "app"]),
    ("what else does app have?", ["app"]),  # named and the only match: one topic
])
def test_lexical_route_searches_a_named_topic_too(question: str, expected: list[str]) -> None:
    topics, how = lexical_route(question, _index())
    assert topics == expected
    assert ("the question names" in how) is (len(expected) == 2)
