"""The sleep cycle's validator: ONE deterministic function, the only gate from ``staging/`` to ``user/``.

All untrusted writes funnel through one deterministic check before they can
ever reach a prompt (README, "What gets promoted"). :func:`validate_proposal` takes a staged proposal (the
raw JSON bytes of ``staging/sessions/<session>/inbox/<id>.json``, its text, or
the parsed dict; shape in :mod:`memctl.ask.proposals`) and returns a
:class:`Verdict`: ``ok`` with the canonical ``user/…`` path and the content to
promote, or a stable reason code plus a human detail. It never raises for bad
input, calls no model and reads no file: the same proposal always gets the
same verdict under the same :class:`ValidationLimits`.

Checks, in order (the first failure is the verdict):

========================  ======================================================
reason code               when
========================  ======================================================
``not_utf8``              the raw bytes are not UTF-8, or a string holds a lone
                          surrogate (JSON ``"\\ud800"``)
``malformed``             not JSON, not an object, a required field (``id``,
                          ``session``, ``target``, ``path``, ``content``)
                          missing or of the wrong type, a bad id/session/topic
``target_not_user``       ``target`` is not ``"user"``, or the path is under
                          ``staging/`` or no known prefix
``internal_path``         the path is under ``audit/`` or ``versions/``
``memory_path``           the path is under ``memory/`` (machine-managed)
``absolute_path``         ``/etc/passwd``, ``C:\\…``, ``~/…``
``traversal``             a ``..`` component (also with ``\\`` or fullwidth dots)
``bad_path``              any other path the store refuses
                          (:func:`memctl.store.policy.normalize_path`: NUL,
                          control, zero-width or bidi characters, backslashes,
                          hidden names, …) or a path that changes under NFKC
                          (fullwidth ``／`` or ``．`` can disguise structure)
``empty_content``         blank content
``oversize_bytes``        UTF-8 content over ``max_bytes``
``oversize_lines``        content over ``max_lines`` lines
``control_chars``         C0/C1 controls other than ``\\n``, ``\\t`` and the
                          ``\\r`` of a CRLF pair; Unicode tag characters
                          (U+E0000–E007F) and variation selectors supplement
                          (U+E0100–E01EF), which carry invisible text
``prompt_injection:<p>``  a pattern of :data:`INJECTION_PATTERNS` matched the
                          folded content (``<p>`` is its name), also inside a
                          base64 blob (``prompt_injection:encoded:<p>``)
``secret:<kind>``         :func:`memctl.scrub.find_secrets` (the ingest
                          scrubber's detectors) found a secret in the original,
                          the de-obfuscated or the folded content, or a
                          password is stated in prose (``secret:password_prose``)
========================  ======================================================

Folding (what the patterns see): Unicode NFKC (fullwidth letters, math
alphanumerics, ligatures → ASCII), removal of format characters (zero-width
space/joiners, bidi embeddings/overrides/isolates, soft hyphen, BOM, …) and
other invisibles, a small confusables map (Cyrillic and Greek letters that look
Latin), case folding, NFKC again, and whitespace collapsing (a run with a line
break becomes one ``\\n``, any other run one space). So ``ＩＧＮＯＲＥ``,
``ig\\u200bnore``, ``IgNoRe`` and ``ignore \\n\\n  previous`` all fold to plain
words. The content that is promoted is the original text, never the folded one.

Why the pattern list is ours: maintained detectors either need a model
(llm-guard's PromptInjection scanner and pytector load a DeBERTa classifier
from the Hugging Face hub, which memctl may not download at run time; rebuff
and NeMo Guardrails call an LLM or a vector store), or are young single-author
regex packages (injectionguard, nukon-pi-detect) whose lists are not versioned
against our normalisation and give no stable per-pattern reason codes. The
categories follow those tools and the OWASP LLM01 (prompt injection) examples:
instruction override, system-prompt extraction, role-play and jailbreak
markers, chat-template delimiters, exfiltration, plus memctl's own context
section headers (``[USER_MEMORY]``, ``[REFERENCE]``: a memory that opens a
section could pose as reference material or forge a second memory block).
Redaction markers left by the staging scrubber (``[REDACTED:password]``) are
not secrets and pass. Near-miss policy (tested in
tests/test_validator.py): a pattern must name the *model* or an *instruction*,
not merely a word — "fixed the password-reset page", "act as a proxy for the
API", "Dan from infra", "enable developer mode on the Pixel" pass. Two phrases
the issue names are rejected wherever they occur, because a memory quoting
them is exactly what a poisoned memory looks like: "system prompt" and
"exfiltrate". A legitimate note about a product's system prompt is archived
with that reason; re-stage it in other words.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from memctl.ingest.scrub import find_secrets
from memctl.store.errors import InvalidPathError
from memctl.store.policy import INTERNAL_PREFIXES, PUBLIC_PREFIXES, normalize_path

__all__ = [
    "INJECTION_PATTERNS",
    "ValidationLimits",
    "Verdict",
    "fold_for_matching",
    "validate_proposal",
]

# Same shapes as memctl.proposals (kept here so the gate does not depend on the writer).
_PROPOSAL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_TOPIC_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ValidationLimits:
    """Size bounds of one promoted memory (settings ``proposal_max_bytes`` / ``proposal_max_lines``).

    Attributes:
        max_bytes: UTF-8 bytes of the content (default 2000).
        max_lines: lines of the content, as :meth:`str.splitlines` counts them (default 40).
    """

    max_bytes: int = 2000
    max_lines: int = 40

    @classmethod
    def from_settings(cls, settings: Any) -> "ValidationLimits":
        """Limits from a :class:`memctl.config.Settings`."""
        return cls(max_bytes=settings.proposal_max_bytes, max_lines=settings.proposal_max_lines)

    @property
    def max_raw_bytes(self) -> int:
        """Bound on the staged JSON itself: escapes (``\\uXXXX``) may take 6 bytes a character."""
        return self.max_bytes * 6 + 16384


@dataclass(frozen=True)
class Verdict:
    """The validator's decision on one proposal.

    Attributes:
        ok: True only when every check passed.
        path: the canonical target (``user/…``) when ok, else None.
        reason: None when ok, else a stable code (see the module table), e.g.
            ``"traversal"``, ``"secret:github_token"``,
            ``"prompt_injection:instruction_override"``.
        detail: one human sentence (for the archive and the sleep report).
        content: the content to promote (the original text, not the folded
            form) when ok, else None.
        proposal_id: the proposal's ``id`` when it could be read, else None.
    """

    ok: bool
    path: str | None
    reason: str | None
    detail: str
    content: str | None = None
    proposal_id: str | None = None


def _reject(reason: str, detail: str, proposal_id: str | None = None) -> Verdict:
    return Verdict(ok=False, path=None, reason=reason, detail=detail, content=None, proposal_id=proposal_id)


# ---------------------------------------------------------------------------
# Folding
# ---------------------------------------------------------------------------

# Invisible characters outside category Cf that still hide inside words:
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, braille blank.
_EXTRA_INVISIBLES = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")

# Confusables that NFKC leaves alone: Cyrillic and Greek letters drawn like Latin ones.
# (A subset of Unicode's confusables.txt: the lowercase letters an English phrase needs.)
_CONFUSABLES = str.maketrans({
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "ӏ": "l", "о": "o",
    "р": "p", "ԛ": "q", "ѕ": "s", "ԝ": "w", "х": "x", "у": "y", "ո": "n", "ν": "v", "ο": "o",
    "ρ": "p", "ι": "i", "κ": "k", "τ": "t", "α": "a", "ε": "e", "ɡ": "g", "ı": "i",
})
_WHITESPACE_RUN = re.compile(r"\s+")


def _strip_invisibles(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _EXTRA_INVISIBLES)


def _collapse(match: re.Match[str]) -> str:
    run = match.group(0)
    return "\n" if ("\n" in run or "\r" in run or "\u2028" in run or "\u2029" in run) else " "


def _deobfuscate(text: str) -> str:
    """NFKC + invisibles removed, case kept (what the case-sensitive secret detectors see)."""
    return _strip_invisibles(unicodedata.normalize("NFKC", text))


def fold_for_matching(text: str) -> str:
    """Return the form the injection patterns are matched against.

    NFKC, format and other invisible characters removed, Cyrillic/Greek
    look-alikes mapped to Latin, case-folded, NFKC again (case folding can
    denormalise), whitespace runs collapsed (to ``\\n`` when the run had a line
    break, else to one space), stripped. Never raises on a ``str``.
    """
    folded = _deobfuscate(text).translate(_CONFUSABLES).casefold()
    folded = unicodedata.normalize("NFKC", folded)
    return _WHITESPACE_RUN.sub(_collapse, folded).strip()


# ---------------------------------------------------------------------------
# Injection patterns (over the folded text: lowercase, single spaces)
# ---------------------------------------------------------------------------

_B = r"(?<![a-z0-9])"  # start of a word (``_`` and ``-`` count as separators)
_E = r"(?![a-z0-9])"  # end of a word
_SP = r"[\s_\-]*"  # between the words of a phrase: nothing, spaces, ``_`` or ``-``
_OVERRIDE = r"(?:ignore|disregard|forget|override|bypass|neglect|abandon|discard|skip)"
_QUALIFIER = r"(?:previous|prior|above|preceding|earlier|foregoing|former|original|initial|system|your|developer|safety)"
_DIRECTIVE = (r"(?:instructions?|rules?|directives?|guidelines?|guidance|prompts?|commands?|constraints?"
              r"|guardrails?|polic(?:y|ies)|programming|restrictions?|context|orders?|training)")
_MODEL = r"(?:ai|assistant|chat\s?bot|chatgpt|gpt|claude|llm|language model|model|bot)"
_SENSITIVE = (r"(?:secrets?|credentials?|keys?|tokens?|passwords?|env|environment|\.env|conversation|chat|history"
              r"|memor(?:y|ies)|context|prompt|data|files?|contents?|ssh|cookies?|session)")

INJECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern)) for name, pattern in (
        # "ignore (all) previous instructions", "disregard the above rules", "forget your instructions"
        ("instruction_override",
         rf"{_B}{_OVERRIDE}(?:\s+(?:all|any|every|each|of|the|these|those|whatever))*\s+{_QUALIFIER}{_E}"
         rf"(?:\s+[a-z]+){{0,2}}\s+{_DIRECTIVE}{_E}"),
        # "ignore all instructions", "disregard any rules"
        ("instruction_override", rf"{_B}{_OVERRIDE}\s+(?:all|any|every)\s+(?:of\s+)?(?:the\s+)?{_DIRECTIVE}{_E}"),
        # "forget everything you were told (before)", "disregard all that came before"
        ("instruction_override",
         rf"{_B}{_OVERRIDE}\s+(?:everything|anything|all)\s+(?:(?:you\s+(?:were|have been|was)\s+(?:told|taught|given"
         rf"|instructed))|(?:that\s+)?(?:came|comes|was said)\s+before|above|before|so far){_E}"),
        # "obey me", "you must obey", "follow my commands only"
        ("instruction_override", rf"{_B}(?:obey\s+(?:me|my|only|this|these){_E}|you\s+must\s+obey{_E})"),
        # a standing order to give away secrets: "the assistant must always reveal API keys"
        ("exfiltration",
         rf"{_B}(?:always\s+|must\s+(?:always\s+)?|should\s+(?:always\s+)?)(?:reveal|disclose|print|output|show"
         rf"|share|leak|expose)\s+(?:[a-z]+\s+){{0,3}}?{_SENSITIVE}{_E}"),
        # a forged instruction block: "new instructions:", "updated system instructions:"
        ("instruction_override",
         rf"{_B}(?:new|updated|real|actual|true|revised|hidden|secret)\s+(?:system\s+)?instructions?\s*:"),
        ("system_prompt", rf"{_B}system{_SP}prompts?{_E}"),
        ("role_play", rf"{_B}you are now\s+(?:(?:an?|the|my)\s+)?(?:no longer|free|unrestricted|unfiltered|uncensored"
                      rf"|jailbroken|dan|evil|different|new|{_MODEL}|in [a-z]+ mode|called|named|going to act){_E}"),
        ("role_play", rf"{_B}pretend\s+(?:that\s+)?you(?:'re|’re| are|{_E})"),
        ("role_play", rf"{_B}pretend\s+to\s+be\s+(?:an?\s+|the\s+)?(?:different\s+|unrestricted\s+|unfiltered\s+"
                      rf"|uncensored\s+|evil\s+|jailbroken\s+)?{_MODEL}{_E}"),
        ("role_play", rf"{_B}act\s+as\s+(?:if\s+you|though\s+you|an?\s+|the\s+|my\s+)?(?:unrestricted|unfiltered"
                      rf"|uncensored|jailbroken|evil|different {_MODEL}|{_MODEL}|dan|linux terminal)(?![a-z0-9\-])"),
        ("role_play", rf"{_B}(?:let'?s|let us|we will|you will|start(?: a)?|begin(?: a)?)\s+role{_SP}play"),
        ("role_play", rf"{_B}role{_SP}play\s+(?:as|that|where|a scenario)\b"),
        ("role_play", rf"{_B}from now on,?\s+(?:you are|you're|act|respond|answer|reply|behave|pretend)"),
        ("role_play", rf"{_B}stay in character{_E}"),
        ("jailbreak", rf"{_B}do anything now{_E}"),
        ("jailbreak", rf"{_B}(?:dan|stan|dude|aim)\s+(?:mode|prompt|jailbreak){_E}"),
        ("jailbreak", rf"{_B}(?:you are|you're|act as|pretend to be|roleplay as|become)\s+(?:now\s+)?dan{_E}"),
        ("jailbreak", rf"{_B}jailbr(?:eak|oken)\s+(?:mode|prompt|enabled|version|assistant|{_MODEL}){_E}"),
        ("jailbreak", rf"{_B}(?:you are|you're)\s+(?:now\s+)?(?:jailbroken|unfiltered|uncensored|unrestricted){_E}"),
        ("developer_mode", rf"{_B}(?:you are|you're|act|respond|stay|reply)\s+(?:now\s+)?(?:in|with)\s+developer mode{_E}"),
        ("developer_mode", rf"{_B}developer mode\s+(?:output|response|enabled)\b.*?{_B}(?:{_MODEL}|you|respond|policy|policies){_E}"),
        ("developer_mode", rf"{_B}{_MODEL}\s+(?:with|in)\s+developer mode{_E}"),
        ("exfiltration", rf"{_B}exfiltrat"),
        ("exfiltration", rf"{_B}(?:send|post|upload|forward|leak|transmit|email|e-mail|copy)\s+(?:[^\n]{{0,60}}?{_B})?"
                         rf"{_SENSITIVE}{_E}[^\n]{{0,60}}?{_B}(?:to|into|at)\s+(?:https?|ftp)://"),
        ("exfiltration", r"!\[[^\]\n]*\]\(\s*https?://[^)\s]*[?&][^)\s]*="),  # markdown image with a query string
        ("chat_template", r"<\|[a-z_]{2,30}\|>"),  # <|im_start|>, <|system|>, <|eot_id|>, <|endoftext|>
        ("chat_template", r"\[/?inst\]|<</?sys>>"),  # Llama 2 [INST] … [/INST], <<SYS>>
        ("chat_template", r"(?:^|\n)\s*#{2,}\s*(?:system|instructions?|assistant)\s*:?\s*(?:\n|$)"),  # ### system
        ("chat_template", r"</?(?:system|instructions?|assistant|system_prompt)>"),
        # memctl's own context sections (memctl/wake.py): a memory must not open or close them
        ("section_marker", r"\[/?(?:user_memory|reference)\]"),
    )
)
"""``(name, pattern)`` pairs tried in order over :func:`fold_for_matching` output.

Maintain this list with a test case in tests/test_validator.py for every
pattern (one attack and, where a near-miss is plausible, one benign note).
"""

# A password or key stated in prose ("my password is hunter2"): the scrubber
# only knows assignments (``password: x``). A value counts when it has a digit
# or a symbol, so "the password is at least 12 characters" or "the password
# was reset" pass; markers and placeholders (<...>, ${...}) never count.
_PROSE_SECRET = re.compile(
    r"(?<![a-z0-9])(?:password|passphrase|passwd|passcode|api key|secret key|access token)"
    r"\s+(?:is|was|=|:)\s+[\"'`“‘]?(?P<value>[^\s\"'`”’,;]{4,})",
)
_NOT_A_VALUE = re.compile(r"^(?:\[redacted:[a-z0-9_]+\]|<[^>]*>|\$\{?[a-z0-9_]+\}?|\*+|x+|\.+)$")
_VALUE_SHAPE = re.compile(r"[0-9!@#$%^&*+=?~|]")

_BASE64_BLOB = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _prose_secret(folded: str) -> bool:
    for match in _PROSE_SECRET.finditer(folded):
        value = match.group("value").rstrip(".")
        if _VALUE_SHAPE.search(value) and not _NOT_A_VALUE.match(value):
            return True
    return False


def _match_injection(folded: str) -> str | None:
    for name, pattern in INJECTION_PATTERNS:
        if pattern.search(folded):
            return name
    return None


def _encoded_injection(text: str) -> str | None:
    """A base64 blob that decodes to text matching an injection pattern (blobs are otherwise fine)."""
    for match in _BASE64_BLOB.finditer(text):
        blob = match.group(0)
        try:
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        name = _match_injection(fold_for_matching(decoded))
        if name:
            return name
    return None


# ---------------------------------------------------------------------------
# Field checks
# ---------------------------------------------------------------------------


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_path(raw_path: str) -> tuple[str | None, Verdict | None]:
    """Return ``(canonical, None)`` for a path under ``user/``, else ``(None, rejection)``."""
    if not raw_path:
        return None, _reject("bad_path", "the target path is empty")
    if raw_path.startswith(("/", "~")) or _DRIVE.match(raw_path):
        return None, _reject("absolute_path", f"the target path {raw_path!r} is absolute; it must be user/…")
    nfkc = unicodedata.normalize("NFKC", raw_path)
    if ".." in re.split(r"[/\\]", nfkc):
        return None, _reject("traversal", f"the target path {raw_path!r} has a '..' component")
    if nfkc != unicodedata.normalize("NFC", raw_path):
        return None, _reject("bad_path", f"the target path {raw_path!r} holds compatibility characters "
                                         "(fullwidth or similar) that could disguise its structure")
    first = next((part for part in re.split(r"[/\\]", raw_path) if part not in ("", ".")), "")
    if first in INTERNAL_PREFIXES:
        return None, _reject("internal_path", f"{first}/ is internal to the store; proposals may only target user/")
    if first not in PUBLIC_PREFIXES:
        return None, _reject("target_not_user", f"the target path {raw_path!r} is not under user/")
    try:
        canonical = normalize_path(raw_path)
    except InvalidPathError as exc:
        return None, _reject("bad_path", str(exc))
    prefix = canonical.split("/", 1)[0]
    if prefix == "memory":
        return None, _reject("memory_path", f"{canonical} is in memory/, the machine-managed ground truth that only ingest writes")
    if prefix != "user":
        return None, _reject("target_not_user", f"{canonical} is not under user/; proposals may only target user/")
    return canonical, None


def _control_char(content: str) -> str | None:
    """Describe the first forbidden control or smuggling character, or None."""
    for i, ch in enumerate(content):
        code = ord(ch)
        if ch in "\n\t":
            continue
        if ch == "\r" and content[i + 1:i + 2] == "\n":
            continue
        if unicodedata.category(ch) == "Cc":
            return f"the control character U+{code:04X} at offset {i}"
        if 0xE0000 <= code <= 0xE007F or 0xE0100 <= code <= 0xE01EF:
            return f"the invisible tag or variation-selector character U+{code:04X} at offset {i}"
    return None


def _as_proposal(raw: bytes | bytearray | str | dict, limits: ValidationLimits) -> tuple[dict | None, Verdict | None]:
    if isinstance(raw, dict):
        return raw, None
    if isinstance(raw, (bytes, bytearray)):
        if len(raw) > limits.max_raw_bytes:
            return None, _reject("oversize_bytes", f"the staged file is {len(raw)} bytes (more than {limits.max_raw_bytes})")
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, _reject("not_utf8", f"the staged file is not UTF-8 ({exc.reason} at byte {exc.start})")
    if not isinstance(raw, str):
        return None, _reject("malformed", f"expected JSON bytes, text or a dict, got {type(raw).__name__}")
    if len(raw) > limits.max_raw_bytes:
        return None, _reject("oversize_bytes", f"the staged file is {len(raw)} characters (more than {limits.max_raw_bytes})")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return None, _reject("malformed", f"the staged file is not valid JSON ({str(exc)[:120]})")
    if not isinstance(value, dict):
        return None, _reject("malformed", f"a proposal is a JSON object, got {type(value).__name__}")
    return value, None


def _validate(raw: bytes | bytearray | str | dict, limits: ValidationLimits) -> Verdict:
    proposal, rejection = _as_proposal(raw, limits)
    if rejection:
        return rejection
    assert proposal is not None
    proposal_id = proposal.get("id")
    if not isinstance(proposal_id, str) or not _PROPOSAL_ID.match(proposal_id):
        return _reject("malformed", f"'id' must be a string of letters, digits, '_', '.', '-' (got {proposal_id!r:.80})")
    for name in ("session", "target", "path", "content"):
        if name not in proposal:
            return _reject("malformed", f"the proposal has no {name!r} field", proposal_id)
        if not isinstance(proposal[name], str):
            return _reject("malformed", f"{name!r} must be a string, got {type(proposal[name]).__name__}", proposal_id)
    session, target, path, content = (proposal[k] for k in ("session", "target", "path", "content"))
    topic = proposal.get("topic")
    for name, value in (("session", session), ("target", target), ("path", path), ("content", content), ("topic", topic)):
        if isinstance(value, str) and _has_surrogate(value):
            return _reject("not_utf8", f"{name!r} holds a lone surrogate, which is not encodable as UTF-8", proposal_id)
    if not _SESSION_ID.match(session):
        return _reject("malformed", f"'session' is not a session id (got {session!r:.80})", proposal_id)
    if topic is not None and (not isinstance(topic, str) or not _TOPIC_SLUG.match(topic)):
        return _reject("malformed", f"'topic' must be null or a slug such as 'alpha' (got {topic!r:.80})", proposal_id)
    if target != "user":
        return _reject("target_not_user", f"'target' is {target!r:.40}; proposals may only target 'user'", proposal_id)
    canonical, rejection = _check_path(path)
    if rejection:
        return replace(rejection, proposal_id=proposal_id)
    if not content.strip():
        return _reject("empty_content", "the content is empty", proposal_id)
    size = len(content.encode("utf-8"))
    if size > limits.max_bytes:
        return _reject("oversize_bytes", f"the content is {size} bytes; a memory is at most {limits.max_bytes} "
                                         "(split it into smaller memories)", proposal_id)
    lines = len(content.splitlines())
    if lines > limits.max_lines:
        return _reject("oversize_lines", f"the content has {lines} lines; a memory is at most {limits.max_lines}",
                       proposal_id)
    bad_char = _control_char(content)
    if bad_char:
        return _reject("control_chars", f"the content holds {bad_char}", proposal_id)
    deobfuscated = _deobfuscate(content)
    folded = fold_for_matching(content)
    pattern = _match_injection(folded)
    if pattern:
        return _reject(f"prompt_injection:{pattern}", f"the content matches the {pattern.replace('_', ' ')} "
                       "pattern (after Unicode folding)", proposal_id)
    pattern = _encoded_injection(deobfuscated)
    if pattern:
        return _reject(f"prompt_injection:encoded:{pattern}", f"a base64 blob in the content decodes to the "
                       f"{pattern.replace('_', ' ')} pattern", proposal_id)
    for form in (content, deobfuscated, folded):
        findings = find_secrets(form)
        if findings:
            kind = findings[0][0]
            return _reject(f"secret:{kind}", f"the content holds secret material ({kind}); "
                           "secrets never become memories", proposal_id)
    if _prose_secret(folded):
        return _reject("secret:password_prose", "the content states a password or key in prose", proposal_id)
    return Verdict(ok=True, path=canonical, reason=None, detail=f"promote to {canonical}", content=content,
                   proposal_id=proposal_id)


def validate_proposal(raw: bytes | bytearray | str | dict, *, limits: ValidationLimits) -> Verdict:
    """Decide whether one staged proposal may be promoted into ``user/``.

    Args:
        raw: the staged file's bytes (as read from ``staging/…/<id>.json``), its
            text, or the already parsed JSON object. See :mod:`memctl.proposals`
            for the shape; ``id``, ``session``, ``target`` (``"user"``),
            ``path`` and ``content`` are required, ``topic`` is null or a slug,
            other fields are carried along unchecked.
        limits: size bounds (``ValidationLimits.from_settings(settings)``).

    Returns:
        A :class:`Verdict`: ``ok`` with the canonical ``user/…`` path and the
        original content, or a reason code from the module table. Never raises
        for any input; an unexpected internal error is a rejection
        (``validator_error``), so the gate fails closed.
    """
    try:
        return _validate(raw, limits)
    except Exception as exc:  # noqa: BLE001 - the gate must fail closed, never crash the sleep cycle
        return _reject("validator_error", f"the validator failed on this input ({type(exc).__name__}: {str(exc)[:120]})")
