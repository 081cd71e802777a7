"""Credentials as positional arguments, Windows-style switches, or written into a password file.

Sources (each tool's manual or ``--help``):

* FreeRDP (``xfreerdp``, ``xfreerdp3``, ``wlfreerdp``, ``sdl-freerdp``): ``/p:PASS``, ``/password:PASS``
  (quoted in prose without the client: when the value has letters and digits);
* Windows ``net use [DEVICE] \\\\server\\share PASS /user:DOMAIN\\user``;
* ``gcloud auth activate-refresh-token ACCOUNT TOKEN``;
* MinIO client ``mc alias set ALIAS URL ACCESSKEY SECRETKEY`` (also ``mc config host add``);
* ``rclone config create|update NAME TYPE key value …`` (or ``key=value``): values of
  credential-named keys (``secret_access_key``, ``pass``, ``token``);
* ``git config [--global|--local|--system|--file F] KEY VALUE`` with a credential-named KEY
  (``github.token``, ``credential.password``);
* ``echo|printf VALUE > FILE`` where FILE is named like a password file (``.vault_pass``,
  ``rsync.pass``, ``token.txt``) or is passed to a ``--…pass…-file`` flag in the same text
  (``rsync --password-file=FILE``);
* ``echo VALUE | vercel env add NAME`` and ``… | wrangler secret put NAME``: the piped value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, has_digit_and_letter, is_placeholder
from memctl.scrub.keyword import is_credential_name

__all__ = ["COMMAND_ARGUMENT_DETECTORS"]

# A command's start: a word boundary, or right after an escaped newline or tab ("\\nmc alias set").
_CMD = r"(?:(?<![\w.-])|(?<=\\[nrt]))"
_WORD = r"""(?:'(?P<sq>[^\x00'\n]+)'|"(?P<dq>[^\x00"\n\\]+)"|(?P<bare>[^\x00\s'"`;|&)\\]+))"""
_ARG = r"""(?:'[^\x00'\n]*'|"[^\x00"\n]*"|[^\x00\s'"`;|&]+)"""
_FREERDP = re.compile(r"freerdp3?\b[^\n\x00|;&]*?[ \t]/p(?:assword)?:" + _WORD)
# The switch quoted without its client ("the remote desktop uses /p:X"): a password-shaped value only.
_PASSWORD_SWITCH = re.compile(r"/p(?:assword)?:" + _WORD)  # literal-led: the character before is checked apart
_SWITCH_BEFORE = frozenset(" \t\n\r\"'`(")
_NET_USE = re.compile(_CMD + r"net[ \t]+use(?:[ \t]+[A-Za-z]:|[ \t]+\*)?[ \t]+\\\\+[^\s\x00]+[ \t]+(?![/*])" + _WORD)
_REFRESH_TOKEN = re.compile(r"activate-refresh-token[ \t]+" + _ARG + r"[ \t]+(?!-)" + _WORD)
_MC_ALIAS = re.compile(
    _CMD + r"mc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+" + _ARG + r"[ \t]+" + _ARG + r"[ \t]+" + _ARG
    + r"[ \t]+" + _WORD
)
_RCLONE = re.compile(r"rclone[ \t]+config[ \t]+(?:create|update)(?P<rest>[^\n\x00|;&]*)")
_RCLONE_PAIR = re.compile(r"(?:^|(?<=[ \t]))(?P<key>[A-Za-z_][A-Za-z0-9_]*)(?:=|[ \t]+)" + _WORD)
_GIT_CONFIG = re.compile(
    r"git[ \t]+config(?:[ \t]+--(?:global|local|system|worktree|add|replace-all)|[ \t]+(?:--file|-f)[ \t]+"
    + _ARG + r")*[ \t]+(?P<key>[A-Za-z][\w.-]*)[ \t]+(?!-)" + _WORD
)
_ECHO_TO_FILE = re.compile(
    r"(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+'%s[^\x00'\n]*')?)[ \t]+" + _WORD + r"[ \t]*>>?[ \t]*(?P<file>[^\x00\s;|&'\"]+)"
)
_PASSWORD_FILE_FLAG = re.compile(r"--?[\w-]*pass[\w-]*-file[= \t]+(?P<file>[^\x00\s;|&'\"]+)")
_PASSWORD_FILE_NAME = re.compile(r"(?i)(?:^|[._-])(?:pass(?:word|wd|phrase)?|pw|secret|token|creds?|credentials)(?:$|[._-])")
_PIPED_INTO_STORE = re.compile(
    r"(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+'%s[^\x00'\n]*')?)[ \t]+" + _WORD
    + r"[ \t]*\|[ \t]*(?:npx[ \t]+)?(?:vercel[ \t]+env[ \t]+add|wrangler[ \t]+secret[ \t]+put|netlify[ \t]+env:set)\b"
)
# Literals without which no rule here matches, chosen to be cheap for memctl.scrub.gates (a
# rare punctuation character or one scan shared by several rules); each rule's own literal is
# looked for only when its gate is present.
_GATES = ("/p:", "/password:", "alias set", "host add", "rclone config", "git config", "activate-refresh-token", ">",
          "|", "\\")


def _value_span(match: re.Match[str]) -> tuple[int, int] | None:
    for group in ("sq", "dq", "bare"):
        value = match.group(group)
        if value is not None:
            if is_placeholder(value) or value.startswith("-") or value == "*":
                return None
            return match.span(group)
    return None


def _argument_spans(text: str, lowered: str | None, present: frozenset[str]) -> Iterator[Span]:
    """Positional and switch credentials of the tools in the module docstring
    (``present``: the ``_GATES`` literals in the text)."""
    if not present:
        return
    haystack = lowered if lowered is not None else text.lower()
    simple = (
        # FreeRDP always has its /p: switch; net use its \\server.
        ("/p:" in present or "/password:" in present) and "freerdp" in haystack and (_FREERDP, "password"),
        "\\" in present and "net use" in haystack and (_NET_USE, "password"),
        "activate-refresh-token" in present and (_REFRESH_TOKEN, "secret"),
        ("alias set" in present or "host add" in present) and (_MC_ALIAS, "secret"),
    )
    for rule in simple:
        if rule:
            pattern, kind = rule
            for match in pattern.finditer(text):
                span = _value_span(match)
                if span is not None:
                    yield span[0], span[1], kind
    if ("/p:" in present or "/password:" in present) and "freerdp" not in haystack:
        for match in _PASSWORD_SWITCH.finditer(text):
            if match.start() > 0 and text[match.start() - 1] not in _SWITCH_BEFORE:
                continue
            span = _value_span(match)
            if span is not None and has_digit_and_letter(text[span[0] : span[1]]) and span[1] - span[0] >= 8:
                yield span[0], span[1], "password"
    if "rclone config" in present or "git config" in present:
        yield from _config_spans(text, present)
    if ">" in present:
        yield from _password_file_spans(text, haystack)
    if "|" in present and ("env add" in haystack or "secret put" in haystack or "env:set" in haystack):
        for match in _PIPED_INTO_STORE.finditer(text):
            span = _value_span(match)
            if span is not None:
                yield span[0], span[1], "secret"


def _config_spans(text: str, present: frozenset[str]) -> Iterator[Span]:
    """``rclone config create|update`` credential pairs and ``git config`` credential keys."""
    if "rclone config" in present:
        for match in _RCLONE.finditer(text):
            for pair in _RCLONE_PAIR.finditer(text, match.start("rest"), match.end("rest")):
                span = _value_span(pair)
                if span is not None and is_credential_name(pair.group("key")):
                    yield span[0], span[1], "secret"
    if "git config" in present:
        for match in _GIT_CONFIG.finditer(text):
            span = _value_span(match)
            if span is not None and is_credential_name(match.group("key").rsplit(".", 1)[-1]):
                yield span[0], span[1], "secret"


_REDIRECT_TO_PASSWORD_FILE = re.compile(r">>?[ \t]*(?P<file>[^\x00\s;|&'\"]*(?:pass|pw|secret|token|cred)[^\x00\s;|&'\"]*)")


def _password_file_spans(text: str, lowered: str) -> Iterator[Span]:
    """``echo VALUE > FILE`` when FILE is a password file by its name or by a ``--…pass…-file`` flag.

    Found from the redirect (a ``>`` literal scans fast), then the ``echo`` on its line."""
    redirects = [m.start() for m in _REDIRECT_TO_PASSWORD_FILE.finditer(lowered) if _PASSWORD_FILE_NAME.search(
        m.group("file").rsplit("/", 1)[-1])]
    if "-file" in lowered:
        for flag in _PASSWORD_FILE_FLAG.finditer(text):
            name = flag.group("file")
            pos = text.find(name)
            while pos != -1:
                before = text[max(0, pos - 3) : pos].rstrip(" \t")
                if before.endswith(">"):
                    redirects.append(pos - (len(text[max(0, pos - 3) : pos]) - len(before)) - 1)
                pos = text.find(name, pos + 1)
    for redirect in sorted(set(redirects)):
        line_start = max(text.rfind("\n", 0, redirect), text.rfind("\x00", 0, redirect), redirect - 300, -1) + 1
        for match in _ECHO_TO_FILE.finditer(text, line_start, min(len(text), redirect + 200)):
            if match.start("file") >= redirect:
                span = _value_span(match)
                if span is not None:
                    yield span[0], span[1], "password"
                break


COMMAND_ARGUMENT_DETECTORS: tuple[Detector, ...] = (
    detector("password", finder=_argument_spans, literals=_GATES,
             origin="memctl: FreeRDP, net use, gcloud, mc, rclone, git config, password files, vercel/wrangler"),
)
"""Positional and switch credentials (see the module docstring)."""
