"""Private keys in any wrapping: armoured blocks, base64 of a key file, bare key bodies.

A key reaches a session in many layouts, and every one of them must lose its
body, not just its armour line:

* armoured blocks (RFC 7468 PEM ``-----BEGIN … PRIVATE KEY-----``, RFC 4880
  ``PGP PRIVATE KEY BLOCK``, RFC 4716 ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY
  ----``, OpenSSH's PROTOCOL.key ``OPENSSH PRIVATE KEY``) and PuTTY's
  ``PuTTY-User-Key-File-N:`` files (PuTTY manual, appendix C), with their
  lines plain, escaped (``\\n``, ``\\r\\n``, ``\\\\n`` in JSON inside JSON,
  ``\\/``), numbered (OpenCode's ``read`` tool: ``1: ``, ``00001| ``;
  ``cat -n``: ``     1<TAB>``; ``grep -n``/ripgrep ``path:1:``; OpenCode's
  grep tool ``Line 1: ``), URL-encoded (``%0A``, ``%20``), diff-prefixed (``+``, ``-``, `` ``), quoted
  (Markdown/email ``> ``, comment leaders), indented (YAML block scalars) or
  split into string literals (``'…\\n' +``, ``"…",``), or under any other
  gutter (pagers' ``  12 │ ``, ``[12] ``, ``REM ``, HTML tags, ANSI colours):
  after an armour line a line whose last run is base64 of key-line length
  (16+ characters) is a key line whatever precedes it. From BEGIN to END
  whatever lies between when it is key-like; a BEGIN without an END (a cut
  block) to the end of its body lines; an END without a BEGIN (a block whose
  start was cut) back to the start of its body lines;
* hex dumps of a key file (``xxd``, ``hexdump -C``, ``xxd -p``, bare hex):
  :mod:`memctl.scrub.key_dump`;
* base64 (or base64url) of a whole key file (Kubernetes ``tls.key:
  LS0tLS1CRUdJTi…``, a service-account JSON in a CI variable): decoded, and
  redacted whole when the decoded text holds a private key;
* bare base64 DER bodies without armour, recognised by the fixed ASN.1 start
  of each private-key structure: PKCS#1 ``RSAPrivateKey`` (RFC 8017 A.1.2,
  version 0 then the modulus: ``MII…IBAAK``), PKCS#8 ``PrivateKeyInfo``
  (RFC 5208/5958, version 0 then the algorithm: ``MII…IBADA``, ``MC4CAQAw``
  for Ed25519), SEC1 ``ECPrivateKey`` (RFC 5915, version 1 then the key
  octets: ``MHcCAQEE``) and PKCS#12 (RFC 7292, version 3: ``MII…IBAzCC``).
  (An OpenSSH key body is always armoured in practice.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memctl.encodings import base64_bytes
from memctl.scrub.detector import BASE64_CHARS, Detector, Span, detector
from memctl.scrub.key_dump import hex_dump_key_spans

__all__ = ["PRIVATE_KEY_DETECTOR", "key_may_start_before", "private_key_spans"]

_KIND = "private_key"
# How far an END is looked for from its BEGIN, and a body back from an END (a
# 4096-bit RSA PEM is ~3.3 KB). Forward scans over body lines have no bound:
# a cut block is followed to its last line however long, each line once.
_MAX_BLOCK = 65536
_MAX_EMPTY_RUN = 2  # blank lines allowed inside a block (PGP: one after the headers)

# A space in the armour may be URL-encoded (%20, +) when a key travels in a form or query.
_SP = r"(?:[ ]|%20|\+)"
_ARMOUR = re.compile(
    rf"-{{4,5}}{_SP}?(?P<which>BEGIN|END){_SP}(?P<label>(?:[A-Z0-9]|{_SP}){{0,30}}PRIVATE{_SP}KEY(?:{_SP}BLOCK)?){_SP}?-{{4,5}}"
)
_PUTTY = "PuTTY-User-Key-File-"

# Line separators a key's lines may be joined with: real newlines, and the
# JSON/JS escapes of them at any escaping depth.
_SEPARATOR = re.compile(r"\r?\n|\r|\\+r\\+n|\\+n|\\+r|(?:%0[dD])?%0[aA]")

# What may precede a key line: line numbers of every OpenCode read-tool
# version, cat -n, grep/ripgrep and OpenCode's grep tool; then diff markers,
# quote and comment leaders; then a string opener.
_PREFIX = r"""
[ \t]*
(?:(?:\d{1,7}(?:[:|]|\\t|\t)|[Ll]ine[ ]\d{1,7}:|[^\s:"'`\x00]{1,300}:\d{1,7}:|[^\s:"'`\x00]{1,300}-\d{1,7}-)[ \t]?)?
[ \t]*
(?:(?:[-+>|#*;!]|//)[ \t]*)*
(?:[bBrRuUfF]?["'`][ \t]*)?
"""
# What may follow a key line: a string closer, concatenation, comma, line
# continuation, cat -A's line end (``$``, ``^M$``).
_SUFFIX = r"""
(?:["'`])?[ \t]*(?:[+,;)\\]|\.\.\.)?[ \t]*(?:["'`])?[ \t]*(?:\^M)?\$?
"""
_PREFIX_RE = re.compile(_PREFIX, re.VERBOSE)
# Base64 characters, also JSON-escaped (\/) or URL-encoded (%2B, %2F, %3D).
_B64 = r"(?:[A-Za-z0-9+=]|\\?/|%2[BbFf]|%3[Dd])"
_BODY_LINE = re.compile(_PREFIX + rf"(?P<body>{_B64}{{4,}}(?:(?:[ ]|%20){_B64}{{4,}})*)" + _SUFFIX, re.VERBOSE)
_HEADER_LINE = re.compile(
    _PREFIX + r"(?P<body>[A-Za-z][A-Za-z0-9-]{1,40}:[ \t]*[^\n\r\x00]{0,200}?)" + _SUFFIX, re.VERBOSE
)
_EMPTY_LINE = re.compile(_PREFIX + _SUFFIX, re.VERBOSE)
_LEADING_RUN = re.compile(_PREFIX + r"(?P<body>(?:[A-Za-z0-9+=]|\\?/){16,})", re.VERBOSE)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{16,}")
# A key line under a prefix no rule above names (a pager's gutter ``  12 │ ``,
# ``[12] ``, ``REM ``, ``% ``, an HTML tag, ANSI colours, ``L12: ``): its last
# whitespace-free run is a base64 run of key-line length, whatever precedes it.
_ANSI = r"(?:\x1b|\\+u001[bB]|\\+x1[bB]|\\+033|\\+e)\[[0-9;?]*[A-Za-z]"  # raw or escaped ESC
_LOOSE_RUN = r"(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+=]|\\?/){16,}+"
_LOOSE_BODY_LINE = re.compile(
    # Lines flattened into one (a title) keep their gutters between the runs.
    rf"[^\n\r\x00]{{0,300}}?(?P<body>{_LOOSE_RUN}(?:[^\n\r\x00]{{1,40}}?{_LOOSE_RUN})*)"
    rf"""(?:{_ANSI}|</[A-Za-z]{{1,10}}>|[ \t"'`,;)\\]|\^M|\$)*"""
)
# The END line's own prefix, left at the end of the line before it: no run in it.
_END_GUTTER = re.compile(r"(?:[^\n\r\x00](?<![A-Za-z0-9+/=]{16})){0,40}")
_LOOSE_LEADING_RUN = re.compile(rf"[^\n\r\x00]{{0,300}}?(?P<body>{_LOOSE_RUN})")

# Bare DER bodies (see the module docstring for the structures).
_DER_START = re.compile(
    r"M(?:II[A-Za-z0-9+/]{3}IB(?:AA[JK]|ADA|AzCC)|IG[A-Za-z0-9+/]AgE(?:AM|AAo|BBD)|[A-Za-z0-9+/]{2}CAQ(?:Aw|EE))"
)
_MIN_BARE_BODY = 60  # base64 characters: an Ed25519 PKCS#8 key is 64

# base64 of "---" (the armour's dashes) starts every alignment of
# base64("-----BEGIN"); the decoded text decides.
_BASE64_ARMOUR = "LS0t"
_DECODED_ARMOUR = re.compile(rb"-{4,5} ?BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY|PuTTY-User-Key-File-\d")


def _segments(text: str, start: int, stop: int) -> Iterator[tuple[int, int]]:
    """Lines of ``text[start:stop]`` split on real or escaped newlines."""
    pos = start
    while pos <= stop:
        sep = _SEPARATOR.search(text, pos, stop)
        if sep is None:
            yield pos, stop
            return
        yield pos, sep.start()
        pos = sep.end()


def _plausible_body(body: str) -> bool:
    # A short all-letter line after a cut block is prose, not the key's last line.
    return len(body) >= 16 or any(c in "0123456789+/=" for c in body)


def _classify(text: str, start: int, end: int, *, headers: bool) -> tuple[str, int, int]:
    """``("body"|"header"|"empty"|"other", content_start, content_end)`` for one line."""
    line = _BODY_LINE.fullmatch(text, start, end)
    if line is not None and _plausible_body(line.group("body")):
        return "body", line.start("body"), line.end("body")
    if headers:
        line = _HEADER_LINE.fullmatch(text, start, end)
        if line is not None:
            return "header", line.start("body"), line.end("body")
    if _EMPTY_LINE.fullmatch(text, start, end) is not None or _ANSI_ONLY.fullmatch(text, start, end) is not None:
        return "empty", start, start
    line = _LOOSE_BODY_LINE.fullmatch(text, start, end)
    if line is not None and _looks_encoded(line.group("body")):
        return "body", line.start("body"), line.end("body")
    return "other", start, start


_ANSI_ONLY = re.compile(rf"[ \t]*(?:{_ANSI}[ \t]*)+")


def _looks_encoded(run: str) -> bool:
    # A long identifier ending a prose line is letters only; a key line of 16+
    # base64 characters almost always holds a digit, ``+`` or ``/``.
    return len(run) >= 40 or any(c in "0123456789+/=" for c in run)


def _forward_end(text: str, start: int, *, putty: bool = False, headers: bool = True) -> int:
    """End offset of the last key line from ``start`` on (``start`` if none).

    Headers (``Proc-Type:``, ``Version:``) are allowed before the first body
    line, everywhere for PuTTY files; a run of blank lines or any other line
    ends the block.
    """
    end = start
    seen_body = False
    empty_run = 0
    for seg_start, seg_end in _segments(text, start, len(text)):
        what, content_start, content_end = _classify(
            text, seg_start, seg_end, headers=putty or (headers and not seen_body)
        )
        if what == "empty":
            empty_run += 1
            if empty_run > _MAX_EMPTY_RUN:
                break
            continue
        if what == "other":
            # The last key line may run on into prose or a closing bracket: keep its base64 run.
            run = _LEADING_RUN.match(text, seg_start, seg_end) or _LOOSE_LEADING_RUN.match(text, seg_start, seg_end)
            if run is not None and seen_body:
                end = run.end("body")
            break
        empty_run = 0
        end = content_end
        if what == "body":
            seen_body = True
        elif putty and text.startswith("Private-MAC:", content_start):
            break  # the last line of a PuTTY key file
    return end


def _run_end(text: str, start: int) -> int:
    """End of the base64 run at ``start``, continued over the following key
    lines when the run is the last thing on its line (a wrapped body)."""
    end = start
    limit = len(text)
    while end < limit and (text[end] in BASE64_CHARS or (text[end] == "\\" and text.startswith("/", end + 1))):
        end += 2 if text[end] == "\\" else 1
    sep = _SEPARATOR.search(text, end, min(len(text), end + 64))
    if sep is None or _EMPTY_LINE.fullmatch(text, end, sep.start()) is None:
        return end  # something else follows the run on its line: the run is all there is
    following = _forward_end(text, sep.end(), headers=False)
    return following if following > sep.end() else end


def _body_text(text: str, start: int, end: int) -> str:
    """The base64 characters of the key lines in ``text[start:end]``, wrapping removed."""
    pieces = []
    for seg_start, seg_end in _segments(text, start, end):
        line = _BODY_LINE.fullmatch(text, seg_start, seg_end)
        if line is not None:
            pieces.append(line.group("body"))
        elif not pieces:  # the first line starts mid-line, at the run itself
            run = re.match(r"(?:[A-Za-z0-9+=_-]|\\?/)+", text[seg_start:seg_end])
            if run is not None:
                pieces.append(run.group(0))
    return "".join(pieces).replace("\\/", "/").replace(" ", "")


def _backward_start(text: str, end: int, *, min_start: int = 0) -> int:
    """Start offset of the first of the key body lines that end at ``end`` (``end`` if none).

    Looks back through a small window first and widens it (up to
    :data:`_MAX_BLOCK`) only while every line in it is a body line, so a text
    with many END lines is not rescanned quadratically.
    """
    end = _before_end_gutter(text, end, min_start)
    span = 1024
    while True:
        lower = max(min_start, end - span)
        bounds = list(_segments(text, lower, end))
        start = end
        empty_run = 0
        reached_window_start = True
        for seg_start, seg_end in reversed(bounds[1:] if lower > min_start else bounds):
            what, content_start, _ = _classify(text, seg_start, seg_end, headers=False)
            if what == "empty":
                empty_run += 1
                if empty_run > _MAX_EMPTY_RUN:
                    reached_window_start = False
                    break
                continue
            if what != "body":
                reached_window_start = False
                break
            empty_run = 0
            start = content_start
        if not reached_window_start or lower <= min_start or span >= _MAX_BLOCK:
            return start
        span *= 4


def _before_end_gutter(text: str, end: int, min_start: int) -> int:
    """``end`` moved back over the END line's own prefix (``  16 │ ``, ``[16] ``,
    an ANSI colour) when no rule's prefix covers it, onto the key line before it."""
    runs = list(_BASE64_RUN.finditer(text, max(min_start, end - 160), end))
    gutter_start = runs[-1].end() if runs else max(min_start, end - 41)
    if end - gutter_start > 40:
        return end
    separator = None
    for separator in _SEPARATOR.finditer(text, gutter_start, end):
        pass
    if _END_GUTTER.fullmatch(text, separator.end() if separator else gutter_start, end) is None:
        return end
    if separator is not None:
        # The gutter has a line of its own: skip it unless a rule already knows it.
        seg_start = separator.end()
        return seg_start if _classify(text, seg_start, end, headers=False)[0] == "other" else end
    if not runs or _classify(text, gutter_start, end, headers=False)[0] == "body":
        return end
    return gutter_start  # a line flattened into one: the gutter follows the last run


def _key_like(between: str) -> bool:
    """True when the text between a BEGIN and an END line is a key body in some wrapping.

    Most of its non-space characters sit in long base64 runs (line numbers,
    quotes, escapes and diff markers are a few characters a line), unlike code
    that merely names the two armour lines.
    """
    if "\x00" in between:
        return False  # never across two fields of scrub_texts
    if _all_body_lines(between):
        return True  # every line a key line under some prefix, however long
    runs = sum(len(run) for run in _BASE64_RUN.findall(between.replace("\\/", "/")))
    others = len("".join(between.split())) - runs
    if runs == 0:
        return others <= 4
    return runs >= 2 * others


def _all_body_lines(between: str) -> bool:
    end = _before_end_gutter(between, len(between), 0)
    kinds = [_classify(between, s, e, headers=True)[0] for s, e in _segments(between, 0, end)]
    return "body" in kinds and all(kind in ("body", "header", "empty") for kind in kinds)


def _armoured_spans(text: str) -> Iterator[tuple[int, int]]:
    armours = list(_ARMOUR.finditer(text))
    taken_until = -1
    for index, armour in enumerate(armours):
        if armour.start() < taken_until:
            continue
        if armour.group("which") == "BEGIN":
            end = None
            for later in armours[index + 1 :]:
                if later.start() - armour.end() > _MAX_BLOCK or later.group("which") == "BEGIN":
                    break
                if _key_like(text[armour.end() : later.start()]):
                    end = later.end()
                break
            if end is None:
                end = max(armour.end(), _forward_end(text, armour.end()))
            taken_until = end
            yield armour.start(), end
        else:
            start = _backward_start(text, armour.start(), min_start=max(taken_until, 0))
            if start < armour.start():
                taken_until = armour.end()
                yield start, armour.end()


def _putty_spans(text: str) -> Iterator[tuple[int, int]]:
    pos = text.find(_PUTTY)
    while pos != -1:
        # At least the whole first line: a key file flattened onto one line (a title) is one line.
        first_line = _SEPARATOR.search(text, pos)
        line_end = first_line.start() if first_line else len(text)
        field_end = text.find("\x00", pos, line_end)  # never across two fields of scrub_texts
        end = max(_forward_end(text, pos, putty=True), field_end if field_end != -1 else line_end)
        if end > pos:
            yield pos, end
        pos = text.find(_PUTTY, max(end, pos + 1))


def _decoded_holds_key(encoded: str) -> bool:
    """True when base64/base64url ``encoded`` decodes to text holding a private key."""
    raw = base64_bytes(encoded, cut=True)
    return raw is not None and _DECODED_ARMOUR.search(raw) is not None


def _run_start(text: str, pos: int, chars: frozenset[str]) -> int:
    limit = max(0, pos - _MAX_BLOCK)
    while pos > limit and text[pos - 1] in chars:
        pos -= 1
    return pos


_RUN_START_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
_BOUNDARY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _encoded_key_spans(text: str) -> Iterator[tuple[int, int]]:
    """Base64 (or base64url) encodings of a whole key file."""
    pos = text.find(_BASE64_ARMOUR)
    while pos != -1:
        run_start = _run_start(text, pos, _RUN_START_CHARS)
        end = max(_run_end(text, run_start), pos + len(_BASE64_ARMOUR))
        if _decoded_holds_key(_body_text(text, run_start, end)):
            # A wrapped blob may have begun lines earlier (the key sits deep in a JSON file).
            start = _backward_start(text, run_start) if run_start == _line_start(text, run_start) else run_start
            yield min(start, run_start), end
        # Every other anchor in this run was decoded with it: go past the run.
        pos = text.find(_BASE64_ARMOUR, max(end, pos + 1))


def _line_start(text: str, pos: int) -> int:
    """Start of the wrapped line holding ``pos``: after its separator and line prefix."""
    sep_end = 0
    for sep in _SEPARATOR.finditer(text, max(0, pos - 400), pos):
        sep_end = sep.end()
    prefix = _PREFIX_RE.match(text, sep_end, pos)
    return prefix.end() if prefix is not None else sep_end


def _after_escape_or_boundary(text: str, pos: int) -> bool:
    if pos == 0 or text[pos - 1] not in _BOUNDARY_CHARS:
        return True
    return pos >= 2 and text[pos - 2] == "\\" and text[pos - 1] in "nrt"  # "\nMIIE…" in an escaped string


def _bare_body_spans(text: str, outside: Callable[[int], bool]) -> Iterator[tuple[int, int]]:
    """Armourless base64 DER bodies (``outside(start)``: not inside an armoured block)."""
    resume = 0
    for start in (m.start() for m in _DER_START.finditer(text)):
        if start < resume or not outside(start) or not _after_escape_or_boundary(text, start):
            continue
        end = _run_end(text, start)
        if len(_body_text(text, start, end)) >= _MIN_BARE_BODY:
            resume = end
            yield start, end


_ARMOUR_HINT = re.compile(r"P(?:RIVATE(?:[ ]|%20|\+)KEY|uTTY-User-Key-File-)")


def private_key_spans(text: str, lowered: str | None = None, gates: frozenset[str] | None = None) -> Iterator[Span]:
    """Yield ``(start, end, "private_key")`` for every private key in ``text``.

    Armoured blocks first; encoded files and bare bodies are looked for only
    outside them; hex dumps of key files (:mod:`memctl.scrub.key_dump`,
    which uses ``lowered``). ``gates``: which of :data:`_GATE_LITERALS` the lowered text
    holds (None: not known, every scan runs); a scan whose literals are all absent cannot
    match and is skipped (each pattern's match holds one of them, lowered). Never raises on any ``str``.
    """
    found: list[tuple[int, int]] = []
    if (gates is None or not gates.isdisjoint(_ARMOUR_GATES)) and _ARMOUR_HINT.search(text) is not None:
        found.extend(_armoured_spans(text))
        if _PUTTY in text:
            found.extend(_putty_spans(text))
    if gates is None or "2d" in gates:
        found.extend(span for span in hex_dump_key_spans(text, lowered) if not any(s <= span[0] < e for s, e in found))
    for start, end in found:
        yield start, end, _KIND

    def outside(start: int) -> bool:
        return not any(s <= start < e for s, e in found)

    if gates is None or _BASE64_ARMOUR.lower() in gates:
        for start, end in _encoded_key_spans(text):
            if outside(start):
                yield start, end, _KIND
    if gates is None or not gates.isdisjoint(_DER_GATES):
        for start, end in _bare_body_spans(text, outside):
            yield start, end, _KIND


# Literals every match holds, lowered: the armour hint ("PRIVATE KEY", "PuTTY-User-Key-File-"),
# a hex dump's "2d 2d …" (key_dump._HEX_ARMOUR), base64 of the armour ("LS0t"), and each
# alternative of _DER_START ("MII…", "MIG…", "M??CAQ…").
_ARMOUR_GATES = ("private", "putty-user-key-file-")
_DER_GATES = ("mii", "mig", "caq")
_GATE_LITERALS = (*_ARMOUR_GATES, "2d", _BASE64_ARMOUR.lower(), *_DER_GATES)


def key_may_start_before(text: str, end: int) -> bool:
    """True when a private key (armour, PuTTY header, base64 of a key file, bare
    DER body) may start in ``text[:end]``: its later lines carry no marker of
    their own, so a scrub that sees only a window after ``end`` could miss them."""
    return (
        _ARMOUR_HINT.search(text, 0, end) is not None
        or text.find(_BASE64_ARMOUR, 0, end) != -1
        or _DER_START.search(text, 0, end) is not None
        or _HEX_ARMOUR_HINT.search(text, 0, end) is not None
    )


_HEX_ARMOUR_HINT = re.compile(r"2[dD][ ]{0,2}2[dD][ ]{0,2}2[dD]")


PRIVATE_KEY_DETECTOR: Detector = detector(
    _KIND,
    finder=private_key_spans,
    literals=_GATE_LITERALS,
    requires=_GATE_LITERALS,
    origin="detect-secrets:PrivateKeyDetector (extended: RFC 7468/4880/4716, PuTTY, PKCS#1/#8/#12, SEC1 DER starts)",
)
"""The one detector for every private-key layout (see the module docstring)."""
