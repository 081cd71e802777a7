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
``secret:<kind>``         :func:`memctl.scrub.core.find_secrets` (the ingest
                          scrubber's detectors) found a secret in the original,
                          the de-obfuscated, the case-kept skeleton
                          (:func:`memctl.validator.fold.skeleton`: look-alikes,
                          overlays and letter spacing undone) or the folded
                          content, or a password is stated in prose
                          (``secret:password_prose``)
``forged_context:<k>``    the text imitates the layout memctl builds around
                          memories or a chat transcript's role markup
                          (:mod:`memctl.validator.structure`: ``section_marker``,
                          ``citation_line``, ``memory_entry``, ``chat_template``,
                          ``role_heading``, ``role_turn``, ``harness_tag``,
                          ``role_json``, ``system_label``)
``prompt_injection:<p>``  a classic injection pattern (:mod:`memctl.validator.injection`:
                          ``instruction_override``, ``system_prompt``,
                          ``role_play``, ``jailbreak``, ``developer_mode``,
                          ``exfiltration``)
``memory_poisoning:<c>``  an instruction to the assistant joined to a sensitive
                          object or a destructive action
                          (:mod:`memctl.validator.poisoning`:
                          ``credential_transfer``, ``destructive_action``,
                          ``consent_claim``,
                          ``safety_off``, ``encoded_command``, ``ai_addressed``,
                          ``external_instruction``), also their fixed English
                          phrasings (:mod:`memctl.validator.phrasings`) and
                          their Italian, Portuguese, Russian, Dutch, Turkish,
                          Polish, Japanese and Korean forms or a credential file
                          with an outside destination in any language
                          (:mod:`memctl.validator.languages`); not
                          ``unreviewed_action`` (skipping hooks, tests or
                          review as a rule), whose rules also match CI
                          practice: it is held for review by
                          :func:`memctl.validator.action.classify_action`
                          (:data:`HELD_KINDS`)
``<family>:encoded:<k>``  any of the three above, or a secret, found after
                          decoding a payload in place (base64, hex, escapes,
                          URL encoding, HTML entities, rot13, reversed text:
                          :mod:`memctl.validator.encoded`); a decoded payload
                          that is itself a shell command is
                          ``memory_poisoning:encoded_command``
========================  ======================================================

Every text recogniser reads :func:`memctl.validator.fold.fold_for_matching`
output (NFKC, invisibles removed, Cyrillic/Greek/small-capital look-alikes
mapped to Latin, case folded, combining overlays and accents removed, letter
spacing undone, whitespace collapsed), so ``ＩＧＮＯＲＥ``, ``ig\\u200bnore``,
``IgNoRe``, ``i g n o r e`` and ``ignore \\n\\n  previous`` are all the same
words to them. The content that is promoted is the original text, never the
folded one. Secrets are checked before the text recognisers, so a hostile
proposal that also carries a secret is refused as ``secret:…`` and sleep archives
it without its text. Redaction markers left by the staging scrubber
(``[REDACTED:password]``) are not secrets and pass.

Near-miss policy (tested in tests/validator/test_validator.py and the corpus in
tests/support/proposal_corpus.py): a rule must see an instruction, a forged structure or
a sensitive object, not merely a word — "fixed the password-reset page", "the
assistant's reply was slow", "[1] first step", "we rotate API keys every 90
days", "use --force-with-lease only on your own branches", "deleted the stale
feature branch after merge" pass.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from memctl.scrub.core import find_secrets
from memctl.state_file import decode_json
from memctl.store.errors import InvalidPathError
from memctl.store.policy import INTERNAL_PREFIXES, PUBLIC_PREFIXES, normalize_path
from memctl.validator.encoded import looks_like_command
from memctl.validator.fold import fold_for_matching
from memctl.validator.injection import INJECTION_PATTERNS, find_injection
from memctl.validator.languages import find_multilingual
from memctl.validator.phrasings import find_phrasing
from memctl.validator.poisoning import find_poisoning
from memctl.validator.proposal_views import proposal_views
from memctl.validator.structure import find_cased_structure, find_forged_structure

__all__ = [
    "HELD_KINDS",
    "INJECTION_PATTERNS",
    "ValidationLimits",
    "Verdict",
    "clear_caches",
    "fold_for_matching",
    "poisoning_finding",
    "validate_proposal",
]

# Same shapes as memctl.ask.proposals (kept here so the gate does not depend on the writer).
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
# Secrets stated in prose
# ---------------------------------------------------------------------------

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


def _prose_secret(folded: str) -> bool:
    for match in _PROSE_SECRET.finditer(folded):
        value = match.group("value").rstrip(".")
        if _VALUE_SHAPE.search(value) and not _NOT_A_VALUE.match(value):
            return True
    return False


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
        value = decode_json(raw)
    except ValueError as exc:
        return None, _reject("malformed", f"the staged file is not valid JSON ({str(exc)[:120]})")
    if not isinstance(value, dict):
        return None, _reject("malformed", f"a proposal is a JSON object, got {type(value).__name__}")
    return value, None


# The poisoning recognisers keep their last answers: sleep asks the action classifier about the same folded
# text right after the validator (:func:`poisoning_finding`), and a recogniser is a pure function of it.
_find_poisoning = lru_cache(maxsize=256)(find_poisoning)
_find_multilingual = lru_cache(maxsize=256)(find_multilingual)
_find_phrasing = lru_cache(maxsize=256)(find_phrasing)
_RECOGNISERS = (find_forged_structure, _find_poisoning, find_injection, _find_multilingual, _find_phrasing)


_KEPT: list = [0, ()]  # [len(sys.modules) when last listed, the memos of this package's modules]


def _memos() -> tuple:
    if _KEPT[0] != len(sys.modules):  # a module was loaded since: list the memos again
        memos = []
        for name, module in list(sys.modules.items()):
            if name.startswith("memctl.validator.") and module is not None:
                for value in vars(module).values():
                    cache_info = getattr(value, "cache_info", None)
                    if callable(cache_info) and cache_info().maxsize != 1 and value not in memos:
                        memos.append(value)
        _KEPT[:] = [len(sys.modules), tuple(memos)]
    return _KEPT[1]


def clear_caches() -> None:
    """Forget every reading, decoded view and recogniser answer the validator keeps for the next caller: the
    shared :func:`memctl.validator.proposal_views.proposal_views`, the memoised view builders and every
    per-text or per-word memo of a module of this package loaded so far (the loaded word lists and tables,
    memoised with ``maxsize=1``, stay). Benchmarks call this between timing rounds so every round pays the
    full cost."""
    for memo in _memos():
        memo.cache_clear()


def poisoning_finding(folded: str) -> tuple[str, str] | None:
    """The first finding of the poisoning recognisers (poisoning, phrasings, other languages) on ``folded``
    (:func:`fold_for_matching` output), held kinds included; ``(reason, evidence)`` or None."""
    for recogniser in (_find_poisoning, _find_phrasing, _find_multilingual):
        finding = recogniser(folded)
        if finding:
            return finding
    return None
_FAMILY_WORDS = {"forged_context": "imitates the context layout or chat markup",
                 "prompt_injection": "matches a prompt-injection pattern",
                 "memory_poisoning": "directs the assistant"}


_FOLDED_MARKER = re.compile(r"\[redacted:([a-z0-9_]+)\]")


def _secret_in(*forms: str) -> str | None:
    seen: set[str] = set()
    for form in forms:
        # folding lower-cases the scrubber's own markers; give them back their shape so they stay markers
        form = _FOLDED_MARKER.sub(lambda m: f"[REDACTED:{m.group(1)}]", form)
        if form in seen:
            continue  # most views of a plain note are the note itself: scanning it again finds nothing new
        seen.add(form)
        findings = find_secrets(form)
        if findings:
            return findings[0][0]
    return None


# Kinds whose rules also match benign notes (CI practice such as ``HUSKY=0`` or ``mvn -DskipTests`` after a
# test stage): they are not refused here. The action
# classifier (:func:`memctl.validator.action.classify_action`) reports them, so an agent's proposal of
# that kind waits for a person's review instead of being lost.
HELD_KINDS = frozenset({"memory_poisoning:unreviewed_action", "memory_poisoning:reported_incident"})


def _recognise(folded: str) -> tuple[str, str] | None:
    for recogniser in _RECOGNISERS:
        finding = recogniser(folded)
        if finding and finding[0] not in HELD_KINDS:
            return finding
    return None


# Details reach terminals and reports: the evidence is a short hint with no brackets, escapes or backticks
# (rich and other renderers read "[/x]" as markup), never a copy of the refused text.
_UNSAFE_EVIDENCE = re.compile(r"[\[\]\\`{}<>|\"]+")


def _safe_evidence(evidence: str) -> str:
    return " ".join(_UNSAFE_EVIDENCE.sub(" ", evidence).split())[:48]


def _described(reason: str, evidence: str, encoding: str | None = None) -> str:
    evidence = _safe_evidence(evidence)
    family, _, kind = reason.partition(":")
    where = f" once its {encoding.replace('_', ' ')} payload is decoded" if encoding else ""
    return (f"the content {_FAMILY_WORDS.get(family, family)}{where} ({kind.replace('_', ' ')}: {evidence}); "
            "a memory records facts and preferences, re-stage it as one")


def _content_rejection(content: str) -> Verdict | None:
    """The text checks, in order: secrets, then forged structure, injection and poisoning, then decoded payloads
    (every reading from the content's shared :func:`memctl.validator.proposal_views.proposal_views`)."""
    views = proposal_views(content)
    folded = views.folded
    kind = _secret_in(content, views.deobfuscated, views.skeleton, folded)
    if kind:
        return _reject(f"secret:{kind}", f"the content holds secret material ({kind}); secrets never become memories")
    if _prose_secret(folded):
        return _reject("secret:password_prose", "the content states a password or key in prose")
    finding = _recognise(folded) or find_cased_structure(views.skeleton)
    if finding:
        return _reject(finding[0], _described(*finding))
    for encoding, view, payloads in views.decoded:
        kind = _secret_in(view)
        if kind:
            return _reject(f"secret:encoded:{kind}", f"a {encoding.replace('_', ' ')} payload in the content decodes "
                           f"to secret material ({kind}); secrets never become memories")
        finding = _recognise(fold_for_matching(view))
        if finding:
            family, _, kind = finding[0].partition(":")
            return _reject(f"{family}:encoded:{kind}", _described(*finding, encoding=encoding))
        if any(looks_like_command(payload) for payload in payloads):
            return _reject("memory_poisoning:encoded_command",
                           f"a {encoding.replace('_', ' ')} payload in the content decodes to a command; "
                           "a memory never carries hidden commands")
    return None


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
    rejection = _content_rejection(content)
    if rejection:
        return replace(rejection, proposal_id=proposal_id)
    return Verdict(ok=True, path=canonical, reason=None, detail=f"promote to {canonical}", content=content,
                   proposal_id=proposal_id)


def validate_proposal(raw: bytes | bytearray | str | dict, *, limits: ValidationLimits) -> Verdict:
    """Decide whether one staged proposal may be promoted into ``user/``.

    Args:
        raw: the staged file's bytes (as read from ``staging/…/<id>.json``), its
            text, or the already parsed JSON object. See :mod:`memctl.ask.proposals`
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
