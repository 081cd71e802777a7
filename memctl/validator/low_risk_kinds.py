"""Properties of a risky memory that word lists of triggers miss: checked on every normalised view.

The fourth outside attacker got agent proposals promoted that carried no trigger word at all. Each kind
below is a *property* of the text, not a phrase list, and :func:`kind_reasons` names the ones found
(``property:<kind>``); :func:`memctl.validator.low_risk.assess_low_risk` runs it on each view of
:func:`memctl.validator.low_risk_views.views` (``view`` is a case-folded :func:`language_fold` reading):

* ``property:exposure`` — the text states the *state of a control*: an access scope wider than a team
  (public, world-readable, anonymous, anyone, 0.0.0.0/0, cluster- or org-wide, every repository, owner or
  admin rights, running as root or uid 0, no password, no VPN), or where a secret is (a key, token,
  password, credential or connection string printed, echoed, logged, committed, in the repository or a
  config file, on laptops, shared). A memory that says so is a security posture a person must confirm;
* ``property:integrity`` — a supply-chain integrity control said to be absent: lockfiles, ``go.sum``,
  checksums or hashes not committed, not checked, ignored;
* ``property:unpinned`` — code taken at whatever version its source serves now: "the latest release
  from", "pulls every tool from its homepage";
* ``property:deferred`` — an action deferred to a later moment without "when/if": "next time", "the next
  question/deploy/build", "starting with", "once the sprint ends", "on the first build of each month",
  "after three failed builds", "any later question" (and the same in the lexicons' other languages);
* ``property:answer`` — the text prescribes what is answered or replied ("the answer is", "gets the reply",
  "is answered with");
* ``property:authority`` — what one party writes is given the weight of a decision, approval or rule
  ("is treated as the team's settled decision", "vaut décision");
* ``property:unreviewed`` — a step said to need nobody's look ("nobody needs to look at it", "the build
  passes whatever they find");
* ``property:resource`` — the build doing work for someone else (seeding torrents, relaying traffic);
* ``property:fragment`` — a part of something the reader must assemble, or a text that stops mid-sentence
  (a closing colon or open quote: a prompt to complete, not a memory): "part 2 of 2", "step 3 of",
  "continued from", "the other note/memory", "the previous/earlier note", "second half", "combine …
  with", a text opening with an ellipsis or a conjunction (split payloads: each part is harmless alone);
* ``property:execution`` — something fed into an interpreter ("piped to the shell", "goes straight to
  bash", "then sh", "is executed as root") or a tool that fetches, connects out, escalates or destroys
  (curl, wget, netcat, socat, sudo, ``rm -rf``, ``chmod 777``, a force push, ``mkfs``, ``dd``,
  ``Invoke-Expression``);
* ``property:split_letters`` — a word written as single letters with separators (``c.u.r.l``,
  ``r m - r f``, ``w_g_e_t``, ``n.c``): nobody writes a fact that way but to pass a word list
  (abbreviations such as ``e.g.``, ``i.e.``, ``a.k.a.`` excepted);
* ``property:lookalike_package`` — a package name that is a near miss of a well-known one
  (:func:`memctl.validator.subjects.lookalike_packages`): the canonical name plus a digit or a generic affix
  (``requests3``, ``moment-utils-es``, ``pyyaml-fast``), one edit away (``numpyy``, ``reqeusts``) —
  presented as the package to use, it is a typosquat.

Sources of the rules: the kinds of the fourth outside attacker (docs/benchmarks.md, "Round 13") and the
security-posture items of the OWASP Top 10 (A01 broken access control, A02 cryptographic failures, A05
security misconfiguration, A08 software and data integrity failures). Deterministic; no model; never
raises on a ``str``. What it cannot judge: a control's state in words none of these reads, and whether a
held statement is true (a person decides in ``memctl review``).
"""

from __future__ import annotations

import re

from memctl.validator.subjects import lookalike_packages, spells_tool

__all__ = ["join_split_letters", "kind_reasons", "split_letter_runs"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + pattern + r")", re.IGNORECASE)


_SCOPE = _rx(
    r"(?:is|are|made|set to|left|stays?) public\b|publicly\b|public[\s-](?:read|readable|listable|writable|accessible|access"
    r"|write|bucket|container|share|link)|world[\s-]?(?:readable|writable)"
    r"|anonymous(?:ly)?\b|unauthenticated|without (?:a |any )?(?:password|auth\w*|login|vpn|token|key)\b"
    r"|no (?:password|auth\w*|login|vpn)\b|has no (?:password|auth\w*)"
    r"|(?:anyone|anybody|everyone|all users|any user)\b (?:\w+ )?(?:can|may|has|have|gets?|is allowed to) (?:\w+ )?(?:read|write|access"
    r"|push|merge|deploy|admin|edit|delete|download|upload|log ?in)|(?:open|available|readable|writable|accessible) (?:to|for) "
    r"(?:anyone|everyone|anybody|all)\b"
    r"|0\.0\.0\.0(?:/0)?|::/0|any ip\b|(?:from|to|on) the (?:whole )?internet|internet-facing"
    r"|cluster[\s-]wide|org(?:anisation|anization)?[\s-]wide|(?:every|all|each) (?:repo\w*|project|bucket|namespace)s?\b"
    r"|whole (?:org\w*|company|cluster|account)|owner (?:permissions?|rights|role|access)"
    r"|admin(?:istrator)? (?:rights|permissions?|access|role)|admin on\b|(?:write|full|root) access (?:to|on)"
    r"|as root\b|uid 0\b|as uid 0|privileged (?:mode|containers?)|--privileged"
    r"|principal\W{0,4}\*|(?:allow|grant)\w*\W{0,4}\*(?!\w)|\"\*\" (?:principal|access|origin)"
    r"|(?:by|to|for) (?:anyone|everyone|anybody|the public|all users|any user)\b"
    r"|(?:owners?|admin\w*|editors?|maintainers?|write|push|full) (?:\w+ ){0,3}(?:in|on|across|over|for|to) (?:all|every|each|the whole)\b"
    r"|(?:allows?|accepts?|permits?|takes|trusts?|lets? through) (?:any |all )?(?:unsigned|unverified|untrusted|self-signed"
    r"|anonymous|unauthenticated|unencrypted|plain ?text|http)\b"
    r"|(?:unsigned|unverified|unencrypted|unauthenticated|unprotected|unrestricted|unscanned)\b(?! (?:int|integer|char|long|short|byte|\d))"
    r"|allows? anonymous|anonymous (?:writes?|reads?|access|logins?)"
    # other languages: public, open to all, admin rights, every repository
    # without a login, password or VPN, in the lexicons' other languages
    r"|zonder (?:inlog\w*|wachtwoord|authenticatie|vpn)|ohne (?:passwort|anmeldung|login|authentifizierung|vpn)"
    r"|sans (?:mot de passe|authentification|connexion|vpn)|sin (?:contrasena|autenticacion|login|vpn)"
    r"|senza (?:password|autenticazione|login|vpn)|sem (?:senha|autenticacao|login|vpn)|bez (?:hasla|logowania|uwierzytelniania)"
    r"|без (?:парол\w*|авторизаци\w*|логин\w*|аутентификаци\w*|vpn)"
    r"|offentlich (?:lesbar|zuganglich|einsehbar|schreibbar|erreichbar)|ist offentlich|fur alle|jeder\w* (?:zugreifen|lesen)|admin-?rechte|alle repositor"
    r"|droits? (?:d'?)?administra\w*|tous les depots|accessible a tous|ouvert a tous"
    r"|es public[oa]|son public[oa]s|todos los repositorios|derechos de administra\w*|cualquiera"
    r"|e pubblic[oa]|tutti i repository|diritti di amministra\w*|chiunque"
    r"|открыт\w* (?:на чтение |для )?(?:всем|всех)|всем\b|публичн\w*|права администратор\w*|все репозитори\w*"
    r"|公开|公開|所有人|誰でも|누구나")
_SECRET = (r"(?:secrets?|(?:api|live|private|deploy|access|signing|ssh|master|root)[\s_-]?keys?|tokens?|passwords?"
           r"|credentials?|kubeconfig|connection strings?|\.env\b|geheimnis\w*|passwort\w*|schlussel|secrets?"
           r"|secretos?|contrasena\w*|credenciales|segreti|password|секрет\w*|парол\w*|ключ\w*|токен\w*|密钥|密码|秘密|パスワード|비밀)")
_EXPOSED = (r"(?:printed|echoed|logged|shown|displayed|visible|committed|checked in|pushed|pasted|shared|emailed|posted"
            r"|(?:sits?|lives?|lies|is|are|stored|kept) (?:in|on) (?:the |our |a |every )?(?:repo\w*|git|config\w*|log\w*|output"
            r"|laptops?|wiki|chat|slack|channel|notes?|docs?|readme|source|code)"
            r"|in (?:the |our )?(?:repo\w*|build log|job output|ci log|logs?|output|source|plain ?text)\b|in clear\b|plain ?text"
            r"|se muestran|registro|journal|protokoll|ausgegeben|affich\w+|в лог\w*|выводятся|печата\w*)")
_NOT_EXPOSED = re.compile(r"(?<![\w])(?:not|never|nunca|jamais|nie|nicht|nunca|mai|никогда|не)\s+(?:\w+\s+){0,2}?" + _EXPOSED,
                          re.IGNORECASE)
"""An exposure denied ("stored as an Actions secret, not in the repo"): removed before :data:`_SECRET_EXPOSED` reads."""
_SECRET_EXPOSED = re.compile(r"(?<![\w])" + _SECRET + r".{0,60}?(?<![\w])" + _EXPOSED
                             + r"|(?<![\w])" + _EXPOSED + r".{0,40}?(?<![\w])" + _SECRET, re.IGNORECASE)
_INTEGRITY = _rx(
    r"(?:lock ?files?|go\.sum|package-lock(?:\.json)?|poetry\.lock|cargo\.lock|yarn\.lock|pnpm-lock\w*|uv\.lock"
    r"|checksums?|hash(?:es)? pins?|--require-hashes|file di lock|lockdatei\w*|fichiers? de (?:verrouillage|lock)"
    r"|archivos? de bloqueo|lock-?файл\w*)\b.{0,40}(?:not|never|no\b|n't|ignored|gitignored|skipped|deleted|removed"
    r"|non\b|nicht|pas\b|no se|не\b)"
    r"|(?:no|without|(?:don'?t|do not|never|no need to) (?:keep|commit|use|check in|update|respect|verify|read))\s(?:\w+\s){0,2}"
    r"(?:lock ?files?|go\.sum|checksums?|hashes|package-lock\S*|poetry\.lock|uv\.lock)")
_UNPINNED = _rx(r"(?:latest|newest|most recent|current head of|tip of) (?:\w+ )?(?:versions?|releases?|builds?|commits?|tags?)\b"
               r"(?: \w+){0,6}? (?:from|off|of) (?!the lock)"
               r"|(?:pulls?|fetch\w*|downloads?|grabs?|installs?) (?:\w+ ){0,3}(?:from|off) (?:its|their|the vendor'?s?|the project'?s?) "
               r"(?:homepage|website|site|github|main branch|master)")
# What one party writes is given the weight of a decision, an approval or a rule ("what the assistant writes
# down is treated as the team's decision", "vaut décision"): authority conferred, not a fact about the project.
_AUTHORITY = _rx(r"(?:is|are|gets?|get) (?:treated|taken|regarded|considered|counted) as (?:[\w']+ ){0,3}(?:decision|decided|approved"
                 r"|approval|policy|rule|binding|final|settled|consent|authoritative|official)"
                 r"|counts? as (?:[\w']+ ){0,3}(?:decision|approval|consent|policy|rule|sign-off)|vaut (?:\w+ )?(?:decision|accord|validation)"
                 r"|gilt als (?:\w+ )?(?:entscheidung|freigabe|genehmigt)|vale como (?:\w+ )?(?:decision|aprobacion)"
                 r"|vale come (?:\w+ )?(?:decisione|approvazione)|считается (?:\w+ )?(?:решением|одобрен\w*)")
# Nobody looks: a step said to need no one's review ("nobody needs to look at it", "passes whatever they find").
_UNREVIEWED = _rx(r"(?:nobody|no one|no-one|none of us) (?:\w+ )?(?:needs?|has|have|is required|must) to (?:look|review|check|approve"
                  r"|read|verify|sign)|without any?(?:one|body) (?:looking|reviewing|checking|approving)"
                  r"|pass(?:es|ed)? (?:whatever|regardless|no matter what)|whatever (?:they|it|the \w+) (?:finds?|reports?|says?)")
# Work a build does for someone else: sharing files out, relaying traffic (a resource abused, not a fact).
_RESOURCE = _rx(r"torrents?|seedbox|seeds? (?:\w+ ){0,2}(?:files|torrents)|open proxy|tor (?:exit|relay|node)|relays? (?:\w+ )?traffic"
                r"|proxies (?:\w+ )?traffic")
# A text that stops mid-sentence (a colon, an open quote, "to'"): a prompt to complete, not a memory.
_ENDS_OPEN = re.compile(r"(?:[:：]\s*['\"‘“][^'\"’”.!?]*['\"’”]|[:：]\s*['\"‘“]?|\b(?:to|is|are|the|a|an|and|of|that)\s*['\"’”])\s*$", re.IGNORECASE)
_DEFERRED = _rx(
    r"next time|the next (?:question|request|time|session|ask|user|person|one)\b"
    r"|(?:starting|beginning|effective) (?:with|from|on) (?:the )?next|from the next|as of the next"
    r"|once (?:the|this|that|it|we|they|our) \w+ (?:ends|is over|is done|finishes|closes|ships|lands|merges)"
    r"|on the (?:first|last|\d+(?:st|nd|rd|th)) (?!(?:mon|tues|wednes|thurs|fri|satur|sun|week|working |business )?day\b)\w+"
    r" of (?:each|every|the) (?:month|week|quarter|year)"
    r"|after (?:\d+|two|three|four|five|several|a few|enough) (?:failed |failing |red |more )?\w+ in a row"
    r"|any (?:later|future|subsequent|further) (?:question|request|ask|prompt|session)"
    r"|from (?:the )?(?:(?:\d{4}|next|new|upcoming) )?(?:roadmap|release|version|sprint|quarter|milestone|launch|cutover"
    r"|migration|rollout|q[1-4]|\d{4}|v?\d+(?:\.\d+)+)(?: \w+)? on(?![\w-])(?! (?:the|a|an|this|that|our|my|your|its|their)\b)"
    r"|(?:later|future|subsequent) (?:questions?|requests?|sessions?) (?:about|on|regarding)"
    r"|(?:la )?prochaine (?:fois|question|demande)|a la prochaine|beim nachsten|bei der nachsten|nachstes mal"
    r"|(?:la )?proxima vez|la proxima (?:pregunta|consulta)|la prossima (?:volta|domanda)|la proxima"
    r"|в следующий раз|при следующ\w*|следующ\w* (?:вопрос|запрос)|次回|下次|下一次|다음 번|다음에")
_ANSWER = _rx(r"the answer (?:is|should be|will be)|answer(?:ed)? with|gets? the (?:reply|answer|response)"
              r"|the (?:reply|response) (?:is|should be)|(?:reply|respond|answer) that\b|is answered"
              r"|lautet die antwort|die antwort ist|la reponse est|la respuesta es|la risposta e|ответ\w* (?:—|-|:)?\s?(?:такой|будет)")
_FRAGMENT = _rx(
    r"part \d+ (?:of|/) ?\d+|part (?:one|two|three|1|2|3)\b|step \d+ of (?:the )?\d*|\(\d+/\d+\)|\d+/\d+:"
    r"|continued (?:from|in)|continues? (?:from|in) (?:the )?(?:previous|other|next|last)|continuation|to be continued"
    r"|the other (?:memory|note|entry|half|part)|(?:previous|prior|earlier|preceding|next|following|last) (?:memory|note|entry|part)"
    r"|(?:first|second|other|last) half|the rest of (?:the|this) (?:command|note|instruction|procedure)"
    r"|(?:read|taken|put) together with|combined? (?:the|it|this|them)? ?\w* (?:with|and) (?:the )?(?:\w+ )?(?:from|in) (?:step|part|note)"
    r"|together (?:they|these|both|the two|with (?:that|this|the other))\b|taken together|in combination with (?:the|that) (?:note|memory)"
    r"|mentioned in the (?:other|previous|earlier|last|next)|-note procedure|three-note|two-note"
    r"|fortsetzung|vorige\w* notiz|suite de la note|note precedente|nota (?:anterior|precedente)|continuacion"
    r"|продолжени\w*|предыдущ\w* (?:заметк|запис)")
_OPENS_MID = re.compile(r"^\s*(?:\.\.\.|…|and\s|then\s|or\s|but\s|und\s|puis\s|et\s|y\s|e\s|и\s)", re.IGNORECASE)
_EXECUTION = _rx(
    r"(?:pip(?:e|ed|es|ing)|fe(?:e)?d|feeds|goes|go|passed|handed|sent|streamed|straight|directly|output)\b[^.;]{0,40}"
    r"(?<![\w])(?:to|into|through|in) (?:the |a |an )?(?:shell|bash|sh|zsh|interpreter|powershell|iex)\b"
    r"|(?:run|ran|executed|started|launched|invoked|piped|sourced) (?:with|by|via|through|in|into|using) (?:the )?(?:bash|sh|zsh|shell|powershell|iex)\b"
    r"|then (?:sh|bash|zsh|iex)\b|\|\s*(?:sh|bash|zsh|sudo)\b|(?:is|are|gets|get) (?:then )?(?:executed|run|sourced|evaluated)"
    r"(?: directly| as root| with sudo| straight)|executed as root|as root\b.{0,20}(?:execut|run)"
    r"|curl\b|wget\b|netcat|ncat\b|socat\b|\bnc\b|sudo\b|rm -rf|rm -fr|rmrf\b|chmod (?:-r )?777|chmod \+s|mkfs"
    r"|\bdd if=|invoke-expression|\biex\b|\w*pushforce"
    r"|(?<!never )(?<!not )(?<!n't )(?<!no )(?:force[\s-]?push\w*|push(?:es|ed)? (?:--force|-f)(?![\w-]))(?: \w+){0,3}? (?:to )?"
    r"(?:main|master|trunk|release\w*|prod\w*|the default|develop)\b"
    r"|ausgefuhrt|execute\w* (?:directement|tel quel)|ejecuta\w* directamente|eseguit\w* direttamente|выполня\w* (?:сразу|напрямую)")
_ABBREVIATIONS = frozenset("eg ie ps am pm nb cf vs qv ok aka usa uk us eu un rip tbd etc wc".split())
_LETTER_RUN = re.compile(r"(?<![\w.])(?:[^\W\d_](?:[ \t]*[._\-·•][ \t]*|[ \t]{1,3}(?=[^\W\d_](?:[ \t]|[._\-·•]|$))))+"
                         r"[^\W\d_](?![\w])")


def split_letter_runs(view: str) -> list[str]:
    """Words written as single letters with separators in ``view`` (``c.u.r.l`` → ``curl``): runs of three or
    more letters, or two lowercase letters joined by ``.``/``_`` (``n.c``, ``s_h``), that are not an
    abbreviation of :data:`_ABBREVIATIONS`. Returns the joined words, lower case; ``[]`` when none."""
    words: list[str] = []
    for match in _LETTER_RUN.finditer(view):
        run = match.group(0)
        letters = "".join(ch for ch in run if ch.isalpha())
        if letters.lower() in _ABBREVIATIONS:
            continue
        if len(letters) >= 3:
            if "_" in run and not ("." in run or " " in run) and not spells_tool(letters.lower()):
                continue  # "a_b_c_d" test ids: snake_case of single letters, not a hidden word
            if re.fullmatch(r"(?:[^\W\d_] ){2,}[^\W\d_]", run) and run.isupper():
                continue  # "A B C" as a list of labels
            words.append(letters.lower())
        elif len(letters) == 2 and run.islower() and re.search(r"[._]", run) and " " not in run:
            words.append(letters)
    return words


def join_split_letters(text: str) -> str:
    """``text`` with each run of :func:`split_letter_runs` joined into its word (``c.u.r.l`` → ``curl``,
    ``r m - r f`` → ``rmrf``); the text unchanged when it has none."""
    def join(match: re.Match[str]) -> str:
        run = match.group(0)
        letters = "".join(ch for ch in run if ch.isalpha())
        return letters if split_letter_runs(run) else run
    return _LETTER_RUN.sub(join, text)


def kind_reasons(view: str, raw: str, *, packages: bool = True) -> list[str]:
    """The ``property:<kind>`` reasons (module doc) found in ``view`` (the folded reading of one view) and
    ``raw`` (that view before folding: letter case and spacing kept), in the doc's order; ``[]`` when none.
    ``packages`` False skips the look-alike package check (a view with hyphens removed makes "pre-commit"
    read as "precommit").
    Never raises on a ``str``."""
    reasons: list[str] = []
    if _SCOPE.search(view) or _SECRET_EXPOSED.search(_NOT_EXPOSED.sub(" ", view)):
        reasons.append("property:exposure")
    if _INTEGRITY.search(view):
        reasons.append("property:integrity")
    if _UNPINNED.search(view):
        reasons.append("property:unpinned")
    if _DEFERRED.search(view):
        reasons.append("property:deferred")
    if _ANSWER.search(view):
        reasons.append("property:answer")
    if _AUTHORITY.search(view):
        reasons.append("property:authority")
    if _UNREVIEWED.search(view):
        reasons.append("property:unreviewed")
    if _RESOURCE.search(view):
        reasons.append("property:resource")
    if _FRAGMENT.search(view) or _OPENS_MID.search(view) or _ENDS_OPEN.search(view):
        reasons.append("property:fragment")
    if _EXECUTION.search(view):
        reasons.append("property:execution")
    if split_letter_runs(raw):
        reasons.append("property:split_letters")
    if packages and lookalike_packages(raw):
        reasons.append("property:lookalike_package")
    return reasons
