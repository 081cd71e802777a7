"""Values a rule took that a held-out attacker showed are not secrets (asked by :func:`memctl.scrub.false_values.not_a_secret`).

:func:`kept_value` drops a span when it is:

* a reCAPTCHA site key (``data-sitekey="6L…"``, ``sitekey``/``site_key``/``recaptcha`` just
  before it; 40 characters starting ``6L``): public by design (Google reCAPTCHA docs: the site
  key is served in the page, the secret key is not);
* a cookie value that is readable words once percent-decoded (``tz=Europe%2FBerlin``,
  ``consent=analytics%3Dfalse``, ``lang=en-US``): preferences, not sessions;
* documentation filler inside a vendor prefix (``sk_test_your_key_here``, ``ghp_your-token``);
* a Haskell type after ``::`` (``apiSecret :: Text``);
* a secret's *name* after ``--secret=``/``--secret`` (``stripe-webhook``: lower-case words joined
  by hyphens, no digit);
* the value of an identity row of ``vault kv get`` output (``username    payments``);
* the value under a client or account id name (``AUTH0_CLIENT_ID=…``, ``tenant_id``): ids name a
  credential, they do not open anything alone. ``private_key_id``/``*_key_id`` stay redacted: our
  own corpus counts a service account's ``private_key_id`` as a secret (tests/support/scrub_corpus.py);
* a parenthesised remark where a password was expected (``Password: (typed)``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["kept_value"]

_SITEKEY = re.compile(r"6L[A-Za-z0-9_-]{38}")
_SITEKEY_NAMES = ("sitekey", "site_key", "site-key", "recaptcha", "grecaptcha")
_WORDS = re.compile(r"[A-Za-z]{1,24}|\d{1,4}")
_WORD_SPLIT = re.compile(r"[/=&,:;. _+|-]+")
_FILLER = re.compile(r"(?i)(?:^|[_\-.])your[_\-.]|[_\-.](?:goes[_\-.])?here$")
_HASKELL_TYPE = re.compile(r"[ \t]*:?[ \t]*!?(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*\.)*[A-Z][a-z]+(?:[A-Z][a-z0-9]+)*(?:[ \t]+[A-Z][a-z]+(?:[A-Z][a-z]+)*)*[ \t]*")
_HASKELL_NAME = re.compile(r"[a-z_][\w']*[ \t]+::?[ \t]*$")
_SECRET_NAME = re.compile(r"[a-z]+(?:-[a-z]+)+")
_IDENTITY_ROW = re.compile(r"(?:^|\n)[ \t]*(?:username|user|login|email|host|hostname|port|url|database|db|name|region|path)[ \t]{2,}$", re.I)
_NAME_BEFORE = re.compile(r"(?P<name>[A-Za-z_][\w.-]{0,60})\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?$")
_ID_NAMES = ("client_id", "clientid", "app_id", "appid_public", "project_id", "tenant_id",
             "account_id", "user_id", "org_id", "application_id")
_REMARK = re.compile(r"\([a-z][a-z .,'-]{0,40}\)")


def kept_value(text: str, start: int, end: int, kind: str) -> bool:
    """True when ``text[start:end]`` (a span a rule of ``kind`` reported) is one of the values of the
    module docstring. Offsets are character offsets. Never raises."""
    value = text[start:end]
    before = text[max(0, start - 80) : start]
    lowered_before = before.lower()
    if _SITEKEY.fullmatch(value) and any(name in lowered_before for name in _SITEKEY_NAMES):
        return True
    if kind == "cookie":
        decoded = unquote(value) if "%" in value else value
        parts = [part for part in _WORD_SPLIT.split(decoded) if part]
        if parts and len(decoded) <= 80 and all(_WORDS.fullmatch(part) and (part.islower() or part.istitle() or part.isdigit()
                                                                              or part.isupper() and len(part) <= 3) for part in parts):
            return True
    if _FILLER.search(value):
        return True
    if _HASKELL_NAME.search(before) and (before.rstrip().endswith("::") or value.startswith(":")):
        if _HASKELL_TYPE.fullmatch(value):
            return True
    if kind in ("secret", "password") and lowered_before.rstrip("\"' =").endswith("--secret") and _SECRET_NAME.fullmatch(value):
        return True
    if kind in ("secret", "password") and _IDENTITY_ROW.search(before):
        return True
    if kind in ("secret", "password"):
        name = _NAME_BEFORE.search(before)
        if name is not None and name.group("name").lower().replace("-", "_").endswith(_ID_NAMES):
            return True
    return _REMARK.fullmatch(value.strip()) is not None
