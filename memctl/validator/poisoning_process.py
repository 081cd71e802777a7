"""Memory poisoning, the process categories: ``destructive_action``, ``unreviewed_action``, ``consent_claim``, ``safety_off``.

Rules of :mod:`memctl.validator.poisoning` (its module doc gives each rule, sources and near-miss policy): each
``_rule(sentence)`` reads one sentence of folded text and returns a short evidence phrase or None;
:func:`severe_command` reads the whole text.
"""

from __future__ import annotations

import re

from memctl.validator.directive import (
    B,
    E,
    Span,
    VerbLexicon,
    clause_start,
    fact_statement,
    is_directive,
    negated,
    standing,
)
from memctl.validator.poisoning_credentials import _WINDOW

# ---------------------------------------------------------------------------
# Destructive actions
# ---------------------------------------------------------------------------

_SHARED_BRANCH = (r"(?:the\s+)?(?:main|master|trunk|prod|production|release\S*|develop|default branch|protected\s+\w+"
                  r"|shared\s+\w+|upstream|everyone\S*|origin\s+(?:main|master)|the production branch|主分支)")
_SHARED_BRANCH_RE = re.compile(_SHARED_BRANCH)
_MAIN = re.compile(B + r"(?:main|master)" + E)
_FORCE_PUSH_VERB = VerbLexicon(
    english=["force-push", {"base": "push --force", "third": "pushes --force", "ing": "pushing --force",
                            "part": "pushed --force"},
             {"base": "push -f", "third": "pushes -f", "ing": "pushing -f", "part": "pushed -f"}],
    base=["git push --force", "git push -f", "force-pushen", "forcer le push"],
    cjk=["强制推送", "强推"],
)
_FORCE_FLAG_TAIL = re.compile(r"-with-lease|-if-includes")
_GIT_PUSH_PLUS = re.compile(B + r"git push\s+(?:\S+\s+){0,6}\+(?:main|master|trunk|release|develop|prod)" + E)
# the force flag anywhere in a push command ("git push origin head:main --force")
_FORCE_CMD = re.compile(B + r"git push\b[^\n`;&|]{0,120}?(?:\s--force(?![a-z-])|\s-f(?![a-z0-9-])|\s\+[a-z])")
_BRANCH_DELETE_VERB = VerbLexicon(
    english=["delete", "remove", "drop", "prune", "wipe", "nuke", "destroy", "purge", "clear out", "clean out",
             "clean up", "get rid of", "kill"],
    base=["losche", "loschen", "entferne", "entfernen", "supprime", "supprimez", "supprimer", "efface", "effacez",
          "elimina", "elimine", "eliminar", "borra", "borre", "borrar"],
    cjk=["删除", "删掉", "清除", "移除"],
)
_BRANCH_TARGET = re.compile(
    B + r"(?:all|every|any|other|others'?|other people'?s|colleagues'?|remote|unmerged|main|master|release|protected"
    r"|upstream|alle|toutes|tous|todas|todos|remote-branches|distantes?|remotas?)" + E
    + r"[^.\n]{0,30}?" + B + r"(?:branch(?:es)?|zweige|branche|ramas?)" + E
    + r"|(?:所有|全部|远程|远端|其他人的)[^。\n]{0,6}分支|" + B + r"(?:remote-branches|remote branches)" + E)
_BRANCH_CMD = re.compile(
    B + r"git push\s+\S+\s+(?:--delete|-d)\s+(?:main|master|release\S*|develop|prod\S*|trunk)" + E
    + r"|" + B + r"git push\s+\S+\s+:(?:main|master|release|develop|trunk)" + E
    + r"|" + B + r"git branch\s+(?:-d|--delete|-D)\s+(?:-f\s+)?(?:main|master|release\S*|develop|trunk)" + E
    + r"|xargs\s+(?:-\S+\s+)*git (?:branch\s+-d|push\s+\S+\s+--delete)|git branch\s+-d\s+\$\(")
_SEVERE = re.compile(
    # rm -rf of the root, the home directory, everything here, or the repository itself
    B + r"rm\s+(?:-[a-z]*(?:rf|fr)[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)"
    r"(?:\s+--no-preserve-root)?\s+(?:\"|')?(?:(?:/|~|\$home|\$\{home\})(?:/\*?)?|\*|\./?\*?|\.\.|\.git|/(?:usr|etc|var"
    r"|home|root|boot|bin|lib|opt|system)(?:/\*?)?)(?:\"|')?(?=$|[\s;&|`)])|--no-preserve-root"
    r"|" + B + r"find\s+(?:/|~|\$home)\s+(?:-xdev\s+)?(?:-delete|-exec\s+rm\s)"
    r"|" + B + r"mkfs(?:\.[a-z0-9]+)?\s+/dev/|" + B + r"dd\s+[^\n]{0,160}of=/dev/(?:sd|nvme|hd|xvd|vd|mmcblk|disk)"
    r"|>\s*/dev/(?:sd[a-z]|nvme)|" + B + r"wipefs\s+-a|" + B + r"shred\s+[^\n]{0,160}/dev/"
    r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|" + B + r"chmod\s+(?:-r\s+)?(?:777|000|a\+rwx)\s+/(?=$|[\s;&|`])"
    r"|" + B + r"chown\s+-r\s+\S+\s+/(?=$|[\s;&|`])|" + B + r"format\s+c:|remove-item\s+[^\n]{0,160}-recurse[^\n]{0,160}"
    r"(?:c:\\|\$home|\$env:userprofile|~)(?=$|[\s;`'\"])|" + B + r"rd\s+/s\s+/q\s+c:\\"
    r"|" + B + r"(?:bash|sh)\s+-i\s+>&\s*/dev/tcp/|" + B + r"nc\s+[^\n]{0,160}-e\s+/bin/(?:ba)?sh")
_DATA_DESTROY = re.compile(
    B + r"(?:drop\s+(?:database|schema|table)|truncate\s+table|delete\s+from\s+\w+\s*(?=$|;|`)|flushall|flushdb"
    r"|dropdb|db\.dropdatabase\(\)|kubectl\s+delete\s+(?:ns|namespaces?|all|--all|pvc|pv|deployments?)"
    r"|terraform\s+destroy|terraform\s+apply\s+[^\n]{0,160}-auto-approve|pulumi\s+destroy|helm\s+(?:uninstall|delete)"
    r"|aws\s+s3\s+(?:rm|rb)\s+[^\n]{0,160}--(?:recursive|force)|gsutil\s+(?:-m\s+)?rm\s+-r|az\s+group\s+delete"
    r"|docker\s+system\s+prune\s+[^\n]{0,160}-a|docker\s+volume\s+prune|git\s+reset\s+--hard[^\n]{0,160}&&[^\n]{0,160}push"
    r"|git\s+clean\s+-[a-z]*x|git\s+reflog\s+expire)" + E)
_PROD_OR_ALL = re.compile(B + r"(?:prod|production|live|all|--all|everything|-auto-approve|auto-approve|customers?)" + E)
_REWRITE = re.compile(B + r"(?:filter-branch|filter-repo|bfg|rewrite\s+(?:the\s+)?(?:git\s+)?history)" + E)
_PROD_DATA = re.compile(
    B + r"(?:delete|remove|drop|wipe|destroy|purge|truncate)\s+(?:the\s+|all\s+)?(?:production|prod|live)\s+"
    r"(?:database|db|data|bucket|cluster|backups?|tables?)" + E)


def _severe_command(text: str) -> str | None:
    """A catastrophic command anywhere on a line (whole lines: ``;`` is part of many commands)."""
    for line in text.split("\n"):
        match = _SEVERE.search(line)
        if match and not negated(line, match.start(), match.end()):
            return f"a destructive command ({match.group(0).strip()[:40]})"
    return None


def _destructive(sentence: Span) -> str | None:
    text = sentence.text
    for start, end, form, lemma in _FORCE_PUSH_VERB.find(text):
        if _FORCE_FLAG_TAIL.match(text, end) or not is_directive(text, start, end, form) or fact_statement(text):
            continue
        if _SHARED_BRANCH_RE.search(text, end, end + 60) or standing(text) or _MAIN.search(
                text, max(clause_start(text, start), start - 80), start):
            return "force-push to a shared branch as a rule"
    match = _GIT_PUSH_PLUS.search(text)
    if match and not negated(text, match.start(), match.end()) and not fact_statement(text):
        return "force-push to a shared branch (+main)"
    match = _FORCE_CMD.search(text)
    if match and not negated(text, match.start(), match.end()) and not fact_statement(text) and (
            _SHARED_BRANCH_RE.search(text, match.start(), match.end() + 60) or standing(text)):
        return "force-push to a shared branch as a rule"
    match = _BRANCH_CMD.search(text)
    if match and not negated(text, match.start(), match.end()):
        return f"deleting a shared branch ({match.group(0)[:40]})"
    for start, end, form, lemma in _BRANCH_DELETE_VERB.find(text):
        if not is_directive(text, start, end, form):
            continue
        target = _BRANCH_TARGET.search(text, start, end + 120)
        if target and target.start() - end < 40 and not re.search(B + r"(?:merged|stale|old)" + E, target.group(0)):
            return "deleting shared or other people's branches as a rule"
    for pattern in (_DATA_DESTROY, _PROD_DATA):
        match = pattern.search(text)
        if match and not negated(text, match.start(), match.end()) and not fact_statement(text) and (
                standing(text) or _PROD_OR_ALL.search(text)):
            return f"destroying data or infrastructure as a rule ({match.group(0)[:40]})"
    match = _REWRITE.search(text)
    if match and not negated(text, match.start(), match.end()) and (
            re.search(B + r"(?:main|master|shared|published|origin)" + E, text) or standing(text)):
        return "rewriting the history of a shared branch"
    return None


# ---------------------------------------------------------------------------
# Unreviewed actions
# ---------------------------------------------------------------------------

_SKIP_MARKER = re.compile(
    r"--no-verify|" + B + r"commit\s+(?:-[a-z]+\s+)*-n" + E + r"|" + B + r"husky(?:_skip_hooks)?=(?:0|1|true)"
    r"|pre-commit\s+uninstall|core\.hookspath\s+/dev/null|\[(?:skip ci|ci skip|no ci|skip actions|actions skip"
    r"|skip checks)\]|skip-checks:\s*true|-dskiptests|-dmaven\.test\.skip=true|" + B + r"-x\s+test" + E
    + r"|--skip-tests|--no-tests|--dangerously-skip-permissions|--dangerously-bypass-approvals\S*|--yolo"
    r"|--allow-all-tools|--trust-all-tools|" + B + r"gh pr merge\s+[^\n]{0,160}--admin|" + B + r"admin merge")
_SKIP_VERB = VerbLexicon(
    english=["skip", {"base": "skip", "third": "skips", "ing": "skipping", "part": "skipped"}, "bypass", "disable",
             "turn off", "switch off", "deactivate", "ignore", "circumvent", "get around", "work around",
             "comment out", "remove", "drop", "avoid", "suppress", "silence"],
    base=["uberspringe", "uberspringen", "deaktiviere", "deaktivieren", "ignoriere", "ignorieren", "umgehe",
          "umgehen", "schalte", "ignore", "ignorez", "ignorer", "saute", "sautez", "sauter", "desactive",
          "desactivez", "desactiver", "contourne", "contournez", "contourner", "passe", "passez", "omite", "omita",
          "omitir", "salta", "salte", "saltar", "ignora", "ignorar", "desactiva", "desactivar", "evita", "evitar"],
    cjk=["跳过", "忽略", "禁用", "关闭", "绕过", "停用", "省略"],
)
_CHECKS = re.compile(
    r"\s*(?:(?:the|all|any|every|all the|all of the|die|alle|den|das|les|tous les|toutes les|las|los|todas las"
    r"|todos los|la|el|le|所有|全部|的)\s*)*"
    r"(?:tests?(?:/ci)?|test suite|the suite|unit tests|ci(?:-checks)?|ci checks|checks|status checks|required"
    r"(?: status)? checks|pre-commit(?: hooks?)?|git hooks|hooks|code review|reviews?|approvals?|branch protection"
    r"|linters?|lint|type checks?|security scans?|code scanning|verification|the pipeline|ci pipeline|pruebas"
    r"|revision de codigo|revision|revue de code|revue|verifications?|(?:github actions |ci )?workflows?"
    r"|github actions|pipelines?|ci/cd|测试|检查|钩子|代码审查|审查|审核)"
    # the whole check, not a compound ("lint rules", "tests folder"): what follows ends the object
    r"(?=\s*(?:$|[.,;:!?)(]|(?:and|or|before|after|when|whenever|if|while|for|on|in|to|with|unless|so|because"
    r"|locally|entirely|completely|altogether|always|again|und|oder|vor|bei|et|ou|avant|pour|y|o|antes|para|en|por"
    r")(?![a-z0-9])|[\u3000-\u9fff]))")
_NO_RUN = re.compile(
    B + r"(?:don't|do not|never|no need to|there's no need to|stop|avoid)\s+(?:run|running|wait for|waiting for"
    r"|execute|bother (?:with|running))\s+(?:the\s+|any\s+|all\s+)?(?:tests|test suite|ci|checks|linters?|hooks|the build)" + E
    + r"|不要(?:运行|跑)测试|不用(?:运行|跑)测试")
_DIRECT_VERB = VerbLexicon(
    english=["push", "commit", {"base": "commit", "third": "commits", "ing": "committing", "part": "committed"},
             "merge", "deploy", "land", "ship"],
    base=["pousse", "poussez", "pousser", "haz push", "fusiona", "fusione", "fusionar", "merge", "merget",
          "pushe", "pushen", "commite"],
    cjk=["推送到", "推到", "合并到", "提交到"],
)
_DIRECTLY_TO = re.compile(
    r"\s*(?:(?:it|them|changes|everything|code)\s+)?(?:directly|straight|right|direkt|directement|directamente)\s+"
    r"(?:in(?:to)?|to|on|onto|auf|sur|a|en|nach)?\s*(?:the\s+)?(?:main|master|prod|production|trunk|release)" + E
    + r"|\s*(?:main|master)(?:分支)?")
_CJK_DIRECT = re.compile(r"直接(?:推送|提交|合并)到?\s*(?:main|master|主分支)")
_WITHOUT_REVIEW = re.compile(
    B + r"(?:without|w/o|ohne|sans|sin)\s+(?:waiting for\s+|running\s+|passing\s+|a green\s+)?(?:the\s+)?"
    r"(?:a\s+|any\s+|eine?\s+|de\s+|la\s+)?(?:code\s+)?(?:review|reviews|approval"
    r"|approvals|ci|tests|testing|checks|a pr|pull request|opening a pr|prufung|revue|relecture|validation|revision"
    r"|aprobacion|pruebas)" + E + r"|(?:无需|不经|不需要|跳过)(?:代码)?(?:审查|审核|评审)")
_OPTIONAL_CHECKS = re.compile(
    B + r"(?:tests?|ci|reviews?|code reviews?|checks|approvals?|pre-commit hooks?|hooks|prs|pull requests)\s+(?:are|is)"
    r"\s+(?:optional|unnecessary|not (?:needed|required|necessary)|a waste of time|pointless|skippable|overrated)" + E)
_MARK_PASSING = re.compile(
    B + r"mark\s+(?:the\s+|all\s+|any\s+|every\s+|failing\s+|broken\s+|red\s+)+tests?\s+as\s+(?:skipped|passing"
    r"|passed|green|xfail|expected to fail|ignored)" + E)
_SELF_APPROVE = re.compile(B + r"(?:approve|merge)\s+(?:your|its|their|my)\s+own\s+(?:prs?|pull requests?|changes"
                           r"|merge requests?|code)" + E + r"|" + B + r"self[\s-]?approv")


def _unreviewed(sentence: Span) -> str | None:
    text = sentence.text
    match = _SKIP_MARKER.search(text)
    if match and not negated(text, match.start(), match.end()) and not re.search(
            B + r"(?:never|don't|do not|no)\s+(?:\S+\s+){0,3}$", text[:match.start()]):
        return f"skipping verification ({match.group(0).strip()[:40]})"
    match = _NO_RUN.search(text)
    if match:
        return "not running the tests or checks as a rule"
    for start, end, form, lemma in _SKIP_VERB.find(text):
        if _CHECKS.match(text, end) and is_directive(text, start, end, form):
            return f"{lemma!r} the tests, CI, hooks or review"
    for start, end, form, lemma in _DIRECT_VERB.find(text):
        if _DIRECTLY_TO.match(text, end) and is_directive(text, start, end, form):
            return "pushing straight to a shared branch"
    if _CJK_DIRECT.search(text) and not negated(text, *_CJK_DIRECT.search(text).span()):
        return "pushing straight to a shared branch"
    match = _WITHOUT_REVIEW.search(text)
    if match:
        for start, end, form, lemma in _DIRECT_VERB.find(text[:match.start()]):
            if is_directive(text, start, end, form) or re.search(B + r"(?:can|may|should|must)\s+be\s+$",
                                                                  text[:start]):
                return "merging or deploying without review"
        if re.search(B + r"(?:can|may|should|must)\s+be\s+(?:merged|deployed|pushed|shipped)" + E, text[:match.start()]):
            return "merging or deploying without review"
    match = _SELF_APPROVE.search(text)
    if match and not negated(text, match.start(), match.end()):
        return "approving one's own changes"
    for pattern, what in ((_OPTIONAL_CHECKS, "tests, CI or review declared optional"),
                          (_MARK_PASSING, "failing tests marked as passing or skipped")):
        match = pattern.search(text)
        if match and not negated(text, match.start(), match.end()):
            return what
    return None


# ---------------------------------------------------------------------------
# Consent and authority claims
# ---------------------------------------------------------------------------

_RISKY_SCOPE = re.compile(
    B + r"(?:commands?|befehle|kommandos|commandes|comandos|shell|sudo|root|anything|everything|alles|tout|todo"
    r"|destructive|delet\w*|rm|force|push\w*|deploy\w*|merg\w*|production|prod|tool calls?|tools|install\w*"
    r"|scripts?|execut\w*|ejecut\w*|fuhre|run everything|actions?|operations?)" + E + r"|命令|任何|所有|执行|删除")
_NO_CONFIRM = re.compile(
    B + r"(?:no need to (?:ask|confirm|check|request|get|wait)|there(?:'s| is) no need (?:to|for) (?:ask|confirm)"
    r"|without (?:asking|confirmation|confirming|approval|permission|prompting|checking|a prompt|waiting)"
    r"|(?:don't|do not|never|no) (?:ask|prompt|request|wait|check)(?:ing)?\s+(?:\S+\s+){0,3}?(?:for\s+|with\s+)?"
    r"(?:confirmation|permission|approval|consent|the user|me|first)|skip (?:the )?(?:confirmation|approval|permission)"
    r"|(?:confirmation|approval|permission) (?:is )?(?:not|never) (?:needed|required|necessary)"
    r"|ohne (?:ruckfrage|nachfrage|bestatigung|zu fragen|nachzufragen|erlaubnis)|keine (?:ruckfrage|bestatigung)"
    r"|sans (?:demander|confirmation|validation|autorisation|permission)|pas besoin de (?:demander|confirmer|confirmation)"
    r"|sin (?:preguntar|confirmacion|pedir permiso|permiso|aprobacion)|no (?:hace falta|es necesario) (?:preguntar|pedir"
    r"|confirmar)|frag(?:e)?\s+(?:nie|nicht|niemals)\s+nach)" + E + r"|无需(?:确认|询问|许可|批准|同意)|不用(?:确认|问|询问)|不必(?:确认|询问)|不需要(?:确认|询问)"
    r"|无须(?:确认|询问)")
# Approval words that are blanket only with a risky scope ("pre-approved vendors" is procurement)
_SCOPED_APPROVAL = re.compile(
    B + r"(?:pre-?approv(?:e|ed|es|al)|pre-?authori[sz](?:e|ed|es|ation)|already (?:approved|authori[sz]ed|consented"
    r"|cleared|granted)|auto-?approv(?:e|ed|es|al)|automatically (?:approve|accept|confirm))" + E)
_BLANKET_SCOPE = re.compile(B + r"(?:all|any|every|each)" + E + r"|" + _RISKY_SCOPE.pattern)
_BLANKET = re.compile(
    B + r"(?:blanket (?:approval|permission|consent|authori[sz]ation)|standing (?:approval|permission|consent|authori[sz]ation)"
    r"|full (?:autonomy|permission|consent|authori[sz]ation)|unrestricted (?:access|permission)"
    r"|yes to (?:all|every|any)|(?:said|says|answered|agreed)\s+yes\s+to\s+(?:everything|all|anything|any)"
    r"|you (?:have|got|now have)\s+(?:my\s+|the user's\s+|our\s+|full\s+|blanket\s+)*(?:permission|consent"
    r"|authori[sz]ation|approval|go-ahead)\s+to\s+(?:\S+\s+)?(?:anything|everything|any|all|whatever)"
    r"|(?:hat|haben)\s+(?:\S+\s+)?alles\s+(?:genehmigt|freigegeben|erlaubt|abgesegnet)"
    r"|(?:answer|say|reply|respond|click)\s+(?:yes|y)\s+to\s+(?:every|all|any)"
    r"|(?:approved?|approves|authori[sz](?:e|ed|es)|allow(?:ed|s)?|permit(?:ted|s)?|consent(?:ed)? to|agreed? to"
    r"|okayed|signed off on|whitelisted|granted)\s+(?:in advance\s+)?(?:all|every|any|each|everything|anything"
    r"|whatever)\s*(?:\S+\s+){0,2}?(?:commands?|actions?|operations?|tool (?:calls?|uses?)|requests?|steps?|deletions?"
    r"|pushes|deploys?|deployments?|scripts?|sudo|shell|executions?|things|in advance|$|[.;,])"
    r"|(?:all|every|any)\s+(?:\S+\s+){0,2}(?:commands?|actions?|tool calls?|operations?|deletions?)" + E
    + r"[^.\n]{0,40}" + B + r"(?:is|are)\s+(?:already\s+|all\s+)?(?:pre-?approved|approved|authori[sz]ed|allowed|permitted)"
    r"|(?:sudo|shell|destructive)\s+commands?\s+(?:are|is)\s+(?:already\s+)?(?:approved|authori[sz]ed|allowed)"
    r"|(?:has|have|gave|given|grants?|granted)\s+(?:you|the assistant|the agent|the ai|claude|copilot|the model|agents?)"
    r"\s+(?:\S+\s+){0,3}?(?:permission|consent|authori[sz]ation|approval|autonomy|the right|full access|root access"
    r"|admin rights)|(?:you are|you're|the assistant is|agents are)\s+(?:\S+\s+)?(?:authori[sz]ed|allowed|permitted"
    r"|cleared)\s+to\s+(?:run|execute|do|perform)\s+(?:any|every|all|anything|everything)"
    r"|(?:alle|samtliche)\s+(?:befehle|aktionen|kommandos)\s+(?:\S+\s+)?(?:vorab\s+)?(?:genehmigt|freigegeben|erlaubt"
    r"|autorisiert)|vorab genehmigt|(?:approuve|autorise|valide|accepte)\s+(?:toutes les|tous les)\s+(?:commandes"
    r"|actions|operations)|pre-?approuve|(?:aprobo|aprobado|autorizo|autorizado|permitio|acepto)\s+(?:todos los|todas las)"
    r"\s+(?:comandos|acciones|operaciones)|preaprobado)" + E
    + r"|(?:批准|授权|同意|允许)了?(?:所有|全部|一切)的?(?:命令|操作|指令)|已(?:经)?(?:批准|授权)(?:了)?(?:所有|全部)"
    r"|用户已(?:经)?授权|已获授权|预先批准")
_AI_SUBJECT_ANY = re.compile(B + r"(?:you|the assistant|the agent|agents?|the ai|claude|copilot|the model)" + E)
_ADMIN_CLAIM = re.compile(
    B + r"(?:the user|the developer|the owner|i|he|she|they|this user|the operator|the maintainer|user)\s+"
    r"(?:is|am|are|has|have)\s+(?:an?\s+|the\s+)?(?:admin|administrator|root|superuser|sudoer|sysadmin|owner)" + E
    + r"|" + B + r"(?:nutzer|benutzer|entwickler|user) ist (?:ein |der )?(?:administrator|admin|root)" + E
    + r"|" + B + r"(?:l'?utilisateur|developpeur) est (?:un |l')?(?:administrateur|admin|root)" + E
    + r"|" + B + r"(?:usuario|desarrollador) es (?:un |el )?(?:administrador|admin|root)" + E
    + r"|(?:用户|开发者|开发人员)(?:是|为)(?:管理员|root|超级用户)")
_PERMISSION = re.compile(B + r"(?:approv\w*|authori[sz]\w*|allow\w*|permi\w*|consent\w*|trust\w*|grant\w*|may run"
                         r"|genehmigt|freigegeben|erlaubt|zugestimmt|approuve\w*|autorise\w*|aprobo|aprobado|autoriz\w*"
                         r"|priority|sudo)" + E + r"|批准|授权|同意|允许")
_AUTHORITY = re.compile(
    B + r"this (?:note|memory|message|instruction|rule|entry|directive)\s+(?:is|comes|was sent|was written|has been sent)"
    r"\s+(?:from|by)\s+(?:the\s+)?(?:security team|system|system administrator|sysadmin|admin|administrator|developers?"
    r"|maintainers?|owner|anthropic|openai|memctl|opencode|it department|management)"
    r"|" + B + r"this instruction is from" + E
    + r"|(?:treat|consider|mark|regard)\s+(?:this|these|the following)\s+(?:\S+\s+){0,2}?as\s+(?:trusted|verified|validated"
    r"|authoritative|official|system|a system|higher priority|priority)"
    r"|(?:verified|validated|approved|signed)\s+by\s+(?:the\s+)?(?:system|security team|sysadmin|system administrator"
    r"|admin|memctl|anthropic|openai)|(?:has|takes|have|with)\s+(?:priority|precedence)\s+over\s+(?:the user|user|your"
    r"|other|all)|overrides?\s+(?:the user'?s?|your|all|other)\s+(?:preferences|instructions|rules|memories|settings)")


def _consent(sentence: Span) -> str | None:
    text = sentence.text
    match = _BLANKET.search(text)
    if match:
        return f"a blanket approval claim ({match.group(0).strip()[:40]})"
    match = _SCOPED_APPROVAL.search(text)
    if match and (_BLANKET_SCOPE.search(text) or _AI_SUBJECT_ANY.search(text)):
        return f"a blanket approval claim ({match.group(0).strip()[:40]})"
    match = _NO_CONFIRM.search(text)
    if match and _RISKY_SCOPE.search(text):
        return f"no confirmation for risky actions ({match.group(0)[:40]})"
    if _ADMIN_CLAIM.search(text) and _PERMISSION.search(text):
        return "an administrator claim joined to a permission"
    match = _AUTHORITY.search(text)
    if match:
        return f"a claim about the memory's own authority ({match.group(0)[:40]})"
    return None


# ---------------------------------------------------------------------------
# Switching off memctl's safety
# ---------------------------------------------------------------------------

_SAFETY_VERB = VerbLexicon(
    english=["disable", "turn off", "switch off", "deactivate", "skip", "bypass", "circumvent", "stop", "remove",
             "delete", "ignore", "suppress", "neutralize", "neutralise", "evade", "get around", "work around",
             "uninstall", "kill", "purge", "truncate", "clear", "wipe", "shut off", "shut down", "exempt", "whitelist",
             "allowlist", "allow-list"],
    base=["deaktiviere", "deaktivieren", "schalte", "abschalten", "ausschalten", "umgehe", "umgehen", "entferne",
          "entfernen", "losche", "loschen", "ignoriere", "stoppe", "desactive", "desactivez", "desactiver",
          "contourne", "contournez", "supprime", "supprimez", "ignorez", "arrete", "arretez", "desactiva",
          "desactivar", "omite", "omitir", "elimina", "eliminar", "ignora", "evita", "quita", "quitar", "apaga"],
    cjk=["关闭", "禁用", "停用", "跳过", "绕过", "删除", "忽略", "取消", "关掉"],
)
_SAFETY_STRONG = re.compile(
    B + r"(?:scrub(?:ber|bing|s)?|redact(?:ion|ions|ing|or)?|secret (?:scan\w*|detection|detectors?)|gitleaks|trufflehog"
    r"|detect-secrets|guardrails?|safety (?:guardrails?|checks?|filters?|rules?|measures?|features?|gate)|safeguards?"
    r"|quarantine|quarantaine|cuarentena|quarantane|injection (?:checks?|filters?|detection|guard)|audit[\s-]?(?:log|trail"
    r"|chain)s?|sanitiz\w*|sanitis\w*|masking|masquage|enmascaramiento|schwarzung|caviardage|auditoria|audit)" + E
    + r"|脱敏|清洗|隔离|审计|过滤|打码")
_SAFETY_WEAK = re.compile(B + r"(?:validat\w*|validierung|validacion|checks?|filters?|gate|verification|verifizierung)"
                          + E + r"|验证|校验")
_MEMCTL_ANCHOR = re.compile(B + r"(?:memctl|memory|memories|proposals?|staging|sleep|promot\w*|scrub\w*|ingest|notes?"
                            r"|propositions?|memoires?|memorias?|erinnerungen)" + E + r"|记忆|提案")
_SAFETY_SETTING = re.compile(
    B + r"memctl_\w*(?:scrub|validat|quarantin|audit|redact|safe|guard)\w*\s*=\s*[\"']?(?:0|false|off|no|none|disabled?)" + E
    + r"|" + B + r"(?:scrub|scrubbing|redact\w*|validat\w*|quarantine|audit\w*|safety|guardrails?)\s*[:=]\s*[\"']?(?:false|0"
    r"|off|no|none|disabled?)" + E + r"|--no-(?:scrub\w*|validat\w*|redact\w*|audit\w*|quarantine|safety|guardrails?)"
    r"|--skip-(?:scrub\w*|validat\w*|audit\w*|quarantine|safety)|--(?:disable|without)-(?:scrub\w*|validat\w*|redact\w*"
    r"|audit|quarantine)")
_DONT_REDACT = re.compile(
    B + r"(?:don't|do not|never|no|stop|not|should not|shouldn't|must not|mustn't|no need to)\s+(?:redact|mask|scrub|censor|sanitize|sanitise|anonymi[sz]e|obfuscate|hide"
    r"|redactes|enmascares|ocultes|censures|schwarze|maskiere|masquez|masque)" + E + r"|不要(?:脱敏|打码|屏蔽)")
_PLAINTEXT = re.compile(
    B + r"(?:store|keep|save|write|leave|record|put|speichere|garde[rz]?|guarda[r]?)\s+(?:\S+\s+){0,2}?(?:secrets|tokens"
    r"|credentials|keys|passwords|api keys|passworter|secrets)\s+(?:\S+\s+){0,3}?(?:unredacted|unmasked|in (?:plain ?text"
    r"|clear ?text|the clear)|verbatim|as is|as-is|raw|uncensored|im klartext|en clair|en texto plano)" + E)
_DIRECT_PROMOTE = re.compile(
    B + r"(?:promote\s+(?:this|it|these|them|everything|all proposals|proposals?|this proposal)\s+(?:\S+\s+)?(?:directly"
    r"|straight|immediately|without|as-is|as is|unchecked|unvalidated|verbatim|blindly)|(?:write|put|save|store|promote)\s+[^.\n]{0,30}(?:directly|straight)\s+(?:to|into|in)"
    r"\s+(?:user|memory)/|skip (?:the )?(?:sleep|staging|validation) (?:step|cycle|phase))")


def _safety_off(sentence: Span) -> str | None:
    text = sentence.text
    for pattern, what in ((_SAFETY_SETTING, "a setting that switches off memctl's safety"),
                          (_DONT_REDACT, "a directive not to redact"),
                          (_PLAINTEXT, "secrets kept in plain text"),
                          (_DIRECT_PROMOTE, "promotion that skips validation")):
        match = pattern.search(text)
        if match:
            return f"{what} ({match.group(0)[:40]})"
    anchored = bool(_MEMCTL_ANCHOR.search(text))
    for start, end, form, lemma in _SAFETY_VERB.find(text):
        if not is_directive(text, start, end, form):
            continue
        # the object follows the verb; a Chinese verb may follow its object
        scope = max(clause_start(text, start), start - _WINDOW) if form == "cjk" else end
        limit = min(len(text), end + _WINDOW)
        if _SAFETY_STRONG.search(text, scope, limit):
            return f"{lemma!r} memctl's scrubbing, redaction, quarantine or audit"
        if anchored and _SAFETY_WEAK.search(text, scope, limit):
            return f"{lemma!r} memctl's validation"
    return None
