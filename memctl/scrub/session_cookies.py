"""Session cookies outside a ``Cookie:`` header: in URLs, cookie jars and cookie JSON.

* Netscape ``cookies.txt`` lines (curl ``-c``, yt-dlp, browser exports): seven tab-separated
  fields ``domain  flag  path  secure  expiry  name  value`` (``#HttpOnly_`` prefix allowed):
  the value;
* a session id in a URL path or query: ``;jsessionid=`` (Servlet URL rewriting), ``PHPSESSID=``,
  ``sid=``/``session_id=``/``sessionid=``: the value, when 16+ characters;
* cookie JSON (browser extensions, Playwright ``storageState``, Puppeteer ``page.cookies()``):
  ``{"name": N, "value": V}`` in either order, when ``N`` names a session or auth cookie, or
  ``V`` is 16+ random-looking characters and the object has a ``domain``;
* ``NAME=VALUE`` of a session cookie name (Rails ``_app_session``, ``connect.sid``,
  ``laravel_session``, ``PHPSESSID``, ``JSESSIONID``, ``ASP.NET_SessionId``, ``sessionid``,
  ``remember_user_token``, ``__Secure-next-auth.session-token``…) anywhere, value 16+ characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random

__all__ = ["SESSION_COOKIE_DETECTORS"]

_SESSION_NAME = (
    r"(?:_[\w-]*_session|[\w.-]*session(?:id|_id|-token|_token)?|connect\.sid|sid|phpsessid|jsessionid"
    r"|asp\.net_sessionid|\.aspnetcore\.(?:session|cookies)|remember_[\w]*token|_gh_sess"
    r"|user_session|__host-[\w.-]+|__secure-[\w.-]+)"
)
_NETSCAPE = re.compile(
    r"(?m)(?:^|(?<=\x00))(?:#HttpOnly_)?[\w.-]+\t(?:TRUE|FALSE)\t[^\t\n]*\t(?:TRUE|FALSE)\t\d+\t[^\t\n]+\t(?P<value>[^\t\n\x00]{8,4096}?)[ \t\r]*$"
)
_URL_NAMES = frozenset({"jsessionid", "phpsessid", "sessionid", "session_id", "sid"})
_URL_VALUE = re.compile(r"[A-Za-z0-9._%-]{16,256}")
_JSON_NAME_VALUE = re.compile(
    r"\"name\"[ \t]*:[ \t]*\"(?P<name>[^\"\n]{1,100})\"[ \t]*,[^{}]{0,400}?\"value\"[ \t]*:[ \t]*\"(?P<value>[^\"\n]{1,4096})\""
    r"|\"value\"[ \t]*:[ \t]*\"(?P<value2>[^\"\n]{1,4096})\"[ \t]*,[^{}]{0,400}?\"name\"[ \t]*:[ \t]*\"(?P<name2>[^\"\n]{1,100})\""
)
_PAIR = re.compile(r"(?i)(?P<name>" + _SESSION_NAME + r")=(?P<value>[^\s;,\"'&<>\x00]{16,4096})")
# Where a session cookie's name can end (found in the lower-cased text, then read backwards).
_PAIR_ENDS = ("session=", "sess=", "sid=", "sessionid=", "session_id=", "cookies=", "_token=", "-token=")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_URL_ENDS = ("sessionid=", "session_id=", "sessid=", "sid=")
# Every form holds one of these: the Netscape jar's flag fields, a URL name's or a cookie name's end, cookie JSON's
# "value" key. Only the ends present in the text (the one gate scan says which) are searched.
_GATES = tuple(sorted({"true\t", "false\t", "\"value\"", *_URL_ENDS, *_PAIR_ENDS}))


def _hits(haystack: str, literals: tuple[str, ...]) -> list[int]:
    """Sorted ends of every occurrence of ``literals`` in ``haystack`` (no repeats)."""
    ends: set[int] = set()
    for literal in literals:
        pos = haystack.find(literal)
        while pos != -1:
            ends.add(pos + len(literal))
            pos = haystack.find(literal, pos + 1)
    return sorted(ends)


def _name_start(haystack: str, end: int, chars: frozenset[str]) -> int:
    start = end
    while start > 0 and end - start < 60 and haystack[start - 1] in chars:
        start -= 1
    return start


def _session_cookie_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if "true\t" in gates or "false\t" in gates:
        for match in _NETSCAPE.finditer(text):
            if not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "cookie"
    haystack = lowered if lowered is not None and len(lowered) == len(text) else None
    if haystack is None:
        return
    for end in _hits(haystack, tuple(end for end in _URL_ENDS if end in gates)):
        start = _name_start(haystack, end - 1, frozenset("abcdefghijklmnopqrstuvwxyz0123456789_"))
        if start > 0 and haystack[start - 1] in ";?&" and haystack[start : end - 1] in _URL_NAMES:
            value = _URL_VALUE.match(text, end)
            if value is not None:
                yield value.start(), value.end(), "cookie"
    if "\"value\"" in gates:
        for match in _JSON_NAME_VALUE.finditer(text):
            group = "value" if match.group("value") is not None else "value2"
            name = match.group("name") or match.group("name2")
            value = match.group(group)
            if is_placeholder(value):
                continue
            obj = text[max(0, match.start() - 300) : match.end() + 300]
            if re.fullmatch(_SESSION_NAME, name, re.IGNORECASE) or (looks_random(value) and "\"domain\"" in obj):
                yield match.start(group), match.end(group), "cookie"
    for end in _hits(haystack, tuple(end for end in _PAIR_ENDS if end in gates)):
        start = _name_start(haystack, end - 1, _NAME_CHARS)
        match = _PAIR.match(text, start)
        if match is None or match.end("name") != end - 1:
            continue
        value = match.group("value")
        if looks_random(value) or "%" in value or "--" in value:
            yield match.start("value"), match.end("value"), "cookie"


SESSION_COOKIE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "cookie",
        finder=_session_cookie_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: cookie jars, cookie JSON, session ids in URLs (see memctl.scrub.session_cookies)",
    ),
)
"""One finder for the cookie forms in the module docstring."""
