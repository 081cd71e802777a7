"""The secret corpus (tests/support/scrub_corpus.py) in every position: recall 1.00, false redactions <= 1%.

The figures are computed here from the corpus, not written down; the same
computation prints them in bench/bench_scrub_corpus.py.
"""

from __future__ import annotations

from memctl.scrub.core import MARKER_PATTERN, find_secrets, scrub, scrub_texts
from tests.support import scrub_corpus as corpus


def test_corpus_is_as_large_as_the_issue_asks() -> None:
    assert len(corpus.SECRETS) >= 60
    assert len({secret.kind for secret in corpus.SECRETS}) >= 25
    assert len(corpus.NEAR_MISSES) >= 40
    positions = set(corpus.POSITIONS)
    for needed in ("user_text", "assistant_text", "reasoning", "tool_input_bash", "tool_output_bash",
                   "tool_output_read_new", "tool_output_read_old", "tool_input_edit", "tool_output_grep",
                   "title", "error_message", "patch", "escaped_json", "base64url"):
        assert needed in positions


def test_placed_secrets_are_really_in_the_text() -> None:
    # Every planted value is readable in its placed text before scrubbing (so recall can fail).
    for secret in corpus.ALL_SECRETS:
        for name, place in corpus.POSITIONS.items():
            assert corpus.survivors(secret.values, place(secret.snippet)) == list(secret.values), (secret, name)


def test_recall_is_one_and_false_redactions_at_most_one_percent() -> None:
    figures = corpus.measure(lambda text: scrub(text).text)
    assert figures.planted == len(corpus.ALL_SECRETS) * len(corpus.POSITIONS)
    assert figures.missed == (), figures.missed[:10]
    assert figures.recall == 1.0
    assert figures.false_redaction_rate <= 0.01, figures.falsely_redacted


def test_joined_fields_give_the_same_result_as_one_by_one() -> None:
    # The transcript scrubs a session's fields in one call (scrub_texts).
    texts = [place(s.snippet) for s in corpus.SECRETS[:30] for place in corpus.POSITIONS.values()]
    joined, counts = scrub_texts(texts)
    assert joined == [scrub(text).text for text in texts]
    assert sum(counts.values()) == sum(len(MARKER_PATTERN.findall(text)) for text in joined)


def test_every_redaction_is_typed_and_counted() -> None:
    for secret in corpus.ALL_SECRETS:
        for place in corpus.POSITIONS.values():
            result = scrub(place(secret.snippet))
            markers = MARKER_PATTERN.findall(result.text)
            assert markers and sum(result.counts.values()) == len(markers), (secret.kind, result.text)
            assert {m[len("[REDACTED:") : -1] for m in markers} == set(result.counts)


def test_no_redaction_crosses_a_field_boundary() -> None:
    # scrub_texts joins a session's fields with NUL; a span over a NUL would merge two fields.
    import random

    texts = [place(s.snippet) for s in corpus.ALL_SECRETS for place in corpus.POSITIONS.values()]
    texts += [place(n.snippet) for n in corpus.ALL_NEAR_MISSES for place in corpus.POSITIONS.values()]
    random.Random(7).shuffle(texts)
    joined = "\x00".join(texts)
    crossing = [(kind, joined[start:end][:60]) for kind, (start, end) in find_secrets(joined) if "\x00" in joined[start:end]]
    assert not crossing
