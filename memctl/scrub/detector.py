"""The detector type behind :mod:`memctl.scrub.core`, and the value-shape tests its rules share.

A :class:`Detector` says where to look for one kind of secret and which part
of a match is the secret. Most are one regex; the few that need more than a
regex (a private key wrapped in line numbers, a password given to a known
client's flag) supply a ``finder`` function instead. Speed rules every
detector follows (see the module docstring of :mod:`memctl.scrub.core`): a regex
scanned over the whole text starts with a literal; case-insensitive rules are
driven by literal *gates* searched in ``text.lower()`` and matched only there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

Span = tuple[int, int, str]
"""``(start, end, kind)``: character offsets of one secret and its kind."""

Accept = Callable[[re.Match[str]], "bool | tuple[int, int]"]
"""Extra check on a match: False drops it, True keeps the group's span, a
``(start, end)`` pair replaces that span (a value trimmed to its real end)."""

Finder = Callable[..., Iterable[Span]]
"""``(text, lowered) -> spans`` for detectors that are not one regex; a finder that
declares ``literals`` is called ``(text, lowered, gates)``, ``gates`` being the
frozenset of its literals present in the text (see :mod:`memctl.scrub.gates`)."""

ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
WORD_CHARS = ALNUM | {"_"}
HEX = frozenset("0123456789abcdefABCDEF")
_NESTING = re.compile(r"[\"' ]")
BASE64_CHARS = ALNUM | set("+/=")


@dataclass(frozen=True, slots=True)
class Detector:
    """One secret detector: where to look and what part of a match to replace.

    Attributes:
        kind: the marker kind (``[REDACTED:<kind>]``) and the counter key.
        pattern: compiled regex. Run on the original text; the span of
            ``group`` is what gets replaced (the rest of the match, e.g. a key
            name or a URL host, is context and stays). None for a ``finder``.
        group: group number or name whose span is the secret (0 = whole match).
        anchors: gate regexes (lowercase) for case-insensitive detectors. When
            set, ``pattern`` is only tried (``pattern.match``) at each hit of a
            gate in ``text.lower()``: at the start of the gate's ``at`` group
            when it has one, else at the hit's start. Empty:
            ``pattern.finditer`` over the whole text.
        anchor_filter: optional cheap test ``(text, anchor_pos) -> bool`` run
            before the pattern is tried at an anchor, and on every match of the
            fallback scan.
        anchor_back: the pattern starts this many characters before the
            anchor (Stripe: anchor ``k_live_``, pattern ``[sr]k_live_…``).
        kind_groups: ``(group, kind)`` pairs: when ``group`` took part in a
            match, the secret is of ``kind`` instead (one scan for several
            kinds that share a first character).
        accept: optional check on a match (see :data:`Accept`).
        finder: replaces the pattern machinery: ``finder(text, lowered)``
            yields :data:`Span` triples.
        origin: where the rule comes from (a detect-secrets plugin, an
            issuer's documentation, or memctl).
        requires: lowercase literals of which every match holds at least one:
            when none is in the text the detector is skipped without a scan.
        literals: lowercase literals a ``finder`` tests itself (in ``gates``).
    """

    kind: str
    pattern: re.Pattern[str] | None
    group: int | str = 0
    anchors: tuple[str, ...] = ()
    accept: Accept | None = None
    origin: str = "memctl"
    anchor_filter: Callable[[str, int], bool] | None = None
    anchor_back: int = 0
    kind_groups: tuple[tuple[str, str], ...] = ()
    finder: Finder | None = None
    requires: tuple[str, ...] = ()
    literals: tuple[str, ...] = ()
    _anchor_patterns: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)
    # Per anchor: the ``requires`` literal every hit of it starts with, or None (see :func:`_anchor_literal`).
    _anchor_literals: tuple[str | None, ...] = field(default=(), repr=False, compare=False)
    # ``requires`` as a set: ``gates.isdisjoint`` then walks the few present literals, not every required one.
    _requires_set: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def kind_of(self, match: re.Match[str]) -> str:
        """The kind of secret ``match`` found (see ``kind_groups``)."""
        for group, kind in self.kind_groups:
            if match.group(group) is not None:
                return kind
        return self.kind

    def _span(self, match: re.Match[str]) -> Span | None:
        verdict = True if self.accept is None else self.accept(match)
        if verdict is False:
            return None
        start, end = match.span(self.group) if verdict is True else verdict
        if end <= start:
            return None
        return start, end, self.kind_of(match) if self.kind_groups else self.kind

    def spans(self, text: str, lowered: str | None, gates: frozenset[str] | None = None) -> Iterator[Span]:
        """Yield ``(start, end, kind)`` for each secret in ``text`` (character offsets).

        ``lowered`` is ``text.lower()`` when it has the same length as ``text``
        (so offsets agree), else None; gated detectors then fall back to a
        full case-insensitive scan. ``gates``: the ``requires``/``literals``
        present in the text (:class:`memctl.scrub.gates.GateIndex`);
        None means not known, and they are tested here.
        """
        wanted = self.requires + self.literals
        if wanted and gates is None:
            haystack = lowered if lowered is not None else text.lower()
            gates = frozenset(literal for literal in wanted if literal in haystack)
        if self.requires and gates is not None and gates.isdisjoint(self._requires_set):
            return
        if self.finder is not None:
            yield from (self.finder(text, lowered, gates) if self.literals else self.finder(text, lowered))
            return
        assert self.pattern is not None
        if self.anchors and lowered is not None:
            yield from self._gated_spans(text, lowered, gates)
            return
        for match in self.pattern.finditer(text):
            if self.anchor_filter is not None and not self.anchor_filter(text, match.start() + self.anchor_back):
                continue
            span = self._span(match)
            if span is not None:
                yield span

    def _gated_spans(self, text: str, lowered: str, gates: frozenset[str] | None = None) -> Iterator[Span]:
        assert self.pattern is not None
        positions: set[int] = set()
        for gate, literal in zip(self._anchor_patterns, self._anchor_literals or (None,) * len(self.anchors)):
            if literal is not None and gates is not None and literal not in gates:
                continue  # every hit of this anchor starts with a literal absent from the text: no scan
            if "at" in gate.groupindex:
                positions.update(hit.start("at") for hit in gate.finditer(lowered))
            else:
                positions.update(hit.start() for hit in gate.finditer(lowered))
        # Like finditer, never start inside an earlier accepted match of this
        # detector. A rejected match (a quoted value with spaces, JSON inside a
        # string) may hold a credential of its own: the search resumes at the
        # start of its secret group, so nested names are still tried. Re-read
        # characters are budgeted (4x the text) to keep "token=token=…" linear;
        # past the budget a rejected match is skipped whole.
        resume = 0
        budget = 4 * len(text) + 4096
        anchor_filter = self.anchor_filter
        for pos in sorted(positions):
            pos -= self.anchor_back
            if pos < resume:
                continue
            if anchor_filter is not None and not anchor_filter(text, pos + self.anchor_back):
                continue
            match = self.pattern.match(text, pos)
            if match is None:
                continue
            resume = match.end()
            span = self._span(match)
            if span is not None:
                yield span
            elif budget > 0:
                inner = match.start(self.group)
                # only a value with quotes or spaces can hold a name=value pair of its own
                if pos < inner < resume and _NESTING.search(text, inner, resume) is not None:
                    budget -= resume - inner
                    resume = inner


def detector(
    kind: str,
    pattern: str | re.Pattern[str] | None = None,
    *,
    flags: int = 0,
    group: int | str = 0,
    anchors: tuple[str, ...] = (),
    accept: Accept | None = None,
    origin: str = "memctl",
    anchor_filter: Callable[[str, int], bool] | None = None,
    anchor_back: int = 0,
    kind_groups: tuple[tuple[str, str], ...] = (),
    finder: Finder | None = None,
    requires: tuple[str, ...] = (),
    literals: tuple[str, ...] = (),
) -> Detector:
    """Build a :class:`Detector` (compiles ``pattern`` and the gate regexes)."""
    compiled = pattern if isinstance(pattern, re.Pattern) or pattern is None else re.compile(pattern, flags)
    return Detector(
        kind=kind,
        pattern=compiled,
        group=group,
        anchors=anchors,
        accept=accept,
        origin=origin,
        anchor_filter=anchor_filter,
        anchor_back=anchor_back,
        kind_groups=kind_groups,
        finder=finder,
        requires=requires,
        literals=literals,
        _anchor_patterns=tuple(re.compile(a) for a in anchors),
        _anchor_literals=tuple(_anchor_literal(a, requires) for a in anchors),
        _requires_set=frozenset(requires),
    )


def _anchor_literal(anchor: str, requires: tuple[str, ...]) -> str | None:
    """The longest of ``requires`` that the gate regex ``anchor`` starts with as plain letters (not followed by a
    quantifier that could make its last letter optional), or None: then every hit of ``anchor`` holds it, and the
    anchor's scan is skipped when the gate index says it is absent (``secret`` and ``token`` of one rule)."""
    best = None
    for literal in requires:
        if anchor.startswith(literal) and literal.isalnum() and anchor[len(literal) : len(literal) + 1] not in ("?", "*", "{"):
            if best is None or len(literal) > len(best):
                best = literal
    return best


# ---------------------------------------------------------------------------
# Value shapes shared by the rules
# ---------------------------------------------------------------------------


def has_digit_and_letter(value: str) -> bool:
    """True when ``value`` has at least one ASCII-or-Unicode digit and one letter."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def left_boundary(text: str, start: int, chars: frozenset[str] = ALNUM) -> bool:
    """True when ``start`` is not glued to a preceding character from ``chars``; an
    escaped newline or tab before it (``\\nAKIA…`` in JSON) counts as a boundary."""
    if start == 0 or text[start - 1] not in chars:
        return True
    return start >= 2 and text[start - 2] == "\\" and text[start - 1] in "nrt"


_PLACEHOLDER_WORDS = frozenset(
    {
        "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off",
        "string", "str", "bool", "int", "required", "optional", "redacted", "hidden",
        "secret", "password", "passwd", "pass", "pwd", "token", "key", "value", "changeme", "placeholder", "example",
        "todo", "tbd", "env", "empty", "missing", "unset", "default", "dummy", "test", "fake", "sample", "demo",
        "replace_me", "replaceme", "replace-me", "change_me", "change-me", "fixme", "fill_me", "fill-me",
        # type names in annotations (password: str, api_key: SecretStr)
        "float", "bytes", "any", "secretstr", "secretbytes", "text", "varchar", "number",
        "boolean", "object", "integer",
    }
)
_PLACEHOLDER_PREFIXES = (
    "<", "{%", "%(", "%s", "[REDACTED:",
    "os.environ", "os.getenv", "getenv", "process.env", "import.meta.env", "env.", "env[",
    "ENV[", "ENV.", "System.getenv", "System.Environment", "secrets.", "vault:", "ref+",
    "...", "…",
)
_MASK_CHARS = frozenset("*xX.•…-_#?")
# A value made only of shell/Makefile/PHP/Perl variable references (``$VAR``, ``${VAR:-x}``, ``$(cmd)``,
# ``$USER:$PASS``): the whole value, so "$3cr3t", "$ecretPass" and "$ecret_pa$$w0rd!" are literals
# that start with "$". A variable name is all upper or all lower case, as shells write them.
_SHELL_REFERENCE = re.compile(
    r"(?:\$(?:\{[^}\s]*\}|\([^)]*\)|\d|[@*#?!]|[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)(?![A-Za-z0-9_])[:/@.,-]?)+"
)
# A whole template expression: {{ var }}, {{ .Values.db.password | quote }} (Jinja, Go, Mustache, Helm).
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
# A format field: f"{token}", "{0}", "{api_key}".
_FORMAT_FIELD = re.compile(r"\{[A-Za-z_0-9.\[\]'\"]*\}")


def is_placeholder_word(value: str) -> bool:
    """True when ``value`` (quotes, spaces and a trailing ``,``/``;`` taken off) is one filler word: ``null``,
    ``true``, ``REPLACE_ME``, ``changeme``… (:data:`_PLACEHOLDER_WORDS`). Narrower than :func:`is_placeholder`,
    so it can judge any rule's span: no template or prefix rule applies."""
    return value.strip().rstrip(",;").strip().strip("'\"").lower() in _PLACEHOLDER_WORDS


def is_placeholder(value: str) -> bool:
    """True for values that are obviously not a real credential.

    Empty, masked (``****``), template or variable references (``<…>``,
    ``${…}``, ``$VAR``, ``$(cmd)``, a closed ``{{…}}``, ``{name}``, ``os.environ[…]``,
    ``process.env.X``, YAML tags such as ``!Ref``), markers, and a few literal
    words (``null``, ``changeme``, ``string``, a usage line's ``PASSWORD``…). A value that merely starts with ``$``
    (``$3cr3t``, ``$ecretPass``, ``$ecret_pa$$w0rd!``) or ``{{`` (``{{FAKEs3cret``) is a literal, not a
    placeholder: only a value that is wholly references or one closed template stays.
    """
    stripped = value.strip()
    if not stripped:
        return True
    if stripped[0] == "$":
        return stripped.startswith(("${", "$(")) or _SHELL_REFERENCE.fullmatch(stripped) is not None
    if stripped.startswith("{{"):
        # a template only when its expression closes: "{{FAKEs3cret" is a literal
        return _TEMPLATE.match(stripped) is not None
    if stripped.startswith(_PLACEHOLDER_PREFIXES) or stripped.lower().startswith(("your_", "your-", "yourpass")):
        return True
    if _YOUR_VALUE.search(stripped) or _HCL_REFERENCE.fullmatch(stripped):
        return True  # sk-your-key-here, <prefix>_YOUR_TOKEN_HERE; data.vault_generic_secret.db.data["password"]
    if "{" in stripped and (_FORMAT_FIELD.search(stripped) or "${" in stripped):
        return True  # a template: f"{prefix}-secret", "${DB_PASSWORD}"
    if stripped[0] == "*" and _YAML_ALIAS.fullmatch(stripped):
        return True  # a YAML alias: replica_password: *pw (the anchored value is redacted where it is written)
    if stripped[0] == "!" and stripped[1:2].isalpha():
        return True  # a YAML tag: !Ref DBPassword (CloudFormation), !vault (Ansible)
    if stripped.lower() in _PLACEHOLDER_WORDS:
        return True
    if _REFERENCE.match(stripped) or _DOC_VALUE.search(stripped):
        return True
    return all(c in _MASK_CHARS for c in stripped)


# Secret references, not secrets: 1Password ``op://``, Spring Cloud GCP's ``sm://``, Vault ``vault:``/``vault://``, GitHub Actions
# ``${{ secrets.X }}`` (caught above), AWS Secrets Manager/SSM ARNs, GCP Secret Manager resource names,
# Azure Key Vault URIs, SOPS ``ENC[…,iv:…,tag:…]`` metadata, age public keys (age-encryption.org/v1:
# ``age1`` + bech32; the secret key is ``AGE-SECRET-KEY-1…``).
_REFERENCE = re.compile(
    r"(?:op|vault|bws|doppler|infisical|akv|gcpsm|awssm|sm)://|vault:[\w/]|arn:aws[\w-]*:(?:secretsmanager|ssm|kms):"
    r"|projects/[^/\s]+/secrets/[^/\s]+|https://[\w-]+\.vault\.azure\.net/secrets/|ENC\[[A-Z0-9_]+,data:[^\]]*,iv:"
    r"|age1[ac-hj-np-z02-9]{58}$"
)
# Documentation values: AWS's own examples (AKIAIOSFODNN7EXAMPLE, wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY),
# a vendor prefix followed by a run of x/X/0/* (sk-xxxx…, ghp_XXXX…), a filler name (example-key-123, dummy_token), a UUID under an id name is handled by the caller.
_DOC_VALUE = re.compile(r"EXAMPLE(?:KEY)?$|^[A-Za-z]{2,12}[-_](?:[xX]{8,}|[*]{8,}|0{16,})$"
                        r"|(?i:^(?:example|dummy|fake|sample|test|demo)[-_](?:api[-_])?(?:key|token|secret|password|value)"
                        r"(?:[-_]?\d{1,4})?$)")


_YAML_ALIAS = re.compile(r"\*[a-z_][a-z0-9_-]*")
# A documentation value that addresses the reader: "sk-your-key-here", "ghp_YOUR_TOKEN", "xoxb-your-token".
_YOUR_VALUE = re.compile(r"(?i)(?:^|[-_.])your[-_.][a-z]+(?:[-_.][a-z]+)*$|(?i:[-_.]here)$")
# A Terraform/HCL reference to another value: data.<type>.<name>.<attr>[…], var.x, local.x, module.m.output.
_HCL_REFERENCE = re.compile(
    r"(?:data|module)\.[a-z_][\w-]*\.[\w-]+(?:\.[\w-]+|\[[^\]\n]{1,80}\])*|(?:var|local)\.[a-z_]\w*(?:\.[\w-]+|\[[^\]\n]{1,80}\])*"
)
_SEALED = re.compile(r"Ag[A-Za-z0-9+/]{58,}={0,2}")


def sealed_ciphertext(text: str, start: int, value: str) -> bool:
    """True when ``value`` (at ``start`` in ``text``) is a Bitnami SealedSecret's ciphertext: base64
    starting ``Ag`` (the format's version byte) under an ``encryptedData``/``encrypted_data`` key
    within the 2,000 characters before it. It is encrypted to the cluster's public key and meant
    to be committed, so it is not a secret to redact."""
    if not _SEALED.fullmatch(value):
        return False
    before = text[max(0, start - 2000) : start].lower()
    return "encrypteddata" in before or "encrypted_data" in before or "sealedsecret" in before


_HEX_OR_UUID = re.compile(r"[0-9a-fA-F]{16,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def credential_shaped(value: str, *, min_len: int = 16) -> bool:
    """:func:`looks_random`, or ``min_len``+ hex digits, or a UUID: the shapes issued key
    ids, DSN keys and secret ids take (hex that happens to have no digit included)."""
    return looks_random(value, min_len=min_len) or (len(value) >= min_len and _HEX_OR_UUID.fullmatch(value) is not None)


def underscored_body_random(token: str, prefix_length: int) -> bool:
    """For token formats whose body may hold ``_`` (``hf_``, ``rk_live_``): a body without ``_`` is
    the issuer's format as is; one with ``_`` must look random once they are removed, so code
    identifiers (``hf_hub_download_with_progress``, ``sk_test_helpers_for_checkout``) stay."""
    body = token[prefix_length:]
    return "_" not in body or looks_random(body.replace("_", ""), min_len=16)


def looks_random(value: str, *, min_len: int = 16) -> bool:
    """Credential-shaped: ``min_len``+ characters without spaces, and a digit
    with a letter, or base64 padding, or random-looking mixed case (a third of
    the letters upper case, unlike ``CamelCaseNames``): what issued keys, key
    ids and session tokens look like; words and identifiers do not."""
    if len(value) < min_len or any(c.isspace() for c in value):
        return False
    if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True
    if value.endswith("="):
        return True
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    return upper >= 3 and lower >= 3 and upper * 3 >= upper + lower
