"""The shared literal prefilter (memctl/scrub/gates.py) and the rules it gates.

The prefilter may only skip a rule that cannot match: its answer must equal a
substring test of every literal, and scrubbing with it must equal scrubbing with
every rule run.
"""

from __future__ import annotations

import random

import pytest

import memctl.scrub.core as scrub_module
from memctl.scrub.gates import GateIndex
from tests.support import scrub_corpus as corpus

LITERALS = ("/p:", "/password:", "whsec_", "_v1_", "glpat-", "sk-", "key=", "env:set", "activate-refresh-token",
            "git config", ">", "\\", "dp.", "hooks.slack.com", "eyj")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("xfreerdp /v:host /u:admin /p:Secret123", {"/p:"}),
        ("/password:x at the start", {"/password:"}),
        ("token whsec_abc and dop_v1_00 and glpat-x", {"whsec_", "_v1_", "glpat-"}),
        ("export OPENAI=sk-", {"sk-"}),
        ("?key=1&sig=2", {"key="}),
        ("fly env:set A=b; gcloud auth activate-refresh-token a b", {"env:set", "activate-refresh-token"}),
        ("git config --global github.token x > out", {"git config", ">"}),
        ("net use \\\\server\\share", {"\\"}),
        ("dp.st.x and https://hooks.slack.com/services/T0", {"dp.", "hooks.slack.com"}),
        ("eyj", {"eyj"}),
        ("p: password key = sk_ - _v1 glpat whsec dp hooks.slack", set()),
        ("", set()),
    ],
)
def test_present_literals_are_exactly_those_in_the_text(text: str, expected: set[str]) -> None:
    assert GateIndex(LITERALS).present(text) == expected


def test_present_equals_a_substring_test_on_random_texts() -> None:
    rng = random.Random(7)
    alphabet = "abcdegklnoprstvwy_-:=/>.\\ 1"
    index = GateIndex(LITERALS)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        text += rng.choice(LITERALS) if rng.random() < 0.5 else ""
        text = text[rng.randrange(0, 3):] + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8)))
        assert index.present(text) == {lit for lit in LITERALS if lit in text}, text


@pytest.mark.parametrize("bad", ["", "Upper", "GR1348941"])
def test_gate_literals_must_be_lower_case(bad: str) -> None:
    with pytest.raises(ValueError):
        GateIndex([bad])


class _Everything:
    """A prefilter that says every literal is present: every rule runs."""

    def __init__(self, literals: frozenset[str]) -> None:
        self.literals = literals

    def present(self, lowered: str) -> frozenset[str]:
        del lowered
        return self.literals


def test_gated_scrub_equals_scrub_with_every_rule_run(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [place(item.snippet) for item in (*corpus.ALL_SECRETS, *corpus.ALL_NEAR_MISSES)
             for place in corpus.POSITIONS.values()]
    gated = [scrub_module.find_secrets(text) for text in texts]
    monkeypatch.setattr(scrub_module, "_GATES", _Everything(scrub_module._GATES.literals))
    assert [scrub_module.find_secrets(text) for text in texts] == gated


def test_every_rule_literal_is_indexed() -> None:
    # The common words several rules walk hit by hit are found by gates.positions instead.
    from memctl.scrub.gates import HIT_WORDS, positions

    for detector in scrub_module.DETECTORS:
        for literal in detector.requires + detector.literals:
            assert literal in scrub_module._GATES.literals or literal in HIT_WORDS, (detector.kind, literal)
    text = "a token, the keys, a passport, secrets"
    assert {w for w in HIT_WORDS if positions(text, w)} == {"token", "key", "pass", "secret"}
    assert positions(text, "key") == (text.index("keys"),)


def test_one_pass_answer_equals_a_substring_test_of_every_rule_literal() -> None:
    # The real index (every rule's literals, words of other languages and non-ASCII ones included)
    # against a plain substring test, on texts holding each literal in a long ASCII or non-ASCII text.
    index = scrub_module._GATES
    literals = sorted(index.literals)
    rng = random.Random(23)
    filler = "ran the build; next step is the deploy.\n" * 300
    for _ in range(300):
        chosen = rng.sample(literals, rng.randrange(0, 4))
        text = filler + " ".join(chosen) + rng.choice(("", " café", " \ud800", " 数据"))
        assert index.present(text) == {lit for lit in literals if lit in text}, chosen


def test_the_fallback_without_the_library_gives_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import memctl.scrub.gates as gates

    texts = ["/p:x whsec_ kennwort= lösenord", "", "nothing here", "a > b | c \\ d"]
    fast = [GateIndex(LITERALS + ("lösenord", "kennwort=")).present(t) for t in texts]
    monkeypatch.setattr(gates, "_compile", lambda literals: False)
    slow = [GateIndex(LITERALS + ("lösenord", "kennwort=")).present(t) for t in texts]
    assert fast == slow
    assert fast[0] == {"/p:", "whsec_", "kennwort=", "lösenord"}


def _instances_of_every_scrub_test() -> list[str]:
    """Every string literal of the scrubber's test modules (their secrets, near-misses and
    carriers), so the gate is checked on every rule's own instances, not only the corpus."""
    import ast
    from pathlib import Path

    found: set[str] = set()
    for path in sorted(Path(__file__).parent.glob("test_scrub*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 6:
                found.add(node.value)
    return sorted(found)


class _Substring:
    """The reference prefilter: one substring test per literal (what the one pass must equal)."""

    def __init__(self, literals: frozenset[str]) -> None:
        self.literals = literals

    def present(self, lowered: str) -> frozenset[str]:
        return frozenset(literal for literal in self.literals if literal in lowered)


def test_every_rule_instance_is_found_with_the_one_pass_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    # Some rules read their literals as context too (a WIF key only beside "wif"/"wallet"), so the
    # reference here is an exact substring test of every literal, not every rule run.
    from tests.support import catalog_corpus

    secrets, near, _ = catalog_corpus.load()
    filler = "ran the build, all green; next step is the deploy.\n" * 200  # past any length-based shortcut
    texts = _instances_of_every_scrub_test() + [item.snippet for item in (*secrets, *near)]
    texts += [filler + text + "\n" + filler for text in texts[::7]]
    assert len(texts) > 1500
    gated = [scrub_module.find_secrets(text) for text in texts]
    assert sum(bool(found) for found in gated) > 700  # the instances hold secrets: the test can fail
    monkeypatch.setattr(scrub_module, "_GATES", _Substring(scrub_module._GATES.literals))
    assert [scrub_module.find_secrets(text) for text in texts] == gated


def test_the_config_line_precheck_equals_the_line_lead_regex() -> None:
    from memctl.scrub.context_names import _LINE_LEAD, _is_config_line

    rng = random.Random(3)
    alphabet = ["a", " ", "\n", "\\", "n", "-", "#", '"', "export ", "\x1b[32m", ":", "="]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
        for pos in range(len(text) + 1):
            assert _is_config_line(text, pos) == (_LINE_LEAD.search(text, max(0, pos - 40), pos) is not None)


# --- per-hit prechecks of the hit walks (scrub branch): each may only skip a hit that cannot yield ---

_PIECES = ("token", "Token", "TOKEN", "key", "secret", "api ", "private ", "bot ", "auth ", " ", " ", "\n", "\\n",
           "=", ": ", "tests/test_deploy.py", "Zq8vN2kLm4PxR7tYw3HsAb6C", "a1b2c3d4e5f6a7b8c9d0e1f2", "is ", "the ",
           "queue ", "encoder ", "x" * 30, "export ", "# ", "\x00", "é", "~", "-", "_", "+", "/", "MyToken", "tokens ")


def _hit_texts(seed: int, count: int) -> list[str]:
    """Random texts made of credential words, separators, line starts and random runs, each padded
    so the hits sit both near the start and past every precheck's reach (120 characters)."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        body = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 40)))
        texts.append(body if rng.random() < 0.3 else "word " * rng.randrange(0, 40) + body)
    return texts


def _corpus_texts() -> list[str]:
    from tests.support import catalog_corpus

    secrets, near, _ = catalog_corpus.load()
    filler = "the token encoder reads tests/test_deploy.py; next the api token queue. " * 4
    texts = _instances_of_every_scrub_test() + [item.snippet for item in (*secrets, *near)]
    return texts + [filler + text + " " + filler for text in texts[::5]]


def test_entropy_head_index_skips_only_hits_with_no_run_in_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    import memctl.scrub.entropy as entropy

    def spans(text: str) -> list:
        lowered = text.lower()
        lowered = lowered if len(lowered) == len(text) else None
        return list(entropy._entropy_spans(text, lowered, scrub_module._GATES.present(text.lower())))

    texts = _hit_texts(5, 4000) + _corpus_texts()
    indexed = [spans(text) for text in texts]
    assert sum(bool(found) for found in indexed) > 100  # the texts hold runs after credential words
    monkeypatch.setattr(entropy, "run_heads", lambda lowered: None)  # every hit walked, as before
    assert [spans(text) for text in texts] == indexed


def test_head_index_finds_every_run_head() -> None:
    from memctl.scrub.entropy import _RUN_HEAD
    from memctl.scrub.gates import _HEADS

    for text in _hit_texts(9, 1500):
        lowered = text.lower()
        expected = [m.start() for m in _RUN_HEAD.finditer(text)] if text.isascii() else None
        found = _HEADS.starts(lowered)
        if expected is None:
            assert found is None
        else:
            # finditer skips heads inside an earlier match; the index reports every head
            assert set(expected) <= set(found) and all(_RUN_HEAD.match(text, h) for h in found), text


def test_prose_hits_of_english_roots_are_skipped_only_when_they_cannot_yield(monkeypatch: pytest.MonkeyPatch) -> None:
    import memctl.scrub.context_names as names

    texts = _hit_texts(13, 4000) + _corpus_texts()
    fast = [scrub_module.find_secrets(text) for text in texts]
    assert sum(bool(found) for found in fast) > 300
    monkeypatch.setattr(names, "_hits_that_may_yield", lambda text, lowered, hits, length: hits)  # every hit walked
    assert [scrub_module.find_secrets(text) for text in texts] == fast


def test_bulk_prose_filter_keeps_every_hit_the_per_hit_test_keeps() -> None:
    import memctl.scrub.context_names as names
    from memctl.scrub.gates import positions

    walked = dropped = 0
    texts = _hit_texts(17, 3000)
    one_line = [text.replace("\n", " ").replace("\\n", " ") for text in texts]  # no line break: the comprehension
    for text in texts + one_line + ["x " * 70 + "a\\ntoken: " + "y" * 30, "w " * 80 + "API token: abc"]:
        lowered = text.lower()
        for word in ("token", "secret", "key"):
            hits = positions(lowered, word)
            kept = names._hits_that_may_yield(text, lowered, hits, len(word))
            reference = [pos for pos in hits if not names._english_hit_in_prose(text, lowered, pos, len(word))]
            assert set(reference) <= set(kept) and kept == sorted(kept), text
            walked += len(kept)
            dropped += len(hits) - len(kept)
    assert walked > 500 and dropped > 500  # both kinds of hit are in the texts


def test_positions_reports_overlapping_hits_of_any_word() -> None:
    from memctl.scrub.gates import positions

    assert positions("aaaa", "aa") == (0, 1, 2)
    assert positions("abab ab abab", "abab") == (0, 8)
    assert positions("a token tokentoken", "token") == (2, 8, 13)
    assert positions("ababab", "abab") == (0, 2)
    rng = random.Random(1)
    for _ in range(500):
        text = "".join(rng.choice("ab") for _ in range(rng.randrange(0, 30)))
        word = "".join(rng.choice("ab") for _ in range(rng.randrange(1, 4)))
        assert positions(text, word) == tuple(i for i in range(len(text)) if text.startswith(word, i))


_DECLARATION_PIECES = (*_PIECES, "const ", "var ", "#define ", ": str = ", ": String = ", "String ", "char *", "set -x ",
                       "setenv ", "<db:", "</db:", ">", '"', "'", "`", "[]", " = ", ":", "L", "password", "DB_PASSWORD",
                       "apiToken", "Hx7qLm2Pz9", "mat_khau", "kata_sandi", "reset ", "variable ")


def test_declaration_hits_are_skipped_only_when_no_form_can_follow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The precheck of memctl.scrub.declarations (scrubcost branch) against the walk of every hit."""
    import memctl.scrub.declarations as declarations

    rng = random.Random(17)
    texts = ["".join(rng.choice(_DECLARATION_PIECES) for _ in range(rng.randrange(1, 30))) for _ in range(6000)]
    texts += [("word " * rng.randrange(0, 30)) + text for text in texts[:2000]] + _corpus_texts()

    def spans(text: str) -> list:
        lowered = text.lower()
        lowered = lowered if len(lowered) == len(text) else None
        return list(declarations._declaration_spans(text, lowered, scrub_module._GATES.present(text.lower())))

    fast = [spans(text) for text in texts]
    assert sum(bool(found) for found in fast) > 100  # the texts hold declarations
    monkeypatch.setattr(declarations, "candidate_hits", lambda lowered, root, hits, words: list(hits))
    assert [spans(text) for text in texts] == fast
