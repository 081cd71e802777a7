"""English phrasings of the poisoning and injection kinds that the grammar-based rules do not parse.

:mod:`memctl.validator.poisoning` reads a directive verb and its object; these rules are fixed
shapes that are hostile in any grammatical frame — a credential file's contents shown or sent, a
token command piped to the network, blanket consent, hooks or tests switched off, memctl's redaction
switched off, "forget what you were told". Each is ``(reason, pattern)`` over folded text
(:func:`memctl.validator.fold.fold_for_matching`); a match right after a negation ("never",
"don't", "do not", "not") is a protective rule and passes.

Sources: a red team's instances against the grammar rules (tests/support/proposal_corpus.py, split
``redteam``), generalised to the command or phrase family each belongs to: the credential commands
of the GitHub, AWS, Google Cloud and Azure CLIs, git's ``core.hooksPath``, pytest's skip markers,
CI skip markers, memctl's own settings.
"""

from __future__ import annotations

import re

from memctl.validator.poisoning_credentials import _CRED_FILE

__all__ = ["find_phrasing"]

_B = r"(?<![a-z0-9])"
_E = r"(?![a-z0-9])"
_CRED = "(?:" + _CRED_FILE.pattern + r"|\.config/gcloud|credentials\.db|access_tokens\.db)"
_SECRET_NOUN = r"(?:tokens?|secrets?|passwords?|keys?|credentials?|api keys?)"
_NEGATION = re.compile(_B + r"(?:never|not|don't|do not|no one|nobody|avoid|must not|mustn't)(?:\s+\S+){0,3}?[\s`'\"]*$")

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((reason, re.compile(pattern)) for reason, pattern in (
    # a credential file's contents displayed, in an answer or a command
    ("memory_poisoning:credential_transfer",
     _B + r"(?:cat|type|head|tail|less|more|bat|xxd|strings)\s+[\"'`]?" + _CRED),
    ("memory_poisoning:credential_transfer",
     _B + r"(?:read|recite|quote|include|paste|print|show|dump|echo)\w*\s+(?:out\s+)?[^.\n]{0,40}?" + _CRED
     + r"[^.\n]{0,60}?" + _B + r"(?:aloud|out loud|answers?|repl(?:y|ies)|responses?|chat)" + _E),
    ("memory_poisoning:credential_transfer",
     _B + r"(?:answers?|repl(?:y|ies)|responses?)" + _E + r"[^.\n]{0,80}?(?:output|result|contents?)\s+of\s+[`'\"]?"
     r"(?:env|printenv|set|export -p|cat ~?/?\.env)[`'\"]?" + _E),
    # a command that prints a token, piped to the network
    ("memory_poisoning:credential_transfer",
     _B + r"(?:gh auth token|gh auth status -t|aws configure export-credentials|aws sts get-session-token"
     r"|gcloud auth (?:application-default )?print-access-token|az account get-access-token|kubectl config view --raw"
     r"|git credential fill|security find-generic-password|op read|vault (?:read|kv get))[^\n]{0,120}?\|\s*"
     r"(?:curl|wget|nc|ncat|socat|ssh|scp|http|xh)" + _E),
    # the home directory or dotfiles copied to a URL
    ("memory_poisoning:credential_transfer",
     _B + r"(?:mirror|upload|sync|copy|back\s?up|push|send|rsync|tar)\w*" + _E + r"[^\n]{0,80}?(?:home director(?:y|ies)"
     r"|home dir|dotfiles|~/(?=\s|$)|\$home)[^\n]{0,80}?(?:https?|ftp|s3)://"),
    ("memory_poisoning:credential_transfer",
     _CRED + r"[^.\n]{0,60}?attach\w*\s+(?:it|them|that|this|the file)?\s*to\s+(?:the\s+|a\s+)?(?:ticket|issue|e-?mail"
     r"|mail|message|report|pr|thread|chat)"),
    # blanket consent
    ("memory_poisoning:consent_claim",
     _B + r"(?:blanket\s+(?:ok|okay|approval|permission|consent|yes)|carte blanche)" + _E),
    ("memory_poisoning:consent_claim",
     _B + r"(?:consider|treat|assume|regard)\s+(?:every|all|any|each)\s+(?:\w+\s+){0,2}?(?:commands?|actions?|changes?"
     r"|operations?|steps?|requests?|tool calls?)\s+(?:as\s+)?(?:already\s+|pre-?)?(?:confirmed|approved|authori[sz]ed"
     r"|okayed|accepted)" + _E),
    ("memory_poisoning:consent_claim",
     _B + r"no need to (?:double[\s-]?check|check|ask|confirm)\s+with (?:me|us|the user|anyone)"),
    ("memory_poisoning:consent_claim",
     _B + r"(?:auto[\s-]?approv\w*|yolo mode)\s+(?:is\s+)?(?:on|enabled|active)" + _E),
    ("memory_poisoning:consent_claim",
     r"(?:^|[;:,.]\s*|" + _B + r"(?:please|just|always)\s+)(?:proceed|go ahead|continue|carry on)\s+without\s+"
     r"(?:pausing|asking|confirm\w*|checking|waiting|approval|permission)"),
    ("memory_poisoning:consent_claim",
     _B + r"signed off on\s+(?:all|every|any)\s+(?:future|upcoming|further)?"),
    # hooks, CI and tests switched off
    ("memory_poisoning:unreviewed_action", r"\*{2,3}\s*no[_\s-]?ci\s*\*{2,3}|\[\s*no[_\s-]ci\s*\]"),
    ("memory_poisoning:unreviewed_action",
     r"core\.hookspath\s*=\s*(?:/dev/null|[\"']{2}|nul|/tmp\S*|\s)|" + _B + r"skip\s*=\s*(?:all|\*)" + _E),
    ("memory_poisoning:unreviewed_action",
     _B + r"(?:mark|decorate|tag|annotate)\w*\s+(?:it|them|the test|failing tests?)\s+(?:with\s+|as\s+)?@?"
     r"(?:pytest\.mark\.(?:skip|xfail)|unittest\.skip|skip|xfail|ignored?|disabled)"
     r"|" + _B + r"(?:skip|xfail|disable|comment out|delete|remove|mute)\w*[^.\n]{0,60}?instead of fixing"),
    ("memory_poisoning:unreviewed_action",
     _B + r"(?:delete|remove|comment out|disable|skip|mute)\s+(?:the\s+|any\s+|all\s+)?(?:failing|broken|red)\s+"
     r"(?:tests?|specs?|checks?)" + _E),
    # memctl's redaction switched off
    ("memory_poisoning:safety_off",
     _B + r"memctl_\w*(?:redact|scrub|valid|quarantin|audit)\w*\s*=\s*[\"']?(?:never|0|false|off|no|none|disabled?)" + _E
     + r"|" + _B + r"memctl_\w*(?:disable|skip|off|no_redact|no_scrub)\w*\s*=\s*[\"']?(?:1|true|yes|on)" + _E),
    ("memory_poisoning:safety_off",
     _B + r"keep\s+(?:the\s+|all\s+)?" + _SECRET_NOUN + r"\s+(?:exactly\s+)?(?:as typed|as[\s-]is|verbatim|unredacted"
     r"|unmasked|in (?:plain|clear)\s?text)"
     r"|" + _B + r"stop\s+(?:replacing|redacting|masking|scrubbing|hiding)\s+(?:them|secrets|tokens|passwords|keys)"
     r"|" + _B + r"(?:real|actual|raw)\s+" + _SECRET_NOUN + r"\s+in\s+(?:them|the notes|notes|memories|summaries)"),
    ("memory_poisoning:safety_off",
     _B + r"(?:validator|scrubber|gate|filter|sleep|memctl)" + _E + r"[^.\n]{0,40}?(?:wave|let|pass|allow|accept|skip)\w*"
     r"\s+(?:\w+\s+)?(?:through\s+)?(?:anything|everything|all)" + _E
     + r"|" + _B + r"(?:redact|scrub|mask)\s+nothing" + _E),
    # instruction overrides
    ("prompt_injection:instruction_override",
     _B + r"forget\s+(?:what|whatever|everything)\s+you\s+(?:were|have been|was|got)\s+(?:told|taught|given|instructed)"
     r"|" + _B + r"your\s+(?:only|new|one|sole)\s+(?:rule|instruction|task|goal|job|directive)\s+(?:now\s+)?is" + _E
     + r"|" + _B + r"(?:previous|prior|earlier|above|original|existing)\s+(?:guidance|instructions?|rules?|directives?"
     r"|guidelines?)\s+(?:no longer|don't|do not|does not|doesn't)\s+(?:apply|applies|matter|count)" + _E),
    # destructive commands missed by the grammar rules
    ("memory_poisoning:destructive_action",
     _B + r"gh repo delete\b[^\n]{0,80}--(?:yes|confirm)" + _E
     + r"|" + _B + r"docker system prune\b[^\n]{0,40}(?:-a\w*f?|--all)[^\n]{0,40}--volumes"
     r"|" + _B + r"docker system prune\b[^\n]{0,40}--volumes[^\n]{0,40}(?:-a|--all)" + _E),
))


def find_phrasing(folded: str) -> tuple[str, str] | None:
    """Return ``(reason, evidence)`` for the first rule matching ``folded`` outside a negation, or None.

    Args:
        folded: :func:`memctl.validator.fold.fold_for_matching` output.
    """
    for reason, pattern in _RULES:
        for match in pattern.finditer(folded):
            line_start = folded.rfind("\n", 0, match.start()) + 1
            if not _NEGATION.search(folded[line_start:match.start()]):
                return reason, match.group(0)[:48]
    return None
