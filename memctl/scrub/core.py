"""Secret scrubbing for transcripts: replace credentials with ``[REDACTED:<kind>]``.

Every piece of session text passes through here before it is bounded, sampled,
persisted (``var/transcripts/``) or shown to a model. The same detector table
is reused by the staging validator (``find_secrets``), so "what counts as a
secret" is defined once.

The rules live in one module per job, each naming the sources of its formats:

* :mod:`memctl.scrub.private_key`: private keys in any wrapping (armoured
  blocks with numbered, diff, quoted, indented or escaped lines; base64 or
  hex of a key file; bare DER bodies);
* :mod:`memctl.scrub.token`: issued tokens by their documented prefix,
  length and alphabet;
* :mod:`memctl.scrub.http`: ``Authorization`` headers of every scheme,
  cookies, ``user:password@`` and DSN keys in URLs;
* :mod:`memctl.scrub.command`: credentials given to well-known clients'
  flags, piped to ``--password-stdin``, as login arguments, or set into
  secret stores; :mod:`memctl.scrub.command_args`: positional and
  Windows-style (``/p:``) ones, and values written into password files;
* :mod:`memctl.scrub.keyword`: values under credential-named keys in every
  quoting (env, YAML, TOML, JSON and escaped JSON, XML, netrc);
  :mod:`memctl.scrub.credential_key`: credential-shaped values under
  ``credentials``/``auth``/``salt``/signing/session names and signed-URL
  query parameters;
* :mod:`memctl.scrub.setup_output`: passwords setup tools generate and print,
  AWS CLI ``--output text`` values; :mod:`memctl.scrub.device_config`: network
  device configurations; :mod:`memctl.scrub.sql_values`: ``INSERT`` rows and
  encryption functions' keys;
* :mod:`memctl.scrub.recovery_codes`: two-factor recovery codes under their heading;
* :mod:`memctl.scrub.vendor_values`: vendor secrets with no prefix by their shape after the vendor's
  name, in any language; :mod:`memctl.scrub.payment_cards`: Luhn-valid card numbers after a card
  word; :mod:`memctl.scrub.byte_keys`: keys written as byte arrays; :mod:`memctl.scrub.marked_secrets`:
  CloudFormation ``NoEcho`` defaults and password-manager export fields;
* :mod:`memctl.scrub.labelled_values`: values set apart from their label by layout (parentheses, the next
  line, OCR spellings and splits); :mod:`memctl.scrub.embedded_secrets`: LoRaWAN keys, pysnmp and RADIUS
  secrets, Keychain items, Go byte-slice keys, CDATA, ``.htpasswd``, SSM output, IaC cookies;
* :mod:`memctl.scrub.public_values`: what is never reported (publishable keys,
  fingerprints, SOPS metadata, secret ARNs, documentation filler).

The detectors start from the maintained detect-secrets (Yelp) plugins: their
regexes are imported or re-expressed (free text needs spans and boundaries,
and detect-secrets picks keyword regexes by file extension), and tests feed
each plugin's own findings through :func:`scrub` to prove the coverage.

Markers are ``[REDACTED:<kind>]``; no detector matches a marker, and
:func:`scrub` repeats until nothing matches, so ``scrub(scrub(x)) == scrub(x)``.

Speed: the cost of a detector is mostly the scan of the text, so every regex
scanned over the whole text starts with a literal of two or more characters
(or one rare character), formats sharing a literal share a scan, and
case-insensitive rules are driven by literal gates searched in
``text.lower()``. ``bench/bench_scrub_corpus.py`` measures the cost per
session against an earlier version side by side.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from detect_secrets.plugins.slack import SlackDetector

from memctl.encodings import base64_bytes, printable_text
from memctl.scrub.byte_keys import BYTE_KEY_DETECTORS
from memctl.scrub.call_arguments import CALL_ARGUMENT_DETECTORS
from memctl.scrub.catalog import CATALOG_DETECTOR, without_placeholders
from memctl.scrub.code_literals import CODE_LITERAL_DETECTORS
from memctl.scrub.command import COMMAND_DETECTORS
from memctl.scrub.command_args import COMMAND_ARGUMENT_DETECTORS
from memctl.scrub.context_names import CONTEXT_NAME_DETECTORS
from memctl.scrub.credential_key import CREDENTIAL_KEY_DETECTORS
from memctl.scrub.declarations import DECLARATION_DETECTORS
from memctl.scrub.detector import HEX, Detector, detector, is_placeholder_word, underscored_body_random
from memctl.scrub.device_config import DEVICE_CONFIG_DETECTORS
from memctl.scrub.embedded_secrets import EMBEDDED_SECRET_DETECTORS
from memctl.scrub.encoded import encoded_secret_detector
from memctl.scrub.entropy import ENTROPY_DETECTORS
from memctl.scrub.false_values import not_a_secret
from memctl.scrub.fed_secrets import FED_SECRET_DETECTORS
from memctl.scrub.gates import HIT_WORDS, GateIndex
from memctl.scrub.http import HTTP_DETECTORS
from memctl.scrub.key_blobs import KEY_BLOB_DETECTORS
from memctl.scrub.key_material import KEY_MATERIAL_DETECTORS
from memctl.scrub.keyword import KEYWORD_DETECTORS
from memctl.scrub.labelled_values import LABELLED_VALUE_DETECTORS
from memctl.scrub.layouts import LAYOUT_DETECTORS
from memctl.scrub.marked_secrets import MARKED_SECRET_DETECTORS
from memctl.scrub.named_keys import NAMED_KEY_DETECTORS
from memctl.scrub.payment_cards import PAYMENT_CARD_DETECTORS
from memctl.scrub.positional_calls import POSITIONAL_CALL_DETECTORS
from memctl.scrub.printed_files import PRINTED_FILE_DETECTORS
from memctl.scrub.printed_tokens import PRINTED_TOKEN_DETECTORS
from memctl.scrub.private_key import PRIVATE_KEY_DETECTOR, key_may_start_before
from memctl.scrub.prose_backstop import PROSE_BACKSTOP_DETECTORS
from memctl.scrub.public_values import public_span
from memctl.scrub.recovery_codes import RECOVERY_CODE_DETECTORS
from memctl.scrub.secret_output import SECRET_OUTPUT_DETECTORS
from memctl.scrub.service_config import SERVICE_CONFIG_DETECTORS
from memctl.scrub.session_cookies import SESSION_COOKIE_DETECTORS
from memctl.scrub.setup_output import SETUP_OUTPUT_DETECTORS
from memctl.scrub.shared_keys import SHARED_KEY_DETECTORS
from memctl.scrub.sql_values import SQL_VALUE_DETECTORS
from memctl.scrub.statements import STATEMENT_DETECTORS
from memctl.scrub.token import TOKEN_DETECTORS
from memctl.scrub.vendor_prefixes import VENDOR_PREFIX_DETECTORS
from memctl.scrub.vendor_values import VENDOR_VALUE_DETECTORS
from memctl.scrub.webhook_paths import WEBHOOK_PATH_DETECTORS
from memctl.scrub.world_prose import WORLD_PROSE_DETECTORS

__all__ = [
    "DETECTORS",
    "MARKER_PATTERN",
    "Detector",
    "ScrubResult",
    "find_secrets",
    "multiline_secret_before",
    "redaction_marker",
    "scrub",
    "scrub_texts",
]

MARKER_PATTERN = re.compile(r"\[REDACTED:[a-z0-9_]+\]")
"""Matches any redaction marker this module writes."""

# Field separator used by :func:`scrub_texts`; no detector can match across it
# (every negated character class excludes it, and inputs have it removed).
_FIELD_SEPARATOR = "\x00"
_MAX_PASSES = 5


def multiline_secret_before(text: str, end: int) -> bool:
    """True when a secret whose later lines carry no marker (a private key in any
    layout) may start in ``text[:end]``. A caller that scrubs only windows of a
    long text must then scrub the whole text (see :mod:`memctl.ingest.transcript`)."""
    return key_may_start_before(text, end)


def redaction_marker(kind: str) -> str:
    """Return the marker that replaces a secret of ``kind``, e.g. ``[REDACTED:jwt]``."""
    return f"[REDACTED:{kind}]"


def _accept_aws_secret(match: re.Match[str]) -> bool:
    value = match.group("value")
    # A 40-hex git SHA next to the word "aws … key" is not a secret key.
    if all(c in HEX for c in value) or value.endswith("EXAMPLEKEY"):
        return False  # AWS's documented example secret key ends in EXAMPLEKEY
    return (any(c.isupper() for c in value) and any(c.islower() for c in value)) or "/" in value or "+" in value


def _accept_jwt(match: re.Match[str]) -> bool:
    # Lenient version of detect-secrets' JwtTokenDetector.is_formally_valid: the
    # header must decode to a JSON object; the payload and signature may be cut.
    header = printable_text(base64_bytes(match.group("header")))
    try:
        return header is not None and isinstance(json.loads(header), dict)
    except ValueError:
        return False


def _build_detectors() -> tuple[Detector, ...]:
    ds_slack_webhook = SlackDetector.denylist[1].pattern
    return (
        # Multi-line blocks first: they contain base64 that other detectors could partly match.
        PRIVATE_KEY_DETECTOR,
        *KEY_MATERIAL_DETECTORS,
        *BYTE_KEY_DETECTORS,  # before the key-name rules, which would read "bytes([0x7d" as a value
        # A base64 run holding a secret goes whole, before any rule sees part of it.
        encoded_secret_detector(lambda text: find_secrets(text)),
        detector(
            "slack_webhook", ds_slack_webhook, origin="detect-secrets:SlackDetector", requires=("hooks.slack.com",)
        ),
        *without_placeholders(TOKEN_DETECTORS),  # ``ghp_xxxx…``, ``AKIAXXXX…`` are documentation
        # Covers detect-secrets' StripeDetector ((?:r|s)k_live_…{24}, checked in
        # tests) and test-mode keys; gated on "k_live_"/"k_test_" because a
        # leading [sr] defeats the regex prefix search.
        detector(
            "stripe_key",
            r"[sr]k_(?:live|test)_[0-9A-Za-z_]{10,}",
            accept=lambda match: underscored_body_random(match.group(0), 8),
            anchors=(r"k_(?:live|test)_",),
            anchor_back=1,
            requires=("k_live_", "k_test_"),
            origin="detect-secrets:StripeDetector (extended)",
        ),
        # detect-secrets' AWS secret regex (aws … key … '<40 chars>'), also
        # unquoted (.env: AWS_SECRET_ACCESS_KEY=…).
        detector(
            "aws_secret_key",
            r"aws[^\n\x00]{0,20}?(?:key|pwd|pw|password|pass|token|secret)[^\n\x00]{0,20}?"
            r"[\"'=:\s](?P<value>[0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+=])",
            flags=re.IGNORECASE,
            group="value",
            anchors=("aws",),
            requires=("aws",),
            accept=_accept_aws_secret,
            origin="detect-secrets:AWSKeyDetector (extended)",
        ),
        *HTTP_DETECTORS,
        # JSON Web Tokens (detect-secrets' JwtTokenDetector shape; the header
        # must decode to JSON, the signature may be missing or cut).
        detector(
            "jwt",
            r"(?P<header>eyJ[A-Za-z0-9_-]{4,}=*)\.[A-Za-z0-9_-]{4,}=*(?:\.[A-Za-z0-9_+/-]*=*)?",
            accept=_accept_jwt,
            requires=("eyj",),
            origin="detect-secrets:JwtTokenDetector (extended)",
        ),
        *COMMAND_DETECTORS,
        *COMMAND_ARGUMENT_DETECTORS,
        # Vendor tokens of the maintained catalog (memctl.scrub.catalog): before the key-name rules,
        # so a token under ``API_TOKEN=`` is named by its issuer; the rules above win on overlap.
        CATALOG_DETECTOR,
        *VENDOR_PREFIX_DETECTORS,  # prefix tokens the catalog wants a vendor word for
        *KEYWORD_DETECTORS,
        *CREDENTIAL_KEY_DETECTORS,
        # Context the rules above do not read: other languages and formats, statements, prose.
        *CONTEXT_NAME_DETECTORS,
        *STATEMENT_DETECTORS,
        *SETUP_OUTPUT_DETECTORS,
        *DEVICE_CONFIG_DETECTORS,
        *SQL_VALUE_DETECTORS,
        *LAYOUT_DETECTORS,
        *POSITIONAL_CALL_DETECTORS,
        *PRINTED_TOKEN_DETECTORS,
        *CALL_ARGUMENT_DETECTORS,
        *DECLARATION_DETECTORS,
        *KEY_BLOB_DETECTORS,
        *SECRET_OUTPUT_DETECTORS,
        *WEBHOOK_PATH_DETECTORS,
        *SESSION_COOKIE_DETECTORS,
        *FED_SECRET_DETECTORS,
        *SHARED_KEY_DETECTORS,
        *RECOVERY_CODE_DETECTORS,
        *VENDOR_VALUE_DETECTORS,  # vendor secrets with no prefix, by shape after the vendor's name
        *PAYMENT_CARD_DETECTORS,
        *MARKED_SECRET_DETECTORS,
        *WORLD_PROSE_DETECTORS,
        *PRINTED_FILE_DETECTORS,
        *NAMED_KEY_DETECTORS,
        *SERVICE_CONFIG_DETECTORS,
        *CODE_LITERAL_DETECTORS,  # held-out round 6: other languages, labels, misspelt keys
        *EMBEDDED_SECRET_DETECTORS,  # held-out round 7: device, platform and file formats
        *LABELLED_VALUE_DETECTORS,  # held-out round 7: labels in parentheses, on the line before, OCR
        *PROSE_BACKSTOP_DETECTORS,  # secret-shaped values next to a credential word of any language
        # Last: a random-looking run next to a credential word that no rule above explained.
        *ENTROPY_DETECTORS,
    )


DETECTORS: tuple[Detector, ...] = _build_detectors()
"""All detectors, in priority order: when two matches overlap, the earlier
detector wins (a GitHub token in ``export GITHUB_TOKEN=ghp_…`` is a
``github_token``, not a generic ``secret``), unless the later match strictly
contains the earlier ones (an ``Authorization: AWS4-HMAC-SHA256`` parameter
list holding an access key id is redacted whole)."""

# Every literal, the hit words included: the one scan says which are present, and only rules
# whose word is present walk its hits (:func:`memctl.scrub.gates.positions`, found on first use).
_GATES = GateIndex({*(literal for d in DETECTORS for literal in d.requires + d.literals), *HIT_WORDS})

# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class ScrubResult:
    """Output of :func:`scrub`.

    Attributes:
        text: the input with every secret replaced by ``[REDACTED:<kind>]``.
        counts: number of replacements per kind (absent kinds are omitted).
    """

    text: str
    counts: dict[str, int] = field(default_factory=dict)


def find_secrets(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Find secrets in ``text`` without changing it.

    Returns ``[(kind, (start, end)), …]`` sorted by ``start``: character
    offsets into ``text``, non-overlapping. On overlap the detector that comes
    first in :data:`DETECTORS` wins, unless the later span strictly contains
    every span it overlaps (then it replaces them: the whole secret goes).
    Markers already in the text are never reported, nor values public by design or
    documentation filler (:func:`memctl.scrub.public_values.public_span`). Never raises on any ``str``.
    """
    if not text:
        return []
    lowered = _lowered(text)
    # Which rules can match at all: one pass for every declared literal.
    haystack = lowered if lowered is not None else text.lower()
    gates = _GATES.present(haystack)
    starts: list[int] = []
    accepted: list[tuple[int, int, str]] = []
    for candidate in DETECTORS:
        for start, end, kind in candidate.spans(text, lowered, gates):
            first = bisect_left(starts, start)
            if first > 0 and accepted[first - 1][1] > start:
                continue  # starts inside an earlier span
            if public_span(text, start, end, kind):
                continue  # publishable keys, fingerprints, SOPS metadata, ARNs, filler
            if not_a_secret(text, start, end, kind):
                continue  # a type name, an elided documentation value, a tool's status line
            if is_placeholder_word(text[start:end]):
                continue  # a JSON null/true or REPLACE_ME a rule took with its comma: not a secret, keep the text
            last = bisect_right(starts, end - 1)
            if last > first:
                # Overlaps spans starting inside it: replace them only when it contains them all.
                if accepted[last - 1][1] > end or (
                    last - first == 1 and accepted[first][:2] == (start, end)
                ):
                    continue
                del starts[first:last]
                del accepted[first:last]
            starts.insert(first, start)
            accepted.insert(first, (start, end, kind))
    return [(kind, (start, end)) for start, end, kind in accepted]


def _lowered(text: str) -> str | None:
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def _apply(text: str, findings: list[tuple[str, tuple[int, int]]], counts: dict[str, int]) -> str:
    pieces: list[str] = []
    last = 0
    for kind, (start, end) in findings:
        pieces.append(text[last:start])
        pieces.append(redaction_marker(kind))
        counts[kind] = counts.get(kind, 0) + 1
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def scrub(text: str) -> ScrubResult:
    """Replace every secret in ``text`` with ``[REDACTED:<kind>]``.

    Kinds: ``private_key`` (the whole block, whatever its wrapping),
    ``url_credentials`` (only the ``user:pass`` or key of a URL; scheme and
    host stay), ``bearer_token`` (the credential of an Authorization header),
    ``cookie`` (cookie values; names stay), ``jwt``, ``aws_secret_key``,
    ``stripe_key``, ``slack_webhook``, the issued-token kinds of
    :mod:`memctl.scrub.token` (``github_token``, ``openai_key``…), and
    ``password`` / ``secret`` for values under credential-named keys and on
    command lines (the value only; the key name or flag stays). A secret
    found inside a base64 carrier is reported with its own kind.

    Repeats detection until nothing matches (at most a few passes), so the
    result is idempotent: ``scrub(scrub(x).text).text == scrub(x).text``.
    Text without secrets is returned unchanged (same object). Never raises.
    """
    counts: dict[str, int] = {}
    for _ in range(_MAX_PASSES):
        findings = find_secrets(text)
        if not findings:
            break
        text = _apply(text, findings, counts)
    return ScrubResult(text=text, counts=counts)


def scrub_texts(texts: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    """Scrub many short strings in one pass; return ``(scrubbed, counts)``.

    Equivalent to calling :func:`scrub` on each string (a secret never spans
    two strings), but the per-call cost of ~30 regex scans is paid once: the
    strings are joined with NUL, which no detector can match across. A NUL
    inside an input is replaced by U+FFFD first (it has no place in a
    transcript). The output list has the same length and order as ``texts``.
    """
    if not texts:
        return [], {}
    cleaned = [t.replace(_FIELD_SEPARATOR, "\ufffd") if _FIELD_SEPARATOR in t else t for t in texts]
    joined = _FIELD_SEPARATOR.join(cleaned)
    result = scrub(joined)
    parts = result.text.split(_FIELD_SEPARATOR)
    if len(parts) == len(cleaned):
        return parts, result.counts
    # Defensive: should be unreachable (no pattern matches NUL); scrub one by one.
    counts: dict[str, int] = {}
    out: list[str] = []
    for text in cleaned:
        single = scrub(text)
        out.append(single.text)
        for kind, n in single.counts.items():
            counts[kind] = counts.get(kind, 0) + n
    return out, counts
