"""Vendor tokens identified by their prefix and body alone, with no key name or vendor word near them.

The catalog engine (:mod:`memctl.scrub.catalog`, kingfisher-secret-scanner 1.5.0) missed each of
these in probes where no vendor word stood near the token (Resend, Notion, Neon, Tencent, NuGet,
Twitter bearer, Fly, Figma user tokens, LaunchDarkly, Grafana, HubSpot, Atlassian, AWS session
tokens, Nostr ``nsec1``, Perplexity, Tavily, Cerebras, 1Password service accounts): its rules for
several of them want a keyword within a few characters, and some formats have no rule (the
engine's rule files were not audited one by one). A prefix alone is not enough here (``re_export``, ``secret_santa``, ``api-gateway``
are identifiers), so each rule also requires the body's documented alphabet and length, and a
random-looking body: a digit with a letter, or mixed case (:func:`memctl.scrub.detector.looks_random`),
after the prefix. A token must start at a word boundary.

Formats, as each vendor documents or issues them:

* Sentry org auth tokens ``sntrys_`` (base64 JSON, ``_``, 43 characters), user tokens ``sntryu_`` + 64 hex;
* Resend API keys ``re_`` + 8 + ``_`` + 24+ alphanumerics;
* Hugging Face organisation tokens ``api_org_`` + 34 letters;
* Figma personal/OAuth tokens ``figd_``/``figu_``/``figo_`` + 40+ of ``[A-Za-z0-9_-]``;
* Notion integration tokens ``ntn_`` + 11 digits + 35 alphanumerics, legacy ``secret_`` + 43;
* Neon database passwords ``npg_`` + 12+ alphanumerics, API keys ``napi_`` + 64;
* Tencent Cloud SecretId ``AKID`` + 32-36 alphanumerics;
* Mapbox secret ``sk.eyJ`` / temporary ``tk.eyJ`` tokens (JWT-like, two dots);
* NuGet API keys ``oy2`` + 43 lower-case alphanumerics;
* Twitter/X app bearer tokens: a run of 20+ ``A`` then 30+ URL-encoded base64 characters;
* AWS STS session tokens: base64 starting ``IQoJb3JpZ2luX2Vj`` (``\\x21\\n\\torigin_ec``) or
  ``FwoGZXIvYXdzE``/``FQoGZXIvYXdzE`` (older), 100+ characters;
* Fly.io tokens ``fo1_`` + 43, macaroons ``fm1r_``/``fm1a_``/``fm2_`` + base64 (comma-joined);
* Nostr private keys ``nsec1`` + 58 bech32 characters;
* LaunchDarkly ``api-``/``sdk-``/``mob-`` + a UUID;
* Perplexity ``pplx-`` + 48, Tavily ``tvly-`` + 32, Cerebras ``csk-`` + 48 alphanumerics;
* Atlassian API tokens ``ATATT3``/``ATCTT3`` + 180+ characters; Grafana service-account ``glsa_``
  and cloud ``glc_`` tokens; HubSpot private-app tokens ``pat-<region>-<uuid>``;
* 1Password service-account tokens ``ops_eyJ`` + base64url.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import ALNUM, Detector, Span, detector, looks_random

__all__ = ["VENDOR_PREFIX_DETECTORS", "VENDOR_PREFIX_RULES"]

_B64URL = r"[A-Za-z0-9_-]"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

# (kind, gate literal(s) in lower case, case-sensitive pattern starting with the prefix, prefix length)
VENDOR_PREFIX_RULES: tuple[tuple[str, str | tuple[str, ...], str, int], ...] = (
    ("sentry_token", ("sntrys_", "sntryu_"), r"sntrys_[A-Za-z0-9+/=_-]{60,}|sntryu_[a-f0-9]{64}", 7),
    ("resend_api_key", "re_", r"re_[A-Za-z0-9]{6,12}_[A-Za-z0-9]{16,40}", 3),
    ("huggingface_org_token", "api_org_", r"api_org_[A-Za-z]{30,40}", 8),
    ("figma_token", ("figd_", "figu_", "figo_"), r"fig[duo]_" + _B64URL + r"{38,64}", 5),
    ("notion_token", "ntn_", r"ntn_[0-9]{11}[A-Za-z0-9]{30,40}", 4),
    ("notion_token", "secret_", r"secret_[A-Za-z0-9]{43}", 7),
    ("neon_password", "npg_", r"npg_[A-Za-z0-9]{12,32}", 4),
    ("neon_api_key", "napi_", r"napi_[a-z0-9]{60,72}", 5),
    ("tencent_secret_id", "akid", r"AKID[A-Za-z0-9]{32,36}", 4),
    ("mapbox_secret_token", "k.eyj", r"[st]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", 3),
    ("nuget_api_key", "oy2", r"oy2[a-z0-9]{40,46}", 3),
    ("twitter_bearer_token", "aaaaaaaaaaaaaaaaaaaa", r"A{20,}[A-Za-z0-9%]{30,}", 0),
    ("aws_session_token", "iqojb3jpz2lux2vj", r"IQoJb3JpZ2luX2Vj[A-Za-z0-9+/]{80,}={0,2}", 0),
    ("aws_session_token", "zxivyxdze", r"F[wQ]oGZXIvYXdzE[A-Za-z0-9+/]{80,}={0,2}", 0),
    ("fly_token", "fo1_", r"fo1_" + _B64URL + r"{36,50}", 4),
    ("fly_token", ("fm1a_", "fm1r_", "fm2_"), r"fm(?:1[ar]|2)_[A-Za-z0-9+/=_-]{40,}(?:,fm(?:1[ar]|2)_[A-Za-z0-9+/=_-]{20,})*", 4),
    ("nostr_private_key", "nsec1", r"nsec1[02-9ac-hj-np-z]{58}", 0),
    ("launchdarkly_key", ("api-", "sdk-", "mob-"), r"(?:api|sdk|mob)-" + _UUID, 0),
    ("perplexity_api_key", "pplx-", r"pplx-[A-Za-z0-9]{40,56}", 5),
    ("tavily_api_key", "tvly-", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{28,40}", 5),
    ("cerebras_api_key", "csk-", r"csk-[a-z0-9]{40,56}|csk-[A-Za-z0-9]{40,56}", 4),
    ("atlassian_api_token", "att3", r"AT[AC]TT3x" + r"[A-Za-z0-9_=+/-]{100,}", 6),
    ("grafana_token", ("glsa_", "glc_"), r"glsa_[A-Za-z0-9]{32,36}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2}", 4),
    ("hubspot_token", "pat-", r"pat-(?:na|eu|ap)\d-" + _UUID, 8),
    ("onepassword_service_token", "ops_eyj", r"ops_eyJ[A-Za-z0-9_-]{60,}={0,2}", 4),
)

_COMPILED = tuple(
    (kind, (gate,) if isinstance(gate, str) else gate, re.compile(pattern), skip)
    for kind, gate, pattern, skip in VENDOR_PREFIX_RULES
)
_BOUNDARY = ALNUM | set("_-.+/")
_UUID_ONLY = re.compile(r"(?:api|sdk|mob)-" + _UUID)


def _random_body(kind: str, token: str, skip: int) -> bool:
    if _UUID_ONLY.fullmatch(token):
        return True  # a UUID is random by construction; the prefix and shape are the rule
    body = token[skip:]
    if kind == "twitter_bearer_token":
        body = body.lstrip("A")
    return looks_random(body.replace("_", "").replace("-", ""), min_len=12)


def _vendor_prefix_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    for kind, gate, pattern, skip in _COMPILED:
        if gates.isdisjoint(gate):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if start > 0 and text[start - 1] in _BOUNDARY:
                continue  # glued to a word: part of an identifier or a longer token
            if end < len(text) and text[end] in ALNUM:
                continue  # the body runs on past the format
            if _random_body(kind, match.group(0), skip):
                yield start, end, kind


_GATES = tuple(sorted({literal for _, gate, _, _ in _COMPILED for literal in gate}))

VENDOR_PREFIX_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",  # the declared kind; each finding carries its vendor kind
        finder=_vendor_prefix_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: vendor token prefixes with a random body (see memctl.scrub.vendor_prefixes)",
    ),
)
"""One finder for every prefix format in :data:`VENDOR_PREFIX_RULES`."""
