"""Normalised views of a memory's text: every check of the low-risk recogniser runs on each, and a check that
fires on any view counts.

A word list reads the surface: ``cu-rl``, ``ignore-previous``, ``c u r l``, ``ƅranch`` with a look-alike
letter, or a whole rule in rot13 or base64 passes it. :func:`views` yields ``(name, text)`` pairs, the
original first, then only the views that differ from it:

* ``homoglyph`` — look-alike letters folded to Latin per Unicode TR39's confusables
  (:func:`memctl.validator.confusables.fold_confusables`; Cyrillic words of a Russian note stay readable
  because the original is read too);
* ``dehyphenated`` — hyphens and soft hyphens inside words removed (``cu-rl`` → ``curl``), and
  ``hyphen_spaced`` — the same hyphens read as spaces (``ignore-previous`` → ``ignore previous``);
* ``despaced`` — runs of three or more single letters joined (``c u r l`` → ``curl``);
* ``separated`` — letters split by dots, underscores, dashes or spaces joined (``c.u.r.l`` → ``curl``,
  ``w_g_e_t`` → ``wget``; :func:`memctl.validator.low_risk_kinds.join_split_letters`);
* ``camel_case`` — run-ons of three or more humps split (``AlwaysSkipChecks`` → ``Always Skip Checks``;
  ``HttpOnly`` stays);
* the decoded views of :func:`memctl.validator.action_views.reading_views`: base64 (split runs joined),
  hex (spaced or not), ``\\x``/``%``/HTML escapes, decimal codes, Morse, double URL-encoding, leetspeak,
  ROT13 and Caesar shifts when the result reads as words, reversed text — each only where the result is
  readable text (the rules of :mod:`memctl.validator.encoded`).

Deterministic; never raises on a ``str`` (a decoder that fails yields nothing).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memctl.validator.action_views import reading_views
from memctl.validator.confusables import fold_confusables
from memctl.validator.low_risk_kinds import join_split_letters

__all__ = ["views"]

_IN_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u00ad\u2010\u2011](?=[^\W\d_])")
_SOFT = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
_SPACED_LETTERS = re.compile(r"(?<!\w)(?:[^\W\d_][ \t]){2,}[^\W\d_](?!\w)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL_RUN = re.compile(r"[A-Za-z]*[a-z][A-Z][A-Za-z]*[a-z][A-Z][A-Za-z]*")  # two humps: a run-on, not "HttpOnly"
_OWN_VIEWS = frozenset({"plain", "hyphenation", "camel_case"})


@lru_cache(maxsize=4096)
def _view_list(text: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = [("plain", text)]
    seen = {text}

    def add(name: str, view: str) -> None:
        if view and view not in seen:
            seen.add(view)
            out.append((name, view))

    latin = fold_confusables(text)
    add("homoglyph", latin)
    base = _SOFT.sub("", latin)
    if _IN_WORD_HYPHEN.search(base):
        add("dehyphenated", _IN_WORD_HYPHEN.sub("", base))
        add("hyphen_spaced", _IN_WORD_HYPHEN.sub(" ", base))
    else:
        add("dehyphenated", base)
    if _SPACED_LETTERS.search(base):
        add("despaced", _SPACED_LETTERS.sub(lambda m: m.group(0).replace(" ", "").replace("\t", ""), base))
    add("separated", join_split_letters(base))
    if _CAMEL_RUN.search(base):
        add("camel_case", _CAMEL.sub(" ", base))
    try:
        for name, view in reading_views(text):
            if name not in _OWN_VIEWS:
                add(name, view)
    except Exception:  # noqa: BLE001 - a decoder that fails yields no view; the other views still count
        pass
    return tuple(out)


def views(text: str) -> tuple[tuple[str, str], ...]:
    """``(view name, text)`` for ``text``: the original first, then each normalised view that differs (module
    doc). ``()`` when ``text`` is not a ``str``."""
    if not isinstance(text, str):
        return ()
    return _view_list(text)
