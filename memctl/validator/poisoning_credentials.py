"""Memory poisoning, category ``credential_transfer``: a credential file or noun moved somewhere it must not go.

One rule of :mod:`memctl.validator.poisoning` (its module doc gives the rule, sources and near-miss policy):
:func:`credential_transfer` reads one sentence of folded text and returns a short evidence phrase or None.
"""

from __future__ import annotations

import re

from memctl.validator.directive import (
    B,
    E,
    Span,
    VerbLexicon,
    clause_start,
    is_directive,
    standing,
)

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
