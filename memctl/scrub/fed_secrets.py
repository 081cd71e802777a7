"""Secrets fed to a command or written into a config line that names no key.

* ``echo``/``printf`` of literals piped into a program that reads a password on standard input
  (``smbpasswd -s``, ``kinit``, ``mkpasswd``, ``passwd --stdin``, ``htpasswd -i``, ``vncpasswd -f``,
  ``openssl passwd -stdin``, ``sudo -S``, ``ldappasswd``, ``kpasswd``, ``pdbedit``, ``saslpasswd2``,
  ``cryptsetup``, ``vault login -``): every literal after the verb (a
  ``printf`` format holding ``%`` is not one);
* the same programs fed by a here-string (``<<< 'x'``) or a here-document (each body line up to
  the delimiter);
* expect scripts: ``send "…\\r"`` on the line of, or the line after, an ``expect`` of a password or
  passphrase prompt;
* tools that take a password by position or a short flag: Dell ``racadm … -p X``, Windows
  ``net user NAME PASS [/add]``, Oracle ``expdp``/``impdp``/``exp``/``imp``/``sqlldr``/``dgmgrl``/
  ``rman target`` ``user/pass@db``, Erlang ``erl -setcookie X``, net-snmp clients' ``-c COMMUNITY``;
* SQLCipher ``PRAGMA key = '…'``/``PRAGMA rekey``, ``ATTACH DATABASE … KEY '…'``;
* ``dotnet user-secrets set "Name" "value"`` (every value it stores is a secret);
* net-snmp ``snmpd.conf`` ``rocommunity``/``rwcommunity``(6) and ``com2sec`` communities (the
  default ``public``/``private`` stay);
* strongSwan ``ipsec.secrets``: ``… : PSK "…"``, ``: XAUTH "…"``, ``: EAP "…"``;
* pgbouncer ``userlist.txt`` lines ``"user" "password"`` (a value that is not a plain word, or an
  ``md5``/``SCRAM-SHA-256$`` hash);
* ``.authinfo``/``.netrc`` lines ``machine … password a b c``: the whole multi-word value, up to
  the next netrc keyword;
* KeePass XML ``<Value ProtectInMemory="True">…</Value>``;
* hex piped into ``xxd -r -p`` (key bytes written out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["FED_SECRET_DETECTORS"]

_CONSUMERS = (
    r"(?:sudo[ \t]+(?:-\w+[ \t]+)*)?(?:smbpasswd|kinit|mkpasswd|passwd|htpasswd|vncpasswd|openssl[ \t]+passwd"
    r"|ldappasswd|kpasswd|pdbedit|saslpasswd2|cryptsetup|sudo[ \t]+-S|tightvncpasswd|vault[ \t]+login)\b"
)
_LITERAL = r"""(?:'[^'\n\x00]*'|"(?:\\.|[^"\\\n\x00])*"|\$'[^'\n\x00]*'|[^\s|;&'"<>\x00]+)"""
_PIPE = re.compile(
    r"(?:^|[\s;&(\x00])(?P<verb>echo|printf)(?:[ \t]+-[neE]{1,3})*(?P<args>(?:[ \t]+" + _LITERAL + r"){1,8})[ \t]*\|[ \t]*"
    + _CONSUMERS
)
_ARG = re.compile(_LITERAL)
_HERESTRING = re.compile(_CONSUMERS + r"[^\n|<\x00]*<<<[ \t]*(?P<value>" + _LITERAL + r")")
_HEREDOC = re.compile(_CONSUMERS + r"[^\n|<\x00]*<<-?[ \t]*(?P<q>['\"]?)(?P<tag>[A-Za-z_]\w*)(?P=q)[^\n\x00]*\n")
_EXPECT_SEND = re.compile(
    r"(?i:expect)[^\n\x00]*(?i:pass(?:word|phrase)?|assword|pin|secret|token)[^\n\x00]*\n?[^\n\x00]*?"
    r"\b(?:exp_)?send[ \t]+(?:--[ \t]+)?\"(?P<value>(?:\\[^rn]|[^\"\\\n])+?)(?:\\[rn])*\""
)
_POSITIONAL = re.compile(
    r"(?:racadm\b[^\n|\x00]*?[ \t]-p[ \t]+(?P<racadm>[^\s'\"]+|'[^'\n]+'|\"[^\"\n]+\")"
    r"|\bnet[ \t]+user[ \t]+(?:\"[^\"\n]+\"|[^\s/\"]+)[ \t]+(?P<netuser>[^\s/*\"][^\s\"]*|\"[^\"\n]+\")(?=[ \t]*(?:/|$|\n))"
    r"|\b(?:(?:expdp|impdp|exp|imp|sqlldr|dgmgrl)[ \t]+|rman[ \t]+target(?:=|[ \t]+))(?:userid=)?[\w$#.]+/(?P<oracle>[^\s@/]+)@"
    r"|\berl\b[^\n|\x00]*?-setcookie[ \t]+(?P<cookie>[^\s'\"]+|'[^'\n]+')"
    r"|\bsnmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|df|netstat|status)\b[^\n|\x00]*?[ \t]-c[ \t]*(?P<snmp>[^\s'\"]+|'[^'\n]+'))"
)
_PRAGMA = re.compile(r"(?i:pragma[ \t]+(?:\w+\.)?(?:re)?key[ \t]*=[ \t]*|attach[ \t]+database[^\n\x00]*?[ \t]key[ \t]+)"
                     r"(?P<q>[\"'])(?P<value>[^\"'\n\x00]{3,300})(?P=q)")
_DOTNET = re.compile(r"dotnet[ \t]+user-secrets[ \t]+set[ \t]+(?:\"[^\"\n]+\"|'[^'\n]+'|\S+)[ \t]+"
                     r"(?P<q>[\"']?)(?P<value>[^\s\"'\x00][^\"'\n\x00]*?)(?P=q)(?=[ \t]*(?:$|\n|--|-p|;|&))")
_SNMP = re.compile(r"(?im)(?:^|(?<=\x00))[ \t]*(?:r[ow]community6?[ \t]+|com2sec6?[ \t]+(?:-\w+[ \t]+\S+[ \t]+)?\S+[ \t]+\S+[ \t]+)"
                   r"(?P<value>[^\s#\x00]{3,128})")
_IPSEC = re.compile(r"(?m):[ \t]*(?:PSK|XAUTH|EAP|NTLM|P12[ \t]+\S+)[ \t]+(?P<q>[\"'])(?P<value>[^\"'\n\x00]{1,300})(?P=q)")
_USERLIST = re.compile(r"(?m)(?:^|(?<=\x00))[ \t]*\"[^\"\s]{1,64}\"[ \t]+\"(?P<value>[^\"\n\x00]{4,300})\"[ \t]*\r?$")
_NETRC_MULTI = re.compile(
    r"(?m)(?:^|(?<=\x00))[ \t]*(?:machine[ \t]+\S+|default)\b[^\n\x00]*?[ \t]password[ \t]+(?P<value>\S+(?:[ \t]+(?!(?:machine|login|port|account|default|protocol|user)\b)\S+)+?)"
    r"(?=[ \t]+(?:machine|login|port|account|default|protocol|user)\b|[ \t]*\r?$)"
)
_KEEPASS = re.compile(r"<Value[ \t]+ProtectInMemory=\"True\"[ \t]*>(?P<value>[^<\x00]{1,1000})</Value>")
# Not when the decoded bytes go on to a shell (``… | xxd -r -p | sh``): that is an encoded command, which
# the validator refuses as one, not key bytes.
_XXD = re.compile(r"echo[ \t]+(?:-n[ \t]+)?(?P<q>[\"']?)(?P<value>[0-9a-fA-F]{16,512})(?P=q)[ \t]*\|[ \t]*xxd[ \t]+-r"
                  r"(?![^\n|]*\|[ \t]*(?:sudo[ \t]+)?(?:ba|z|da|k)?sh\b)")
_PLAIN_WORD = re.compile(r"[a-z]+|[A-Z][a-z]+")
_COMMUNITY_DEFAULTS = frozenset({"public", "private"})
_GATES = ("echo", "printf", "<<", "expect", "racadm", "net user", "expdp", "impdp", "exp ", "imp ", "sqlldr",
          "dgmgrl", "rman", "setcookie", "snmp", "pragma", "attach", "user-secrets", "community", "com2sec", "psk", "xauth",
          "eap", "\" \"", "\"\t\"", "password", "protectinmemory", "xxd")


_GATED = (
    (_EXPECT_SEND, "password", ("expect",)), (_PRAGMA, "secret", ("pragma", "attach")),
    (_DOTNET, "secret", ("user-secrets",)), (_IPSEC, "secret", ("psk", "xauth", "eap")),
    (_KEEPASS, "password", ("protectinmemory",)), (_XXD, "secret", ("xxd",)),
)
_POSITIONAL_GATES = ("racadm", "net user", "expdp", "impdp", "exp ", "imp ", "sqlldr", "dgmgrl", "rman", "setcookie",
                     "snmp")
_CONSUMER_WORDS = ("passwd", "kinit", "cryptsetup", "sudo", "vault", "pdbedit")


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    value = text[start:end]
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        return start + 1, end - 1
    if value.startswith("$'") and value.endswith("'"):
        return start + 2, end - 1
    return start, end


def _ok(value: str) -> bool:
    return len(value) >= 3 and not is_placeholder(value)


def _fed_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    haystack = lowered if lowered is not None else text.lower()
    if ("echo" in gates or "printf" in gates) and any(word in haystack for word in _CONSUMER_WORDS):
        for match in _PIPE.finditer(text):
            first = True
            for arg in _ARG.finditer(text, match.start("args"), match.end("args")):
                start, end = _unquoted(text, *arg.span())
                value = text[start:end]
                if match.group("verb") == "printf" and first and "%" in value:
                    first = False
                    continue  # the format
                first = False
                if _ok(value):
                    yield start, end, "password"
    if "<<" in gates and any(word in haystack for word in _CONSUMER_WORDS):
        for match in _HERESTRING.finditer(text):
            start, end = _unquoted(text, *match.span("value"))
            if _ok(text[start:end]):
                yield start, end, "password"
        for match in _HEREDOC.finditer(text):
            tag, pos = match.group("tag"), match.end()
            for _ in range(6):
                line_end = text.find("\n", pos)
                line_end = len(text) if line_end == -1 else line_end
                line = text[pos:line_end].strip()
                if line == tag or not line or "\x00" in line or line.startswith(("$ ", "# ", "> ")):
                    break
                value_start = pos + len(text[pos:line_end]) - len(text[pos:line_end].lstrip())
                if _ok(line):
                    yield value_start, value_start + len(line), "password"
                pos = line_end + 1
    for pattern, kind, needs in _GATED:
        if gates.isdisjoint(needs):
            continue
        for match in pattern.finditer(text):
            if _ok(match.group("value")):
                yield match.start("value"), match.end("value"), kind
    for match in _POSITIONAL.finditer(text) if not gates.isdisjoint(_POSITIONAL_GATES) else ():
        group = next(g for g in ("racadm", "netuser", "oracle", "cookie", "snmp") if match.group(g) is not None)
        start, end = _unquoted(text, *match.span(group))
        if _ok(text[start:end]) and text[start:end].lower() not in _COMMUNITY_DEFAULTS:
            yield start, end, "password"
    if "community" in gates or "com2sec" in gates:
        for match in _SNMP.finditer(text):
            value = match.group("value")
            if value.lower() not in _COMMUNITY_DEFAULTS and _ok(value) and not re.fullmatch(r"[\d./:]+|default", value):
                yield match.start("value"), match.end("value"), "secret"
    if "\" \"" in gates or "\"\t\"" in gates:
        for match in _USERLIST.finditer(text):
            value = match.group("value")
            if _ok(value) and (not _PLAIN_WORD.fullmatch(value) or value.startswith(("md5", "SCRAM-SHA-256$"))):
                yield match.start("value"), match.end("value"), "password"
    if "password" in gates and ("machine " in haystack or "default " in haystack):
        for match in _NETRC_MULTI.finditer(text):
            yield match.start("value"), match.end("value"), "password"


FED_SECRET_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_fed_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: secrets piped, here-documented or positioned into commands and config lines (memctl.scrub.fed_secrets)",
    ),
)
"""One finder for the forms in the module docstring."""
