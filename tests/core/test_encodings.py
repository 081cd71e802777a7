"""memctl/encodings.py: the decoders the scrubber and the validator share."""

from __future__ import annotations

import base64

import pytest

from memctl.encodings import (
    base64_bytes,
    base64_text,
    hex_bytes,
    octal_escape_bytes,
    percent_bytes,
    printable_text,
    unicode_escape_text,
    x_escape_bytes,
)

PLAIN = [b"rm -rf ~", b"password=hunter2-FAKE", b'{"alg":"HS256"}', b"\xe2\x9c\x93 ok\n", b"ab?>~"]


@pytest.mark.parametrize("data", PLAIN)
@pytest.mark.parametrize("form", ["standard", "unpadded", "urlsafe", "urlsafe_unpadded"])
def test_base64_both_alphabets_padded_or_not(data: bytes, form: str) -> None:
    encoded = (base64.urlsafe_b64encode if form.startswith("urlsafe") else base64.b64encode)(data).decode()
    if form.endswith("unpadded"):
        encoded = encoded.rstrip("=")
    assert base64_bytes(encoded) == data
    assert base64_text(encoded) == data.decode()


@pytest.mark.parametrize("run", ["abcde", "ab$d", "abc def", "QUJD!"])
def test_bad_base64_is_none(run: str) -> None:
    assert base64_bytes(run) is None


def test_a_cut_run_drops_its_partial_quantum() -> None:
    encoded = base64.b64encode(b"-----BEGIN RSA PRIVATE KEY-----").decode()
    assert base64_bytes(encoded[:-3]) is None or len(encoded[:-3].rstrip("=")) % 4 != 1
    assert base64_bytes(encoded[:21], cut=True) == base64.b64decode(encoded[:20])


@pytest.mark.parametrize(
    ("data", "ratio", "expected"),
    [
        (b"plain words", 0.95, "plain words"),
        (b"   \n", 0.95, None),
        (b"\x00\x01\x02abc", 0.95, None),
        (b"\x00" + b"a" * 19, 0.9, "\x00" + "a" * 19),
        (b"\xff\xfe", 0.5, None),
        (None, 0.95, None),
    ],
)
def test_printable_text(data: bytes | None, ratio: float, expected: str | None) -> None:
    assert printable_text(data, ratio=ratio) == expected


def test_escape_runs() -> None:
    assert hex_bytes("726d202d7266") == b"rm -rf"
    assert hex_bytes("72z6") is None
    assert x_escape_bytes("\\x72\\x6d") == b"rm"
    assert octal_escape_bytes("\\162\\155\\040") == b"rm "
    assert octal_escape_bytes("\\777\\155\\040") is None
    assert unicode_escape_text("\\u003c\\u0073\\u003e") == "<s>"
    assert percent_bytes("%63%61%74") == b"cat"
