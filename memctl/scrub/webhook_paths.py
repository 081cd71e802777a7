"""Webhook URLs whose path is the credential (anyone holding the URL can post).

* Microsoft Teams / Office 365 connectors: ``https://<tenant>.webhook.office.com/webhookb2/<group
  guid>@<tenant guid>/IncomingWebhook/<32 hex>/<creator guid>[/V2<base64url>]``: everything after
  ``webhookb2/`` goes, the host stays (learn.microsoft.com, "Create an Incoming Webhook"); the
  older ``outlook.office.com/webhook/…`` form too;
* Zapier catch hooks ``hooks.zapier.com/hooks/catch/<account>/<key>/``: the key;
* Make (Integromat) ``hook.<region>.make.com/<32 chars>``, IFTTT ``maker.ifttt.com/trigger/<event>/with/key/<key>``;
* Mattermost and Rocket.Chat incoming webhooks ``/hooks/<26 lower-case alphanumerics>`` and
  ``/hooks/<id>/<token>``, and any ``/hooks/``/``/webhook/``/``/webhooks/`` path segment of 20+
  characters with a digit and a letter (a generated id, not a route name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector

__all__ = ["WEBHOOK_PATH_DETECTORS"]

_PATH_CHARS = r"[A-Za-z0-9@._~%+=-]"
_TEAMS = re.compile(r"(?:webhookb2|webhook)/(?P<value>[0-9a-fA-F-]{36}@[0-9a-fA-F-]{36}(?:/" + _PATH_CHARS + r"+)+)")
_ZAPIER = re.compile(r"hooks\.zapier\.com/hooks/catch/\d+/(?P<value>[A-Za-z0-9]{5,40})")
_MAKE = re.compile(r"hook\.[\w.-]*make\.com/(?P<value>[A-Za-z0-9]{24,40})")
_IFTTT = re.compile(r"maker\.ifttt\.com/(?:trigger/[^/\s]+/(?:json/)?with/)?key/(?P<value>[A-Za-z0-9_-]{16,60})")
_HOOK_SEGMENTS = re.compile(r"/(?:hooks|webhooks?)/(?P<value>(?:[A-Za-z0-9_-]{6,120}/?){1,3})")
_GATES = ("webhook", "hooks", "make.com", "ifttt")


def _generated(segment: str) -> bool:
    return len(segment) >= 20 and any(c.isdigit() for c in segment) and any(c.isalpha() for c in segment)


def _webhook_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    for pattern in (_TEAMS, _ZAPIER, _MAKE, _IFTTT):
        for match in pattern.finditer(text):
            yield match.start("value"), match.end("value"), "webhook_url"
    if "hooks" in gates or "webhook" in gates:
        for match in _HOOK_SEGMENTS.finditer(text):
            if "zapier.com" in text[max(0, match.start() - 40) : match.start()]:
                continue
            offset = match.start("value")
            for segment in match.group("value").split("/"):
                if _generated(segment) or re.fullmatch(r"[a-z0-9]{26}", segment) and any(c.isdigit() for c in segment):
                    yield offset, offset + len(segment), "webhook_url"
                offset += len(segment) + 1


WEBHOOK_PATH_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",  # the declared kind; findings carry ``webhook_url``
        finder=_webhook_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: webhook URLs whose path is the credential (see memctl.scrub.webhook_paths)",
    ),
)
"""One finder for the webhook formats in the module docstring."""
