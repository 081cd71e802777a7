"""Bare tokens printed by commands whose whole output is a credential, and pasted credential files.

Token printers (each prints the token alone on its own line, per its reference page): GitHub
``gh auth token``; gcloud ``auth print-access-token`` / ``print-identity-token`` (also
``auth application-default print-access-token``); ``heroku auth:token``; ``kubectl create token``;
``kubeadm token create``; ``aws ecr get-login-password``, ``aws ecr-public get-login-password``,
``aws codeartifact get-authorization-token … --output text``; ``az account get-access-token …
-o tsv``; ``oc whoami -t`` / ``--show-token`` (OpenShift); ``vault print token``; ``doctl auth
token``; ``firebase login:ci``; ``npm token create`` (its table row ``token | …``).

The value is the first non-blank line after the command line (a Markdown fence in between is
skipped), when it is one run without spaces of 16+ characters that is not a word (a digit with
a letter, a symbol, or mixed case). Not when the command's output goes elsewhere: inside
``$(…)`` or backticks, or piped or redirected on its line.

Pasted credential files: ``cat``/``type``/``Get-Content``/``head``/``tail``/``less`` of a file
named as a credential store (:func:`memctl.scrub.sensitive_source.sensitive_files_in_command`:
``*.tfvars``, ``secrets.*``, ``.pgpass`` …) printed as plain tool text. Each following line up to
the next prompt or blank line that is ``key = value`` or ``key: value`` has its value reported
(kind ``credential_file``) when the value looks like a literal credential: not a placeholder,
number, boolean, path, URL or region-like word list, and not a nested-block opener. ``.env``
files are left to the key-name rules: their names say which values are secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import credential_word_kind
from memctl.scrub.detector import Detector, Span, detector, is_placeholder
from memctl.scrub.sensitive_source import is_sensitive_path, sensitive_files_in_command

__all__ = ["PRINTED_TOKEN_DETECTORS"]

_PRINTERS = (
    "gh auth token", "print-access-token", "print-identity-token", "auth:token", "create token",
    "token create", "get-login-password", "get-authorization-token", "get-access-token", "whoami -t",
    "whoami --show-token", "print token", "doctl auth token", "login:ci",
)
_FENCE = re.compile(r"[ \t]*```[\w-]*[ \t]*\r?\n")
_VALUE_LINE = re.compile(r"[ \t]*(?:[│|][ \t]*token[ \t]*[│|][ \t]*)?(?P<value>[^\s\x00│|`]{16,4096})[ \t]*[│|]?[ \t]*\r?(?:\n|$)")
_FILE_READERS = ("cat ", "type ", "get-content ", "head ", "tail ", "less ", "more ", "bat ")
_PAIR = re.compile(
    r"""[ \t]*(?:-[ \t]+)?["']?(?P<key>[\w.$@/-]{1,64})["']?[ \t]*(?:=|:(?!//))[ \t]*"""
    r"""(?P<q>["']?)(?P<value>[^\s"'\x00#][^\n\x00]*?)(?P=q)[ \t]*,?[ \t]*\r?$"""
)
_PLAIN_WORDS = re.compile(r"[a-z]+(?:[-_.][a-z0-9]+)*|[0-9][0-9.:_-]*|v?\d+(?:\.\d+)+")
# A line a CLI prints to stderr before its output: heroku's "› Warning: …", gcloud's "WARNING: …",
# npm's "npm warn …", Node's "(node:123) …", klog's "W1207 16:00:00 …", "Note:"/"Info:"/"Updating…"
# lines, "!"/"⚠"/"▸" marks.
_NOTICE = re.compile(r"[ \t]*(?:[›▸!⚠*]|\(node:|npm (?:warn|notice)|[IWE]\d{4} \d\d:\d\d:\d\d|(?i:warn(?:ing)?|note|notice|info|deprecat\w*|update\w*)\b)")
_LOWER_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")
_PROMPT = re.compile(r"[ \t]*(?:[$#>%❯]|PS [^\n]*>)[ \t]")


def _not_a_word(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (has_digit and has_alpha) or mixed or any(not c.isalnum() and c not in "-_." for c in value)


def _printed_spans(text: str, lowered: str) -> Iterator[Span]:
    for printer in _PRINTERS:
        pos = lowered.find(printer)
        while pos != -1:
            line_start = lowered.rfind("\n", 0, pos) + 1
            line_end = lowered.find("\n", pos)
            before, after = lowered[line_start:pos], lowered[pos:line_end if line_end != -1 else len(lowered)]
            if line_end != -1 and "$(" not in before and "`" not in before and "|" not in after and ">" not in after:
                start = line_end + 1
                for _ in range(4):  # blank lines and notices between the command and its output
                    nxt = text.find("\n", start)
                    if nxt == -1 or (text[start:nxt].strip() and _NOTICE.match(text, start, nxt) is None):
                        break
                    start = nxt + 1
                fence = _FENCE.match(text, start)
                if fence is not None:
                    start = fence.end()
                line = _VALUE_LINE.match(text, start)
                if line is not None:
                    value = line.group("value")
                    if _not_a_word(value) and not is_placeholder(value) and not value.startswith(("http", "/", "$")):
                        yield line.start("value"), line.end("value"), "secret"
            pos = lowered.find(printer, pos + len(printer))


def _file_value_ok(value: str, key: str = "") -> bool:
    """A value of a pasted credential file worth masking. Under a name that is no credential word
    (``instance_type``, ``region``), a lower-case identifier (``t3.micro``, ``us-east-1``,
    ``db-prod-2``) is configuration and stays; under a credential name it is masked."""
    stripped = value.strip()
    if key and credential_word_kind(key) is None and _LOWER_IDENTIFIER.fullmatch(stripped):
        return False
    if len(stripped) < 4 or stripped in {"{", "[", "|", ">", "|-", ">-", "~"} or is_placeholder(stripped):
        return False
    if stripped.lower() in {"true", "false", "null", "none", "yes", "no"} or _PLAIN_WORDS.fullmatch(stripped):
        return False
    if stripped.startswith(("/", "./", "~/", "[", "{")) or "://" in stripped and "@" not in stripped:
        return False
    return _not_a_word(stripped) or len(stripped) >= 12


def _credential_file_spans(text: str, lowered: str) -> Iterator[Span]:
    for reader in _FILE_READERS:
        pos = lowered.find(reader)
        while pos != -1:
            line_end = text.find("\n", pos)
            command = text[pos:line_end] if line_end != -1 else ""
            quick = [w for w in command.split()[1:8] if is_sensitive_path(w.strip("\"'<;"))] if command else []
            # shlex reads a Windows path's backslashes as escapes (.\secrets.json): then the plain words
            files = (sensitive_files_in_command(command) or (quick if "\\" in command else [])) if quick else []
            if files and not all(f.rsplit("/", 1)[-1].lower().startswith(".env") for f in files):
                start = line_end + 1
                while start < len(text):
                    end = text.find("\n", start)
                    end = len(text) if end == -1 else end
                    line = text[start:end]
                    if not line.strip() or _PROMPT.match(line) or "\x00" in line:
                        break
                    pair = _PAIR.match(text, start, end)
                    if pair is not None and _file_value_ok(pair.group("value"), pair.group("key")):
                        yield pair.start("value"), pair.end("value"), "credential_file"
                    start = end + 1
            pos = lowered.find(reader, pos + len(reader))


def _printed_token_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if any(printer in gates for printer in _PRINTERS):
        yield from _printed_spans(text, lowered)
    if any(reader in gates for reader in _FILE_READERS):
        yield from _credential_file_spans(text, lowered)


_LITERALS = tuple(sorted({*_PRINTERS, *_FILE_READERS}))

PRINTED_TOKEN_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_printed_token_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: token printers' output lines and pasted credential files (see memctl.scrub.printed_tokens)",
    ),
)
"""One finder for the printed tokens and pasted files in the module docstring."""
