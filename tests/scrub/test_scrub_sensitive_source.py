"""Credential files read, written or printed by a tool are redacted by value, keys kept, before
the transcript bounds anything (memctl/scrub/sensitive_source.py, memctl/ingest/transcript.py)."""

from __future__ import annotations

import json

import pytest

from memctl.ingest.transcript import build_transcript
from memctl.scrub.sensitive_source import (
    is_sensitive_path,
    redact_tool_part,
    redact_values,
    sensitive_files_in_command,
)
from tests.ingest.test_transcript import PartFactory, make_settings, simple_session

SENSITIVE = [
    ".env", "/home/dev/app/.env", "./.env.local", "C:\\app\\.env.production", "config/.env-staging",
    "certs/server.pem", "tls/private.key", "/home/dev/.ssh/id_ed25519", "~/.ssh/id_rsa", "~/.netrc",
    "/root/.pgpass", "project/.npmrc", "~/.pypirc", "~/.git-credentials", "/home/dev/.aws/credentials",
    "kubeconfig", "/home/dev/.kube/config", "infra/prod.tfvars", "infra/terraform.tfvars.json", "store.p12",
    "android/release.keystore", "keystore.json", "UTC--2024-01-01T00-00-00.0Z--008aeeda4d80", "wallet.dat",
    "deploy/secrets.yaml", "secrets.json", ".htpasswd", "/home/dev/.docker/config.json",
]
NOT_SENSITIVE = [
    ".env.example", "app/.env.sample", ".env.template", "id_ed25519.pub", "src/keyboard.py", "environment.yml",
    "README.md", "src/secrets_test.py", "docs/keys.md", "config.json", "/home/dev/.kube/cache", "monkey.pyc",
    "", "package.json",
]


@pytest.mark.parametrize("path", SENSITIVE)
def test_credential_file_names_are_sensitive(path: str) -> None:
    assert is_sensitive_path(path)


@pytest.mark.parametrize("path", NOT_SENSITIVE)
def test_ordinary_and_example_files_are_not(path: str) -> None:
    assert not is_sensitive_path(path)


LAYOUTS = [
    # (content, values that must go, keys that must stay)
    ("DB_HOST=db.internal\nDB_PASSWORD=plainword\nexport STRIPE=sk_dummy_value\n# comment stays\n",
     ["db.internal", "plainword", "sk_dummy_value"], ["DB_HOST=", "DB_PASSWORD=", "export STRIPE=", "# comment stays"]),
    ("[default]\naws_access_key_id = AKIAEXAMPLEVALUE01\naws_secret_access_key = wordlike/secret+value\n",
     ["AKIAEXAMPLEVALUE01", "wordlike/secret+value"], ["[default]", "aws_access_key_id = ", "aws_secret_access_key = "]),
    ("machine github.com login octocat password correcthorse\n", ["octocat", "correcthorse"],
     ["machine github.com login ", " password "]),
    ("db.internal:5432:app:app_user:simpleword\n", ["simpleword"], ["db.internal:5432:app:app_user:"]),
    ("https://octocat:gho_plainvalue@github.com\n", ["octocat:gho_plainvalue"], ["https://", "@github.com"]),
    ('{\n  "token": "plain value here",\n  "user": "bob"\n}\n', ["plain value here", '"bob"'], ['"token": ', '"user": ']),
    ("db:\n  password: simple\n  user: app\n", ["simple", " app"], ["db:", "password: ", "user: "]),
    ("//registry.npmjs.org/:_authToken=npmvalue123\n", ["npmvalue123"], ["//registry.npmjs.org/:_authToken="]),
    ('db_password = "tfvar value"\nregion = "eu-west-1"\n', ["tfvar value", "eu-west-1"], ["db_password = ", "region = "]),
]


@pytest.mark.parametrize(("content", "values", "keys"), LAYOUTS)
def test_every_value_goes_and_every_key_stays(content: str, values: list[str], keys: list[str]) -> None:
    out, count = redact_values(content)
    for value in values:
        assert value not in out, out
    for key in keys:
        assert key in out, out
    assert count >= len(values)


def test_read_tool_gutters_and_wrappers_are_kept() -> None:
    output = "<file>\n00001| API_URL=https://api.internal\n00002| API_TOKEN=plainvalue\n\n(End of file - total 2 lines)\n</file>"
    out, count = redact_values(output)
    assert out.splitlines()[0] == "<file>" and out.splitlines()[-1] == "</file>"
    assert "00002| API_TOKEN=[REDACTED:credential_file]" in out
    assert "plainvalue" not in out and "api.internal" not in out and count == 2
    newer = "<path>/app/.env</path>\n<content>\n1: SECRET=wordvalue\n</content>"
    assert "1: SECRET=[REDACTED:credential_file]" in redact_values(newer)[0]


def test_key_files_go_whole_but_their_armour() -> None:
    body = "-----BEGIN EC PRIVATE KEY-----\nplainbodyline\nsecondline\n-----END EC PRIVATE KEY-----"
    _, out, count = redact_tool_part("read", {"filePath": "/etc/ssl/site.key"}, body)
    assert "plainbodyline" not in out and "secondline" not in out and count == 2
    assert out.startswith("-----BEGIN EC PRIVATE KEY-----")


@pytest.mark.parametrize(
    "command",
    ["cat .env", "cat ./app/.env.local | grep DB", "head -n 5 ~/.netrc", "Get-Content .env", "sudo cat /root/.pgpass",
     "cd app && cat .env.production", "less ~/.aws/credentials", "cat 'config/secrets.yaml'"],
)
def test_bash_commands_that_print_a_credential_file(command: str) -> None:
    assert sensitive_files_in_command(command)
    _, out, count = redact_tool_part("bash", {"command": command}, "KEY_ONE=plainvalue\nOTHER=thing")
    assert "plainvalue" not in out and "thing" not in out and count == 2


@pytest.mark.parametrize("command", ["cat .env.example", "ls -la .env", "echo .env >> .gitignore", "cat README.md",
                                     "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:x"])
def test_commands_that_do_not_print_one(command: str) -> None:
    # "ls .env" lists the name, "echo .env" prints the word: neither reads the file. openssl reads
    # c.pem (a key file: its output is redacted by value) but here only writes c.p12 after -out.
    found = sensitive_files_in_command(command)
    assert found == [] or found == ["c.pem"]
    if found:
        return
    _, out, count = redact_tool_part("bash", {"command": command}, "PLAIN=visible")
    assert out == "PLAIN=visible" and count == 0


def test_writes_and_edits_of_a_credential_file_redact_the_content() -> None:
    tool_input = {"filePath": "/app/.env", "content": "API_TOKEN=plainvalue\nDEBUG=1\n"}
    new_input, _, count = redact_tool_part("write", tool_input, "Wrote file successfully.")
    assert "plainvalue" not in new_input["content"] and "API_TOKEN=" in new_input["content"] and count >= 2
    assert tool_input["content"] == "API_TOKEN=plainvalue\nDEBUG=1\n"  # the part itself is not changed
    edit = {"filePath": "deploy/secrets.yaml", "oldString": "password: old", "newString": "password: newword"}
    new_edit, _, _ = redact_tool_part("edit", edit, "")
    assert "newword" not in json.dumps(new_edit) and "old" not in new_edit["oldString"]


def test_transcript_redacts_a_read_env_file_before_bounding() -> None:
    p = PartFactory()
    lines = [f"SETTING_{i}=plainvalue{i}" for i in range(400)]
    output = "<file>\n" + "\n".join(f"{i:05d}| {line}" for i, line in enumerate(lines, 1)) + "\n</file>"
    parts = [p.user("why does the app not start? look at the env file please"),
             p.tool("read", input={"filePath": "/home/dev/app/.env"}, output=output),
             p.tool("bash", input={"command": "cat .env.local"}, output="LOCAL_ONLY=wordvalue"),
             p.tool("read", input={"filePath": "/home/dev/app/.env.example"}, output="00001| EXAMPLE=visible")]
    transcript = build_transcript(simple_session(parts), make_settings(max_tool_output_chars=2000))
    assert "plainvalue" not in transcript.text and "wordvalue" not in transcript.text
    assert "SETTING_0=[REDACTED:credential_file]" in transcript.text
    assert "EXAMPLE=visible" in transcript.text
    assert transcript.redactions["credential_file"] == 401
