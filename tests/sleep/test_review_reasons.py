"""memctl.sleep.review_reasons: every reason code sleep can write reads as a sentence in `memctl review`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memctl.sleep.review_reasons import explain, explain_all

REPO = Path(__file__).resolve().parents[2]

# Literal reason codes as the validator and the trust decision write them ("property:setting_off", …).
_CODE = re.compile(r"\"((?:sensitive|normative|property|disguise|weakened)[:][a-z_]+)\"")


def _codes_in_source() -> set[str]:
    found: set[str] = set()
    for path in [*sorted((REPO / "memctl" / "validator").glob("*.py")), REPO / "memctl" / "sleep" / "trust.py"]:
        found |= set(_CODE.findall(path.read_text(encoding="utf-8")))
    return found


def test_the_source_still_writes_the_codes_this_test_reads() -> None:
    """Guard for the test below: if the codes moved out of string literals, it would check nothing."""
    assert {"property:setting_off", "sensitive:agent", "normative:weakening"} <= _codes_in_source()


@pytest.mark.parametrize("code", sorted(_codes_in_source()))
def test_every_literal_code_reads_as_a_sentence_wrapped_or_not(code: str) -> None:
    for wrapped in (code, f"unrecognised:{code}", f"action:{code}"):
        sentence = explain(wrapped)
        assert sentence != wrapped and sentence.startswith("it"), (wrapped, sentence)
        assert sentence not in ("it would make the agent act", "the rules could not recognise it as a low-risk fact")


@pytest.mark.parametrize(("code", "expected"), [
    ("action:command", "it carries a shell command the agent could run"),
    ("action:directive:run", "it is an instruction to run"),
    ("action:directive:de", "it is an instruction, written in de"),
    ("action:encoded:base64:url", "it carries a URL the agent could open or fetch (read after decoding base64)"),
    ("action:encoded:rot13:directive:install", "it is an instruction to install (read after decoding rot13)"),
    ("supersedes:user/global/pkg.md", "it would replace an existing memory (user/global/pkg.md)"),
    ("displaces_person:user/p.md", "it would replace a memory a person chose (user/p.md)"),
    ("affects:location", "it touches a subject (location) no memory of the person's own covers"),
    ("uncorroborated:transcript", "its session's transcript does not show the person saying it"),
    ("action:typosquat:reqests~requests", "it names a package one letter away from a popular one (reqests~requests)"),
    ("unrecognised:form:imperative", "it is written as an order, not as a fact"),
    ("action:some_future_code", "it would make the agent act"),
    ("entirely:unknown", "entirely:unknown"),
    ("", ""),
])
def test_explain(code: str, expected: str) -> None:
    assert explain(code) == expected


def test_explain_all_keeps_the_code_beside_its_sentence_and_the_order() -> None:
    assert explain_all(("action:url", "zz")) == ["it carries a URL the agent could open or fetch [action:url]", "zz"]


def test_every_family_the_trust_decision_writes_has_a_short_label() -> None:
    """sleep's summary counts held memories by family ("held for review  3 (would act 2, …)")."""
    from memctl.sleep.review_reasons import family_label

    source = (REPO / "memctl" / "sleep" / "trust.py").read_text(encoding="utf-8")
    families = set(re.findall(r"f?\"([a-z_]+):\{", source)) | set(re.findall(r"\(\"([a-z_]+)\",\)", source))
    assert {"action", "unrecognised", "affects", "supersedes", "displaces_person", "trust_claim"} <= families
    assert all(family_label(f) != f for f in families), families
    assert family_label("uncorroborated") == "not in its session" and family_label("zz") == "zz"
