"""Credentials given on a command line: flag values of well-known clients and login arguments.

Flag tables come from each client's manual page or ``--help``:

==========================  =========================================================
client(s)                   credential flags
==========================  =========================================================
sshpass                     ``-p PASS`` / ``-pPASS``
mysql, mysqldump,           ``-pPASS`` (attached only: ``-p NAME`` prompts and NAME
mysqladmin, mariadb…        is the database), ``--password[=]PASS``
mongo, mongosh, mongodump…  ``-p PASS``, ``--password PASS``
redis-cli, valkey-cli       ``-a PASS``, ``--pass PASS``
docker/podman/buildah/      ``login -p PASS``, ``--password PASS``; skopeo/podman/
nerdctl/helm/oras/crane/    buildah ``--creds USER:PASS`` (also ``--src-creds``,
skopeo/regctl               ``--dest-creds``)
az, oc, cf                  ``login -p PASS``
curl                        ``-u USER:PASS``, ``--user``, ``-U``/``--proxy-user``,
                            ``--oauth2-bearer TOKEN``, ``-b``/``--cookie NAME=VALUE``
httpie (http, https, xh)    ``-a USER:PASS``, ``--auth USER:PASS`` (any client: ``--auth TOKEN``)
wget                        ``--password``, ``--http-password``, ``--ftp-password``,
                            ``--proxy-password`` (generic rule)
lftp                        ``-u USER,PASS``
smbclient, rpcclient        ``-U USER%PASS``
ldapsearch & co.            ``-w PASS``
sqlcmd, bcp, osql           ``-P PASS``
mosquitto_pub/_sub, ipmitool ``-P PASS``
zip, unzip, zipcloak        ``-P PASS``
7z, 7za, 7zr, 7zz           ``-pPASS``
rar, unrar                  ``-pPASS``, ``-hpPASS``
openssl                     ``-k PASS``; ``-pass``/``-passin``/``-passout``/``-password``
                            ``pass:PASS`` (``env:``, ``file:``, ``fd:``, ``stdin`` are
                            references, kept)
ssh-keygen                  ``-N NEW_PASSPHRASE``, ``-P OLD_PASSPHRASE``
keytool, jarsigner          ``-storepass``, ``-keypass``, ``-srcstorepass``,
                            ``-deststorepass``, ``-srckeypass``, ``-destkeypass``, ``-new``
apksigner                   ``--ks-pass``/``--key-pass`` ``pass:PASS``
doctl                       ``-t TOKEN``, ``--access-token``
twine                       ``-p PASS``
gh                          ``secret set NAME -b VALUE`` / ``--body``
az, aws, gcloud             ``--value VALUE`` into a secret store (``az keyvault secret set``,
                            ``aws ssm put-parameter``); ``echo X | gcloud secrets … --data-file=-``
psexec, paexec              ``-p PASS``
==========================  =========================================================

Generic rules, client-independent: any ``--flag``/``-flag`` whose name is a
credential name (``--password``, ``--api-key``, ``--client-secret``,
``-storepass``) followed by a value; ``htpasswd -b[…] [FILE] USER PASS``;
``echo PASS | … --password-stdin`` and ``echo PASS | sudo -S``;
``vault login TOKEN``; ``sqlplus USER/PASS@DB``; ``aws configure set aws_secret_access_key VALUE`` and
any ``config[ure] set <credential name> VALUE`` (npm, yarn, pip);
values of ``secrets set K=V`` (fly, supabase, doppler) and ``kubectl create
secret … --from-literal=K=V``; PowerShell ``ConvertTo-SecureString "PASS"
-AsPlainText``. (SQL's ``IDENTIFIED BY`` and ``WITH PASSWORD`` are in
:mod:`memctl.scrub.keyword`.)

Near-misses stay: ``ssh -p 2222``, ``scp -P 22``, ``psql -p 5432``,
``mysql -P 3306``, ``mysql -p dbname``, ``docker run -u 1000:1000 -p 80:80``,
``mkdir -p``, ``ls -a``, ``git commit -a``, ``curl -u user`` (no password).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random
from memctl.scrub.keyword import is_credential_name

__all__ = ["COMMAND_DETECTORS"]

_KIND = "password"
_MARKER_START = "[REDACTED:"

_MYSQL = ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mysqlsh",
          "mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-check")
_MONGO = ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop",
          "mongofiles")
_REGISTRY_LOGIN = ("docker", "podman", "buildah", "nerdctl", "helm", "oras", "crane", "skopeo", "regctl", "az",
                   "oc", "cf", "finch")
_LDAP = ("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare",
         "ldapmodrdn", "ldapexop")

# flag -> client -> how the value is given: "attached" (-pPASS), "separate"
# (-p PASS), "both", "userpass" (USER:PASS, the part after the separator),
# "pair" (NAME=VALUE, the part after "="); "@word": only when that subcommand
# follows the client (docker login -p, not docker run -p).
_SHORT_FLAGS: dict[str, dict[str, str]] = {
    "-p": {
        "sshpass": "both", **{c: "attached" for c in _MYSQL}, **{c: "both" for c in _MONGO},
        **{c: "both@login" for c in _REGISTRY_LOGIN}, "twine": "both", "ncftp": "both", "ncftpput": "both",
        "ncftpget": "both", "rdesktop": "both", "7z": "attached", "7za": "attached", "7zr": "attached",
        "7zz": "attached", "rar": "attached", "unrar": "attached", "influx": "both",
        "psexec": "separate", "psexec.exe": "separate", "paexec": "separate", "PsExec": "separate",
        "PsExec.exe": "separate", "PsExec64.exe": "separate",
    },
    "-hp": {"rar": "attached", "unrar": "attached"},
    "-P": {**{c: "both" for c in ("sqlcmd", "bcp", "osql", "isql", "mosquitto_pub", "mosquitto_sub", "mosquitto_rr",
                                  "ipmitool", "zip", "unzip", "zipcloak", "funzip")}, "ssh-keygen": "separate"},
    "-N": {"ssh-keygen": "separate"},
    "-a": {"redis-cli": "both", "valkey-cli": "both", "keydb-cli": "both", "http": "userpass", "https": "userpass",
           "xh": "userpass", "xhs": "userpass"},
    "-u": {"curl": "userpass", "lftp": "userpass"},
    "-U": {"curl": "userpass", "smbclient": "userpass", "rpcclient": "userpass", "smbmap": "userpass"},
    "-w": {c: "both" for c in _LDAP},
    "-k": {"openssl": "separate"},
    "-t": {"doctl": "separate"},
    "-b": {"gh": "separate@secret", "curl": "pair"},
}
_USERPASS_FLAGS: dict[str, tuple[str, ...]] = {
    "user": ("curl", "smbclient", "rpcclient", "smbmap"), "proxy-user": ("curl",),
    "creds": ("skopeo", "podman", "buildah"), "src-creds": ("skopeo",), "dest-creds": ("skopeo",),
}
_OTHER_LONG_FLAGS: dict[str, tuple[str, ...]] = {
    "oauth2-bearer": ("curl",), "cookie": ("curl",), "body": ("gh",), "new": ("keytool",),
    "value": ("az", "aws", "gcloud", "doppler", "infisical"),
    "storepass": ("keytool", "jarsigner"), "keypass": ("keytool", "jarsigner"),
}
_USERPASS_SEPARATORS = {"lftp": ",", "smbclient": "%", "rpcclient": "%", "smbmap": "%"}
_PASS_PREFIX_REFERENCES = ("env:", "file:", "fd:", "stdin")
_CLIENTS = frozenset(
    {c for table in _SHORT_FLAGS.values() for c in table}
    | {c for clients in _USERPASS_FLAGS.values() for c in clients}
    | {c for clients in _OTHER_LONG_FLAGS.values() for c in clients}
    # Commands whose own flags look alike and must not be credited to an
    # earlier client on the same line (sshpass -p X ssh -p 2222).
    | {"ssh", "scp", "sftp", "rsync", "psql", "pg_dump", "pg_restore", "mkdir", "ls", "grep", "git", "sudo",
       "kubectl", "tar", "python", "python3", "node", "npm", "pip", "cp", "mv", "rm", "chmod", "chown",
       "openssl", "keytool", "jarsigner", "apksigner", "doctl", "gh", "wget", "htpasswd", "vault", "sort"}
)

# A flag: "-x" or "--name" after a space, quote, bracket or comma (argv
# lists), and its value if one follows. Only flags that can carry a credential
# get past this regex (a C-level filter; the tables decide in Python).
_FLAG = re.compile(
    r"""-(?<=[\s"'\[(,=]-)
    (?P<dashes>-?)
    (?P<name>
        (?i:[a-z0-9-]{0,24}?(?:pass|pwd|pw|secret|token|cred|key|auth|user|cookie|body|new|bearer|plaintext
            |stdin|literal|value|data-file)[a-z0-9_-]{0,40})
        |[A-Za-z]{0,3}b[A-Za-z]{0,3}(?=[ \t])
        |hp|[pPauUwkbtSN]
    )
    [^\x00\s"'`\\=]*
    (?:
        (?P<sep>=|[ \t]+|["'],[ \t]*["'])
        (?P<quote>\\?["'])?
        (?P<value>(?(quote)(?:[^\x00"'\n\\]|\\{1,4}(?=[A-Za-z0-9_.-]))+|(?!-)(?:[^\x00\s"'`\\]|\\{1,4}(?=[A-Za-z0-9_.-]))+))
    )?
    """,
    re.VERBOSE,
)
_QUOTED = re.compile(r"\\?(['\"])([^\x00'\"\s,\\][^\x00'\"\n\\]*)\\?\1")
_WORD_END = re.compile(r"[\s\"'`\\\x00]|$")
_SHORT_LETTERS = frozenset("pPauUwkbtSN")


_WORD_SPLIT = re.compile(r"[\s\"'\[\](),=+]+")
_SEGMENT_STOPS = (";", "|", "&&", "$(", "`")


def _command_words(text: str, pos: int) -> list[str]:
    """Words of the shell command that ``pos`` sits in, up to ``pos`` (basenames,
    argv-list quotes and brackets stripped)."""
    floor = max(0, pos - 400)
    # The line first (real or escaped newline), then the command's own separators in it.
    start = max(floor, text.rfind("\n", floor, pos) + 1, text.rfind("\x00", floor, pos) + 1)
    escaped = text.rfind("\\n", start, pos)
    if escaped != -1:
        start = escaped + 2
    for stop in _SEGMENT_STOPS:
        found = text.rfind(stop, start, pos)
        if found != -1:
            start = found + len(stop)
    words = []
    for word in _WORD_SPLIT.split(text[start:pos]):
        if "://" in word:
            continue  # a URL argument, not a command
        word = word.rsplit(":", 1)[-1].rsplit("/", 1)[-1]  # grep's path:12:cmd, /usr/bin/cmd
        if word:
            words.append(word)
    return words


def _client(words: list[str]) -> str | None:
    """The nearest known client before the flag (``sshpass -p X ssh -p 22``: ssh)."""
    for word in reversed(words):
        if word in _CLIENTS:
            return word
    return None


def _trim(value: str) -> str:
    # A shell value ends before ;, ), | and & that follow it unquoted.
    return value.rstrip(";)|&,")


def _secret_part(value: str, form: str, client: str) -> tuple[int, int] | None:
    """Offsets inside ``value`` of the credential, or None when ``value`` holds none.

    Forms: ``plain`` (the whole value), ``userpass`` (after the ``:``/``%``/``,``
    of ``USER:PASS``), ``pass:`` (after openssl's ``pass:``; ``env:``,
    ``file:``, ``fd:``, ``stdin`` are references), ``pair`` (after the ``=`` of
    ``NAME=VALUE``: cookies, ``--from-literal``).
    """
    if is_placeholder(value) or _MARKER_START in value:
        return None  # $USER:$PASS, or a value already redacted
    if form == "userpass":
        sep = _USERPASS_SEPARATORS.get(client, ":")
        user, found, password = value.partition(sep)
        if not found or not password or is_placeholder(password):
            return None
        if "://" in value:
            return None  # a URL, not user:pass (URL credentials have their own rule)
        return len(user) + 1, len(value)
    if form == "pass:":
        rest = value[5:] if value.startswith("pass:") else ""
        return (5, len(value)) if rest and not is_placeholder(rest) else None
    if form == "pair":
        name, found, secret = value.partition("=")
        if not found or not secret or is_placeholder(secret):
            return None
        return len(name) + 1, len(value)
    if is_placeholder(value) or value.startswith("-"):
        return None
    return 0, len(value)


_STDIN_FLAGS = frozenset({"password-stdin", "with-token", "stdin", "S", "data-file"})
# Where a credential is piped in: "echo [-n] PASS |", "printf '%s' PASS |" (last one before the flag).
_PIPED_VALUE = re.compile(
    r"(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+(?:'%s[^\x00'\n]*'|\"%s[^\x00\"\n]*\"))?)[ \t]+"
    r"(?:'(?P<sq>[^\x00'\n]+)'|\"(?P<dq>[^\x00\"\n\\]+)\"|(?P<bare>[^\x00\s'\"`;|&)\\]+))[ \t]*\|[^\x00|\n]*$"
)
_HERE_STRING = re.compile(
    r"[^\x00\n;|&]*?<<<[ \t]*(?:'(?P<sq>[^\x00'\n]+)'|\"(?P<dq>[^\x00\"\n\\]+)\"|(?P<bare>[^\x00\s'\"`;|&)\\]+))"
)
_SECURE_STRING = re.compile(
    r"ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?:'(?P<sq>[^\x00'\n]+)'|\"(?P<dq>[^\x00\"\n\\]+)\"|"
    r"(?P<bare>[^\x00\s'\"`;|&)\\]+))[ \t]+$"
)
# htpasswd -b[…] FILE USER PASS, or with -n: USER PASS (httpd's htpasswd(1)).
_HTPASSWD_ARGS = tuple(
    re.compile(
        r"(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+(?:'[^\x00'\n]*'|\"[^\x00\"\n]*\"|[^\x00\s'\"]+)){%d}[ \t]+"
        r"(?:'(?P<sq>[^\x00'\n]+)'|\"(?P<dq>[^\x00\"\n\\]+)\"|(?P<bare>[^\x00\s'\"`;|&)\\]+))" % count
    )
    for count in (1, 2)
)


def _group_value(match: re.Match[str] | None) -> tuple[int, int] | None:
    """Span of the quoted or bare value group of ``match`` unless it is a placeholder or a flag."""
    if match is None:
        return None
    for group in ("sq", "dq", "bare"):
        if match.group(group) is not None:
            value = match.group(group)
            if is_placeholder(value) or value.startswith("-"):
                return None
            return match.span(group)
    return None


def _line_start(text: str, pos: int) -> int:
    return max(text.rfind("\n", 0, pos), text.rfind("\x00", 0, pos), pos - 400, -1) + 1


def _triggered_span(text: str, match: re.Match[str], flag_name: str, words: list[str]) -> tuple[int, int] | None:
    """Credentials a flag points at without being its value: a piped or here-string
    password for ``--password-stdin``/``--with-token``/``sudo -S``, PowerShell's
    secure string, htpasswd's positional password."""
    word_end = match.start("name") + len(flag_name)
    reads_stdin = flag_name != "data-file" or (
        text.startswith(("=-", " -"), word_end) and _stores_a_secret(words)  # gcloud secrets … --data-file=-
    )
    if flag_name in _STDIN_FLAGS and (flag_name != "S" or "sudo" in words) and reads_stdin:
        line_start = _line_start(text, match.start())
        piped = _PIPED_VALUE.search(text, line_start, match.start())
        return _group_value(piped) or _group_value(_HERE_STRING.match(text, word_end))
    if flag_name.lower() == "asplaintext":
        line_start = _line_start(text, match.start())
        return _group_value(_SECURE_STRING.search(text, line_start, match.start()))
    if "b" in flag_name and not match.group("dashes") and _client(words) == "htpasswd":
        return _group_value(_HTPASSWD_ARGS[0 if "n" in flag_name else 1].match(text, word_end))
    return None


def _stores_a_secret(words: list[str]) -> bool:
    """The command writes into a secret store: gh secret set, az keyvault secret set,
    aws secretsmanager / ssm put-parameter, gcloud secrets versions add."""
    return any("secret" in word.lower() for word in words) or "put-parameter" in words


def _flag_kind(lower_name: str) -> str:
    """``password`` for password-style and login flags, ``secret`` for tokens and keys."""
    if any(word in lower_name for word in ("token", "secret", "key", "bearer", "literal", "body", "auth")):
        return "secret"
    return _KIND


def _separate_value(match: re.Match[str]) -> tuple[int, str] | None:
    if match.group("value") is None:
        return None
    start = match.start("value")
    value = match.group("value")
    if match.group("quote") is None:
        value = _trim(value)
    return start, value


def _short_flag(text: str, match: re.Match[str], word: str) -> tuple[int, str, str, str] | None:
    """``(value_start, value, form, client)`` of a known client's short credential flag, or None."""
    words = _command_words(text, match.start())
    client = _client(words) or ""
    letter = "-hp" if word.startswith("hp") and client in {"rar", "unrar"} else "-" + word[0]
    spec = _SHORT_FLAGS.get(letter, {}).get(client)
    if spec is None:
        return None
    spec, _, needs = spec.partition("@")
    if needs and needs not in words[len(words) - 1 - words[::-1].index(client) :]:
        return None  # docker login -p, not docker run -p (the subcommand follows the client)
    start = match.start("name") + len(letter) - 1
    quoted = _QUOTED.match(text, start)  # -p'PASS', -p"PASS"
    attached = len(word) > len(letter) - 1 or quoted is not None
    if attached:
        if spec == "separate":
            return None
        if quoted is not None:
            start, value = quoted.start(2), quoted.group(2)
        else:
            value = _trim(text[start : match.start("name") + len(word)])
    else:
        if spec == "attached":
            return None
        separate = _separate_value(match)
        if separate is None:
            return None
        start, value = separate
    form = spec if spec in {"userpass", "pair"} else "plain"
    return start, value, form, client


def _long_flag(text: str, match: re.Match[str], flag_name: str) -> tuple[int, str, str, str] | None:
    """``(value_start, value, form, client)`` of a credential-named or client-specific long flag."""
    separate = _separate_value(match)
    if separate is None:
        return None
    start, value = separate
    lower = flag_name.lower()
    client = ""
    if lower in _USERPASS_FLAGS or lower in _OTHER_LONG_FLAGS:
        words = _command_words(text, match.start())
        client = _client(words) or ""
        allowed = _USERPASS_FLAGS.get(lower) or _OTHER_LONG_FLAGS.get(lower, ())
        if client not in allowed and lower not in {"storepass", "keypass"}:
            return None
        if lower in {"body", "value"} and not _stores_a_secret(words):
            return None
        form = "userpass" if lower in _USERPASS_FLAGS else "pair" if lower == "cookie" else "plain"
    elif lower == "from-literal":
        form = "pair"
    elif lower == "auth":
        # --auth USER:PASS, or a token (netlify, vercel-style): a password or a random-looking value.
        form = "userpass" if ":" in value else "plain"
        if form == "plain" and not looks_random(value, min_len=12):
            return None
    elif (
        is_credential_name(flag_name)
        or lower in {"pass", "pw", "passin", "passout"}
        or lower.endswith(("storepass", "keypass"))
    ) and not lower.startswith("no-"):
        if lower.endswith(("-stdin", "-file", "-env", "-path")):
            return None
        form = "pass:" if value.startswith(_PASS_PREFIX_REFERENCES + ("pass:",)) else "plain"
        if form == "plain" and value.startswith(("/", "~/", "./", "../")):
            return None  # --private-key ./key.pem: a path, not the key
    else:
        return None
    if form == "plain" and match.group("quote") is None and value.lower() in _PROSE_WORDS:
        return None
    return start, value, form, client


def _flag_spans(text: str, lowered: str | None) -> Iterator[Span]:
    """Credentials given to flags (see the tables in the module docstring)."""
    del lowered
    for match in _FLAG.finditer(text):
        name_start = match.start("name")
        word = text[name_start : _WORD_END.search(text, name_start).start()]
        flag_name = word.split("=", 1)[0]
        dashes = match.group("dashes")
        if flag_name in _STDIN_FLAGS or flag_name.lower() in {"password-stdin", "asplaintext"} or (
            not dashes and "b" in flag_name and len(flag_name) <= 7
        ):
            triggered = _triggered_span(text, match, flag_name, _command_words(text, match.start()))
            if triggered is not None:
                yield triggered[0], triggered[1], _flag_kind(flag_name.lower())
                continue
        found = None
        short = not dashes and (flag_name[:1] in _SHORT_LETTERS or flag_name.startswith("hp"))
        if short and len(flag_name) > 1:
            # "-pS3cr3tRootPw": a known client's attached short flag first, not a flag named "…Pw"
            found = _short_flag(text, match, word)
        if found is None and (dashes or len(flag_name) > 1):
            found = _long_flag(text, match, flag_name)
        if found is None and short:
            found = _short_flag(text, match, word)
        if found is None:
            continue
        start, value, form, client = found
        if form == "plain" and match.group("quote") is None and value.strip("()[]<>").lower() in _PROSE_WORDS:
            continue  # prose about the flag: "redis-cli -a then AUTH", "mysql --password (prompt)"
        part = _secret_part(value, form, client)
        if part is not None:
            kind = _KIND if form == "userpass" or (not dashes and len(flag_name) == 1) else _flag_kind(
                flag_name.lower()
            )
            if part[1] - part[0] < (6 if kind == "secret" else 3):
                continue  # --secret=db names a secret; a credential is longer (the keyword rules' minimum)
            yield start + part[0], start + part[1], kind


_PROSE_WORDS = frozenset(
    {"and", "or", "the", "to", "with", "for", "from", "is", "if", "when", "only", "option", "flag", "argument",
     "instead", "here", "then", "also", "as", "in", "on", "of", "so", "but", "not", "will", "must", "should",
     "can", "may", "be", "via", "after", "before", "a", "an", "it", "this", "that", "value", "prompt"}
)


# --- positional credentials of login/config commands ---------------------------

_VALUE = r"""(?:'(?P<sq>[^\x00'\n]+)'|"(?P<dq>[^\x00"\n\\]+)"|(?P<bare>[^\x00\s'"`;|&)\\]+))"""
# vault login [-method=token] TOKEN
_VAULT_LOGIN = re.compile(r"vault[ \t]+login(?:[ \t]+-[\w-]+(?:=[^\s\x00]+)?)*[ \t]+(?!-)" + _VALUE)
# "<tool> config[ure] set KEY VALUE" (aws, npm, yarn, pip) and "<tool> secrets set K=V …"
# (fly, supabase, doppler): one scan for " set ", the word before it decides.
_SET = re.compile(r"set[ \t]+(?P<rest>[^\n|;&\x00]*)")  # "set" first: a space-led literal scans slowly
_CONFIG_SET = re.compile(r"(?:--?[\w-]+[ \t]+)*(?P<key>[^\x00\s=]+)(?:[ \t]+|=)" + _VALUE)
_PAIR = re.compile(r"(?:^|(?<=[ \t=]))(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)=" + _VALUE)


def _set_spans(text: str) -> Iterator[Span]:
    for match in _SET.finditer(text):
        before = text[max(0, match.start() - 11) : match.start()].rstrip(" \t")
        if before.endswith(("config", "configure")):
            value = _CONFIG_SET.match(text, match.start("rest"), match.end("rest"))
            if value is None:
                continue
            name = value.group("key").rsplit(":", 1)[-1].rsplit("/", 1)[-1]
            span = _group_value(value) if is_credential_name(name) else None
            if span is not None:
                yield span[0], span[1], _flag_kind(name.lower())
        elif before.endswith(("secrets", "secret")):
            # Every value set into a secret store is a secret, whatever its name.
            for pair in _PAIR.finditer(text, match.start("rest"), match.end("rest")):
                span = _group_value(pair)
                if span is not None:
                    yield span[0], span[1], "secret"


# Oracle: sqlplus [-s] USER/PASS[@CONNECT] (SQL*Plus user guide, "SQLPLUS command").
_SQLPLUS = re.compile(r"sqlplus(?:[ \t]+-\w+)*[ \t]+[\"']?[A-Za-z0-9_$#]+/(?P<bare>[^@\s/'\"\x00]+)")


def _positional_spans(text: str, lowered: str | None, gates: frozenset[str] | None = None) -> Iterator[Span]:
    """Credentials that are a positional argument (``vault login TOKEN``, ``sqlplus
    USER/PASS@DB``, ``… config set KEY VALUE``) or set into a secret store
    (``fly secrets set K=V``). ``gates``: which of :data:`_POSITIONAL_LITERALS` the lowered
    text holds (None: not known, every scan runs); each pattern holds its literal, so a scan
    whose literal is absent is skipped."""
    del lowered
    if gates is None or "vault" in gates:
        for match in _VAULT_LOGIN.finditer(text):
            span = _group_value(match)
            if span is not None:
                yield span[0], span[1], "vault_token"
    if gates is None or "sqlplus" in gates:
        for match in _SQLPLUS.finditer(text):
            if not is_placeholder(match.group("bare")):
                yield match.start("bare"), match.end("bare"), _KIND
    if gates is None or "config" in gates or "secret" in gates:  # "config[ure] set", "secret[s] set"
        yield from _set_spans(text)


_POSITIONAL_LITERALS = ("config", "secret", "sqlplus", "vault")


COMMAND_DETECTORS: tuple[Detector, ...] = (
    detector(_KIND, finder=_flag_spans, origin="memctl: client manual pages (see memctl.scrub.command)"),
    detector(_KIND, finder=_positional_spans, literals=_POSITIONAL_LITERALS, requires=_POSITIONAL_LITERALS,
             origin="memctl: vault, aws/npm/yarn/pip config, fly/supabase secrets"),
)
"""Flag values, positional login arguments, values set into secret stores."""
