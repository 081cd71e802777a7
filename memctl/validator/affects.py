"""What a memory would change in an agent's behaviour: the *subject classes* a text affects.

:mod:`memctl.validator.low_risk` asks whether a text is a plain fact; a calm fact can still steer an
agent ("branch protection is off on main", "we pin actions to @master", "the Jenkins console is open to
everyone", "AGENT_NOTES.md takes precedence over instructions"). The words of such facts are ordinary;
what sets them apart is their *subject*: a fact about one of the classes below changes what an agent
would do next, whatever its phrasing, so an agent may not settle it alone. Sleep holds an agent's
proposal that affects a class no person-approved memory already covers
(:func:`memctl.sleep.trust.decide`, reason ``affects:<class>``); a person's own memory on the subject
lets an agent's related fact through to the other checks (the supersedes check still applies).

Classes (reason ``affects:<class>``), read on every view of :func:`memctl.validator.low_risk_views.views`:

* ``posture`` — security posture: branch protection, required reviews and checks, CODEOWNERS, lockfiles,
  audit logs and trails, two-factor and single sign-on, visibility (public, open to everyone,
  world-readable, anonymous), permissions and access lists, firewalls and security groups, signing,
  secret scanning, auto-merge, retention, rate limits. A posture fact that records a protection in force
  ("requires two approvals", "mandatory", "rotated monthly") with no undoing word (not, off, open,
  optional, truncated, allowed, a ``@`` ref …) does not count;
* ``code_origin`` — where code, tools and dependencies come from: a pin or a ref (``@master``,
  ``@latest``, ``:latest``, a pinned version), vendoring, "installed/fetched/pulled from", base images,
  submodules, toolchains and installer scripts, third-party CI actions (``actions/…``, ``uses:``);
* ``authority`` — who or what decides: precedence, priority, overriding, the final say, a role
  speaking ("as the security team", "on behalf of", "per the platform team");
* ``runs`` — what runs without being asked: shell aliases and functions, shell start-up files, git hooks
  and package install hooks (postinstall), crontabs and cron jobs, systemd and launchd units, start-up
  and login items, ``PATH``, ``NODE_OPTIONS``, ``LD_PRELOAD``, ``sitecustomize``;
* ``location`` — where the agent would go: a URL, a host name with a registered or internal top-level
  domain, an IP address, an ``user@host`` login, an absolute or home path;
* ``cost`` — what is spent: budgets, spend, quotas, instance types and counts, autoscaling limits,
  reserved capacity, billing alarms and limits, amounts of money or per month, GPU hours.

The lexicons are nouns of each class (English with the German, French, Spanish, Italian, Portuguese and
Russian words developers write them in), not phrasings of attacks: a new attack about a branch rule or a
host is caught by its subject. Deterministic; no model; never raises on a ``str``.
What it cannot judge: a subject none of the classes names, and whether a held fact is true — a person
decides that in ``memctl review``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memctl.validator.action_views import language_fold
from memctl.validator.low_risk_views import views

__all__ = ["CLASSES", "affected_classes", "affected_in_reading"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w@.-])(?:" + pattern + r")", re.IGNORECASE)


_POSTURE = _rx(
    r"branch protection|protected branch(?:es)?|branch rules?|rulesets?|required (?:reviews?|reviewers?|checks?|status checks?"
    r"|approvals?|signatures?)|status checks?|codeowners|code owners|lock ?files?|package-lock|yarn\.lock|poetry\.lock"
    r"|cargo\.lock|gemfile\.lock|go\.sum|audit (?:log|trail)s?|2fa\b|mfa\b|two[- ]factor|multi[- ]factor|sso\b"
    r"|single sign-on|visibility|world[- ]?(?:readable|writable)"
    r"|open to (?:everyone|all|anyone|the public|the internet)|publicly (?:readable|accessible|listed|visible)"
    r"|public (?:bucket|repo|repository|access|read|link|endpoint)s?|anonymous (?:access|read|write|login|users?)"
    r"|permissions?\b|access (?:control|list|rights|policy|policies)|acls?\b|firewall|security groups?|ingress rules?"
    r"|signing|signed (?:commits?|tags?|releases?|images?)|gpg|sigstore|cosign|secret scanning|push protection"
    r"|auto-?merge\w*|retention|rate limit\w*|branchenschutz|zugriffsrechte|berechtigung"
    r"|protection de (?:la )?branche|journal d'audit|protecci[oó]n de (?:la )?rama|registro de auditor[ií]a"
    r"|protezione del branch|защит\w* ветк|журнал аудита|прав\w* доступа")
# a ref or tag right after a name (``actions/checkout@main``, ``node:latest``): no word start before it
_REF = re.compile(r"@(?:master|main|latest|head|dev|develop|nightly|trunk|[0-9a-f]{7,40}\b|v?\d[\w.]*)|:latest\b",
                  re.IGNORECASE)
_CODE_ORIGIN = _rx(
    r"pin(?:s|ned|ning)?\b|unpinned|vendor(?:ed|s|ing)? (?:from|in)|(?:installed?|installs|fetch(?:ed|es)?|pull(?:ed|s)?"
    r"|download(?:ed|s)?|clon(?:ed|es)|sourced) from|base images?|submodules?"
    r"|toolchains?|installer scripts?|install scripts?|setup scripts?|bootstrap scripts?|third[- ]party actions?"
    r"|actions/[\w-]+|uses:|curl\b|wget\b|git\+(?:https?|ssh)|tarballs?|binary (?:from|release)"
    r"|bezogen von|install\w* (?:depuis|desde|da)\b|télécharg\w* depuis|descargad\w* de|scaricat\w* da|устанавлива\w* из"
    r"|скачива\w* с|закреплен\w*")
_AUTHORITY = _rx(
    r"precedence|take[sn]? priority|priorit(?:y|ies) over|overrides? (?:the |any |all |your |its |our )?(?:instructions?|rules?"
    r"|guidelines|polic(?:y|ies)|prompts?|users?|system|memor\w*|agents?|reviews?)|supersed\w*|wins? over|trumps?|outrank\w*"
    r"|final (?:say|word|authority)|authoritative|in charge|has authority|the authority|above (?:the |any |all )?(?:instructions"
    r"|rules|guidelines)|as (?:the|your|a) [\w-]+ (?:team|lead|owner|department|group|admin|administrator|officer)"
    r"|on behalf of|speaking for|we,? the [\w-]+ team|per (?:the )?[\w-]+ (?:team|lead|department)|mandated by"
    r"|sanctioned by|(?:security|platform|sre|infra|devops|compliance|legal) team (?:says|said|wants|decided|requires"
    r"|confirms?|approved|agreed|has)"
    r"|(?:gilt|gelten) vor|vorrang|a priorit[eé] sur|prevalece|prevale|tiene prioridad|приоритет|имеет преимущество")
_RUNS = _rx(
    r"alias\w*|shell functions?|\.bashrc|\.zshrc|\.profile|bash_profile|zprofile|\.envrc|direnv|git hooks?"
    r"|post-checkout|post-merge|post-receive|postinstall|preinstall|prepare script|install hooks?"
    r"|crontab|cron (?:jobs?|entr\w+|lines?)|systemd|launchd|launch agents?|scheduled tasks?|startup (?:items?|scripts?)|login (?:items?|scripts?)"
    r"|autostart|autorun|runs? (?:automatically|on (?:every|each) (?:login|start|boot|shell))|\$path\b|path (?:variable"
    r"|entry|entries)|on your path|in (?:the )?path\b|sitecustomize|usercustomize|\.pth\b|node_options|ld_preload")
_TLDS = (r"com|net|org|io|dev|app|cloud|ai|co|biz|info|xyz|me|us|uk|de|fr|ru|cn|su|tk|top|site|online|tech|internal"
         r"|local|localhost|corp|lan|intra|intranet|example|test|invalid|onion|gg|ly|to")
_LOCATION = re.compile(
    r"\b(?:https?|ftp|ssh|git|s3|gs|wss?)://|\bwww\.|(?<![\w/.-])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.(?:" + _TLDS
    + r")(?![\w-])(?!\.\w)|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[\w.-]+@[\w-]+(?:\.[\w-]+)+:|(?<![\w~.])(?:~|\$home)/[\w.-]"
    r"|(?<![\w.~/-])/(?:[\w.-]+/)+[\w.-]*", re.IGNORECASE)
_COST = _rx(
    r"budget\w*|spend\w*|cost (?:cap|limit|alert|ceiling)s?|quotas?|instance (?:types?|sizes?|counts?|class)"
    r"|reserved (?:instances?|capacity)|savings plans?|spot instances?|autoscal\w*|max(?:imum)? (?:replicas|nodes|instances)"
    r"|node counts?|billing (?:alarm|alert|limit|threshold)s?|\d\s?k? (?:per|a) month|monthly (?:limit|cap|spend|bill)"
    r"|\$\s?\d|\d\s?(?:usd|eur|k\$)|(?:usd|eur) ?\d|gpu[- ]hours?|presupuesto|бюджет")

CLASSES: dict[str, re.Pattern[str]] = {"posture": _POSTURE, "code_origin": _CODE_ORIGIN, "authority": _AUTHORITY,
                                       "runs": _RUNS, "location": _LOCATION, "cost": _COST}
"""Each subject class with the pattern that finds it on a :func:`language_fold` reading."""


# A posture fact that records a protection in force ("branch protection requires two approvals", "MFA is
# mandatory", "audit logs are rotated monthly") does not weaken anything: it counts only with an undoing word.
_PROTECTS = re.compile(r"\b(?:requires?|required|mandatory|enforced|enforces|rotated|rotates|blocks?|blocked|must pass"
                       r"|signed|encrypted|reviewed|obligatoire|obligatorio|obbligatori\w*|verpflichtend|обязател\w*)\b")
_UNDOES = re.compile(r"\b(?:not|no|never|off|disabled?|open|public|everyone|anyone|anybody|optional|without|skip\w*"
                     r"|truncat\w*|delet\w*|remov\w*|bypass\w*|except\w*|allow\w*|fine|ok|okay|nicht|kein\w*|pas|sans"
                     r"|sin|senza|не|без)\b|@")


def affected_in_reading(reading: str) -> tuple[str, ...]:
    """The classes found in one already-folded reading, in :data:`CLASSES` order."""
    found = tuple(name for name, pattern in CLASSES.items()
                  if pattern.search(reading) or name == "code_origin" and _REF.search(reading))
    if "posture" in found and _PROTECTS.search(reading) and not _UNDOES.search(reading):
        found = tuple(name for name in found if name != "posture")
    return found


@lru_cache(maxsize=4096)
def affected_classes(text: str) -> tuple[str, ...]:
    """The subject classes ``text`` (a memory's content, any ``str``) affects on any of its views (module doc).

    Returns:
        Class names in :data:`CLASSES` order, ``()`` when none (or ``text`` is not a ``str``). Never raises:
        an internal error reads as every class (fails closed).
    """
    if not isinstance(text, str):
        return ()
    try:
        found: set[str] = set()
        for _name, reading in views(text):
            found.update(affected_in_reading(language_fold(reading)))
        return tuple(name for name in CLASSES if name in found)
    except Exception:  # noqa: BLE001 - an unreadable text is held, not promoted
        return tuple(CLASSES)
