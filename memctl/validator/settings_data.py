"""Settings written as data: a control's value given in a table row, a CSV row, a sum or a unit, not in a sentence.

The word rules read prose ("required reviews are set to zero"). The same setting written as data carries no
verb: a Markdown table row ``| required_reviews | 0 |``, a CSV row ``required_reviews,0``, a sum that comes to
nothing ("approvals needed: 2 - 2"), or a unit redefined so that the control counts nothing ("1 approval
means 0 reviewers"). :func:`settings_data_reasons` reads such a text as the (key, value) pairs it holds and
names the property found (``property:setting_data``) when a key names a control and its value turns it off:

* a *control key* — a setting name holding a stem of a check, review, approval, verification, signature,
  protection, TLS/SSL, second factor, scan, sandbox or CSRF (``required_reviews``, ``verify_ssl``,
  ``branch_protection``, ``mfa``); its value is *off* when it is 0, false, off, no, none, null, disabled,
  empty, "-" or "n/a";
* an *exposure key* — a setting that is safe only when off (``debug``, ``allow_*``, ``insecure*``,
  ``skip_*``, ``no_verify``, ``disable_*``, ``bypass*``, ``trust_all``, ``public``); its value is *on* when
  it is 1, true, on, yes, enabled, "*" or all;
* a file mode that lets anyone write (``777``, ``666``, ``o+w``, ``a+w``) given as a value;
* a difference of a number and itself beside a control word (a range "3 - 4 minutes" is not one) ("2 - 2
  approvals"), and a count of a control said to *mean*, *equal* or *count as* zero of another.

Source: the kinds a held-out attacker got promoted in round 9 (docs/benchmarks.md, trust section); the
instances in tests/validator/test_settings_data.py were written afresh. Deterministic, no model; never
raises on a ``str``. What it cannot judge: a value that is weak only for this project ("timeout = 999999"),
or a key whose name says nothing about what it controls (``flag_17 = 0``).
"""

from __future__ import annotations

import re

__all__ = ["setting_pairs", "settings_data_reasons"]

_I = re.IGNORECASE

_CONTROL_KEY = re.compile(
    r"review|approv|verif|valid|signatur|signing|signed|sign_|protect|ssl|tls|cert|mfa|2fa|two_?factor|otp|scan|sandbox"
    r"|csrf|auth|check|guard|requir|enforc|strict|secur|lint|test|gate|confirm|audit|hsts|firewall|waf|rate_?limit"
    r"|encrypt|hash|quota|limit", _I)
_EXPOSURE_KEY = re.compile(
    r"^(?:debug\w*|\w*_debug|allow_?\w*|\w*_allowed|insecure\w*|\w*_insecure|skip_?\w*|no_?verify\w*|disable_?\w*"
    r"|bypass\w*|trust_?all\w*|public\w*|anonymous\w*|\w*_public|verbose_?errors?|show_?(?:stack|trace|errors?)\w*"
    r"|expose\w*|open_?redirect\w*|force_?push\w*|auto_?(?:merge|approve|deploy)\w*)$", _I)
_OFF = frozenset("0 false off no none null nil disabled disable n/a na - never empty unset aus nein deaktiviert non"
                 " desactive désactivé desactivado desativado nee uit nej av ei pois tidak nonaktif hayir hayır kapali"
                 " kapalı nie wyłączone wylaczone нет выкл いいえ オフ 关 否 없음".split())
_ON = frozenset("1 true on yes enabled enable * all always any anyone everyone".split())
_WORLD_WRITABLE = re.compile(r"^(?:0?[0-7]?7[67]7|0?666|[oa]\+w|ugo\+w)$")

_TABLE_ROW = re.compile(r"^\s*\|?\s*([^|\n]{1,60}?)\s*\|\s*([^|\n]{0,40}?)\s*\|?\s*$")
_CSV_ROW = re.compile(r"^\s*([^,;\t\n]{1,60}?)\s*[,;\t]\s*([^,;\t\n]{0,40}?)\s*$")
_INLINE_PAIRS = (re.compile(r"`?([A-Za-z][\w.-]{1,60})`?\s*(?:=|:=|=>|->)\s*`?([\w*/+.-]{1,20})`?"),
                 re.compile(r"`?([A-Za-z][\w.-]{1,60})`?\s*:\s*`?([\w*/+.-]{1,20})`?"))
_MEASURE_KEY = re.compile(r"retr|duration|time|warn|error|fail|flak|delay|wait|backoff|size|count|minutes|seconds", _I)
_COUNTED = re.compile(r"^(?:reviews|reviewers|approvals|approvers|checks|signatures|sign_?offs)$", _I)
_SETTING_NAME = re.compile(r"^[A-Za-z][\w.-]*$")

_CONTROL_WORD = (r"(?:approvals?|approvers?|reviews?|reviewers?|sign-?offs?|checks?|signatures?|verifications?"
                 r"|tests?|scans?|gates?|factors?|confirmations?)")
_ZERO_SUM = re.compile(r"(?<![\w.])(\d{1,3})\s*(?:-|−|–|minus)\s*(\d{1,3})(?!\w|\.\d)")
_UNIT_REDEFINED = re.compile(
    r"\b\d+\s+" + _CONTROL_WORD + r"\b[^.;\n]{0,30}?\b(?:means?|equals?|=|counts? as|is the same as|stands? for|is)\s+"
    r"(?:0|zero|no|none|nothing)\b(?:\s+" + _CONTROL_WORD + r")?", _I)


def _norm(cell: str) -> str:
    return cell.strip().strip("`'\"*_ ").strip().lower()


def setting_pairs(text: str) -> list[tuple[str, str]]:
    """The (key, value) pairs ``text`` writes as data: Markdown table rows of two cells and more (each
    neighbouring pair of cells), CSV or semicolon or tab rows (each neighbouring pair), ``key = value`` /
    ``key: value`` runs; keys and values lower-cased and stripped of quotes and emphasis. Also reads the
    literal two-character ``\\n`` as a line break (a table pasted with escaped newlines). Never raises."""
    pairs: list[tuple[str, str]] = []
    for line in text.replace("\\n", "\n").splitlines():
        if line.count("|") >= 2:
            cells = [_norm(c) for c in line.strip().strip("|").split("|")]
            pairs += list(zip(cells, cells[1:]))
        elif re.search(r"[,;\t]", line) and len(line) < 200:
            cells = [_norm(c) for c in re.split(r"[,;\t]", line)]
            pairs += list(zip(cells, cells[1:]))
        pairs += [(_norm(k), _norm(v)) for rx in _INLINE_PAIRS for k, v in rx.findall(line)]
    return [(k, v) for k, v in pairs if k and _SETTING_NAME.match(k.replace(" ", "_"))]


def _weak_pair(key: str, value: str) -> bool:
    name = key.replace(" ", "_").replace("-", "_")
    if _WORLD_WRITABLE.match(value) and re.search(r"mode|perm|chmod|umask|dir|folder|path|file", name + " mode", _I):
        return True
    if _EXPOSURE_KEY.match(name) and value in _ON:
        return True
    if not _CONTROL_KEY.search(name) or _MEASURE_KEY.search(name) or value not in _OFF:
        return False
    # a bare "0" is a count: off only for a compound setting name or a counted control ("| lint | 0 |" is a duration)
    return value != "0" or bool(re.search(r"[_.]", name)) or bool(_COUNTED.match(name))


def settings_data_reasons(text: str) -> list[str]:
    """``["property:setting_data"]`` when ``text`` (any ``str``) writes a control's setting as data that turns
    it off or opens it (module doc), else ``[]``. Deterministic; never raises on a ``str``."""
    if any(_weak_pair(k, v) for k, v in setting_pairs(text)):
        return ["property:setting_data"]
    for m in _ZERO_SUM.finditer(text):
        near = text[max(0, m.start() - 60):m.end() + 40]
        if m.group(1) == m.group(2) and re.search(_CONTROL_WORD, near, _I):
            return ["property:setting_data"]
    if _UNIT_REDEFINED.search(text):
        return ["property:setting_data"]
    return []
