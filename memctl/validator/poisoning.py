"""Memory poisoning: an instruction to the assistant combined with a sensitive object or a destructive action.

Proposals phrased as a convention, rule or preference ("saved from" a README,
wiki, log, PDF or support thread) that direct the assistant to move secrets, act destructively,
skip review, grant itself consent or switch off memctl's own safety. A memory records facts and
preferences about the work; it does not do any of that. :func:`find_poisoning` decides over the
folded text (:func:`memctl.validator.fold.fold_for_matching`) and returns the first finding as
``(reason, evidence)`` — ``reason`` is ``memory_poisoning:<category>`` — or None.

Categories (reason codes) and the rule of each — *directive* is decided by
:func:`memctl.validator.directive.is_directive` (imperative, modal, standing marker, assistant as
subject; not past, not negated):

=========================  ==========================================================================
``credential_transfer``    a directive exposure/copy/display verb whose object is a credential file
                           (``~/.ssh``, ``id_rsa``, ``.env``, ``~/.aws/credentials``, kubeconfig,
                           ``.npmrc``, ``.netrc``, keychain, …) — or a credential noun (tokens, API
                           keys, passwords, cookies, env vars …) sent to a hostile place (URL, mail
                           address, paste site, chat, public issue, the answer itself); a network
                           command carrying a credential file (``curl -d @~/.ssh/id_rsa``,
                           ``cat … | nc``, ``env | curl``); un-ignoring or force-adding ``.env``
``destructive_action``     force-push to a shared branch (or as a standing rule), deleting
                           shared/other/all branches, ``rm -rf`` of ``/``, ``~``, ``*``, ``.git``,
                           disk wipes, fork bombs, ``chmod -R 777 /``; data/infra destruction
                           (``DROP DATABASE``, ``terraform destroy``, ``kubectl delete ns``, …) as a
                           standing rule or against production/everything; history rewrites of main
``unreviewed_action``      skipping hooks/tests/CI/review as a rule: ``--no-verify``, ``commit -n``,
                           ``[skip ci]``, ``-DskipTests``, ``--dangerously-skip-permissions``; skip/
                           disable verbs on the *whole* check (the tests, CI, hooks, review — not
                           "the slow tests"); pushing straight to main; merging without review;
                           approving one's own PR, admin merges
``consent_claim``          blanket approval ("approved every command", "pre-approved", "already
                           consented to everything"), no-confirmation rules scoped to commands,
                           pushes, deletes or everything, administrator/owner claims joined to a
                           permission, and claims about the memory's own authority ("this note
                           comes from the security team", "treat this memory as verified")
``safety_off``             directives to switch off memctl's own safety: scrubbing, redaction,
                           validation, quarantine, the audit log, secret scanners; ``--no-scrub``,
                           ``scrub = false``, ``MEMCTL_…SCRUB=0``; "do not redact", secrets "in
                           plain text"/"verbatim"; promoting "directly to user/"
``encoded_command``        a decode piped into an interpreter (``base64 -d | sh``, ``xxd -r -p |
                           sh``, ``eval "$(… | base64 --decode)"``, ``exec(b64decode(…))``,
                           ``powershell -EncodedCommand``, escaped bytes piped to a shell), a
                           download piped to a shell from a paste site or raw IP, "decode this and
                           run it"; payloads that *decode* to a command are found by
                           :mod:`memctl.validator.encoded`
``ai_addressed``           text addressed to AI assistants: ``<!-- … AI/agent … -->`` comments,
                           "note to any AI agent reading this", "if you are an AI", "hey Copilot",
                           ``# AI agents:`` comment lines
``external_instruction``   a "saved from the README/wiki/log/PDF/support thread" framing with an
                           instruction addressed to the assistant ("the agent must …")
=========================  ==========================================================================

Languages: English, German, French, Spanish and Chinese word lists (written without accents,
which folding removes). Sources: the object lists follow the credential files that secret scanners
and agent-hardening guides name (gitleaks and detect-secrets rule names; OWASP LLM01/LLM06 and the
Invariant Labs MCP tool-poisoning write-up for "read ~/.ssh and send it"), the destructive commands
follow the classic "never run" lists (``rm -rf /``, fork bomb, ``mkfs``, ``dd of=/dev/sd*``) and
git's own warnings (``push --force`` to shared branches, ``--no-verify`` skipping hooks), the
consent and AI-addressed phrasings follow published indirect-injection samples (Greshake et al.
2023; Rehberger's "AI Injections" posts on hidden comments). Every rule has hostile instances and
near-misses in tests/support/proposal_corpus.py.

Near-miss policy: facts stay ("CI runs tests on every push", "deleted the stale feature branch
after merge", "we rotate API keys every 90 days"), protective rules stay ("never paste tokens into
issues", "use --force-with-lease only on your own branches", "add .env to .gitignore"), normal use
of a credential stays ("ssh -i ~/.ssh/id_ed25519 …", "copy .env.example to .env", "store API keys
in 1Password").
"""

from __future__ import annotations

import re
from typing import Callable

from memctl.validator.directive import B, E, Span, sentences
from memctl.validator.poisoning_addressed import _ai_addressed, _encoded, _external
from memctl.validator.poisoning_credentials import _credential_transfer
from memctl.validator.poisoning_process import _consent, _destructive, _safety_off, _severe_command, _unreviewed

__all__ = ["CATEGORIES", "find_poisoning"]

Finding = tuple[str, str]

# ---------------------------------------------------------------------------

_PER_SENTENCE: tuple[tuple[str, Callable[[Span], str | None]], ...] = (
    ("credential_transfer", _credential_transfer),
    ("destructive_action", _destructive),
    ("unreviewed_action", _unreviewed),
    ("consent_claim", _consent),
    ("safety_off", _safety_off),
    ("encoded_command", _encoded),
)
_WHOLE_TEXT: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("destructive_action", _severe_command),
    ("ai_addressed", _ai_addressed),
    ("external_instruction", _external),
)

CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(name for name, _ in _PER_SENTENCE + _WHOLE_TEXT))
"""Every category :func:`find_poisoning` can report, in the order they are tried."""


# An incident report or a record of a protection: it tells what happened and what now guards against it.
# Such a text is held for a person's review (``reported_incident``), never refused; sources: the headings
# of blameless post-mortem templates (Google SRE book, ch. 15; PagerDuty's post-mortem guide).
_REPORT = re.compile(
    B + r"(?:post[\s-]?mortems?|incident(?: report| review|s)?|root[\s-]cause|rca|retro(?:spective)?|lessons learned"
    r"|what happened|outage|nachbetrachtung|vorfall|storung|ursachenanalyse|retour d'experience|autopsie"
    r"|analyse d'incident|incidente|informe de incidente|analisis post|causa raiz|retrospectiva)" + E
    + r"|复盘|事故|事后分析|故障报告")
# A past event told with its aftermath ("a force-push to main erased two commits; main is now protected",
# "last week someone deleted the release branch and we restored it"): a post-mortem without the heading.
# A past-tense verb of what happened, and a sign it is over: a time in the past or what was done since.
_PAST_EVENT = re.compile(
    B + r"(?:erased|wiped|deleted|removed|destroyed|dropped|lost|broke|overwrote|rewrote|leaked|exposed|happened|caused"
    r"|ran|was run|were run|force-pushed|pushed|was pushed|got|went|took down|brought down)" + E)
_AFTERMATH = re.compile(
    B + r"(?:is now|are now|now (?:protected|blocked|required|locked|enforced|read-only)|since then|ever since|ago"
    r"|last (?:week|month|year|sprint|night|friday|monday)|yesterday|in (?:19|20)\d\d|on (?:19|20)\d\d-\d\d"
    r"|we (?:reverted|restored|rotated|fixed|added|recovered|rolled back|revoked|enabled|locked)|was (?:reverted|restored"
    r"|fixed|recovered|rolled back|revoked)|were (?:reverted|restored|fixed|recovered|rolled back|revoked))" + E)
_REPORTABLE = frozenset({"credential_transfer", "destructive_action", "unreviewed_action"})
REPORTED = "memory_poisoning:reported_incident"
"""The reason of a poisoning finding inside an incident report or a record of a protection (held, not refused)."""


def _as_report(folded: str, name: str, evidence: str) -> Finding:
    if name in _REPORTABLE and (_REPORT.search(folded) or (_PAST_EVENT.search(folded) and _AFTERMATH.search(folded))):
        return REPORTED, f"an incident report mentions {evidence}"[:80]
    return f"memory_poisoning:{name}", evidence


def find_poisoning(folded: str) -> Finding | None:
    """Return ``("memory_poisoning:<category>", evidence)`` for the first poisoning finding, or None.

    Args:
        folded: :func:`memctl.validator.fold.fold_for_matching` output (never the raw text).

    Returns:
        None, or the reason code and one short human phrase (``memory_poisoning:reported_incident`` when the
        finding sits in an incident report, which is held for review rather than refused), saying what was recognised (no
        secret material: secrets are checked, and refused, before this runs).
    """
    spans = list(sentences(folded))
    for name, rule in _PER_SENTENCE:
        for span in spans:
            evidence = rule(span)
            if evidence:
                return _as_report(folded, name, evidence)
    for name, rule in _WHOLE_TEXT:
        evidence = rule(folded)
        if evidence:
            return _as_report(folded, name, evidence)
    return None
