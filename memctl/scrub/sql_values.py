"""Credentials given to SQL by position: ``INSERT … VALUES`` rows and encryption functions' keys.

* ``INSERT INTO t (c1, c2, …) VALUES (v1, v2, …)[, (…)]``: a quoted value whose column is named
  for a credential (``password``, ``passwd``, ``pwd``, ``secret``, ``token``, ``api_key``,
  ``*_key``, ``*_hash``) is replaced, whatever its shape;
* ``INSERT INTO users VALUES ('u', 'x')`` without a column list, into a table named for accounts
  or credentials (``user(s)``, ``account(s)``, ``login(s)``, ``credential(s)``, ``admin(s)``,
  ``member(s)``, ``api_key(s)``, ``token(s)``, ``secret(s)``): a quoted value shaped like a
  password (no spaces or ``@``, six or more characters, a letter with a digit or a symbol, not a
  date, UUID or number) is replaced;
* encryption functions' key or passphrase argument when it is a quoted literal: PostgreSQL
  pgcrypto ``pgp_sym_encrypt(data, key)``, ``pgp_sym_decrypt``, ``encrypt(data, key, type)``,
  ``decrypt``; MySQL ``AES_ENCRYPT(str, key_str)``, ``AES_DECRYPT``,
  ``DES_ENCRYPT``; SQL Server ``ENCRYPTBYPASSPHRASE('passphrase', …)``, ``DECRYPTBYPASSPHRASE``.

Kind ``password``; only the quoted literal's content is replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder
from memctl.scrub.gates import positions

__all__ = ["SQL_VALUE_DETECTORS"]

_INSERT = re.compile(
    r"insert[ \t]+(?:ignore[ \t]+)?into[ \t]+[`\"\[]?(?:[\w.]+\.)?(?P<table>\w+)[`\"\]]?[ \t]*"
    r"(?:\((?P<columns>[^()\x00]{1,600})\))?[ \t\r\n]*values[ \t\r\n]*",
    re.IGNORECASE,
)
# Possessive quantifiers: a run of quotes is read one way only, so an unclosed string of many
# quotes fails at once instead of trying every split of them (no catastrophic backtracking).
_TUPLE = re.compile(r"\((?P<body>(?:[^()'\"\x00]++|'(?:[^'\\\x00]|''|\\.)*+'|\"[^\"\x00]*+\"|\([^()\x00]*+\))*+)\)[ \t\r\n]*,?[ \t\r\n]*")
_ITEM = re.compile(r"[ \t\r\n]*(?:N?'(?P<sq>(?:[^'\\\x00]|''|\\.)*+)'|\"(?P<dq>[^\"\x00]*)\"|(?P<other>[^,'\"\x00]+))[ \t\r\n]*(?:,|$)")
_CREDENTIAL_COLUMN = re.compile(r"pass|pwd|secret|token|api_?key|_key$|^key$|_hash$|credential", re.IGNORECASE)
_ACCOUNT_TABLE = re.compile(r"(?:users?|accounts?|logins?|credentials?|admins?|members?|api_?keys?|tokens?|secrets?)", re.IGNORECASE)
_NOT_A_PASSWORD = re.compile(r"[\d\s:./+-]+|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}|(?:true|false|null)", re.IGNORECASE)
# function name -> index of the key argument
_FUNCTIONS = {
    "pgp_sym_encrypt": 1, "pgp_sym_decrypt": 1, "pgp_sym_encrypt_bytea": 1, "pgp_sym_decrypt_bytea": 1,
    "encrypt": 1, "decrypt": 1, "aes_encrypt": 1, "aes_decrypt": 1, "des_encrypt": 1, "des_decrypt": 1,
    "encryptbypassphrase": 0, "decryptbypassphrase": 0,
}
_CALL = re.compile(r"(?P<name>" + "|".join(sorted(_FUNCTIONS, key=len, reverse=True)) + r")[ \t]*\(", re.IGNORECASE)


def _items(body: str, offset: int) -> list[tuple[int, int, str | None]]:
    """``(start, end, quoted content or None)`` of each comma-separated item of a tuple body."""
    items: list[tuple[int, int, str | None]] = []
    pos = 0
    while pos < len(body):
        match = _ITEM.match(body, pos)
        if match is None or match.end() == pos:
            break
        group = "sq" if match.group("sq") is not None else "dq" if match.group("dq") is not None else "other"
        content = match.group(group) if group != "other" else None
        items.append((offset + match.start(group), offset + match.end(group), content))
        pos = match.end()
    return items


def _password_shaped(value: str) -> bool:
    if len(value) < 6 or any(c.isspace() for c in value) or "@" in value or is_placeholder(value):
        return False
    if _NOT_A_PASSWORD.fullmatch(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    return has_alpha and (any(c.isdigit() for c in value) or any(not c.isalnum() for c in value))


def _insert_spans(text: str, lowered: str) -> Iterator[Span]:
    pos = lowered.find("insert")
    while pos != -1:
        match = _INSERT.match(text, pos)
        if match is not None:
            columns = [c.strip(" \t\r\n`\"[]") for c in (match.group("columns") or "").split(",")] if match.group("columns") else None
            wanted = None if columns is None else {i for i, c in enumerate(columns) if _CREDENTIAL_COLUMN.search(c)}
            if wanted or (columns is None and _ACCOUNT_TABLE.fullmatch(match.group("table"))):
                at = match.end()
                for _ in range(1000):
                    row = _TUPLE.match(text, at)
                    if row is None:
                        break
                    for index, (start, end, content) in enumerate(_items(row.group("body"), row.start("body"))):
                        if content is None or end <= start:
                            continue
                        if (wanted is not None and index in wanted and not is_placeholder(content)) or (
                            wanted is None and _password_shaped(content)
                        ):
                            yield start, end, "password"
                    at = row.end()
        pos = lowered.find("insert", pos + 6)


def _function_spans(text: str, lowered: str) -> Iterator[Span]:
    for name in ("crypt", "passphrase"):
        hits = positions(lowered, "pass") if name == "passphrase" else ()
        pos = lowered.find(name) if name == "crypt" else next((p for p in hits if lowered.startswith(name, p)), -1)
        while pos != -1:
            begin = max(0, pos - 16)
            for call in _CALL.finditer(text, begin, min(len(text), pos + 24)):
                paren = call.end()
                close = text.find(")", paren, paren + 600)
                close = close if close != -1 else min(len(text), paren + 600)
                items = _items(text[paren:close], paren)
                index = _FUNCTIONS[call.group("name").lower()]
                if index < len(items):
                    start, end, content = items[index]
                    if content is not None and end > start and not is_placeholder(content):
                        yield start, end, "password"
            if name == "crypt":
                pos = lowered.find(name, pos + len(name))
            else:
                pos = next((p for p in hits if p > pos and lowered.startswith(name, p)), -1)


def _sql_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "insert" in gates:
        yield from _insert_spans(text, lowered)
    if "crypt(" in gates or "crypt_bytea(" in gates or (
        "pass" in gates and any(lowered.startswith("passphrase(", p) for p in positions(lowered, "pass"))
    ):
        yield from _function_spans(text, lowered)


# Two substring tests per text ("insert", "crypt("); "_bytea(" is found from its "_" and
# EncryptByPassPhrase from the hits of "pass" every rule shares (memctl.scrub.gates).
_LITERALS = ("insert", "crypt(", "crypt_bytea(", "pass")

SQL_VALUE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_sql_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="PostgreSQL pgcrypto, MySQL and SQL Server function references; SQL INSERT column order",
    ),
)
"""One finder for the SQL forms in the module docstring."""
