"""Key material in encodings the PEM and key-material rules do not read.

* Solana keypair files (``solana-keygen new``, ``~/.config/solana/id.json``): a JSON array of 64
  integers 0-255 (the 32-byte seed and the public key), also 32 for a bare seed, when a key word
  (``keypair``, ``secret``, ``private``, ``wallet``, ``solana``, ``id.json``, ``Uint8Array``,
  ``signer``, ``seed``) precedes it within 300 characters;
* base64 of a PEM private key, as Kubernetes ``Secret`` data holds it (``tls.key: LS0tLS1CRUdJTi…``):
  a run starting ``LS0tLS1CRUdJTi`` (``-----BEGIN``) whose decoded head names a private key,
  line-wrapped continuations included; a certificate (``tls.crt``) stays;
* base64 of a Java keystore: JKS (magic ``0xFEEDFEED``, base64 ``/u3+7Q``) and JCEKS
  (``0xCECECECE``, ``zs7Ozg``); PKCS#12 (``MII…``) under a name ending ``.p12``/``.pfx``/``.jks``/``keystore``;
* TOTP seeds shown for manual entry by an authenticator setup ("Enter this key instead:",
  "setup key", "Can't scan?", "secret key", "2FA secret"…): base32, possibly in groups of four
  separated by spaces, 16+ characters with a digit 2-7.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector

__all__ = ["KEY_BLOB_DETECTORS"]

_BYTE_ARRAY = re.compile(r"\[[ \t\r\n]*(?:\d{1,3}[ \t\r\n]*,[ \t\r\n]*){31,63}\d{1,3}[ \t\r\n]*\]")
_ARRAY_CONTEXT = ("keypair", "secret", "private", "wallet", "solana", "id.json", "uint8array", "signer", "seed")
_PEM64 = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}(?:(?:\\n|\r?\n)[ \t]*[A-Za-z0-9+/]{16,}={0,2})*")
_KEYSTORE64 = re.compile(r"(?:/u3\+7Q|zs7Ozg)[A-Za-z0-9+/]{20,}={0,2}(?:(?:\\n|\r?\n)[ \t]*[A-Za-z0-9+/]{16,}={0,2})*")
_PKCS12 = re.compile(
    r"(?i:[\w.-]*(?:\.p12|\.pfx|\.jks|keystore))[\"']?[ \t]*[:=][ \t]*[\"']?(?P<value>MII[A-Za-z0-9+/]{40,}={0,2})"
)
_TOTP_PHRASES = (
    "enter this key", "enter this code", "setup key", "set-up key", "can't scan", "cant scan", "cannot scan",
    "unable to scan", "manual entry", "manually enter", "enter manually", "enter it manually", "secret key",
    "2fa secret", "mfa secret", "totp secret", "otp secret", "two-factor secret", "authenticator secret", "2fa key",
    "mfa key", "totp key", "totp seed", "otp seed", "authenticator key",
)
_TOTP_REST = re.compile(r"[^\n\x00]{0,60}?[:\n][ \t]*\n?[ \t]*")
_BASE32_GROUPS = re.compile(r"(?P<value>[A-Za-z2-7]{4,8}(?:[ -][A-Za-z2-7]{4,8}){3,15}|[A-Za-z2-7]{16,64})(?![A-Za-z0-9])")
_GATES = ("[", "ls0tls1crudjti", "/u3+7q", "zs7ozg", "mii", "scan", "key", "secret", "manual", "seed")


def _pem_private(run: str) -> bool:
    head = re.sub(r"\\n|\s", "", run)[:120]
    head = head[: len(head) - len(head) % 4]
    try:
        decoded = base64.b64decode(head, validate=True).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return False
    return "PRIVATE KEY" in decoded or "PRIVATE KEY BLOCK" in decoded


def _key_blob_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    haystack = lowered if lowered is not None else text.lower()
    if "[" in gates:
        for match in _BYTE_ARRAY.finditer(text):
            numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
            if len(numbers) in (32, 64) and max(numbers) <= 255 and len(set(numbers)) >= 16:
                before = haystack[max(0, match.start() - 300) : match.start()]
                if any(word in before for word in _ARRAY_CONTEXT):
                    yield match.start(), match.end(), "private_key"
    if "ls0tls1crudjti" in gates:
        for match in _PEM64.finditer(text):
            if _pem_private(match.group(0)):
                yield match.start(), match.end(), "private_key"
    if "/u3+7q" in gates or "zs7ozg" in gates:
        for match in _KEYSTORE64.finditer(text):
            yield match.start(), match.end(), "private_key"
    if "mii" in gates:
        for match in _PKCS12.finditer(text):
            yield match.start("value"), match.end("value"), "private_key"
    if lowered is None or gates.isdisjoint(("scan", "key", "secret", "manual", "seed")):
        return
    for phrase in _TOTP_PHRASES:
        pos = lowered.find(phrase)
        while pos != -1:
            lead = _TOTP_REST.match(lowered, pos + len(phrase))
            match = _BASE32_GROUPS.match(text, lead.end()) if lead is not None else None
            if match is not None:
                value = match.group("value")
                compact = value.replace(" ", "").replace("-", "")
                if len(compact) >= 16 and any(c in "234567" for c in compact):
                    yield match.start("value"), match.end("value"), "totp_seed"
            pos = lowered.find(phrase, pos + len(phrase))


KEY_BLOB_DETECTORS: tuple[Detector, ...] = (
    detector(
        "private_key",
        finder=_key_blob_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: keypair arrays, base64 PEM and keystores, TOTP setup keys (see memctl.scrub.key_blobs)",
    ),
)
"""One finder for the encodings in the module docstring."""
