"""Sensitive sources: a file whose name says it holds credentials is redacted by value.

Detectors recognise kinds of secret; a ``.env`` or ``~/.aws/credentials`` file holds secrets of
any kind, so when a tool part reads, writes or prints such a file, every value in it is replaced
by ``[REDACTED:credential_file]`` and every key stays readable (``DB_PASSWORD=[REDACTED:…]``), so
the model still learns which settings exist.

Sensitive names (:func:`is_sensitive_path`, on the file's base name or its last two parts):
``.env`` and ``.env.*`` (not ``*.example``/``.sample``/``.template``/``.dist``/``.defaults``),
``*.pem``, ``*.key``, private ``id_rsa``/``id_ed25519``/``id_ecdsa``/``id_dsa`` (not ``.pub``),
``.netrc``/``_netrc``, ``.pgpass``, ``.npmrc``, ``.pypirc``, ``.git-credentials``,
``credentials``/``credentials.json``/``.credentials``, ``kubeconfig`` and ``.kube/config``,
``*.tfvars``/``*.tfvars.json``, ``*.p12``/``*.pfx``/``*.jks``/``*.keystore``, ``keystore.json``,
Ethereum ``UTC--…`` keystores, ``wallet.dat``/``wallet.json``, ``secrets.*``, ``.htpasswd``,
``.docker/config.json``.

Layouts read by :func:`redact_values`: ``KEY=value``/``export KEY=value`` (dotenv), ``key: value``
(YAML), ``key = value`` (INI, TOML, HCL), ``"key": "value"`` (JSON), netrc tokens, pgpass
fields, ``.git-credentials`` URLs, and key files (every line but the armour). The line-number
gutters of OpenCode's read tool (``00001| ``, ``1: ``) and its ``<file>``/``<content>`` wrapper
lines are kept. A line with no key (a bare token) is redacted whole.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

__all__ = ["KIND", "is_sensitive_path", "redact_tool_part", "redact_values", "sensitive_files_in_command"]

KIND = "credential_file"
_MARKER = f"[REDACTED:{KIND}]"
_SAFE_SUFFIXES = (".example", ".sample", ".template", ".dist", ".defaults", ".tmpl", ".pub")
_EXACT = frozenset({
    ".env", ".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", "credentials",
    "credentials.json", ".credentials", ".credentials.json", "kubeconfig", "keystore.json", "wallet.dat",
    "wallet.json", ".htpasswd", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
    ".vault-token", ".dockercfg", "service-account.json", "service_account.json",
})
_SUFFIXES = (".pem", ".key", ".tfvars", ".tfvars.json", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx")
_TWO_PARTS = frozenset({".kube/config", ".docker/config.json", ".aws/credentials", ".ssh/id_rsa"})
_KEY_FILE_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx", ".dat")
_PATH_KEYS = ("filePath", "file_path", "path", "filename", "file")
_CONTENT_KEYS = ("content", "newString", "oldString", "new_string", "old_string", "text", "contents")
_READERS = frozenset({
    "cat", "less", "more", "head", "tail", "bat", "batcat", "type", "get-content", "gc", "nl", "strings", "xxd",
    "od", "hexdump", "base64", "tac", "view", "vim", "vi", "nano", "sed", "awk", "grep", "rg", "source", ".",
    "openssl", "jq", "yq", "cp", "scp", "diff",
})
_OUTPUT_FLAGS = frozenset({"-out", "-o", "--output", "--out", ">", ">>", "-outform", "1>", "2>"})  # a file written
_GUTTER = re.compile(r"^(?P<gutter>[ \t]*\d+(?:\| |: |\t|\|))?")
_STRUCTURAL = re.compile(r"^[ \t]*(?:$|[#;!]|//(?:[ \t]|$)|<[/?]?[\w:-]+>?[ \t]*$|\(End of file|\[[^\]=]*\][ \t]*$|[{}\[\],]+[ \t]*$|-----(?:BEGIN|END))")
_EQ_PAIR = re.compile(
    r"""^(?P<key>[ \t]*(?:export[ \t]+|set[ \t]+|-[ \t]+)?["']?[^\s="']+["']?[ \t]*:?=[ \t]*)"""
    r"""(?P<value>.*?)(?P<tail>[ \t]*,?[ \t]*)$"""
)
_COLON_PAIR = re.compile(
    r"""^(?P<key>[ \t]*(?:-[ \t]+)?["']?[\w.$@/-]+["']?[ \t]*:(?!//)[ \t]*)"""
    r"""(?P<value>.*?)(?P<tail>[ \t]*,?[ \t]*)$"""
)
_NETRC_TOKEN = re.compile(r"(?P<key>\b(?:login|password|account|passwd)[ \t]+)(?P<value>\S+)")
_URL_USERINFO = re.compile(r"(?P<key>[a-z][\w+.-]*://)(?P<value>[^/@\s]+)@")
_PGPASS = re.compile(r"^(?P<key>[^:\s]+:[^:\s]+:[^:\s]+:[^:\s]+:)(?P<value>.+)$")


def is_sensitive_path(path: str) -> bool:
    """True when the file at ``path`` (any OS spelling) is named as a credential store (see the
    module docstring). Never raises."""
    if not path:
        return False
    parts = [p for p in re.split(r"[\\/]", path.strip().strip("\"'")) if p]
    if not parts:
        return False
    name = parts[-1].lower()
    if name.endswith(_SAFE_SUFFIXES):
        return False
    if name in _EXACT or "/".join(parts[-2:]).lower() in _TWO_PARTS:
        return True
    if name.startswith(".env") and (len(name) == 4 or name[4] in ".-_"):
        return True
    if name.endswith(_SUFFIXES) or name.startswith("utc--"):
        return True
    return name.startswith("secrets.") or (name.startswith("id_") and "." not in name)


def sensitive_files_in_command(command: str) -> list[str]:
    """The sensitive paths a shell command reads or prints (``cat .env``, ``head ~/.netrc``,
    ``Get-Content .env``), in order. Words after a reader command are tried as paths, except a
    file it writes (after ``-out``/``-o``/``>``); a command that cannot be split as shell words
    is split on whitespace. Never raises."""
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:
        words = command.split()
    found: list[str] = []
    reading = False
    previous = ""
    for word in words:
        written = previous in _OUTPUT_FLAGS or word.startswith(">")
        previous = word
        if word in {"|", "&&", "||", ";"} or word.endswith(";"):
            reading = False
            word = word.rstrip(";")
        base = word.rsplit("/", 1)[-1].lower()
        if base in _READERS:
            reading = True
            continue
        if reading and not written and not word.startswith("-") and is_sensitive_path(word.lstrip("<")):
            found.append(word)
    return found


def _redact_line(line: str, key_file: bool) -> tuple[str, int]:
    gutter_match = _GUTTER.match(line)
    gutter = (gutter_match.group("gutter") or "") if gutter_match else ""
    body = line[len(gutter):]
    if _STRUCTURAL.match(body) or "[REDACTED:" in body and not body.replace("[REDACTED:", "").strip(" \t"):
        return line, 0
    if key_file:
        return gutter + _MARKER, 1
    for pattern in (_URL_USERINFO, _NETRC_TOKEN):
        if pattern.search(body):
            redacted, count = pattern.subn(lambda m: m.group("key") + _MARKER + ("@" if pattern is _URL_USERINFO else ""), body)
            return gutter + redacted, count
    pgpass = _PGPASS.match(body) if " " not in body.strip() else None
    if pgpass is not None:
        return gutter + pgpass.group("key") + _MARKER, 1
    pair = _EQ_PAIR.match(body) or _COLON_PAIR.match(body)
    if pair is not None:
        value = pair.group("value")
        if not value.strip() or value.strip() in {"|", ">", "|-", ">-", "{", "[", "null", "~", '""', "''"}:
            return line, 0
        quote = value[0] if value[0] in "\"'" and value.endswith(value[0]) and len(value) > 1 else ""
        return gutter + pair.group("key") + quote + _MARKER + quote + pair.group("tail"), 1
    if any(c.isalnum() for c in body):
        indent = body[: len(body) - len(body.lstrip())]
        return gutter + indent + _MARKER, 1
    return line, 0


def redact_values(text: str, *, key_file: bool = False) -> tuple[str, int]:
    """``text`` (a credential file's content, maybe with read-tool gutters) with every value
    replaced by ``[REDACTED:credential_file]`` and every key kept; returns ``(text, count)``.
    ``key_file``: the content is key material (every non-structural line goes whole)."""
    out: list[str] = []
    total = 0
    for line in text.split("\n"):
        redacted, count = _redact_line(line, key_file)
        out.append(redacted)
        total += count
    return "\n".join(out), total


def _path_of(tool_input: Mapping[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def redact_tool_part(tool: str, tool_input: Any, output: str) -> tuple[Any, str, int]:
    """Redact a tool part by value when it touches a sensitive file: returns ``(input, output,
    count)``. ``tool_input`` is the part's ``state.input`` (a dict for OpenCode's tools: the
    ``filePath`` of read/write/edit, the ``command`` of bash); the contents it writes
    (``content``, ``newString``…) and the ``output`` it printed are redacted. Anything else comes
    back as it was (the same objects). Never raises."""
    if not isinstance(tool_input, Mapping):
        return tool_input, output, 0
    path = _path_of(tool_input)
    paths = [path] if path is not None and is_sensitive_path(path) else []
    command = tool_input.get("command")
    if not paths and isinstance(command, str) and command:
        paths = sensitive_files_in_command(command)
    if not paths:
        return tool_input, output, 0
    key_file = any(p.lower().endswith(_KEY_FILE_SUFFIXES) or p.rsplit("/", 1)[-1].startswith("id_") for p in paths)
    count = 0
    new_input = dict(tool_input)
    if path is not None and paths == [path]:
        for key in _CONTENT_KEYS:
            value = new_input.get(key)
            if isinstance(value, str) and value:
                new_input[key], n = redact_values(value, key_file=key_file)
                count += n
    if output:
        output, n = redact_values(output, key_file=key_file)
        count += n
    return (new_input if count else tool_input), output, count
