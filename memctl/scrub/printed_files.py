"""Values printed by commands whose output is a secret, and passwords in configuration files read whole.

:mod:`memctl.scrub.printed_tokens` redacts the output of token printers and of files whose name
says they hold credentials. This module reads what those names miss:

* a bare value on the lines after a command that prints one: ``bitcoin-cli dumpprivkey`` (a WIF
  key, Bitcoin Core RPC reference), ``cat`` of an Ansible vault password file (``.vault_pass``,
  ``vault_pass.txt``, ``.vault_password``: Ansible's ``--vault-password-file`` docs) or of an
  OpenVPN ``auth-user-pass`` file (``auth.txt``/``creds.txt``/``credentials.txt``: user on the
  first line, password on the second, OpenVPN reference manual); every output line up to the next
  prompt or blank line is redacted, except the first line of an OpenVPN file (the user name);
* a configuration file read whole (``cat app.ini``, ``cat settings.conf``/``.cfg``/``.json``/
  ``.toml``/``.yaml``/``.properties``): a value that is password-shaped
  (:func:`memctl.scrub.world_prose.password_shaped` with a symbol or a digit, or random-looking)
  under any key name, and every string value of a file named like a vault (``vault.json``,
  ``vault.yml``).

Kinds: ``secret`` for printed values, ``password`` for configuration values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random
from memctl.scrub.world_prose import password_shaped

__all__ = ["PRINTED_FILE_DETECTORS"]

# (gate literal, is an OpenVPN user/password file)
_VALUE_PRINTERS = (
    ("dumpprivkey", False), ("dumpwallet", False), ("vault_pass", False), ("vault-pass", False),
    ("vault_password", False), ("vault-password", False), ("auth.txt", True), ("creds.txt", True),
    ("credentials.txt", True), ("auth-user-pass", True), ("login.conf", True),
)
_CONFIG_EXTENSIONS = (".ini", ".conf", ".cfg", ".cnf", ".toml", ".properties", ".json", ".yaml", ".yml")
_SHAPED_ONLY = (".ini", ".conf", ".cfg", ".cnf", ".toml", ".properties")  # others: vault names only
_ID_KEYS = re.compile(r"(?i).*(?:hash|sha\d*|checksum|digest|etag|integrity|uuid|guid|_id|version|commit|revision)$")
_VAULT_NAMES = ("vault.json", "vault.yml", "vault.yaml", "vault.ini")
_PROMPT = re.compile(r"[ \t]*(?:[$#%❯][ \t]|>>>|[\w.@-]+[:~][^\n]{0,60}[$#][ \t]|```|PS [A-Z]:)")
_READ = re.compile(r"(?:\b(?:cat|type|bat|head|tail|more|less|get-content|gc|nl)\b|bitcoin-cli|\bdump)", re.I)
_PAIR = re.compile(
    r"[ \t]*[\"']?(?P<key>[\w.$@/-]{1,60})[\"']?[ \t]*(?:=|:(?!//)|[ \t])[ \t]*[\"']?(?P<value>[^\s\"'\x00]{4,120}?)[\"']?[ \t]*,?[ \t]*(?:[ \t][#;][^\n]*)?$"
)
_JSON_STRING = re.compile(r"\"(?P<key>[^\"\n\x00]{1,60})\"[ \t]*:[ \t]*\"(?P<value>[^\"\n\x00\\]{4,200})\"")
_MAX_LINES = 80


def _output_lines(text: str, start: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each output line from ``start`` to the next prompt, blank line or fence."""
    count = 0
    while start < len(text) and count < _MAX_LINES:
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if not line.strip() or _PROMPT.match(line) or "\x00" in line:
            return
        yield start, end
        count += 1
        start = end + 1


def _command_at(text: str, pos: int) -> tuple[str, int] | None:
    """The command line holding ``pos`` and the offset just after it, when it reads or dumps."""
    line_start = text.rfind("\n", max(0, pos - 200), pos) + 1
    if line_start == 0 and pos > 200:
        return None  # a long line (JSON of a tool call) is no command line
    line_end = text.find("\n", pos)
    if line_end == -1:
        return None
    command = text[line_start:line_end]
    if _READ.search(command) is None or ">" in command.split("cat", 1)[-1] and "vault" not in command:
        return None
    return command, line_end + 1


def _config_value_ok(key: str, value: str) -> bool:
    """A password under an unusual key: a symbol with a digit, or mixed case with a digit, or a random run."""
    if _ID_KEYS.fullmatch(key) or not password_shaped(value) or any(c.isspace() for c in value):
        return False
    digit = any(c.isdigit() for c in value)
    if digit and any(c in "!#$%&*?@^~+=" for c in value):
        return True
    if digit and any(c.isupper() for c in value) and any(c.islower() for c in value) and not any(c in "./:" for c in value):
        return True
    return looks_random(value, min_len=20) and not any(c in "./:" for c in value)


def _printer_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for literal, user_first in _VALUE_PRINTERS:
        if literal not in gates:
            continue
        pos = lowered.find(literal)
        while pos != -1:
            found = _command_at(text, pos)
            if found is not None:
                for index, (start, end) in enumerate(_output_lines(text, found[1])):
                    value = text[start:end].strip()
                    if (user_first and index == 0) or len(value) < 4 or is_placeholder(value):
                        continue
                    if " " in value and not user_first and literal.startswith("dump"):
                        continue  # a wallet dump's comment line
                    offset = start + (len(text[start:end]) - len(text[start:end].lstrip()))
                    yield offset, offset + len(value), "secret"
            pos = lowered.find(literal, pos + len(literal))


def _config_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for extension in _CONFIG_EXTENSIONS:
        if extension not in gates:
            continue
        vault = any(name in gates for name in _VAULT_NAMES)
        pos = lowered.find(extension)
        while pos != -1:
            after = lowered[pos + len(extension) : pos + len(extension) + 1]
            found = _command_at(text, pos) if after in ("", "\n", " ", "'", '"') else None
            if found is not None:
                is_vault = vault and any(lowered.startswith(name, pos + len(extension) - len(name)) for name in _VAULT_NAMES)
                for start, end in _output_lines(text, found[1]):
                    pairs = list(_JSON_STRING.finditer(text, start, end)) or [m for m in [_PAIR.match(text, start, end)] if m]
                    for pair in pairs:
                        value = pair.group("value")
                        if is_placeholder(value):
                            continue
                        if is_vault or (extension in _SHAPED_ONLY and _config_value_ok(pair.group("key"), value)):
                            yield pair.start("value"), pair.end("value"), "password"
            pos = lowered.find(extension, pos + len(extension))


def _printed_file_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _printer_spans(text, lowered, gates)
    yield from _config_spans(text, lowered, gates)


_LITERALS = tuple(sorted({literal for literal, _ in _VALUE_PRINTERS} | set(_CONFIG_EXTENSIONS) | set(_VAULT_NAMES)))

PRINTED_FILE_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_printed_file_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: values printed by dumpprivkey, vault and OpenVPN password files, configuration files read whole",
    ),
)
"""One finder for the printed values and configuration files in the module docstring."""
