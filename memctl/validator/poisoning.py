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

from memctl.validator.directive import (
    B,
    E,
    Span,
    VerbLexicon,
    clause_start,
    fact_statement,
    is_directive,
    negated,
    sentences,
    standing,
)

__all__ = ["CATEGORIES", "find_poisoning"]

Finding = tuple[str, str]

# ---------------------------------------------------------------------------
# Objects: credentials
# ---------------------------------------------------------------------------

# Files and named secrets whose mere transfer is a leak (the "strong" objects).
_CRED_FILE = re.compile(
    r"~/\.ssh(?![a-z0-9_])|(?:\$home|\$\{home\}|/home/[a-z0-9_.-]+|/root|/users/[a-z0-9_.-]+)/\.ssh(?![a-z0-9_])"
    r"|(?<![a-z0-9_])\.ssh/(?!\S{0,80}\.pub)|" + B + r"id_(?:rsa|dsa|ecdsa|ed25519)(?!\.pub)" + E
    + r"|(?<![a-z0-9_])\.env(?:\.(?:local|prod|production|staging|development|dev|test))?(?![a-z0-9_.]|-(?!datei|file|fichier))"
    r"|\.aws/(?:credentials|config)|~/\.aws(?![a-z0-9_])|" + B + r"aws (?:secret access key|secret key|credentials)" + E
    + r"|" + B + r"aws_secret_access_key|" + B + r"kubeconfig" + E + r"|\.kube/config"
    r"|(?<![a-z0-9_])(?:\.npmrc|\.pypirc|_?\.netrc|\.git-credentials|\.pgpass|\.vault-token|\.gnupg|\.terraformrc)"
    r"(?![a-z0-9_])|\.docker/config\.json|application_default_credentials\.json|" + B + r"credentials\.json"
    r"|" + B + r"client_secret[a-z0-9_.-]*\.json|" + B + r"service[\s-]?account(?:[\s-]key)?(?:\s+json|\.json)?" + E
    + r"|" + B + r"secring|" + B + r"(?:login\s+)?keychain" + E + r"|\.kdbx|wallet\.dat|/etc/shadow|\.(?:bash|zsh)_history"
    r"|cookies\.sqlite|mcp\.json|\.config/gh/hosts\.yml|" + B + r"(?:ssh\s+)?private\s+keys?" + E
    + r"|" + B + r"ssh\s+keys?" + E + r"|" + B + r"printenv" + E
    + r"|" + B + r"(?:clave privada|claves privadas|cle privee|cles privees|privater? schlussel|chiave privata"
    r"|chave privada)" + E
    + r"|私钥|密钥文件")
# Credential nouns: a leak only when sent somewhere hostile or shown in the answer.
_CRED_NOUN = re.compile(
    B + r"(?:credentials?|secrets?|passwords?|passphrases?|passwd|api[\s_-]?keys?|access[\s_-]?keys?|secret[\s_-]?keys?"
    r"|(?:github|gitlab|npm|pypi|slack|auth|access|session|bearer|api|personal access|oauth|refresh|bot)?\s?tokens?"
    r"|keys|session cookies|cookies|auth headers?|environment variables?|env vars?|recovery codes"
    r"|zugangsdaten|anmeldedaten|passworter|passwort|kennworter|kennwort|schlussel|geheimnisse"
    r"|identifiants|mots de passe|mot de passe|cles api|cles|cle api|jetons|credenciales|contrasenas|contrasena"
    r"|claves api|claves|llaves|secretos|credenziali|chiavi|chiave api|credenciais|senhas|senha|chaves|chave api)" + E
    + r"|凭证|凭据|密码|密钥|令牌|秘钥|口令|环境变量")
# Places a secret must not go (chat, public trackers, paste sites, mail, URLs, the answer itself).
_HOSTILE_PLACE = re.compile(
    r"https?://(?!localhost|127\.|\[::1\])|ftp://|[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z0-9.-]+|(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])"
    r"|(?<![a-z0-9])#[a-z][a-z0-9_-]+|" + B
    + r"(?:paste\w*|hastebin|ghostbin|termbin|gists?|transfer\.sh|0x0\.st|file\.io|webhooks?|requestbin|pipedream|ngrok"
    r"|discord|telegram|slack|whatsapp|teams channel|twitter|forum|reddit|stack\s?overflow|public|publicly"
    r"|issues?|issue tracker|tickets?|pr description|pull requests?|prs?|comments?|commits?|readme|wiki|docs?"
    r"|onboarding doc|channel|chats?|shared drive|google (?:form|doc|drive)|forms?|bug reports?|support|feedback"
    r"|answers?|replies|reply|responses?|output|the user|when asked|logs?|everyone|anyone|third[\s-]part(?:y|ies)"
    r"|external|s3 bucket|bucket|offentlich\w*|publique?s?|publicos?|publicas?|billet)" + E
    + r"|公开|公共|群|频道|回复|回答")
_SAFE_PLACE = re.compile(
    B + r"(?:vault|1password|bitwarden|lastpass|keepass|secrets? manager|kms|sops|sealed secrets|password manager"
    r"|credential helper|parameter store|doppler|infisical|github (?:actions )?secrets|actions secrets|ci secrets"
    r"|\.gitignore|\.dockerignore|gitignore)" + E)
_NEGATED_PLACE = re.compile(B + r"(?:not|never|instead of|rather than|no)\s+(?:in\s+|to\s+|into\s+|on\s+)?(?:the\s+)?$")
# A credential file right after one of these is where something goes, not what goes ("copy .env.example to .env").
# Placing verbs also read "in"; for sending and showing verbs "in" says where the object lives ("the file in ~/.ssh").
_DEST_PREP = re.compile(B + r"(?:to|into|onto|an|a|al|à)\s+(?:the\s+|your\s+|a\s+)?$|(?:到|至)\s*$")
_PLACE_PREP = re.compile(B + r"(?:to|into|onto|in|an|in das|in die|auf|a|dans|sur|en|al|à)\s+(?:the\s+|your\s+|a\s+)?$"
                         r"|(?:到|至|进)\s*$")
# Where the object of a verb ends: the next clause (a list after ":" still belongs to it)
_OBJECT_STOP = re.compile(r",\s|，|\s(?:but|however|which|because|so that|while|whereas|aber|mais|pero|porque|weil"
                          r"|parce que)\s|\s[-—–]\s")
_AUTH_USE = re.compile(r"(?:-i|--identity|--key|--cert|--cacert|--netrc-file|--kubeconfig|--profile|--config"
                       r"|identityfile|-k|--key-file|--keyfile|source|set|export)\s*=?\s*[\"']?$")

# ---------------------------------------------------------------------------
# Verbs
# ---------------------------------------------------------------------------

_EXPOSE = VerbLexicon(
    english=["send", {"base": "send", "third": "sends", "ing": "sending", "part": "sent"}, "upload", "post",
             "email", "e-mail", "mail", "forward", "transmit", "exfiltrate", "leak", "publish", "share", "submit",
             "push", "sync", "tweet", "beam", "dm", "pipe", "scp", "rsync",

             {"base": "commit", "third": "commits", "ing": "committing", "part": "committed"},
             {"base": "check in", "third": "checks in", "ing": "checking in", "part": "checked in"}],
    base=[  # "make … available at <url>" (a regex entry: the words are apart)
          r"re:(?:make|makes|made|making)(?=\s+(?:\S+\s+){0,4}?(?:available|accessible|public|visible|readable)"
          r"\s+(?:at|to|on|in|via|for)\b)",
          "sende", "senden", "sendet", "schicke", "schick", "schicken", "ubermittle", "ubermitteln", "poste",
          "posten", "teile", "teilen", "veroffentliche", "veroffentlichen", r"re:lade(?=[^\n]{0,160}\bhoch\b)", "hochladen",
          "envoie", "envoyez", "envoyer", "transmets", "transmettez", "transmettre", "publie", "publiez", "publier",
          "partage", "partagez", "partager", "televerse", "televersez", "televerser", "poste", "postez",
          "envia", "envie", "enviar", "manda", "mande", "mandar", "sube", "suba", "subir", "publica", "publique",
          "publicar", "comparte", "comparta", "compartir", "reenvia", "reenviar",
          "invia", "inviate", "inviare", "manda", "mandate", "carica", "caricate", "caricare", "condividi",
          "condividete", "pubblica", "pubblicate", "inoltra", "envie", "enviem", "carregue", "carregar",
          "compartilhe", "compartilhar", "publique", "encaminhe"],
    cjk=["发送", "发到", "发给", "上传", "传到", "转发", "提交到", "推送到", "分享", "公开", "外发", "邮件发送"],
)
_COPY = VerbLexicon(
    english=["copy", "append", "add", "insert", "embed", "attach", "paste", "write", "save", "store", "include",
             "move", "dump", {"base": "put", "third": "puts", "ing": "putting", "part": "put"}, "cp", "mv",
             {"base": "drop", "third": "drops", "ing": "dropping", "part": "dropped"}, "place", "leave", "stick"],
    base=["kopiere", "kopieren", "fuge", "fuge ein", "hange", "hange an", "anhangen", "einfugen", "speichere",
          "copie", "copiez", "copier", "ajoute", "ajoutez", "ajouter", "mets", "mettez", "mettre", "pon", "ponga",
          "poner", "coloca", "coloque", "metti", "mettete", "coloque", "lege", "stelle", "colle", "collez", "coller", "joins",
          "joignez", "inclus", "incluez", "inclure",
          "copia", "copie", "copiar", "anade", "anada", "anadir", "pega", "pegue", "pegar", "adjunta", "adjunte",
          "adjuntar", "incluye", "incluya", "incluir", "guarda", "guardar", "copia", "incolla", "allega", "aggiungi",
          "includi", "cole", "copie", "anexe", "inclua", "adicione"],
    cjk=["复制", "拷贝", "粘贴", "附加", "附上", "加到", "添加到", "写入", "包含", "放到", "贴到"],
)
_DISPLAY = VerbLexicon(
    english=["print", "output", "show", "display", "reveal", "disclose", "expose", "echo", "cat", "list", "quote",
             "read out", "tell", {"base": "give", "third": "gives", "ing": "giving", "part": "given"}, "repeat",
             "return", "answer", "reply", "respond", "include", "dump", "recite", "spell out"],
    base=["zeige", "gib aus", "gib", "nenne", "affiche", "affichez", "revele", "revelez", "donne", "donnez",
          "muestra", "muestre", "revela", "revele", "imprime", "da", "responde"],
    cjk=["输出", "显示", "打印", "告诉", "透露", "展示", "回复", "回答", "列出"],
)


_WINDOW = 200  # characters after a verb where its object and destination are looked for


def _places(sentence: str, start: int, end: int) -> tuple[bool, bool]:
    """(hostile place, safe place) mentioned in ``sentence[start:end]`` (a negated place does not count)."""
    hostile = safe = False
    for pattern, is_hostile in ((_HOSTILE_PLACE, True), (_SAFE_PLACE, False)):
        for match in pattern.finditer(sentence, start, end):
            if _NEGATED_PLACE.search(sentence[max(0, match.start() - 24):match.start()]):
                continue
            if is_hostile:
                hostile = True
            else:
                safe = True
    return hostile, safe


_NEGATED_OBJECT = re.compile(B + r"(?:never|not|no|without|except|nor|instead of|rather than|but not)\s+(?:the\s+|any\s+"
                             r"|your\s+)?$")


def _objects(pattern: re.Pattern[str], sentence: str, start: int, end: int | None = None, *,
             placing: bool = False) -> list[re.Match[str]]:
    """Credential mentions in ``sentence[start:end]`` that are objects (not a destination, not used to
    authenticate, not excluded: "stack traces (never tokens)", "the link, not the credentials")."""
    found = []
    destination = _PLACE_PREP if placing else _DEST_PREP
    for match in pattern.finditer(sentence, start, len(sentence) if end is None else end):
        before = sentence[max(0, match.start() - 24):match.start()]
        if destination.search(before) or _AUTH_USE.search(before) or _NEGATED_OBJECT.search(before.replace("(", " ")):
            continue
        found.append(match)
    return found


# Verbs that only place something: a leak only when the place is hostile ("put your .env in the project root").
_PLACING = frozenset({"put", "drop", "place", "leave", "stick", "mets", "mettez", "mettre", "pon", "ponga", "poner",
                      "coloca", "coloque", "metti", "mettete", "lege", "stelle", "move", "mv"})
_ANSWERISH = re.compile(B + r"(?:answers?|repl(?:y|ies)|responses?|output|the user|when asked|chat)" + E + r"|回复|回答")
_WITH = re.compile(B + "with" + E)
_CONTENTS = re.compile(B + r"(?:contents?|inhalt|contenu|contenido|the (?:whole|full|entire)|every|all|any)" + E
                       + r"|内容|所有|全部")
_NETWORK_TOOL = re.compile(B + r"(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|sftp|ftp|telnet|invoke-webrequest|iwr"
                           r"|invoke-restmethod|irm|httpie|fetch|requests\.post|xmlhttprequest|sendbeacon)" + E)
_ENV_TO_NETWORK = re.compile(B + r"(?:printenv|env|set)\s*\|[^\n]{0,160}" + _NETWORK_TOOL.pattern)
_UNIGNORE = re.compile(
    B + r"(?:remove|delete|drop|take|strip|entferne|losche|supprime[rz]?|retire[rz]?|quita[r]?|elimina[r]?)" + E
    + r"[^.\n]{0,30}(?:\.env|secrets?|credentials?|keys?)[^.\n]{0,20}" + B + r"(?:from|out of|aus|de|del)\s+(?:the\s+)?"
    r"\.(?:git|docker)ignore|git add\s+(?:-f\s+|--force\s+)?(?:[^\n]{0,160}\s)?\.env(?![a-z0-9_.])")
_COOKIE_EXFIL = re.compile(r"document\.cookie[^\n]{0,80}(?:fetch|xmlhttprequest|\.src|sendbeacon|https?://)"
                           r"|(?:fetch|sendbeacon|\.src\s*=)[^\n]{0,80}document\.cookie")


def _credential_transfer(sentence: Span) -> str | None:
    text = sentence.text
    for line in text.split("\n"):
        if _NETWORK_TOOL.search(line):
            for match in _objects(_CRED_FILE, line, 0):
                if "private key" not in match.group(0) and "ssh key" not in match.group(0):
                    return f"a network command carries {match.group(0)}"
        if _ENV_TO_NETWORK.search(line):
            return "the environment is piped to a network command"
    if _COOKIE_EXFIL.search(text):
        return "document.cookie is sent to a URL"
    if _UNIGNORE.search(text):
        return "a secrets file is taken out of .gitignore or force-added"
    for lexicon, kind in ((_EXPOSE, "expose"), (_COPY, "copy"), (_DISPLAY, "display")):
        for start, end, form, lemma in lexicon.find(text):
            if not is_directive(text, start, end, form):
                continue
            scope = max(clause_start(text, start), start - _WINDOW)
            limit = min(len(text), end + _WINDOW)
            stop = _OBJECT_STOP.search(text, end, limit)
            object_end = stop.start() if stop else limit
            strong = _objects(_CRED_FILE, text, scope, object_end, placing=kind == "copy")
            nouns = _objects(_CRED_NOUN, text, scope, object_end, placing=kind == "copy")
            if not strong and not nouns:
                continue
            hostile, safe = _places(text, scope, limit)
            obj = (strong or nouns)[0].group(0)
            if kind == "display":
                answerish = bool(_ANSWERISH.search(text, start, limit))
                if lemma in ("answer", "reply", "respond", "responde") and not _WITH.search(text, end, limit):
                    continue
                contents = bool(_CONTENTS.search(text, scope, limit))
                if (strong and (contents or answerish or standing(text))) or \
                        (nouns and (answerish or standing(text) and contents)):
                    return f"{lemma!r} shows {obj} in the answer"
                continue
            if strong and (hostile or (not safe and lemma not in _PLACING)):
                return f"{lemma!r} moves {obj}"
            if nouns and hostile:
                return f"{lemma!r} sends {obj} to a public or external place"
    return None


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


# ---------------------------------------------------------------------------
# Encoded commands (shapes; decoded payloads are memctl.validator.encoded's job)
# ---------------------------------------------------------------------------

_INTERPRETER = (r"(?:sudo\s+)?(?:sh|bash|zsh|dash|ksh|fish|python\d?(?:\.\d+)?|perl|ruby|node|php|iex|invoke-expression"
                r"|pwsh|powershell|source|eval|exec|osascript)" + E)
_DECODER = (r"(?:base64\s+(?:-d|--decode|-di|-id|-D)|b64decode|base64_decode|frombase64string|atob\s*\(|xxd\s+-r"
            r"|openssl\s+(?:enc\s+)?(?:-d\s+)?-?base64\s+-d|certutil\s+-decode|uudecode|unhexlify|bytes\.fromhex"
            r"|codecs\.decode|gzinflate|str_rot13|string\.fromcharcode|fromcharcode|base32\s+(?:-d|--decode))")
# Where a script run straight from the network is hostile: raw IPs, plain http, paste and tunnel hosts
_SUSPICIOUS_HOST = (r"(?:(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}|http://|paste|ngrok|transfer\.sh|0x0\.st|termbin|webhook"
                    r"|trycloudflare|\.invalid|\.onion|gist|githubusercontent|raw\.)")
_ENCODED_SHAPE = re.compile(
    _DECODER + r"[^\n]{0,160}\|\s*" + _INTERPRETER
    # a decode handed to an interpreter whatever the payload: "bash -c "$(… | base64 -d)"", "sh <<< $(base64 -d …)"
    + r"|" + B + _INTERPRETER + r"\s+(?:-c\s+|<<<\s*|<\s*<\(\s*)[^\n]{0,160}?" + _DECODER
    # a download run as root, from any host
    + r"|" + B + r"(?:curl|wget)\s[^\n|]{0,160}\|\s*sudo\s+(?:-\S+\s+)*(?:ba|z|da)?sh" + E
    + r"|" + B + r"(?:eval|exec|source|iex|invoke-expression|system|os\.system|subprocess\.\w+|shell_exec|passthru"
    r"|popen|assert)\s*\(?\s*[\"'`$(]*[^\n]{0,120}?" + _DECODER
    + r"|" + B + r"(?:powershell|pwsh)(?:\.exe)?\s+[^\n]{0,160}-(?:e|en|enc|enco|encodedcommand|ec)\s+[a-z0-9+/=]{8,}"
    r"|" + B + r"(?:printf|echo\s+-e|echo)\s+[\"']?(?:\\x[0-9a-f]{2}|\\[0-7]{3}){3,}[^\n|]{0,160}\|\s*" + _INTERPRETER
    + r"|" + B + r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\s[^\n|]{0,160}" + _SUSPICIOUS_HOST
    + r"[^\n|]{0,160}\|\s*" + _INTERPRETER
    + r"|" + B + r"(?:bash|sh|zsh|source|python\d?)\s+<\(\s*(?:curl|wget)\s[^\n)]{0,160}" + _SUSPICIOUS_HOST
    + r"|" + B + r"(?:iex|invoke-expression)\s*\(?\s*\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod"
    r"|new-object\s+net\.webclient)[^\n]{0,160}" + _SUSPICIOUS_HOST)
_DECODE_AND_RUN = re.compile(
    B + r"(?:decode|decrypt|deobfuscate|unescape|reverse|read|rot13|dekodiere|decode[zr]?|decodifica[r]?)" + E
    + r"[^.\n]{0,80}?" + B + r"(?:and|then|und|et|y|puis|luego)\s+(?:\S+\s+){0,2}?(?:run|execute|eval|exec|follow|obey|do"
    r"|apply|perform|fuhre|execute[zr]?|ejecuta[r]?|ejecutalo|sigue|suis|suivez)" + E
    + r"|(?:解码|解密)[^。\n]{0,20}(?:并|然后|再)(?:执行|运行)")


def _encoded(sentence: Span) -> str | None:
    match = _ENCODED_SHAPE.search(sentence.text) or _DECODE_AND_RUN.search(sentence.text)
    return f"an encoded or downloaded command run by a shell ({match.group(0)[:40]})" if match else None


# ---------------------------------------------------------------------------
# Text addressed to AI assistants, and external framing
# ---------------------------------------------------------------------------

_AI = (r"(?:ai|a\.i\.|llms?|large language models?|language models?|assistants?|agents?|coding agents?|ai agents?"
       r"|ai assistants?|chatbots?|copilot|claude|chatgpt|gpt(?:-\d)?|gemini|cursor|codex|opencode|aider|devin)")
_AI_ADDRESSED = re.compile(
    r"(?:(?<![a-z0-9])(?:note|message|memo|reminder|notice|psa|warning|heads[\s-]up|attention|directive|hint|instructions?"
    r"|fyi|btw|nb)|(?<![a-z0-9])p\.?s\.?|(?<![a-z0-9])n\.b\.)\s+"
    r"(?:to|for)\s+(?:any\s+|all\s+|every\s+|the\s+|you\s+)?(?:ai\s+|llm\s+|coding\s+|automated\s+)?" + _AI + E
    + r"(?!\s+(?:are|is|live|lives|go|goes)\s+(?:in|at))"
    r"|(?:^|[\n.!?,;]\s*)(?:hey|hi|hello|dear|attention|listen|yo|psst|ok|okay)[,:]?\s+" + _AI + E
    + r"|" + B + r"if you(?:'re| are)\s+(?:an?\s+|the\s+)?(?:ai|llm|large language model|language model|assistant|agent"
    r"|bot|chatbot|automated (?:system|tool|agent)|coding agent|ai assistant|ai agent|model)" + E
    + r"|" + B + r"(?:any|all|every|whichever|whatever|the next)\s+(?:ai\s+|automated\s+|coding\s+|llm\s+)?(?:assistants?"
    r"|agents?|models?|bots?|llms?|ais)\s+(?:that\s+|who\s+)?(?:is\s+)?(?:reading|reads?|processing|process(?:es)?|parsing|seeing|sees?|ingesting|summari[sz]ing"
    r"|indexing)\s+(?:this|these|the)" + E
    + r"|" + B + r"when\s+(?:an?|the|any)\s+(?:ai|llm|assistant|agent|model|bot)\s+(?:reads?|sees?|processes|summari[sz]es"
    r"|encounters|finds|parses)\s+(?:this|these)" + E
    + r"|(?:^|\n)\s*(?:#|//|/\*|--|;|%|\*|rem\s)\s*(?:note\s+(?:to|for)\s+)?(?:ai|llm|assistant|agent|copilot|claude"
    r"|cursor|codex|gpt|chatgpt|gemini)s?(?:\s+(?:agents?|assistants?))?\s*[:,]"
    r"|" + B + r"(?:hinweis|nachricht|notiz|anweisung|achtung)\s+(?:an|fur)\s+(?:alle\s+|die\s+)?(?:ki|ki-\w+|assistenten"
    r"|agenten|llms?)" + E + r"|" + B + r"wenn du (?:eine?|ein) (?:ki|ki-\w+|sprachmodell|assistent|bot|agent)" + E
    + r"|" + B + r"(?:note|message|remarque|consigne|avis)\s+(?:pour|aux|a)\s+(?:les\s+|l'|tous les\s+)?(?:assistants?"
    r"|agents?|ia|intelligences? artificielles?|llms?)" + E
    + r"|" + B + r"si (?:tu es|vous etes) (?:une?\s+)?(?:ia|intelligence artificielle|assistant|agent|modele)" + E
    + r"|" + B + r"(?:nota|mensaje|aviso|instrucciones?)\s+para\s+(?:los\s+|las\s+|todos los\s+)?(?:asistentes|agentes"
    r"|ia|ias|modelos|llms?)" + E + r"|" + B + r"si eres (?:una?\s+)?(?:ia|inteligencia artificial|asistente|agente"
    r"|modelo)" + E
    + r"|(?:致|给|对)(?:所有|各位|全体)?的?(?:ai|人工智能)(?:助手|代理|模型|智能体)?|如果你是(?:一个)?(?:ai|人工智能|语言模型"
    r"|大模型|助手|智能体)|ai\s*助手\s*(?:请注意|注意)")
# HTML comments and Markdown's link-reference comments ("[//]: # (…)"), both invisible once rendered
_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)|\[(?://|comment|_|#)\]:\s*(?:#|<>)\s*[(\"'](.*?)[)\"']?(?:\n|$)",
                           re.DOTALL)
_COMMENT_DIRECTIVE = re.compile(r"(?<![a-z0-9-])(?:" + _AI + r"|you must|you should|always|never|do not|don't"
                                r"|instructions?|ignore|run|execute|push|delete|send|approve)(?![a-z0-9-])")
_SOURCE_DOC = (r"(?:readme|wiki|log|logs|pdf|support thread|thread|ticket|forum|forum thread|issue|docs|documentation"
               r"|blog|email|slack|web ?page|website|runbook|vendor docs|handbuch|fil|fil de discussion|hilo|foro)")
_FRAMING = re.compile(
    B + r"(?:saved|copied|taken|pulled|quoted|clipped|captured|imported|scraped|excerpted|learned|extracted|found)\s+"
    r"(?:from|in)" + E + r"|(?:^|\n)\s*(?:from|per|via|source:?|according to)\s+(?:the\s+|a\s+|our\s+|this\s+)?"
    r"(?:\w+\s+)?" + _SOURCE_DOC
    + r"|" + B + r"(?:aus dem|aus der|laut (?:dem|der))\s+(?:\w+\s+)?" + _SOURCE_DOC + r"|" + B
    + r"(?:ubernommen|kopiert|gespeichert)\s+aus|" + B + r"(?:copie|extrait|sauvegarde|tire|repris)e?s?\s+(?:du|de la"
    r"|de l'|d'un|d'une|depuis)|" + B + r"selon (?:le|la|l')\s*" + _SOURCE_DOC
    + r"|" + B + r"(?:copiado|extraido|guardado|tomado)s?\s+(?:de|del|desde)|" + B + r"segun (?:el|la)\s+" + _SOURCE_DOC
    + r"|摘自|复制自|转自|引自|来自(?:维基|文档|论坛|日志|工单)")
_TO_ASSISTANT = re.compile(
    # obligations, not capabilities ("the model can handle 128k tokens" is a fact from the docs)
    B + r"(?:the\s+)?(?:assistant|ai|agent|model|llm|claude|copilot|bot|coding agent)s?\s+(?:must|should|shall"
    r"|has to|have to|needs? to|is (?:required|expected|supposed) to|are (?:required|expected|supposed) to|is to"
    r"|(?:will\s+)?(?:always|never))" + E
    + r"|" + B + r"(?:assistent(?:in)?|ki|agent|modell)\s+(?:muss|soll|sollte|hat zu|immer)" + E
    + r"|" + B + r"l?'?(?:assistant|ia|agent|modele)\s+(?:doit|devra|devrait|toujours)" + E
    + r"|" + B + r"(?:asistente|ia|agente|modelo)\s+(?:debe|deberia|tiene que|siempre)" + E
    + r"|(?:助手|ai|模型|代理)(?:必须|应该|需要|总是|一律)")


def _ai_addressed(text: str) -> str | None:
    for match in _HTML_COMMENT.finditer(text):
        if _COMMENT_DIRECTIVE.search(match.group(1) or match.group(2) or ""):
            return "an HTML comment addressed to an assistant"
    match = _AI_ADDRESSED.search(text)
    if match:
        return f"text addressed to AI assistants ({match.group(0).strip()[:40]})"
    return None


def _external(text: str) -> str | None:
    if _FRAMING.search(text) and _TO_ASSISTANT.search(text):
        return "an instruction to the assistant saved from an external document"
    return None


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
