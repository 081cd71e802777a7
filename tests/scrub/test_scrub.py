"""Tests for memctl.scrub.core: every secret kind redacted, near-misses untouched.

All secret values below are fake but shaped like the real thing (prefixes,
lengths, alphabets), so the detectors see what they would see in a session.
"""

from __future__ import annotations

import base64
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memctl.scrub.core import DETECTORS, MARKER_PATTERN, find_secrets, redaction_marker, scrub, scrub_texts

# --- realistic fake values ------------------------------------------------

AWS_KEY_ID = "AKIAZ7Q3LP4RM2NX8KVB"  # AWS's documented AKIA…EXAMPLE stays (a placeholder)
AWS_KEY_ID_2 = "ASIAZ3MSJV4WWQGCJ6X5"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY7Q3LP4RMZK"
GH_CLASSIC = "ghp_R8mK2vQ9xT4bN7cL1pZ6wY3sD5fH0jG2aE8u"
GH_OAUTH = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
GH_SERVER = "ghs_9xQ2mL7vK4tR1pZ8cN5bW3yH6dF0jS2aE4uT"
GH_FINE = "github_pat_11ABCDEFG0aBcDeFgHiJkL_" + "mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
OPENAI_PROJ = "sk-proj-4fJ9xQ2mL7vK1tR8pZ3cN6bW0yH5dF2jS9aE4uT7gB1kX8nM"
OPENAI_LEGACY = "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"
ANTHROPIC = "sk-ant-api03-Xy9_Qm2Lk7Vb4Tr1Pz8Cn5Bw3Yh6Df0Js2Ae4Ut-AbCdEf123456"
SLACK_BOT = "xoxb-2048193746-1203948576123-AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_USER = "xoxp-2048193746-2048193746-2048193746-0a1b2c3d4e5f67890a1b2c3d4e5f6789"
SLACK_WEBHOOK = "https://hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/aBcDeFgHiJkLmNoPqRsTuVwX"
GOOGLE = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
STRIPE_LIVE = "sk_live_51HqLyjWDarjtT1zdp7dcXyzAbCdEfGh"
STRIPE_RESTRICTED = "rk_live_51HqLyjWDarjtT1zdp7dcQwErTyUiOp"
STRIPE_TEST = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
GITLAB = "glpat-xY9zQm2Lk7Vb4Tr1Pz8C"
NPM = "npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
PYPI = "pypi-AgEIcHlwaS5vcmc" + "CJGQ3ZjZmMjQ4LWI3NDEtNDk1Mi05YzEyLTg3ZTMwMGI0NWU2NQACKlsz" + "LCJhYmMiXQAABiDxKzQ9"
HF = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
SENDGRID = "SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012"
PEM_BODY = [
    "MIIEowIBAAKCAQEA1c3x9Jm2XkQv7b8Yz3L0p6Q1r2S3t4U5v6W7x8Y9z0A1B2C3",
    "D4E5F6G7H8I9J0K1L2M3N4O5P6Q7R8S9T0U1V2W3X4Y5Z6a7b8c9d0e1f2g3h4i5",
    "j6k7l8m9n0o1p2q3r4s5t6u7v8w9x0y1z2A3B4C5D6E7F8G9H0I1J2K3L4M5N6O7",
    "P8Q9R0S1T2U3V4W5X6Y7Z8a9b0c1d2e3f4g5h6i7j8k9l0m1n2o3p4q5r6s7t8==",
]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"

assert len(GH_CLASSIC) == 40 and len(GH_OAUTH) == 40 and len(AWS_SECRET) == 40
assert len(GOOGLE) == 39 and len(SENDGRID.split(".")[2]) == 43


# --- positive table: (case id, input, exact expected output) ---------------

POSITIVE_CASES = [
    # AWS
    ("aws key id prose", f"use key {AWS_KEY_ID} for the bucket", "use key [REDACTED:aws_access_key] for the bucket"),
    ("aws key id json", json.dumps({"aws_access_key_id": AWS_KEY_ID_2}), '{"aws_access_key_id": "[REDACTED:aws_access_key]"}'),
    (
        "aws secret quoted",
        f'aws_secret_access_key = "{AWS_SECRET}"',
        'aws_secret_access_key = "[REDACTED:aws_secret_key]"',
    ),
    ("aws secret env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}\n", "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]\n"),
    (
        "aws credentials file",
        f"[default]\naws_access_key_id = {AWS_KEY_ID}\naws_secret_access_key = {AWS_SECRET}\n",
        "[default]\naws_access_key_id = [REDACTED:aws_access_key]\naws_secret_access_key = [REDACTED:aws_secret_key]\n",
    ),
    # GitHub
    ("github classic prose", f"my token is {GH_CLASSIC}.", "my token is [REDACTED:github_token]."),
    ("github oauth", f"gh auth token -> {GH_OAUTH}", "gh auth token -> [REDACTED:github_token]"),
    ("github server", f"GITHUB_TOKEN: {GH_SERVER}", "GITHUB_TOKEN: [REDACTED:github_token]"),
    ("github fine-grained shell", f"export GH_TOKEN={GH_FINE}", "export GH_TOKEN=[REDACTED:github_token]"),
    (
        "github token in remote url",
        f"git remote set-url origin https://{GH_CLASSIC}@github.com/acme/app.git",
        "git remote set-url origin https://[REDACTED:github_token]@github.com/acme/app.git",
    ),
    # OpenAI / Anthropic
    ("openai project key env", f"OPENAI_API_KEY={OPENAI_PROJ}", "OPENAI_API_KEY=[REDACTED:openai_key]"),
    ("openai legacy key", f"client = OpenAI(api_key='{OPENAI_LEGACY}')", "client = OpenAI(api_key='[REDACTED:openai_key]')"),
    ("anthropic key json", json.dumps({"apiKey": ANTHROPIC}), '{"apiKey": "[REDACTED:anthropic_key]"}'),
    ("anthropic key prose", f"I set {ANTHROPIC} in the shell", "I set [REDACTED:anthropic_key] in the shell"),
    # Slack
    ("slack bot token", f"SLACK_BOT_TOKEN={SLACK_BOT}", "SLACK_BOT_TOKEN=[REDACTED:slack_token]"),
    ("slack user token prose", f"token {SLACK_USER} expired", "token [REDACTED:slack_token] expired"),
    ("slack webhook", f"curl -X POST {SLACK_WEBHOOK} -d @msg.json", "curl -X POST [REDACTED:slack_webhook] -d @msg.json"),
    # Google
    ("google api key", f'const key = "{GOOGLE}";', 'const key = "[REDACTED:google_api_key]";'),
    ("google maps url", f"https://maps.googleapis.com/maps/api/js?key={GOOGLE}&v=3", "https://maps.googleapis.com/maps/api/js?key=[REDACTED:google_api_key]&v=3"),
    # Stripe
    ("stripe live", f"stripe.api_key = '{STRIPE_LIVE}'", "stripe.api_key = '[REDACTED:stripe_key]'"),
    ("stripe restricted", f"STRIPE_KEY={STRIPE_RESTRICTED}", "STRIPE_KEY=[REDACTED:stripe_key]"),
    ("stripe test", f"use {STRIPE_TEST} in CI", "use [REDACTED:stripe_key] in CI"),
    # JWT
    ("jwt prose", f"the cookie held {JWT} today", "the cookie held [REDACTED:jwt] today"),
    ("jwt json", json.dumps({"id_token": JWT}), '{"id_token": "[REDACTED:jwt]"}'),
    # Private keys
    ("pem block", f"key:\n{PEM}\ndone", "key:\n[REDACTED:private_key]\ndone"),
    (
        "pem truncated mid-block",
        "cat id_rsa\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(PEM_BODY[:2]),
        "cat id_rsa\n[REDACTED:private_key]",
    ),
    (
        "pem inside escaped json",
        json.dumps({"content": PEM + "\n"}),
        '{"content": "[REDACTED:private_key]\\n"}',
    ),
    (
        "pgp private block",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + "\n".join(PEM_BODY) + "\n-----END PGP PRIVATE KEY BLOCK-----\nnext",
        "[REDACTED:private_key]\nnext",
    ),
    (
        "encrypted pkcs8 one line",
        "KEY='-----BEGIN ENCRYPTED PRIVATE KEY----- " + " ".join(PEM_BODY) + " -----END ENCRYPTED PRIVATE KEY-----'",
        "KEY='[REDACTED:private_key]'",
    ),
    # URL credentials
    (
        "postgres url",
        "DATABASE_URL=postgres://admin:S3cr3t!pw@db.internal:5432/app",
        "DATABASE_URL=postgres://[REDACTED:url_credentials]@db.internal:5432/app",
    ),
    (
        "redis url in prose",
        "connect with redis://default:9fK2mQ7xLp@cache.example.com:6379/0 then retry",
        "connect with redis://[REDACTED:url_credentials]@cache.example.com:6379/0 then retry",
    ),
    (
        "redis url with an empty user (regression)",
        "REDIS_URL=rediss://:R3disPassw0rdFAKE@cache.example.com:6380/0",
        "REDIS_URL=rediss://[REDACTED:url_credentials]@cache.example.com:6380/0",
    ),
    (
        "https basic auth url",
        "pip install --index-url https://deploy:tok3n_abc123@pypi.acme.dev/simple pkg",
        "pip install --index-url https://[REDACTED:url_credentials]@pypi.acme.dev/simple pkg",
    ),
    # Authorization headers
    (
        "bearer header curl",
        'curl -H "Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543aZ" https://api.acme.dev',
        'curl -H "Authorization: Bearer [REDACTED:bearer_token]" https://api.acme.dev',
    ),
    (
        "basic header",
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "Authorization: Basic [REDACTED:bearer_token]",
    ),
    (
        "bearer header json",
        json.dumps({"headers": {"Authorization": "Bearer opaqueTokenValue123456"}}),
        '{"headers": {"Authorization": "Bearer [REDACTED:bearer_token]"}}',
    ),
    (
        "bearer jwt header",
        f"Authorization: Bearer {JWT}",
        "Authorization: Bearer [REDACTED:bearer_token]",
    ),
    ("token scheme header", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Authorization: Token [REDACTED:bearer_token]"),
    # Passwords: value only, key kept
    ("dotenv password", "DB_PASSWORD=hunter2\nDB_HOST=localhost", "DB_PASSWORD=[REDACTED:password]\nDB_HOST=localhost"),
    ("json password", '{"username": "admin", "password": "hunter2"}', '{"username": "admin", "password": "[REDACTED:password]"}'),
    ("yaml password", "database:\n  user: app\n  password: correct-horse-battery\n", "database:\n  user: app\n  password: [REDACTED:password]\n"),
    ("yaml password letters only", "  password: changemenow\n", "  password: [REDACTED:password]\n"),
    ("passwd colon", "passwd: x9!kq2", "passwd: [REDACTED:password]"),
    ("shell export password", "export PGPASSWORD='Tr0ub4dor&3'", "export PGPASSWORD='[REDACTED:password]'"),
    ("python password literal", 'conn = connect(user="app", password="s3cr3t-pw")', 'conn = connect(user="app", password="[REDACTED:password]")'),
    ("cli password flag", "mysql --user root --password hunter22 app", "mysql --user root --password [REDACTED:password] app"),
    ("cli password equals", "psql --password=hunter22", "psql --password=[REDACTED:password]"),
    ("camelcase password", 'const dbPassword = "pa55word!";', 'const dbPassword = "[REDACTED:password]";'),
    ("db pass segment", "DB_PASS=letmein42", "DB_PASS=[REDACTED:password]"),
    ("escaped json password", json.dumps({"content": 'password = "hunter2"\n'}), '{"content": "password = \\"[REDACTED:password]\\"\\n"}'),
    ("ini password", "[client]\npassword = sup3rs3cret\n", "[client]\npassword = [REDACTED:password]\n"),
    ("compare literal", 'if password == "letmein":', 'if password == "[REDACTED:password]":'),
    # Secrets / tokens / API keys: value only, key kept
    ("secret env", "SECRET=8c6976e5b5410415bde9", "SECRET=[REDACTED:secret]"),
    ("token env", "export X_TOKEN=abc123def456ghi", "export X_TOKEN=[REDACTED:secret]"),
    ("api_key assignment", 'api_key = "a1b2c3d4e5f6a7b8c9d0"', 'api_key = "[REDACTED:secret]"'),
    ("client_secret json", '{"client_id": "web-app", "client_secret": "GOCSPX-1a2b3c4d5e6f7g8h"}', '{"client_id": "web-app", "client_secret": "[REDACTED:secret]"}'),
    ("client secret yaml", "oauth:\n  client_secret: 0a9b8c7d6e5f4a3b\n", "oauth:\n  client_secret: [REDACTED:secret]\n"),
    ("django secret key", "SECRET_KEY = 'django-insecure-7x!k2#m9q@w4'", "SECRET_KEY = '[REDACTED:secret]'"),
    ("api key header", "X-Api-Key: 4f9a2c7e1b8d3f6a", "X-Api-Key: [REDACTED:secret]"),
    ("access token query", "GET /v1/items?access_token=Zm9vYmFyYmF6cXV4MTIz&page=2", "GET /v1/items?access_token=[REDACTED:secret]&page=2"),
    ("auth token camel", '{"authToken": "f00dbabe12345678"}', '{"authToken": "[REDACTED:secret]"}'),
    ("cli token flag", "vercel deploy --token 1a2b3c4d5e6f7g8h9i0j", "vercel deploy --token [REDACTED:secret]"),
    # Extra kinds beyond the brief
    ("gitlab token", f"GITLAB_TOKEN={GITLAB}", "GITLAB_TOKEN=[REDACTED:gitlab_token]"),
    ("npm token", f"//registry.npmjs.org/:_authToken={NPM}", "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]"),
    ("pypi token", f"password = {PYPI}", "password = [REDACTED:pypi_token]"),
    ("huggingface token", f"huggingface-cli login --token {HF}", "huggingface-cli login --token [REDACTED:huggingface_token]"),
    ("sendgrid key", f"SENDGRID={SENDGRID}", "SENDGRID=[REDACTED:sendgrid_key]"),
]


@pytest.mark.parametrize(("case", "text", "expected"), POSITIVE_CASES, ids=[c[0] for c in POSITIVE_CASES])
def test_secret_is_redacted_exactly(case: str, text: str, expected: str) -> None:
    result = scrub(text)
    assert result.text == expected
    kinds = MARKER_PATTERN.findall(expected)
    assert sum(result.counts.values()) == len(kinds)


BRIEF_KINDS = {
    "aws_access_key", "aws_secret_key", "github_token", "openai_key", "anthropic_key", "slack_token",
    "slack_webhook", "google_api_key", "stripe_key", "jwt", "private_key", "url_credentials",
    "bearer_token", "password", "secret",
}


def test_every_kind_has_a_positive_case() -> None:
    from tests.scrub import (
        test_scrub_command,
        test_scrub_formats,
        test_scrub_fourth_kinds,
        test_scrub_held_out_kinds,
        test_scrub_values,
    )

    covered = {m[len("[REDACTED:") : -1] for _, _, expected in POSITIVE_CASES for m in MARKER_PATTERN.findall(expected)}
    assert BRIEF_KINDS <= covered
    # Kinds tested in the per-kind modules: what those tables produce.
    texts = [text for text, _ in test_scrub_command.CLI_CASES + test_scrub_command.HEADER_CASES]
    texts += [text for text, _ in test_scrub_values.WHOLE_VALUE_CASES + test_scrub_values.URL_CASES]
    texts += [token for _, token in test_scrub_formats.CASES]
    texts += [PEM, "data:text/plain;base64,REJfUEFTU1dPUkQ9RkFLRTAwMDA="]
    texts += [text for cases in test_scrub_fourth_kinds.KINDS.values() for text, _ in cases]
    texts += [text for cases in test_scrub_held_out_kinds.KINDS.values() for text, _ in cases]
    texts += ["5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"]  # the Bitcoin wiki's WIF example
    for text in texts:
        covered |= set(scrub(text).counts)
    # The base64-carrier detector reports the kind of the secret it decoded; the catalog
    # detector reports its rules' kinds (tests/scrub/test_scrub_catalog.py covers them).
    detector_kinds = {d.kind for d in DETECTORS if d.kind not in ("encoded_secret", "catalog_secret")}
    detector_kinds |= {kind for d in DETECTORS for _, kind in d.kind_groups}
    assert detector_kinds <= covered


# --- negatives: survive byte for byte --------------------------------------

NEAR_MISSES = [
    ("git sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Dev <dev@example.com>"),
    ("short sha", "fixed in 3f78685 and a1b2c3d"),
    ("git log oneline", "9fceb02 (HEAD -> main, origin/main) Merge pull request #42 from acme/fix-token"),
    ("uuid", "session 550e8400-e29b-41d4-a716-446655440000 started"),
    ("sha256 digest", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("sha256 in aws-ish prose", "aws key rotation commit 3f786850e387550fdab836ed7e6dc881de23001b merged"),
    ("base64 content", base64.b64encode(b"The quick brown fox jumps over the lazy dog, twice over.").decode()),
    ("password reset prose", "The password reset page sends an email with a link."),
    ("token budget prose", "We are over the token budget; the tokenizer counts 4,096 tokens."),
    ("secret sauce prose", "Caching is the secret sauce here."),
    ("key prose", "The key insight: keys are sorted before hashing."),
    ("token colon prose", "The token: it expires after an hour, so refresh it."),
    ("authorization prose", "Authorization: disabled for local runs; authorization: required in prod"),
    ("empty password", "password=\nPASSWORD=''\n\"password\": \"\""),
    ("placeholder angle", "password=<your-password>"),
    ("placeholder env var", "DB_PASSWORD=${DB_PASSWORD}"),
    ("placeholder dollar", "psql --password $PGPASSWORD"),
    ("placeholder template", 'password: "{{ db_password }}"'),
    ("placeholder your", "API_KEY=your_api_key_here"),
    ("placeholder masked", "password: ********"),
    ("environ lookup", 'password = os.environ["PASSWORD"]'),
    ("environ get", 'api_key = os.environ.get("OPENAI_API_KEY")'),
    ("getenv", 'token = os.getenv("GITHUB_TOKEN")'),
    ("process env", "const secret = process.env.JWT_SECRET;"),
    ("function call", "password = getpass.getpass()"),
    ("attribute ref", "api_key=settings.openai_api_key,"),
    ("kwarg passthrough", "client = Client(api_key=api_key, token=token)"),
    ("type annotation", "    api_key: str\n    password: SecretStr\n    token: str | None = None"),
    ("annotated params", "def __init__(self, file_secret_settings: PydanticBaseSettingsSource, token: Token) -> None:"),
    ("none literal", "password = None\ntoken: null"),
    ("numeric token settings", "max_tokens=4096\ntoken_limit: 8000\n\"maxTokens\": 1024"),
    ("non-secret key suffix", "token_type=bearer\npassword_reset_url=https://acme.dev/reset\nsecret_name: db-creds"),
    ("k8s secret ref", "secretKeyRef:\n  name: db-secret\n  key: password"),
    ("pwd env", "PWD=/home/dev/project\nOLDPWD=/home/dev"),
    ("npm integrity", '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR0CH4hNRHVtgndo5g=="'),
    ("akia too short", "AKIAEXAMPLE and AKIA1234 are not keys"),
    ("akia too long", "AKIAIOSFODNN7EXAMPLEXYZ123 is an identifier"),
    ("identifiers", "tokenizer = Tokenizer()\ndef get_secret(name):\nself.token = token\npassword_hash = hash_password(password)"),
    ("dict loop", "for key, value in data.items():\n    print(key, value)"),
    ("bearer prose", "Bearer tokens go in the Authorization header; Basic authentication is disabled."),
    ("bearer placeholder", 'curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev'),
    ("bearer template", "Authorization: Bearer ${GITHUB_TOKEN}"),
    ("scikit", "pip install scikit-learn; import sklearn; sk-learn-compatible-estimator-interface"),
    ("ssh git url", "git@github.com:acme/app.git and ssh deploy@10.0.0.5"),
    ("plain urls", "https://github.com/acme/app http://localhost:8080/health postgres://localhost/app"),
    ("email", "mail dev@example.com or ops@acme.dev"),
    ("url placeholder password", "postgres://user:${DB_PASSWORD}@localhost/app"),
    ("public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----"),
    ("certificate", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----"),
    ("not a jwt", "eyJub3QiOiJhIGp3dCJ9 alone, and eyJabc.def is not json"),
    ("bypass words", "bypass=true passed=5 compass: north"),
    ("markdown table", "| key | value |\n|-----|-------|\n| a | b |"),
    ("redaction markers", "password=[REDACTED:password] token: [REDACTED:secret] [REDACTED:github_token]"),
    ("comparison with variable", "if password == confirm_password:"),
]


@pytest.mark.parametrize(("case", "text"), NEAR_MISSES, ids=[c[0] for c in NEAR_MISSES])
def test_near_miss_survives_byte_for_byte(case: str, text: str) -> None:
    result = scrub(text)
    assert result.text == text, find_secrets(text)
    assert result.counts == {}


# --- API behaviour -----------------------------------------------------------


def test_find_secrets_reports_kind_and_span() -> None:
    text = f"a {GH_CLASSIC} b DB_PASSWORD=hunter2"
    findings = find_secrets(text)
    assert [(kind, text[s:e]) for kind, (s, e) in findings] == [("github_token", GH_CLASSIC), ("password", "hunter2")]


def test_overlap_resolved_by_priority() -> None:
    # The keyword detector also sees the value; the specific detector wins.
    assert scrub(f"export GITHUB_TOKEN={GH_CLASSIC}").counts == {"github_token": 1}
    assert scrub(f"Authorization: Bearer {JWT}").counts == {"bearer_token": 1}


def test_counts_per_kind() -> None:
    text = f"{GH_CLASSIC} {GH_OAUTH} password=hunter2 {AWS_KEY_ID}"
    assert scrub(text).counts == {"github_token": 2, "password": 1, "aws_access_key": 1}


def test_marker_format() -> None:
    assert redaction_marker("github_token") == "[REDACTED:github_token]"
    assert MARKER_PATTERN.fullmatch(redaction_marker("aws_secret_key"))


def test_clean_text_is_returned_unchanged() -> None:
    text = "nothing to see here"
    result = scrub(text)
    assert result.text is text and result.counts == {}
    assert scrub("").text == ""


def test_scrub_texts_matches_scrub_per_item_and_keeps_order() -> None:
    items = [f"a {GH_CLASSIC}", "", "password=hunter2", "plain", f"{PEM}", "x\x00y"]
    out, counts = scrub_texts(items)
    assert len(out) == len(items)
    for original, got in zip(items, out):
        assert got == scrub(original.replace("\x00", "\ufffd")).text
    assert counts == {"github_token": 1, "password": 1, "private_key": 1}


def test_secret_cannot_span_two_fields() -> None:
    out, counts = scrub_texts(["password", "=hunter2"])
    assert out == ["password", "=hunter2"] and counts == {}


def test_unicode_lowercase_length_change_falls_back() -> None:
    # "İ".lower() is two characters, so anchored detectors rescan case-insensitively.
    text = "İstanbul office: DB_PASSWORD=hunter2 and Authorization: Bearer abcdef1234567890"
    assert scrub(text).text == "İstanbul office: DB_PASSWORD=[REDACTED:password] and Authorization: Bearer [REDACTED:bearer_token]"


def test_markers_are_never_rematched() -> None:
    for _, _, expected in POSITIVE_CASES:
        assert find_secrets(expected) == []


def test_idempotent_on_all_cases() -> None:
    for _, text, _ in POSITIVE_CASES:
        once = scrub(text).text
        assert scrub(once).text == once
    for _, text in NEAR_MISSES:
        assert scrub(scrub(text).text).text == scrub(text).text


def test_detector_table_shape() -> None:
    for detector in DETECTORS:
        assert re.fullmatch(r"[a-z0-9_]+", detector.kind)
        assert detector.origin
        if detector.finder is not None:
            assert detector.pattern is None and callable(detector.finder)
            continue
        assert isinstance(detector.pattern, re.Pattern)
        if isinstance(detector.group, str):
            assert detector.group in detector.pattern.groupindex


# --- detect-secrets coverage: whatever its plugins flag, we redact ----------


def _ds_cases():
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.stripe import StripeDetector

    return [
        (AWSKeyDetector(), f"key = {AWS_KEY_ID}"),
        (AWSKeyDetector(), f'aws_secret_access_key = "{AWS_SECRET}"'),
        (BasicAuthDetector(), "https://user:hunter2pw@example.com/x"),
        (GitHubTokenDetector(), f"t={GH_CLASSIC}"),
        (GitLabTokenDetector(), f"t {GITLAB}"),
        (GitLabTokenDetector(), "t glcbt-1a_" + "aBcDeFgHiJkLmNoPqRsTu1"),
        (GitLabTokenDetector(), "t glrt-" + "aBcDeFgHiJkLmNoPqRsTu1"),
        (GitLabTokenDetector(), "t GR1348941" + "aBcDeFgHiJkLmNoPqRsTu1"),
        (GitLabTokenDetector(), "t glptt-" + "a1" * 20),
        (JwtTokenDetector(), JWT),
        (OpenAIDetector(), OPENAI_LEGACY),
        (PypiTokenDetector(), PYPI),
        (SendGridDetector(), SENDGRID),
        (SlackDetector(), SLACK_BOT),
        (SlackDetector(), SLACK_WEBHOOK),
        (StripeDetector(), "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
        (StripeDetector(), "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ]


@pytest.mark.parametrize("index", range(17))
def test_detect_secrets_findings_are_redacted(index: int) -> None:
    plugin, text = _ds_cases()[index]
    found = [v for v in plugin.analyze_string(text) if v]
    assert found, f"detect-secrets {type(plugin).__name__} should flag {text!r}"
    out = scrub(text).text
    for value in found:
        # JWT: detect-secrets reports header.payload; the whole token is gone.
        assert value not in out, (type(plugin).__name__, value, out)


def test_detect_secrets_private_key_headers_covered() -> None:
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    for header in (p.pattern for p in PrivateKeyDetector.denylist):
        if header.startswith("BEGIN"):
            dashes = "---- " if "SSH2" in header else "-----"
            closing = " ----" if "SSH2" in header else "-----"
            block = f"{dashes}{header}{closing}\n{PEM_BODY[0]}\n{PEM_BODY[1]}\n"
        else:  # PuTTY-User-Key-File-2
            block = f"{header}: ssh-rsa\nEncryption: none\nPrivate-Lines: 2\n{PEM_BODY[0]}\n{PEM_BODY[1]}\n"
        out = scrub(block).text
        assert PEM_BODY[0] not in out and PEM_BODY[1] not in out, (header, out)
        assert "[REDACTED:private_key]" in out


def test_detect_secrets_keyword_lines_covered() -> None:
    from detect_secrets.plugins.keyword import KeywordDetector

    plugin = KeywordDetector()
    lines = [
        'api_key = "zq81Kx0mNa2b"',
        'db_pass = "hunter2x"',
        'private_key: "MIIBOgIBAAJB"',
        'secret = "Yk2jd9Smq"',
        'passwd = "opensesame9"',
        'my_pwd = "abc123xyz"',
        'client_key = "kk92mmx01"',
    ]
    for line in lines:
        found = list(plugin.analyze_string(line))
        assert found, line
        out = scrub(line).text
        for value in found:
            assert value not in out, (line, out)


# --- property tests -----------------------------------------------------------

_TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _random_token(min_size: int, max_size: int, alphabet: str = _TOKEN_ALPHABET) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size).filter(
        lambda s: any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)
    )


_upper_digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

# Each strategy yields (rendered text containing the secret, the secret value).
PLANTED = st.one_of(
    _random_token(36, 36).map(lambda t: (f"ghp_{t}", f"ghp_{t}")),
    _random_token(40, 60).map(lambda t: (f"github_pat_{t}", f"github_pat_{t}")),
    st.text(alphabet=_upper_digits, min_size=16, max_size=16).map(lambda t: (f"AKIA{t}", f"AKIA{t}")),
    _random_token(40, 40, _TOKEN_ALPHABET + "/+").map(lambda t: (f"aws_secret_access_key={t}", t)),
    _random_token(40, 60).map(lambda t: (f"sk-proj-{t}", f"sk-proj-{t}")),
    _random_token(40, 60).map(lambda t: (f"sk-ant-api03-{t}", f"sk-ant-api03-{t}")),
    _random_token(24, 40).map(lambda t: (f"xoxb-1234567890-{t}", f"xoxb-1234567890-{t}")),
    _random_token(35, 35, _TOKEN_ALPHABET + "_-").map(lambda t: (f"AIza{t}", f"AIza{t}")),
    _random_token(24, 32).map(lambda t: (f"sk_live_{t}", f"sk_live_{t}")),
    _random_token(12, 24).map(lambda t: (f"DB_PASSWORD={t}", t)),
    _random_token(12, 24).map(lambda t: (f'"password": "{t}"', t)),
    _random_token(12, 24).map(lambda t: (f"export API_TOKEN='{t}'", t)),
    _random_token(12, 24).map(lambda t: (f"client_secret: {t}\n", t)),
    _random_token(12, 24).map(lambda t: (f"postgres://app:{t}@db.example.com/app", t)),
    _random_token(20, 40).map(lambda t: (f"Authorization: Bearer {t}", t)),
    st.lists(_random_token(60, 64, _TOKEN_ALPHABET + "+/"), min_size=1, max_size=4).map(
        lambda lines: (
            "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----",
            lines[0],
        )
    ),
)

FILLER = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
    max_size=60,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(FILLER, PLANTED), min_size=1, max_size=5), FILLER)
def test_property_planted_secrets_never_survive_and_scrub_is_idempotent(pieces, tail) -> None:
    # Secrets are planted between newlines, as they sit in real text (a
    # letter glued to a key id would make it a different word).
    text = "".join(f"{filler}\n{rendered}\n" for filler, (rendered, _) in pieces) + tail
    out = scrub(text).text
    fillers = [filler for filler, _ in pieces] + [tail]
    for _, (_, value) in pieces:
        if not any(value in filler for filler in fillers):  # the value itself was drawn as filler
            assert value not in out
    assert scrub(out).text == out


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_property_idempotent_on_arbitrary_text(text: str) -> None:
    once = scrub(text).text
    assert scrub(once).text == once


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 \n:=\"'_-./", max_size=200))
def test_property_keyword_soup_is_idempotent_and_never_raises(text: str) -> None:
    once = scrub(text).text
    assert scrub(once).text == once


# --- pathological input (speed figures live in bench/, not here) ---------------------


@pytest.mark.timeout(120)
def test_no_catastrophic_backtracking_on_adversarial_input() -> None:
    adversarial = [
        "password=" + "a" * 50_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 50_000,
        "-----BEGIN RSA PRIVATE KEY----- " + "ab " * 20_000,
        "://" + "a:" * 20_000,
        "sk-" + "a-" * 20_000,
        "aws " * 10_000,
        "eyJ" + "a." * 20_000,
        '"password": "' + "\\\\" * 20_000,
        "Authorization: " * 5_000,
        "key" * 20_000,
        "token=" * 10_000,
        # layouts of the newer rules (each was quadratic in a draft)
        "AAAA\n-----END RSA PRIVATE KEY-----\n" * 3_000,
        "LS0t" * 10_000,
        " -p x" * 10_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join("12: " + "A" * 64 for _ in range(5_000)),
        "-----BEGIN RSA PRIVATE KEY-----\n" * 3_000,
        ("x" * 290 + ":1:") * 200 + "-----BEGIN RSA PRIVATE KEY-----",
        ("MIIEowIBAAKCAQEA" + " ") * 3_000,
        "Cookie: " + "a=b;" * 20_000,
        "Authorization: Digest " + 'a="b", ' * 10_000,
        "base64 " * 5_000 + "QUJD" * 1_000,
        "fly secrets set " + "A=b " * 10_000,
        '<add key="password" value="' * 5_000,
        ("1234567890:" + "A" * 35 + "9") * 1_000,
    ]
    # Catastrophic backtracking would run for hours; the timeout marker fails the test then.
    for text in adversarial:
        result = scrub(text)
        assert scrub(result.text).text == result.text, text[:40]
