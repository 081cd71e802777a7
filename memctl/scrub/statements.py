"""Credentials given by position, said in prose, or printed by a command that reveals secrets.

* Setters and constructors whose argument is the password (the API's own parameter order):
  ``setPassword(…)``/``set_password(…)``/``SetSecret(…)`` (last argument), .NET
  ``NetworkCredential(user, password)``, Python ``smtplib.SMTP.login(user, password)`` and
  ``imaplib``/``ftplib``/``poplib``'s ``login(user, password)``/``pass_(password)``, MongoDB
  ``changeUserPassword(user, password)`` and ``createUser({…pwd: "…"})``;
* SQL: MySQL ``SET PASSWORD [FOR u] = 'x'``, SQL Server ``sp_addlogin 'u', 'x'`` and
  ``sp_password``, Oracle ``user/password@service`` (``sqlplus``, ``expdp``, ``rman``);
* ``chpasswd``/``chpasswd``-style ``user:password`` fed on stdin; expect's ``send "x\\r"`` after a
  password prompt;
* prose and log lines: ``password is X``, ``with password X``, ``password 'X'``, the same with
  passphrase, passcode, PIN-less names in other languages (see
  :data:`memctl.scrub.context_names.FOREIGN_PASSWORD_WORDS`), with up to four words after a
  preposition (``the password for the NAS is X``) or naming words before a colon (``mot de passe admin = X``,
  ``sandi wifi kantor: X``), inflected forms (Turkish ``şifresi``/``parolası``, Swedish ``lösenordet``,
  Indonesian ``sandinya``/``password-nya``), French ``mdp`` and ``c'est``, Vietnamese ``mật khẩu … là``,
  Indonesian ``adalah``/``itu``, Hindi ``का पासवर्ड X है``, a qualifier
  (``the staging db password, for now, is X``, ``password (new) is X``, ``Das Passwort für den Server lautet X``), a
  dash or full-width colon, CJK particles (``パスワードはXです``, ``密码是X``), ``use X as the
  password`` and ``user / X`` after a login or credentials word. A bare word needs a digit or a
  symbol (``password is incorrect`` stays); a quoted one does not;
* credential nouns in prose: ``the webhook secret is X``, ``the prod api token (rotating next week) is
  X``, ``API key was X`` (a verb, not a colon; the value must look issued: letters with digits and
  mixed case, or a random run);
* API key headers: ``x-functions-key``, ``x-api-key``, ``api-key``, ``Ocp-Apim-Subscription-Key``,
  ``x-goog-api-key`` (Azure Functions, Azure API Management, Google);
* output of commands that print a secret: the line after ``kubectl … jsonpath … | base64 -d``,
  ``terraform output -raw``, ``… --with-decryption`` / ``get-secret-value`` JSON ``Value``/
  ``SecretString``, ``az keyvault secret show`` ``value``, ``vault kv get``'s Data table rows,
  ``gcloud secrets versions access``, ``op read``, ``pass``/``gopass show``, ``bw get password``,
  ``doppler secrets get --plain``, ``az keyvault secret show -o tsv``/``--query value``,
  ``vault kv get -field``, ``security find-generic-password -w`` (the first output line).

Only the value is replaced. Placeholders stay (:func:`~memctl.scrub.detector.is_placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import FOREIGN_PASSWORD_WORDS
from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random
from memctl.scrub.gates import positions

__all__ = ["STATEMENT_DETECTORS"]

_Q = r"""\\*(?P<q>["'`])(?P<value>[^"'`\n\x00\\]{3,})\\*(?P=q)"""
_ARG = r"""\\*["'`][^"'`\n\x00\\]*\\*["'`]|[\w.$\[\]"]+"""
_SETTERS = (
    (("pass", "secret", "token", "key"), ("setpass", "set_pass", "set pass", "setsecret", "set_secret", "settoken",
                                          "set_token", "setapikey", "set_api_key"), re.compile(r"(?i:set_?(?:password|passwd|secret|apikey|api_key|token))[ \t]*\((?:[ \t]*(?:" + _ARG + r")[ \t]*,)*[ \t]*" + _Q)),
    (("cred",), ("networkcredential",), re.compile(r"NetworkCredential[ \t]*\([ \t]*(?:" + _ARG + r")[ \t]*,[ \t]*" + _Q)),
    (("login(",), ("login(",), re.compile(r"\.login[ \t]*\([ \t]*(?:" + _ARG + r")[ \t]*,[ \t]*" + _Q)),
    (("pass",), ("pass_(",), re.compile(r"\.pass_[ \t]*\([ \t]*" + _Q)),
    (("pass",), ("changeuserpassword",), re.compile(r"changeUserPassword[ \t]*\([ \t]*(?:" + _ARG + r")[ \t]*,[ \t]*" + _Q)),
    (("pass",), ("set password",), re.compile(r"(?i:set[ \t]+password(?:[ \t]+for[ \t]+[^=\n\x00]{1,80})?[ \t]*=[ \t]*(?:password[ \t]*\([ \t]*)?)" + _Q)),
    (("sp_addlogin",), ("sp_addlogin",), re.compile(r"(?i:sp_addlogin)[ \t]+(?:@loginame[ \t]*=[ \t]*)?N?(?:" + _ARG + r")[ \t]*,[ \t]*(?:@passwd[ \t]*=[ \t]*)?N?" + _Q)),
    (("pass",), ("sp_password",), re.compile(r"(?i:sp_password)[ \t]+(?:N?(?:" + _ARG + r")[ \t]*,[ \t]*)?N?" + _Q)),
    (("pass",), ("send ",), re.compile(r"(?i:(?:assword|passphrase|pass|passwd)[^\n\x00]{0,40}\n[ \t]*send)[ \t]+(?:--[ \t]+)?\"(?P<value>[^\"\n\x00\\]{3,})(?:\\r|\\n)?\"")),
)
_ORACLE = re.compile(r"(?i:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl)(?:[ \t]+-[\w]+)*[ \t]+[\"']?(?P<user>[A-Za-z_][\w$#]*)/(?P<value>[^\s@/\"'\x00]{3,})(?=@|[\s\"']|$)")
_CHPASSWD = re.compile(r"[\"']?[a-z_][\w.-]*:(?P<value>[^\s:'\"\x00]{3,})[\"']?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd")
_PROSE_ROOTS = ("password", "passwd", "passphrase", "passcode", "passe", "pw", "pwd",
                *(w for w in FOREIGN_PASSWORD_WORDS if " " not in w), "sandi", "mdp", "mật khẩu", "mat khau", "pass")
# Inflected forms the regex also reads at a hit of their root (the gate): Turkish possessives (şifresi, şifrem,
# parolası), Swedish and Norwegian/Danish definite forms (lösenordet, passordet), Indonesian -nya (sandinya).
_PROSE_FORMS = (
    "şifresi", "şifrem", "şifreniz", "şifremiz", "şifreyi", "sifresi", "sifrem", "parolası", "parolasi", "parolam",
    "parolanız", "lösenordet", "losenordet", "passordet", "adgangskoden", "sandinya", "salasanasi", "wachtwoordje",
    "password-nya", "passwordnya", "pass-nya",
)
# A possessive form names its owner itself ("veritabanı şifresi X", "sandinya: X"): no determiner is needed before it.
_POSSESSIVE_FORMS = frozenset(w for w in _PROSE_FORMS if w.endswith(("si", "sı", "nya")))
# "the password for the NAS is X", "Das Passwort für den Server lautet X": up to four words
# after a preposition, then a verb or a colon/dash (required after such a clause).
_PROSE_FOR = (r"(?:[ \t]+(?:for|on|of|to|für|fürs|zum|zur|de|du|des|pour|do|da|dos|das|del|para|per|voor|van|dla|до|для|от"
              r"|till|för|på|untuk|ke|di|için)(?:[ \t]+[^\s\"'`:=\x00]{1,40}){1,4}?"
              # Indonesian names the owner with no preposition: "kata sandi server produksi adalah X"
              r"|(?:[ \t]+[^\s\"'`:=\x00]{1,40}){1,3}?(?=[ \t]+(?:adalah|ialah|yaitu|là|ise)[ \t])"
              # one or two words naming what it opens, then a colon or "=": "mot de passe admin = X", "sandi wifi kantor: X"
              r"|(?:[ \t]+[^\W\d_]{2,12}){1,2}(?=[ \t]*[:=：]))")
_PROSE_VERB = (r"(?:[ \t]+(?:is|was|are|has[ \t]+been|ist|lautet|war|es|est|é|è|era|är|er|jest|to|to[ \t]+jest|на|это|adalah|ialah|yaitu|itu|là|ise"
               r"|-|—|–|=)"
               r"(?:[ \t]+(?:set[ \t]+to|changed[ \t]+to|reset[ \t]+to|now))?(?:[ \t]*:)?|[ \t]*,?[ \t]+c['’]est|[ \t]*[:：]|[ \t]*(?:は|是|为|為|는|은))")
# A qualifier between the word and its verb: "the password, for now, is X", "password (new) is X".
_PROSE_QUALIFIER = r"(?:[ \t]*,[^,\n\x00]{1,40},|[ \t]+\([^()\n\x00]{1,60}\))?"
_PROSE = re.compile(
    r"(?P<root>" + "|".join(re.escape(w) for w in (*_PROSE_FORMS, *_PROSE_ROOTS)) + r")" + _PROSE_QUALIFIER + r"(?:" + _PROSE_FOR + _PROSE_VERB + r"|" + _PROSE_VERB
    + r"?(?:[ \t]+(?:set[ \t]+to|changed[ \t]+to|reset[ \t]+to|to|of|auf))?)(?:(?<=[:：は是为為는은])[ \t]*|[ \t]+)"
    r"(?:(?P<q>[\"'`‘“«「])(?P<qvalue>[^\"'`’”»」\n\x00]{3,80})[\"'`’”»」]|(?P<bare>[^\s\"'`,;()\[\]{}<>\x00]{6,80}))",
    re.IGNORECASE,
)
# "the webhook secret is X", "FYI the prod api token (rotating next week) is X", "API key was X":
# a credential noun, a verb (no colon or "=": those are key-name rules), a credential-shaped value.
_NOUN_PROSE = re.compile(
    r"(?P<root>secret|token|key)s?" + _PROSE_QUALIFIER + _PROSE_FOR + r"?[ \t]+(?:is|was|are|were|has[ \t]+been|ist|lautet|war|es|est|é|è|era|är|jest)"
    r"(?:[ \t]+(?:now|still|currently|set[ \t]+to|changed[ \t]+to|reset[ \t]+to|rotated[ \t]+to))?[ \t]*:?[ \t]+"
    r"(?:(?P<q>[\"'`‘“«])(?P<qvalue>[^\"'`’”»\s\x00]{6,120})[\"'`’”»]|(?P<bare>[^\s\"'`,;()\[\]{}<>\x00]{8,120}))",
    re.IGNORECASE,
)
_NOUN_BEFORE = re.compile(
    r"(?i:(?:^|[\s(*>-])(?:the|my|our|your|his|her|their|its|this|that|new|old|a|an|current|fyi|prod|staging)\b[^\n\x00.;!?]{0,40})$"
    r"|(?:^|\n)[ \t]*(?:[-*>#][ \t]*)?(?:[\w-]+[ \t]+){0,3}$"
)
# A necessary condition of _NOUN_PROSE after its root, per root, for the lowered text (its own alternations, widened).
_NOUN_NEXT = {
    root: re.compile(
        root + r"(?=s?(?:[ \t]*,|[ \t]+\(|[ \t]+(?:for|on|of|to|für|fürs|zum|zur|de|du|des|pour|do|da|dos|das|del|para|per"
        r"|voor|van|dla|до|для|от|is|was|are|were|has|ist|lautet|war|es|est|é|è|era|är|jest)[ \t:]))"
    )  # a whole word: _NOUN_PROSE follows each with a blank or ":" ("token tool", "token decoder" are not tried)
    for root in ("secret", "token", "key")
}
_FILE_NAME = re.compile(r"[\w.-]+\.[a-z]{2,5}")
# Scripts written without spaces (CJK ideographs, kana, Hangul, CJK and full-width punctuation):
# the value after "密码是"/"パスワードは"/"비밀번호는" ends where such text resumes ("…，别外传",
# "…です", "…입니다"), and the word may follow such text with no space ("服务器的密码是…").
_CJK_CHARS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
_CJK_TAIL = re.compile(f"[{_CJK_CHARS}].*$", re.DOTALL)
_CJK_BEFORE = re.compile(f"[{_CJK_CHARS}][ \t]?$")
# "use X as the password", "log in with admin / X", "creds are svc / X".
_USE_AS = re.compile(r"(?i:\buse)[ \t]+[\"'`]?(?P<value>[^\s\"'`\x00]{6,80})[\"'`]?[ \t]+(?i:as)[ \t]+(?i:(?:the|your|my|a|an)[ \t]+)?"
                     r"(?i:(?:new[ \t]+|admin[ \t]+|root[ \t]+|db[ \t]+)?(?:password|passphrase|passwd|pw|pass))\b")
_USER_SLASH = re.compile(r"(?i:\blog(?:ged)?[ \t]*(?:in|on)|\bsign(?:ed)?[ \t]*in|\blogin|\bcreds?|\bcredentials?|\bauth)"
                         r"(?:[ \t]+(?:is|are|with|as|using|via))?[ \t]*:?[ \t]+[\"'`]?[\w.@\\-]{1,40}[\"'`]?[ \t]*/[ \t]*"
                         r"[\"'`]?(?P<value>[^\s\"'`\x00]{4,80})")
_PROSE_BEFORE = re.compile(r"(?i:with|the|my|your|das|der|die|mein|dein|el|la|mi|tu|le|mon|ton|o|a|meu|minha|il|het|mijn|mot[ \t]+de|twoje|moje|his|her|our|their|new|old|default|its|admin|root|user|db|\w+'s"
                           # Hindi का/की/के/मेरा, Turkish genitive (sunucunun, benim, yeni), Swedish, Indonesian kata/baru
                           r"|का|की|के|मेरा|मेरी|हमारा|नया|\w+(?:nın|nin|nun|nün|ın|in|un|ün)|benim|yeni|mitt|ditt|vårt|nya|nytt|kata|baru)[ \t]+(?:[\w-]{1,20}[ \t]+){0,2}$|^$|[:>\-*][ \t]*$|(?i:fatal|error|warn\w*|info|debug)\W*[ \t]*$")
# Code, not a literal: settings.db_password, get_password, self.password.
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[a-z]+(?:_[a-z]+)+")
_HEADERS = ("x-functions-key", "x-api-key", "api-key", "ocp-apim-subscription-key", "x-goog-api-key")
_HEADER = re.compile(r"(?P<name>[\w-]{5,40})\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?P<value>[A-Za-z0-9_\-+/=.~%]{12,})")
_PRINTERS = (
    (("base64 -d", "base64 --decode"), re.compile(r"(?i:secret|jsonpath|\.data|getsecret|get-secret)[^\n\x00]*\|[ \t]*base64[ \t]+(?:-d|--decode)[ \t]*(?:;[ \t]*echo)?[ \t]*(?:\n|\\n)(?:```\w*(?:\n|\\n))?(?:Output:(?:\n|\\n))?(?P<value>[^\s\x00`\\]{4,})")),
    (("output -raw",), re.compile(r"output[ \t]+-raw[ \t]+[\w.-]+[^\n\x00]*(?:\n|\\n)(?:```\w*(?:\n|\\n))?(?P<value>[^\s\x00`\\]{4,})")),
    (("secrets versions access",), re.compile(r"versions[ \t]+access[^\n\x00]*(?:\n|\\n)(?P<value>[^\s\x00`\\]{4,})")),
    # Password managers and secret stores printing one value (first output line): 1Password
    # ``op read``, pass/gopass ``show``, Bitwarden ``bw get password``, ``doppler secrets get
    # --plain``, Azure ``az keyvault secret show -o tsv``/``--query value``, ``vault kv get -field``.
    (("op://", "pass show", "pass cat", "bw get password", "--plain", "keyvault secret show", " -field"),
     re.compile(r"(?:^|\n|\\n)[ \t]*(?:[$#>%❯][ \t]*)?(?:sudo[ \t]+)?(?:op[ \t]+read[ \t]+[^\s\x00]|(?:go)?pass[ \t]+(?:show|cat)[ \t]+(?:-{1,2}[\w-]+[ \t]+)*[^\s\x00-]|"
                r"bw[ \t]+get[ \t]+(?:password|totp)|doppler[ \t]+secrets[ \t]+get[^\n\x00]*--plain|"
                r"az[ \t]+keyvault[ \t]+secret[ \t]+show[^\n\x00]*(?:-o[ \t]+tsv|--output[ \t]+tsv|--query[ \t]+[\"']?value)|"
                r"vault[ \t]+kv[ \t]+get[ \t]+-field)[^\n\x00]*(?:\n|\\n)(?:```\w*(?:\n|\\n))?(?P<value>[^\s\x00`\\]{4,})")),
    (("find-generic-password", "find-internet-password"), re.compile(r"find-(?:generic|internet)-password[^\n\x00]*-w[^\n\x00]*(?:\n|\\n)(?P<value>[^\s\x00`\\]{4,})")),
)
_JSON_VALUE = re.compile(r"""\\*["'](?:Value|value|SecretString|SecretValue|secret_value|secretValue|password|data)\\*["'][ \t]*:[ \t]*\\*["'](?P<value>[^"'\\\n\x00]{3,})""")
_JSON_PRINTERS = ("--with-decryption", "get-secret-value", "keyvault secret show", "get-parameter")
_SECRET_PRINTERS = ("secrets versions access", "keyvault secret show")  # found from the hits of "secret"
_PASS_PRINTERS = ("pass show", "pass cat", "bw get password")  # found from the hits of "pass"
_VAULT_ROW = re.compile(r"(?m)^[ \t]*(?P<key>[\w.-]+)[ \t]{2,}(?P<value>[^\s\x00]{3,})[ \t]*$")
_VAULT_METADATA = frozenset({"key", "---", "created_time", "custom_metadata", "deletion_time", "destroyed", "version",
                             "request_id", "lease_id", "lease_duration", "renewable", "warnings", "path"})


def _value_span(match: re.Match[str], group: str = "value") -> Span | None:
    value = match.group(group)
    if value is None or is_placeholder(value):
        return None
    return match.start(group), match.end(group), "password"


def _prose_value_ok(value: str, quoted: bool) -> bool:
    if is_placeholder(value) or value.lower() in {"protected", "incorrect", "required", "invalid", "expired"}:
        return False
    if quoted:
        return len(value.split()) <= 4
    value = value.rstrip(".!?:")
    if len(value) < 6 or value.startswith(("http", "/", "./", "~")) or _IDENTIFIER.fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() and c not in "-_" for c in value)
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (has_digit and any(c.isalpha() for c in value)) or has_symbol or mixed


def _noun_value_ok(value: str) -> bool:
    """A value after "the secret/token/key is": credential-shaped, not a word, path, file or version."""
    if is_placeholder(value) or value.startswith(("http", "/", "./", "~", "ssh-", "ecdsa-", "SHA256:", "MD5:")):
        return False
    if len(value) < 8 or _IDENTIFIER.fullmatch(value) or _FILE_NAME.fullmatch(value) or value.count(".") >= 2:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if not mixed and any(c in "-_." for c in value):
        return False  # words joined: v2-deps-linux-x64, build_2024_q3
    return (has_digit and has_alpha and (mixed or len(value) >= 12)) or looks_random(value, min_len=16)


def _noun_prose_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    """``the <noun> is X`` for secret/token/key, from the hits of those words every rule shares."""
    for root in ("secret", "token", "key"):
        if root not in gates:
            continue
        # Only hits followed by what _NOUN_PROSE needs next (a qualifier, a preposition or a verb) are walked: one
        # C-level scan instead of a regex call per hit (~140 prose hits of "token" in a typical session).
        for hit in _NOUN_NEXT[root].finditer(lowered):
            pos = hit.start()
            if pos > 0 and lowered[pos - 1].isalpha():
                continue  # inside a longer word (monkey, turnkey)
            match = _NOUN_PROSE.match(text, pos)
            if match is None or _NOUN_BEFORE.search(text, max(0, pos - 48), pos) is None:
                continue
            group = "qvalue" if match.group("qvalue") is not None else "bare"
            value = match.group(group).rstrip(".!?:,") if group == "bare" else match.group(group)
            if _noun_value_ok(value):
                yield match.start(group), match.start(group) + len(value), "secret"


def _setter_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    """Setters, chpasswd and expect, tried only where their name sits around a hit of a gate word."""
    for umbrella, all_entries in _SETTERS_BY_GATE.items():
        if umbrella not in gates:
            continue
        # A trigger absent from the whole text is absent from every window: those entries are skipped
        # (the triggers are gate literals, so this costs no scan).
        entries = [entry for entry in all_entries if any(trigger in gates for trigger in entry[0])]
        if not entries and not (umbrella == "pass" and "chpasswd" in gates):
            continue
        for pos in positions(lowered, umbrella):
            window = lowered[max(0, pos - 24) : pos + 24]
            for triggers, pattern in entries:
                near = lowered[pos : pos + 120] if triggers == ("send ",) else window  # expect: send follows the prompt
                if any(trigger in near for trigger in triggers):
                    for match in pattern.finditer(text, max(0, pos - 24), min(len(text), pos + 400)):
                        span = _value_span(match)
                        if span is not None:
                            yield span
            if umbrella == "pass" and "chpasswd" in window:
                for match in _CHPASSWD.finditer(text, max(0, pos - 200), min(len(text), pos + 12)):
                    span = _value_span(match)
                    if span is not None:
                        yield span


def _statement_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _setter_spans(text, lowered, gates)
    if "/" in text and "sqlplus" in gates:
        for match in _ORACLE.finditer(text):
            span = _value_span(match)
            if span is not None:
                yield span
    for root in _PROSE_GATES:
        if root not in gates:
            continue
        for pos in positions(lowered, root):
            if pos > 0 and lowered[pos - 1].isalpha() and root.isascii():
                continue  # inside a longer word (bypass, compass)
            match = _PROSE.match(text, pos)
            if match is None:
                continue
            if match.group("root").lower() not in _POSSESSIVE_FORMS and _PROSE_BEFORE.search(text, max(0, match.start() - 24), match.start()) is None and (
                root.isascii() or _CJK_BEFORE.search(text, max(0, pos - 2), pos) is None
            ):
                continue  # CJK words follow other CJK text with no space: "服务器的密码是…"
            group = "qvalue" if match.group("qvalue") is not None else "bare"
            value = match.group(group)
            if group == "bare" and not value.isascii():
                value = _CJK_TAIL.sub("", value)
            if _prose_value_ok(value, group == "qvalue"):
                end = match.start(group) + len(value.rstrip(".!?:") if group == "bare" else value)
                yield match.start(group), end, "password"
    yield from _noun_prose_spans(text, lowered, gates)
    yield from _pair_spans(text, lowered, gates)
    for name in _HEADERS:
        if name in gates:
            pos = lowered.find(name)
            while pos != -1:
                match = _HEADER.match(text, pos)
                if match is not None and match.group("name").lower() == name and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "secret"
                pos = lowered.find(name, pos + len(name))
    yield from _printed_spans(text, lowered, gates)


def _pair_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    """``use X as the password`` (from the hits of "pass"/"pw") and ``user / X`` after a
    login or credentials word (from the hits of " / ")."""
    for root in ("pass", "pw"):
        if root in gates:
            for pos in positions(lowered, root):
                if " as " not in lowered[max(0, pos - 30) : pos]:
                    continue
                for match in _USE_AS.finditer(text, max(0, pos - 120), min(len(text), pos + 12)):
                    if _prose_value_ok(match.group("value"), False):
                        yield match.start("value"), match.end("value"), "password"
    if " / " in gates:
        pos = lowered.find(" / ")
        while pos != -1:
            line_start = max(lowered.rfind("\n", 0, pos) + 1, pos - 80)
            for match in _USER_SLASH.finditer(text, line_start, min(len(text), pos + 90)):
                value = match.group("value").rstrip(".,;:!?)")
                if _prose_value_ok(value, False) and any(not c.isalpha() for c in value):
                    yield match.start("value"), match.start("value") + len(value), "password"
            pos = lowered.find(" / ", pos + 3)


def _printed_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    secret_hits = positions(lowered, "secret") if "secret" in gates else ()
    present = {name for name in _SECRET_PRINTERS if any(lowered.startswith(name, p - name.index("secret")) for p in secret_hits)}
    if "pass" in gates:  # pass/gopass show: found from the hits of "pass" every rule shares
        present |= {name for name in _PASS_PRINTERS
                    if any(lowered.startswith(name, p - name.index("pass")) for p in positions(lowered, "pass"))}
    for literals, pattern in _PRINTERS:
        if any(literal in gates or literal in present for literal in literals):
            for match in pattern.finditer(text):
                span = _value_span(match)
                if span is not None:
                    yield span[0], span[1], "secret"
    for literal in _JSON_PRINTERS:
        if literal in gates or literal in present:
            pos = lowered.find(literal)
            while pos != -1:
                for match in _JSON_VALUE.finditer(text, pos, min(len(text), pos + 4000)):
                    span = _value_span(match)
                    if span is not None:
                        yield span[0], span[1], "secret"
                pos = lowered.find(literal, pos + 4000)
    if "==== data ====" in gates:
        pos = lowered.find("==== data ====")
        while pos != -1:
            block_end = lowered.find("\n\n", pos)
            block_end = len(text) if block_end == -1 else block_end
            for match in _VAULT_ROW.finditer(text, pos, block_end):
                if match.group("key").lower() not in _VAULT_METADATA and not is_placeholder(match.group("value")):
                    yield match.start("value"), match.end("value"), "secret"
            pos = lowered.find("==== data ====", block_end)


_SETTER_GATES = tuple(sorted({gate for gates_of, _, _ in _SETTERS for gate in gates_of}))
_SETTERS_BY_GATE = {gate: [(triggers, pattern) for gates_of, triggers, pattern in _SETTERS if gate in gates_of]
                    for gate in _SETTER_GATES}
# "pass" finds every English root (password, passwd, passphrase, passcode) and the other words;
# non-ASCII roots cost nothing on an ASCII text; four ASCII foreign roots are scanned.
# ASCII roots in other languages are one substring test each (about 30 per text).
_PROSE_GATES = ("pass", "pw", *(w for w in _PROSE_ROOTS if "pass" not in w and not w.startswith("pw")))
_LITERALS = tuple(sorted({
    *_SETTER_GATES, *(trigger for _, triggers, _ in _SETTERS for trigger in triggers), "chpasswd", "sqlplus", *_PROSE_GATES, " / ", *_HEADERS,
    *(literal for literals, _ in _PRINTERS for literal in literals if literal not in _SECRET_PRINTERS + _PASS_PRINTERS),
    *(literal for literal in _JSON_PRINTERS if literal not in _SECRET_PRINTERS), "secret", "token", "key", "==== data ====",
}))

STATEMENT_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_statement_spans,
        literals=_LITERALS,
        requires=_LITERALS,  # every match holds one: skipped without a call when none is in the text
        origin="memctl: setters, SQL statements, prose, API key headers and secret-printing commands",
    ),
)
"""One finder for the statement, prose and command-output kinds in the module docstring."""
