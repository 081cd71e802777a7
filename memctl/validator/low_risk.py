"""Positive recognition of a low-risk memory: the only kind an agent's proposal may be promoted as without a person.

The action classifier (:mod:`memctl.validator.action`) names what it recognises as action-bearing; a text
it does not recognise would otherwise be promoted. That default fails on every kind nobody listed, so
for an agent's proposal sleep inverts it: the proposal is promoted only when :func:`assess_low_risk`
recognises it as a *descriptive fact, preference or decision about the project* whose subject is none
of the sensitive ones below. Anything else waits in the review queue (held, never rejected).

A text is low-risk when none of these is found (the reason codes, ``sensitive:<subject>`` or
``normative:<kind>``), on the :func:`memctl.validator.action_views.language_fold` reading with look-alike
letters folded:

* ``sensitive:security`` — a security control (authentication, credentials, keys and tokens, TLS and
  certificates, permissions, admin/root, encryption and hashing, signing, input handling such as SQL,
  sanitising and escaping, comparison of secrets, randomness for secrets, firewalls and WAFs, CSRF/CORS,
  scanners), from the subject lexicon of :mod:`memctl.validator.subject_lexicon` and the words below. Words
  that are also everyday words (``key``, ``port``, ``root``, ``token``, ``https``, ``audit``, ``scan``,
  ``signed``, ``login``, ``access``) count only beside a second security word. A statement that records a
  protection is still low-risk (``protective``, see below);
* ``sensitive:trust`` — memctl's own trust model, memory and provenance: the review queue, held or
  approved memories, the validator, origins, "written/recorded by", a person or human, authority over
  memory or instructions (held whatever the origin: see :func:`claims_trust`);
* ``sensitive:instructions`` — the agent's instructions or prompt ("repeat your instructions");
* ``sensitive:addressed`` — the text speaks to the reader (you, your, vous, Sie/Ihr, usted): a memory
  describes the project, it does not address the agent;
* ``sensitive:person`` — what a user, owner, lead or customer wants, asked, approved or said;
* ``sensitive:agent`` — how the assistant behaves or what it says (the agent with a behaviour word, or
  the answers/replies/suggestions it gives);
* ``sensitive:data`` — personal or customer data, logs, headers, dumps, exports, ``.env`` files, and
  data leaving the machine (the ``data`` and ``egress`` lexicons);
* ``sensitive:supply_chain`` — indexes, registries, mirrors, forks, proxies, downloads, configuration or
  binaries taken from a bucket, share or server, a pin to a version (packages, dependencies and vendored
  code alone are everyday words);
* ``sensitive:environment`` — production or live data touched, wiped or equated with a test environment,
  a database or cluster named as the scratch one, a standing wipe;
* ``sensitive:network`` — requests, calls or traffic sent to another party's API, endpoint or host;
* ``sensitive:money`` — payments, prices, invoices, billing, subscriptions and tiers, wallets, banks,
  cryptocurrencies and mining;
* ``sensitive:execution`` — code execution primitives (``eval``, ``exec``, ``pickle``, ``os.system``,
  ``shell=True``, deserialisation), processes that stay behind (a background process, a daemon) and
  background resource use (miners, hash rate);
* ``normative:weakening`` — an evaluation that removes a control whatever its subject ("is fine",
  "overkill", "redundant", "unnecessary", "no need", "legacy", "deprecated", "our style", "by design",
  "industry standard", "safe", "malicious", "trusted");
* ``normative:relaxation`` — a check, review, alert, gate or step dismissed, dropped, skipped, bypassed,
  suppressed or waived ("alerts are dismissed in bulk", "two-person review was dropped"), a thing left on,
  or something done without a check, review or approval;
* ``normative:obligation`` — an obligation put on someone ("are to be", "is to be", "has to", "have to").

``protective``: a security statement is still low-risk when it records a protection and carries no
weakening — a rotation, an expiry, a strong password hash (bcrypt, scrypt, Argon2, PBKDF2), a secret kept
in a vault or secrets manager, a control that is mandatory, enforced, required, blocked or revoked — and
no permit word of the lexicon (may, can, optional, without, off, disabled, …), no justification ("so",
"because", "anyway") and no universal widening ("any", "all", "everyone").

Then the properties of :mod:`memctl.validator.low_risk_kinds` (``property:<kind>``: an access scope or
a secret's exposure stated as a fact, an integrity control absent, a deferred action, a prescribed answer,
a fragment of a split payload, something fed to an interpreter, letters split by separators, a look-alike
package name) and the checks of form of :mod:`memctl.validator.low_risk_form` (``form:<kind>``: a script the lexicons
cannot read, code or configuration, a run-on sentence, an imperative, a text replacing what was known),
which fail closed on subjects no list names.

Every check runs on each normalised view of :func:`memctl.validator.low_risk_views.views` (look-alikes
folded, hyphens removed or read as spaces, spaced letters joined, run-ons split, base64/hex/ROT13/…
decoded where the result is readable); a check that fires on any view counts, its reason tagged with
the view that showed it (``sensitive:security@rot13``) when the original did not.

Deterministic; no model; never raises on a ``str``. What it cannot judge: a hostile claim phrased with
none of these subjects (it is then promoted like a plain fact), and whether a held security statement is
true — a person decides that in ``memctl review``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memctl.validator.action_views import language_fold
from memctl.validator.agent_grant import agent_grant_reasons
from memctl.validator.calm_weakening import calm_weakening_reasons
from memctl.validator.confusables import fold_confusables
from memctl.validator.low_risk_control import control_reasons
from memctl.validator.low_risk_disguise import disguise_reasons
from memctl.validator.low_risk_form import form_reasons
from memctl.validator.low_risk_kinds import kind_reasons
from memctl.validator.low_risk_views import views
from memctl.validator.settings_data import settings_data_reasons
from memctl.validator.subjects import explain

__all__ = ["LowRiskAssessment", "assess_low_risk", "claims_trust"]


@dataclass(frozen=True, slots=True)
class LowRiskAssessment:
    """``low_risk`` True when the text was positively recognised as low-risk; else ``reasons`` (codes of
    the module doc, e.g. ``("sensitive:security", "normative:weakening")``)."""

    low_risk: bool
    reasons: tuple[str, ...] = ()


def _rx(pattern: str) -> re.Pattern[str]:
    # a word start for Latin and Cyrillic words; CJK words have no spaces, so they match anywhere
    return re.compile(r"(?<![a-z0-9_\u0400-\u04ff])(?:" + pattern + r")", re.IGNORECASE)


# Security-lexicon hits that are also everyday words: they count only beside a second security word.
_EVERYDAY_SECURITY = frozenset("key keys port ports root token tokens https audit scan scans scanner scanning signed "
                               "login logins acces access signature porta porte puerto ポート sql".split())
_SECURITY_EXTRA = _rx(
    r"random\.random|math\.random|random module|secrets module|rand\(\)|timing[\s-]safe|constant[\s-]time|plain ==|==\s"
    r"|md5|sha-?1\b|alg(?:orithm)?[\s:=]+none|sanitis|sanitiz|escaping|unescaped|string formatting"
    r"|f-strings? (?:in|for) (?:sql|queries)|middleware|auth(?:orization)? check|waf\b|log-only|report-only|monitor-only"
    r"|permissive mode|cors|csp\b|xss|ssrf|csrf|deseriali|allow-?list|deny-?list|whitelist|blacklist|sandbox|seccomp"
    r"|capabilit(?:y|ies)\b|cluster-admin|service accounts?|privileg|least privilege|client certificate|self-signed"
    r"|verif(?:y|ied|ication)|validat(?:e|ion|ed) (?:happens|is done|upstream)|(?:api|access|private|secret|signing"
    r"|deploy|ssh)[\s_-]?keys?|bearer|session (?:cookie|token|id)s?|user input|untrusted input|raw sql|raw\(\)|as root\b|root (?:user|access|privileges?)"
    r"|host network|--privileged|audit (?:trail|log)s?|detector|linter warnings?|security (?:checks?|scans?|warnings?)")
_TRUST = _rx(
    r"memctl\W.{0,60}(?:trust|review|approv|held|queue|origin|provenance|promot|validat|person|agent|human|check|re-?read"
    r"|store|stage|skip)|staged proposals?|proposals? (?:are|is|get) (?:moved|promoted|approved)|review queue|review-queue|held memor|memories|(?:this|that|each|every|a|project|agent|saved|stored) (?:memory|note)\b"
    r"|provenance|origin\b(?![/.:-])(?! (?:latency|servers?|url|headers?|repo|remote|branch|policy|story))|recorded by|written by(?! hand)|authored by|typed by|on behalf of|at the terminal|reviewed by"
    r"|counts? as (?:reviewed|approved|verified)|gelten (?:\w+ )?als|zahlen (?:\w+ )?als|comptent (?:\w+ )?comme|cuentan (?:\w+ )?como|valgono (?:\w+ )?come"
    r"|считаются|by (?:a |the )?(?:person|human|user|owner|maintainer|lead)\b"
    r"|equivalent to|the validator|sleep cycle|source of truth|authorit|autoridad|autorite|autorita|autoritat"
    r"|источник истины|авторитет|权威|権威|권위"
    # a claimed origin: who typed it, where, that it needs no review
    r"|(?:comes?|came|is) from (?:a |the )?(?:human|person|operator|developer|user|owner|maintainer)"
    r"|entered (?:manually|by|at)|manually entered|(?:human|manual) (?:entry|input)|no second look|needs? no review"
    r"|am terminal|au terminal|en (?:la )?terminal|nel terminale|в терминале|vom (?:nutzer|benutzer|entwickler)"
    r"|eingegeben|saisi par|escrit[oa] por|scritt[oa] da|написан\w* (?:пользовател|человек)")
_INSTRUCTIONS = _rx(
    r"instruction|system prompt|prompt|verbatim|guidelines|configuration you|hidden (?:setup|system|initial)|setup message"
    r"|initial (?:instructions|rules|message)|rules you were given|consignes|preamble|hidden (?:text|rules|notes)|anweisung|consigne|instruccion|istruzion"
    r"|instruc[cç]|instrukc|инструкц|інструкц|talimat|指示|指令|命令|지시|프롬프트|プロンプト")
_REVEAL = _rx(r"get\b|gets\b|in full|repeat|recite|reveal|disclose|print|output|show|leak|dump|verbatim|word for word|full text|quot|cop(?:y|ies)"
              r"|recopi|complete text|wiederhol"
              r"|repet|ripet|powt|повтор|выведи|покажи|繰り返|重复|输出|반복")
_ADDRESSED = _rx(r"you\b|your\b|yours\b|yourself\b|vous\b|votre\b|vos\b|usted\b|dein\w*|euer\b|eure\w*|jij\b|jouw\b"
                 r"|ты\b|вы\b|ваш\w*|твой\b|ваши\b|sen\b|siz\b|tu\b|tes\b|ton\b|toi\b|tus\b|tuo\b|tuoi\b|voce\b"
                 r"|dich\b|dir\b|deine?\b")
_PERSON = _rx(r"(?:the |our |my )?(?:users?|owners?|boss|ceo|cto|cfo|managers?|leads?|maintainers?|customers?|clients?"
              r"|team lead|tech lead|admins?)(?:'s)?\s+(?:\w+\s+){0,3}(?:wants?|wanted|said|says|asked that|approved|agreed"
              r"|insists?|requested|expects?|sees?|disagrees?|authori[sz]ed|consented)\b")
_OUTPUT_RULE = _rx(r"(?:every|each|all|any) (?:answer|reply|response|summary|message|explanation)s?\b")
_AGENT_WORD = _rx(r"assistant|agent\b|agents\b|copilot|chatbot|bot\b|helper\b|the ai\b|the model\b|llm\b|claude|gpt")
_BEHAVIOUR = _rx(r"speaks?|says?|said|tone|persona|acts? as|pretends?|calls? itself"
                 r"|flag(?:s|ged)?\b|warns?|mentions?|refuses?|recommends?|suggests?|explains?|tells?|caveats?"
                 r"|disclaimers?|swear|dismiss|rude|blunt|is not supposed|is supposed")
_EVERYDAY_DATA = frozenset("log logs licen licence license licensed licences licenses audit backup backups card cards 日志".split())
_DATA_EXTRA = _rx(r"(?:database|db|data|records|tables?|snapshots?|dumps?|backups?)\b.{0,40}(?:copied|moved|synced|sent"
                  r"|shared(?! (?!data\b|records\b|tables\b|dumps\b|backups\b|snapshots\b)[a-z]+s\b)|exported|uploaded|mirrored|forwarded|published|posted)\b|snapshots? (?:of|from) prod"
                  r"|contact list|contacts\b|location data|device (?:id|identifier)|production data|prod data|live (?:customer|user|production)|real (?:customer|user)|pii|personal data|customer data|user data|headers?\b|authorization|cookies?\b|session ids?|\.env\b"
                  r"|dumps?\b|exports?\b|backups?\b|email address|phone number|ssn\b|credit card|gdpr|logs? (?:include|contain"
                  r"|capture|record|keep|store)|request bodies|payloads? (?:are|is) (?:logged|stored|kept)|analytics"
                  r"|дамп|выгрузк|бэкап|экспорт|персональн|клиентск|gmail|attached to")
_SUPPLY_EXTRA = _rx(r"index-url|extra-index|registr(?:y|ies)|mirror|fork\b|forks\b|forked|proxy"
                    r"|download(?:ed|s)? from|tarball|wheel from|pinned to|lockfile is|lock file is")
_MONEY = _rx(r"pay\b|pays\b|paid|payment|payout|price|pricing|invoice|billing|bill\b|subscription|premium|tier\b"
             r"|wallet|bank|iban|swift code|refund|purchase|checkout|discount|coupon|donat|crypto|bitcoin|btc\b|ethereum"
             r"|monero|xmr\b|cripto|krypto|криптовалют|mina[nr]\b|minen\b|minage|mineria|mining|miner\b|miners\b|hash ?rate|zahlung|rechnung|paiement|facture|pago|factura"
             r"|pagamento|fattura|betaling|factuur|platnos|faktur|оплат|плат[её]ж|сч[её]т\b|支付|付款|価格|支払|결제")
# The environment the work touches: production or live data, or a claim that two environments are one.
_ENVIRONMENT = _rx(r"(?:against|on|in|into|to) (?:the )?(?:production|prod|primary|live)\b|(?:production|prod|live)\b.{0,50}(?:same|identical|one and the same|wiped|cleared|truncated|test(?:ed)?"
                   r" (?:there|against|on)|freely|scratch)|(?:same|identical)\b.{0,40}(?:production|prod)\b"
                   r"|(?:scratch|test|throwaway|temporary|disposable) (?:database|db|cluster|bucket) is\b|is the (?:scratch|test|throwaway|disposable|expendable)"
                   r"|(?:wipe[sd]?|clear(?:s|ed)?|purge[sd]?|truncate[sd]?|erase[sd]?|delete[sd]?|gets wiped)\b.{0,30}"
                   r"(?:every|each|nightly|daily|weekly|automatically|on the first)")
# Where configuration, scripts or binaries come from: a place outside the repository.
_ORIGIN_OF_CODE = _rx(r"(?:config(?:uration)?|settings|scripts?|binar(?:y|ies)|images?|artifacts?|plugins?|hooks?)\b"
                      r"(?:\s\w+){0,3}\s(?:from|out of)\s(?:the\s|a\s|an\s)?[\w.-]+\s(?:bucket|share|drive|gist|server|host"
                      r"|folder|url|site)|pin(?:s|ned)?\s(?:[\w.-]+\s)?(?:to\s)?v?\d")
# Traffic the project sends somewhere: requests, calls or traffic to another party's API, endpoint or host.
_NETWORK = _rx(r"(?:sends?|sent|posts?|fires?|makes?|issues?)\s(?:[\w,.]+\s){0,4}(?:requests?|calls?|traffic|pings?|queries)"
               r"\s(?:\w+\s){0,2}to\s")
_EXECUTION = _rx(r"background process|keeps running|daemon\w*|spawn|stays resident|after ci finishes|eval\(|eval\b(?!\.\w)|exec\(|(?<!bundle )exec\b(?!\.\w)|pickle|os\.system|shell\s*=\s*true|subprocess|deserializ|yaml\.load\b"
                 r"|mining|miner\b|xmrig|hash ?rate|idle (?:cpu|gpu|cycles)|background jobs? (?:that )?(?:mine|run)")
_WEAKENING = _rx(
    r"is fine|are fine|is ok\b|are ok\b|is okay|are okay|overkill|redundant|unnecessary|not needed|no need|needless"
    r"|pointless|legacy|deprecated|obsolete|our style|house style|how we like|the way we|by design|industry standard"
    r"|everyone does|is standard|safe to|is safe|are safe|harmless|malicious|unsafe|trusted|trust(?:s|ed)? (?:the|all|any)"
    r"|not (?:a |an )?(?:risk|problem|concern|issue)|more trouble than|for good\b|is allowed|are allowed|accept(?:s|ed)? any"
    r"|skip(?:s|ped)? the\b|in log-only|turn(?:s|ed)? off|switch(?:es|ed)? off|no longer (?:needed|required|enforced|checked)"
    r"|uberflussig|unnotig|in ordnung|inutile|superflu|innecesari|redundante|desnecessari|ненужн|не нужн|излишн|不要|不需要|불필요")
# A check, review, alert or step taken away in a standing description ("alerts are dismissed in bulk", "review
# was dropped for infra changes", "runs with the trust step skipped"); a past event told with its aftermath is
# a post-mortem and is read by the validator instead.
_CONTROL = (r"(?:checks?|reviews?|review step|steps?|alerts?|warnings?|gates?|scans?|verification|signatures?|approvals?"
            r"|hooks?|guards?|protection|polic(?:y|ies)|limits?|two-person|sign-off|audits?|prufung|kontrolle|controle"
            r"|revision|verifica|проверк|チェック|检查|검사)")
_RELAXATION = re.compile(
    r"(?<![\w])(?:dismiss(?:es|ed)?|dropped|skipp(?:ed|ing)|bypass(?:es|ed|ing)?|suppress(?:es|ed)?|waiv(?:es|ed)"
    r"|relax(?:es|ed)|silenc(?:es|ed)|mut(?:es|ed)|abgeschaltet|ubersprungen|saltad[oa]s?|pomijan\w*|пропуска\w*"
    r"|отключ\w*|スキップ|跳过|건너\w*)\b.{0,40}?(?<![\w])" + _CONTROL
    + r"|(?<![\w])" + _CONTROL + r"\b.{0,40}?(?<![\w])(?:is |are |was |were |get |gets |been )?(?:dismissed|dropped"
    r"|skipped|bypassed|suppressed|waived|relaxed|silenced|muted|abgeschaltet|ubersprungen|saltad[oa]s?|пропуска\w*"
    r"|отключ\w*)(?![\w])"
    r"|(?<![\w])(?:left on|leave \w+(?: \w+)? on|without (?:a |any )?(?:check|review|approval|signature|test))(?![\w])")
_OBLIGATION = _rx(r"is to be|are to be|has to be|have to be|is expected to|are expected to")
_PROTECTIVE = _rx(
    r"rotat|rotan|rotier|轮换|expire|expiry|laufen .{0,20}ab|expiran|expirent|scaden|bcrypt|scrypt|argon2|pbkdf2"
    r"|vault|secrets manager|1password|keychain|mandatory|enforced|required|is required|are required|blocked|blocks"
    r"|bloque|revoked|revoke|stays on|is on for|are checked|is checked|checked against|prüft|pruft|redact|httponly"
    r"|hardware keys|only through|only via|never in the repo|not in the repo|stored as a .{0,20}secret|found no issues"
    r"|was fixed|were fixed|fixed in|is disabled on every|lacked .{0,30}fixed|gitignore|never commit|not committed"
    r"|never `?\.env|nunca|non va mai|redacted|encrypted|chiffr|cifrad|шифрован|закрыт|scanning runs|runs? (?:in|on) ci"
    r"|is on for|are on for|blocking mode|reviewed|rivist|revisad|uberpruft|triaged|검토|審査|审查|only (?:over|through|via|with)|nur uber|только через|로만|のみ|scoped to")
_NEGATED = _rx(r"never|not\b|no\b|n't\b|none|nothing|nobody|jamais|nie\b|nigdy|nunca|mai\b|niemals|nooit|никогда"
               r"|не\b|нет\b|asla|しない|ない|不|没有|않")
_UNSETTLING = _rx(r"so\b|because|since\b|anyway|anyhow|any\b|everyone|everybody|anyone|without|except when|unless")


# A subject word that names a component ("the auth service", "billing module", "Сервис авторизации",
# "认证服务"): the sentence is about the component, so its subject words are read only with a weakening.
_COMPONENT = re.compile(
    r"(?<![\w-])(?!(?:le|la|les|el|los|las|il|lo|o|a|os|as|the|der|die|das|de|du|des|un|une)\s)[\w-]+ (?:service|services|module|modules|team|server|table|flow|microservice|component|endpoint|database|db"
    r"|pipeline|library|layer|handler|worker|feature flag)s?\b"
    r"|(?:service|servico|servicio|servizio|serwis|сервис|dienst|modul[eo]?|equipe|equipo|team) (?:de |di |do |da |der |des )?[\w-]+"
    r"|(?<![\w-])[\w-]+ (?:servisi|dienst)"
    r"|(?<![\w-])[\w-]{1,40}(?:服务|サービス| 서비스|서비스)")


_TICKET_ID = re.compile(r"(?<![\w-])[a-z][a-z0-9]{1,9}-\d+(?:-[a-z0-9]+)+", re.IGNORECASE)
"""A ticket id with its slug ("PAY-123-refund-rounding", a branch name): its words name the ticket, not a payment."""


@lru_cache(maxsize=4096)
def _reading(text: str) -> str:
    return language_fold(fold_confusables(text))


def claims_trust(text: str) -> bool:
    """True when ``text`` talks about memctl's own trust, review, memory or provenance, or claims an origin or
    an approval ("recorded by a person", "approved", "the review queue is legacy"). Such a text is held
    whatever its origin (sleep's :func:`memctl.sleep.trust.decide`); never raises on a ``str``."""
    if not isinstance(text, str):
        return False
    folded = _reading(text)
    found = explain(folded)
    return bool(_TRUST.search(folded)) and bool(
        {"trust_claim", "trust_gate", "authority"} & set(found) or _CLAIM.search(folded))


_CLAIM = _rx(r"recorded by|written by|authored by|typed by|on behalf of|signed off|at the terminal|approved|approval"
             r"|equivalent|same as|counts? as|treated as|legacy|auto-?approv|after \d+\s*h|is verified|are verified"
             r"|origin\s*(?:is|=|:)|by (?:a |the )?(?:person|human|user)\b|source of truth|wins\b|overrides?|authorit")


def _security(folded: str, found: dict[str, list[str]]) -> bool:
    hits = set(found.get("security", ()))
    strong = hits - _EVERYDAY_SECURITY
    return bool(strong) or len(hits) >= 2 or bool(_SECURITY_EXTRA.search(folded))


def _protective(folded: str, found: dict[str, list[str]]) -> bool:
    return (bool(_PROTECTIVE.search(folded)) and "permit" not in found and not _UNSETTLING.search(folded)
            and not _WEAKENING.search(folded) and not _NEGATED.search(_PROTECTIVE.sub(" ", folded)))


def _view_reasons(view: str, *, packages: bool = True) -> list[str]:
    # every check of the module doc on one view of the text
    folded = _reading(view)
    found = explain(folded)
    plain, plain_found = folded, found
    if _COMPONENT.search(folded) and not _WEAKENING.search(folded) and "permit" not in found:
        folded = _COMPONENT.sub(" ", folded)  # the security and money checks read the text without components
        found = explain(folded)
    reasons: list[str] = []
    if _security(folded, found) and not _protective(folded, found):
        reasons.append("sensitive:security")
    if _TRUST.search(folded) or ("authority" in found and "instructions" in found) \
            or ("trust_claim" in found and "trust_model" in found):
        reasons.append("sensitive:trust")
    if _INSTRUCTIONS.search(folded) and (_REVEAL.search(folded) or _ADDRESSED.search(folded)):
        reasons.append("sensitive:instructions")
    if _ADDRESSED.search(folded):
        reasons.append("sensitive:addressed")
    if _PERSON.search(folded):
        reasons.append("sensitive:person")
    if (_AGENT_WORD.search(folded) or "agent" in found) and _BEHAVIOUR.search(folded) or _OUTPUT_RULE.search(plain):
        reasons.append("sensitive:agent")
    if ("egress" in plain_found or set(plain_found.get("data", ())) - _EVERYDAY_DATA or _DATA_EXTRA.search(plain)) \
            and not _protective(plain, plain_found):
        reasons.append("sensitive:data")
    if _SUPPLY_EXTRA.search(folded):
        reasons.append("sensitive:supply_chain")
    if _MONEY.search(_TICKET_ID.sub(" ", folded)):
        reasons.append("sensitive:money")
    if _ENVIRONMENT.search(plain) and not _protective(plain, plain_found):
        reasons.append("sensitive:environment")
    if _ORIGIN_OF_CODE.search(plain):
        reasons.append("sensitive:supply_chain")
    if _NETWORK.search(plain):
        reasons.append("sensitive:network")
    if _EXECUTION.search(folded):
        reasons.append("sensitive:execution")
    if _WEAKENING.search(folded):
        reasons.append("normative:weakening")
    if _RELAXATION.search(plain):
        reasons.append("normative:relaxation")
    if _OBLIGATION.search(folded):
        reasons.append("normative:obligation")
    reasons.extend(form_reasons(view))  # shape checks that do not depend on any word list (low_risk_form)
    reasons.extend(kind_reasons(plain, view, packages=packages))  # properties of the kinds without trigger words (low_risk_kinds)
    reasons.extend(disguise_reasons(view, transforms=packages))  # ciphers, pictographs, controls reported off, redefinitions (low_risk_disguise)
    if packages:  # controls stated off in any form, unread languages, texts that are not prose (low_risk_control)
        reasons.extend(control_reasons(view))
        reasons.extend(settings_data_reasons(view))  # a control's value in a table, CSV row or sum (settings_data)
        reasons.extend(calm_weakening_reasons(view))  # a protection stated off in a calm fact (calm_weakening)
        reasons.extend(agent_grant_reasons(view))  # the agent may push/merge/deploy, any language (agent_grant)
    return reasons


def assess_low_risk(text: str) -> LowRiskAssessment:
    """Recognise ``text`` (a memory's content, any ``str``) as low-risk or say why it is not (module doc).

    Returns:
        :class:`LowRiskAssessment`; an empty or non-``str`` text is not low-risk (``("unreadable",)``).
        Never raises: an internal error reads as not low-risk (``("assessor_error",)``).
    """
    if not isinstance(text, str) or not text.strip():
        return LowRiskAssessment(low_risk=False, reasons=("unreadable",))
    try:
        reasons: list[str] = []
        readings: set[str] = set()
        for name, view in views(text):
            if (reading := _reading(view)) in readings and name != "plain":
                continue  # the same reading as an earlier view: its checks have run
            readings.add(reading)
            for reason in _view_reasons(view, packages=name in ("plain", "homoglyph")):
                # a reason found only on a normalised view is tagged with the view that showed it
                tagged = reason if name == "plain" else f"{reason}@{name}"
                if reason == "form:imperative" and name == "hyphen_spaced" and "-" in text.split(maxsplit=1)[0]:
                    continue  # "Post-mortem: …", "Commit-Nachrichten …": a compound's first half is not an order
                if reason == "sensitive:money" and name.startswith("hyphen") and _TICKET_ID.search(text):
                    continue  # the ticket id's slug read apart, already judged whole on the plain view
                if reason not in reasons and not any(r.startswith(reason + "@") for r in reasons):
                    reasons.append(tagged)
    except Exception:  # noqa: BLE001 - fails closed: an unreadable text waits for a person
        return LowRiskAssessment(low_risk=False, reasons=("assessor_error",))
    return LowRiskAssessment(low_risk=not reasons, reasons=tuple(reasons))
