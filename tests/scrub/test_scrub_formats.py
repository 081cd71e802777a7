"""Issued tokens are matched by what the issuer guarantees.

For every format in :mod:`memctl.scrub.token` several fake instances: one of
letters only where the alphabet allows (a body without digits must not slip
through), one mixed, in prose and as a value under a key that names no
credential. Near-misses: too short, glued to a longer word, wrong alphabet.
"""

from __future__ import annotations

import base64
import json

import pytest

from memctl.scrub.core import find_secrets, scrub
from memctl.scrub.token import TOKEN_FORMATS
from tests.support.scrub_corpus import _fill

LETTERS = "FAKEdeadbeefFAKEabcdefghijklmnopqrstuvwxyzFAKE"
HEX = "0000deadbeef"
B = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

# kind -> instances (each must be redacted as that kind)
FORMATS: dict[str, list[str]] = {
    "github_token": [_fill("ghp_", 40, LETTERS), _fill("gho_", 40), _fill("ghs_", 40, "AbCd0000"), _fill("github_pat_", 93)],
    "gitlab_token": [_fill("glpat-", 26, LETTERS), _fill("glpat-", 26), _fill("gldt-", 26), "GR1348941" + _fill("", 20)],
    "grafana_token": [_fill("glsa_", 37, LETTERS) + "_" + "deadbeef", _fill("glc_", 60, "FAKEabcd0000+/")],
    "google_oauth_secret": [_fill("GOCSPX-", 35, LETTERS), _fill("GOCSPX-", 35, "ab_-00FAKE")],
    "anthropic_key": [_fill("sk-ant-api03-", 108, LETTERS), _fill("sk-ant-admin01-", 108)],
    "openai_key": [_fill("sk-proj-", 120, LETTERS), _fill("sk-svcacct-", 80), "sk-" + "FAKE" * 5 + "T3BlbkFJ" + "FAKE" * 5, _fill("sk-", 51)],
    "slack_token": ["xoxb-0000000000-0000000000000-" + _fill("", 24, LETTERS), "xoxp-0000-0000-0000-" + HEX * 3, "xapp-1-A0000-0000-" + _fill("", 40)],
    "xai_key": [_fill("xai-", 84, LETTERS), _fill("xai-", 84)],
    "brevo_key": ["xkeysib-" + HEX * 5 + "dead" + "-" + _fill("", 16, LETTERS)],
    "npm_token": [_fill("npm_", 40, LETTERS), _fill("npm_", 40)],
    "huggingface_token": [_fill("hf_", 37, LETTERS), _fill("hf_", 37), _fill("hf_", 40, "AbCdEfGh")],
    "vault_token": [_fill("hvs.", 96, LETTERS), _fill("hvb.", 120), _fill("hvs.", 28, "CAESIFAKE0000")],
    "pypi_token": [_fill("pypi-AgEIcHlwaS5vcmc", 120, LETTERS), _fill("pypi-AgENdGVzdC5weXBpLm9yZw", 120)],
    "google_api_key": [_fill("AIza", 39, LETTERS), _fill("AIza", 39, "Sy-_00FAKE")],
    "aws_access_key": ["AKIAFAKEDEADBEEFFAKE", "ASIAFAKE0000DEADBEEF", "ABIA0000FAKEDEADBEEF", "A3TXFAKE0000DEADBEEF"],
    "age_secret_key": ["AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2][:1],
    "atlassian_token": [_fill("ATATT3", 192, LETTERS), _fill("ATBB", 36, LETTERS)],
    "artifactory_token": [_fill("AKCp", 73, LETTERS), _fill("AKCp", 73)],
    "firebase_key": ["AAAA" + _fill("", 7) + ":APA91b" + _fill("", 134, LETTERS)],
    "sendgrid_key": ["SG." + _fill("", 22, LETTERS) + "." + _fill("", 43, LETTERS), "SG." + _fill("", 22) + "." + _fill("", 43)],
    "twilio_key": ["SK" + HEX * 2 + "deadbeef", "SK" + "deadbeef" * 4],
    "telegram_bot_token": ["1234567890:AA" + _fill("", 33, LETTERS), "98765432:AA" + _fill("", 33)],
}
# A minisign secret key's base64 line alone (encrypted and unencrypted key files).
FORMATS["private_key"] = [base64.b64encode(head + bytes((7 * i + 3) % 256 for i in range(152))).decode()
                          for head in (b"EdScB2", b"Ed\0\0B2")]
FORMATS["age_secret_key"] = ["AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]]

CASES = [(kind, token) for kind, tokens in FORMATS.items() for token in tokens]


def _contexts(token: str) -> dict[str, str]:
    # Key names that name no credential: the format alone must be enough.
    return {
        "prose": f"I pasted {token} into the runner by mistake.",
        "value": f"VALUE={token}",
        "json": json.dumps({"value": token}),
        "escaped_json_line": json.dumps({"text": f"first line\n{token}\nlast line"}),
        "markdown": f"- `{token}`",
    }


@pytest.mark.parametrize(("kind", "token"), CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_issued_token_is_redacted_by_its_format(kind: str, token: str) -> None:
    for context, text in _contexts(token).items():
        result = scrub(text)
        assert token not in result.text, (context, result.text)
        assert result.counts.get(kind) == 1, (context, result.counts)


def test_every_token_format_has_instances_here() -> None:
    assert {fmt.kind for fmt in TOKEN_FORMATS} <= set(FORMATS)
    assert all(len(tokens) >= 1 for tokens in FORMATS.values())


def test_letters_only_bodies_are_covered_for_prefixed_formats() -> None:
    letters_only = [t for _, t in CASES if not any(c.isdigit() for c in t.split("_", 1)[-1].split("-", 2)[-1])]
    assert len(letters_only) >= 10  # the table really holds digit-free bodies


NEAR_MISSES = [
    "ghp_short and gho_ are prefixes",
    "mygh" + "p_" + "FAKE" * 9,  # glued to a longer word
    "hf_hub_download(repo_id='x', filename='y')",
    "hf_" + "a" * 10,
    "sk-learn-compatible-estimator-interface and scikit-learn",
    "sk-" + "abcdefghijklmnopqrstuv",  # bare sk- without digits: prose-like
    "AKIAEXAMPLE and AKIA1234 are not keys; AKIAIOSFODNN7EXAMPLEXYZ123 is too long",
    "xoxo hugs and kisses",
    "npm_config_cache=/tmp/npm and npm_package_version=1.2.3",
    "SKU-00001234 and SK-1",
    "GR1348941 is a runner prefix",
    "the hvs. prefix marks Vault service tokens",
    "port 1234567890:80 is not a bot token",
    "GOCSPX- prefix only",
]


@pytest.mark.parametrize("text", NEAR_MISSES, ids=range(len(NEAR_MISSES)))
def test_format_near_misses_stay(text: str) -> None:
    assert scrub(text).text == text, find_secrets(text)
