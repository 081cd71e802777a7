"""Credential values in code declarations that the key-name rules do not read.

Forms (each with a credential-named identifier, :func:`memctl.scrub.context_names.credential_word_kind`,
or one of :data:`EXTRA_PASSWORD_WORDS`):

* C/C++ preprocessor ``#define WIFI_PASSWORD "…"``;
* typed declarations, the type between name and value: Python ``PASSWORD: str = "…"``, Kotlin/Swift
  ``val password: String = "…"``, TypeScript ``const token: string = '…'``, Rust
  ``const DB_PASSWORD: &str = "…"``/``&'static str``, Go ``var dbPassword string = "…"``;
  the type before the name: Java/C#/C ``String password = "…"``, ``const char *wifi_pass = "…"``,
  ``private static final String DB_PASSWORD = "…"``;
* shells that set a variable without ``=``: fish ``set -x DB_PASSWORD …`` (also ``-gx``, ``-Ux``),
  csh ``setenv DB_PASSWORD …``;
* XML elements in a namespace: ``<db:password>…</db:password>``;
* identifiers in Vietnamese (``mật_khẩu``, ``mat_khau``) and Indonesian/Malay (``kata_sandi``,
  ``katasandi``, ``kata_laluan``) with ``=`` or ``:``.

The value is the quoted literal (or the bare word for the shells), reported whole, when it is
not a placeholder (:func:`memctl.scrub.detector.is_placeholder`). Names the key-name rules call
properties of a credential (``password_file``, ``token_count``) stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import FOREIGN_PASSWORD_WORDS, credential_word_kind
from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["DECLARATION_DETECTORS", "EXTRA_PASSWORD_WORDS"]

EXTRA_PASSWORD_WORDS = ("mật_khẩu", "mat_khau", "matkhau", "kata_sandi", "katasandi", "kata_laluan", "katalaluan")
"""Password words of languages the shared list lacks (Vietnamese, Indonesian, Malay)."""

_NAME = r"(?P<name>[^\W\d][\w]{0,80})"
_STRING = r"""(?P<q>["'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n\x00]){1,300})(?P=q)"""
_TYPE = r"(?:&(?:'static[ \t]+)?str|[A-Za-z_][\w.]*(?:<[^<>\n=]{0,40}>)?(?:\[\])?[?!]?)"
_FORMS = (
    re.compile(r"#[ \t]*define[ \t]+" + _NAME + r"[ \t]+(?:[LuU]8?)?" + _STRING),
    re.compile(r"(?<![\w.])" + _NAME + r"[ \t]*:[ \t]*" + _TYPE + r"[ \t]*=[ \t]*[bBrRuU]?" + _STRING),
    re.compile(r"(?<![\w.])(?:var|const)[ \t]+" + _NAME + r"[ \t]+" + _TYPE + r"[ \t]*=[ \t]*" + _STRING),
    re.compile(
        r"(?<![\w.])(?:String|string|str|char[ \t]*\*|const[ \t]+char[ \t]*\*|char|NSString[ \t]*\*|std::string|var|auto)"
        r"[ \t]*" + _NAME + r"(?:\[\d*\])?[ \t]*=[ \t]*@?" + _STRING
    ),
    re.compile(
        r"(?<![\w-])(?:set[ \t]+(?:-[gUlxu]{1,3}[ \t]+)+|setenv[ \t]+)"
        + _NAME
        + r"[ \t]+(?:"
        + _STRING
        + r"|(?P<bare>[^\s\"'`;|&\x00]{3,200}))"
    ),
    re.compile(
        r"<(?P<ns>[\w.-]{1,40}):" + _NAME + r"(?:[ \t][^<>\n]{0,200})?>(?P<element>[^<>\n\x00]{1,300})</(?P=ns):(?P=name)>"
    ),
    re.compile(
        r"(?<![\w])(?P<name>mật_khẩu|mat_khau|matkhau|kata_sandi|katasandi|kata_laluan|katalaluan)"
        r"[\"']?[ \t]*[:=][ \t]*(?:" + _STRING + r"|(?P<bare>[^\s\"'`;,\x00]{3,200}))",
        re.IGNORECASE,
    ),
)
_ROOTS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", *EXTRA_PASSWORD_WORDS, *FOREIGN_PASSWORD_WORDS)
_GATES = tuple(sorted({root for root in _ROOTS if root not in {"mật_khẩu"}} | {"sandi", "laluan", "mật_khẩu"}))


def _credential_lines(text: str, lowered: str, gates: frozenset[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each line holding a credential root, in order, without repeats."""
    starts: set[int] = set()
    for root in gates:
        pos = lowered.find(root)
        while pos != -1:
            starts.add(lowered.rfind("\n", 0, pos) + 1)
            pos = lowered.find(root, pos + len(root))
    lines = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append((start, len(text) if end == -1 else end))
    return lines


def _declaration_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for line_start, line_end in _credential_lines(text, lowered, gates):
        for form in _FORMS:
            for match in form.finditer(text, line_start, line_end):
                name = match.group("name")
                extra = name.lower() in EXTRA_PASSWORD_WORDS
                if not extra and credential_word_kind(name) is None:
                    continue
                group = next(g for g in ("value", "bare", "element") if g in form.groupindex and match.group(g) is not None)
                value = match.group(group)
                if len(value.strip()) < 3 or is_placeholder(value) or value.strip().lower() in {"str", "string"}:
                    continue
                yield match.start(group), match.end(group), "password" if extra or "pass" in name.lower() else "secret"


DECLARATION_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_declaration_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: typed declarations, #define, fish/csh set, namespaced XML (see memctl.scrub.declarations)",
    ),
)
"""One finder for the declaration forms in the module docstring."""
