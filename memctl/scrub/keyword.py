"""Credentials under credential-named keys: ``password=…``, ``"api_key": "…"``, ``<token>…</token>``.

Source: detect-secrets' KeywordDetector (Yelp), whose denylist names
password, passwd, pwd, db_pass, database_pass, key_pass, api_key, auth_key,
service_key, account_key, db_key, database_key, priv_key, private_key,
client_key and secret. Extended here with "passphrase", "passwort", a bare
"pass" segment (``DB_PASS=``), "token", more key qualifiers, and every shape
a transcript shows the assignment in: ``.env``, shell ``export``, YAML, TOML,
INI, JSON, JSON escaped inside JSON (``\\"password\\": \\"…\\"`` at any
depth), code, XML attributes and elements (``<password>…</password>``,
Maven's settings.xml, .NET's ``<add key="DbPassword" value="…"/>``), a quoted
name and value passed as two arguments (PHP's ``define('DB_PASSWORD', '…')``,
``os.environ.setdefault("API_KEY", "…")``), ``.netrc`` (``machine h login u password p``, GNU
inetutils' netrc(5)), ``mysqladmin … password NEW``, ``nmcli … password PSK`` and PostgreSQL's
``CREATE ROLE … WITH PASSWORD 'x'``.

Only the VALUE is replaced; the key name stays. Placeholders are kept
(``<your-password>``, ``${DB_PASSWORD}``, ``$PGPASSWORD``,
``os.environ["PASSWORD"]``, empty), but a literal that merely starts with
``$`` (``$3cr3t``) is a secret. An unquoted value runs to the end of its word,
``, ; & ( ) +`` included (``DJANGO_SECRET_KEY=ab&c(d)e+f``); it stops at the
next ``name=`` pair (``…,uid=1000``, ``…&page=2``), at ``&&``/``||``, and
sheds trailing punctuation and unbalanced closing brackets.
"""

from __future__ import annotations

import re

from memctl.scrub.detector import Detector, credential_shaped, detector, is_placeholder, sealed_ciphertext

__all__ = ["KEYWORD_DETECTORS", "NON_SECRET_KEY_SUFFIXES", "is_credential_name"]

# Key-name endings that name a property of a secret, not the secret itself.
NON_SECRET_KEY_SUFFIXES = frozenset(
    {
        "count", "counts", "limit", "limits", "budget", "len", "length", "size", "type",
        "types", "url", "uri", "endpoint", "file", "path", "dir", "name", "names",
        "expiry", "expires", "expiration", "ttl", "usage", "used", "estimate", "index",
        "idx", "hint", "prompt", "policy", "rotation", "reset", "field", "label", "env",
        "var", "header", "param", "regex", "pattern", "min", "max", "ref", "refs",
        "format", "strength", "timeout", "version", "provider", "store", "manager",
        "mode", "method", "scope", "scopes", "enabled", "required", "rate", "id", "ids",
        "settings", "config", "source", "sources", "class", "cls", "factory", "handler",
        "cache", "map", "dict", "list", "getter", "setter", "validator", "schema", "model",
        "loader", "reader", "writer", "parser", "generator", "stdin", "fd", "command", "cmd",
        "helper", "arn", "location", "age", "bits",
    }
)
# Suffixes naming an identifier of a secret: a credential-shaped value under
# them is sensitive too (a service account's private_key_id, Vault's secret_id).
_ID_SUFFIXES = frozenset({"id", "ids"})
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

_KEY_SEGMENT_SPLIT = re.compile(r"[_.-]|(?<=[a-z0-9])(?=[A-Z])")
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_ANNOTATION_END = re.compile(r"[ \t]*[=,)|\]]")
_EOL_AFTER_VALUE = re.compile(r"[ \t]*(?:$|[\n\r\x00,;}\])#\"'`<]|\\[nr\"])")
_DOTTED_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PATH = re.compile(r"(?:/|~/|\./)[\w.-]+(?:/[\w.-]+)+")
_SNAKE_IDENTIFIER = re.compile(r"[a-z]+(?:_[a-z]+)+")
# A call or subscript as the whole value: get_password(), os.environ.get( (cut at a quote), data[.
_CALL_OR_SUBSCRIPT = re.compile(r"[A-Za-z_][\w.]*(?:\(.*\)|\[.*\]|[(\[])")
# Code starting the value, cut at a space: tokens.get(name, …), bpe_encode(self, …),
# Annotated[str, …], dict[str, object] | None, strings.TrimPrefix(h, …). A literal
# password rarely opens with a dotted or Capitalised name and a bracket, or is a
# lower-case name with only arguments after its bracket (pa(ss)w0rd+x is a literal).
_CODE_PREFIX = re.compile(
    r"[a-z_][a-z0-9_]*[(\[][\w.\"']*[)\]]?$"  # bpe_encode(self.ranks, dict[str: arguments only, no literal after
    r"|(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][a-z]+[A-Za-z]*)[(\[]"  # tokens.get(…, Annotated[…
)
# A lowerCamelCase or CamelCase name, letters only: an identifier or a type, not a literal.
_CAMEL_IDENTIFIER = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+")
# Where an unquoted value stops early: the next name=value pair, or a shell list operator.
_NEXT_PAIR = re.compile(r"&&|\|\||[,;&][ \t]*(?=[A-Za-z_][A-Za-z0-9_.\-]*[ \t]*=)")
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Words that start an expression in code: password = await getPassword(), token = new Token(…).
_CODE_WORDS = frozenset({"await", "new", "yield", "typeof", "function", "async", "lambda", "require", "import"})
# A netrc entry up to its "password" token.
_NETRC_BEFORE = re.compile(
    r"(?:^|\s)(?:machine|default|login|account|port)[ \t]+\S*[ \t]*"
    r"(?:(?:\r?\n|\\n)(?:[^\x00\s:]+:\d+:|[ \t]*Line[ \t]\d+:|[ \t]*\d+(?:[:|]|\t))?[ \t+>#-]*)?$"
)
# mysqladmin … password NEW; nmcli device wifi connect SSID password PSK.
_POSITIONAL_PASSWORD_BEFORE = re.compile(r"(?:mysqladmin|nmcli)\b[^\n\x00]*$")
# PostgreSQL CREATE/ALTER ROLE|USER … [WITH] [ENCRYPTED] PASSWORD 'x'.
_SQL_BEFORE = re.compile(r"(?i:(?:create|alter)[ \t]+(?:user|role)\b[^\x00;\n]*)$")

_VALUE_PART = r"""
(?:(?P<eq>\\+")|(?P<dq>")|(?P<sq>')|(?P<bq>`))?
(?P<value>
  (?(eq)[^"\\\n\x00]*
  |(?(dq)(?:[^"\\\n\x00]|\\[^\n\x00])*+
  |(?(sq)[^'\n\x00]*
  |(?(bq)[^`\n\x00]*
  |[^\s"'`<>|\\\x00…]+))))
)
(?(eq)\\+"|(?(dq)"|(?(sq)'|(?(bq)`|))))
"""
_SEPARATOR_PART = r"""
(?P<suffix>(?:[_.-][A-Za-z0-9]+|(?-i:[A-Z][a-z0-9]+))*+)
(?P<sep>\\*["'`]?\]?[ \t]*(?::=|=>|={1,3}|!==?|:|>)[ \t]*|\\*["'][ \t]+(?i:value)[ \t]*=[ \t]*
  |\\*["'][ \t]*,[ \t]*(?=\\*["'])|[ \t]+)
"""
_PASSWORD_KEYWORD = r"(?P<root>pass(?:w(?:or)?d|wort|phrase)?|pwd)s?" + _SEPARATOR_PART + _VALUE_PART
_KEY_QUALIFIERS = (
    "api", "auth", "access", "secret", "private", "priv", "client", "service", "account",
    "master", "encryption", "signing", "db", "database", "consumer", "subscription", "app",
    "license", "session", "webhook",
)
_KEY_PREFIXES = tuple(f"{q}{sep}" for q in _KEY_QUALIFIERS for sep in ("", "_", "-", "."))
_SECRET_KEYWORD = r"(?P<root>secret|token)s?" + _SEPARATOR_PART + _VALUE_PART
_QUALIFIED_KEY_KEYWORD = r"(?P<root>key)s?" + _SEPARATOR_PART + _VALUE_PART

# Gates (searched in text.lower()): the root, the rest of the key, and an
# assignment separator. A bare keyword in prose ("the token expired") never
# reaches the Python checks. "pass"/"passwd"/"password" may also be followed
# by a space (netrc, mysqladmin). Roots must end their word ("tokenizer",
# "secretary", "keyboard" are not keys); camelCase continuations such as
# secretKey are seen through "key".
_WORD_END = "(?:ids?(?![a-z])|(?![a-rt-z]))"  # …Id/…Ids continue a key name (privateKeyId)
_SEPARATOR_GATE = (
    r"(?:\\*[\"'`])?\]?[ \t]*(?::=|=>|={1,3}|!==?|:|>)|\\*[\"'][ \t]+value[ \t]*=|\\*[\"'][ \t]*,[ \t]*\\*[\"']"
)
_ASSIGNMENT_GATE = r"s?[a-z0-9_.-]*(?:" + _SEPARATOR_GATE + ")"


def _follows_key_qualifier(text: str, pos: int) -> bool:
    """True when the ``key`` at ``pos`` follows api/auth/access/… (``api_key``, ``apiKey``)."""
    return text[max(0, pos - 13) : pos].lower().endswith(_KEY_PREFIXES)


def is_credential_name(name: str) -> bool:
    """True when an identifier names a credential (``DB_PASSWORD``, ``apiKey``,
    ``client-secret``, ``GITHUB_TOKEN``), not a property of one (``token_count``,
    ``password_file``). Used for flags and ``config set`` keys; same word list
    as the assignment detectors."""
    segments = [s.lower() for s in _KEY_SEGMENT_SPLIT.split(name.strip("-_.")) if s]
    if not segments or segments[-1] in NON_SECRET_KEY_SUFFIXES or segments[0] == "existing":
        return False  # token_count; Helm's existingSecret/existingSecretPasswordKey name a Secret object, not a value
    joined = "".join(segments)
    for index, segment in enumerate(segments):
        if segment in {"password", "passwd", "pwd", "passphrase", "passwort", "pass", "pw", "secret", "secrets",
                       "token", "tokens", "authtoken", "apikey", "creds", "credential", "credentials"}:
            return True
        if segment.startswith(("password", "passwd")) or segment.endswith(("password", "passwd", "token", "secret")):
            return True
        if segment in {"key", "keys"} and index > 0 and segments[index - 1] in _KEY_QUALIFIERS:
            return True
    return joined.endswith(("apikey", "accesskey", "secretkey", "privatekey", "clientkey", "authkey"))


def _looks_like_word(value: str) -> bool:
    """A word of prose: lower case, Capitalised or a short acronym (not ``FAKEtokenValue``)."""
    return value.islower() or (value[0].isupper() and value[1:].islower()) or (value.isupper() and len(value) <= 5)


def _identifier_start(text: str, pos: int) -> int:
    """Walk back from ``pos`` over identifier characters (bounded to 64)."""
    start = pos
    limit = max(0, pos - 64)
    while start > limit and text[start - 1] in _IDENT_CHARS:
        if text[start - 1] in "nrt" and start >= 2 and text[start - 2] == "\\":
            break  # an escaped newline or tab ("cd app\\nSSHPASS=…") separates, it is not part of the name
        start -= 1
    return start


def _unquoted_end(text: str, start: int, end: int, *, in_query: bool) -> int:
    """Where an unquoted value really ends (see the module docstring)."""
    value = text[start:end]
    cut = len(value)
    pair = _NEXT_PAIR.search(value)
    if pair is not None:
        cut = pair.start()
    if in_query:
        for stop in "&#":
            found = value.find(stop, 0, cut)
            if found != -1:
                cut = found
    while cut > 0:
        last = value[cut - 1]
        if last in ".,;:":
            cut -= 1
        elif last in _CLOSERS and value.count(_CLOSERS[last], 0, cut) < value.count(last, 0, cut):
            cut -= 1
        else:
            break
    return start + cut


def _whitespace_value_allowed(text: str, key_start: int, key: str, value_quoted: bool) -> bool:
    """A value after a space counts only in netrc entries, ``mysqladmin … password NEW`` and
    SQL's ``[WITH] PASSWORD 'x'`` (flags such as ``--password x`` are :mod:`memctl.scrub.command`'s)."""
    if key.lower() not in {"password", "passwd"}:
        return False
    before = text[max(0, key_start - 200) : key_start]
    if _NETRC_BEFORE.search(before) is not None or _POSITIONAL_PASSWORD_BEFORE.search(before) is not None:
        return True
    return value_quoted and _SQL_BEFORE.search(before) is not None


# "{{FAKEs3cret": a literal that starts like a template but never closes (is_placeholder keeps closed ones).
_UNCLOSED_TEMPLATE = re.compile(r"\{\{[^{}\s]{6,}")


def _accept_keyword(match: re.Match[str], *, secret_kind: bool) -> bool | tuple[int, int]:
    """Decide whether a keyword assignment's value is a real credential; trim an unquoted one.

    Rejects (cheapest checks first): whitespace-separated values except in
    netrc, mysqladmin and SQL; ``>`` except in an XML element; placeholders;
    keys naming a property of a secret (``token_count``, ``password_reset``)
    unless an id-suffixed key holds a credential-shaped value
    (``private_key_id``); bare ``pass`` inside a word; ``PWD=/path``; unquoted
    comparisons, calls, subscripts, dotted names and ``key=key`` pass-through;
    prose after a colon; too-short values; numbers for token/secret keys.
    """
    text = match.string
    sep = match.group("sep")
    sep_core = sep.strip(" \t\"'`\\]")
    root_start = match.start("root")
    key_start = _identifier_start(text, root_start)
    key = text[key_start : match.end("suffix")]
    value = match.group("value")
    quoted = match.group("eq") is not None or match.group("dq") is not None or (
        match.group("sq") is not None or match.group("bq") is not None
    )
    value_start, value_end = match.span("value")
    if not quoted:
        value_end = _unquoted_end(
            text, value_start, value_end, in_query=key_start > 0 and text[key_start - 1] in "?&"
        )
        value = text[value_start:value_end]

    if not sep_core:
        if not _whitespace_value_allowed(text, key_start, key, quoted):
            return False
    elif sep_core == ">" and (key_start == 0 or text[key_start - 1] != "<" or not text.startswith("</", value_end)):
        return False  # "token >" is a comparison; only <password>…</password> counts
    elif sep_core == ",":
        # A quoted name and a quoted value as two arguments: define('DB_PASSWORD', '…'),
        # os.environ.setdefault("API_KEY", "…"), config.set("token", "…").
        if not quoted or not _CALL_BEFORE.search(text, max(0, key_start - 8), key_start):
            return False  # "type": "password", "autocomplete": … is JSON, not a call
        sep_core = "="
    elif sep_core[:5].lower() == "value":
        # <add key="DbPassword" value="…"/>: the name sits in a key/name attribute.
        if not quoted or _ATTRIBUTE_NAME_BEFORE.search(text, max(0, key_start - 12), key_start) is None:
            return False
        sep_core = "="
    if is_placeholder(value) or sealed_ciphertext(text, value_start, value):
        return False
    root = match.group("root")
    root_lower = root.lower()
    suffix = match.group("suffix")
    key_lower = key.lower().lstrip("-")

    # Keys that name a property of a secret (token_count, password_reset, …), or another object (Helm's existingSecret).
    if key_lower.startswith("existing"):
        return False
    if suffix:
        last = _KEY_SEGMENT_SPLIT.split(key)[-1].lower()
        if last in _ID_SUFFIXES:
            # token_id: <uuid> names a token (a Vault secret_id is one); a random id-suffixed value (private_key_id) may be one.
            if not credential_shaped(value) or ("secret" not in key.lower() and _UUID.fullmatch(value.strip("\"'"))):
                return False
        elif last in NON_SECRET_KEY_SUFFIXES:
            return False
    if root_lower == "pass":
        # Bare "pass" only as a whole word or segment (DB_PASS=, pass:), never
        # inside another word (bypass, compass) or with a suffix (pass_rate).
        if suffix:
            return False
        if root_start > 0:
            before = text[root_start - 1]
            # SSHPASS=, ADMINPASS= (an upper-case variable name) count; bypass, compass do not.
            glued_env_name = key.isupper() and key.upper().endswith(("PASS", "PASSWD", "PASSWORD"))
            if before.isalpha() and not (before.islower() and root[0].isupper()) and not glued_env_name:
                return False
    elif root_lower == "pwd" and key_lower in {"pwd", "oldpwd"} and value.startswith(("/", "~", ".")):
        return False  # the shell's working directory, not a password
    if not quoted and _PATH.fullmatch(value):
        return False  # GIT_ASKPASS=/usr/bin/askpass, SSH_ASKPASS=~/bin/x: a program, not a password

    if sep_core in {"==", "===", "!=", "!=="} and not quoted:
        return False  # comparison with a variable, not a literal
    if not quoted:
        if (
            _CALL_OR_SUBSCRIPT.fullmatch(value)
            or _CODE_PREFIX.match(value)
            or _CAMEL_IDENTIFIER.fullmatch(value)
            or (value[0] in "([{" and not _UNCLOSED_TEMPLATE.fullmatch(value))
            or value in _CODE_WORDS
        ):
            return False  # a call, subscript, tuple or literal: password=get_password(), token=(lambda …)
        if value == key or value.lower() == key_lower:
            return False  # api_key=api_key (keyword argument pass-through)
        if _DOTTED_IDENTIFIER.fullmatch(value):
            return False  # password=settings.db_password
        if sep_core == ":" and value.isalpha():
            if _looks_like_word(value) and not _EOL_AFTER_VALUE.match(text, value_end):
                return False  # prose: "token: the one from earlier"
            if value[0].isupper() and _ANNOTATION_END.match(text, value_end):
                return False  # a type annotation: secret_settings: SettingsSource,

    if secret_kind and (_SNAKE_IDENTIFIER.fullmatch(value) or any(c.isspace() for c in value)):
        return False  # "secret:github_token" (an identifier), "secret: the one in the vault" (prose)
    if secret_kind or root_lower == "pass":
        if len(value) < (6 if secret_kind else 3):
            return False
        if value.replace(".", "", 1).replace("_", "").isdigit():
            return False  # max_tokens=4000, pass=1
    elif len(value) < 3:
        return False
    return value_start, value_end


def _accept_password_keyword(match: re.Match[str]) -> bool | tuple[int, int]:
    return _accept_keyword(match, secret_kind=False)


def _accept_secret_keyword(match: re.Match[str]) -> bool | tuple[int, int]:
    return _accept_keyword(match, secret_kind=True)


_CALL_BEFORE = re.compile(r"\([ \t]*\\*[\"']$")
_ATTRIBUTE_NAME_BEFORE = re.compile(r"(?i:key|name)=\\*[\"']$")


def _accept_identified_by(match: re.Match[str]) -> bool:
    return not is_placeholder(match.group("value"))


KEYWORD_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        _PASSWORD_KEYWORD,
        flags=re.IGNORECASE | re.VERBOSE,
        group="value",
        # One gate (a shared first letter scans once): "pass…" with an assignment
        # or a space (netrc, SQL), "pwd" with an assignment.
        anchors=(r"p(?:ass[a-z0-9_.-]*(?:[ \t]+[^\s-]|" + _SEPARATOR_GATE + ")|wd" + _WORD_END + _ASSIGNMENT_GATE + ")",),
        requires=("pass", "pwd"),  # every anchor hit starts with one: no scan when both are absent
        accept=_accept_password_keyword,
        origin="detect-secrets:KeywordDetector (extended)",
    ),
    detector(
        "secret",
        _SECRET_KEYWORD,
        flags=re.IGNORECASE | re.VERBOSE,
        group="value",
        # Two gates: one alternation "secret|token" scans far slower.
        anchors=("secret" + _WORD_END + _ASSIGNMENT_GATE, "token" + _WORD_END + _ASSIGNMENT_GATE),
        requires=("secret", "token"),
        accept=_accept_secret_keyword,
        origin="detect-secrets:KeywordDetector (extended)",
    ),
    detector(
        "secret",
        _QUALIFIED_KEY_KEYWORD,
        flags=re.IGNORECASE | re.VERBOSE,
        group="value",
        anchors=("key" + _WORD_END + _ASSIGNMENT_GATE,),
        requires=("key",),
        anchor_filter=_follows_key_qualifier,
        accept=_accept_secret_keyword,
        origin="detect-secrets:KeywordDetector (extended)",
    ),
    detector(
        "password",
        r"identified[ \t]+(?:with[ \t]+[^\s\x00]+[ \t]+)?by[ \t]+(?:password[ \t]+)?(?P<q>['\"])(?P<value>[^\x00'\"\n]+)(?P=q)",
        flags=re.IGNORECASE,
        group="value",
        anchors=("identified[ \t]",),
        requires=("identified",),
        accept=_accept_identified_by,
        origin="MySQL/Oracle CREATE|ALTER USER … IDENTIFIED BY",
    ),
)
"""Password-style keys (kind ``password``), then secret/token keys and
qualified ``…key`` names (kind ``secret``), and SQL's ``IDENTIFIED BY 'x'``
(MySQL, Oracle)."""
