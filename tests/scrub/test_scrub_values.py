"""Whole values under credential-named keys, in every quoting.

A value is redacted whole: unquoted values with ``, ; & ) ( +`` inside are
not cut at the first such character, and a literal starting with ``$`` is a
secret, not a placeholder. Credential-shaped values under id-suffixed keys
(``private_key_id``) count too, in JSON, escaped JSON, YAML, TOML, env and XML.
Also: URL credentials in any scheme, DSN keys, and secrets inside base64
carriers.
"""

from __future__ import annotations

import base64
import json
import re

import pytest

from memctl.scrub.core import find_secrets, scrub

# (text, expected output): exact, so a cut value shows as a leftover tail.
WHOLE_VALUE_CASES = [
    ("DJANGO_SECRET_KEY=ab&c(d)e+FAKE0000", "DJANGO_SECRET_KEY=[REDACTED:secret]"),
    ("SECRET_KEY=x9,y8;z7&w6(FAKE)+0000\nDEBUG=0", "SECRET_KEY=[REDACTED:secret]\nDEBUG=0"),
    ("API_TOKEN=FAKEtok,0000;dead&beef", "API_TOKEN=[REDACTED:secret]"),
    ("DB_PASSWORD=pa(ss)w0rd+FAKE", "DB_PASSWORD=[REDACTED:password]"),
    ("export DB_PASSWORD=FAKE;0000&x", "export DB_PASSWORD=[REDACTED:password]"),
    ("PASS=$3cr3tFAKE0000", "PASS=[REDACTED:password]"),
    ("DB_PASSWORD=$ecretFAKEpass", "DB_PASSWORD=[REDACTED:password]"),
    ("password: $2b$12$FAKE0000deadbeefFAKE00", "password: [REDACTED:password]"),
    ("token=$FAKEmixedCase0000 make deploy", "token=[REDACTED:secret] make deploy"),
    ('"password": "FAKE,with;punct&(0000)+"', '"password": "[REDACTED:password]"'),
    ("db.password=FAKE)(0000", "db.password=[REDACTED:password]"),
    ("mount -o username=bob,password=FAKE0000,uid=1000 //srv/x /mnt", "mount -o username=bob,password=[REDACTED:password],uid=1000 //srv/x /mnt"),
    ("GET /v1/items?access_token=FAKE0000deadbeef&page=2", "GET /v1/items?access_token=[REDACTED:secret]&page=2"),
    ("conn = connect(password=FAKE0000x)", "conn = connect(password=[REDACTED:password])"),
    ("Server=db;Database=app;User Id=sa;Password=FAKE;0000=x;", "Server=db;Database=app;User Id=sa;Password=[REDACTED:password];"),
    ("DB_PASSWORD=hunter2.", "DB_PASSWORD=[REDACTED:password]."),
    # Literals that only start like a reference or a template: a whole reference stays (PLACEHOLDERS).
    ("password=$ecret_pa$$w0rd!", "password=[REDACTED:password]"),
    ("DB_PASS='$FAKE$ecret!'", "DB_PASS='[REDACTED:password]'"),
    ("PGPASSWORD=$Fake.Pa55-word psql", "PGPASSWORD=[REDACTED:password] psql"),
    ("PASS=$db_pass!FAKE", "PASS=[REDACTED:password]"),
    ("PASS={{FAKEsecretValue99", "PASS=[REDACTED:password]"),
    ("api_key: {{FAKEk3yValue0000", "api_key: [REDACTED:secret]"),
    ('"token": "{{FAKEtok0000dead"', '"token": "[REDACTED:secret]"'),
    # Short and digit-only passwords after a clear password key.
    ("password: 739146", "password: [REDACTED:password]"),
    ("PGPASSWORD=8812 psql -U app", "PGPASSWORD=[REDACTED:password] psql -U app"),
    ("export MYSQL_PWD=4451", "export MYSQL_PWD=[REDACTED:password]"),
    ('{"password": "9731"}', '{"password": "[REDACTED:password]"}'),
]


@pytest.mark.parametrize(("text", "expected"), WHOLE_VALUE_CASES, ids=range(len(WHOLE_VALUE_CASES)))
def test_value_is_redacted_whole(text: str, expected: str) -> None:
    assert scrub(text).text == expected


KEY_ID = "0000deadbeef0000deadbeef0000deadbeef0000"


def _env_name(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).upper()  # privateKeyId -> PRIVATE_KEY_ID


def _quotings(key: str, value: str) -> dict[str, str]:
    return {
        "env": f"{_env_name(key)}={value}",
        "shell_export": f"export {_env_name(key)}='{value}'",
        "yaml": f"config:\n  {key}: {value}\n",
        "yaml_quoted": f'{key}: "{value}"',
        "toml": f'{key} = "{value}"',
        "json": json.dumps({key: value}),
        "escaped_json": json.dumps({"content": json.dumps({key: value})}),
        "double_escaped_json": json.dumps({"o": json.dumps({"content": json.dumps({key: value})})}),
        "xml_attribute": f'<credential {key}="{value}" />',
        "xml_element": f"<{key}>{value}</{key}>",
        "xml_key_value": f'<add key="{key}" value="{value}" />',
        "python_kwarg": f'Client({key}="{value}")',
        "js_object": f"const cfg = {{ {key}: '{value}' }};",
    }


CREDENTIAL_KEYS = [
    ("password", "FAKEpass0000deadbeef"),
    ("db_password", "FAKE,pass;0000"),
    ("api_key", "FAKEapikey0000deadbeef"),
    ("client_secret", "FAKEclientsecret0000"),
    ("auth_token", "FAKEauthtoken0000dead"),
    ("private_key_id", KEY_ID),
    ("secret_id", "550e8400-e29b-41d4-a716-446655440000"),
    ("privateKeyId", "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef"),  # hex without a digit
    ("accessKey", "FAKEaccessKey0000dead"),
    ("passphrase", "FAKE passphrase 0000"),
]


@pytest.mark.parametrize(("key", "value"), CREDENTIAL_KEYS, ids=[k for k, _ in CREDENTIAL_KEYS])
def test_credential_named_key_in_every_quoting(key: str, value: str) -> None:
    for quoting, text in _quotings(key, value).items():
        if " " in value and quoting in {"env", "yaml", "xml_element"}:
            continue  # a value with spaces is always quoted in these formats
        result = scrub(text)
        assert value not in result.text, (quoting, result.text)
        assert _env_name(key) in result.text or key in result.text  # the key name stays


NON_CREDENTIAL_KEYS = [
    ("token_count", "4096"),
    ("password_reset_url", "https://acme.example.invalid/reset"),
    ("secret_name", "db-credentials"),
    ("client_id", "web-app"),
    ("api_key_id", "1234"),
    ("session_id", "abc"),
    ("key_vault_name", "prod-vault"),
    ("token_type", "bearer"),
]


@pytest.mark.parametrize(("key", "value"), NON_CREDENTIAL_KEYS, ids=[k for k, _ in NON_CREDENTIAL_KEYS])
def test_property_of_a_secret_is_not_a_secret(key: str, value: str) -> None:
    for quoting, text in _quotings(key, value).items():
        assert scrub(text).text == text, (quoting, find_secrets(text))


PLACEHOLDERS = [
    "DB_PASSWORD=${DB_PASSWORD}",
    "DB_PASSWORD=$DB_PASSWORD",
    "password=$pw",
    "PASSWORD=$(cat /run/secrets/db)",
    "TOKEN=${TOKEN:-}",
    "password: '{{ vault_db_password }}'",
    "api_key = f\"{prefix}\"",
    "password=<your-password>",
    "password = os.environ['DB_PASSWORD']",
    '$password = $request->input("password");',
    "token: null",
    "password: ********",
    "MasterUserPassword: !Ref DBPassword",
    "password: !vault |",
    "const password = await getPassword();",
    "token = new TokenProvider(config)",
    "PASS=$USER:$DB_PASS",
    "password=${DB_PASS:-changeme}",
    'token: "{{ .Values.token | quote }}"',
    "secret: {{ vault_secret }}",
    "password_min_length: 12",
    "style={{",
]


@pytest.mark.parametrize("text", PLACEHOLDERS, ids=range(len(PLACEHOLDERS)))
def test_references_and_placeholders_are_kept(text: str) -> None:
    assert scrub(text).text == text, find_secrets(text)


CALL_ARGUMENT_PAIRS = [
    ("define('DB_PASSWORD', 'FAKEwp0000');", "FAKEwp0000"),
    ('os.environ.setdefault("API_KEY", "FAKEapi0000deadbeef")', "FAKEapi0000deadbeef"),
    ('config.set("token", "FAKEcfg0000deadbeef")', "FAKEcfg0000deadbeef"),
    ("putenv( 'SECRET_KEY', 'FAKE&sk(0000)' )", "FAKE&sk(0000)"),
]


@pytest.mark.parametrize(("text", "secret"), CALL_ARGUMENT_PAIRS, ids=range(len(CALL_ARGUMENT_PAIRS)))
def test_name_and_value_as_two_call_arguments(text: str, secret: str) -> None:
    for placed in (text, json.dumps({"newString": text})):
        out = scrub(placed).text
        assert secret not in out and "[REDACTED:" in out, out


def test_json_fields_after_a_credential_word_are_not_call_arguments() -> None:
    for text in ('"type": "password", "autocomplete": "new-password"', '["password", "username", "email"]',
                 'os.getenv("PASSWORD", "")', 'print("token", token)'):
        assert scrub(text).text == text, find_secrets(text)


BASIC_AUTH_FIELDS = [
    ('{"auths": {"registry.example.invalid": {"auth": "' + base64.b64encode(b"ci:FAKEdocker0000").decode() + '"}}}',
     base64.b64encode(b"ci:FAKEdocker0000").decode()),
    ("_auth=" + base64.b64encode(b"bot:FAKEnpm0000").decode(), base64.b64encode(b"bot:FAKEnpm0000").decode()),
    ("  auth: " + base64.b64encode(b"u:FAKEyaml0000").decode(), base64.b64encode(b"u:FAKEyaml0000").decode()),
]


@pytest.mark.parametrize(("text", "secret"), BASIC_AUTH_FIELDS, ids=range(len(BASIC_AUTH_FIELDS)))
def test_base64_user_password_auth_fields(text: str, secret: str) -> None:
    out = scrub(text).text
    assert secret not in out and "[REDACTED:password]" in out, out


def test_auth_fields_that_are_not_user_password_stay() -> None:
    for text in ("oauth: " + base64.b64encode(b"ci:FAKE0000").decode(), '"auth": "bm90LWEtcGFpcg=="',
                 "author=QUJDREVGR0hJSg==", '"auth": "required"'):
        assert scrub(text).text == text, find_secrets(text)


NETRC_AND_SQL = [
    ("machine api.example.invalid login u password FAKEnetrc0000", "FAKEnetrc0000"),
    ("machine h.example.invalid\n    login u\n    password FAKEnetrc0001\n", "FAKEnetrc0001"),
    ("1: machine h.example.invalid\n2:   login u\n3:   password FAKEnetrc0002", "FAKEnetrc0002"),
    ("CREATE ROLE app WITH LOGIN PASSWORD 'FAKEsql0000';", "FAKEsql0000"),
    ("ALTER USER app WITH ENCRYPTED PASSWORD 'FAKEsql0001';", "FAKEsql0001"),
    ("ALTER USER 'root'@'localhost' IDENTIFIED BY 'FAKEsql0002';", "FAKEsql0002"),
    ("create user bob identified by \"FAKEsql0003\";", "FAKEsql0003"),
]


@pytest.mark.parametrize(("text", "secret"), NETRC_AND_SQL, ids=range(len(NETRC_AND_SQL)))
def test_netrc_and_sql_passwords(text: str, secret: str) -> None:
    out = scrub(text).text
    assert secret not in out and "[REDACTED:password]" in out, out


def test_prose_mentions_of_password_stay() -> None:
    for text in (
        "Enter your login name, then the password reset link arrives by mail.",
        "The password is at least 12 characters.",
        "machine learning models need a password manager",
    ):
        assert scrub(text).text == text, find_secrets(text)


URL_CASES = [
    ("postgres://app:FAKE0000@db.example.invalid:5432/app", "FAKE0000"),
    ("DATABASE_URL=postgresql://app:p%40ss%3AFAKE@db.example.invalid/app", "p%40ss%3AFAKE"),
    ("mysql://root:FAKE@0000@db.example.invalid/app", "FAKE@0000"),
    ("redis://:FAKEredis0000@cache.example.invalid:6379/0", "FAKEredis0000"),
    ("amqps://guest:FAKE&(0000)@mq.example.invalid/vhost", "FAKE&(0000)"),
    ("mongodb+srv://svc:FAKEmongo0000@cluster0.example.invalid/db?retryWrites=true", "FAKEmongo0000"),
    ("ftp://anon:FAKEftp0000@ftp.example.invalid/pub", "FAKEftp0000"),
    ("git clone https://oauth2:FAKEglpat0000deadbeef@gitlab.example.invalid/g/p.git", "FAKEglpat0000deadbeef"),
    ("jdbc:sqlserver://sa:FAKEjdbc0000@db.example.invalid:1433", "FAKEjdbc0000"),
    ("https://0000deadbeef0000deadbeef0000dead@errors.example.invalid/42", "0000deadbeef0000deadbeef0000dead"),
    ("SENTRY_DSN=https://deadbeef0000deadbeef0000deadbeef@o0.ingest.example.invalid/7", "deadbeef0000deadbeef0000deadbeef"),
    ("https://FAKEtoken0000deadbeefFAKE@git.example.invalid/org/repo.git", "FAKEtoken0000deadbeefFAKE"),
    ("s3://AKIAFAKE0000DEADBEEF:FAKE/secret+0000@bucket.example.invalid/x", "FAKE/secret+0000"),
    ("https://deadbeefdeadbeefdeadbeefdeadbeef@o1.ingest.example.invalid/1", "deadbeefdeadbeefdeadbeefdeadbeef"),
]


@pytest.mark.parametrize(("text", "secret"), URL_CASES, ids=range(len(URL_CASES)))
def test_url_userinfo_in_any_scheme(text: str, secret: str) -> None:
    for placed in (text, json.dumps({"url": text}), f"connect with {text} then retry"):
        out = scrub(placed).text
        assert secret not in out and "[REDACTED:url_credentials]" in out, out
        assert "example.invalid" in out  # the host stays


URL_NEAR_MISSES = [
    "ssh://git@git.example.invalid:2222/org/repo.git",
    "https://user@example.invalid/path",
    "https://firstname.lastname.surname@example.invalid/",
    "postgres://app:${PGPASSWORD}@db.example.invalid/app",
    "https://host.example.invalid:8443/@scope/pkg",
    "mailto:dev@example.invalid",
    "http://localhost:3000/users/bob@example.invalid",
    "https://host.example.invalid:8443/profile/me@example.invalid",
]


@pytest.mark.parametrize("text", URL_NEAR_MISSES, ids=range(len(URL_NEAR_MISSES)))
def test_url_near_misses(text: str) -> None:
    assert scrub(text).text == text, find_secrets(text)


CARRIED = [
    "GITHUB_TOKEN=ghp_FAKE0000deadbeef0000FAKE0000deadbeefAB",
    "DB_PASSWORD=FAKEcarried0000",
    "postgres://app:FAKEcarried0001@db.example.invalid/app",
]


@pytest.mark.parametrize("secret_text", CARRIED, ids=range(len(CARRIED)))
def test_secret_inside_a_base64_carrier(secret_text: str) -> None:
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        run = encode(secret_text.encode()).decode()
        for text in (
            f"data:text/plain;base64,{run}",
            f"echo {run} | base64 -d > .env",
            f"base64 --decode <<< '{run}'",
            f'secret = base64.b64decode("{run}")',
        ):
            out = scrub(text).text
            assert run not in out and run.rstrip("=") not in out, out
            assert "[REDACTED:" in out


def test_base64_carrier_of_harmless_text_is_kept() -> None:
    for text in (
        "data:text/plain;base64," + base64.b64encode(b"hello world, nothing secret here").decode(),
        "echo " + base64.b64encode(b"just a config note 2026").decode() + " | base64 -d",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    ):
        assert scrub(text).text == text, find_secrets(text)
