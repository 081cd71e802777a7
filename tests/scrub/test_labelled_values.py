"""Held-out round 7 layouts (memctl.scrub.labelled_values): a value in parentheses after its label, the
label and the value on consecutive lines (OCR, chat-ops replies), OCR spellings of names and tokens split
by spaces. Instances written for this test; near-misses are the prose and code they must leave alone."""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub
from memctl.scrub.labelled_values import password_shaped

SECRETS = [
    # a value in parentheses after its label
    ("the new token (ghx7Qm2LpZ9vR4tW8yK1) works", "ghx7Qm2LpZ9vR4tW8yK1"),
    ("Rotated the API key (Zq8mN3vB7xK2pL9wR5tY) this morning", "Zq8mN3vB7xK2pL9wR5tY"),
    ("set admin password (P@ssw0rd!2024) on the box", "P@ssw0rd!2024"),
    ("secret (h7Gk2Lm9Qw4Xz1Vb) goes in vault", "h7Gk2Lm9Qw4Xz1Vb"),
    ("use the access token (4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c) for the bot", "4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
    ("db password (Winter-Harbor-77) for staging", "Winter-Harbor-77"),
    ("Mailgun API key (key-3ax6xnjp29jd6fds4gc373sgvjxteol0) expired", "3ax6xnjp29jd6fds4gc373sgvjxteol0"),
    ("- wifi passphrase (Blue#Otter#Canyon) for the lab", "Blue#Otter#Canyon"),
    # label, then the value alone on the next line (OCR of a screenshot, a heading)
    ("API key\nsk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("Password:\nHunter2Blue!Sky", "Hunter2Blue!Sky"),
    ("secret key\n  9fK2mQ7xL4pZ8vR3tW6y", "9fK2mQ7xL4pZ8vR3tW6y"),
    ("Your temporary password\r\nKq8#rT2vLm\r\nExpires in 24 hours", "Kq8#rT2vLm"),
    ('{"text": "Access token:\\nqX7bN2mK9vL4pR8tZ3wY"}', "qX7bN2mK9vL4pR8tZ3wY"),
    # a chat-ops reply that is only the value after a question for it
    ("alice: what's the staging db password?\nbob: Orchid-Lantern-58", "Orchid-Lantern-58"),
    ("[10:02] dev1: can someone send me the redis password\n[10:03] ops: xT7#qLm2Vz", "xT7#qLm2Vz"),
    ("> what is the API key for sendgrid?\n> Rk2mQ9xLp4Vz7Tw1", "Rk2mQ9xLp4Vz7Tw1"),
    ("carol: token for the grafana bot?\ndave: `glc_9Xk2Lm7Qp4Rv8Tw3Zy6B`", "glc_9Xk2Lm7Qp4Rv8Tw3Zy6B"),
    # OCR spellings of names
    ("passw0rd: Qz7Kp2Lm9Vx4", "Qz7Kp2Lm9Vx4"),
    ("t0ken = 8Hj3Kq9Lz2Mx7Nc4Vb1", "8Hj3Kq9Lz2Mx7Nc4Vb1"),
    ("PA55WORD=Mar1gold!Tea", "Mar1gold!Tea"),
    ("s3cret: vB7nM2xK9qL4wR8tZ1", "vB7nM2xK9qL4wR8tZ1"),
    # OCR of a token split by spaces
    ("Token: ghp_ AbC1 2dEf 3GhI 4jKl 5MnO 6pQr 7StU 8vWx 9YzA", "2dEf 3GhI 4jKl"),
    ("screenshot text: sk-proj- Xy9k Lm2q 8RtV pW4z Nq7s", "Lm2q 8RtV"),
    ("API key: 9f8E 7d6C 5b4A 3928 1706 f5E4", "7d6C 5b4A"),
]

NEAR_MISSES = [
    "token (see below)", "the API key (optional)", "password (required)", "the secret (if any) is read from env",
    "token (string): the bearer token", "API key (from the dashboard)", "the token (base64-encoded) is sent",
    "the tokenizer splits a token (tokenizer_v2) into pieces", "def reset_password(user_id_123):",
    "set the secret (SECRET_KEY_BASE) in the env", "the password (min. 12 chars)", "API key (OPENAI_API_KEY)",
    "hash the password (sha256) first", "the token (github.com/settings/tokens)",
    "password:\n  secretKeyRef:\n    name: db", "OPENAI_API_KEY=\nSTRIPE_SECRET_KEY=your-stripe-secret-key\n",
    "DB_USER=app\nDB_PASSWORD=\nDB_HOST=Db01.internal.example", "api_key:\nBASE_URL=https://Api9.example.com", "Fetching token\nhttps://auth.example.com/oauth2/token",
    "alice: what's the password?\nbob: I don't know, ask ops", "Refreshing token\ndone.",
    "if not token:\n    raise ValueError(missing)", "$ cat /etc/passwd\nroot:x:0:0:root:/root:/bin/bash\n",
    "$ ls ~/.pgpass\n/home/dev/.pgpass", "see .htpasswd\nFor2Users", "Password\n********", "token:\n  {{ .Values.token }}",
    "the token encoder reads tests/test_deploy.py; next the token queue.", "passw0rd: changeme",
    "screenshot: ghp_ xxxx xxxx xxxx xxxx", "secret key\n  ${SECRET_KEY}",
]


@pytest.mark.parametrize(("text", "value"), SECRETS)
def test_value_set_apart_from_its_label_is_redacted(text: str, value: str) -> None:
    out = scrub(text).text
    assert value not in out and "[REDACTED:" in out


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_stays(text: str) -> None:
    assert scrub(text).text == text


def test_the_label_and_the_rest_of_the_line_stay() -> None:
    out = scrub("bob: Orchid-Lantern-58 is not it; what's the staging db password?\nbob: Orchid-Lantern-58").text
    assert out.endswith("password?\nbob: [REDACTED:password]")
    assert scrub("db password (Winter-Harbor-77) for staging").text == "db password ([REDACTED:password]) for staging"


@pytest.mark.parametrize(
    ("value", "shaped"),
    [("Sunset#Drive42", True), ("Winter-Harbor-77", True), ("P@ssword", True), ("tokenizer_v2", False),
     ("utf-8", False), ("sha256", False), ("changeme", False), ("optional", False), ("base64url", False)],
)
def test_password_shape(value: str, shaped: bool) -> None:
    assert password_shaped(value) is shaped


@pytest.mark.parametrize(
    "text",
    [
        "OPENAI_API_KEY=dummy", "OPENAI_API_KEY=test", "OPENAI_API_KEY=example-key", "ANTHROPIC_API_KEY=dummy-key",
        "export OPENAI_API_KEY=test-key", "password: sm://projects/acme/secrets/db-password",
        "db_password: sm://db-password", 'spring.datasource.password: "${sm://db-pass}"',
        "API_TOKEN=example_token", "GITHUB_TOKEN=dummy",
    ],
)
def test_placeholders_and_secret_references_stay(text: str) -> None:
    assert scrub(text).text == text
