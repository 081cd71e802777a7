"""A guarded force-push kept to one's own branches: "`git push --force-with-lease` only on your own branches".

The action classifier marks every command action-bearing, and the words of a force-push read as a history
rewrite, so a team's ordinary rule for rebased feature branches waits for a person in every language.
:func:`own_branch_lease` recognises that one shape, which sleep may judge like any fact
(:func:`memctl.sleep.trust.decide`): every command the text carries is ``git push --force-with-lease``
(with at most a remote and a branch or ``HEAD`` after it), the text scopes it to the writer's own,
personal, feature or topic branches (in the languages developers write such rules in), and it names no
shared branch (main, master, trunk, develop, release, production, shared) and has no exception
("except", "unless", "also"). ``--force-with-lease`` refuses to overwrite commits the writer has not seen
(git-push(1)); kept to a branch only its author pushes, it rewrites nobody else's history.

Source: git-push(1) on ``--force-with-lease``. Deterministic; never raises on a ``str``. What it does not
judge: whether the branch named is really the writer's own.
"""

from __future__ import annotations

import re

__all__ = ["own_branch_lease"]

_I = re.IGNORECASE
_COMMAND = re.compile(r"git\s+push\b[^`\n]*", _I)
_LEASE_ONLY = re.compile(r"git\s+push\s+--force-with-lease(?:=[\w/.-]+)?(?:\s+(?!-)[\w/.-]+){0,2}\s*", _I)
_OWN = re.compile(
    r"\b(?:own|personal|private|feature|topic)\b[^.;\n]{0,20}\bbranch|\bbranch\w*\b[^.;\n]{0,20}\b(?:you|they) own\b"
    r"|\b(?:propias?|propios?|tus|sus)\b[^.;\n]{0,20}\bram|\bram\w*\b[^.;\n]{0,20}\b(?:propias?|propios?|personales?)\b"
    r"|\beigenen?\b[^.;\n]{0,20}\bbranch|\bpropres?\b|\bpessoa(?:l|is)\b|\bpróprios?\b|\bproprio\b|\bpropri[ae]\b"
    r"|\bsendiri\b|\bkendi\b|\begna\b|\beigen\b|\bvlastn", _I)
_SHARED = re.compile(r"\b(?:main|master|trunk|develop|dev|release\w*|production|prod|shared|staging|default branch)\b"
                     r"|\b(?:except|unless|also|and also|as well as|too)\b", _I)


def own_branch_lease(text: str) -> bool:
    """True when every ``git push`` in ``text`` is a bare ``--force-with-lease`` push and the text keeps it to
    the writer's own branches, naming no shared one (module doc). Never raises; False for a non-``str``."""
    if not isinstance(text, str) or _SHARED.search(text) or not _OWN.search(text):
        return False
    pushes = [m.group(0).strip() for m in _COMMAND.finditer(text)]
    outside = re.sub(r"`[^`]*`", " ", text)
    if re.search(r"\||&&|;\s*\w+\s+-|\$\(|\bsudo\b|https?:", outside):
        return False
    return bool(pushes) and all(_LEASE_ONLY.fullmatch(p) for p in pushes)
