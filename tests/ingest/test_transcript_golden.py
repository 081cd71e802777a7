"""Transcripts stay byte for byte what they were: the pre-model stage may get faster, never different.

The digests in tests/fixtures/transcript_golden.json were written by the implementation before
the speed work (``python -m tests.support.transcript_cases``); see tests/support/transcript_cases.py for the cases.
They were rewritten once on purpose when credential files read or written by a tool began to be
redacted by value (``credential_file``), and again when a pasted credential file's remaining values
(``GIT_REMOTE=``, ``curl_example:`` in a read ``.env``) were too: only redaction counts and sizes changed.
"""

from __future__ import annotations

import json

import pytest

from memctl.ingest.transcript import build_transcript
from tests.support.transcript_cases import GOLDEN, SETTINGS, cases, digest

EXPECTED: dict[str, dict] = json.loads(GOLDEN.read_text(encoding="utf-8"))
CASES = list(cases())


def test_every_golden_case_is_still_built() -> None:
    built = {f"{label}:{name}" for name, _ in CASES for label in SETTINGS}
    assert built == set(EXPECTED)
    # The set is varied: secrets redacted, fields cut, sessions sampled, sessions below the threshold.
    assert sum(bool(d["redactions"]) for d in EXPECTED.values()) >= 20
    assert sum(bool(d["omitted_entries"]) for d in EXPECTED.values()) >= 10
    assert sum(bool(d["truncated"]) for d in EXPECTED.values()) >= 20
    assert sum(bool(d["skip_reason"]) for d in EXPECTED.values()) >= 5


@pytest.mark.parametrize("label", sorted(SETTINGS))
@pytest.mark.parametrize(("name", "session"), CASES, ids=[name for name, _ in CASES])
def test_transcript_matches_the_golden_digest(name, session, label) -> None:
    assert digest(build_transcript(session, SETTINGS[label])) == EXPECTED[f"{label}:{name}"]
