"""Why a memory waits for a person, in words: the reason codes of :mod:`memctl.sleep.trust` explained.

Sleep records each held memory's reasons as stable codes (``action:command``, ``unrecognised:property:
setting_off``, ``supersedes:user/global/x.md``); scripts read those (``memctl review --json``). A person
reading the queue needs the sentence behind the code: :func:`explain` gives it, and the review list and
``review show`` print both (the code stays, so a reason can be searched for in the docs and the rules).

Codes are ``<family>:<detail>``, nested where one check wraps another (``unrecognised:sensitive:agent``,
``action:encoded:base64:command``). :func:`explain` reads the most specific part it knows and falls back
to the family, so a code added later still reads as a sentence. The families and codes are those written
by :func:`memctl.sleep.trust.decide` and :func:`memctl.sleep.trust.decide_merge`; the detail codes are
documented in :mod:`memctl.validator.action` (what a memory would make the agent do) and
:mod:`memctl.validator.low_risk` (what the low-risk recogniser could not vouch for).
"""

from __future__ import annotations

__all__ = ["explain", "explain_all", "family_label"]

_DETAIL = {
    # carried objects (memctl.validator.action)
    "command": "it carries a shell command the agent could run",
    "url": "it carries a URL the agent could open or fetch",
    "host": "it names a host the agent could connect to",
    "email": "it carries an e-mail address the agent could write to",
    "package_source": "it points the agent at a package source, mirror, fork or pinned package",
    "markdown_template": "it holds a Markdown image or link whose address takes a value (a way to send data out)",
    # statements that direct
    "security_setting": "it turns a security setting off or calls a control unnecessary",
    "override": "it claims to override the user's or the system's instructions",
    "persistence": "it installs something that runs again later (keys, cron, shell profiles, hooks)",
    "trigger": "it tells the agent to do something later, when a condition is met",
    "credential_request": "it asks for a password, key or token",
    "credential_handling": "it tells the agent how to store, place or set a credential",
    "send_public": "it sends data somewhere public",
    "payment": "it asks for a payment or names an account to pay",
    "grant": "it grants access or a role",
    "concealment": "it tells the agent to keep something out of its answers",
    "ai_addressed": "it speaks to the AI agent itself",
    "output_directive": "it dictates what the agent's answers must say",
    "evasion_request": "it asks how to get round a control",
    "agent_norm": "it sets a rule for what the agent does",
    "passive_norm": "it sets a rule that something must be done",
    "authority": "it claims authority over memory or instructions",
    "trust_claim": "it claims that it should be trusted or obeyed",
    "classifier_error": "the classifier failed on it, so it waits to be safe",
    # low-risk recogniser (memctl.validator.low_risk and its property checks)
    "control_negated": "it says a control (tests, reviews, verification, auth) does not apply",
    "control_excepted": "it makes an exception to a control",
    "consent": "it says someone agreed to skip a control",
    "setting_off": "it sets a control to off, zero or false, written as data",
    "executes_input": "it describes a route or parameter that runs its input",
    "history_rewrite": "it rewrites shared history (force-push, reset, deleted branches)",
    "no_limit": "it removes a limit",
    "instructions_in_code": "it hides instructions inside code",
    "unread_language": "it is in a language the rules cannot read closely enough",
    "not_prose": "it does not read as ordinary prose (a cipher, a spelling alphabet, an acrostic)",
    "bidi_control": "it holds invisible text-direction characters that can disguise what it says",
    "setting_data": "it turns a control off or opens it in a table, a CSV row, a sum or a redefined unit",
    "weakened_state": "it states a protection is off, gone or turned against its purpose",
    "agent_grant": "it lets the agent push, merge or deploy on its own",
    "imperative": "it is written as an order, not as a fact",
    "weakening": "it weakens a rule or a protection",
    "relaxation": "it relaxes a rule",
    "obligation": "it creates a new obligation",
    "cipher": "it looks enciphered",
    "pictographs": "it spells words with pictographs",
    "digit_words": "it spells words with digits",
    "control_off": "it turns a control off in other words",
    "redefinition": "it redefines a word or a unit",
    "forged_format": "it imitates a format memctl or an agent writes (a transcript, a tool result, front matter)",
    "recipient": "it names where something should be sent",
    "transcript": "its session's transcript does not show the person saying it",
}

_FAMILY = {
    "action": "it would make the agent act",
    "unrecognised": "the rules could not recognise it as a low-risk fact",
    "affects": "it touches a subject ({detail}) no memory of the person's own covers",
    "supersedes": "it would replace an existing memory ({detail})",
    "displaces_person": "it would replace a memory a person chose ({detail})",
    "uncorroborated": "its session's transcript does not show the person saying it",
    "encoded": "it says something in an encoding ({detail})",
    "directive": "it is an instruction ({detail})",
    "subject": "it steers a sensitive subject ({detail})",
    "sensitive": "it is about a sensitive subject ({detail})",
    "normative": "it sets or changes a rule ({detail})",
    "property": "it has a risky property ({detail})",
    "disguise": "its wording disguises what it says ({detail})",
    "weakened": "it weakens a control ({detail})",
    "validator": "a poisoning check flagged it ({detail})",
    "typosquat": "it names a package one letter away from a popular one ({detail})",
    "unknown_package": "it names a package nobody knows ({detail})",
    "form": "its form ({detail})",
}

# Families whose detail is a place or a name (printed as is), not a nested code to explain.
_LITERAL = {"affects", "supersedes", "displaces_person", "typosquat", "unknown_package"}


def explain(reason: str) -> str:
    """One sentence (no final period) for one reason code, e.g. ``"action:command"`` → ``"it carries a shell
    command the agent could run"``.

    The wrapping families (``action:``, ``unrecognised:``) are read through; ``encoded:<encoding>:`` adds
    "(read after decoding <encoding>)"; then a known detail code wins, else the first known family's
    sentence with the rest of the code as its detail; an unknown code comes back as itself.
    Deterministic; never raises on ``str``.
    """
    parts = [p for p in reason.split(":") if p]
    if parts and parts[0] in _LITERAL and len(parts) > 1:
        return _FAMILY[parts[0]].format(detail=":".join(parts[1:]))
    wrapper = parts[0] if parts and parts[0] in ("action", "unrecognised") and len(parts) > 1 else None
    if wrapper:
        parts = parts[1:]
    decoded = ""
    if len(parts) > 2 and parts[0] == "encoded":
        decoded, parts = f" (read after decoding {parts[1]})", parts[2:]
    sentence = _sentence(parts)
    if sentence is None:
        return _FAMILY[wrapper] if wrapper else reason
    return sentence + decoded


def _sentence(parts: list[str]) -> str | None:
    """The sentence for an unwrapped code's parts, or None when no part is known."""
    if not parts:
        return None
    if parts[0] == "directive" and len(parts) == 2:
        detail = parts[1]
        return (f"it is an instruction, written in {detail}" if len(detail) == 2
                else f"it is an instruction to {detail}")
    for part in reversed(parts):
        if part in _DETAIL:
            return _DETAIL[part]
    for index, part in enumerate(parts):
        if part in _FAMILY:
            return _FAMILY[part].format(detail=":".join(parts[index + 1:]) or part)
    return None


def explain_all(reasons: list[str] | tuple[str, ...]) -> list[str]:
    """``"<sentence> [<code>]"`` for each reason, in order, duplicates of the same sentence kept once per code."""
    return [f"{explain(r)} [{r}]" if explain(r) != r else r for r in reasons]


_FAMILY_LABEL = {
    "action": "would act", "unrecognised": "not recognised as low-risk", "affects": "a new subject",
    "supersedes": "replaces a memory", "displaces_person": "replaces a person's memory",
    "uncorroborated": "not in its session", "trust_claim": "claims trust",
}


def family_label(family: str) -> str:
    """A short label for a reason family (the part of a code before its first ``:``), as sleep's summary
    counts held memories by it: ``"action"`` → ``"would act"``; an unknown family comes back as itself."""
    return _FAMILY_LABEL.get(family, family)
