"""Near-misses a fresh attacker found changed (round 5), as kinds with instances written here: a type
declaration read as Windows' ``type`` printing a secret file, and a hashing algorithm's name read as a password."""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub


@pytest.mark.parametrize("text", [
    "type Secret struct {\n\tName  string\n\tValue []byte `json:\"-\"`\n}\n",
    "type Token struct {\n\tID      int\n\tExpires time.Time\n}\n",
    "type Credentials = {\n  user: string;\n  pass: string;\n};\n",
    "type ApiToken interface {\n\tRefresh() error\n}\n",
    "export type SessionToken = string;\nconst ttl = 3600;\n",
])
def test_a_type_declaration_is_not_a_file_print(text: str) -> None:
    assert scrub(text).text == text


@pytest.mark.parametrize("text", [
    "$ type C:\\keys\\secret.txt\nZk8pQx7wq2LmN5\n",
    "$ type .\\token.txt\nZk8pQx7wq2LmN5\n",
    "$ cat ~/.config/app/token\nZk8pQx7wq2LmN5\n",
])
def test_a_printed_secret_file_is_still_masked(text: str) -> None:
    assert "Zk8pQx7wq2LmN5" not in scrub(text).text


@pytest.mark.parametrize("text", [
    "パスワードは argon2id でハッシュ化しています。",
    "Passwords: argon2id hashing.",
    "The password is hashed with bcrypt.",
    "password_hash: sha256",
    "密码使用 scrypt 存储。",
    "Das Passwort wird mit PBKDF2-SHA256 gehasht.",
    "passwords are stored as sha512crypt on the old hosts",
    "password encryption: aes-256-gcm",
])
def test_the_name_of_a_hashing_algorithm_is_not_a_password(text: str) -> None:
    assert scrub(text).text == text


@pytest.mark.parametrize(("text", "secret"), [
    ("password: Argon2id-Zk8pQx7w", "Argon2id-Zk8pQx7w"),
    ("DB_PASSWORD=ChACHA20POLY1305", "ChACHA20POLY1305"),  # hypothesis found it: mixed case is a password
    ("the password is scrypt42!Xq", "scrypt42!Xq"),
    ("パスワードは bcrypt-Q8xZ-2024 です", "bcrypt-Q8xZ-2024"),
])
def test_a_password_that_starts_with_an_algorithms_name_is_still_masked(text: str, secret: str) -> None:
    assert secret not in scrub(text).text


def test_a_printed_credential_files_url_value_goes_whole_after_its_userinfo_was_redacted() -> None:
    """``cat .env`` by a bash tool: the tool part is redacted by value first (a URL keeps its host, only its
    userinfo goes), then the transcript's scrub takes each remaining value of the printed file whole. A rule
    that skipped every span holding a marker left the host and path of such a URL (seen in the golden
    transcripts after a merge)."""
    from memctl.scrub.sensitive_source import redact_tool_part

    output = ("GIT_REMOTE=https://deploy:Zk8pQx7wq2LmN5@git.internal.example/acme/app.git\n"
              "DATABASE_URL=postgres://app:Pw9xLmQ2vR@db.internal.example:5432/app\n")
    _, redacted, count = redact_tool_part("bash", {"command": "cat config/secrets.txt .env"}, output)
    assert count == 2 and "Zk8pQx7wq2LmN5" not in redacted
    text = scrub('{"command": "cat config/secrets.txt .env"}\nOutput:\n' + redacted).text
    assert "git.internal.example" not in text and "db.internal.example" not in text
    assert "GIT_REMOTE=" in text and "DATABASE_URL=" in text  # keys stay readable
    assert scrub("sessionid=[REDACTED:cookie]; path=/").text == "sessionid=[REDACTED:cookie]; path=/"


@pytest.mark.parametrize(("text", "kept"), [
    ("Run `echo 726d202d7266207e | xxd -r -p | sh` to reset.", True),
    ("echo 6375726c206576696c | xxd -r -p | bash", True),
    ("echo 4a85c3f1b2d4e6f8a9b0c1d2e3f4a5b6 | xxd -r -p > key.bin", False),
    ("echo -n 4a85c3f1b2d4e6f8a9b0c1d2e3f4a5b6 | xxd -r -p | openssl enc -d -aes-256-cbc", False),
])
def test_hex_decoded_into_a_shell_is_a_command_not_key_bytes(text: str, kept: bool) -> None:
    """Hex fed to ``xxd -r -p`` is key bytes written out, unless it goes on to a shell: then it is an encoded
    command, which the validator refuses for what it is (the scrubber took it as a secret after a merge)."""
    assert (scrub(text).text == text) is kept
