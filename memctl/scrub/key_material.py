"""Key material that is not a PEM/PGP/PuTTY block: redacted by the shape its format documents.

Kinds found (all reported as ``private_key`` except the wallet seed and WIF, ``wallet_secret``):

* OpenVPN static keys: ``-----BEGIN OpenVPN Static key V1-----`` … ``-----END …`` (OpenVPN's
  ``--secret``/``tls-auth``/``tls-crypt`` file format): the hex body between the armour lines;
* JWK private members (RFC 7517/7518 §6.2.2, §6.3.2, §6.4.1): ``d``, ``p``, ``q``, ``dp``, ``dq``,
  ``qi`` and the symmetric ``k`` of a JSON object that has ``kty``; the public ``n``/``e``/``x``/``y`` stay;
* .NET ``<RSAKeyValue>`` (``RSA.ToXmlString(true)``): the ``P``, ``Q``, ``DP``, ``DQ``, ``InverseQ``
  and ``D`` elements; ``Modulus`` and ``Exponent`` are public and stay;
* Ethereum keystore v3 JSON (Web3 Secret Storage definition): ``ciphertext`` and ``mac`` of an
  object that also has a ``kdf`` (a SealedSecret's ``encryptedData`` has no ``kdf`` and stays);
* minisign secret keys: the base64 line after ``untrusted comment: minisign encrypted secret key``
  (a bare ``RWRTY0Iy…`` key under a ``*_KEY`` name is :mod:`memctl.scrub.context_names`');
* bare OpenSSH private key bodies: base64 starting ``b3BlbnNzaC1rZXktdjE`` (``openssh-key-v1``,
  OpenSSH's PROTOCOL.key), to the end of the base64 lines that follow;
* BIP-39 mnemonics: 12, 15, 18, 21 or 24 words of the BIP-39 English list (``mnemonic`` package)
  starting within 80 characters after ``mnemonic``, ``seed`` or ``recovery``;
* WIF private keys (Bitcoin wiki "Wallet import format"): base58check, version byte 0x80 or 0xEF,
  in a text that says ``wif``, ``privkey`` or ``wallet``, or anywhere as a run of its own
  (from the run heads of :func:`memctl.scrub.gates.run_heads`; texts up to 4,096 characters are
  scanned whole when those are not known): the 32-bit checksum must validate, so a random run
  passes about once in four billion.

Every rule is gated on its literal (:mod:`memctl.scrub.gates`); none scans the whole text unless
its literal is present.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from functools import lru_cache

from memctl.scrub.detector import Detector, Span, detector
from memctl.scrub.gates import positions, run_heads

__all__ = ["KEY_MATERIAL_DETECTORS", "is_wif"]

_OPENVPN = re.compile(
    r"-----BEGIN OpenVPN Static key V1-----(?P<body>.*?)(?:-----END OpenVPN Static key V1-----|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_JWK_MEMBER = re.compile(r"""\\*["'](?P<name>d|p|q|dp|dq|qi|k)\\*["'][ \t]*:[ \t]*\\*["'](?P<value>[A-Za-z0-9_-]{16,}=*)""")
_RSA_XML = re.compile(r"<(?P<tag>P|Q|DP|DQ|InverseQ|D)>(?P<value>[^<\x00]{8,})</(?P=tag)>")
_KEYSTORE_MEMBER = re.compile(r"""\\*["'](?:ciphertext|mac)\\*["'][ \t]*:[ \t]*\\*["'](?P<value>[0-9a-fA-F]{32,})""")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
# A base64 body that continues over lines (plain, escaped \n, quoted or indented).
_BODY_CONTINUES = re.compile(r"(?:\\n|\r?\n)[ \t\"'>]*[A-Za-z0-9+/]{8,}={0,2}")
_WORD_RUN = re.compile(r"[a-z]{3,8}(?:[ \t,]+(?:\d{1,2}[.)][ \t]*)?[a-z]{3,8}){11,23}")
_SEED_GATES = ("mnemonic", "seed", "recovery", "wallet")
_MINISIGN_COMMENT = "minisign encrypted secret key"
_WORD = re.compile(r"[a-z]{3,8}")
_WIF = re.compile(r"(?<![1-9A-HJ-NP-Za-km-z])[5KL9c][1-9A-HJ-NP-Za-km-z]{50,51}(?![1-9A-HJ-NP-Za-km-z])")
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_WINDOW = 6000


@lru_cache(maxsize=1)
def _bip39_words() -> frozenset[str]:
    from mnemonic import Mnemonic  # the package's bundled english.txt (BIP-39's own list)

    return frozenset(Mnemonic("english").wordlist)


def is_wif(value: str) -> bool:
    """True when ``value`` is a base58check WIF private key (version 0x80 mainnet or 0xEF testnet,
    32-byte key, optional 0x01 compression flag, valid double-SHA-256 checksum)."""
    number = 0
    for char in value:
        index = _B58.find(char)
        if index < 0:
            return False
        number = number * 58 + index
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    if len(raw) not in (37, 38):
        return False
    payload, checksum = raw[:-4], raw[-4:]
    if payload[0] not in (0x80, 0xEF) or (len(raw) == 38 and payload[-1] != 0x01):
        return False
    return hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == checksum


def _body_end(text: str, end: int) -> int:
    """Extend a base64 run at ``end`` over the continuation lines that follow it."""
    while True:
        more = _BODY_CONTINUES.match(text, end)
        if more is None:
            return end
        end = more.end()


def _mnemonic_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    words = _bip39_words()
    for seed_word in _SEED_GATES:
        if seed_word not in gates:
            continue
        pos = lowered.find(seed_word)
        while pos != -1:
            match = _WORD_RUN.search(lowered, pos + len(seed_word), min(len(lowered), pos + 400))
            after = pos + len(seed_word)
            pos = lowered.find(seed_word, after)
            if match is None or match.start() > after + 80:
                continue
            tokens = _WORD.findall(match.group(0))
            lead = next((i for i, token in enumerate(tokens[:4]) if token in words), 0)  # "wallet words abandon …"
            known = lead
            while known < len(tokens) and tokens[known] in words:
                known += 1
            size = max((n for n in (24, 21, 18, 15, 12) if n <= known - lead), default=0)
            if not size:
                continue
            end = match.start()
            for _ in range(lead):
                hit = _WORD.search(lowered, end)
                assert hit is not None
                end = hit.end()
            first = _WORD.search(lowered, end)
            assert first is not None
            phrase_start = first.start()
            for _ in range(size):
                hit = _WORD.search(lowered, end)
                assert hit is not None
                end = hit.end()
            yield phrase_start, end, "wallet_secret"


def _key_material_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "-----begin openvpn static key" in gates:
        for match in _OPENVPN.finditer(text):
            if match.group("body").strip():
                yield match.start("body"), match.end("body"), "private_key"
    if any(gate in gates for gate in _JWK_GATES):
        pos = lowered.find("kty")
        while pos != -1:
            start, end = max(0, pos - _WINDOW), min(len(text), pos + _WINDOW)
            for match in _JWK_MEMBER.finditer(text, start, end):
                yield match.start("value"), match.end("value"), "private_key"
            pos = lowered.find("kty", end)
    if "<rsakeyvalue>" in gates:
        pos = lowered.find("<rsakeyvalue>")
        while pos != -1:
            close = lowered.find("</rsakeyvalue>", pos)
            end = close if close != -1 else min(len(text), pos + _WINDOW)
            for match in _RSA_XML.finditer(text, pos, end):
                yield match.start("value"), match.end("value"), "private_key"
            pos = lowered.find("<rsakeyvalue>", end)
    if any(gate.startswith("ciphertext") for gate in gates) and "kdf" in lowered:
        pos = lowered.find("ciphertext")
        while pos != -1:
            start, end = max(0, pos - 1500), min(len(text), pos + 1500)
            if "kdf" in lowered[start:end]:
                for match in _KEYSTORE_MEMBER.finditer(text, start, end):
                    yield match.start("value"), match.end("value"), "private_key"
            pos = lowered.find("ciphertext", end)
    if "secret" in gates:
        for pos in positions(lowered, "secret"):
            if lowered.startswith(_MINISIGN_COMMENT, pos - _MINISIGN_COMMENT.index("secret")):
                after = pos + len("secret key")
                match = _BASE64_RUN.search(text, after, min(len(text), after + 200))
                if match is not None:
                    yield match.start(), _body_end(text, match.end()), "private_key"
    if "b3blbnnzac1rzxktdje" in gates:
        for match in re.finditer("b3BlbnNzaC1rZXktdjE", text):
            run = _BASE64_RUN.match(text, match.start())
            if run is not None:
                yield run.start(), _body_end(text, run.end()), "private_key"
    yield from _mnemonic_spans(text, lowered, gates)
    if "wallet" in gates or ("key" in gates and any(lowered.endswith("priv", 0, p) for p in positions(lowered, "key"))):
        for match in _WIF.finditer(text):
            if is_wif(match.group(0)):
                yield match.start(), match.end(), "wallet_secret"


def _standalone_wif_spans(text: str, lowered: str | None) -> Iterator[Span]:
    """WIF keys with no wallet word around them: each run head that starts like one is checked."""
    heads = run_heads(lowered) if lowered is not None else None
    if heads is None:
        if len(text) <= 4096:
            for match in _WIF.finditer(text):
                if is_wif(match.group(0)):
                    yield match.start(), match.end(), "wallet_secret"
        return
    for head in heads:
        if text[head] in "5KL9c":
            match = _WIF.match(text, head)
            if match is not None and is_wif(match.group(0)):
                yield match.start(), match.end(), "wallet_secret"


# Gate literals: JSON/XML/armour forms hold a "=", ":", ">" or "-" the gate index finds without a
# scan of its own (see memctl.scrub.gates); six words are scanned.
_JWK_GATES = ('kty":', "kty':", 'kty\\":')
_LITERALS = (
    *_JWK_GATES, "<rsakeyvalue>", 'ciphertext":', "ciphertext':", 'ciphertext\\":', "-----begin openvpn static key",
    "secret", "b3blbnnzac1rzxktdje", *_SEED_GATES, "key", "wallet",
)

KEY_MATERIAL_DETECTORS: tuple[Detector, ...] = (
    detector(
        "private_key",
        finder=_key_material_spans,
        literals=_LITERALS,
        requires=_LITERALS,  # every match holds one: skipped without a call when none is in the text
        origin="OpenVPN, RFC 7517/7518, .NET RSA XML, Web3 Secret Storage, minisign, OpenSSH PROTOCOL.key, "
        "BIP-39, Bitcoin WIF",
    ),
    detector("wallet_secret", finder=_standalone_wif_spans, origin="Bitcoin wiki: Wallet import format (base58check)"),
)
"""One finder for the key material kinds in the module docstring, then WIF keys standing alone."""
