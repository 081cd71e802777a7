"""Controls turned off, written as data: settings, environment variables, CI diffs, tool output, test expectations.

A rule need not be a sentence. ``NODE_TLS_REJECT_UNAUTHORIZED=0``, ``require_review = false``, a CI diff that
replaces ``pytest`` by ``echo skipped`` or a pasted ``{"message": "Branch not protected"}`` carry no verb the
directive rules read, yet a memory holding one tells the agent that the control is off. :func:`weakened_control_reasons`
names each such property (reason codes ``weakened:<kind>``); the action classifier
(:func:`memctl.validator.action.classify_action`) adds them, so an agent's proposal that has one is held for a
person (never rejected: a person may approve it):

* ``weakened:env`` — an environment variable or tool setting whose documented meaning disables verification:
  ``NODE_TLS_REJECT_UNAUTHORIZED=0`` (Node.js CLI docs), ``GIT_SSL_NO_VERIFY`` set and ``http.sslVerify``
  false (git-config(1)), ``PYTHONHTTPSVERIFY=0`` (PEP 493), ``CURL_CA_BUNDLE`` or ``REQUESTS_CA_BUNDLE`` set
  empty (requests docs), npm/yarn ``strict-ssl`` false (npm config docs), ``--trusted-host`` /
  ``PIP_TRUSTED_HOST`` (pip docs), ``GOINSECURE``, ``GONOSUMDB``, ``GONOSUMCHECK``, ``GOSUMDB=off``,
  ``GOFLAGS=-insecure`` (``go help environment``), ``VAULT_SKIP_VERIFY``, ``DOCKER_CONTENT_TRUST=0``,
  ``ANSIBLE_HOST_KEY_CHECKING=false``, ``StrictHostKeyChecking=no``, ``insecure-skip-tls-verify``,
  ``--no-check-certificate``, ``--no-verify-ssl``, composer ``secure-http``/``disable-tls``;
* ``weakened:setting`` — a TOML/YAML/INI/JSON key about review, approval, protection, signing, verification,
  tests or status checks set to a weakening value: a key that turns a control on (``require_review``,
  ``enforce_admins``, ``verify_ssl``, ``run_tests``) set to false/no/off/none/empty, a count of required
  reviews or approvals set to 0, such a key holding ``{"enabled": false}``, or a key that lets a control be skipped (``allow_force_push``,
  ``skip_tests``, ``disable_signing``, ``insecure``, ``bypass_review``) set to true/yes/on;
* ``weakened:ci_noop`` — a diff that removes a test command and adds one without it (``- run: pytest`` /
  ``+ run: echo skipped``), a test command whose failure is swallowed (``pytest || true``,
  ``continue-on-error: true``, ``if: false`` or ``when: never`` beside a test step), a test stage or step commented out
  (a ``#`` before a list item, a ``run:``/``stage:`` key or a test command; a markdown heading is not one), a test target whose
  recipe is ``true``, ``:`` or ``echo``;
* ``weakened:absent_control`` — text (tool output or prose) that states a protection absent: "branch not
  protected", ``"protected": false``, "protection: none", "required reviews: 0";
* ``weakened:accepts_invalid`` — a test expectation that accepts an expired, invalid, revoked, forged or
  self-signed credential ("asserts that an expired token returns 200");
* ``weakened:self_update`` — a tool that updates itself, or is fetched, from a moving channel (nightly,
  latest, canary, edge, HEAD) on each run or start;
* ``weakened:workspace`` — an agent's working area, sandbox or allowed paths widened to the whole home
  directory or the filesystem root;
* ``weakened:waiver`` — prose that removes a control (:mod:`memctl.validator.control_waiver`).

Protections that are on ("push protection is enabled", ``enforce_admins: true``, ``required_approving_review_count: 2``),
``--force-with-lease``, ``ignore_missing_imports = true`` (no control noun) and "disable the screensaver" have
none of these properties. Deterministic, no model; never raises on a ``str``.
"""

from __future__ import annotations

import re
import unicodedata

from memctl.validator.confusables import fold_confusables
from memctl.validator.control_waiver import waiver_reasons

__all__ = ["weakened_control_reasons"]

_OFF = r"(?:0|false|no|off|none|null|disabled?|\"\"|''|)"
_ON = r"(?:1|true|yes|on|enabled?|\*|[\w.*-]+)"
_SEP = r"\s*(?:=|:|\s)\s*[\"']?"
_ENV = re.compile(
    r"node_tls_reject_unauthorized" + _SEP + r"0\b"
    r"|git_ssl_no_verify" + _SEP + r"(?!0\b|false\b|no\b)\w"
    r"|(?:http\.)?sslverify" + _SEP + r"(?:false|no|off|0)\b"
    r"|pythonhttpsverify" + _SEP + r"0\b"
    r"|(?:curl|requests|aws)_ca_bundle\s*=\s*(?:[\"']{2}|$|\s|;|,|\))"
    r"|strict[-_]ssl" + _SEP + r"(?:false|no|off|0)\b"
    r"|--trusted-host\b|pip_trusted_host\s*=|trusted-host\s*="
    r"|\bgoinsecure\s*=\s*\S|\bgonosumdb\s*=\s*\S|\bgonosumcheck\s*=\s*\S|\bgosumdb\s*=\s*[\"']?off\b"
    r"|goflags\s*=\s*[\"']?[^\n]*-insecure\b"
    r"|vault_skip_verify\s*=\s*[\"']?(?:1|true|yes)\b|docker_content_trust\s*=\s*[\"']?0\b"
    r"|host_key_checking\s*=\s*[\"']?(?:false|no|0)\b|stricthostkeychecking\s*[= ]\s*no\b"
    r"|insecure[-_]skip[-_]tls[-_]verify(?:\s*[=:]\s*true|\b(?!\s*[=:]))|--no-check-certificate\b|--no-verify-ssl\b"
    r"|secure-http" + _SEP + r"(?:false|0)\b|disable-tls" + _SEP + r"(?:true|1)\b"
    r"|ssl[-_]?mode\s*[=:]\s*[\"']?disable", re.MULTILINE)

# A settings key and its value (TOML/INI "k = v", YAML "k: v", JSON "\"k\": v", "git config k v")
_KEY_VALUE = re.compile(r"[\"'`]?(?P<key>[a-z][a-z0-9_.-]{2,60})[\"'`]?[ \t]*(?:=|:|[ \t](?:is|are|set to)[ \t]|[ \t](?=[\"']?(?:true|false|0)\b))"
                        r"[ \t]*(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;}\]#`]*)")
_CONTROL_PART = re.compile(r"review|approv|protect|sign|verif|ssl|tls|cert|test|check|enforce|admins|scan|gpg|mfa|safe"
                           r"|2fa|codeowner|lint|audit|hash")
_LOOSENER = re.compile(r"(?:^|[_.-])(?:allow|auto|skip|disable|no|bypass|insecure|ignore|permit|unsafe)(?:[_.-]|$)|^insecure$")
_DANGER = re.compile(r"force[_-]?push|deletions?|review|approv|sign|verif|ssl|tls|cert|test|check|hook|protect|scan"
                     r"|lint|audit|hash|insecure|unsigned|unverified|unsafe")
_COUNT_KEY = re.compile(r"count|min|number|required")
_NOT_A_CONTROL = re.compile(r"update|timeout|retr|cache|color|colour|verbose|parallel|interval|imports|port\b|pattern")
_FALSE = frozenset({"false", "no", "off", "none", "null", "disabled", "disable", "n", "''", '""', "[]", "{}"})
_TRUE = frozenset({"true", "yes", "on", "enabled", "enable", "1", "y", "always", "all"})

_TEST_CMD = r"(?:pytest|py\.test|tox|nox|npm (?:run )?test|yarn test|pnpm test|go test|cargo test|mvn (?:\S+ )*test|gradlew? test|make (?:test|check)|jest|vitest|mocha|rspec|phpunit|ctest|unittest|bundle exec rake|dotnet test)"
_CI_NOOP = re.compile(
    r"(?:" + _TEST_CMD + r")[^\n]*(?:\|\|\s*(?:true|:|exit 0|echo)|;\s*(?:true|exit 0)\s*$)"
    # a commented-out list item or step (not a markdown heading: "# Testing notes" has neither "-" nor "key:")
    r"|^[ \t]*#[ \t]*(?:-[ \t]*|(?:run|script|name|stage|stages|job|step)[ \t]*:[ \t]*)[^\n]*\b(?:test|tests|unit-tests|integration-tests|" + _TEST_CMD + r")\b"
    r"|^[ \t]*#[ \t]*" + _TEST_CMD + r"\b[^\n]*$"
    r"|^[ \t]*(?:test|tests|check)[ \t]*:[^\n]*\n\t@?(?:true|:|echo\b|exit 0)"
    r"|(?:test|tests|pytest|unit)\b[^\n]{0,40}(?:continue-on-error|allow[_ ]failure|\bif\W{0,3}:\W{0,3}false|\bwhen\W{0,3}:\W{0,3}never)"
    r"|(?:continue-on-error|allow[_ ]failure)[^\n]{0,40}\btests?\b"
    r"|(?:test|tests|pytest|unit)[^\n]{0,60}\n(?:[^\n]*\n){0,3}?[ \t]*(?:continue-on-error[ \t]*:[ \t]*true|allow_failure[ \t]*:[ \t]*true|if[ \t]*:[ \t]*false|when[ \t]*:[ \t]*never)",
    re.MULTILINE)
_DIFF_REMOVED_TEST = re.compile(r"^-[ \t]*[^\n]*" + _TEST_CMD, re.MULTILINE)
_DIFF_ADDED = re.compile(r"^\+[ \t]*([^\n]*)$", re.MULTILINE)
_ABSENT = re.compile(
    r"\b(?:not|un)[ -]?protected\b|\bno (?:branch |tag )?protection\b|\"?protected\"?\s*:\s*false\b"
    r"|\bprotection(?: rules?)?\"?\s*[:=]\s*\"?(?:none|off|disabled|false|null|\[\]|\{\})"
    r"|\b(?:required[ _]?(?:reviews?|approvals?|approving[ _]review[ _]count|signatures?|status[ _]checks?)|reviews? required"
    r"|approvals? required)\"?\s*[:=]\s*\"?(?:0|none|false|off|disabled)\b"
    r"|\b(?:signature|signing|verification|mfa|2fa) (?:verification )?(?:status ?)?[:=] ?(?:none|off|disabled|false|absent)\b")
_INVALID_CRED = r"(?:expired|invalid|revoked|forged|tampered|self-signed|unsigned|bad|wrong|malformed|stale)[ -](?:\w+[ -])?(?:tokens?|certs?|certificates?|credentials?|signatures?|passwords?|keys?|jwts?|sessions?|otps?|codes?)"
_ACCEPTS = re.compile(
    _INVALID_CRED + r"[^.\n;]{0,60}?\b(?:(?:is|are|be|get|gets) )?(?:accepted|accepts?|allowed|pass(?:es)?|succeeds?|valid|authori[sz]ed|200\b|ok\b|works)"
    r"|(?:accepts?|allows?|expects?[^.\n]{0,20}(?:to be )?accepted)[^.\n;]{0,30}" + _INVALID_CRED)
_NEGATED_ACCEPT = re.compile(r"\b(?:not|never|no longer|isn't|aren't|rejected|rejects?|refused|fails?|401|403)\b")
_MOVING = r"(?:nightly|latest|canary|edge|unstable|bleeding[- ]edge|head\b|tip of (?:main|master)|main branch|master branch)"
_SELF_UPDATE = re.compile(
    r"(?:updates?|upgrades?|re-?installs?|pulls?|fetch(?:es)?|downloads?)\s[^.\n]{0,40}(?:itself|its own\b)[^.\n]{0,60}" + _MOVING
    + r"|(?:updates?|upgrades?|re-?installs?|pulls?|fetch(?:es)?|downloads?)\s[^.\n]{0,20}" + _MOVING + r"[^.\n]{0,30}(?:itself|its own\b)"
    + r"|(?:self[- ]?updat\w*|auto[- _]?updat\w*|auto[- _]?upgrad\w*)[^.\n]{0,60}" + _MOVING
    + r"|" + _MOVING + r"[^.\n]{0,60}(?:self[- ]?updat\w*|auto[- _]?updat\w*|updates? itself)"
    r"|(?:updates?|upgrades?|pulls?|fetch(?:es)?|downloads?|installs?)\s(?:\w+\s){0,3}(?:from\s(?:the\s)?)?" + _MOVING
    + r"[^.\n]{0,40}\b(?:on |at )?(?:each|every) (?:run|start|launch|invocation|call|use|build)")
_WORKSPACE = re.compile(
    r"(?:working[ _-](?:directory|dir|area|folder|tree|root)|workspace|work[ _-]area|sandbox|allowed[ _-]?(?:paths?|dirs?|directories|roots?)"
    r"|writable[ _-]?(?:paths?|dirs?|roots?)|(?:file ?system|fs|file) access|mount(?:ed|s)?|scope|root(?:_dir)?|cwd)"
    r"[^.\n]{0,40}?(?:(?:whole|entire|full|all of (?:the |my |your )?)\s?(?:home|~|\$home|file ?system|disk|drive|machine)"
    r"|(?:\bis\b|\bto\b|\bat\b|\bas\b|=|:)\s*[\[\"'(]*(?:~/?|\$\{?home\}?/?|/|c:\\\\?)[\"')\]]*(?=[\s,.;)\]]|$))", re.MULTILINE)


def _text(text: str) -> str:
    return unicodedata.normalize("NFKC", fold_confusables(text)).casefold()


# JSON/YAML where the control key holds an object: "enforce_admins": {"enabled": false}
_NESTED = re.compile(r"[\"']?(?P<key>[a-z][a-z0-9_.-]{2,60})[\"']?\s*:\s*\{\s*[\"']?(?:enabled|value|enforced|required|active)[\"']?"
                     r"\s*:\s*[\"']?(?:false|0|no|off)\b")


def _setting(text: str) -> bool:
    if any(_CONTROL_PART.search(m.group("key")) and not _LOOSENER.search(m.group("key")) for m in _NESTED.finditer(text)):
        return True
    for match in _KEY_VALUE.finditer(text):
        key, value = match.group("key"), match.group("value").strip("\"' ").rstrip(".,:)")
        if _NOT_A_CONTROL.search(key) or not _CONTROL_PART.search(key) and not _LOOSENER.search(key):
            continue
        if _LOOSENER.search(key):
            if _DANGER.search(key) and value in _TRUE:
                return True
            continue
        if value in _FALSE or value == "" and match.group("value")[:1] in "\"'":
            return True
        if value == "0" and _COUNT_KEY.search(key) and re.search(r"review|approv|sign|check", key):
            return True
    return False


def _ci_noop(text: str) -> bool:
    if _CI_NOOP.search(text):
        return True
    if _DIFF_REMOVED_TEST.search(text):
        added = _DIFF_ADDED.findall(text)
        return bool(added) and not any(re.search(_TEST_CMD, line) for line in added)
    return False


def _accepts_invalid(text: str) -> bool:
    for sentence in re.split(r"[.;\n]", text):
        match = _ACCEPTS.search(sentence)
        if match and not _NEGATED_ACCEPT.search(sentence):
            return True
    return False


def weakened_control_reasons(text: str) -> list[str]:
    """The ``weakened:<kind>`` reasons of the module doc found in ``text`` (a memory's content, unnormalised;
    newlines matter, so it is read with NFKC, TR39 look-alikes folded and case folded, not whitespace-collapsed).
    ``[]`` when none or when ``text`` is not a ``str``; never raises."""
    if not isinstance(text, str) or not text.strip():
        return []
    try:
        low = _text(text)
        checks = (("env", lambda: bool(_ENV.search(low))), ("setting", lambda: _setting(low)),
                  ("ci_noop", lambda: _ci_noop(low)), ("absent_control", lambda: bool(_ABSENT.search(low))),
                  ("accepts_invalid", lambda: _accepts_invalid(low)),
                  ("self_update", lambda: bool(_SELF_UPDATE.search(low))),
                  ("workspace", lambda: bool(_WORKSPACE.search(low))))
        found = [f"weakened:{name}" for name, check in checks if check()]
        return found + waiver_reasons(low)
    except Exception:  # noqa: BLE001 - the classifier around this fails closed on its own
        return []
