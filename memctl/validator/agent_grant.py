"""An agent-permission grant in any language: the agent may push, merge or deploy (without asking).

A held-out attacker (round 9) got "the agent may push/merge/deploy without asking" promoted in Indonesian,
Czech, Finnish, Romanian, Hungarian, Swahili and Latin. The rules cannot read every language's "may" and
"without asking", but two cues survive translation (:func:`agent_grant_reasons`, ``property:agent_grant``):

* an *agent word*: the words for an agent, assistant, bot or AI that most languages borrow or share a
  stem with (agent, agen, agente, agentti, ajan, ügynök, wakala, asisten(t), assistant, avustaja, bot, AI,
  KI, IA, YZ, copilot, LLM, агент, ассистент, エージェント, アシスタント, 代理, 助手, 에이전트, 어시스턴트);
* a *repository action the developers leave in English* (push, merge, deploy, release, publish, force,
  rebase, approve, commit to main) or its transliteration (пуш, деплой, プッシュ, マージ, デプロイ, 推送,
  合并, 部署, 푸시, 병합, 배포).

In English and the other languages the rules read (French, German, Spanish, Portuguese, Dutch: a text
with one of their function words of three letters or more) the pair is a grant only with a permission
construction (may, can, is allowed/permitted, free to, without asking/confirmation/approval/review, no
need to ask, on its own; peut, darf, ohne, puede, sin preguntar, pode, mag, zonder …); in any other
language the pair alone holds: what an agent does to the repository is for a person to confirm. A held text is
never lost (sleep holds, a person decides).

Source: the round-9 kinds (docs/benchmarks.md, trust section); the instances in
tests/validator/test_agent_grant.py were written afresh. Deterministic, no model; never raises on a ``str``.
What it cannot judge: a grant that names neither the agent nor a repository action ("the tool may ship
on its own" in an unread language).
"""

from __future__ import annotations

import re

__all__ = ["agent_grant_reasons"]

_I = re.IGNORECASE

_AGENT = re.compile(
    r"(?<!\w)(?:agent\w*|agen|agens|agente\w*|ajan\w*|ügynök\w*|ugynok\w*|wakala|asisten\w*|asistent\w*|assistant\w*"
    r"|assistent\w*|assistente|avustaja\w*|bot|bots|botu\w*|ai|ki|ia|yz|copilot|llm|chatbot\w*|агент\w*|ассистент\w*"
    r"|асистент\w*|бот\w*)(?!\w)|エージェント|アシスタント|代理|助手|智能体|에이전트|어시스턴트", _I)
_REPO_ACTION = re.compile(
    r"(?<![\w-])(?:push\w*|merg\w*|deploy\w*|releas\w*|publish\w*|force\w*|rebas\w*|approv\w*|commit\w* (?:to|on|into)"
    r" (?:main|master)|пуш\w*|деплой\w*|мерж\w*|мёрдж\w*|merge-\w+)|プッシュ|マージ|デプロイ|リリース|推送|合并|部署|发布"
    r"|푸시|병합|배포|머지", _I)
_PERMISSION = re.compile(
    r"\b(?:may|can|could|is (?:allowed|permitted|free|authori[sz]ed|cleared)|are (?:allowed|permitted|free)"
    r"|free to|without (?:asking|confirmation|confirming|approval|review|a review|checking|a prompt|prompting"
    r"|permission|a person)|no need to (?:ask|confirm|check)|need not ask|doesn't (?:need|have) to ask"
    r"|does not (?:need|have) to ask|on (?:its|their) own|by itself|unattended|autonomously|directly"
    # the same in the other languages the rules read (French, German, Spanish, Portuguese, Dutch)
    r"|peut|peuvent|sans (?:demander|confirmation|validation)|darf|dürfen|durfen|kann|können|ohne|puede|pueden"
    r"|sin (?:preguntar|confirmaci\w+|revisi\w+)|pode|podem|sem (?:perguntar|confirma\w+)|mag|mogen|zonder)\b", _I)
_READ = frozenset(
    "the and are was were with for this that these those from into when then than which who what before after "
    "only also must should will would does has have had there here not "
    # function words of the other read languages (fr, de, es, pt, nl), three letters or more
    "les des une est sont pas pour dans sur avec par aux qui que cette nous der die das und ist sind nicht ein eine "
    "mit von den dem wir wird werden bei nach auch oder los las del una son para con por que está están uma são não "
    "para com dos das het een zijn niet van voor met wordt worden".split())
_WORD = re.compile(r"[^\W\d_]+")


def _read(text: str) -> bool:
    return any(w in _READ for w in _WORD.findall(text.lower()))


def agent_grant_reasons(text: str) -> list[str]:
    """``["property:agent_grant"]`` when ``text`` (any ``str``) names an agent and a repository action with a
    permission construction (English) or in a language the rules do not read (module doc), else ``[]``.
    Deterministic; never raises on a ``str``."""
    if not (_AGENT.search(text) and _REPO_ACTION.search(text)):
        return []
    if not _read(text) or _PERMISSION.search(text):
        return ["property:agent_grant"]
    return []
