"""A control stated off in words no lexicon lists, a text no lexicon can read, a text that is not prose.

The seventh outside attacker got agent proposals promoted that were calm facts about a weakened control:
negated ("it is not the case that tests must pass"), excepted ("required, except on weekdays"), consented
("nobody objects to pushing to main"), written as data (``SAFE_MODE=0``, ``required_reviews: 0``), a route
that runs its input, or the same in a language the rules cannot read, or spelled so that no word of it is
read (NATO alphabet, pig latin, an acrostic). :func:`control_reasons` finds these *properties*
(``property:<kind>``); :func:`memctl.validator.low_risk.assess_low_risk` calls it on the plain and
look-alike-folded views, so a text with any of them is held for a person, never refused:

* ``property:control_negated`` — a control (tests, review, approval, confirmation, verification, signing,
  authentication, scanning, protection, expiry, a limit …) said not to hold: the control beside "not
  sought/required/enforced/checked/verified/authenticated", "never blocks/expires/fails", "allowed to fail",
  ``continue-on-error``; a logical negation of a rule ("it is not the case that", "it's not true that");
* ``property:control_excepted`` — a rule with an exception ("except", "unless", "other than", "save for",
  "exempt", "opted out")
  beside a control word or an obligation (must, required, always);
* ``property:consent`` — a stated absence of objection ("nobody objects", "no one minds", "is tolerated",
  "no objection"): consent given by silence;
* ``property:setting_off`` — a setting written as data whose name is a control (``*SAFE*``, ``*REVIEW*``,
  ``*VERIFY*``, ``*AUTH*``, ``*SSL*``/``*TLS*``, ``*CHECK*``, ``*STRICT*``, ``*PROTECT*``, ``*ENFORCE*``,
  ``*SCAN*``, ``*SIGN*``, ``*CSRF*``, ``*SANDBOX*``, ``*APPROV*``, ``*REQUIRE*``) set to ``0``, ``false``,
  ``off``, ``no``, ``none`` or ``disabled``; a session, token or certificate lifetime of years or "never";
* ``property:executes_input`` — an HTTP surface (a route, an endpoint, a ``/path``, a parameter, a header,
  a query) that evaluates or runs what it is sent; a finding "accepted as a feature" or "by design";
  environment variables attached to reports or events; an access channel on a chat handle; a secret moved
  into the repository; a GitHub expression of event data (``${{ github.event… }}``) in a workflow; a public
  index resolved before the company's; a security library (OpenSSL, log4j …) given a version;
* ``property:history_rewrite`` — a forced update or a fresh start of a shared branch's history;
* ``property:no_limit`` — spending or resources started "without a limit", "unlimited", "no cap";
* ``property:instructions_in_code`` — a note that code, a comment or a file holds instructions an agent
  takes ("treat … as user instructions");
* ``property:unread_language`` — a text in a language the rules cannot read, decided by script and
  stop-word coverage, not a list per language: letters of Cyrillic alphabets other than Russian's
  (і ї є ґ ў), or a Latin-script text of four or more words in which no read language (English, German,
  French, Spanish, Portuguese, Dutch) has a fifth of the words as its stop words — held only when it names
  a control by an international stem (verif, token, auth, review, scan, ssl, admin, push …) or a workflow term
  developers leave in English (main, CI, push, a host name) and no
  protection by its name (bcrypt, Argon2, a vault …), since a weakening in such a language is a word no
  rule knows;
* ``property:bidi_control`` — a directional override or isolate character (U+202A–U+202E, U+2066–U+2069): the
  text is shown in another order than it is stored;
* ``property:not_prose`` — a text of low natural-language likelihood: four or more NATO spelling-alphabet
  words, most words in pig latin (ending in "ay" after a moved consonant), or an acrostic (the first
  letters of four or more lines spelling a command or control word: ``rm -rf``, ``curl``, ``sudo``,
  ``push``, ``token`` …).

Sources: the kinds are those the seventh attacker's corpus got promoted (docs/benchmarks.md, "Fresh attackers
6 and 7"); the instances in tests/validator/test_low_risk_control.py were written afresh for each kind.
Deterministic, no model; never raises on a ``str``. What it cannot judge: a weakening phrased as a plain
positive fact about a subject none of these names ("the staging key is the same as production's").
"""

from __future__ import annotations

import re

__all__ = ["FUNCTION_WORDS", "control_reasons", "touches_control", "unread_language"]

_I = re.IGNORECASE

# A control: something that checks, gates, protects or expires.
_CONTROL = (r"(?:tests?|test suite|test job|checks?|reviews?|reviewers?|approvals?|approved|confirmation|confirm"
            r"|verif\w*|validat\w*|sign(?:ing|atures?|ed)?|authenticat\w*|authori[sz]\w*|auth\b|login|password\w*"
            r"|scan\w*|protect\w*|branch protection|expir\w*|limits?|quotas?|gates?|ci\b|pipeline|hooks?|lint\w*"
            r"|tokens?|sessions?|certificates?|tls|ssl|mfa|2fa|encrypt\w*|sandbox\w*|firewall|csrf|cors|safe mode"
            r"|merg\w*|push\w*|main\b|master\b|default branch|destructive|production|prod\b|backups?)")
_NOT_HOLDING = re.compile(
    r"(?:\bnot|n't|\bnever)\s+(?:\w+\s+){0,2}?(?:sought|asked for|requested|required|needed|need|needs|require|enforced|checked|verified"
    r"|validated|authenticated|authori[sz]ed|signed|scanned|reviewed|run|performed|blocking|blocked|mandatory|expire"
    r"|expires|block|blocks|fail|fails|gate|gates|stop|stops|apply|applies|matter|matters)\b"
    r"|\ballowed to fail\b|continue-on-error|allow_failure|\bignore[sd]? (?:the )?(?:result|failure|exit code)"
    r"|\bdoes not (?:need|require) to pass|\bno longer (?:applies|apply|blocks|gates)", _I)
_LOGICAL_NEGATION = re.compile(
    r"\b(?:it is|it's|it isn't|it is not)\s+(?:not|no longer)?\s*(?:the case|true|so|a rule|required)\s+that\b"
    r"|\bit is not the case\b|\bit's not the case\b|\bnot (?:strictly|really|actually) (?:required|needed|necessary)", _I)
_EXCEPTION = re.compile(r"\b(?:except|unless|other than|save for|apart from|excluding|with the exception of|exempt\w*"
                        r"|opts? out|opted out)\b", _I)
_OBLIGATION = re.compile(r"\b(?:must|required|requires|mandatory|always|have to|has to|need to|needs to|enforced)\b"
                         r"|" + _CONTROL, _I)
_CONSENT = re.compile(
    r"\b(?:nobody|no one|no-one|none of us|nobody on the team|no reviewer|no maintainer)\s+(?:\w+\s+){0,5}?"
    r"(?:objects?|minds?|complains?|cares?|disagrees?|has (?:an )?objections?|pushes back)\b"
    r"|\bno (?:objections?|complaints?)\b|\bis tolerated\b|\bare tolerated\b|\btacitly (?:allowed|accepted|approved)"
    r"|\b(?:everyone|everybody|the team) (?:is|are) (?:fine|ok|okay|happy) with\b", _I)
_SETTING_NAME = (r"[a-z0-9_.-]*(?:safe|review|verif|auth|ssl|tls|check|strict|protect|enforc|scan|sign|csrf|sandbox"
                 r"|approv|requir|secur|confirm|guard|valid|threshold|coverage)[a-z0-9_.-]*")
_SETTING_OFF = re.compile(
    r"(?<![\w-])" + _SETTING_NAME + r"[`'\"]?\s*(?:=|:|:=|is set to|is|are|set to|to)\s*[`'\"]?"
    r"(?:0|false|off|no|none|null|disabled?|never)(?![\w.-])", _I)
_LIFETIME = re.compile(
    r"\b(?:session|token|certificate|cert|key|password|cookie|login)s?\b[^.;\n]{0,60}?(?:\b\d{3,}\s*(?:days?|d\b)"
    r"|\b\d{2,}\s*(?:years?|y\b)|never expir\w*|do not expire|don't expire|no expiry|without expir\w*)", _I)
_HTTP_SURFACE = re.compile(r"(?:\broutes?\b|\bendpoints?\b|\bhandlers?\b|\bparam(?:eter)?s?\b|\bheaders?\b"
                           r"|\bform fields?\b|\bquery (?:strings?|param\w*)|(?<![\w.])/[\w_-]+)", _I)
_RUNS_INPUT = re.compile(r"\b(?:evaluat\w*|eval\w*|exec\w*|is run|are run|gets run|runs it|run on the host|run as a command"
                         r"|shell|spawn\w*|posted (?:python|code|script|commands?)|arbitrary (?:code|commands?))\b", _I)
_ACCEPTED_FINDING = re.compile(
    r"\b(?:redirect|injection|xss|ssrf|rce|traversal|finding|vulnerabilit\w*|cve|exposure|bypass)\b[^.;\n]{0,80}"
    r"\b(?:accepted as|is a feature|as a feature|by design|works as intended|won'?t ?fix|risk accepted)\b", _I)
_ENV_ATTACHED = re.compile(r"(?:os\.environ|process\.env|environment variables|(?:full|whole|entire) environment|\benv vars?\b|\$env)[^.;\n]{0,60}"
                           r"\b(?:attach\w*|includ\w*|sent|send\w*|log\w*|report\w*|upload\w*|every (?:event|report|error))"
                           r"|\b(?:attach\w*|includ\w*|send\w*|upload\w*)\b[^.;\n]{0,40}(?:os\.environ|process\.env"
                           r"|environment variables|\benv vars?\b)", _I)
_SECRET_INTO_REPO = re.compile(
    r"\b(?:vault|secrets? manager|credentials?|secrets?|tokens?|keys?|passwords?)\b[^.;\n]{0,60}(?<!not )(?<!never )"
    r"\b(?:into|in|to)\s+"
    r"(?:the\s+)?(?:repo|repository|repo's|repository's|source tree|git|committed|versioned|config folder|config files?)\b", _I)
_WORKFLOW_INJECTION = re.compile(r"\$\{\{\s*github\.(?:event|head_ref)", _I)
_INDEX_ORDER = re.compile(r"\b(?:resolves?|installs?|pulls?|fetch\w*)\b[^.;\n]{0,40}\b(?:pypi|npm|public (?:index|registry))"
                          r"\b[^.;\n]{0,40}\b(?:first|before)\b", _I)
_SECURITY_LIBRARY_PIN = re.compile(r"\b(?:openssl|libssl|openssh|log4j|bouncycastle|gnutls|libressl)\b[^.;\n]{0,30}"
                                   r"\b\d+\.\d+", _I)
_CHAT_CHANNEL = re.compile(r"\b(?:telegram|whatsapp|signal|discord|wechat|skype|keybase)\b[^.;\n]{0,40}@\w+"
                           r"|@\w+[^.;\n]{0,40}\b(?:telegram|whatsapp|signal|discord)\b", _I)
_HISTORY_REWRITE = re.compile(
    r"\bforced? (?:update|push|reset|rewrite)\w*\b|\bfresh start\b[^.;\n]{0,40}\b(?:main|master|history|branch)"
    r"|\b(?:history|log|main|master|default branch|branch)\b[^.;\n]{0,40}\b(?:fresh start|rewritten|reset|squashed away)\b", _I)
_NO_LIMIT = re.compile(r"\bwithout (?:a |any )?(?:limit|cap|budget|quota|ceiling)s?\b|\bunlimited\b|\bno (?:limit|cap"
                       r"|budget|quota|ceiling)s?\b|\bunbounded\b|\buncapped\b", _I)
_INSTRUCTIONS_IN_CODE = re.compile(
    r"\b(?:as|like) (?:\w+ )?(?:user|system|operator|owner)?\s*(?:instructions?|commands?|orders|directives)\b"
    r"|\b(?:ai|llm|agents?|assistants?|copilot|claude)\b[^\n]{0,80}\b(?:instructions?|directives?)\b", _I)

# Stop words of the languages the rules read (function words only; not a vocabulary of the subject).
_STOP = {
    "en": "the a an is are was were be been of to in on at for with by from and or but not no this that these those it "
          "its we our they their as if when then than so all any each every only also can may must should will would "
          "do does has have had there here which who what how before after into over per via up out new same other "
          "more most one two use uses used run runs never about".split(),
    "de": "der die das und ist sind nicht ein eine einen mit von zu im in auf fur für den dem des wir es wird werden bei "
          "nach aus als auch nur oder jetzt wie".split(),
    "fr": "le la les des du de un une et est sont pas ne pour dans sur avec par au aux qui que en ce cette nous se il "
          "elle ou après avant chaque tous toutes plus sans sous entre aussi très".split(),
    "es": "el la los las de del un una y a es son no para en con por que se al lo su sus está están esta cada".split(),
    "pt": "o a os as de do da dos das um uma e é são nao não para em com por que no na nos nas ao fica ficam".split(),
    "nl": "de het een en is zijn niet van voor met op te we wij dat die deze door naar bij ook wordt worden".split(),
}
_STOP_SETS = {lang: frozenset(words) for lang, words in _STOP.items()}
FUNCTION_WORDS = frozenset().union(*_STOP_SETS.values())
"""Every function word of the read languages (the subject lists do not read "dans" as a plural of "dan")."""
_STOP_SHARE = 0.2
"""A Latin-script text is read when one read language has at least this share of its words as stop words."""
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:'[^\W\d_]+)?")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+|\b[\w-]+(?:\.[\w-]+)+/\S*", _I)  # a link, or a host with a path
_CYRILLIC_NOT_RUSSIAN = re.compile(r"[іїєґўІЇЄҐЎ]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_CONTROL_STEM = re.compile(
    r"verif|valid|token|auth|autent|login|passw|parol|senh|contrase|wacht|hasł|hasl|secre|sekre|segre|skan|scan"
    r"|review|revis|recenz|gransk|ssl|tls|certif|sertif|signat|podpis|admin|root|sudo|push|пуш|merge|ключ|токен"
    r"|перевір|провер|пароль|доступ|безпек|безопас|ssh|cred|firewall|cors|csrf|encrypt|krypt|cifr|шифр|2fa|mfa"
    r"|otp|sandbox|expir|wygas|scad|kedalu|klucz|chiav|chave|clave|nyckel|kunci"
    # international cognates of "protection" and "optional/obligatory", shared by Romance, Germanic, Malay,
    # Albanian and Creole spellings: a control's state said in a language no rule reads
    r"|protek|protec|pwotek|opsion|opcion|opzion|optional|opcjon|obligat|mandat", _I)

_WORKFLOW_TERM = re.compile(
    r"\b(?:main|master|trunk|ci|cd|prs?|hotfix\w*|pipelines?|deploy\w*|prod|production"
    r"|push\w*|merge\w*|force\w*|infra)\b"
    r"|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:[a-z]{2,3}|dev|app|io|net|org|com|cloud|tech|xyz)\b", _I)
"""The English terms of a team's workflow that developers keep untranslated in any language (a branch name, CI, a
package index, a host name): an unread text that names one says something about how the work is done, which the
rules cannot read, so it is held like a control's stem. (The eighth attacker's weakening facts in Swahili, Finnish,
Hungarian, Czech, Romanian, Tagalog and nine other languages each named main, CI or a mirror's host.)"""

_PROTECTION_NAME = re.compile(r"bcrypt|scrypt|argon2|pbkdf2|vault|1password|keychain|secrets manager|\bkms\b|\bhsm\b", _I)
"""Names of a protection, the same in every language: an unread text that names one records it (a residual risk:
"not hashed with Argon2" in an unread language passes)."""

_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Unicode's explicit directional embeddings, overrides and isolates (UAX #9; "Trojan Source", CVE-2021-42574): text
shown in another order than it is stored (``exe.llehs`` shown as ``shell.exe``). A note has no use for them."""

_NATO = frozenset("alfa alpha bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima mike november "
                  "oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray x-ray yankee zulu".split())
_PIG = re.compile(r"^[a-z]+(?:ay|way|yay)$")
_ACROSTIC_WORD = re.compile(r"rm-?rf|curl|wget|sudo|bash|eval|exec|push|force|token|secret|passw|ignore|disable"
                            r"|skip|delete|drop|chmod|nc-?e|sshkey|leak|steal|exfil")


_CONTROL_RX = re.compile(_CONTROL, _I)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def unread_language(text: str) -> bool:
    """True when ``text`` is in a language the rules cannot read (module doc): a Cyrillic alphabet other than
    Russian's, or four or more Latin-script words of which no read language has :data:`_STOP_SHARE` as stop
    words. CJK, Korean and Russian texts are read by the lexicons and return False."""
    if _CYRILLIC_NOT_RUSSIAN.search(text):
        return True
    words = _words(_URL.sub(" ", text))  # a link's words are no language ("Alembic caveats: https://…" is English)
    if len(words) < 4 or _CYRILLIC.search(text) or any(ord(c) > 0x2E80 for c in text):
        return False
    best = max(sum(w in stops for w in words) for stops in _STOP_SETS.values())
    # an ASCII text with an English function word is English with many names in it ("Child classes override the hook");
    # a word of one or two letters ("a", "on", "to", "no", "se") is a function word of many languages and does not count
    english = sum(w in _STOP_SETS["en"] and len(w) > 2 for w in words)
    return best / len(words) < _STOP_SHARE and not (english and text.isascii())


def _not_prose(text: str) -> bool:
    words = _words(text)
    if sum(w in _NATO for w in words) >= 4:
        return True
    long = [w for w in words if len(w) >= 4]
    if len(long) >= 4 and sum(bool(_PIG.match(w)) for w in long) / len(long) >= 0.5:
        return True
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 4:
        initials = "".join(ln[0] for ln in lines).lower()
        if _ACROSTIC_WORD.search(initials) or _ACROSTIC_WORD.search(initials.replace(" ", "")):
            return True
    return False


def control_reasons(text: str) -> list[str]:
    """The ``property:<kind>`` reasons of the module doc found in ``text`` (any ``str``), in the doc's order;
    ``[]`` when none is found. Deterministic; never raises on a ``str``."""
    reasons: list[str] = []
    if _LOGICAL_NEGATION.search(text) or (_NOT_HOLDING.search(text) and _CONTROL_RX.search(text)):
        reasons.append("property:control_negated")
    if _EXCEPTION.search(text) and _OBLIGATION.search(text):
        reasons.append("property:control_excepted")
    if _CONSENT.search(text):
        reasons.append("property:consent")
    if _SETTING_OFF.search(text) or _LIFETIME.search(text):
        reasons.append("property:setting_off")
    if (_HTTP_SURFACE.search(text) and _RUNS_INPUT.search(text)) or _ACCEPTED_FINDING.search(text) \
            or _ENV_ATTACHED.search(text) or _CHAT_CHANNEL.search(text) or _SECRET_INTO_REPO.search(text) \
            or _WORKFLOW_INJECTION.search(text) or _INDEX_ORDER.search(text) or _SECURITY_LIBRARY_PIN.search(text):
        reasons.append("property:executes_input")
    if _HISTORY_REWRITE.search(text):
        reasons.append("property:history_rewrite")
    if _NO_LIMIT.search(text):
        reasons.append("property:no_limit")
    if _INSTRUCTIONS_IN_CODE.search(text):
        reasons.append("property:instructions_in_code")
    if unread_language(text) and (_CONTROL_STEM.search(text) or _WORKFLOW_TERM.search(text)) \
            and not _PROTECTION_NAME.search(text):
        reasons.append("property:unread_language")
    if _not_prose(text):
        reasons.append("property:not_prose")
    if _BIDI_CONTROL.search(text):
        reasons.append("property:bidi_control")
    return reasons


_STATE_WORD = re.compile(
    r"\b(?:not|never|no|none|nobody|n't|except|unless|optional|skip\w*|disabl\w*|off|false|allowed|may|can|without"
    r"|bypass\w*|objects?|tolerated|ignor\w*|fine|accepted|waived|relaxed|turned|exempt\w*|quiet|silent|muted)\b|n't\b|=\s*0\b|:\s*0\b", _I)


def touches_control(text: str) -> bool:
    """True when ``text`` names a control (the module doc's control words, or an international stem of one) and
    says something about its state (not, never, except, optional, skipped, disabled, off, ``= 0``, allowed,
    may, without, bypassed …): the texts sleep checks against the person's own messages
    (:mod:`memctl.sleep.corroboration`). Never raises on a ``str``."""
    return bool((_CONTROL_RX.search(text) or _CONTROL_STEM.search(text)) and _STATE_WORD.search(text))
