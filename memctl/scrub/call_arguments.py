"""Secrets passed by position to SDK clients, crypto primitives, test drivers and CLIs.

No key name stands next to these values: the call says which argument is the secret.
Each entry of :data:`CALLS` names a call (the text just before its ``(``) and the index of
the secret argument, as the library documents its signature:

* crypto keys: Python ``hmac.new(key, …)``, ``AES.new(key, …)`` (PyCryptodome, also DES3,
  ChaCha20, Blowfish), ``Fernet(key)``, ``AESGCM(key)``, ``ChaCha20Poly1305(key)``; Node
  ``crypto.createCipheriv(alg, key, iv)``/``createDecipheriv``, ``crypto.createHmac(alg, key)``;
  CryptoJS ``AES.encrypt(data, key)``/``HmacSHA256(msg, key)``; Ruby ``OpenSSL::HMAC.hexdigest(alg, key, data)``;
  Java ``new SecretKeySpec("…".getBytes(), alg)``; Go ``hmac.New(hash, []byte("…"))``;
* signing secrets: ``jwt.sign(payload, secret)``/``jwt.verify(token, secret)`` (jsonwebtoken),
  ``jwt.encode(payload, secret)``/``jwt.decode(token, secret)`` (PyJWT), Go ``SignedString([]byte("…"))``;
* wallet keys: ethers ``new Wallet(key)``, web3 ``Account.from_key(key)``/``privateKeyToAccount(key)``,
  Solana ``Keypair.from_base58_string(key)``;
* one-time-password seeds: ``pyotp.TOTP(seed)``/``HOTP``, otplib ``authenticator.generate(seed)``;
* SDK clients: ``cohere.Client(key)``/``ClientV2``, PyGithub ``Github(token)``, Algolia
  ``SearchClient.create(app_id, key)``/``algoliasearch(app_id, key)``, Twilio ``Client(sid, token)``
  and ``twilio(sid, token)`` (only when the first argument is an ``AC`` account SID);
* LDAP binds ``simple_bind_s(dn, pw)``/``simple_bind``/``bind_s``, PHP ``ldap_bind(conn, dn, pw)``;
* test drivers typing into a password field: Playwright/Puppeteer ``page.fill(sel, value)``/
  ``page.type(sel, value)``, Cypress ``cy.get(sel).type(value)``, Selenium ``….send_keys(value)``,
  when the selector names a password field;
* builder and fluent setters: ``.password("…")``, ``.apiKey("…")``, ``.secret("…")``, ``.token("…")``…;
* defaults of environment lookups under a credential name: Ruby ``ENV.fetch('NAME', '…')``,
  Python ``os.getenv('NAME', '…')``/``os.environ.get('NAME', '…')``, Laravel ``env('NAME', '…')``.

CLIs that take a token as their first positional argument (each command's reference page):
``snyk auth TOKEN``, ``wandb login KEY``, ``ngrok authtoken TOKEN``/``ngrok config add-authtoken``,
``cachix authtoken``, ``zrok enable``, ``huggingface-cli login --token`` is a flag (elsewhere).

Only a string literal is reported (quotes with an optional ``b``/``r``/``u`` prefix, or a
``[]byte("…")``/``"…".getBytes()`` wrapper); a variable, a call or a placeholder stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.context_names import credential_word_kind
from memctl.scrub.declarations import plain_words
from memctl.scrub.detector import Detector, Span, detector, is_placeholder, looks_random

__all__ = ["CALLS", "CALL_ARGUMENT_DETECTORS", "call_arguments"]

# call text before "(" (case-sensitive) -> (secret argument index, condition)
#   condition: "any" any literal; "random" a credential-shaped literal; "twilio" first arg is an AC SID;
#   "password_field" the first argument names a password field; "env_name" the first argument is a credential name.
CALLS: dict[str, tuple[int, str]] = {
    "hmac.new": (0, "any"), "hmac.New": (1, "any"), "HMAC.new": (0, "any"), "AES.new": (0, "any"),
    "DES3.new": (0, "any"), "DES.new": (0, "any"), "ChaCha20.new": (0, "any"), "Blowfish.new": (0, "any"),
    "Fernet": (0, "any"), "AESGCM": (0, "any"), "ChaCha20Poly1305": (0, "any"),
    "createCipheriv": (1, "any"), "createDecipheriv": (1, "any"), "createHmac": (1, "any"),
    "AES.encrypt": (1, "any"), "AES.decrypt": (1, "any"), "HmacSHA256": (1, "any"), "HmacSHA512": (1, "any"),
    "HmacSHA1": (1, "any"), "HMAC.hexdigest": (1, "any"), "HMAC.digest": (1, "any"),
    "SecretKeySpec": (0, "any"), "SignedString": (0, "any"), "NewCipher": (0, "any"), "algorithms.AES": (0, "any"),
    "algorithms.ChaCha20": (0, "any"), "TOTP": (0, "random"), "HOTP": (0, "random"),
    "jwt.sign": (1, "any"), "jwt.verify": (1, "any"), "jwt.encode": (1, "any"), "jwt.decode": (1, "any"),
    "JWT.encode": (1, "any"), "JWT.decode": (1, "any"),
    "Wallet": (0, "random"), "from_key": (0, "random"), "privateKeyToAccount": (0, "random"),
    "from_base58_string": (0, "random"), "fromSecretKey": (0, "random"),
    "pyotp.TOTP": (0, "any"), "pyotp.HOTP": (0, "any"), "authenticator.generate": (0, "random"),
    "totp.generate": (0, "random"),
    "cohere.Client": (0, "random"), "cohere.ClientV2": (0, "random"), "Github": (0, "random"),
    "SearchClient.create": (1, "random"), "Client.create": (1, "random"), "algoliasearch": (1, "random"), "searchClient": (1, "random"),
    "Client": (1, "twilio"), "twilio": (1, "twilio"), "Twilio": (1, "twilio"),
    "simple_bind_s": (1, "any"), "simple_bind": (1, "any"), "bind_s": (1, "any"), "ldap_bind": (2, "any"),
    "page.fill": (1, "password_field"), "page.type": (1, "password_field"), "locator.fill": (1, "password_field"),
    ".type": (0, "password_field"), ".fill": (0, "password_field"), ".send_keys": (0, "password_field"), ".sendKeys": (0, "password_field"),
    ".password": (0, "any"), ".passwd": (0, "any"), ".apiKey": (0, "random"), ".api_key": (0, "random"),
    ".secret": (0, "random"), ".secretKey": (0, "random"), ".token": (0, "random"), ".authToken": (0, "random"),
    ".accessToken": (0, "random"), ".clientSecret": (0, "random"),
    "ENV.fetch": (1, "env_name"), "os.getenv": (1, "env_name"), "os.environ.get": (1, "env_name"),
    "env": (1, "env_name"), "getenv": (1, "env_name"),
}
# Gate literal per call: its last name segment and "(", lower case (``new(``, ``fill(``); a call's
# qualifier is then read backwards from the hit, so no regex scans the whole text.
_CALL_GATES: dict[str, tuple[str, ...]] = {}
for _name in CALLS:
    _segment = _name.rsplit(".", 1)[-1]
    _CALL_GATES[_segment.lower() + "("] = (*_CALL_GATES.get(_segment.lower() + "(", ()), _segment)
_QUALIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.:\\")
_LITERAL = re.compile(
    r"""[ \t\r\n]*(?:\[\]byte\()?(?:[bBrRuU]{1,2})?(?P<q>["'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n\x00]){1,400})(?P=q)"""
)
_TWILIO_SID = re.compile(r"""[ \t]*(?:[bu]?["'])?AC[0-9a-f]{32}""")
_PASSWORD_FIELD = re.compile(r"pass|pwd|secret|pin\b|otp", re.IGNORECASE)
_CLIS = re.compile(
    r"(?:^|[\s;&|(`$\x00])(?:snyk[ \t]+auth|snyk[ \t]+config[ \t]+set[ \t]+api=|wandb[ \t]+login(?:[ \t]+--relogin)?|ngrok[ \t]+authtoken"
    r"|ngrok[ \t]+config[ \t]+add-authtoken|cachix[ \t]+authtoken|zrok[ \t]+enable)(?:(?<==)|[ \t]+)"
    r"(?P<q>[\"']?)(?P<value>[^\s\"'\x00]{16,200})(?P=q)"
)
_CLI_GATES = ("snyk", "wandb", "ngrok", "cachix", "zrok")
_GATES = tuple(sorted({*_CALL_GATES, *_CLI_GATES}))


_TOKEN = re.compile(r"""\\.|["'`()\[\]{},\n\x00]""")
_WINDOW = 600


def _arguments(text: str, pos: int, limit: int = 6) -> list[tuple[int, int]]:
    """Spans of up to ``limit`` top-level arguments of the call whose ``(`` ends at ``pos`` (within
    :data:`_WINDOW` characters: a call longer than that is cut there)."""
    spans: list[tuple[int, int]] = []
    depth, start, quote = 0, pos, ""
    end = min(len(text), pos + _WINDOW)
    for token in _TOKEN.finditer(text, pos, end):
        c = token.group(0)
        if quote:
            if c == quote:
                quote = ""
            elif c in "\n\x00" and quote != "`":
                break  # an unclosed string: not a call we can read
            continue
        if c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
            if depth > 4:
                break  # calls nested this deep are not an SDK's setup call
        elif c in ")]}":
            if depth == 0:
                spans.append((start, token.start()))
                return spans
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((start, token.start()))
            if len(spans) >= limit:
                return spans
            start = token.end()
        elif c == "\x00":
            break
    spans.append((start, end))  # a call cut at the window or the end of the text
    return spans


def _literal(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    match = _LITERAL.match(text, span[0], span[1])
    if match is None or text[match.end() : span[1]].strip() not in {"", ".getBytes()", ")", ".encode()"}:
        return None
    return match.span("value")


_KEYWORD_ARGUMENT = re.compile(r"[ \t\r\n]*(?:key|secret|secret_key|password|passphrase|signing_key)[ \t]*=[ \t]*(?![=])")


def _keyword_literal(text: str, pos: int) -> tuple[int, int] | None:
    """The literal of a ``key=``/``secret=``/``password=`` argument of the call opened at ``pos``."""
    for span in _arguments(text, pos, limit=8):
        keyword = _KEYWORD_ARGUMENT.match(text, span[0], span[1])
        if keyword is not None:
            return _literal(text, (keyword.end(), span[1]))
    return None


def _accepted(value: str, condition: str) -> bool:
    if len(value) < 4 or is_placeholder(value) or "{" in value and "}" in value:
        return False
    if condition == "env_name" and plain_words(value):
        return False  # os.environ.get("X_KEY", "test_key"): a word default, not a secret
    if condition == "random":
        return looks_random(value, min_len=16) or (len(value) >= 16 and any(c.isdigit() for c in value))
    return True


def _call_key(qualified: str) -> str | None:
    """The longest entry of :data:`CALLS` that ``qualified`` (``cohere.Client``, ``.password``) ends with."""
    parts = qualified.replace("::", ".").replace("\\", ".").lstrip(".").split(".")
    for index in range(len(parts)):
        suffix = ".".join(parts[index:])
        if suffix in CALLS:
            return suffix
    last = "." + parts[-1]
    return last if last in CALLS and (len(parts) > 1 or qualified.startswith(".")) else None


def _call_sites(text: str, lowered: str, gates: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """``(qualifier start, position after "(", key)`` of each call in :data:`CALLS` whose gate is present."""
    for gate in gates:
        segments = _CALL_GATES.get(gate)
        if segments is None:
            continue
        pos = lowered.find(gate)
        while pos != -1:
            paren = pos + len(gate) - 1
            if text[pos:paren] in segments:  # case-sensitive: ``Client(``, not ``client(``
                start = pos
                while start > 0 and pos - start < 80 and text[start - 1] in _QUALIFIER_CHARS:
                    start -= 1
                key = _call_key(text[start:paren])
                if key is not None:
                    yield start, paren + 1, key
            pos = lowered.find(gate, paren + 1)


def call_arguments(text: str, lowered: str | None = None, gates: frozenset[str] | None = None) -> Iterator[Span]:
    """Yield ``(start, end, "secret")`` for each literal secret argument of a call in :data:`CALLS`
    (``lowered``: ``text.lower()`` of the same length; ``gates``: the call gates present, all when None)."""
    if lowered is None or len(lowered) != len(text):
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    for call_start, call_end, key in _call_sites(text, lowered, frozenset(_CALL_GATES) if gates is None else gates):
        index, condition = CALLS[key]
        if condition == "twilio" and not _TWILIO_SID.match(text, call_end):
            continue  # cheap test first: only an AC account SID makes ``Client(…)`` Twilio's
        arguments = _arguments(text, call_end, limit=index + 1)
        if condition == "password_field":
            selector = text[max(0, call_start - 120) : arguments[0][1] if arguments else call_end]
            if index == 0:
                selector = text[max(0, call_start - 120) : call_start].rsplit("\n", 1)[-1]
            if not _PASSWORD_FIELD.search(selector):
                continue
        if condition == "env_name":
            name_span = _literal(text, arguments[0]) if arguments else None
            if name_span is None or credential_word_kind(text[name_span[0] : name_span[1]]) is None:
                continue
        value_span = _literal(text, arguments[index]) if len(arguments) > index else None
        if value_span is None and condition == "any":
            value_span = _keyword_literal(text, call_end)
        if value_span is None:
            continue
        if _accepted(text[value_span[0] : value_span[1]], condition):
            yield value_span[0], value_span[1], "password" if condition == "password_field" else "secret"


def _call_argument_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    present = gates.intersection(_CALL_GATES)
    if present:
        yield from call_arguments(text, lowered, present)
    if not gates.isdisjoint(_CLI_GATES):
        for match in _CLIS.finditer(text):
            value = match.group("value")
            if not is_placeholder(value) and (looks_random(value) or any(c.isdigit() for c in value)):
                yield match.start("value"), match.end("value"), "secret"


CALL_ARGUMENT_DETECTORS: tuple[Detector, ...] = (
    detector(
        "secret",
        finder=_call_argument_spans,
        literals=_GATES,
        requires=_GATES,
        origin="memctl: positional secret arguments of SDK, crypto and CLI calls (see memctl.scrub.call_arguments)",
    ),
)
"""One finder for :data:`CALLS` and the token-taking CLIs."""
