"""HTTP credentials: ``Authorization`` headers of every scheme, cookies, and credentials in URLs.

Sources:

* ``Authorization`` / ``Proxy-Authorization`` (RFC 9110 11.6): ``<scheme>
  <credentials>``. Token schemes (``Bearer`` RFC 6750, ``Basic`` RFC 7617,
  ``Token``, ``Bot``, ``ApiKey``, ``SSWS``, ``Negotiate``, ``NTLM`` …) keep the
  scheme and lose the credential; parameter schemes (``Digest`` RFC 7616,
  ``AWS4-HMAC-SHA256`` (AWS SigV4), ``OAuth`` RFC 5849, ``Signature``) lose
  the whole parameter list. Also in JSON and escaped JSON (``"Authorization":
  "Bearer …"``), and a bare ``Bearer <token>`` away from its header.
* ``Cookie`` / ``Set-Cookie`` (RFC 6265): cookie values (names stay; Set-Cookie
  attributes such as ``Path`` or ``HttpOnly`` are not secrets).
* ``auth`` fields holding base64 of ``user:password`` (Docker's
  ``config.json`` ``auths`` entries, ``.npmrc``'s ``_auth``), a ``(user,
  password)`` pair given to an auth argument (requests' ``auth=("u", "p")``,
  ``HTTPBasicAuth("u", "p")``), and redis' ``AUTH [user] password`` command.
* URL userinfo (RFC 3986 3.2.1) in any scheme: ``scheme://user:password@host``
  (detect-secrets' BasicAuthDetector, extended to passwords with ``@`` and
  sub-delimiters), and a credential-shaped user part on its own, the way
  Sentry DSNs (``https://<32 hex public key>@o1.ingest.sentry.io/42``) and
  token-in-URL remotes (``https://<token>@host``) carry their key.
* Telegram bot tokens (``<bot id>:<35 characters>``, detect-secrets'
  TelegramBotTokenDetector), most often seen in bot API URLs: they share the
  scan for ``:`` with URL userinfo.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder, left_boundary, looks_random

__all__ = ["HTTP_DETECTORS"]

_TOKEN_CHARS = r"[A-Za-z0-9._~+/-]"
_PARAM_VALUE = r"""(?:\\*"[^\x00"\\\n]*\\*"|[^\x00\s,"'\\]+)"""
_PARAMS = rf"[A-Za-z][\w-]*={_PARAM_VALUE}(?:[ \t]*,[ \t]*[A-Za-z][\w-]*={_PARAM_VALUE})*"
_TOKEN_SCHEMES = frozenset(
    {
        "bearer", "basic", "token", "bot", "apikey", "api-key", "api_key", "key", "sso-key", "ssws", "negotiate",
        "ntlm", "oauth", "genie", "geniekey", "splunk", "zoho-oauthtoken", "klaviyo-api-key", "dsn", "pat",
        "jwt", "access_token", "session", "client-token", "hmac", "apitoken", "api-token",
    }
)

# One gate, "auth", for: Authorization headers; auth fields holding base64 user:password;
# a (user, password) pair given to an auth argument (requests' auth=("u", "p"),
# HTTPBasicAuth("u", "p")); redis' AUTH [user] password command.
_AUTH = (
    r"auth(?:orization\\*[\"']?[ \t]*[:=,][ \t]*\\*[\"']?"
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9._-]{0,40})[ \t]+)?"
    rf"(?:(?P<params>{_PARAMS})|(?P<value>{_TOKEN_CHARS}{{4,}}=*))"
    r"|(?P<field>\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
    r"(?P<fvalue>(?:[A-Za-z0-9+/]{4}){2,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)(?![A-Za-z0-9+/=]))"
    r"|(?P<pair>(?:[ \t]*=[ \t]*)?[(\[][ \t]*(?P<uq>\\*[\"'])[^\x00\"'\n\\]*(?P=uq)[ \t]*,[ \t]*"
    r"(?P<pq>\\*[\"'])(?P<pvalue>[^\x00\"'\n\\]+)(?P=pq))"
    r"|(?P<redis>(?-i:(?<=AUTH))[ \t]+(?:[^\s\x00\"']+[ \t]+)?(?P<rvalue>[^\s\x00\"']+)[ \t]*(?=$|\r?\n|\\n|\x00|\\?[\"'])))"
)
_REDIS_PROMPT = re.compile(r"(?:^|[\n\x00\"']|\\n)(?:[^\s>\x00\"']{0,64}>[ \t]*)?$")
_NEXT_WORD = re.compile(r"[ \t]+[\[A-Za-z0-9]")


def _random_enough(value: str) -> bool:
    """A credential after an unknown scheme or none: digits, padding, or long mixed case.

    Prose such as "Basic authentication" or "Authorization: disabled" must survive.
    """
    if is_placeholder(value):
        return False
    if len(value) >= 8 and (any(c.isdigit() for c in value) or value.endswith("=")):
        return True
    return len(value) >= 16 and any(c.isupper() for c in value) and any(c.islower() for c in value)


def _accept_authorization(match: re.Match[str]) -> bool | tuple[int, int]:
    """Credential span of an ``Authorization`` header (see the module docstring)."""
    scheme = match.group("scheme")
    if match.group("params") is not None:
        if scheme is None and not _random_enough(match.group("params")):
            return False
        return match.span("params")
    value = match.group("value")
    if scheme is not None and scheme.lower() in _TOKEN_SCHEMES:
        return match.span("value") if len(value) >= 6 and not is_placeholder(value) else False
    if scheme is not None and not _random_enough(scheme + value):
        return False
    if scheme is None and _NEXT_WORD.match(match.string, match.end("value")):
        return False  # "AWS4-HMAC-SHA256 [REDACTED…]": a scheme whose credential is already gone
    return match.span("value") if _random_enough(value) else False


def _accept_auth(match: re.Match[str]) -> bool | tuple[int, int]:
    if match.group("field") is not None:
        return match.span("fvalue") if _accept_basic_auth_field(match) else False
    if match.group("pair") is not None:
        return match.span("pvalue") if not is_placeholder(match.group("pvalue")) else False
    if match.group("redis") is not None:
        # "AUTH [user] password" typed at a redis prompt (redis-cli, "127.0.0.1:6379> "): upper case, line start.
        text = match.string
        if text[match.start() : match.start() + 4] != "AUTH" or is_placeholder(match.group("rvalue")):
            return False
        before = text[max(0, match.start() - 80) : match.start()]
        return match.span("rvalue") if _REDIS_PROMPT.search(before) else False
    return _accept_authorization(match)


def _accept_bare_scheme_token(match: re.Match[str]) -> bool:
    """``Bearer xyz``/``Basic xyz`` without an Authorization header in view:
    the token has to look random (:func:`_random_enough`)."""
    return _random_enough(match.group("value"))


# --- cookies -------------------------------------------------------------------

_COOKIE = re.compile(
    r"(?P<set>set-)?cookie\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?P<pairs>[^\n\r\"'\\\x00`]+)",
    re.IGNORECASE,
)
_COOKIE_PAIR = re.compile(r"[ \t]*(?P<name>[^\x00=;,\s]{1,128})=(?P<value>[^\x00;\s]*)")
_COOKIE_ATTRIBUTES = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority", "partitioned",
     "version", "comment"}
)


def _cookie_value(value: str) -> bool:
    if is_placeholder(value):
        return False
    return len(value) >= 16 or looks_random(value, min_len=6)


def _cookie_spans(text: str, lowered: str | None) -> Iterator[Span]:
    """Values of ``Cookie: a=b; c=d`` (all pairs) and ``Set-Cookie: a=b; Path=/`` (the first pair)."""
    if lowered is None:
        hits = [m.start() for m in re.finditer("cookie", text, re.IGNORECASE)]
    else:
        hits = []
        pos = lowered.find("cookie")
        while pos != -1:
            hits.append(pos)
            pos = lowered.find("cookie", pos + 6)
    for hit in hits:
        start = hit - 4 if hit >= 4 and text[hit - 4 : hit].lower() == "set-" else hit
        header = _COOKIE.match(text, start)
        if header is None:
            continue
        offset = header.start("pairs")
        for index, raw_pair in enumerate(header.group("pairs").split(";")):
            pair = _COOKIE_PAIR.match(raw_pair)
            if pair is not None and pair.group("name").lower() not in _COOKIE_ATTRIBUTES:
                if header.group("set") is None or index == 0:
                    if _cookie_value(pair.group("value")):
                        yield offset + pair.start("value"), offset + pair.end("value"), "cookie"
            offset += len(raw_pair) + 1


# --- base64 user:password fields -------------------------------------------------------

def _accept_basic_auth_field(match: re.Match[str]) -> bool:
    """``"auth": "<base64 of user:password>"`` (Docker's config.json ``auths`` entries), ``_auth=…``
    (.npmrc): a field named auth whose value decodes to ``user:password``."""
    start = match.start()
    if start and match.string[start - 1] not in "\"'_ \t\n{,\\":
        return False  # oauth:, author=…
    value = match.group("fvalue")
    decoded = printable_text(base64_bytes(value), ratio=1.0)
    if decoded is None:
        return False
    user, found, password = decoded.partition(":")
    return bool(found and user and password and decoded.isprintable())


# --- URL userinfo -----------------------------------------------------------------


_LOOPBACK = re.compile(r"@(?:localhost|127\.0\.0\.1|\[::1\])(?![\w.-])")


def _accept_url_credentials(match: re.Match[str]) -> bool | tuple[int, int]:
    """``user:password@`` with a real password, or a credential-shaped user alone (DSN key)."""
    password = match.group("password")
    if password is not None:
        if is_placeholder(password):
            return False
        if "/" in password and password.split("/", 1)[0].isdigit():
            return False  # host:8080/path/user@example: a port and a path, not a password
        if password == match.group("user") and _LOOPBACK.match(match.string, match.end("cred")):
            return False  # postgres://postgres:postgres@localhost: a local service's default, as .env.example files hold
        return match.span("cred")
    user = match.group("user")
    if is_placeholder(user) or not credential_shaped(user, min_len=20):
        return False
    return match.span("user")


def _accept_telegram(match: re.Match[str]) -> bool | tuple[int, int]:
    """``<bot id: 8-10 digits>:<35>`` (detect-secrets' TelegramBotTokenDetector regex), found
    from the colon back to the digits; also in ``https://api.telegram.org/bot<token>/…``."""
    text = match.string
    colon = match.start()
    start = colon
    while start > 0 and colon - start < 11 and text[start - 1].isdigit():
        start -= 1
    if 8 <= colon - start <= 10 and (left_boundary(text, start) or text[max(0, start - 3) : start] == "bot"):
        return start, match.end()
    return False


def _accept_colon(match: re.Match[str]) -> bool | tuple[int, int]:
    # One scan of ":" serves URL userinfo and Telegram bot tokens.
    if match.group("telegram") is not None:
        return _accept_telegram(match)
    return _accept_url_credentials(match)


HTTP_DETECTORS: tuple[Detector, ...] = (
    # scheme://user:password@host -> scheme://[REDACTED:url_credentials]@host; the
    # password may hold "@", "/" and an unescaped "#" (the last "@" before the host ends the userinfo).
    detector(
        "url_credentials",
        r":(?://(?P<cred>(?P<user>[^\s:/?#@\[\]\"'<>\\\x00]*)(?::(?P<password>[^\s?\[\]\"'<>\\\x00]+))?)@"
        r"(?=[A-Za-z0-9\[])|(?P<telegram>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-]))",
        accept=_accept_colon,
        kind_groups=(("telegram", "telegram_bot_token"),),
        origin="detect-secrets:BasicAuthDetector (extended); Sentry DSN; detect-secrets:TelegramBotTokenDetector",
    ),
    detector(
        "bearer_token",
        _AUTH,
        flags=re.IGNORECASE,
        anchors=("auth",),
        requires=("auth",),
        accept=_accept_auth,
        kind_groups=(("field", "password"), ("pair", "password"), ("redis", "password")),
        origin="RFC 9110 Authorization header; Docker config.json auths / .npmrc _auth (RFC 7617 user:password)",
    ),
    detector(
        "bearer_token",
        rf"(?:bearer|basic)[ \t]+(?P<value>{_TOKEN_CHARS}{{8,}}=*)",
        flags=re.IGNORECASE,
        group="value",
        anchors=("b(?:earer|asic)[ \t]",),
        requires=("bearer", "basic"),  # every anchor hit starts with one
        accept=_accept_bare_scheme_token,
        origin="RFC 6750 Bearer / RFC 7617 Basic credentials away from their header",
    ),
    detector("cookie", finder=_cookie_spans, origin="RFC 6265 Cookie/Set-Cookie"),
)
"""URL userinfo first (a token in a URL is a URL credential), then headers and cookies."""
