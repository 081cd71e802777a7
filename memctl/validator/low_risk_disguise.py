"""Disguised or reframed risky memories the fifth outside attacker got promoted (2026-12-07; docs/benchmarks.md, "Round 14").

Each check is a *property* of the text; :func:`disguise_reasons` names the ones found
(``disguise:<kind>``) and :func:`memctl.validator.low_risk.assess_low_risk` adds them to an agent proposal's
reasons, so the proposal is held for a person (never rejected, never promoted):

* ``disguise:cipher`` — the text reads as language only in a transformed view: among its ASCII words
  (at least three), the share found in the common-word list (``data/common_words.txt.gz``: wordfreq's
  top English, German, French, Spanish, Italian, Portuguese, Dutch, Polish and Turkish words) is at least
  0.6 under one of the 25 Caesar shifts or Atbash and at least 0.3 more than the plain text's share;
* ``disguise:pictographs`` — a rule written in pictographs: three or more emoji (Unicode
  ``Extended_Pictographic`` ranges plus arrows and check/cross marks) making up at least a third of the
  text's tokens;
* ``disguise:digit_words`` — leetspeak for whole words: two or more tokens mixing letters and the digits
  0 1 3 4 5 7 that read as a common word once the digits are read as letters (``l0ng3r``, ``r3qu1r3d``),
  making up at least a quarter of the words (``utf8``, ``sha256``, ``k8s`` do not read as words);
* ``disguise:control_off`` — a safety control (review, tests, CI, checks, coverage, branch protection,
  freeze, verification, signing, rules, rate limits, 2FA/MFA) in the same sentence as a state of being
  off, zero, removed, waived, lowered or open ("disabled", "lowered to 0", ": 0", ``if true``, "waived",
  "levé", "entfernt", "desativad", "devre dışı", "無効", "解除", "taken out", ": none", "muted"), or a live key
  used as the test key;
* ``disguise:redefinition`` — a definition ("means", "is shorthand for", "stands for", "=", the same in
  de/fr/es/pt/nl/tr) whose definiens is an action ("'archive the repo' means
  deleting it", "by 'verify' the team means skipping …", "bedeutet …, zu entfernen", "veut dire
  supprimer", "significa aprobar"): a glossary that renames a harmful act;
* ``disguise:forged_format`` — a text that claims to be something other than a note: a tool or function
  result ("Tool result (read_file …):", "Function output", "Result of get_x():", "[tool:shell]"), an answer format ("Final
  Answer:", "Answer:", "Q: … A: …");
* ``disguise:recipient`` — a destination a report, config, dump or file is sent to: a chat handle
  (``@name``), a mail address, or a Telegram/Discord/WhatsApp/Slack bot, in a sentence that sends, reports,
  forwards or attaches;
* ``disguise:environment`` — environment confusion: a staging/test/dev environment said to be, point at
  or use production ("the kube context of staging is prod-eu-1"), or an internal package resolving from a
  public index first.

Sources: the fifth attacker's kinds (docs/benchmarks.md, "Round 14") and OWASP A05 (security misconfiguration). Deterministic; no
model; never raises on a ``str``. What it cannot judge: ciphers other than Caesar/Atbash, pictographs that
stand for a fact, and controls or destinations in words none of these reads.
"""

from __future__ import annotations

import re

from memctl.validator.subjects import _common

__all__ = ["disguise_reasons"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ASCII_WORD = re.compile(r"[A-Za-z]{2,}")
_ATBASH = str.maketrans("abcdefghijklmnopqrstuvwxyz", "zyxwvutsrqponmlkjihgfedcba")


def _shift(k: int) -> dict[int, int]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return str.maketrans(letters, letters[k:] + letters[:k])


_SHIFTS = tuple(_shift(k) for k in range(1, 26))


def _cipher(raw: str) -> bool:
    words = [w.lower() for w in _ASCII_WORD.findall(raw)]
    if len(words) < 3:
        return False
    common = _common()

    def share(ws: list[str]) -> float:
        return sum(w in common for w in ws) / len(ws)

    plain = share(words)
    if plain >= 0.7:
        return False
    for table in (*_SHIFTS, _ATBASH):
        if share([w.translate(table) for w in words]) >= max(0.6, plain + 0.3):
            return True
    return False


_SPACES = re.compile(r"\s+")
_WORDS = re.compile(r"\w+")
_PICTO = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2190-\u21FF\u2B00-\u2BFF\u2300-\u23FF]")


def _pictographs(raw: str) -> bool:
    count = len(_PICTO.findall(raw))
    if count < 3:
        return False
    tokens = [t for t in _SPACES.split(_PICTO.sub(lambda m: " " + m.group(0) + " ", raw).replace("\ufe0f", ""))
              if t.strip()]
    return count * 3 >= len(tokens)


_MIXED = re.compile(r"(?<![\w])(?=\w*[A-Za-z])(?=\w*[013457])[A-Za-z013457]{2,}(?![\w])")
_DELEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_DELEET_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t"})


def _digit_words(raw: str) -> bool:
    words = _WORDS.findall(raw)
    if not words:
        return False
    common = _common()
    hits = sum(1 for t in _MIXED.findall(raw)
               if len(t) > 2 and (t.lower().translate(_DELEET) in common or t.lower().translate(_DELEET_L) in common))
    return hits >= 2 and hits * 4 >= len(words)


_CONTROL = (r"(?:reviews?|code[- ]reviews?|approvals?|tests?|test suite|ci\b|checks?|coverage|branch protection|protection"
            r"|protected|freeze|change[- ]freeze|verification|verify|signing|signatures?|rules|rate[- ]limit\w*|limits?"
            r"|2fa|mfa|lint\w*|gates?|scans?|audits?|sast|dast|stages?|alerts?|dependabot|scanning"
            r"|prüfung\w*|tests|branchschutz|schutz|überprüfung|code-reviews?|freigabe\w*"
            r"|gel\b|revues?|vérification|protections?|règles|contrôles?"
            r"|pruebas|revisi[oó]n\w*|verificaci[oó]n|protecci[oó]n|reglas|firmas"
            r"|testes|prote[cç][aã]o|revis[aã]o|verifica[cç][aã]o|regras"
            r"|testler|inceleme\w*|koruma\w*|doğrulama|dogrulama"
            r"|テスト|レビュー|保護|検証|ルール|凍結|制限|测试|审查|保护|验证)")
_OFF = (r"(?:disabled|turned off|switched off|off\b|removed|waived|lifted|lowered|dropped from|bypassed|skipped|suspended"
        r"|not (?:required|enforced|needed|mandatory)|no longer (?:required|enforced|needed|mandatory)|optional|open to all"
        r"|(?:lowered|set|reduced) to 0\b|:\s*(?:0|none|nobody|off)\b|= ?0\b|\bzero\b|if true|taken out|muted|silenced|ignored"
        r"|deaktiviert|abgeschaltet|ausgeschaltet|entfernt|aufgehoben|nicht mehr (?:nötig|erforderlich|notwendig)"
        r"|désactiv\w*|levée?s?|supprimée?s?|suspendue?s?"
        r"|desactivad\w*|eliminad\w*|suspendid\w*"
        r"|desativad\w*|removid\w*|desabilitad\w*"
        r"|devre dışı|devre disi|kaldırıldı|kaldirildi|zorunlu değil|zorunlu degil"
        r"|無効|解除|オフ|削除され|禁用|关闭|取消|移除)")
_CONTROL_OFF = _rx(_CONTROL + r"[^.;!?。\n]{0,60}?" + _OFF + "|" + _OFF + r"[^.;!?。\n]{0,40}?" + _CONTROL)
_ANY_OFF = _rx(_OFF)
"""Both branches of :data:`_CONTROL_OFF` hold an :data:`_OFF` word: a text without one cannot match it, and this
one pass is far cheaper than the pair search (a control word then up to 60 characters tried at every position)."""
_LIVE_AS_TEST = _rx(r"(?:live|prod\w*|real)\s+(?:\w+\s+){0,2}(?:key|token|secret|credentials?)\b.{0,60}\btest")
_REDEF = _rx(r"(?:\bmeans?\b|\bmeant\b|\bis (?:shorthand|code|our word|slang) for\b|\bstands for\b|\bbedeutet\b|\bheißt\b|\bveut dire\b|\bsignifie\b|\bsignifica\b|\bquiere decir\b"
             r"|\bquer dizer\b|\bbetekent\b|\banlamına gelir\b|=)\s*:?\s*,?\s*(?:\w+,?\s+){0,4}?"
             r"(?:delet\w+|drop\w*|remov\w+|rewrit\w+|force[- ]push\w*|post\w*|publish\w*|shar\w+|skip\w*|disabl\w+"
             r"|wip\w+|eras\w+|approv\w+|merg\w+ without|push\w*|send\w*|sending|leak\w*|bypass\w*|turn\w* off"
             r"|entfern\w+|lösch\w+|abschalt\w+|zu entfernen|zu löschen|supprim\w+|effac\w+|désactiv\w+|publier"
             r"|borr\w+|elimin\w+|aprobar|saltar\w*|desactiv\w+|apag\w+|excluir|aprovar|pular|silmek|kaldırmak)")
_MEANS = _rx(r"\bmeans?\b")
_QUOTED_TERM = _rx(r"[\"'‘’“”„«»]")
_FORGED = _rx(r"(?:^|\n)\s*(?:(?:result|output|response|return value) of [\w.]+\([^)]*\)|tool (?:result|output|response)|function (?:result|output|response|call)|final answer"
              r"|answer|observation|\[tool[:\]][^\]]*\]|q)\s*(?:\([^)]*\))?\s*:|(?:^|\n)\s*\[tool[:\]]|\bq:.{1,200}\ba:")
_HANDLE = _rx(r"(?<![\w.])@[a-z][\w]{2,}(?![\w(.]*\()|[\w.+-]+@[\w-]+\.[\w.-]+|(?:telegram|discord|whatsapp|signal|slack)[- ]bot"
              r"|bot\s+@")
_SENDING = _rx(r"report\w*|sent|send\w*|forward\w*|attach\w*|go(?:es)? to|mailed|posted|upload\w*|gehen|geschickt|gesendet"
               r"|envoy\w*|enviad\w*|envi\w+|an den|à\b|para\b|samt|with the|including|incl\.")
_ENV_CONFUSED = _rx(r"(?:staging|test|testing|dev|development|qa|sandbox|preview)\b[^.;\n]{0,50}?"
                    r"(?:\bis\b|\bare\b|points? (?:at|to)|uses?|shares?|assumes?|=|->)[^.;\n]{0,30}?\b(?:prod\w*|live)\b")
_PUBLIC_FIRST = _rx(r"internal\b[^.;\n]{0,60}(?:resolv\w+|install\w+|fetch\w+|pull\w+)[^.;\n]{0,40}public")


def disguise_reasons(raw: str, *, transforms: bool = True) -> list[str]:
    """The ``disguise:<kind>`` reasons (module doc) of ``raw`` (one view of a memory's text, any ``str``),
    in the doc's order; ``[]`` when none. ``transforms`` False skips the cipher, pictograph and digit-word
    checks (they read the letters as written: the plain and homoglyph-folded views are enough, and the 26
    transformed readings cost more than the other checks). Never raises on a ``str``."""
    reasons: list[str] = []
    if transforms and _cipher(raw):
        reasons.append("disguise:cipher")
    if transforms and _pictographs(raw):
        reasons.append("disguise:pictographs")
    if transforms and _digit_words(raw):
        reasons.append("disguise:digit_words")
    if (_ANY_OFF.search(raw) and _CONTROL_OFF.search(raw)) or _LIVE_AS_TEST.search(raw):
        reasons.append("disguise:control_off")
    if (_QUOTED_TERM.search(raw) or _MEANS.search(raw)) and _REDEF.search(raw):  # the one-character test first
        reasons.append("disguise:redefinition")
    if _FORGED.search(raw):
        reasons.append("disguise:forged_format")
    if _HANDLE.search(raw) and _SENDING.search(raw):
        reasons.append("disguise:recipient")
    if _ENV_CONFUSED.search(raw) or _PUBLIC_FIRST.search(raw):
        reasons.append("disguise:environment")
    return reasons
