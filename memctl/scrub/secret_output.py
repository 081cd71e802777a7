"""Secrets in the output of commands that print them, on the lines after the command.

* ``terraform output NAME`` prints the value alone (quoted) on the next line; ``terraform output
  -json`` prints ``{"NAME": {"sensitive": true, "type": …, "value": "…"}}``: a value is reported
  when its output is ``sensitive`` or its name is a credential name, or (plain form) when the value
  looks random (developer.hashicorp.com/terraform/cli/commands/output);
* ``printenv NAME``, ``echo $NAME``/``"${NAME}"``/``%NAME%``, PowerShell ``$env:NAME``, ``pulumi config
  get NAME``, ``heroku``/``dokku config:get NAME`` print a variable: its value on the next line is reported when ``NAME`` is a credential name;
* token printers not covered by :mod:`memctl.scrub.printed_tokens`: ``fly``/``flyctl tokens create``
  and ``auth token``, Bitwarden ``bw unlock --raw``/``bw login --raw``, ``op signin --raw``,
  ``keyring get``, ``secret-tool lookup``, ``lpass show --password``: the next line, when it is not a word;
* labelled values: ``New value: …`` (``elasticsearch-reset-password``), ``SecretID: …`` (Consul),
  ``Secret ID = …`` (Nomad), ``Generated password: …``, ``Temporary password: …``, when a credential
  word is within the 300 characters before;
* ``cat``/``type``/``Get-Content``/``head`` of a file whose name says it holds one secret
  (``privatekey``, ``*.key`` but not ``*.pub``, ``*privkey*``, ``.erlang.cookie``, ``passphrase*``,
  ``*password*``/``*passwd*`` but not ``/etc/passwd``, ``*secret*``, ``*token*``, ``.vault-token``,
  ``*.psk``; no extension, or ``.txt``/``.key``/``.token``-like ones: not ``token_utils.py``,
  ``/etc/passwd``): each following line up to a blank line or prompt that is not ``key = value`` (those are
  :mod:`memctl.scrub.printed_tokens`' job) or a PEM armour line is reported whole.

Not when the command's output goes elsewhere: piped or redirected on its line, or inside ``$(…)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import credential_word_kind
from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["SECRET_OUTPUT_DETECTORS"]

_PROMPT = re.compile(r"[ \t]*(?:[$#>%❯]|PS [^\n]*>)[ \t]")
_FENCE = re.compile(r"[ \t]*```[\w-]*[ \t]*$")
_TF_OUTPUT = re.compile(r"terraform[ \t]+output(?P<flags>(?:[ \t]+-[\w=-]+)*)(?:[ \t]+(?P<name>[\w-]+))?[ \t]*(?:\|[ \t]*jq\b[^\n]*)?$")
_JSON_NAME = re.compile(r"\"(?P<name>[\w-]{1,80})\"[ \t]*:[ \t]*\{")
_JSON_VALUE = re.compile(r"\"value\"[ \t]*:[ \t]*\"(?P<value>(?:\\.|[^\"\\\n]){1,2000})\"")
_SENSITIVE = re.compile(r"\"sensitive\"[ \t]*:[ \t]*true")
_VARIABLE = re.compile(
    r"(?:printenv[ \t]+(?P<a>\w+)|echo[ \t]+(?:-[neE]+[ \t]+)?\"?\$\{?(?P<b>\w+)\}?\"?"
    r"|echo[ \t]+%(?P<c>\w+)%|(?:write-(?:host|output)[ \t]+)?\$env:(?P<d>\w+)"
    r"|pulumi[ \t]+config[ \t]+get[ \t]+(?P<e>[\w:.-]+)|(?:heroku|dokku)[ \t]+config:get[ \t]+(?:[\w-]+[ \t]+)?(?P<f>\w+)"
    r"(?:[ \t]+-a[ \t]+[\w-]+)?)[ \t]*$",
    re.IGNORECASE,
)
_PRINTERS = re.compile(
    r"(?:fly(?:ctl)?[ \t]+(?:tokens[ \t]+create|auth[ \t]+token)|bw[ \t]+(?:unlock|login)\b[^\n|>]*--raw"
    r"|op[ \t]+signin\b[^\n|>]*--raw|keyring[ \t]+get|secret-tool[ \t]+lookup|lpass[ \t]+show[^\n|>]*--password)"
    r"[^\n|>]*$"
)
_LABELLED = re.compile(
    r"(?im)(?:^|(?<=\x00))[ \t]*(?:new value|secretid|secret id|generated password|temporary password|initial password"
    r"|new password is|your new password is)[ \t]*[:=][ \t]*(?P<value>[^\s\x00]{6,200})[ \t]*$"
)
# The whole command: a reader, flags, one to three file names (prose such as "type == PEM and passphrase
# is …" or "less than max tokens" is not a command).
_READERS = re.compile(r"(?:cat|type|get-content|gc|head|tail|bat)(?P<args>(?:[ \t]+-\S+)*(?:[ \t]+[^\s|>;&=]+){1,3})[ \t]*", re.I)
# A file holding one secret: its base name says so, and it has no extension or a secret's own
# (``token_utils.py``, ``secrets.yaml`` and ``/etc/passwd`` are not such files).
_SECRET_FILE = re.compile(
    r"\.?[\w.-]*(?:privatekey|privkey|private[._-]key|erlang\.cookie|passphrase|password|passwd|secret|token)"
    r"[\w-]*(?:\.(?:txt|key|pw|pass|secret|token|cookie))?|[\w.-]+\.(?:key|psk)",
    re.IGNORECASE,
)
_PAIR = re.compile(r"[ \t]*[\w.\"'-]{1,64}[\"']?[ \t]*(?:=|:[ \t])")
_GATES = ("terraform output", "printenv", "echo", "$env:", "config get", "config:get", "tokens create", "auth token", "--raw", "keyring get",
          "secret-tool", "lpass", "new value", "secretid", "secret id", "generated password", "temporary password",
          "initial password", "new password is", "cat ", "type ", "get-content", "gc ", "head ", "tail ", "bat ")
_CREDENTIAL_WORDS = ("pass", "secret", "token", "key", "credential")


def _line_after(text: str, line_end: int) -> tuple[int, int] | None:
    """The next non-blank line after ``line_end`` (a Markdown fence skipped), or None at a prompt."""
    start = line_end + 1
    for _ in range(4):
        if start >= len(text):
            return None
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if line.strip() and not _FENCE.match(line):
            return None if _PROMPT.match(line) or "\x00" in line else (start, end)
        start = end + 1
    return None


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\"'":
        start += 1
    while end > start and text[end - 1] in " \t\r\"'":
        end -= 1
    return start, end


def _not_a_word(value: str) -> bool:
    return len(value) >= 8 and (
        (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))
        or any(not c.isalnum() and c not in "-_. " for c in value)
        or (any(c.isupper() for c in value) and any(c.islower() for c in value))
    )


def _random_id(value: str) -> bool:
    """A generated secret, not a resource id (``vpc-0abc…``, ``i-0123…`` are lower case)."""
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(
        c.islower() for c in value
    )


_LINE = re.compile(r"[^\n\x00]*")


def _command_lines(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """``(start, end, command, prompted)`` of each line (a field separator ends a line too), the command
    without a leading prompt."""
    for match in _LINE.finditer(text):
        start, end = match.span()
        if start == end:
            continue
        line = match.group(0)
        prompt = _PROMPT.match(line)
        yield start, end, line[prompt.end() :] if prompt else line.lstrip(), prompt is not None


def _terraform_json(text: str, line_end: int) -> Iterator[Span]:
    stop = text.find("\n\n", line_end)
    block_end = min(len(text), line_end + 20000) if stop == -1 else stop
    for match in _JSON_VALUE.finditer(text, line_end, block_end):
        names = list(_JSON_NAME.finditer(text, line_end, match.start()))
        owner = names[-1] if names else None
        between = text[owner.end() if owner else line_end : match.start()]
        name = owner.group("name") if owner else ""
        value = match.group("value")
        if (_SENSITIVE.search(between) or credential_word_kind(name)) and not is_placeholder(value):
            yield match.start("value"), match.end("value"), "secret"


def _secret_output_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    for start, end, command, prompted in _command_lines(text):
        if len(command) > 400 or "$(" in command or "`" in command:
            continue
        tf = _TF_OUTPUT.search(command) if "terraform" in command else None
        if tf is not None:
            if "-json" in (tf.group("flags") or ""):
                yield from _terraform_json(text, end)
                continue
            name = tf.group("name")
            line = _line_after(text, end) if name else None
            if line is not None:
                value_start, value_end = _stripped(text, *line)
                value = text[value_start:value_end]
                if " " not in value and not is_placeholder(value) and (credential_word_kind(name) or _random_id(value)):
                    yield value_start, value_end, "secret"
            continue
        variable = _VARIABLE.search(command) if ("env" in command.lower() or "echo" in command or "config" in command) else None
        if variable is not None:
            name = next(g for g in variable.groups() if g).rsplit(":", 1)[-1]
            line = _line_after(text, end)
            if line is not None and credential_word_kind(name):
                value_start, value_end = _stripped(text, *line)
                value = text[value_start:value_end]
                # unprompted, the next line may be the script's next command, not the output
                if len(value) >= 3 and not is_placeholder(value) and (prompted or " " not in value):
                    yield value_start, value_end, "secret"
            continue
        if _PRINTERS.search(command):
            line = _line_after(text, end)
            if line is not None:
                value_start, value_end = _stripped(text, *line)
                value = text[value_start:value_end]
                if " " not in value.strip() and _not_a_word(value) and not is_placeholder(value):
                    yield value_start, value_end, "secret"
            continue
        reader = _READERS.fullmatch(command) if " " in command else None
        if reader is not None:
            files = [w.strip("\"'") for w in reader.group("args").split() if not w.startswith("-")]
            names = [f.replace("\\", "/").rsplit("/", 1)[-1] for f in files]
            # A declaration, not a command: Go/TypeScript `type Secret struct {`, `type Token = string`. Windows'
            # `type` prints a file named with an extension or a path; a brace or parenthesis is code.
            code = any(c in reader.group("args") for c in "{}()") or (
                command.lstrip().lower().startswith("type") and not any("." in f or "/" in f or "\\" in f for f in files))
            if not code and any(_SECRET_FILE.fullmatch(n) and n not in {"passwd", "shadow"} for n in names):
                yield from _file_lines(text, end)
    haystack = lowered if lowered is not None else text.lower()
    for match in _LABELLED.finditer(text):
        before = haystack[max(0, match.start() - 300) : match.start()]
        value = match.group("value")
        if any(word in before for word in _CREDENTIAL_WORDS) and _not_a_word(value) and not is_placeholder(value):
            yield match.start("value"), match.end("value"), "password"


def _file_lines(text: str, line_end: int) -> Iterator[Span]:
    start = line_end + 1
    count = 0
    while start < len(text) and count < 8:
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if not line.strip() or _PROMPT.match(line) or _FENCE.match(line) or "\x00" in line:
            return
        if not _PAIR.match(line) and not line.lstrip().startswith(("-----", "#")):
            value_start, value_end = _stripped(text, start, end)
            if value_end - value_start >= 6 and not is_placeholder(text[value_start:value_end]):
                yield value_start, value_end, "secret"
        start = end + 1
        count += 1


SECRET_OUTPUT_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_secret_output_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: secrets printed by terraform output, printenv, token printers, secret files (memctl.scrub.secret_output)",
    ),
)
"""One finder for the command outputs in the module docstring."""
