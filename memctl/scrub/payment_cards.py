"""Payment card numbers (PANs) in context.

Cards: 13 to 19 digits, whole or in groups separated by single spaces or dashes, that pass the Luhn
check (ISO/IEC 7812-1, Annex B) and start like an issued card (Visa 4, Mastercard 51-55 and 2221-2720,
American Express 34/37, Discover 6011/65/644-649, JCB 3528-3589, Diners 36/38/300-305, UnionPay 62, Maestro
50/56-69), within 60 characters after a card word in any of several languages (``card``, ``carte``,
``tarjeta``, ``karte``, ``kart``, ``cartão``, ``visa``, ``mastercard``, ``amex``, ``pan``, ``cc_number``,
``卡号``, ``カード`` …). A long number with no card word before it (an order id, a timestamp) stays. Kind
``payment_card``.

"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector

__all__ = ["PAYMENT_CARD_DETECTORS", "luhn_valid"]

_CARD_WORDS = (
    "card", "carte", "tarjeta", "karte", "kart", "cartão", "cartao", "carta", "kaart", "karta", "карт",
    "visa", "mastercard", "amex", "discover", "maestro", "unionpay", "jcb", "pan:", "pan=", "pan ", "cc_num",
    "ccnum", "cc_number", "cc-number", "cc number", "credit", "kredit", "crédito", "credito", "卡号", "信用卡",
    "カード", "카드", "कार्ड",
)
_NUMBER = re.compile(r"(?<![\d.,/-])(?:\d[ -]?){12,18}\d(?![\d])")
_PREFIX = re.compile(r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35(?:2[89]|[3-8]\d)|3(?:0[0-5]|[68])|5[06-9]")
_CARD_REACH = 60


def luhn_valid(digits: str) -> bool:
    """True when the digit string passes the Luhn mod-10 check (ISO/IEC 7812-1 Annex B)."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _card_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    done = 0
    for word in _CARD_WORDS:
        if word not in gates:
            continue
        pos = lowered.find(word)
        while pos != -1:
            after = pos + len(word)
            for match in _NUMBER.finditer(text, after, min(len(text), after + _CARD_REACH + 23)):
                if match.start() - after > _CARD_REACH or match.start() < done:
                    break
                raw = match.group(0)
                digits = raw.replace(" ", "").replace("-", "")
                separators = {c for c in raw if not c.isdigit()}
                if len(separators) > 1 or not 13 <= len(digits) <= 19 or _PREFIX.match(digits) is None:
                    continue
                if separators and not _grouped(raw):
                    continue
                if luhn_valid(digits) and len(set(digits)) > 2:
                    done = match.end()
                    yield match.start(), match.end(), "payment_card"
                    break
            pos = lowered.find(word, after)


def _grouped(raw: str) -> bool:
    """Groups as cards print them: 4-4-4-4(-3), 4-6-5 (Amex), 4-6-4 (Diners)."""
    sizes = [len(group) for group in re.split(r"[ -]", raw)]
    return all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4 or sizes in ([4, 6, 5], [4, 6, 4])


def _payment_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _card_spans(text, lowered, gates)


PAYMENT_CARD_DETECTORS: tuple[Detector, ...] = (
    detector(
        "payment_card",
        finder=_payment_spans,
        literals=_CARD_WORDS,
        requires=_CARD_WORDS,
        origin="ISO/IEC 7812 (Luhn check, issuer prefixes)",
    ),
)
"""One finder for card numbers after a card word (see the module docstring)."""
