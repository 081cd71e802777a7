"""Issued tokens recognised by their format: prefix, length and alphabet as the issuer documents them.

Each format matches what the issuer guarantees, not what most samples look
like: a Hugging Face token of letters only is still ``hf_`` + 30+ letters and
digits, so no "must contain a digit" rule applies to prefixed formats. Only
the bare ``sk-`` shape (shared by several providers, and by prose such as
``sk-learn``) keeps a shape check.

Scanning the text, not matching, is what a format costs, so formats that
share a literal start share one scan (a ``group``): a literal of two or more
characters, or one rare character (upper case, ``x``).

======================  ==========================================================================
kind                    format (source)
======================  ==========================================================================
github_token            ``gh[pousr]_`` + 36+, ``github_pat_`` + 22+ (detect-secrets GitHubTokenDetector;
                        GitHub docs, "About authentication to GitHub")
gitlab_token            ``glpat-``, ``gldt-``, ``glft-``, ``glsoat-``, ``glrt-``, ``glcbt-``, ``glimt-``,
                        ``glptt-``, ``glagent-``, ``gloas-``, ``GR1348941`` (detect-secrets GitLabTokenDetector)
grafana_token           ``glsa_`` + 32 + ``_`` + 8 hex, ``glc_`` + base64 (Grafana service account / Cloud tokens)
google_oauth_secret     ``GOCSPX-`` + 28 (Google OAuth client secrets)
anthropic_key           ``sk-ant-`` (Anthropic console keys: ``sk-ant-api03-``, ``sk-ant-admin01-``)
openai_key              ``sk-proj-``, ``sk-svcacct-``, ``sk-admin-``, ``sk-None-``, OpenRouter ``sk-or-v1-``, legacy
                        ``sk-…T3BlbkFJ…`` (detect-secrets OpenAIDetector; OpenAI API key formats)
slack_token             ``xoxb-``, ``xoxp-``, ``xoxa-``, ``xoxo-``, ``xoxs-``, ``xoxr-``, ``xoxe-``, ``xapp-N-``
                        (detect-secrets SlackDetector; Slack token types)
xai_key                 ``xai-`` + 80 (xAI console keys)
brevo_key               ``xkeysib-`` + 64 hex + ``-`` + 16 (Brevo/Sendinblue API v3 keys)
npm_token               ``npm_`` + 36 (npm access tokens)
huggingface_token       ``hf_`` + 30+ (Hugging Face user access tokens)
vault_token             ``hvs.``, ``hvb.``, ``hvr.`` + 24+ (HashiCorp Vault token prefixes, 1.10+)
pypi_token              ``pypi-AgEIcHlwaS5vcmc…``, ``pypi-AgENdGVzdC5weXBpLm9yZw…`` (detect-secrets PypiTokenDetector)
google_api_key          ``AIza`` + 35 (Google API keys)
aws_access_key          ``AKIA``, ``ASIA``, ``ABIA``, ``ACCA``, ``A3T.`` + 16 (detect-secrets AWSKeyDetector)
age_secret_key          ``AGE-SECRET-KEY-1`` + 58 bech32 (C2SP age specification)
atlassian_token         ``ATATT3`` + 150+ (Atlassian API tokens), ``ATBB`` + 32 (Bitbucket app passwords)
artifactory_token       ``AKCp`` + 60+ (detect-secrets ArtifactoryDetector; JFrog API keys)
firebase_key            ``AAAA`` + 7 + ``:APA91b`` + 100+ (Firebase Cloud Messaging legacy server keys)
sendgrid_key            ``SG.`` + 22 + ``.`` + 43 (detect-secrets SendGridDetector)
twilio_key              ``SK`` + 32 hex (detect-secrets TwilioKeyDetector, API key SIDs)
webhook_secret          ``whsec_`` + 24+ base64 (Stripe and Svix webhook signing secrets)
digitalocean_token      ``dop_v1_``, ``doo_v1_``, ``dor_v1_`` + 64 hex (DigitalOcean tokens)
shopify_token           ``shpat_``, ``shpss_``, ``shpca_``, ``shppa_`` + 32 hex (Shopify app tokens)
linear_key              ``lin_api_`` + 32+ (Linear personal API keys)
groq_key                ``gsk_`` + 40+ (GroqCloud API keys)
mailgun_key             ``key-`` + 32 hex (Mailgun private API keys)
square_token            ``sq0atp-`` + 22+, ``sq0csp-`` + 43 (Square access tokens, OAuth secrets)
pulumi_token            ``pul-`` + 40 hex (Pulumi access tokens)
tailscale_key           ``tskey-[kind-]ID-`` + 20+ (Tailscale auth, API and OAuth keys)
google_oauth_token      ``ya29.`` + 20+ access tokens, ``1//0`` + 30+ refresh tokens (Google OAuth 2.0
                        token strings as the Google token endpoint and ``gcloud auth print-access-token`` print them)
private_key             a minisign secret key's base64 line alone (``RWRTY0Iy``: Ed25519, scrypt, BLAKE2b;
                        ``RWQAAEIy`` unencrypted; 212 characters), e.g. ``tail -1 minisign.key`` (minisign
                        key file format, jedisct1/minisign); the 56-character public key stays
doppler_token           ``dp.st.``, ``dp.pt.``, ``dp.sa.``, ``dp.ct.`` [+ config ``.``] + 30+ (Doppler tokens)
discord_bot_token       base64 of a numeric id ``.`` 6 ``.`` 27+ (Discord bot tokens)
======================  ==========================================================================

The formats of the second block are rare in text, so each is looked for only
when its literal is in the text (a substring test costs a fraction of a regex
scan); a Discord token has no literal prefix: it is found from its dot-led
middle and its first part must be the base64 of a decimal id.

Stripe keys (``sk_live_``…), AWS secret keys, JWTs and Slack webhooks are
in :mod:`memctl.scrub.core`'s table, Telegram bot tokens in :mod:`memctl.scrub.http`; tokens of other services are caught by the
credential-named key, flag or header they are given under
(:mod:`memctl.scrub.keyword`, :mod:`memctl.scrub.command`, :mod:`memctl.scrub.http`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memctl.encodings import base64_bytes
from memctl.scrub.detector import (
    WORD_CHARS,
    Detector,
    Span,
    detector,
    has_digit_and_letter,
    left_boundary,
    looks_random,
    underscored_body_random,
)

__all__ = ["RARE_TOKEN_FORMATS", "TOKEN_DETECTORS", "TOKEN_FORMATS", "TokenFormat"]


@dataclass(frozen=True, slots=True)
class TokenFormat:
    """One issued-token format.

    Attributes:
        kind: marker kind.
        group: the literal the pattern starts with that formats scanned together
            share (a scan costs about the same whatever it looks for, so
            formats are grouped on a literal of two or more characters, or one
            rare character: upper case, ``x``).
        pattern: regex starting with ``group``.
        accept: optional check on the whole matched token.
        gates: lowercase literals of which every token holds one, when they
            are cheaper to look for than ``group`` (they hold a rare
            punctuation character: :mod:`memctl.scrub.gates`); empty:
            the group's scan decides.
    """

    kind: str
    group: str
    pattern: str
    accept: Callable[[str], bool] | None = None
    gates: tuple[str, ...] = ()


def _bare_sk_key(token: str) -> bool:
    """``sk-`` with no provider infix: the legacy OpenAI shape (``T3BlbkFJ`` inside) or a random body."""
    if token.startswith(("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-", "sk-ant-", "sk-or-")):
        return True
    body = token[3:]
    # Letters only is still a key when random-looking (mixed case, not hyphen-joined words like sk-learn-…).
    return "T3BlbkFJ" in token or has_digit_and_letter(body) or ("-" not in body and looks_random(body, min_len=20))


_B = "(?![A-Za-z0-9_])"  # right boundary of a fixed-length token
_BH = "(?![A-Za-z0-9_-])"

TOKEN_FORMATS: tuple[TokenFormat, ...] = (
    TokenFormat("github_token", "gh", r"gh[pousr]_[A-Za-z0-9_]{36,255}" + _B, gates=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    TokenFormat("github_token", "github_pat_", r"github_pat_[A-Za-z0-9_]{22,255}", gates=("github_pat_",)),
    TokenFormat(
        "gitlab_token",
        "gl",
        r"gl(?:(?:pat|dt|ft|soat|rt)-[A-Za-z0-9_\-]{20,50}|cbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}"
        r"|imt-[A-Za-z0-9_\-]{25}|ptt-[A-Za-z0-9_\-]{40}|agent-[A-Za-z0-9_\-]{50,1024}"
        r"|oas-[A-Za-z0-9_\-]{64})(?!\w)",
        gates=("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-"),
    ),
    TokenFormat("grafana_token", "gl", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _B, gates=("glsa_",)),
    TokenFormat("grafana_token", "gl", r"glc_[A-Za-z0-9+/]{32,400}={0,2}", gates=("glc_",)),
    TokenFormat("gitlab_token", "G", r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)", gates=("gr1348941",)),
    TokenFormat("google_oauth_secret", "G", r"GOCSPX-[A-Za-z0-9_-]{28}" + _BH, gates=("gocspx-",)),
    TokenFormat("anthropic_key", "sk", r"sk-ant-[A-Za-z0-9_-]{20,}", gates=("sk-",)),
    TokenFormat("openai_key", "sk", r"sk-(?:proj-|svcacct-|admin-|None-|or-v1-)?[A-Za-z0-9_-]{20,}", _bare_sk_key, ("sk-",)),
    TokenFormat("slack_token", "x", r"x(?:ox[abposre]|app-\d)-[A-Za-z0-9-]{10,}",
                gates=tuple(f"xox{c}-" for c in "abposre") + ("xapp-",)),
    TokenFormat("xai_key", "x", r"xai-[A-Za-z0-9]{80}" + _B, gates=("xai-",)),
    TokenFormat("brevo_key", "x", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _B, gates=("xkeysib-",)),
    TokenFormat("npm_token", "npm_", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", gates=("npm_",)),
    TokenFormat("huggingface_token", "hf_", r"hf_[A-Za-z0-9_]{30,}(?![A-Za-z0-9_])",
                lambda token: underscored_body_random(token, 3), gates=("hf_",)),
    TokenFormat("vault_token", "hv", r"hv[sbr]\.[A-Za-z0-9_-]{24,}", gates=("hvs.", "hvb.", "hvr.")),
    TokenFormat("pypi_token", "pypi-", r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9-_]{70,}", gates=("pypi-",)),
    TokenFormat("google_api_key", "A", r"AIza[0-9A-Za-z_-]{35}" + _BH, gates=("aiza",)),
    TokenFormat("aws_access_key", "A", r"A(?:3T[A-Z0-9]|BIA|CCA|KIA|SIA)[0-9A-Z]{16}(?![0-9A-Z])",
                gates=("a3t", "abia", "acca", "akia", "asia")),
    TokenFormat("age_secret_key", "A", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", gates=("age-secret-key-1",)),
    TokenFormat("atlassian_token", "A", r"ATATT3[A-Za-z0-9_\-=]{150,}", gates=("atatt3",)),
    TokenFormat("atlassian_token", "A", r"ATBB[A-Za-z0-9_=.-]{32}" + _BH, gates=("atbb",)),
    TokenFormat("artifactory_token", "A", r"AKCp[A-Za-z0-9]{60,}", gates=("akcp",)),
    TokenFormat("firebase_key", "A", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", gates=(":apa91b",)),
    TokenFormat("sendgrid_key", "S", r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}[A-Za-z0-9_-]*", gates=("sg.",)),
    TokenFormat("twilio_key", "S", r"SK[0-9a-fA-F]{32}" + _B, gates=("sk",)),
    # gated: the one gate scan (memctl.scrub.gates) says whether a literal is present, at no scan of its own
    TokenFormat("private_key", "RW", r"RW(?:RTY0Iy|QAAEIy)[A-Za-z0-9+/]{200,}={0,2}", gates=("rwrty0iy", "rwqaaeiy")),
)
"""Every prefixed format; formats with the same ``group`` prefix share one scan."""

# A token glued to a preceding word character is part of a longer identifier.
_LEFT = WORD_CHARS


def _group_detector(prefix: str, formats: list[TokenFormat]) -> Detector:
    names = [f"t{i}" for i in range(len(formats))]
    body = "|".join(f"(?P<{name}>{fmt.pattern[len(prefix):]})" for name, fmt in zip(names, formats))
    pattern = re.compile(re.escape(prefix) + "(?:" + body + ")")
    by_group = dict(zip(names, formats))

    def accept(match: re.Match[str]) -> bool:
        if not left_boundary(match.string, match.start(), _LEFT):
            return False
        fmt = by_group[str(match.lastgroup)]
        return fmt.accept is None or fmt.accept(match.group(0))

    gated = all(fmt.gates for fmt in formats)
    return detector(
        formats[0].kind,
        pattern,
        accept=accept,
        requires=tuple(gate for fmt in formats for gate in fmt.gates) if gated else (),
        kind_groups=tuple((name, fmt.kind) for name, fmt in zip(names, formats)),
        origin="issuer token formats (see memctl.scrub.token)",
    )


def _grouped() -> tuple[Detector, ...]:
    groups: dict[str, list[TokenFormat]] = {}
    for fmt in TOKEN_FORMATS:
        assert fmt.pattern.startswith(fmt.group), fmt.pattern
        groups.setdefault(fmt.group, []).append(fmt)
    return tuple(_group_detector(prefix, formats) for prefix, formats in groups.items())


def _discord_id(token: str) -> bool:
    """The first part of a Discord bot token is the base64 of the bot's numeric id."""
    decoded = base64_bytes(token.split(".", 1)[0])
    return decoded is not None and decoded.isdigit()


RARE_TOKEN_FORMATS: tuple[TokenFormat, ...] = (
    TokenFormat("webhook_secret", "whsec_", r"whsec_[A-Za-z0-9+/]{24,}={0,2}", gates=("whsec_",)),
    TokenFormat("digitalocean_token", "_v1_", r"do[opr]_v1_[a-f0-9]{64}" + _B, gates=("_v1_",)),
    TokenFormat("shopify_token", "shp", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _B,
                gates=("shpat_", "shpss_", "shpca_", "shppa_")),
    TokenFormat("linear_key", "lin_api_", r"lin_api_[A-Za-z0-9]{32,}" + _B, gates=("lin_api_",)),
    TokenFormat("groq_key", "gsk_", r"gsk_[A-Za-z0-9]{40,}" + _B, gates=("gsk_",)),
    TokenFormat("mailgun_key", "key-", r"key-[0-9a-f]{32}" + _B, gates=("key-",)),
    TokenFormat("square_token", "sq0", r"sq0(?:atp-[A-Za-z0-9_-]{22,}|csp-[A-Za-z0-9_-]{43,})", gates=("sq0atp-", "sq0csp-")),
    TokenFormat("pulumi_token", "pul-", r"pul-[a-f0-9]{40}" + _B, gates=("pul-",)),
    TokenFormat("tailscale_key", "tskey-", r"tskey-(?:[a-z]+-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}", gates=("tskey-",)),
    TokenFormat("google_oauth_token", "ya29.", r"ya29\.[A-Za-z0-9_-]{20,}", gates=("ya29.",)),
    TokenFormat("google_oauth_token", "1//0", r"1//0[A-Za-z0-9_-]{30,}", gates=("1//0",)),
    TokenFormat("doppler_token", "dp.", r"dp\.(?:st|pt|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{30,}", gates=("dp.",)),
)
"""Formats looked for only when one of their ``gates`` is in the text."""
_RARE_PATTERNS = tuple((fmt, re.compile(fmt.pattern)) for fmt in RARE_TOKEN_FORMATS)


# A Discord bot token: base64 of the id, a 6-character timestamp, an HMAC. Found
# from its dot-led middle (a one-character literal scans fast), then the id is
# read backwards.
_DISCORD_TAIL = re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}" + _BH)
_DISCORD_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _discord_spans(text: str) -> Iterator[Span]:
    for tail in _DISCORD_TAIL.finditer(text):
        start = tail.start()
        while start > 0 and text[start - 1] in _DISCORD_ID_CHARS and tail.start() - start <= 28:
            start -= 1
        if 22 <= tail.start() - start <= 28 and text[start] in "MNO" and _discord_id(text[start : tail.end()]):
            if left_boundary(text, start, _LEFT):
                yield start, tail.end(), "discord_bot_token"


def _rare_token_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    del lowered
    yield from _discord_spans(text)
    for fmt, pattern in _RARE_PATTERNS:
        if gates.isdisjoint(fmt.gates):
            continue
        for match in pattern.finditer(text):
            if left_boundary(text, match.start(), _LEFT) and (fmt.accept is None or fmt.accept(match.group(0))):
                yield match.start(), match.end(), fmt.kind


TOKEN_DETECTORS: tuple[Detector, ...] = (
    *_grouped(),
    detector("secret", finder=_rare_token_spans, origin="issuer token formats (see memctl.scrub.token)",
             literals=tuple(gate for fmt in RARE_TOKEN_FORMATS for gate in fmt.gates)),
)
"""One detector per group of prefixed formats, and one for the rare formats."""
