"""Vendor secrets with no prefix, known by their value shape next to the vendor's name, in any language.

A key that carries no issuer prefix (an AWS secret access key, a Cloudflare global API key, a Twilio
auth token) is found by the catalog and the key-name rules only beside an English key name
(``aws_secret_access_key=``, ``TWILIO_AUTH_TOKEN:``). Said in chat in any language ("la clé secrète
AWS : …", "Cloudflare 的全局密钥是 …", "twilio anahtarı …") it has only the vendor's name and its shape.
This rule reports a run of the vendor's documented shape that follows the vendor's name on the same
line within 100 characters, whatever words sit between, unless one of those words names an identifier
(``id``, ``sid``, ``sha``, ``commit``, ``zone``, ``account`` …: a Cloudflare zone id and a git commit
are hex too).

Shapes (each vendor's documentation or its keys' published format):

* AWS secret access key: 40 characters of ``[A-Za-z0-9/+]`` with upper, lower case and a digit
  (AWS IAM User Guide, "Managing access keys");
* Azure DevOps personal access token: 52 characters of lower-case base32 (``[a-z2-7]``), or the
  84-character format holding ``AZDO`` at offset 76 (Microsoft Learn, "Use personal access tokens");
* Cloudflare global API key: 37 lower-case hex; API token: 40 of ``[A-Za-z0-9_-]``;
* Vercel access token: 24 characters of ``[A-Za-z0-9]`` with both cases and a digit;
* Plaid secret: 30 lower-case hex; Twilio auth token and API secret: 32 lower-case hex;
* Cloudinary API secret: 27 characters of ``[A-Za-z0-9_-]`` with both cases and a digit;
* Datadog API key 32 hex, application key 40 hex; Algolia admin key 32 hex; Snyk API token a UUID; Weights &
  Biases (``wandb``) and Particle access tokens 40 hex; Jenkins API token 32-34 hex; Coinbase API secret 32-88
  base64 characters with both cases and a digit; Mailgun, SendGrid and others carry prefixes and are the catalog's.

Kind ``secret``. The vendor names are gate literals: a text naming no vendor costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector

__all__ = ["VENDOR_VALUE_DETECTORS"]

_MIXED40 = r"[A-Za-z0-9/+]{40}"
_HEX = "[0-9a-f]"
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# vendor name (lower case, as the gate index finds it) -> value regexes of its secrets
_SHAPES: dict[str, tuple[str, ...]] = {
    "aws": (_MIXED40,),
    "amazon": (_MIXED40,),
    "azure devops": ("[a-z2-7]{52}", "[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}"),
    "devops": ("[a-z2-7]{52}", "[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}"),
    "azdo": ("[a-z2-7]{52}", "[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}"),
    "cloudflare": (f"{_HEX}{{37}}", "[A-Za-z0-9_-]{40}"),
    "vercel": ("[A-Za-z0-9]{24}",),
    "plaid": (f"{_HEX}{{30}}",),
    "twilio": (f"{_HEX}{{32}}",),
    "cloudinary": ("[A-Za-z0-9_-]{27}",),
    "datadog": (f"{_HEX}{{32}}", f"{_HEX}{{40}}"),
    "algolia": (f"{_HEX}{{32}}",),
    "snyk": (_UUID,),
    "wandb": (f"{_HEX}{{40}}",),
    "particle": (f"{_HEX}{{40}}",),
    "jenkins": (f"{_HEX}{{32,34}}",),
    "coinbase": ("[A-Za-z0-9/+]{32,88}={0,2}",),
}
_REACH = 100
_RUN = re.compile(r"[A-Za-z0-9/+_-]{20,90}")
_BOUNDARY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+_-=")
_COMPILED = {name: tuple(re.compile(shape) for shape in shapes) for name, shapes in _SHAPES.items()}
# Words between the vendor's name and the run that make the run an identifier, a hash or a version.
_IDENTIFIER_WORDS = re.compile(
    r"(?i)(?<![a-z])(?:id|ids|sid|sha|sha1|sha256|commit|hash|digest|zone|account|org|organization|project|request"
    r"|trace|build|version|fingerprint|uuid|region|bucket|arn|deployment|dpl|team|user|username|client[ _-]?id"
    r"|public|publishable|site)(?![a-z])"
)


def _random_enough(value: str) -> bool:
    """Hex of the right length is the shape itself (issued hex keys); other alphabets need both cases and a
    digit, or base32's digits: words, paths and identifiers have not."""
    if all(c in "0123456789abcdef-" for c in value):  # hex, or a UUID (Snyk's API tokens are UUIDs)
        return sum(c.isdigit() for c in value) >= 3 and sum(c.isalpha() for c in value) >= 3
    if all(c in "abcdefghijklmnopqrstuvwxyz234567" for c in value):
        return sum(c.isdigit() for c in value) >= 4
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _vendor_value_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for name, shapes in _COMPILED.items():
        if name not in gates:
            continue
        pos = lowered.find(name)
        while pos != -1:
            after = pos + len(name)
            if (pos == 0 or not lowered[pos - 1].isalpha()) and not lowered[after : after + 1].isalpha():
                reach = min(len(text), after + _REACH)
                line_end = min(len(text), reach + 90)
                for stop in ("\n", "\x00"):
                    cut = text.find(stop, after, line_end)
                    if cut != -1:
                        line_end = cut
                for run in _RUN.finditer(text, after, line_end):
                    start, end = run.span()
                    if start > reach:
                        break
                    if (start > 0 and text[start - 1] in _BOUNDARY) or (end < len(text) and text[end] in _BOUNDARY):
                        continue
                    value = run.group(0)
                    if not any(shape.fullmatch(value) for shape in shapes) or not _random_enough(value):
                        continue
                    if _IDENTIFIER_WORDS.search(text, after, start) is not None:
                        break  # "zone id …", "commit …": what follows is named, and not a secret
                    yield start, end, "secret"
                    break
            pos = lowered.find(name, after)


VENDOR_VALUE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_vendor_value_spans,
        literals=tuple(_SHAPES),
        requires=tuple(_SHAPES),
        origin="memctl: vendor secrets by shape after the vendor's name (see memctl.scrub.vendor_values)",
    ),
)
"""One finder for the vendors and shapes in the module docstring."""
