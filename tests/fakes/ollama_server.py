"""A deterministic fake Ollama server on 127.0.0.1 — the project's only fake.

It stands in for the model, never for Cognee/Kuzu/LanceDB/SQLite, and speaks
the real wire protocols so that unmodified clients work against it:

* Ollama's native API (format from Ollama's ``docs/api.md`` and the
  ``ollama`` python client 0.6.3 types): ``GET /``, ``GET /api/version``,
  ``GET /api/tags``, ``GET /api/ps``, ``POST /api/show``, ``POST /api/chat``,
  ``POST /api/generate`` (NDJSON streaming — the default when ``stream`` is
  absent — or one JSON body with ``"stream": false``), ``POST /api/embed``
  and the legacy ``POST /api/embeddings``.
* Ollama's OpenAI-compatible API (``docs/openai.md``):
  ``POST /v1/chat/completions`` (one JSON body, or SSE ``data: {...}`` chunks
  ending in ``data: [DONE]``), ``GET /v1/models``, ``GET /v1/models/<id>``,
  ``POST /v1/embeddings`` (``encoding_format`` ``float`` or ``base64``).
* Like real Ollama, ``/v1/api/<x>`` is a 404 (``404 page not found``).
  litellm's native ``ollama`` route appends ``/api/generate`` to its
  ``api_base``, so a Cognee configured with ``<host>/v1`` calls
  ``/v1/api/generate`` and would fail against a real server; the fake fails
  the same way so the misconfiguration shows in tests. ``allow_v1_api=True``
  serves those paths as ``/api/<x>`` instead (``counts`` keeps the path as
  called).

Models
    ``models`` (constructor) is the installed list reported by ``/api/tags``
    and ``/api/show``; ``/api/show`` answers 404 ``model "x" not found`` for
    any other name (a bare name matches ``name:latest``). Generation and
    embedding routes accept any model name (OpenCode's ``stub``, tests' ad-hoc
    names) except those in ``missing_models``, which fail exactly like real
    Ollama: HTTP 404 ``{"error": "model \\"x\\" not found, try pulling it
    first"}`` (OpenAI routes: ``{"error": {"message": ..., "type":
    "not_found_error", ...}}``, types as in Ollama's ``openai.NewError``). A model whose name contains ``embed`` (or is in
    ``embedding_models``) is reported as an embedding model (architecture
    ``nomic-bert``, ``nomic-bert.embedding_length = embedding_dim``).

Replies (all deterministic functions of the request)
    1. ``chat_script`` (``/v1/chat/completions`` only; contract in
       :mod:`tests.fakes.scripted`) is asked first; ``None`` falls through.
    2. Structured output — when the request carries a JSON schema in any of the
       forms clients use: OpenAI ``response_format`` ``json_schema``; Ollama
       ``format`` as a schema object; a forced tool (``tool_choice`` naming a
       function: the reply is a tool call with schema-valid arguments); or the
       schema inside the prompt after ``You MUST respond with valid JSON
       conforming to this schema:`` (litellm's Ollama route with
       ``format: "json"``). The reply is an instance valid against the schema
       (``$defs``/``$ref``, ``anyOf``/``oneOf``/``allOf``, nullable, ``enum``,
       ``const``, arrays with min/max items, nested objects, numeric bounds,
       string lengths). Objects with ``nodes``/``edges`` get entities
       extracted from the input text (file names, code identifiers,
       capitalized words — in order of first appearance, at most 6) linked by
       edges from the first entity; ``summary``/``description`` fields get a
       short extract of the input; an ``enum`` is answered like a classifier
       would (see ``_SchemaGen.choose``: the option whose mentions share the
       most words with the question). ``format: "json"`` without any schema
       yields ``{"response": <default text reply>}``.
    3. memctl's consolidation prompt (``[memory N] (stated <time>)`` blocks)
       gets :func:`consolidate_reply` (newest fact per subject wins).
    3b. memctl's answer prompt (``[REFERENCE]``/``[USER_MEMORY]`` sections and
       a ``Question:``) gets :func:`answer_reply`: the first user memory,
       then the best-matching reference's first line with its ``[n]`` citation.
    4. Otherwise the *distill* responder (``/api/chat``, ``/api/generate``,
       and unscripted ``/v1/chat/completions``). The *transcript* is the
       concatenation of the user messages (``/api/generate``: the prompt).
       Inside it, a line that starts (after optional ``#``, ``-``, ``*``,
       ``[``, ``>``) with ``user``, ``assistant``, ``system``, ``tool`` or
       ``reasoning`` (optionally followed by a parenthesis) and then ``:``
       ``]`` ``**`` or end of line is a *role marker* (memctl's transcript
       uses ``**User:**``, ``**Assistant:**``, ``**Reasoning (hint):**``); a
       line starting ``**Tool `name`**`` switches to the tool role. Text after
       a ``user`` marker (or the whole transcript if no marker exists) is
       *user text*. A *tool call* is ``tool``/``tool call``/``tool_call``/
       ``tool-call`` followed by ``:``, ``=`` or ``(`` and an identifier, or
       by whitespace and a back-quoted identifier (``[tool: bash]``,
       ``tool_call(read)``, ``**Tool `edit`**``), or a ``"tool": "<name>"``
       JSON pair.

       **The JUNK rule:** the reply is exactly ``JUNK`` when no tool call is
       seen AND the user text has fewer than 40 words that are not
       greeting/ping words (``hi hello hey ping test thanks ok …``, see
       ``GREETING_WORDS``). Otherwise the reply is a Markdown note: a heading
       from the session title (a ``title:`` line, else the first Markdown
       heading minus an ``OpenCode session:`` prefix, else ``Session
       notes``), then bullets for the first user
       request, the tool calls seen (with counts), the files touched (path-like
       tokens with an extension) and the transcript size in words.

Knobs (constructor arguments, also settable at run time; thread-safe)
    ``latency_s`` — sleep per request, inside the concurrency slot (only on
    ``latency_routes`` when given: real Ollama answers ``/api/show`` at once).
    ``max_concurrency`` — server-side semaphore; excess requests queue.
    ``think`` — distill replies start with a ``<think>…</think>`` block in
    the content; a request with ``"think": true`` gets that reasoning in the
    separate ``thinking`` field instead (``message.thinking`` /
    ``thinking``), as real Ollama does for thinking models.
    ``fail_next(n, status=500, routes=None)`` — next n matching requests get
    an HTTP error with Ollama's ``{"error": "..."}`` body.
    ``hang_next(n, seconds)`` — next n requests sleep ``seconds`` before
    answering (interrupted by :meth:`stop`), to trigger client timeouts.
    ``malformed_next(n, routes=None, mode="invalid")`` — next n matching
    requests get an invalid JSON body (``mode="truncated"``: a body shorter
    than its ``Content-Length``, then the connection is closed).
    ``missing_models`` — model names reported as not found.
    ``allow_v1_api`` — serve ``/v1/api/<x>`` (see above).
    ``consolidate_mode`` — ``merge`` (default) or a lossy model for the
    consolidation prompt: ``junk``, ``empty``, ``short``, ``drop-newest``,
    ``oldest``; ``keep-all`` keeps every fact (see :func:`consolidate_reply`).
    ``routes`` filters are paths; a request matches if its path equals one or
    starts with one ending in ``/`` (``None`` = every route).

Counters
    ``counts`` (``Counter`` by request path), ``calls`` (bounded list of
    ``(path, model, body)``), ``peak_concurrency``, ``reset_counts()``.

Run standalone::

    python -m tests.fakes.ollama_server --port 11434 [--latency 0.1]
        [--max-concurrency 4] [--think] [--embedding-dim 768] [--embedder concepts|wordllama]
        [--model NAME ...] [--missing-model NAME ...] [--allow-v1-api]
        [--chat-script module:callable] [--consolidate-reply MODE]

It prints ``listening on http://127.0.0.1:PORT`` and serves until SIGINT or
SIGTERM.
"""

from __future__ import annotations

import argparse
import base64
import collections
import copy
import hashlib
import importlib
import json
import math
import re
import signal
import struct
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable

from tests.fakes import anthropic_messages
from tests.fakes.openai_responses import r_v1_responses
from tests.fakes.scripted import ChatScript, ScriptedToolCall, ScriptedTurn

__all__ = [
    "CONCEPT_GROUPS",
    "FakeOllama",
    "GREETING_WORDS",
    "JUNK_MIN_WORDS",
    "SCHEMA_PROMPT_MARKER",
    "concepts",
    "distill_reply",
    "embed_text",
    "extract_entities",
    "instance_for_schema",
]

OLLAMA_VERSION = "0.12.6"
SCHEMA_PROMPT_MARKER = "You MUST respond with valid JSON conforming to this schema:"
JUNK_MIN_WORDS = 40
GREETING_WORDS = frozenset(
    """hi hello hey heya hiya yo sup ping pong test testing tests thanks thank
    you thx ok okay k cool nice great good morning evening afternoon bye
    goodbye please there are how is it working alive up anyone"""
    .split()
)
DEFAULT_MODELS = ("llama3.1:8b", "nomic-embed-text:latest")
EMBEDDERS = ("concepts", "wordllama")  # what answers the embedding routes (FakeOllama's ``embedder``)
MAX_CALLS = 2000

_STOP_ENTITIES = frozenset(
    """A An And As At Be But By Do For From He Her His How I If In Is It Its
    My No Not Of On Or Our She So That The Their Then There These They This
    To Was We What When Where Which Who Why Will With You Your Yes Also Please
    Can Could Should Would May Might Must Here Now Use Using Let Lets Add Make
    Run Read Write Then After Before Done Okay Ok Hi Hello Thanks Summary
    Note Notes User Assistant System Tool Session Title Request""".split()
)
_FILE_RE = re.compile(
    r"(?<![\w/.-])((?:~?/)?(?:[\w.-]+/)*[\w-]+\.(?:py|md|ts|tsx|js|jsx|json|toml|ya?ml|txt|rs|go|sh|sql|"
    r"html|css|c|h|cpp|hpp|java|rb|lock|cfg|ini|db|csv|xml|kt|swift|php))\b"
)
_IDENT_RE = re.compile(r"\b([A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b")
_CAP_RE = re.compile(r"\b([A-Z][A-Za-z0-9]{2,})\b")
_WORD_RE = re.compile(r"[A-Za-z0-9_']+")
_ROLE_RE = re.compile(
    r"^\s*(?:[#>*\-\[]\s*)*(user|assistant|system|tool|reasoning)\b(?:\s*\([^)]*\))?\s*(?::|\]|\*\*|$)",
    re.IGNORECASE,
)
_TOOL_ENTRY_RE = re.compile(r"^\s*(?:[#>*\-\[]\s*)*tool\s+`", re.IGNORECASE)
_TOOL_RE = re.compile(
    r"\btool(?:[ _-]?call)?(?:\s*[:=(]\s*[`\"']?|\s+`)([A-Za-z_][\w.-]*)", re.IGNORECASE
)
_TOOL_JSON_RE = re.compile(r"\"tool\"\s*:\s*\"([A-Za-z_][\w.-]*)\"")
_TITLE_RE = re.compile(r"^\s*(?:[#*\-]+\s*)?title\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_HEADING_RE = re.compile(r"^\s*#{1,6}\s+(.+?)\s*$", re.MULTILINE)


# --------------------------------------------------------------------------
# Deterministic content helpers (pure functions, usable from tests)
# --------------------------------------------------------------------------


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


# Concept groups: words (and short phrases) that a real embedding model places close together. Each group adds
# one shared feature, so "shoppers" and "customers" become neighbours the way they are in a learned semantic
# space. NOT a general thesaurus: the groups cover the paraphrase vocabulary of the retrieval quality set
# (tests/fixtures/quality_set.py, its ``paraphrase`` questions against their gold sessions) plus near synonyms
# of those words, and one word family a multi-session question relies on (migration/migrations/schema);
# anything outside the table embeds lexically only. `bench.bench_quality --real` with a real Ollama embedding
# model measures actual semantics.
CONCEPT_GROUPS: dict[str, tuple[str, ...]] = {
    "order": ("order", "orders", "purchase", "purchases", "shop", "shopping", "checkout", "cart", "ecommerce"),
    "customer": ("customer", "customers", "buyer", "buyers", "shopper", "shoppers"),
    "email": ("email", "emails", "mail", "mailed", "message", "messages"),
    "receipt": ("receipt", "receipts", "confirmation", "confirmations"),
    "duplicate": ("duplicate", "duplicates", "duplicated", "second", "two", "twice", "double"),
    "list": ("list", "listing", "lists", "pagination", "paginate", "paginated", "page", "pages"),
    "record": ("record", "records", "row", "rows", "entries"),
    "rounding": ("rounding", "rounded", "drift", "precision", "float", "floating", "decimal"),
    "amount": ("amount", "amounts", "total", "totals", "price", "prices", "cost", "costs"),
    "concurrency": ("parallel", "concurrent", "concurrency", "concurrently", "race", "simultaneous"),
    "test": ("test", "tests", "testing", "check", "checks"),
    "flaky": ("flaky", "intermittent", "intermittently", "sporadic", "sporadically", "occasionally"),
    "failure": ("fail", "fails", "failed", "failing", "failure", "failures", "unsuccessful"),
    "search": ("search", "searching", "searches", "looking", "find", "query"),
    "name": ("name", "names", "surname", "surnames"),
    "speed": ("speed", "sped", "fast", "faster", "quick", "quicker", "slow", "slower", "performance"),
    "timezone": ("timezone", "timezones", "zone", "zones", "tz", "localtime", "locale"),
    "daily": ("daily", "day", "nightly", "night", "end of business"),
    "report": ("report", "reports", "reporting", "summary", "summaries"),
    "refund": ("refund", "refunds", "refunded", "reimburse", "reimbursement", "repay", "money back"),
    "payment-provider": ("stripe", "provider", "psp"),
    "webhook": ("webhook", "webhooks", "callback", "callbacks", "hook", "hooks"),
    "retry": ("retry", "retries", "retried", "backoff", "cope", "handle", "handler", "handling"),
    "invoice": ("invoice", "invoices", "invoicing", "bill", "bills"),
    "document": ("pdf", "pdfs", "printable", "print", "document", "documents", "wkhtmltopdf"),
    "convert": ("convert", "converts", "converted", "turn", "turns", "render", "rendered", "generate", "generated"),
    "tax": ("vat", "tax", "taxes", "levy", "sales"),
    "cent": ("cent", "cents", "penny", "pennies"),
    "europe": ("eu", "europe", "european"),
    "wrong": ("wrong", "off", "incorrect", "mistaken", "error", "errors"),
    "reminder": ("reminder", "reminders", "dunning", "nudge"),
    "payment": ("payment", "payments", "charge", "charges", "card", "pay", "paid"),
    "upgrade": ("upgrade", "upgrading", "upgraded", "bump", "bumped", "release", "releases", "version"),
    "golang": ("go", "golang", "toolchain", "language", "compiler"),
    "proration": ("proration", "prorate", "prorated", "prorations", "leftover", "unused", "remaining", "credit"),
    "plan": ("plan", "plans", "subscription", "subscriptions", "tier"),
    "switch": ("switch", "switched", "switching", "change", "changes"),
    "terraform": ("terraform", "infrastructure", "infra", "iac", "tf"),
    "state": ("state", "status"),
    "remote": ("remote", "remotely", "s3", "bucket", "buckets", "cloud"),
    "backup": ("backup", "backups", "snapshot", "snapshots", "pgbackrest", "restore"),
    "database": ("database", "databases", "db", "relational", "postgres", "postgresql", "sql", "pg"),
    "certificate": ("certificate", "certificates", "cert", "certs", "tls", "ssl", "https", "letsencrypt"),
    "renew": ("renew", "renews", "renewal", "rotate", "rotates", "rotation", "rotated"),
    "expire": ("expire", "expired", "expiring", "expiry"),
    "node": ("node", "nodes", "machine", "machines", "worker", "workers", "vm", "vms", "server", "servers",
             "host", "hosts"),
    "kubernetes": ("kubernetes", "k8s", "cluster", "gke"),
    "container": ("container", "containers", "docker", "pod", "pods"),
    "pool": ("pool", "pools", "group", "groups"),
    "ssh": ("ssh", "bastion", "iap", "login", "log into", "log in"),
    "secure": ("secure", "securely", "security", "restrict", "restricted", "firewall"),
    "build": ("build", "builds", "building", "compile", "compilation", "compiled", "buildx"),
    "dns": ("dns", "nxdomain", "coredns", "resolution", "resolve", "resolver", "name lookup", "name lookups"),
    "photo": ("photo", "photos", "camera", "picture", "pictures"),
    "crash": ("crash", "crashed", "crashes", "kill", "killed", "kills"),
    "app": ("app", "apps", "application", "program", "client"),
    "phone": ("phone", "phones", "android", "ios", "mobile", "device", "devices"),
    "launch": ("launch", "launching", "startup", "start", "cold", "boot"),
    "staging": ("staging", "preprod", "pre production"),
    "environment": ("environment", "environments", "env"),
    "url": ("url", "urls", "address", "point"),
    "dark": ("dark", "night", "theme", "themes", "look", "appearance"),
    "shrink": ("shrink", "shrinking", "reduce", "reduced", "smaller", "minify"),
    "package": ("package", "packages", "bundle", "bundles", "apk", "apks", "installable"),
    "ttl": ("ttl", "lifetime", "live"),
    "cache": ("cache", "cached", "caching"),
    "migration": ("migration", "migrations", "migrate", "migrated", "schema"),
}

CONCEPT_WEIGHT = 1.5  # a shared concept counts a little more than one shared word (1.0 plus its trigrams)
_CONCEPT_OF: dict[tuple[str, ...], tuple[str, ...]] = {}
for _name, _members in CONCEPT_GROUPS.items():
    for _member in _members:
        _key = tuple(_member.split())
        _CONCEPT_OF[_key] = (*_CONCEPT_OF.get(_key, ()), _name)
_PHRASE_MAX = max(len(key) for key in _CONCEPT_OF)
_SUBWORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _subwords(token: str) -> list[str]:
    """``token`` split on ``_`` and camelCase, lower-cased (``READ_MEDIA_IMAGES`` → read, media, images;
    ``DNSCache`` → dns, cache), as a real model's sub-word tokenizer sees identifiers."""
    return [part.lower() for piece in token.split("_") for part in _SUBWORD_RE.findall(piece)]


def concepts(text: str) -> list[str]:
    """The :data:`CONCEPT_GROUPS` names ``text`` evokes, one per occurrence (a token counts each group once,
    whole or by its sub-words; phrases of up to three sub-words count too)."""
    found: list[str] = []
    sequence: list[str] = []
    for token in _words(text):
        parts = _subwords(token) or [token.lower()]
        names = set(_CONCEPT_OF.get((token.lower(),), ()))
        for part in parts:
            names.update(_CONCEPT_OF.get((part,), ()))
        found.extend(sorted(names))
        sequence.extend(parts)
    for n in range(2, _PHRASE_MAX + 1):
        for i in range(len(sequence) - n + 1):
            found.extend(_CONCEPT_OF.get(tuple(sequence[i:i + n]), ()))
    return found


def embed_text(text: str, dim: int = 768) -> list[float]:
    """Return a deterministic unit-norm vector of ``dim`` floats for ``text``.

    Feature hashing: each lower-cased word token and each character trigram
    of each token adds ±weight to a bucket chosen by a BLAKE2b hash, so texts
    sharing words are close (cosine) and unrelated texts are near orthogonal.
    On top of these lexical features, every concept of :data:`CONCEPT_GROUPS`
    the text evokes (:func:`concepts`) adds :data:`CONCEPT_WEIGHT` to that
    concept's bucket: a small, hand-written stand-in for the semantic space of
    a real embedding model, so that a paraphrase ("shoppers received a second
    receipt message") lands near its source ("customers got two confirmation
    emails"). Its groups cover the paraphrase vocabulary of the retrieval
    quality set (``tests/fixtures/quality_set.py``) and little else, so figures
    measured with this fake say that memctl *uses* semantic evidence, not how
    good a real model's semantics are: ``bench.bench_quality --real`` with a
    real Ollama model measures that. Empty text maps to a fixed unit vector.
    """
    vec = [0.0] * dim
    tokens = [w.lower() for w in _words(text)]
    feats: list[tuple[str, float]] = []
    for tok in tokens:
        feats.append(("w:" + tok, 1.0))
        padded = f"#{tok}#"
        for i in range(max(1, len(padded) - 2)):
            feats.append(("c:" + padded[i : i + 3], 0.3))
    feats.extend(("g:" + name, CONCEPT_WEIGHT) for name in concepts(text))
    if not feats:
        feats = [("empty:", 1.0)]
    for feat, weight in feats:
        h = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
        idx = int.from_bytes(h[:4], "little") % dim
        sign = 1.0 if h[4] & 1 else -1.0
        vec[idx] += sign * weight
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def extract_entities(text: str, limit: int = 6) -> list[tuple[str, str]]:
    """Return up to ``limit`` ``(name, type)`` pairs found in ``text``.

    Order of first appearance; file names (type ``File``), code identifiers
    (snake_case / camelCase / CamelCase, type ``Identifier``), then other
    capitalized words not in a small stop list (type ``Concept``).
    Case-insensitive de-duplication. If nothing qualifies, the two longest
    words become ``Concept`` entities.
    """
    found: list[tuple[int, str, str]] = []
    for m in _FILE_RE.finditer(text):
        found.append((m.start(), m.group(1), "File"))
    for m in _IDENT_RE.finditer(text):
        found.append((m.start(), m.group(1), "Identifier"))
    for m in _CAP_RE.finditer(text):
        if m.group(1) not in _STOP_ENTITIES:
            found.append((m.start(), m.group(1), "Concept"))
    found.sort(key=lambda t: t[0])
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for _, name, typ in found:
        key = name.lower()
        # a capitalized word that is part of an already-seen file/identifier
        if key in seen or any(key in s.split("/")[-1].split(".") for s in seen):
            continue
        seen.add(key)
        out.append((name, typ))
        if len(out) >= limit:
            break
    if not out:
        words = sorted({w.lower() for w in _words(text) if len(w) > 3}, key=lambda w: (-len(w), w))
        out = [(w, "Concept") for w in words[:2]]
    return out


def _summary(text: str, max_words: int = 30) -> str:
    words = text.split()
    if not words:
        return "Empty input."
    head = " ".join(words[:max_words])
    return f"Summary: {head}" + ("…" if len(words) > max_words else "")


def _analyse_transcript(text: str) -> dict[str, Any]:
    user_lines: list[str] = []
    has_marker = False
    role = None
    for line in text.splitlines():
        if _TOOL_ENTRY_RE.match(line):  # memctl transcript: **Tool `bash`** — completed
            has_marker = True
            role = "tool"
            continue
        m = _ROLE_RE.match(line)
        if m:
            has_marker = True
            role = m.group(1).lower()
            rest = line[m.end() :].strip().lstrip("*").strip()
            if role == "user" and rest:
                user_lines.append(rest)
            continue
        if role == "user":
            user_lines.append(line)
    user_text = "\n".join(user_lines) if has_marker else text
    tools: collections.Counter[str] = collections.Counter()
    for m in _TOOL_RE.finditer(text):
        name = m.group(1)
        if name.lower() in {"call", "calls", "output", "result", "input", "use", "uses", "s"}:
            continue
        tools[name] += 1
    for m in _TOOL_JSON_RE.finditer(text):
        tools[m.group(1)] += 1
    files: list[str] = []
    for m in _FILE_RE.finditer(text):
        if m.group(1) not in files:
            files.append(m.group(1))
    substantive = [w for w in _words(user_text) if w.lower() not in GREETING_WORDS]
    title = None
    tm = _TITLE_RE.search(text)
    if tm:
        title = tm.group(1).strip().strip("\"'")
    else:
        hm = _HEADING_RE.search(text)
        if hm:
            title = re.sub(r"^(?:opencode\s+)?session:\s*", "", hm.group(1).strip(), flags=re.IGNORECASE)
    first_request = next((ln.strip() for ln in user_lines if ln.strip()), "") if has_marker else ""
    if not first_request:
        first_request = next((ln.strip() for ln in user_text.splitlines() if ln.strip()), "")
    return {
        "user_text": user_text,
        "tools": tools,
        "files": files,
        "substantive_words": len(substantive),
        "title": title,
        "first_request": first_request,
        "words": len(_words(text)),
    }


def distill_reply(transcript: str) -> str:
    """Return the fake distiller's answer for ``transcript`` (see module doc).

    ``JUNK`` when no tool call is seen and the user text has fewer than
    ``JUNK_MIN_WORDS`` non-greeting words; otherwise a Markdown note derived
    from the transcript.
    """
    a = _analyse_transcript(transcript)
    if not a["tools"] and a["substantive_words"] < JUNK_MIN_WORDS:
        return "JUNK"
    title = a["title"] or "Session notes"
    lines = [f"# {title}", ""]
    req = a["first_request"]
    if len(req) > 200:
        req = req[:200].rstrip() + "…"
    lines.append(f"- Request: {req or '(none)'}")
    if a["tools"]:
        tools = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in sorted(a["tools"].items()))
        lines.append(f"- Tools used: {tools}")
    else:
        lines.append("- Tools used: none")
    if a["files"]:
        lines.append("- Files touched: " + ", ".join(f"`{f}`" for f in a["files"][:10]))
    lines.append(f"- Transcript size: {a['words']} words")
    return "\n".join(lines) + "\n"


# ----------------------------- JSON schema -------------------------------


_MEMORY_BLOCK = re.compile(r"\[memory \d+\] \(stated ([^)]*)\)\n(.*?)(?=\n\n\[memory \d+\] \(stated |\Z)", re.S)


def _is_consolidate_request(text: str) -> bool:
    """memctl's consolidation prompt: blocks ``[memory N] (stated <time>)``."""
    return "[memory 1] (stated " in text


CONSOLIDATE_MODES = ("merge", "keep-all", "junk", "empty", "short", "drop-newest", "oldest")


def consolidate_reply(text: str, mode: str = "merge") -> str:
    """Deterministic merge of ``[memory N] (stated <time>)`` blocks, as a careful model would.

    Every line of every memory is a fact; its *subject* is its first three
    words (lowercased). Facts are replayed oldest first, so a later fact with
    the same subject replaces an earlier one (newest wins on contradiction)
    and exact repeats collapse; the result lists one bullet per subject in
    order of first appearance.

    ``mode`` plays other models (:data:`CONSOLIDATE_MODES`): ``keep-all``
    lists every distinct fact line (subjects never collapse); the lossy ones
    — ``junk`` (``JUNK``), ``empty`` (whitespace), ``short`` (the newest
    memory's first two words), ``drop-newest`` (the merge without the newest
    memory), ``oldest`` (the oldest memory verbatim: the superseded fact).
    """
    blocks = sorted(((stated, _unquoted(body)) for stated, body in _MEMORY_BLOCK.findall(text)), key=lambda m: m[0])
    if mode == "junk":
        return "JUNK"
    if mode == "empty":
        return " \n"
    if mode == "short":
        return " ".join(_words(blocks[-1][1])[:2]) if blocks else "JUNK"
    if mode == "oldest":
        return blocks[0][1].strip() if blocks else "JUNK"
    if mode == "drop-newest":
        blocks = blocks[:-1]
    facts: dict[str, str] = {}
    for _stated, body in blocks:
        for line in body.strip().splitlines():
            fact = line.strip().lstrip("-* ").strip()
            if fact:
                facts[fact.lower() if mode == "keep-all" else " ".join(w.lower() for w in _words(fact)[:3])] = fact
    return "\n".join(f"- {fact}" for fact in facts.values()) or "JUNK"


_REFERENCE_HEADER = re.compile(r"^\[(\d+)\] (.*)$")


def _unquoted(text: str) -> str:
    """An entry's text: memctl quotes memories and excerpts as JSON strings (a model reads them decoded)."""
    text = text.strip()
    if text.startswith('"'):
        try:
            return json.JSONDecoder().raw_decode(text)[0]
        except ValueError:
            pass
    return text


def _is_answer_request(text: str) -> bool:
    """memctl's answer prompt: a ``[REFERENCE]`` or ``[USER_MEMORY]`` section and a ``Question:``."""
    return "Question:" in text and ("[REFERENCE]" in text or "[USER_MEMORY]" in text)


def answer_reply(text: str) -> str:
    """Deterministic answer to a question asked over memctl's context sections.

    Quotes the ``[USER_MEMORY]`` entry sharing the most words with the
    question (the first on a tie; user memory takes precedence),
    then the first substantive line of the ``[REFERENCE]`` excerpt sharing
    the most words with the question, cited by its number. Without either:
    ``I could not find this in your memory.``
    """
    question = text[text.rfind("Question:") + len("Question:"):]
    wanted = {w.lower() for w in _words(question) if len(w) >= 3}
    section, memories, refs = "", [], []
    for line in text[: text.rfind("Question:")].splitlines():
        if line in ("[USER_MEMORY]", "[REFERENCE]"):
            section = line
            continue
        header = _REFERENCE_HEADER.match(line) if section == "[REFERENCE]" else None
        if header:
            refs.append([header.group(1), []])
        elif section == "[USER_MEMORY]" and line.startswith("- ("):
            memories.append(_unquoted(line.split(") ", 1)[-1]))
        elif section == "[REFERENCE]" and refs and line.strip():
            refs[-1][1].extend(part.strip() for part in _unquoted(line).splitlines())
    parts = []
    if memories:
        best = max(memories, key=lambda m: (len(wanted & {w.lower() for w in _words(m)}), -memories.index(m)))
        parts.append(f"Your recorded preference: {best}")
    if refs:
        number, lines = max(refs, key=lambda r: (len(wanted & {w.lower() for w in _words(" ".join(r[1]))}),
                                                 -int(r[0])))
        body = [ln.lstrip("#-* ").strip() for ln in lines if ln.lstrip("#-* ").strip()]
        parts.append(f"{body[0] if body else 'See the note'} [{number}]")
    return "\n".join(parts) if parts else "I could not find this in your memory."


class _SchemaGen:
    """Build a deterministic instance of a JSON schema, content from ``text``."""

    def __init__(self, root: dict[str, Any], text: str) -> None:
        self.root = root
        self.text = text
        self.entities = extract_entities(text)
        self.depth = 0

    def resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 50:
            ref = schema["$ref"]
            seen += 1
            if not ref.startswith("#"):
                return {}
            target: Any = self.root
            for part in ref.lstrip("#").split("/"):
                if part:
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **extra} if extra else target
        return schema

    def gen(self, schema: Any, key: str = "", index: int = 0) -> Any:
        schema = self.resolve(schema)
        if schema is True or schema is None or schema == {}:
            return self.string_for(key, index, {})
        if schema is False:
            return None
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if "enum" in schema:
            return copy.deepcopy(self.choose(schema["enum"]))
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for sub in schema["allOf"]:
                sub = self.resolve(sub)
                for k, v in sub.items():
                    if k == "properties":
                        merged.setdefault("properties", {}).update(v)
                    elif k == "required":
                        merged.setdefault("required", []).extend(v)
                    else:
                        merged.setdefault(k, v)
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            return self.gen({**merged, **rest}, key, index)
        for comb in ("anyOf", "oneOf"):
            if comb in schema:
                options = [self.resolve(o) for o in schema[comb]]
                non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
                choice = non_null[0] if non_null else options[0]
                return self.gen(choice, key, index)
        typ = schema.get("type")
        if isinstance(typ, list):
            non_null = [t for t in typ if t != "null"]
            typ = non_null[0] if non_null else "null"
        if typ is None:
            if "properties" in schema:
                typ = "object"
            elif "items" in schema:
                typ = "array"
            else:
                typ = "string"
        if typ == "object":
            return self.object(schema, key)
        if typ == "array":
            return self.array(schema, key)
        if typ == "string":
            return self.string_for(key, index, schema)
        if typ == "integer":
            return int(self.number(schema, integer=True))
        if typ == "number":
            return self.number(schema, integer=False)
        if typ == "boolean":
            return True
        return None

    def choose(self, options: list[Any]) -> Any:
        """Pick the enum option the input is about (a classifier's behaviour).

        The *question* is the text after the last ``Question:`` (else the last
        non-empty line). Each string option is scored by how many distinct
        question words (lowercased, 3+ letters) occur in the other lines that
        mention the option; the highest score wins, ties go to the earlier
        option. Non-string options: the first.
        """
        if len(options) < 2 or not all(isinstance(o, str) for o in options):
            return options[0]
        lines = [line for line in self.text.splitlines() if line.strip()]
        marker = self.text.rfind("Question:")
        question = self.text[marker + len("Question:"):] if marker >= 0 else (lines[-1] if lines else "")
        wanted = {w.lower() for w in _words(question) if len(w) >= 3}
        best, best_score = options[0], 0
        for option in options:
            pattern = re.compile(rf"(?<![\w-]){re.escape(option)}(?![\w-])")
            context = " ".join(line for line in lines if pattern.search(line) and question.strip() not in line)
            score = len(wanted & {w.lower() for w in _words(context)})
            if score > best_score:
                best, best_score = option, score
        return best

    def number(self, schema: dict[str, Any], integer: bool) -> float:
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        val: float = 1
        if lo is not None:
            val = max(val, lo + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0))
        if hi is not None:
            val = min(val, hi - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0))
        if lo is not None and val < lo:
            val = lo
        return int(math.ceil(val)) if integer else float(val)

    def object(self, schema: dict[str, Any], key: str) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties") or {}
        names = set(props)
        if {"nodes", "edges"} <= names:
            return self.graph(schema)
        out: dict[str, Any] = {}
        self.depth += 1
        try:
            required = set(schema.get("required", []))
            for name, sub in props.items():
                rsub = self.resolve(sub)
                if name not in required and isinstance(rsub, dict) and "default" in rsub:
                    # an optional field's declared default is valid by construction
                    # (and satisfies validators the schema cannot express)
                    out[name] = copy.deepcopy(rsub["default"])
                    continue
                if self.depth > 8 and name not in required:
                    continue
                out[name] = self.gen(sub, name)
        finally:
            self.depth -= 1
        for name in schema.get("required", []):
            if name not in out:
                out[name] = self.string_for(name, 0, {})
        return out

    def array(self, schema: dict[str, Any], key: str) -> list[Any]:
        lo = int(schema.get("minItems", 0))
        hi = schema.get("maxItems")
        n = max(lo, 1 if self.depth < 6 else lo)
        if hi is not None:
            n = min(n, int(hi))
        items = schema.get("items", {})
        if isinstance(items, list):  # tuple form
            return [self.gen(s, key, i) for i, s in enumerate(items[: max(n, len(items))])]
        out = [self.gen(items, key, i) for i in range(n)]
        if schema.get("uniqueItems") and len(out) > 1:
            uniq: list[Any] = []
            for v in out:
                if v not in uniq:
                    uniq.append(v)
            out = uniq
        return out

    def graph(self, schema: dict[str, Any]) -> dict[str, Any]:
        props = schema["properties"]
        node_schema = self.resolve(self.resolve(props["nodes"]).get("items", {}))
        edge_schema = self.resolve(self.resolve(props["edges"]).get("items", {}))
        nodes: list[dict[str, Any]] = []
        for i, (name, typ) in enumerate(self.entities):
            nodes.append(self.fill(node_schema, {
                "id": name, "name": name, "type": typ, "label": typ,
                "description": f"{typ} {name} mentioned in the text.",
            }, i))
        edges: list[dict[str, Any]] = []
        if len(self.entities) > 1:
            src = self.entities[0][0]
            for i, (name, typ) in enumerate(self.entities[1:], start=1):
                rel = "touches" if typ == "File" else "related_to"
                edges.append(self.fill(edge_schema, {
                    "source_node_id": src, "target_node_id": name, "relationship_name": rel,
                    "source": src, "target": name, "relationship": rel,
                    "description": f"{src} {rel.replace('_', ' ')} {name}.",
                }, i))
        out: dict[str, Any] = {}
        for pname, sub in props.items():
            if pname == "nodes":
                out[pname] = nodes
            elif pname == "edges":
                out[pname] = edges
            else:
                out[pname] = self.gen(sub, pname)
        return out

    def fill(self, schema: dict[str, Any], values: dict[str, Any], index: int) -> dict[str, Any]:
        """Instance of an object ``schema`` preferring ``values`` for string fields."""
        out: dict[str, Any] = {}
        for pname, sub in (schema.get("properties") or {}).items():
            r = self.resolve(sub)
            if pname in values and self._accepts_string(r):
                out[pname] = values[pname]
            else:
                out[pname] = self.gen(sub, pname, index)
        return out

    def _accepts_string(self, schema: Any) -> bool:
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or "enum" in schema or "const" in schema:
            return False
        typ = schema.get("type")
        if typ == "string" or (isinstance(typ, list) and "string" in typ):
            return not schema.get("pattern") and not schema.get("format")
        for comb in ("anyOf", "oneOf"):
            if comb in schema:
                return any(self._accepts_string(o) for o in schema[comb])
        return typ is None and "properties" not in schema and "items" not in schema

    def string_for(self, key: str, index: int, schema: dict[str, Any]) -> str:
        fmt = schema.get("format")
        if fmt == "date-time":
            return "2024-01-01T00:00:00Z"
        if fmt == "date":
            return "2024-01-01"
        if fmt == "time":
            return "00:00:00"
        if fmt == "uuid":
            digest = hashlib.sha1(f"{key}:{index}:{self.text}".encode()).hexdigest()
            return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"
        if fmt == "email":
            return "user@example.com"
        if fmt in ("uri", "url"):
            return "http://127.0.0.1/"
        k = key.lower()
        ent = self.entities[index % len(self.entities)][0] if self.entities else "item"
        if "summary" in k:
            val = _summary(self.text)
        elif "description" in k or "content" in k or "text" in k or "answer" in k:
            val = _summary(self.text, 15)
        elif k in ("id", "name", "label", "title") or k.endswith("_id") or k.endswith("name"):
            val = ent
        elif "type" in k:
            val = self.entities[index % len(self.entities)][1] if self.entities else "Concept"
        elif "relationship" in k or "relation" in k:
            val = "related_to"
        else:
            val = " ".join(self.text.split()[:8]) or key or "value"
        lo = int(schema.get("minLength", 0))
        hi = schema.get("maxLength")
        if len(val) < lo:
            val = val + "x" * (lo - len(val))
        if hi is not None and len(val) > int(hi):
            val = val[: int(hi)]
        return val


def instance_for_schema(schema: dict[str, Any], text: str) -> Any:
    """Return a deterministic instance valid against ``schema``, content from ``text``.

    Supports local ``$ref`` (``#/$defs/...``, ``#/definitions/...``), ``allOf``,
    ``anyOf``/``oneOf`` (first non-null branch), ``const``, ``enum`` (first
    value), type lists, objects (every property), arrays (``minItems``, at
    least one item unless ``maxItems`` is 0), string formats/lengths, numeric
    bounds. ``pattern`` constraints are not solved.
    """
    return _SchemaGen(schema, text).gen(schema)


# --------------------------------------------------------------------------
# Request introspection
# --------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        parts = []
        for p in content:
            if isinstance(p, dict):
                if isinstance(p.get("text"), str):
                    parts.append(p["text"])
            elif isinstance(p, str):
                parts.append(p)
        return "\n".join(parts)
    return str(content)


def _user_text(messages: list[dict[str, Any]]) -> str:
    texts = [_content_text(m.get("content")) for m in messages if m.get("role") == "user"]
    if not texts:
        texts = [_content_text(m.get("content")) for m in messages if m.get("role") != "system"]
    return "\n\n".join(t for t in texts if t)


def _schema_from_prompt(prompt: str) -> tuple[dict[str, Any] | None, str]:
    """Find litellm's schema-in-prompt form; return (schema, text before it)."""
    idx = prompt.find(SCHEMA_PROMPT_MARKER)
    if idx < 0:
        return None, prompt
    rest = prompt[idx + len(SCHEMA_PROMPT_MARKER) :]
    start = rest.find("{")
    if start < 0:
        return None, prompt
    try:
        schema, _ = json.JSONDecoder().raw_decode(rest[start:])
    except ValueError:
        return None, prompt
    return (schema if isinstance(schema, dict) else None), prompt[:idx]


def _strip_roles_prompt(prompt: str) -> str:
    """litellm's ollama prompt template prefixes ``### User:`` etc.; keep user parts."""
    if "### User:" not in prompt:
        return prompt
    chunks = re.split(r"^### (System|User|Assistant):\s*$", prompt, flags=re.MULTILINE)
    if len(chunks) < 3:
        return prompt
    users = [chunks[i + 1] for i in range(1, len(chunks) - 1, 2) if chunks[i] == "User"]
    return "\n".join(u.strip() for u in users) or prompt


def _approx_tokens(text: str) -> int:
    return max(1, len(_words(text)))


# --------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------


class _Fault:
    __slots__ = ("kind", "remaining", "status", "routes", "seconds", "mode")

    def __init__(self, kind: str, n: int, *, status: int = 500, routes: Iterable[str] | None = None,
                 seconds: float = 0.0, mode: str = "invalid") -> None:
        self.kind = kind
        self.remaining = n
        self.status = status
        self.routes = tuple(routes) if routes is not None else None
        self.seconds = seconds
        self.mode = mode

    def matches(self, path: str) -> bool:
        if self.routes is None:
            return True
        return any(path == r or (r.endswith("/") and path.startswith(r)) for r in self.routes)


class _Abort(Exception):
    pass


class FakeOllama:
    """Threaded fake Ollama HTTP server bound to 127.0.0.1 (see module doc).

    Args:
        port: TCP port, 0 (default) picks a free one; read :attr:`url`.
        chat_script: optional :data:`tests.fakes.scripted.ChatScript`.
        models: installed model names (``/api/tags``, ``/api/show``).
        embedding_models: extra names treated as embedding models.
        embedding_dim: length of every embedding vector (default 768; at most 256 with ``wordllama``).
        embedder: ``concepts`` (:func:`embed_text`: hashed words, trigrams and concept groups; plumbing
            tests) or ``wordllama`` (real weights, :mod:`tests.fakes.wordllama_embedder`; quality figures).
        latency_s: seconds slept per request.
        latency_routes: paths the latency applies to (None: every request).
        max_concurrency: max requests processed at once (None = unbounded).
        think: prefix distill replies with ``<think>…</think>``.
        missing_models: names that every route reports as not found.
        allow_v1_api: serve ``/v1/api/<x>`` as ``/api/<x>`` (real Ollama: 404).
        consolidate_mode: how consolidation prompts are answered (see :func:`consolidate_reply`).

    Use as a context manager or call :meth:`start` / :meth:`stop`.
    """

    def __init__(
        self,
        port: int = 0,
        *,
        chat_script: ChatScript | None = None,
        models: Iterable[str] = DEFAULT_MODELS,
        embedding_models: Iterable[str] = (),
        embedding_dim: int = 768,
        latency_s: float = 0.0,
        max_concurrency: int | None = None,
        think: bool = False,
        missing_models: Iterable[str] = (),
        allow_v1_api: bool = False,
        latency_routes: Iterable[str] | None = None,
        consolidate_mode: str = "merge",
        embedder: str = "concepts",
    ) -> None:
        if consolidate_mode not in CONSOLIDATE_MODES:
            raise ValueError(f"consolidate_mode must be one of {', '.join(CONSOLIDATE_MODES)}")
        if embedder not in EMBEDDERS:
            raise ValueError(f"embedder must be one of {', '.join(EMBEDDERS)}")
        self.embedder = embedder
        if embedder == "wordllama":
            from tests.fakes import wordllama_embedder

            if embedding_dim > wordllama_embedder.DIMENSIONS:
                embedding_dim = wordllama_embedder.DIMENSIONS
        self.consolidate_mode = consolidate_mode
        self._lock = threading.RLock()
        self.allow_v1_api = allow_v1_api
        self._port = port
        self.chat_script = chat_script
        self.models = list(models)
        self.embedding_models = set(embedding_models)
        self.embedding_dim = embedding_dim
        self.latency_s = latency_s
        self.latency_routes = tuple(latency_routes) if latency_routes is not None else None
        self.think = think
        self.missing_models = set(missing_models)
        self._max_concurrency: int | None = None
        self._slots = threading.Condition(self._lock)
        self._active = 0
        self.peak_concurrency = 0
        self.max_concurrency = max_concurrency
        self._faults: list[_Fault] = []
        self.counts: collections.Counter[str] = collections.Counter()
        self.calls: collections.deque[tuple[str, str | None, Any]] = collections.deque(maxlen=MAX_CALLS)
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------- lifecycle
    def start(self) -> "FakeOllama":
        """Bind 127.0.0.1 and serve in a daemon thread; returns ``self``."""
        if self._httpd is not None:
            return self
        self._stop.clear()
        handler = _make_handler(self)
        httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-ollama-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, interrupt hanging requests, close the socket."""
        self._stop.set()
        with self._slots:
            self._slots.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> "FakeOllama":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if self._httpd is not None:
            return self._httpd.server_address[1]
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    # --------------------------------------------------------------- knobs
    @property
    def max_concurrency(self) -> int | None:
        return self._max_concurrency

    @max_concurrency.setter
    def max_concurrency(self, value: int | None) -> None:
        with self._slots:
            self._max_concurrency = value if value is None else max(1, int(value))
            self._slots.notify_all()

    def fail_next(self, n: int = 1, status: int = 500, routes: Iterable[str] | None = None,
                  message: str | None = None) -> None:
        """Make the next ``n`` requests matching ``routes`` fail with ``status``.

        The body is Ollama's ``{"error": message}`` (OpenAI routes: the
        OpenAI error object). ``message`` defaults to a fixed text naming the
        status.
        """
        f = _Fault("fail", n, status=status, routes=routes)
        f.mode = message or f"fake ollama: injected failure (HTTP {status})"
        with self._lock:
            self._faults.append(f)

    def hang_next(self, n: int = 1, seconds: float = 30.0, routes: Iterable[str] | None = None) -> None:
        """Delay the next ``n`` matching requests by ``seconds`` before answering."""
        with self._lock:
            self._faults.append(_Fault("hang", n, seconds=seconds, routes=routes))

    def malformed_next(self, n: int = 1, routes: Iterable[str] | None = None, mode: str = "invalid") -> None:
        """Answer the next ``n`` matching requests with a broken body.

        ``mode="invalid"``: HTTP 200 with a body that is not JSON;
        ``mode="truncated"``: a JSON body cut short of its ``Content-Length``.
        """
        if mode not in ("invalid", "truncated"):
            raise ValueError("mode must be 'invalid' or 'truncated'")
        with self._lock:
            self._faults.append(_Fault("malformed", n, routes=routes, mode=mode))

    def clear_faults(self) -> None:
        """Drop every pending fail/hang/malformed injection."""
        with self._lock:
            self._faults.clear()

    def reset_counts(self) -> None:
        """Zero ``counts``, ``calls`` and ``peak_concurrency``."""
        with self._lock:
            self.counts.clear()
            self.calls.clear()
            self.peak_concurrency = 0

    def model_calls(self) -> int:
        """Number of generation/embedding requests recorded (excludes metadata routes)."""
        with self._lock:
            return sum(c for p, c in self.counts.items() if _is_model_route(p))

    # ------------------------------------------------------------ internals
    def _take_faults(self, path: str) -> list[_Fault]:
        taken: list[_Fault] = []
        with self._lock:
            kinds: set[str] = set()
            for f in self._faults:
                if f.remaining > 0 and f.kind not in kinds and f.matches(path):
                    f.remaining -= 1
                    kinds.add(f.kind)
                    taken.append(copy.copy(f))
            self._faults = [f for f in self._faults if f.remaining > 0]
        return taken

    def _record(self, path: str, model: str | None, body: Any) -> None:
        with self._lock:
            self.counts[path] += 1
            self.calls.append((path, model, body))

    def _acquire(self) -> None:
        with self._slots:
            while (self._max_concurrency is not None and self._active >= self._max_concurrency
                   and not self._stop.is_set()):
                self._slots.wait(0.1)
            self._active += 1
            self.peak_concurrency = max(self.peak_concurrency, self._active)

    def _release(self) -> None:
        with self._slots:
            self._active -= 1
            self._slots.notify_all()

    def _is_missing(self, model: str | None) -> bool:
        if not model:
            return False
        with self._lock:
            missing = set(self.missing_models)
        return model in missing or _canon(model) in {_canon(m) for m in missing}

    def _is_installed(self, model: str) -> bool:
        return _canon(model) in {_canon(m) for m in self.models} and not self._is_missing(model)

    def embed_many(self, texts: list[str], dim: int | None = None) -> list[list[float]]:
        """Vectors of ``texts`` (``dim`` floats each, default :attr:`embedding_dim`) by the chosen embedder."""
        dim = dim or self.embedding_dim
        if self.embedder == "wordllama":
            from tests.fakes import wordllama_embedder

            return wordllama_embedder.embed_texts(texts, dim)
        return [embed_text(t, dim) for t in texts]

    def _is_embedding(self, model: str) -> bool:
        return "embed" in model.lower() or _canon(model) in {_canon(m) for m in self.embedding_models}


def _canon(name: str) -> str:
    return name if ":" in name else name + ":latest"


def _is_model_route(path: str) -> bool:
    p = path[3:] if path.startswith("/v1/api/") else path
    return p in ("/api/chat", "/api/generate", "/api/embed", "/api/embeddings", "/v1/chat/completions",
                 "/v1/embeddings", "/v1/completions")


# --------------------------------------------------------------------------
# HTTP handler
# --------------------------------------------------------------------------


def _make_handler(server: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOllama
    protocol_version = "HTTP/1.1"
    # Real Ollama (Go's net/http) sets TCP_NODELAY. Without it, headers and body go out
    # as two small segments and a keep-alive client waits ~40 ms for the delayed ACK.
    disable_nagle_algorithm = True
    server_version = "FakeOllama/" + OLLAMA_VERSION
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    # ------------------------------------------------------------ plumbing
    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                line = self.rfile.readline()
                size = int(line.strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, content_type: str = "application/json; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"))

    def _error(self, status: int, message: str) -> None:
        if self._path.startswith("/v1/") and not self._path.startswith("/v1/api/"):
            # Ollama's openai middleware (openai/openai.go NewError)
            etype = {400: "invalid_request_error", 404: "not_found_error"}.get(status, "api_error")
            self._json(status, {"error": {"message": message, "type": etype, "param": None, "code": None}})
        else:
            self._json(status, {"error": message})

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -------------------------------------------------------------- verbs
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self._dispatch("POST")

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
        self._path = self.path.split("?", 1)[0]
        self._send(200, b"", "text/plain; charset=utf-8")

    def _dispatch(self, method: str) -> None:
        fake = self.fake
        self._path = path = self.path.split("?", 1)[0].rstrip("/") or "/"
        raw = self._read_body() if method == "POST" else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                fake._record(path, None, raw[:2000])
                self._error(400, "invalid character in request body")
                return
        model = body.get("model") or body.get("name") if isinstance(body, dict) else None
        fake._record(path, model, body)
        fake._acquire()
        try:
            if fake.latency_s and (fake.latency_routes is None or path in fake.latency_routes):
                fake._stop.wait(fake.latency_s)
            faults = {f.kind: f for f in fake._take_faults(path)}
            if "hang" in faults:
                fake._stop.wait(faults["hang"].seconds)
            if "fail" in faults:
                self._error(faults["fail"].status, faults["fail"].mode)
                return
            self._malformed = faults.get("malformed")
            route = path[3:] if (path.startswith("/v1/api/") and fake.allow_v1_api) else path
            handler = _ROUTES.get((method, route))
            if handler is None and method == "GET" and route.startswith("/v1/models/"):
                handler = _Handler.r_v1_model
            if handler is None:
                self._send(404, b"404 page not found", "text/plain; charset=utf-8")
                return
            handler(self, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError, _Abort):
            self.close_connection = True
        finally:
            fake._release()

    def _reply_json(self, obj: Any) -> None:
        """Send ``obj`` as a 200 JSON body, honouring a pending malformed fault."""
        m = getattr(self, "_malformed", None)
        if m is not None:
            self._send_malformed(json.dumps(obj).encode("utf-8"), m.mode)
            return
        self._json(200, obj)

    def _send_malformed(self, good: bytes, mode: str) -> None:
        if mode == "truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(good)))
            self.end_headers()
            self.wfile.write(good[: max(1, len(good) // 2)])
            self.wfile.flush()
            self.close_connection = True
            raise _Abort()
        self._send(200, b'{"model": "broken", "message": {"content": "unterminated', "application/json")

    # ---------------------------------------------------------- metadata
    def r_root(self, body: dict[str, Any]) -> None:
        self._send(200, b"Ollama is running", "text/plain; charset=utf-8")

    def r_version(self, body: dict[str, Any]) -> None:
        self._reply_json({"version": OLLAMA_VERSION})

    def _model_entry(self, name: str) -> dict[str, Any]:
        emb = self.fake._is_embedding(name)
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {
            "name": name,
            "model": name,
            "modified_at": "2024-07-23T10:00:00.000000000Z",
            "size": 274302450 if emb else 4920753328,
            "digest": digest,
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "nomic-bert" if emb else "llama",
                "families": ["nomic-bert"] if emb else ["llama"],
                "parameter_size": "137M" if emb else "8.0B",
                "quantization_level": "F16" if emb else "Q4_K_M",
            },
        }

    def r_tags(self, body: dict[str, Any]) -> None:
        fake = self.fake
        names = [_canon(m) for m in fake.models if not fake._is_missing(m)]
        self._reply_json({"models": [self._model_entry(n) for n in names]})

    def r_ps(self, body: dict[str, Any]) -> None:
        self._reply_json({"models": []})

    def r_show(self, body: dict[str, Any]) -> None:
        fake = self.fake
        name = body.get("model") or body.get("name") or ""
        if not name or not fake._is_installed(name):
            self._error(404, f'model "{name}" not found, try pulling it first')
            return
        entry = self._model_entry(_canon(name))
        emb = fake._is_embedding(name)
        arch = "nomic-bert" if emb else "llama"
        info: dict[str, Any] = {
            "general.architecture": arch,
            "general.file_type": 1 if emb else 15,
            "general.parameter_count": 136727040 if emb else 8030261248,
            "general.quantization_version": 2,
            f"{arch}.context_length": 2048 if emb else 131072,
            f"{arch}.embedding_length": fake.embedding_dim if emb else 4096,
            f"{arch}.block_count": 12 if emb else 32,
            f"{arch}.attention.head_count": 12 if emb else 32,
        }
        if emb:
            info[f"{arch}.pooling_type"] = 1
        self._reply_json({
            "license": "fake license",
            "modelfile": f"# Modelfile generated by \"ollama show\"\nFROM {entry['name']}\n",
            "parameters": "" if emb else 'stop                           "<|eot_id|>"',
            "template": "{{ .Prompt }}",
            "details": entry["details"],
            "model_info": info,
            "capabilities": ["embedding"] if emb else ["completion", "tools"],
            "modified_at": entry["modified_at"],
        })

    def r_v1_models(self, body: dict[str, Any]) -> None:
        fake = self.fake
        data = [{"id": _canon(m) if ":" not in m else m, "object": "model", "created": 1721728800,
                 "owned_by": "library"} for m in fake.models if not fake._is_missing(m)]
        self._reply_json({"object": "list", "data": data})

    def r_v1_model(self, body: dict[str, Any]) -> None:
        name = self._path[len("/v1/models/"):]
        if not self.fake._is_installed(name):
            self._error(404, f'model "{name}" not found')
            return
        self._reply_json({"id": name, "object": "model", "created": 1721728800, "owned_by": "library"})

    # ---------------------------------------------------------- generation
    def _check_model(self, model: str | None) -> bool:
        if not model:
            self._error(400, "model is required")
            return False
        if self.fake._is_missing(model):
            self._error(404, f'model "{model}" not found, try pulling it first')
            return False
        return True

    def _text_reply(self, transcript: str) -> str:
        if _is_consolidate_request(transcript):
            reply = consolidate_reply(transcript, self.fake.consolidate_mode)
        elif _is_answer_request(transcript):
            reply = answer_reply(transcript)
        else:
            reply = distill_reply(transcript)
        if self.fake.think:
            n = len(_words(transcript))
            reply = f"<think>\nReading a transcript of {n} words; deciding what is worth keeping.\n</think>\n" + reply
        return reply

    def _native_reply(self, fmt: Any, prompt_text: str, full_prompt: str) -> str:
        """Content for /api/chat and /api/generate.

        ``prompt_text`` is the user's text (content source), ``full_prompt``
        everything the model sees (where a schema-in-prompt is looked for).
        """
        if isinstance(fmt, dict):
            return json.dumps(instance_for_schema(fmt, prompt_text))
        schema, _ = _schema_from_prompt(full_prompt)
        if schema is not None:
            return json.dumps(instance_for_schema(schema, prompt_text))
        if fmt == "json":
            return json.dumps({"response": distill_reply(prompt_text)})
        return self._text_reply(prompt_text)

    def _durations(self, prompt: str, reply: str) -> dict[str, Any]:
        pc, ec = _approx_tokens(prompt), _approx_tokens(reply)
        return {"total_duration": 1_000_000 * (pc + ec), "load_duration": 100_000,
                "prompt_eval_count": pc, "prompt_eval_duration": 500_000 * pc,
                "eval_count": ec, "eval_duration": 500_000 * ec}

    def _native_stream(self, model: str, pieces: list[str], final: dict[str, Any], key: str,
                       thinking: str | None = None) -> None:
        m = getattr(self, "_malformed", None)
        self._start_stream("application/x-ndjson")
        if thinking:
            if key == "message":
                first: dict[str, Any] = {"model": model, "created_at": _now_iso(), "done": False,
                                         "message": {"role": "assistant", "content": "", "thinking": thinking}}
            else:
                first = {"model": model, "created_at": _now_iso(), "response": "", "thinking": thinking,
                         "done": False}
            self._chunk(json.dumps(first).encode() + b"\n")
        for piece in pieces:
            if key == "message":
                obj: dict[str, Any] = {"model": model, "created_at": _now_iso(),
                                       "message": {"role": "assistant", "content": piece}, "done": False}
            else:
                obj = {"model": model, "created_at": _now_iso(), "response": piece, "done": False}
            line = json.dumps(obj).encode() + b"\n"
            if m is not None:
                self._chunk(line[: len(line) // 2] + b"\n")
                self._end_stream()
                return
            self._chunk(line)
        self._chunk(json.dumps(final).encode() + b"\n")
        self._end_stream()

    def r_chat(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        messages = body.get("messages") or []
        user = _user_text(messages)
        full = "\n\n".join(_content_text(m.get("content")) for m in messages)
        content = self._native_reply(body.get("format"), user, full)
        thinking, content = _split_think(content) if body.get("think") else (None, content)
        final: dict[str, Any] = {"model": model, "created_at": _now_iso(),
                                 "message": {"role": "assistant", "content": "" if body.get("stream", True) else content},
                                 "done_reason": "stop", "done": True, **self._durations(full, content)}
        self._native_finish(body, model, content, final, "message", thinking)

    def _native_finish(self, body: dict[str, Any], model: str, content: str, final: dict[str, Any], key: str,
                       thinking: str | None) -> None:
        """Stream ``content`` as NDJSON chunks under ``key`` (message | response), or send ``final`` as one body."""
        if not body.get("stream", True):
            if thinking:
                (final["message"] if key == "message" else final)["thinking"] = thinking
            self._reply_json(final)
        else:
            self._native_stream(model, _split_pieces(content), final, key, thinking)

    def r_generate(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        prompt = _content_text(body.get("prompt"))
        system = _content_text(body.get("system"))
        text_for_schema = prompt
        user = _strip_roles_prompt(prompt)
        if user is prompt:  # no litellm role headers: drop an embedded schema block
            user = _schema_from_prompt(prompt)[1]
        content = self._native_reply(body.get("format"), user, prompt + "\n" + system) if (prompt or system) else ""
        thinking, content = _split_think(content) if body.get("think") else (None, content)
        final = {"model": model, "created_at": _now_iso(), "response": "" if body.get("stream", True) else content,
                 "done": True, "done_reason": "stop" if content else "load",
                 "context": [1, 2, 3], **self._durations(text_for_schema, content)}
        self._native_finish(body, model, content, final, "response", thinking)

    # ------------------------------------------------------------ embedding
    def r_embed(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        inp = body.get("input")
        texts = [inp] if isinstance(inp, str) else list(inp or [])
        dim = self.fake.embedding_dim
        vecs = self.fake.embed_many([_content_text(t) for t in texts], dim)
        dims = body.get("dimensions")
        if isinstance(dims, int) and 0 < dims < dim:
            vecs = [_renorm(v[:dims]) for v in vecs]
        self._reply_json({"model": model, "embeddings": vecs, "total_duration": 1_000_000,
                          "load_duration": 10_000,
                          "prompt_eval_count": sum(_approx_tokens(_content_text(t)) for t in texts)})

    def r_embeddings_legacy(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        self._reply_json({"embedding": self.fake.embed_many([_content_text(body.get("prompt"))])[0]})

    def r_v1_embeddings(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        inp = body.get("input")
        texts = [inp] if isinstance(inp, str) else list(inp or [])
        dim = self.fake.embedding_dim
        dims = body.get("dimensions")
        data = []
        for i, vec in enumerate(self.fake.embed_many([_content_text(t) for t in texts], dim)):
            if isinstance(dims, int) and 0 < dims < dim:
                vec = _renorm(vec[:dims])
            emb: Any = vec
            if body.get("encoding_format") == "base64":
                emb = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
            data.append({"object": "embedding", "embedding": emb, "index": i})
        toks = sum(_approx_tokens(_content_text(t)) for t in texts)
        self._reply_json({"object": "list", "data": data, "model": model,
                          "usage": {"prompt_tokens": toks, "total_tokens": toks}})

    # ------------------------------------------------------ OpenAI chat
    def r_v1_chat(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not self._check_model(model):
            return
        messages = body.get("messages") or []
        turn: ScriptedTurn | None = None
        script = self.fake.chat_script
        if script is not None:
            turn = script(body)
        if turn is None:
            turn = self._default_turn(body)
        if body.get("stream"):
            self._sse(model, body, turn)
        else:
            self._reply_json(self._completion_body(model, body, turn))
        del messages

    def _default_turn(self, body: dict[str, Any]) -> ScriptedTurn:
        messages = body.get("messages") or []
        user = _user_text(messages)
        full = "\n\n".join(_content_text(m.get("content")) for m in messages)
        rf = body.get("response_format") or {}
        if isinstance(rf, dict) and rf.get("type") == "json_schema":
            schema = (rf.get("json_schema") or {}).get("schema") or {}
            return ScriptedTurn(text=json.dumps(instance_for_schema(schema, user)))
        tc = body.get("tool_choice")
        forced = None
        if isinstance(tc, dict):
            forced = (tc.get("function") or {}).get("name")
        elif tc == "required" and len(body.get("tools") or []) == 1:
            forced = body["tools"][0]["function"]["name"]
        if forced:
            for tool in body.get("tools") or []:
                fn = tool.get("function") or {}
                if fn.get("name") == forced:
                    args = instance_for_schema(fn.get("parameters") or {"type": "object"}, user)
                    return ScriptedTurn(tool_calls=[ScriptedToolCall(name=forced, arguments=args)])
        schema, before = _schema_from_prompt(full)
        if schema is not None:
            return ScriptedTurn(text=json.dumps(instance_for_schema(schema, _user_text(messages) or before)))
        if isinstance(rf, dict) and rf.get("type") == "json_object":
            return ScriptedTurn(text=json.dumps({"response": distill_reply(user)}))
        return ScriptedTurn(text=self._text_reply(user))

    @staticmethod
    def _call_ids(body: dict[str, Any], turn: ScriptedTurn) -> list[str]:
        seed = json.dumps(body.get("messages") or [], sort_keys=True, default=str)
        ids = []
        for i, call in enumerate(turn.tool_calls):
            if call.id:
                ids.append(call.id)
            else:
                h = hashlib.sha1(f"{seed}|{i}|{call.name}".encode()).hexdigest()[:24]
                ids.append(f"call_{h}")
        return ids

    def _usage(self, body: dict[str, Any], turn: ScriptedTurn) -> dict[str, int]:
        prompt = "\n".join(_content_text(m.get("content")) for m in body.get("messages") or [])
        comp = turn.text + turn.reasoning + "".join(json.dumps(c.arguments) for c in turn.tool_calls)
        pt, ct = _approx_tokens(prompt), _approx_tokens(comp) if comp else 0
        return {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}

    def _completion_body(self, model: str, body: dict[str, Any], turn: ScriptedTurn) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.reasoning:
            msg["reasoning_content"] = turn.reasoning
        finish = "stop"
        if turn.tool_calls:
            ids = self._call_ids(body, turn)
            msg["tool_calls"] = [
                {"id": ids[i], "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for i, c in enumerate(turn.tool_calls)
            ]
            finish = "tool_calls"
        return {
            "id": "chatcmpl-" + hashlib.sha1(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:12],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_ollama",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
            "usage": self._usage(body, turn),
        }

    def _sse(self, model: str, body: dict[str, Any], turn: ScriptedTurn) -> None:
        m = getattr(self, "_malformed", None)
        cid = "chatcmpl-" + hashlib.sha1(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:12]
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "system_fingerprint": "fp_ollama",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        events: list[dict[str, Any]] = []
        first = True
        for piece in _split_pieces(turn.reasoning) if turn.reasoning else []:
            d: dict[str, Any] = {"reasoning_content": piece}
            if first:
                d = {"role": "assistant", "content": "", **d}
                first = False
            events.append(chunk(d))
        for piece in _split_pieces(turn.text) if turn.text else []:
            d = {"content": piece}
            if first:
                d = {"role": "assistant", **d}
                first = False
            events.append(chunk(d))
        if turn.tool_calls:
            ids = self._call_ids(body, turn)
            for i, call in enumerate(turn.tool_calls):
                d = {"tool_calls": [{"index": i, "id": ids[i], "type": "function",
                                     "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}]}
                if first:
                    d = {"role": "assistant", "content": None, **d}
                    first = False
                events.append(chunk(d))
        if first:
            events.append(chunk({"role": "assistant", "content": ""}))
        events.append(chunk({}, "tool_calls" if turn.tool_calls else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                           "system_fingerprint": "fp_ollama", "choices": [], "usage": self._usage(body, turn)})
        self._start_stream("text/event-stream")
        for ev in events:
            data = b"data: " + json.dumps(ev).encode() + b"\n\n"
            if m is not None:
                self._chunk(data[: len(data) // 2] + b"\n\n")
                self._end_stream()
                return
            self._chunk(data)
        self._chunk(b"data: [DONE]\n\n")
        self._end_stream()


def _split_think(content: str) -> tuple[str | None, str]:
    """Real Ollama with ``think: true`` returns reasoning in a separate
    ``thinking`` field; move a leading ``<think>…</think>`` block there."""
    m = re.match(r"\s*<think>(.*?)</think>\s*", content, re.DOTALL)
    if not m:
        return None, content
    return m.group(1).strip(), content[m.end():]


def _renorm(v: list[float]) -> list[float]:
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def _split_pieces(text: str, n: int = 4) -> list[str]:
    """Split ``text`` into at most ``n`` consecutive pieces at word boundaries."""
    if not text:
        return [""]
    tokens = re.findall(r"\S+\s*|\s+", text)
    if len(tokens) <= 1:
        return [text]
    size = max(1, math.ceil(len(tokens) / n))
    return ["".join(tokens[i : i + size]) for i in range(0, len(tokens), size)]


_ROUTES: dict[tuple[str, str], Callable[[_Handler, dict[str, Any]], None]] = {
    ("GET", "/"): _Handler.r_root,
    ("GET", "/api/version"): _Handler.r_version,
    ("GET", "/api/tags"): _Handler.r_tags,
    ("GET", "/api/ps"): _Handler.r_ps,
    ("POST", "/api/show"): _Handler.r_show,
    ("POST", "/api/chat"): _Handler.r_chat,
    ("POST", "/api/generate"): _Handler.r_generate,
    ("POST", "/api/embed"): _Handler.r_embed,
    ("POST", "/api/embeddings"): _Handler.r_embeddings_legacy,
    ("GET", "/v1/models"): _Handler.r_v1_models,
    ("POST", "/v1/chat/completions"): _Handler.r_v1_chat,
    ("POST", "/v1/embeddings"): _Handler.r_v1_embeddings,
    ("POST", "/v1/messages"): anthropic_messages.r_messages,  # Anthropic Messages API (Claude Code)
    ("POST", "/v1/messages/count_tokens"): anthropic_messages.r_count_tokens,

    ("POST", "/v1/responses"): r_v1_responses,  # Codex CLI (tests/fakes/openai_responses.py)
}


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def _load_script(spec: str) -> ChatScript:
    mod, _, attr = spec.partition(":")
    if not attr:
        raise SystemExit("--chat-script must be MODULE:CALLABLE")
    obj = getattr(importlib.import_module(mod), attr)
    return obj


def main(argv: list[str] | None = None) -> int:
    """Run the fake server in the foreground until SIGINT/SIGTERM."""
    ap = argparse.ArgumentParser(prog="python -m tests.fakes.ollama_server", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=11434)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds slept per request")
    ap.add_argument("--max-concurrency", type=int, default=None)
    ap.add_argument("--think", action="store_true", help="wrap distill replies in <think>…</think>")
    ap.add_argument("--embedding-dim", type=int, default=768)
    ap.add_argument("--embedder", default="concepts", choices=EMBEDDERS,
                    help="concepts: hashed words and concept groups (plumbing); wordllama: real l2_supercat "
                         "weights at 256 dimensions (quality figures)")
    ap.add_argument("--model", action="append", default=None, help="installed model name (repeatable)")
    ap.add_argument("--missing-model", action="append", default=[], help="model reported as not found")
    ap.add_argument("--allow-v1-api", action="store_true", help="serve /v1/api/<x> as /api/<x>")
    ap.add_argument("--chat-script", default=None, help="MODULE:CALLABLE chat script for /v1/chat/completions")
    ap.add_argument("--consolidate-reply", default="merge", choices=CONSOLIDATE_MODES,
                    help="how the consolidation prompt is answered (lossy modes play a bad model)")
    args = ap.parse_args(argv)
    fake = FakeOllama(
        args.port,
        chat_script=_load_script(args.chat_script) if args.chat_script else None,
        models=args.model or DEFAULT_MODELS,
        embedding_dim=args.embedding_dim,
        latency_s=args.latency,
        max_concurrency=args.max_concurrency,
        think=args.think,
        missing_models=args.missing_model,
        allow_v1_api=args.allow_v1_api,
        consolidate_mode=args.consolidate_reply,
        embedder=args.embedder,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    fake.start()
    print(f"listening on {fake.url}", flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
