"""Values that look like credentials but are public by design, or documentation filler.

:func:`memctl.scrub.core.find_secrets` asks :func:`public_span` about every span a detector
reports, whatever the detector: a key-name rule, the catalog engine, a token format or the
entropy backstop may each see the same public value, so the exception is made once, here.

Public by design (each issuer documents the value as safe to publish):

* Stripe publishable keys ``pk_live_…``/``pk_test_…`` ("Publishable keys … can be publicly
  accessible in your web or mobile app's client-side code", Stripe docs, API keys);
* Mapbox public tokens ``pk.eyJ…`` (Mapbox docs, Access tokens: "public tokens" start with
  ``pk``; secret ones with ``sk``, and they stay secrets);
* SSH key fingerprints ``SHA256:<base64>``/``MD5:…`` as ``ssh-keygen -l`` and ``ssh`` print them
  (a hash of a public key);
* SOPS ``ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`` values (getsops.io: the file is encrypted
  to keys that are not in it, and is meant to be committed);
* AWS Secrets Manager and SSM Parameter Store ARNs (``arn:aws:secretsmanager:…:secret:name-AbCdEf``):
  the name of a secret, not the secret.

Documentation filler: a single token (no whitespace) that
:func:`memctl.scrub.catalog.is_catalog_placeholder` calls a placeholder (``sk_live_xxxx…``,
``ghp_********…``, ``<your-token>``), its ``…EXAMPLE`` rule only for AWS's documented example keys. A whole private-key block is never filler (a real key
pasted with ``......`` for the cut part is still a key).
"""

from __future__ import annotations

import re

from memctl.scrub.catalog import is_catalog_placeholder

__all__ = ["public_span"]

_PUBLISHABLE = ("pk_live_", "pk_test_")
_FINGERPRINT_TAGS = ("SHA256:", "SHA384:", "SHA512:", "SHA1:", "MD5:")
# The span sits inside a SOPS value or an ARN that starts on the same line before it.
# (The span may also start at a field's name, right after a comma: "data:…" taken whole by a label rule.)
_SOPS_OPEN = re.compile(r"ENC\[[A-Z0-9_]+,(?:[a-z]+:[^,\]\s]*,)*(?:[a-z]+:[^,\]\s]*)?$")
_ARN_OPEN = re.compile(r"arn:aws[\w-]*:(?:secretsmanager|ssm):[\w-]*:\d{12}:(?:secret:|parameter/)[^\s\"'`]*$")
_MAX_FILLER = 256
_AWS_EXAMPLE = re.compile(r"(?:AKIA|ASIA|AIDA|AROA)[A-Z0-9]{8,16}EXAMPLE|[A-Za-z0-9/+]{20,40}EXAMPLEKEY")
_LOOK_BACK = 400


def public_span(text: str, start: int, end: int, kind: str) -> bool:
    """True when ``text[start:end]`` (a detector's span of ``kind``) is a public value or
    filler, per the module docstring. Offsets are character offsets. Never raises."""
    value = text[start:end]
    if kind == "private_key":
        return False
    if value.startswith(_PUBLISHABLE) or value.startswith("pk.eyJ"):
        return True
    before = text[max(0, start - _LOOK_BACK) : start]
    if before.endswith(_PUBLISHABLE) or (before.endswith("pk.") and value.startswith("eyJ")):
        return True
    if before.endswith(_FINGERPRINT_TAGS):
        return True
    if len(value) <= _MAX_FILLER and not any(c.isspace() for c in value) and is_catalog_placeholder(value):
        stripped = value.strip("'\"` ")
        # The EXAMPLE suffix is AWS's documented key convention only: a webhook or token that merely ends in
        # EXAMPLE is still masked (a fixture's planted Slack webhook leaked through this rule).
        if not stripped.endswith(("EXAMPLE", "EXAMPLEKEY")) or _AWS_EXAMPLE.fullmatch(stripped):
            return True
    line = before[before.rfind("\n") + 1 :]
    if "ENC[" in line and _SOPS_OPEN.search(line) is not None:
        return True
    return "arn:aws" in line and _ARN_OPEN.search(line) is not None
