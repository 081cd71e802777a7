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
    ("the password is scrypt42!Xq", "scrypt42!Xq"),
    ("パスワードは bcrypt-Q8xZ-2024 です", "bcrypt-Q8xZ-2024"),
])
def test_a_password_that_starts_with_an_algorithms_name_is_still_masked(text: str, secret: str) -> None:
    assert secret not in scrub(text).text
