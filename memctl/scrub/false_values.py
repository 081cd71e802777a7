"""Spans a rule took that are not secrets: type names, elided documentation values, status prose.

:func:`not_a_secret` is asked about every span :func:`memctl.scrub.core.find_secrets` is about to
accept, after :func:`memctl.scrub.public_values.public_span`. It drops:

* a span holding one of our own ``[REDACTED:…]`` markers (a later pass reading it as a value);
* a type where a value was expected: ``const DB_PASSWORD: &str = …`` (Rust), ``fn f(password: &str)``,
  ``password: String,`` (a struct field), ``token: Option<String>``: the span is a type name
  (``&str``, ``&'static str``, ``String``, ``Option<…>``, ``SecretString``…) followed by ``=``, ``,``,
  ``)`` or the end of the line;
* an elided value written for documentation or display: a prefix and ``...``/``…`` (``sk_live_...``,
  ``ghp_...``) or a few characters on either side of ``...``/``…``/``***`` (``sk-...4f2a``,
  ``ghp_…a1b2``); a real token has no ellipsis in it, and the visible part is too short to use;
* a status line a tool prints after a credential word: ``passwd: password updated successfully``,
  ``Password: authentication token manipulation error``: two or more lower-case words, one of them a
  credential noun or a status word (:data:`_STATUS_WORDS`). A passphrase of plain words with no such
  word (``correct horse battery staple``) is still a secret;
* a script verb a key-name rule read as the value of ``expect "password:" { send "…" }``: the span
  is only braces, quotes and ``send``/``exp_send``/``expect``/``then``/``do``;
* the name of a hashing or encryption algorithm where a prose or key-name rule expected a password
  ("パスワードは argon2id でハッシュ化", "Passwords: bcrypt, cost 12", ``password_hash: sha256``): how
  passwords are stored, not one (a fresh attacker's benign note lost this way). The names are the
  algorithms of Python's ``hashlib``/``passlib`` and the OWASP Password Storage Cheat Sheet, with
  their usual spellings (``sha-256``, ``pbkdf2-sha256``, ``aes-256-gcm``).
"""

from __future__ import annotations

import re

from memctl.scrub.kept_values import kept_value

__all__ = ["not_a_secret"]

_TYPE = re.compile(
    r"&(?:'\w+[ \t]+)?(?:mut[ \t]+)?(?:str|\[u8\]|String)|(?:Option|Box|Rc|Arc|Cow|Secret)<[^<>\n]{1,40}>"
    r"|String|SecretString|SecretStr|SecretBytes|Secret|CString|OsString|Vec<u8>|\[u8;[ \t]*\d+\]"
)
_AFTER_TYPE = re.compile(r"[ \t]*(?:=|,|\)|;|>|$|\n|\{)")
_ELIDED_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9]{0,10}[_-](?:[A-Za-z0-9]{1,8}[_-])*[A-Za-z0-9]{0,6}")
_ELIDED = re.compile(r"[\w-]{0,16}(?:\.{3,}|…|\*{3,})[\w-]{0,8}")
_STATUS_WORDS = frozenset({
    "password", "passwords", "passwd", "passphrase", "token", "tokens", "secret", "key", "keys", "authentication",
    "updated", "successfully", "changed", "unchanged", "expired", "reset", "required", "incorrect", "invalid",
    "failed", "failure", "mismatch", "error", "denied", "accepted", "set", "saved", "removed", "missing",
})
_WORD = re.compile(r"[a-z]+")
_ALGORITHM = re.compile(
    r"(?:argon2(?:id|i|d)?|bcrypt|scrypt|yescrypt|pbkdf2(?:[_-]?(?:hmac[_-]?)?sha[_-]?(?:1|256|512))?"
    r"|sha[_-]?(?:1|224|256|384|512)(?:crypt)?|sha3[_-]?(?:256|512)|md5(?:crypt)?|blake2[bs]?|blake3|ntlm"
    r"|hmac[_-]?sha[_-]?(?:1|256|384|512)|aes(?:[_-]?(?:128|192|256))?(?:[_-]?(?:gcm|cbc|ctr|siv))?"
    r"|chacha20(?:[_-]?poly1305)?|x?salsa20|rsa(?:[_-]?(?:2048|3072|4096))?|ed25519|ecdsa|plaintext|cleartext)",
    re.IGNORECASE,
)
_SCRIPT_VERB = re.compile(r"[\s{}()\[\]\"';]*(?:send|exp_send|send_user|expect|then|do)[\s{}()\[\]\"';]*")


_MARKERS_ONLY = re.compile(r"(?:[ \t]*\[REDACTED:[a-z0-9_]+\][ \t]*)+")


# A Ruby symbol that names a credential attribute (``:api_token``, ``:password_digest``): an identifier with a
# "_" (a literal password such as ``hunter2`` after " :" in a .properties line still counts).
_RUBY_SYMBOL = re.compile(r"[a-z_][a-z0-9]*(?:_[a-z0-9]+)+[?!]?(?:$|[ \t]*[,)])")


def not_a_secret(text: str, start: int, end: int, kind: str = "") -> bool:
    """True when ``text[start:end]``, a span a rule of ``kind`` reported, is a type name, an elided
    documentation value or a tool's status prose (see the module docstring). Never raises."""
    value = text[start:end]
    if "[REDACTED:" in value:
        # Our own marker: a rule that read it as a value (``sessionid=[REDACTED:cookie]``). A pasted credential
        # file's value still goes whole around a marker an earlier pass left in it (the host of
        # ``GIT_REMOTE=https://[REDACTED:credential_file]@git.example.com/…``): every value of such a file is
        # redacted, not only its recognised credential.
        return kind != "credential_file" or _MARKERS_ONLY.fullmatch(value) is not None
    if start >= 2 and text[start - 1] == ":" and text[start - 2] in " \t(," and _RUBY_SYMBOL.match(value):
        return True  # has_secure_token :api_token: a Ruby symbol naming an attribute, not "key: value"
    if kept_value(text, start, end, kind):
        return True  # held-out near-misses: reCAPTCHA site keys, readable cookies, id names (memctl.scrub.kept_values)
    if _TYPE.fullmatch(value):
        return _AFTER_TYPE.match(text, end) is not None
    after = text[end : end + 3]
    if (after == "..." or after[:1] == "…") and _ELIDED_PREFIX.fullmatch(value) and len(value) <= 24:
        return True
    if _ELIDED.fullmatch(value):
        return True
    if _SCRIPT_VERB.fullmatch(value):
        return True
    name = value.strip().strip("\"'`.,;:")
    if _ALGORITHM.fullmatch(name) and name in (name.lower(), name.upper(), name.capitalize()):
        return True  # as an algorithm is written (bcrypt, PBKDF2-SHA256, Argon2id), not a mixed-case password
    words = value.strip().rstrip(".!").split()
    return (
        len(words) >= 2
        and all(_WORD.fullmatch(word) for word in words)
        and any(word in _STATUS_WORDS for word in words)
    )
