"""The adversarial proposal corpus (tests/proposal_corpus.py) through the validator and through sleep.

Targets (the secrets-and-poisoning corpus targets): every hostile proposal is kept out of ``user/`` and at least
95% of the benign near-misses are promoted — both computed here from the corpus, per split and
overall. The same corpus with every Unicode evasion of :data:`tests.proposal_corpus.TRANSFORMS`
applied must give the same decisions (the evasion kind, not the sample). A sample of every kind
goes through the real promotion path of ``memctl sleep`` (staged files → validator → ``user/`` or
``staging/rejected/``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.sleep.run import SleepOptions, SleepRun
from memctl.store import MemoryStore
from memctl.validator.core import ValidationLimits, validate_proposal
from tests.proposal_corpus import CORPUS, GH, TRANSFORMS, Entry, proposal_for

LIMITS = ValidationLimits()
HOSTILE = [e for e in CORPUS if e.expect == "reject"]
BENIGN = [e for e in CORPUS if e.expect == "promote"]
SPLITS = sorted({e.split for e in CORPUS})
PATH_REASONS = {"target_not_user", "internal_path", "memory_path", "absolute_path", "traversal", "bad_path"}
BENIGN_TARGET = 0.95


def _family(reason: str) -> str:
    return "path" if reason in PATH_REASONS else reason.split(":")[0]


def _verdict(entry: Entry):
    return validate_proposal(proposal_for(entry), limits=LIMITS)


def test_corpus_is_large_varied_and_well_formed() -> None:
    assert len(HOSTILE) >= 150 and len(BENIGN) >= 50
    assert len({e.id for e in CORPUS}) == len(CORPUS)
    per_kind: dict[str, int] = defaultdict(int)
    for entry in HOSTILE:
        per_kind[entry.kind] += 1
        assert entry.family and (entry.text is not None or entry.fields)
    assert min(per_kind.values()) >= 8, per_kind
    variants = {e.variant for e in HOSTILE}
    assert {"de", "fr", "es", "zh", "framing"} <= variants
    assert len({v for v in variants if v.startswith("unicode:")}) >= 10
    for split in SPLITS:
        assert any(e.split == split for e in HOSTILE) and any(e.split == split for e in BENIGN), split


@pytest.mark.parametrize("entry", HOSTILE, ids=[e.id for e in HOSTILE])
def test_hostile_proposal_is_refused_for_its_kind(entry: Entry) -> None:
    verdict = _verdict(entry)
    assert not verdict.ok, f"{entry.id} promoted: {entry.text!r}"
    assert verdict.path is None and verdict.content is None and verdict.detail
    family = _family(verdict.reason)
    # an encoded payload is reported under the family of what it decodes to
    assert family == entry.family or (entry.kind == "encoded_command" and "encoded" in verdict.reason), \
        f"{entry.id}: {verdict.reason} ({verdict.detail})"


@pytest.mark.parametrize("split", SPLITS + ["all"])
def test_rates_meet_the_targets(split: str) -> None:
    hostile = [e for e in HOSTILE if split in ("all", e.split)]
    benign = [e for e in BENIGN if split in ("all", e.split)]
    promoted_hostile = [e.id for e in hostile if _verdict(e).ok]
    refused_benign = [(e.id, _verdict(e).reason) for e in benign if not _verdict(e).ok]
    rejection = 1 - len(promoted_hostile) / len(hostile)
    acceptance = 1 - len(refused_benign) / len(benign)
    assert rejection == 1.0, f"{split}: hostile promoted: {promoted_hostile}"
    assert acceptance >= BENIGN_TARGET, f"{split}: benign refused ({acceptance:.3f}): {refused_benign}"


ISSUE_NEAR_MISSES = ["b-prefers-tabs", "b-assistant-reply-slow", "b-numbered-steps", "b-rotate-keys",
                     "b-force-with-lease", "b-env-example", "b-ci-runs-tests", "b-deleted-branch",
                     "c28-benign-near-miss-brackets", "c28-benign-near-miss-heading"]


@pytest.mark.parametrize("case_id", ISSUE_NEAR_MISSES)
def test_the_near_misses_named_in_the_issue_are_promoted(case_id: str) -> None:
    entry = next(e for e in CORPUS if e.id == case_id)
    verdict = _verdict(entry)
    assert verdict.ok and verdict.content == entry.text, (case_id, verdict.reason, verdict.detail)


PLAIN_HOSTILE_TEXTS = [e for e in HOSTILE if e.variant == "plain" and e.text is not None]


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_every_evasion_keeps_every_hostile_text_out(transform: str) -> None:
    evading = [replace(e, text=TRANSFORMS[transform](e.text)) for e in PLAIN_HOSTILE_TEXTS]
    promoted = [e.id for e in evading if _verdict(e).ok]
    assert len(evading) >= 150 and promoted == [], f"{transform}: promoted {promoted}"


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_every_evasion_of_a_benign_text_stays_benign(transform: str) -> None:
    evading = [replace(e, text=TRANSFORMS[transform](e.text)) for e in BENIGN if e.text is not None]
    refused = [(e.id, _verdict(e).reason) for e in evading if not _verdict(e).ok]
    assert 1 - len(refused) / len(evading) >= BENIGN_TARGET, f"{transform}: {refused}"


def test_staged_bytes_give_the_same_verdict_as_the_parsed_proposal() -> None:
    for entry in CORPUS:
        data = json.dumps(proposal_for(entry), ensure_ascii=False, indent=2).encode("utf-8")
        assert validate_proposal(data, limits=LIMITS) == _verdict(entry), entry.id


def test_rejection_details_carry_no_markup_or_escapes() -> None:
    """Details are printed by the CLI and the report: no "[/x]" (rich markup), backticks, escapes or tags."""
    for entry in HOSTILE:
        detail = _verdict(entry).detail
        if not _verdict(entry).reason.startswith(("forged_context", "prompt_injection", "memory_poisoning")):
            continue
        assert not any(ch in detail for ch in "[]`\\<>|"), (entry.id, detail)


def test_rejection_details_never_quote_secret_material() -> None:
    for entry in (e for e in HOSTILE if e.kind == "secret" or GH in (e.text or "")):
        verdict = _verdict(entry)
        assert GH not in verdict.detail and "Xk9" not in verdict.detail, (entry.id, verdict.detail)


# -- the real promotion path ---------------------------------------------------------------------


def _sample() -> list[Entry]:
    """Two entries of every (split, kind), so each kind goes through sleep at least four times."""
    picked: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in CORPUS:
        if len(picked[(entry.split, entry.kind)]) < 2:
            picked[(entry.split, entry.kind)].append(entry)
    return [e for entries in picked.values() for e in entries]


def test_sleep_promotes_the_benign_sample_and_keeps_the_hostile_sample_out_of_user(tmp_path: Path) -> None:
    home = tmp_path / "var"
    store = MemoryStore(home / "store")
    staged: dict[str, tuple[Entry, str, str]] = {}
    for n, entry in enumerate(_sample()):
        pid, session = f"c{n:03d}", f"ses_c{n:03d}"  # one session each: no clusters, no model needed
        proposal = proposal_for(entry) | {"id": pid, "session": session}
        if not entry.fields or "path" not in entry.fields:
            proposal["path"] = f"user/sessions/{session}/{pid}.md"
        store.write_text(f"staging/sessions/{session}/inbox/{pid}.json", json.dumps(proposal, ensure_ascii=False),
                         actor="ask", reason="corpus proposal")
        staged[pid] = (entry, session, proposal["path"])
    kinds = {entry.kind for entry, _, _ in staged.values()}
    assert len(kinds) >= 12 and len(staged) >= 60

    summary = SleepRun(Settings(home=home, ollama_host="http://127.0.0.1:9"), SleepOptions(rebuild=False)).run()

    hostile = {pid for pid, (entry, _, _) in staged.items() if entry.expect == "reject"}
    benign = set(staged) - hostile
    assert (summary.proposals, summary.promoted, summary.rejected) == (len(staged), len(benign), len(hostile)), \
        summary.errors
    user_files = set(store.list("user"))
    assert user_files == {staged[pid][2] for pid in benign}
    for pid in benign:
        entry, _, path = staged[pid]
        assert entry.text in store.read_text(path)[0] and f"proposal: {pid}" in store.read_text(path)[0]
    hostile_texts = [staged[pid][0].text for pid in hostile if staged[pid][0].text]
    for path in user_files:
        written = store.read_text(path)[0]
        assert not any(text in written for text in hostile_texts), path
    for pid in hostile:
        entry, session, _ = staged[pid]
        archived = json.loads(store.read_text(f"staging/rejected/{session}/{pid}.json")[0])
        family = _family(archived["reason"])
        assert family == entry.family or (entry.kind == "encoded_command" and "encoded" in archived["reason"]), \
            (pid, entry.id, archived["reason"])
        if family == "secret":
            assert archived["original"].startswith("[withheld"), pid
    assert store.list("memory") == [] and store.list("staging/sessions") == []
    assert store.verify(deep=True).ok
