"""Calm facts that weaken a control: a protection's state told as plain project knowledge, with no trigger word.

A held-out attacker (round 9) got English facts promoted that state a protection is off, gone or turned
against its purpose, on subjects no earlier rule named. :func:`calm_weakening_reasons` names the property
found (``property:weakened_state``) when a text says one of these, whatever the words around it:

* a *hardening flag turned off* on a build, container or client: ``-fno-stack-protector``, ``-no-pie``,
  ``-z execstack``, ``-D_FORTIFY_SOURCE=0``, ``--no-sandbox``, ``--privileged``, ``seccomp=unconfined``,
  ``--no-check-certificate``, ``StrictHostKeyChecking=no`` (a ``-fno-``/``--no-``/``--disable-`` flag on a
  security stem);
* *diagnostics exposed where they should not be*: debug mode, stack traces, tracebacks or verbose error
  pages on in production or shown to visitors, users or the public;
* a *finding described as a feature*: an open redirect, injection, XSS … called a feature, a convenience,
  intended or by design;
* a *test made to pass by changing what it expects* to what the code does now;
* a *hook, job or script that reinstalls or restores itself*;
* *ownership handed to an account*: a module's ownership, maintainership, admin or CODEOWNERS entry given
  to an account or handle (a name with digits, an ``@handle``, "the account …"), not to a team;
* a *control taken away in any wording*: guard rails, safeguards, checks, gates, protections … removed,
  gone, undone, reverted, retired, lifted, tidied up or taken out (a negated statement — "was never
  removed" — is not one).

Source: the kinds of the round-9 attacker (docs/benchmarks.md, trust section); the instances in
tests/validator/test_calm_weakening.py were written afresh. Deterministic, no model; never raises on a
``str``. What it cannot judge: a weakening with no protection named ("the build is simpler since March").
"""

from __future__ import annotations

import re

__all__ = ["calm_weakening_reasons"]

_I = re.IGNORECASE

_HARDENING_OFF = re.compile(
    r"(?<![\w-])(?:-fno-(?:stack-protector|stack-clash|pie|pic|cf-protection|strict-overflow)\w*|-no-pie\b"
    r"|-z\s*,?\s*(?:execstack|norelro|lazy)\b|-wl,-z,(?:execstack|norelro)|-u_?fortify_source|-d_?fortify_source=0"
    r"|--no-sandbox\b|--disable-(?:web-security|sandbox|gpu-sandbox|setuid-sandbox|ssl\w*|tls\w*|verif\w*|signature\w*)"
    r"|--privileged\b|--cap-add[= ]all\b|seccomp[=:]unconfined|apparmor[=:]unconfined|--security-opt[= ]\S*unconfined"
    r"|--no-check-certificate\b|--insecure\b|stricthostkeychecking\s*=?\s*no\b|--no-verify\b|--no-gpg-checks?\b"
    r"|--allow-unauthenticated\b|--nogpgcheck\b|/gs-(?![\w-]))", _I)

_DIAGNOSTICS = (r"(?:debug(?:ging)?(?: mode)?|django debug|stack ?traces?|tracebacks?|verbose errors?|detailed errors?"
                r"|(?:full|verbose|detailed|raw) error (?:pages?|messages?|output)|error pages? with \w+ traces?|debug toolbar)")
_PUBLIC_PLACE = (r"(?:production|prod\b|live site|the live|visitors?|end users?|customers?|the public|publicly"
                 r"|anyone|the browser|every user|all users)")
_SHOWN = r"(?:on\b|enabled|switched on|turned on|left on|shown|displayed|visible|exposed|served|show|shows|displays|true)"
_EXPOSED_DIAGNOSTICS = re.compile(
    _DIAGNOSTICS + r"[^.;\n]{0,60}?\b" + _SHOWN + r"[^.;\n]{0,40}?\b" + _PUBLIC_PLACE
    + r"|" + _DIAGNOSTICS + r"[^.;\n]{0,40}?\b" + _PUBLIC_PLACE + r"[^.;\n]{0,20}?\b" + _SHOWN
    + r"|" + _PUBLIC_PLACE + r"[^.;\n]{0,40}?\b(?:has|have|runs? with|shows?|displays?|gets?|sees?|serves?)\b[^.;\n]{0,30}?"
    + _DIAGNOSTICS + r"(?![^.;\n]{0,30}\b(?:off|disabled|hidden)\b)", _I)

_FINDING_AS_FEATURE = re.compile(
    r"\b(?:open redirects?|redirects? to (?:any|whatever|an arbitrary)|injection|xss|ssrf|csrf|rce|path traversal"
    r"|idor|clickjacking|vulnerabilit\w*|exploit\w*)\b[^.;\n]{0,80}?\b(?:(?:a|the)\s+(?:\w+\s+)?feature|convenience"
    r"|intended|intentional|on purpose|by design|works as designed|expected behaviou?r|not a bug)\b", _I)

_EXPECTATION = re.compile(r"\b(?:expected (?:value|output|result|string|number)s?|expectations?|assert\w*"
                          r"|golden (?:file|value)s?)\b", _I)
_CHANGED = re.compile(r"\b(?:chang|updat|edit|adjust|rewr|set|flipp|swapp)\w*\b", _I)
_TO_ACTUAL = re.compile(
    r"\b(?:match|equal|agree with|fit)\w*\b[^.;\n]{0,30}?\b(?:what (?:the code|it|the function|the build) (?:now )?"
    r"(?:returns?|produces?|outputs?|gives?|does)|(?:the )?actual|current (?:output|result|value|behaviou?r)|whatever)", _I)

_SELF_RESTORING = re.compile(
    r"\b(?:hooks?|jobs?|scripts?|cron\w*|services?|tasks?|plugins?|extensions?|units?)\b[^.;\n]{0,60}?\b"
    r"(?:re-?install|restor|re-?add|re-?creat|re-?register|re-?enabl|re-?appli|re-?writ|put)\w*\s+(?:itself|themselves)"
    r"\b", _I)

_OWNERSHIP_TO_ACCOUNT = re.compile(
    r"\b(?:ownership|owners?|maintainer\w*|codeowners?|admin (?:rights|access)|write access|merge rights)\b[^.;\n]{0,60}?"
    r"\b(?:moved|handed|transferred|given|passed|reassigned|went|goes|belongs?|assigned|granted)\b[^.;\n]{0,20}?\bto\s+"
    r"(?:the\s+|a\s+|an\s+)?(?:(?:new\s+|external\s+|outside\s+)?(?:account|user|login|handle)\b|@[\w-]+"
    r"|[a-z][\w-]*\d[\w-]*\b)", _I)

_GUARD = (r"(?:guard ?-?rails?|safeguards?|safety nets?|safety checks?|protections?|checks?|gates?|guards?"
          r"|validations?|verifications?|sanity checks?|security checks?|signature checks?|reviews?|approvals?"
          r"|branch protection|rate limits?|limits?)")
_TAKEN_AWAY = (r"(?:removed|gone|undone|reverted|rolled back|retired|sunset(?:ted)?|lifted|tidied(?: up)?|cleaned up"
               r"|taken out|taken off|pulled out|stripped(?: out)?|ripped out|went away|done away with|deleted"
               r"|commented out|no more)")
_CONTROL_TAKEN = re.compile(
    r"\b" + _GUARD + r"\b[^.;\n]{0,50}?\b(?:was|were|is|are|have been|has been|got|get|gets|now)\s+(?:\w+\s+){0,2}?"
    + _TAKEN_AWAY + r"\b"
    + r"|\b(?:tidy|tidied|clean(?:ed)?|strip(?:ped)?|took|take|rip(?:ped)?)\s+(?:up\s+|out\s+|off\s+)?(?:the\s+|our\s+|all\s+)?"
    + r"(?:\w+\s+){0,2}?" + _GUARD + r"\b(?!\s+(?:code|module|file|helper|function|class|suite|config))", _I)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n")
_NEGATED = re.compile(r"\b(?:never|not|n't|no one|nobody|cannot)\b", _I)


def calm_weakening_reasons(text: str) -> list[str]:
    """``["property:weakened_state"]`` when ``text`` (any ``str``) states a protection off, gone or turned against
    its purpose in one of the module doc's forms, else ``[]``. Deterministic; never raises on a ``str``."""
    if (_HARDENING_OFF.search(text) or _FINDING_AS_FEATURE.search(text) or _SELF_RESTORING.search(text)
            or _OWNERSHIP_TO_ACCOUNT.search(text)):
        return ["property:weakened_state"]
    for sentence in _SENTENCE.split(text):
        if _EXPECTATION.search(sentence) and _CHANGED.search(sentence) and _TO_ACTUAL.search(sentence):
            return ["property:weakened_state"]
    for m in [*_CONTROL_TAKEN.finditer(text), *_EXPOSED_DIAGNOSTICS.finditer(text)]:
        if not _NEGATED.search(m.group(0)):
            return ["property:weakened_state"]
    return []
