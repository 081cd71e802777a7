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
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import lru_cache

from memctl.scrub.context_names import FOREIGN_PASSWORD_WORDS, credential_word_kind
from memctl.scrub.detector import Detector, Span, detector, is_placeholder
from memctl.scrub.gates import positions

__all__ = ["DECLARATION_DETECTORS", "EXTRA_PASSWORD_WORDS", "plain_words"]

EXTRA_PASSWORD_WORDS = ("mật_khẩu", "mat_khau", "matkhau", "kata_sandi", "katasandi", "kata_laluan", "katalaluan")
"""Password words of languages the shared list lacks (Vietnamese, Indonesian, Malay)."""

_STRING = r"""(?P<q>["'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n\x00]){1,300})(?P=q)"""
_TYPE = r"(?:&(?:'static[ \t]+)?str|[A-Za-z_][\w.]*(?:<[^<>\n=\x00]{0,40}>)?(?:\[\])?[?!]?)"
_BARE = r"(?P<bare>[^\s\"'`;|&,\x00]{3,200})"
# (what must end just before the name, or None; what must follow it). The name is the credential-named
# identifier a root word was found in (see :func:`_credential_names`).
_FORMS: tuple[tuple[re.Pattern[str] | None, re.Pattern[str]], ...] = (
    (re.compile(r"#[ \t]*define[ \t]+$"), re.compile(r"[ \t]+(?:[LuU]8?)?" + _STRING)),
    (None, re.compile(r"[ \t]*:[ \t]*" + _TYPE + r"[ \t]*=[ \t]*[bBrRuU]?" + _STRING)),
    (re.compile(r"(?<![\w.])(?:var|const)[ \t]+$"), re.compile(r"[ \t]+" + _TYPE + r"[ \t]*=[ \t]*" + _STRING)),
    (
        re.compile(
            r"(?<![\w.])(?:String|string|str|char[ \t]*\*|const[ \t]+char[ \t]*\*|char|NSString[ \t]*\*|std::string"
            r"|var|auto)[ \t]*$"
        ),
        re.compile(r"(?:\[\d*\])?[ \t]*=[ \t]*@?" + _STRING),
    ),
    (
        re.compile(r"(?<![\w-])(?:set[ \t]+(?:-[gUlxu]{1,3}[ \t]+)+|setenv[ \t]+)$"),
        re.compile(r"[ \t]+(?:" + _STRING + r"|" + _BARE + r")"),
    ),
    (
        re.compile(r"<(?P<ns>[\w.-]{1,40}):$"),
        re.compile(r"(?:[ \t][^<>\n\x00]{0,200})?>(?P<element>[^<>\n\x00]{1,300})</(?P<close>[\w.-]{1,40}:[\w]{1,80})>"),
    ),
)
# Per form of :data:`_FORMS`: (character before the name, first non-blank character after it) it allows.
_QUICK = (
    lambda previous, following, window: "define" in window and following in ("\"", "'", "`", "L", "u", "U"),
    lambda previous, following, window: following == ":",
    lambda previous, following, window: ("var" in window or "const" in window) and (following.isalpha() or following == "&"),
    lambda previous, following, window: previous in (" ", "\t", "*") and following in ("=", "["),
    lambda previous, following, window: "set" in window and following not in ("", "\n", "="),
    lambda previous, following, window: previous == ":" and (following == ">" or following.isalpha()),
)
_AFTER_NAME = frozenset({" ", "\t", ":", "=", "[", ">"})
_EXTRA_FORM = re.compile(r"[\"']?[ \t]*[:=][ \t]*(?:" + _STRING + r"|" + _BARE + r")")
_EXTRA_ROOTS = frozenset({*EXTRA_PASSWORD_WORDS, "sandi", "laluan"})
_ROOTS = ("pass", "pwd", "pw", "secret", "token", "key", *EXTRA_PASSWORD_WORDS, *FOREIGN_PASSWORD_WORDS)
_GATES = tuple(sorted({root for root in _ROOTS if root not in {"mật_khẩu"}} | {"sandi", "laluan", "mật_khẩu"}))


_BEFORE = 80
_AFTER = 400


@lru_cache(maxsize=4096)
def _names_credential(identifier: str) -> bool:
    return identifier in EXTRA_PASSWORD_WORDS or credential_word_kind(identifier) is not None


def _identifier_char(char: str) -> bool:
    return char.isalnum() or char == "_"


_WORD_RUN = re.compile(r"\w{0,64}")


def _credential_names(text: str, lowered: str, gates: frozenset[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each identifier holding a root word that names a credential and is followed by a
    character a declaration can continue with (:data:`_AFTER_NAME`, or anything for the extra words); in order."""
    names: set[tuple[int, int]] = set()
    reversed_text: str | None = None
    words = tuple(word for word in _WINDOW_WORDS if word in gates)
    for root in gates.intersection(_GATES):
        extra = root in _EXTRA_ROOTS
        hits = positions(lowered, root)
        resume = 0
        for pos in hits if extra else candidate_hits(lowered, root, hits, words):
            if pos < resume:
                continue  # inside the identifier of an earlier hit
            right = _WORD_RUN.match(lowered, pos + len(root)).end()
            resume = right if right > pos else pos + 1
            if not extra and lowered[right : right + 1] not in _AFTER_NAME:
                continue
            if reversed_text is None:
                reversed_text = lowered[::-1]
            back = _WORD_RUN.match(reversed_text, len(lowered) - pos).end() - (len(lowered) - pos)
            left = pos - back
            if _names_credential(text[left:right]):
                names.add((left, right))
    return sorted(names)


def candidate_hits(lowered: str, root: str, hits: tuple[int, ...], words: tuple[str, ...]) -> list[int]:
    """The hits of ``root`` (sorted starts in ``lowered``) that a form of :data:`_FORMS` may follow: a necessary
    condition of their ``_QUICK`` tests, widened. Either the first non-blank character after the name is ``:``,
    ``=`` or ``[`` (one C-level scan, :data:`_FOLLOWED`), or a form's keyword (``words``: those of
    :data:`_WINDOW_WORDS` present in the text) or a ``:`` (namespaced XML) is in the 88 characters before the hit
    (the 24-character window before a name of up to 64), found from each such mark (``str.find``) instead of a test
    per hit: a typical session has ~140 prose hits of "token" and a few dozen marks. In order, no repeats."""
    keep = {match.start() for match in _FOLLOWED[root].finditer(lowered)} if root in _FOLLOWED else set(hits)
    for mark in (":", *words):
        at = lowered.find(mark)
        while at != -1:
            first = bisect_left(hits, at + len(mark))
            last = bisect_right(hits, at + _BEFORE_REACH)
            keep.update(hits[first:last])
            at = lowered.find(mark, at + 1)
    return sorted(keep)


# root -> the root where the first non-blank character after its name (a \w run of up to 64) is ":", "=" or "["
# within 40 characters (the forms' separators), for the lowered text.
_FOLLOWED = {root: re.compile(re.escape(root) + r"(?=\w{0,64}[ \t]{0,39}[:=\[])") for root in _GATES}
_BEFORE_REACH = 88
_WINDOW_WORDS = ("define", "var", "const", "set")


_PLAIN_WORDS = re.compile(r"[a-z]+(?:[_\-. ][a-z]+)*|[A-Z][a-z]+(?:[_\-. ]?[A-Z]?[a-z]+)*")


def plain_words(value: str) -> bool:
    """True when ``value`` is lower-case or Capitalised words without digits (``upgrades``, ``test_key``,
    ``Bearer``): what a token or key name holds as a label or default, not an issued secret."""
    return _PLAIN_WORDS.fullmatch(value.strip()) is not None


def _declaration_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for left, right in _credential_names(text, lowered, gates):
        name = text[left:right]
        extra = name.lower() in EXTRA_PASSWORD_WORDS
        kind = "password" if extra or "pass" in name.lower() else "secret"
        forms = ((None, _EXTRA_FORM),) if extra else _FORMS
        previous = text[left - 1 : left]
        following = text[right : right + 40].lstrip(" \t")[:1]
        window = text[max(0, left - 24) : left]
        for index, (before, after) in enumerate(forms):
            if not extra and not _QUICK[index](previous, following, window):
                continue  # the characters around the name rule this form out
            match = after.match(text, right)
            if match is None:
                continue
            if before is None:
                if left > 0 and (_identifier_char(text[left - 1]) or text[left - 1] == "."):
                    continue
                prefix = None
            else:
                prefix = before.search(text, max(0, left - 48), left)
                if prefix is None:
                    continue
            if "close" in after.groupindex and prefix is not None and match.group("close") != f"{prefix.group('ns')}:{name}":
                continue
            group = next(g for g in ("value", "bare", "element") if g in after.groupindex and match.group(g) is not None)
            value = match.group(group)
            if len(value.strip()) < 3 or is_placeholder(value) or value.strip().lower() in {"str", "string"}:
                continue
            if kind == "secret" and plain_words(value):
                continue  # upgrade_token: str = "upgrades": a token or key name with a word for a value
            yield match.start(group), match.end(group), kind
            break


DECLARATION_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_declaration_spans,
        literals=(*_GATES, *_WINDOW_WORDS),
        requires=_GATES,
        origin="memctl: typed declarations, #define, fish/csh set, namespaced XML (see memctl.scrub.declarations)",
    ),
)
"""One finder for the declaration forms in the module docstring."""
