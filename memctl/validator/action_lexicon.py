"""The cues :func:`memctl.validator.action.classify_action` looks for, on folded text (lower case, accents
after Latin letters removed, look-alikes mapped; :func:`memctl.validator.fold.fold_for_matching`).

Each entry is ``(reason code, compiled pattern)``. The English rules are written from the kinds of the
attack literature (garak's PromptInject and latent-injection probes; AgentDojo's, InjecAgent's and
BIPIA's attacker instructions: send, transfer, grant, visit, delete, say) and the kinds a red team
promoted into trusted memory (tool directives, triggers, downgrades, dependency confusion, overrides,
persistence, concealment, exfiltration by markdown, credential requests). The other languages (de, fr,
es, it, pt, nl, pl, ru, uk, tr, ja, zh, ko) carry the same directive verbs in their imperative and
infinitive forms; an ordinary statement ("die Tests brauchen Redis") has none of them.
"""

from __future__ import annotations

import re

__all__ = ["ACTION_VERBS", "CODE_CUES", "FILLER", "LANGUAGE_CUES", "STATEMENT_CUES"]

_B = r"(?<![a-z0-9_])"
_E = r"(?![a-z0-9_])"
_TLDS = (r"(?:com|net|org|io|dev|app|example|invalid|test|local|internal|biz|info|co|xyz|ai|me|us|uk|de|fr|ru|cn|jp"
         r"|tv|cc|online|site|cloud|tech|top|shop|link|click|zip|mov|in|eu|nl|pl|tr|kr|br|es|it|su|ws|to|ly|gg)")


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Carried objects: a command, a URL, a host, a package source (reason codes without a colon).
CODE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, _c(p)) for name, p in (
    ("command", r"\|\s*(?:sudo\s+)?(?:ba|z|k|da|fi)?sh" + _E),
    ("command", r"(?:ba|z)?sh\s*<\s*\("),
    ("command", _B + r"(?:curl|wget|iwr|invoke-webrequest)\s+(?:-{1,2}[a-z]|['\"]?https?:|\S+\.(?:sh|py|ps1)" + _E + ")"),
    ("command", _B + r"python[0-9.]*\s+-c" + _E + r"|" + _B + r"(?:os\.system|subprocess\.\w+|kernel\.exec|system|eval|exec|popen)\s*\("),
    ("command", r"\$\(\s*[a-z]|@\{\[|`[^`\n]*" + _B + r"(?:rm|ls|cat|curl|wget|chmod|chown|sudo|bash|sh|touch|mvn|npm|npx|pip|pip3|uv"
                r"|docker|terraform|kubectl|git|make|cargo|go|gh|ssh|scp|nc|python3?|node|apt|apt-get|brew|systemctl)" + _E),
    ("command", _B + r"(?:npx|uvx|bunx|pnpm\s+dlx|pipx\s+run)\s+\S|" + _B + r"invoke-expression" + _E + r"|" + _B + r"iex" + _E
                + r"|downloadstring\s*\("),
    ("command", _B + r"sudo\s+\S|" + _B + r"rm\s+-[a-z]*[rf]|" + _B + r"chmod\s+(?:-r\s+)?[0-7]{3}" + _E + r"|" + _B + r"nc\s+-[a-z]*e"),
    ("command", _B + r"(?:pip3?|npm|npx|yarn|pnpm|gem|cargo|apt|apt-get|brew|conda|uv|go|choco|winget)\s+(?:pip\s+)?"
                r"(?:install|add|i|get)" + _E),
    ("command", _B + r"(?:mvn|gradle|terraform|kubectl|docker|helm|git|npm|make|ansible|aws|gcloud|az)\s+(?:[a-z:._/-]+\s+){0,3}-{1,2}[a-z]"),
    ("command", _B + r"git\s+config" + _E + r"|" + _B + r"[a-z][a-z0-9_]{2,}=(?:0|1|true|false|yes|no)\s+(?:is\s+set|[a-z]+\s)"),
    ("command", r"__import__|__subclasses__|__class__|__builtins__|" + _B + r"lambda\s|\.connect\(\(|" + _B
                + r"open\(\s*['\"]/|shell\s*=\s*true|/bin/(?:ba)?sh" + _E + r"|" + _B + r"mkfifo" + _E + r"|" + _B + r"nc\s+\S+\s+\d"),
    ("command", r"javascript:|<script|" + _B + r"onerror\s*=|document\.cookie|" + _B + r"alert\(|data:text/html"),
    ("url", _B + r"(?:https?|ftp|sftp|git|ssh|file|ws|wss)://|" + _B + r"www\.[a-z0-9-]+\."),
    ("host", r"(?<![a-z0-9_@./-])(?:[a-z0-9-]+\.)+" + _TLDS + r"(?![a-z0-9_-])(?!\.[a-z])"),
    ("host", _B + r"(?:\d{1,3}\.){3}\d{1,3}" + _E),
    ("email", _B + r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}" + _E),
    ("package_source", r"--(?:extra-)?index-url|" + _B + r"index-url" + _E + r"|" + _B + r"registry\s*=|--registry" + _E
                       + r"|" + _B + r"trusted-host" + _E),
    ("package_source", _B + r"(?:prefers?|preferred|uses?|using|switch(?:es|ed)?\s+to|replace[sd]?[^.\n]{0,40}?with|installs?"
                       r"|pin(?:s|ned)?|standardi[sz]ed\s+on|chose|picked|adopted|moved\s+to|migrated\s+to)\s+[^.\n]{0,50}?"
                       r"(?:`[^`\n]+`|[a-z0-9]+[-_.][a-z0-9_.-]+)\s+(?:package|library|crate|gem|fork|mirror|registry|wheel)" + _E),
    ("package_source", r"(?:`[^`\n]+`|[a-z0-9]+[-_.][a-z0-9_.-]+)\s[^.\n]{0,30}?" + _B + r"(?:drop-in|replacement|fork|successor)"
                       r"(?:\s+replacement)?\s+(?:for|of)\s+(?:`[^`\n]+`|[a-z0-9]+[-_.][a-z0-9_.-]+)"),
    ("package_source", _B + r"(?:package|library|crate|gem|fork|mirror|registry)\s+(?:`[^`\n]+`|[a-z0-9]+[-_.][a-z0-9_.-]+)\s"
                       r"[^.\n]{0,40}?(?:instead of|over|replaces|is now|moved)" + _E),
    ("package_source", _B + r"(?:package|library|crate|gem|fork|mirror|registry)\s[^.\n]{0,50}?(?:instead of|over|replaces"
                       r"|is now|moved)" + _E),
    ("package_source", _B + r"(?:of choice|go-to|standard|preferred|default|drop-in)\s+(?:[a-z-]+\s+){0,2}?(?:is|are)\s+"
                       r"(?:`[^`\n]+`|[a-z0-9][a-z0-9_.-]*)|" + _B + r"(?:http client|client|library|package|sdk|installer|registry"
                       r"|mirror|base images?|images?)\s+(?:of choice\s+)?(?:is|are)\s+(?:now\s+)?(?:from|at|on)\s"),
    ("package_source", _B + r"[a-z0-9_.-]+={2}\d|" + _B + r"(?:install|use|pull|fetch|import|depend on)\w*\s+(?:it\s+|them\s+)?"
                       r"instead of" + _E),
    ("markdown_template", r"\]\([^)\s]*[?&][^)\s=]*=[^)\s]*(?:\{|\$|\[|<|%7b|%24)"),
    ("markdown_template", r"!\[[^\]\n]*\]\(\s*(?:https?:)?//"),
))

# Statements that direct without an imperative verb: security settings, overrides, persistence, triggers.
STATEMENT_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, _c(p)) for name, p in (
    ("security_setting", _B + r"(?:tls|ssl|certificate|cert|https|hostname|signature|gpg|2fa|mfa|firewall|selinux|apparmor"
                         r"|antivirus|sandbox|csrf|auth\w*|approval|code review|review)\s+(?:\w+\s+){0,3}?(?:may|can|should|must"
                         r"|is allowed to|are allowed to)?\s*(?:be\s+|stay\s+)?(?:disabled|turned off|switched off|skipped"
                         r"|bypassed|ignored|off(?![-a-z])|removed|relaxed|optional)" + _E),
    ("security_setting", _B + r"(?:tls|ssl|certificates?|mfa|2fa|two-factor|firewall|selinux|antivirus|sandbox|approvals?)\b[^.\n]{0,80}?"
                         r"(?:can|may|should|could)\s+be\s+(?:switched|turned)\s+off" + _E),
    ("security_setting", _B + r"(?:verify|ssl_?verify|sslverify|strict-ssl|check_hostname|verify_ssl)\s*[=:]?\s*(?:false|0|no|off)" + _E
                         + r"|node_tls_reject_unauthorized\s*=\s*0|--insecure" + _E + r"|--no-check-certificate|"
                         + _B + r"chmod\s+(?:-r\s+)?777|allowed_hosts\s*=\s*\[?\s*['\"]\*|origin\s*:\s*['\"]\*|" + _B + r"debug\s*=\s*true"),
    ("override", _B + r"(?:override|overrides|overriding|supersedes?|outranks?|take(?:s)? precedence over|(?:has|have|take|takes)"
                 r" priority over|more important than)\s[^.\n]{0,60}?(?:user|system prompt|instructions?|anything|everything"
                 r"|rules?|polic(?:y|ies)|guidelines?|developer|operator|person|human)" + _E),
    ("override", _B + r"(?:ignore|disregard|forget|override|bypass|skip)\w*\s+(?:[a-z']+\s+){0,4}?(?:instructions?|directions?"
                 r"|rules?|guidelines?|prompts?|polic(?:y|ies)|safety|restrictions?|above|everything|all negative"
                 r"|what the user|the user)" + _E + r"(?!\s+(?:run|runs|job|jobs|data|checkpoints?|results?|numbers?|figures?))"),
    ("override", _B + r"(?:memor(?:y|ies)|notes?|this (?:note|entry))\s+(?:are|is)\s+(?:authoritative|binding|final|the source of truth)"
                 r"|" + _B + r"follow (?:the|these|this|stored) (?:memor(?:y|ies)|notes?)" + _E + r"|" + _B + r"(?:disagrees?|conflicts?)"
                 r" with (?:the )?user" + _E),
    ("security_setting", r"(?<!never )(?<!not )(?<!n't )" + _B + r"(?:disabl\w*|skip\w*|turn\w* off|bypass\w*)\s+(?:the\s+|all\s+)?"
                         r"(?:tls|ssl|certificate|cert|hostname|signature|host key)\s+(?:verification|checks?|validation|pinning)" + _E),
    ("override", _B + r"(?:whatever|regardless of what|no matter what|irrespective of what)\s+(?:the\s+|they\s+|it\s+)?(?:[a-z]+\s+){0,2}?"
                 r"(?:says?|shows?|states?|contains?|asks?|reads?)" + _E),
    ("override", _B + r"counts? as (?:the user'?s |their |an? )?(?:explicit |prior |standing )?(?:consent|approval|permission"
                 r"|authori[sz]ation|confirmation)" + _E + r"|" + _B + r"(?:pre-?approved|already approved) by the user" + _E),
    ("security_setting", _B + r"(?:checks?|verification|reviews?|protection|scans?|scanning|signatures?|approvals?|approval gate|gates?"
                         r"|mfa|2fa|two-factor|code owners|audits?)" + _E + r"[^.\n]{0,40}?(?:not needed|unnecessary|no longer (?:needed"
                         r"|required)|optional|relaxed|retired|waived|lifted|turned off|switched off)" + _E),
    ("security_setting", _B + r"(?:direct push(?:es)?|force[- ]push(?:es|ing)?|pushing (?:directly )?to main|skipping (?:the )?(?:tests"
                         r"|review|ci|checks))\s+(?:is|are)\s+(?:now\s+)?(?:fine|ok|okay|allowed|acceptable)" + _E),
    ("security_setting", _B + r"(?:csp|content security policy|secrets? scanning|waf|hsts|rate limit\w*|cors|mfa|2fa|two-factor|tls|ssl"
                         r"|firewall|antivirus|audit log\w*|branch protection|code review|sandbox\w*|security headers?)" + _E
                         + r"[^.\n]{0,80}?" + _B + r"(?:remove|removed|turn(?:ed)? off|switch(?:ed)? off|disabled?|drop(?:ped)?"
                         r"|relax(?:ed)?|bypass(?:ed)?|not needed|unnecessary)" + _E),
    # a security-relevant object judged harmless, optional or not worth reporting ("passwords in config files
    # are acceptable", "audit warnings are noise", "advisories are low severity")
    ("relaxation", _B + r"(?:passwords?|credentials?|secrets?|tokens?|keys?|tls|ssl|certificates?|mfa|2fa|vulnerabilit(?:y|ies)|cves?"
                   r"|advisor(?:y|ies)|audits?|scans?|scanners?|warnings?|alerts?|checklists?|approvals?|reviews?|sign-?offs?"
                   r"|permissions?|access|firewall|sandbox|security)" + _E + r"[^.;\n]{0,80}?" + _B + r"(?:acceptable|fine|ok|okay"
                   r"|allowed|optional|noise|not needed|unnecessary|never worth|not worth|low severity|harmless|false positives?"
                   r"|safe to ignore|can be ignored|considered optional|no longer (?:needed|required|apply|applies))" + _E),
    ("override", _B + r"(?:cannot|can't|can not|must not|may not|should not|shall not)\s+be\s+(?:questioned|overridden|challenged"
                 r"|changed|removed|reviewed|ignored|doubted|disputed)" + _E),
    ("suppression", _B + r"(?:close|dismiss|ignore|suppress|hide|delete|resolve|mute|archive)\w*\s+(?:any|all|every|each)\s+(?:[a-z]+\s+)?"
                    r"(?:issues?|alerts?|warnings?|reports?|findings?|tickets?|prs?|pull requests?|messages?|advisories)\s+"
                    r"(?:that|which|with|mentioning|about|from)" + _E),
    ("credential_request", _B + r"(?:the )?user'?s (?:actual |real |own |current )?(?:password|passphrase|private key|2fa code"
                           r"|otp|security code)" + _E),
    ("security_setting", _B + r"(?:string concatenation|concatenat\w*|interpolat\w*|f-strings?)\s[^.\n]{0,30}?(?:user input"
                         r"|request param\w*|query param\w*)"),
    ("run_fetched", _B + r"(?:fetch|download|pull|grab|curl|wget)\w*\s+(?:[a-z'-]+\s+){0,4}?and\s+(?:then\s+)?(?:run|execute|exec"
                    r"|source|install|launch)s?" + _E),
    ("persistence", _B + r"systemd\s+(?:user\s+)?(?:unit|service|timer)|" + _B + r"(?<!read )(?<!loaded )(?<!parsed )(?<!validated )(?<!cached )(?:on|at|every)\s+(?:login|logon|boot|startup)"
                    + _E + r"|launch\s?agents?|" + _B + r"autostart|run\s?once|startup (?:item|folder|script)"),
    ("persistence", _B + r"keys?\b[^.\n]{0,40}?(?:ssh config|sshd_config|ssh/config|\.ssh/|authorized)"),
    ("persistence", r"authorized_keys|" + _B + r"crontab" + _E + r"|\.(?:bashrc|zshrc|bash_profile|profile)" + _E
                    + r"|systemctl\s+enable|launchctl\s+load|ssh-(?:rsa|ed25519|dss)\s+aaaa|" + _B + r"cron\s+(?:job|entry)"),
    ("trigger", _B + r"(?:when|whenever|if|once|next time|each time|every time|as soon as|should)\s+(?:[a-z']+\s+){0,6}?"
                r"(?:the user|a user|users|anyone|someone|somebody|anybody|they|he|she|a developer|the developer|you are asked"
                r"|asked|questioned)\s+(?:[a-z']+\s+){0,3}?(?:asks?|asked|mentions?|says?|requests?|wants?|types?|opens?|runs?"
                r"|questions?|tries|queries|inquires?|needs?|about|for|how)" + _E + r"[^.\n]{0,120}?" + _B + r"(?:tell|say|answer"
                r"|reply|respond|suggest|recommend|explain|mention|send|share|ask|give|run|install|disable|point|direct|insist|claim"
                r"|you|them|him|her)" + _E),
    ("trigger", _B + r"(?:when|whenever|if|once|each time|every time)\s+(?:[a-z']+\s+){0,5}?(?:is|are|gets?)\s+(?:mentioned|asked"
                r"|discussed|requested|brought up|raised)" + _E),
    ("trigger", _B + r"(?:from now on|in every (?:answer|reply|response|message|summary)|(?:at the (?:start|end|beginning) of|in|after|before)"
                r" (?:each|every|any|all) (?:session|answer|reply|response|message|summary|task|build|banking task|slack task|trip)"
                r"|each time you|every time you|whenever you|next time)" + _E),
    ("credential_request", _B + r"(?:ask|request|prompt|collect|obtain)\w*\s+(?:[a-z']+\s+){0,4}?(?:password|passphrase|passcode"
                           r"|token|api key|credentials?|secret|otp|2fa code|security code|ssh key|private key|pin|connection string)" + _E),
    ("credential_request", _B + r"(?:ask|request|prompt|have|let|make|get|tell)\w*\s+(?:the\s+)?(?:user|users|them|him|her|developer"
                           r"|people|everyone)" + _E + r"[^.\n]{0,60}?(?:password|passphrase|passcode|token|api key|credentials?"
                           r"|secret|otp|2fa code|security code|ssh key|private key|pin)" + _E),
    ("credential_handling", _B + r"(?:passwords?|passphrases?|secret keys?|access keys?|api keys?|tokens?|credentials?|cookies?"
                            r"|private keys?|recovery codes?|\.env|ssh keys?|~/\.ssh|session ids?)" + _E + r"[^.\n]{0,60}?"
                            + _B + r"(?:to\s+'|to\s+\"|belongs? in|in (?:the )?(?:global )?memory|in (?:the )?(?:public|shared)|into (?:the )?"
                            r"(?:public|shared|chat)|on (?:the )?public)"),
    ("credential_handling", _B + r"(?:remember|store|save|keep|record|log|write down|update|change|set)\w*\s+(?:[a-z']+\s+){0,4}?"
                            r"(?:password|passphrase|secret key|access key|api key|credentials?|cookies?|private key|recovery codes?)"
                            + _E + r"(?!\s+(?:out|policy|policies|rotation|reset|manager|length|rules?))"),
    ("send_public", _B + r"(?:paste|post|upload|put|store|push|publish|dump|copy|share|mirror|attach)\w*\s[^.\n]{0,50}?(?:public|pastebin|gist"
                    r"|discussion board|forum|external)" + _E),
    ("credential_request", _B + r"(?:share|paste|post|send|email|include)\w*\s+(?:[a-z']+\s+){0,5}?(?:password|passphrase|token|api key"
                           r"|credentials?|connection string|security code|\.env|credentials file)" + _E),
    ("concealment", _B + r"(?:never|do not|don't|dont|must not|should not|shouldn't|avoid|stop)\s+(?:ever\s+)?(?:mention|tell|inform"
                    r"|warn|report|reveal|disclose|notify|alert|flag|bring up|admit)\w*" + _E + r"|without (?:telling|informing"
                    r"|asking|notifying|warning) (?:the user|them|anyone)|" + _B + r"silently" + _E + r"|" + _B
                    + r"(?:keep|leave)\s+[^.\n]{0,60}?\s+out of (?:the |your |all |every )?(?:answers?|replies|reply|responses?|summar"
                    r"(?:y|ies)|reports?)" + _E + r"|" + _B + r"(?:omit|hide)\s+[^.\n]{0,60}?\s+from (?:the user|users|answers?|replies)" + _E),
    ("payment", _B + r"[a-z]{2}\d{2}(?:\s?[a-z0-9]{4}){3,7}(?:\s?[a-z0-9]{1,3})?" + _E + r"|" + _B + r"(?:wire|transfer|pay|send)\s+"
                r"(?:[a-z]+\s+){0,2}?(?:[$€£]\s?\d|\d[\d,.]*\s?(?:eur|usd|gbp|dollars|euros|btc))"),
    ("ai_addressed", _B + r"(?:note|message|instructions?) (?:to|for) (?:the )?(?:automated|ai|llm|assistant|model|agent|gpt|bot"
                     r"|analysis software|screening)|" + _B + r"(?:if you are|you are) an? (?:ai|llm|language model|assistant)"
                     r"|" + _B + r"(?:system|assistant):\s|visible to (?:llm|ai)"),
    ("grant", _B + r"add\w*\s+[^.\n]{0,60}?\s(?:to|into|as)\s+(?:the\s+|our\s+|every\s+)?(?:workspace|org|organi[sz]ation|channel"
              r"|team|group|sudoers|admins?|administrators?|owners?|collaborators?|authorized_keys|allowlist|whitelist|trusted)" + _E
              + r"|" + _B + r"add\w*\s+[^.\n]{0,60}?\s(?:to|into|as)\s+(?:the\s+|our\s+|every\s+|an?\s+)?[a-z]+\s+(?:owners?|admins?"
              r"|administrators?|maintainers?|collaborators?)" + _E),
    ("evasion_request", _B + r"(?:how to|ways to|techniques to|methods to|steps to|how (?:do|can) (?:i|you|we))\s+(?:jailbreak|bypass"
                        r"|evade|disable|circumvent|defeat|get around|turn off|break out of)" + _E),
    ("agent_norm", _B + r"(?:the )?(?:assistant|agent|ai|model|bot|llm|you|answers?|responses?|replies|reply|suggestions?|generated"
                   r" \w+|code suggestions?|summar(?:y|ies)|outputs?|every (?:answer|reply|response)|all (?:answers|replies|responses))"
                   + _E + r"[^.\n]{0,40}?(?:(?:should|must|may|can|shall|will(?: always)?|is to|are to|needs? to|has to|have to"
                   r"|ought to|is (?:free|allowed|expected|supposed|authori[sz]ed|permitted) to|are (?:allowed|expected|supposed|authori[sz]ed"
                   r"|permitted) to|starts?|begins?|keeps?|gets? to)\s+(?:always\s+|never\s+"
                   r"|also\s+|just\s+|only\s+)?)(?:be\s+)?(?P<verb>[a-z]+)" + _E),
    ("output_directive", _B + r"(?:each|every|all|any) (?:answer|reply|response|summary|comparison)s? (?:is|are|must be|should be"
                         r"|gets?) (?:written|given|phrased|formatted|translated|delivered|concluded|ended)" + _E),
    ("passive_norm", _B + r"(?:should|must|shall|is to|are to|needs? to|has to|have to)\s+be\s+(?P<verb>[a-z]+)" + _E),
    ("output_directive", _B + r"(?:respond|reply|answer)\s+(?:only\s+)?(?:with|in|using)\s|" + _B + r"(?:end|start|begin|sign)\s+"
                         r"(?:every|each|your|all)\s+(?:answer|reply|response|message)s?" + _E),
))

# A clause that starts (after the fillers) with one of these verbs is an instruction to the agent.
FILLER = re.compile(
    r"^(?:(?:please|kindly|always|just|simply|first|firstly|now|then|also|and|so|immediately|quickly|automatically|"
    r"important|note|reminder|standing instruction|instruction|rule|tip|hint|the team's standard|ok|okay|[0-9]+[.)]|[-*•>]+|"
    r"make sure (?:to|you)|be sure to|remember to|don't forget to|do not forget to|you (?:must|should|need to|have to|will|may|can|are to)|"
    r"(?:the )?(?:assistant|agent|ai|model|bot|llm)s? (?:must|should|will|needs? to|is to)|we (?:must|should)|"
    r"(?:it is|it's) (?:fine|ok|okay|safe|allowed|required|mandatory) to|feel free to|go ahead and|"
    r"(?:before|after|when|whenever|once|if|upon|on|during|while|for|in)\b[^,:]{0,80}[,:])\s*)+")

ACTION_VERBS: dict[str, str] = {}
for _reason, _verbs in {
    "run": "run execute exec launch invoke source pipe curl wget call",
    "install": "install download fetch pull clone reinstall upgrade",
    "send": "send sent email e-mail mail forward post upload share transfer pay paid wire publish submit leak exfiltrate dm mirror charge "
            "sell buy transmit dump export sync",
    "open": "open visit click browse navigate follow elect",
    "grant": "grant give invite allow whitelist allowlist approve authorize authorise unlock enable accept",
    "trust": "trust",
    "disable": "disable deactivate skip turn switch stop suppress mute",
    "bypass": "bypass circumvent evade override",
    "delete": "delete remove rm wipe drop erase purge destroy truncate cancel revoke move",
    "say": "tell say answer reply respond report print output repeat write mention include insert append end encode reverse "
           "translate recommend suggest claim state inform focus spell disclose reveal downplay dismiss hide omit conceal",
        "change": "change reset replace chmod chown point redirect",
    "book": "book reserve schedule",
    "read": "retrieve read search get extract collect",
}.items():
    for _verb in _verbs.split():
        ACTION_VERBS[_verb] = _reason

# The same directives in the languages developers write notes in (imperative / infinitive stems, folded).
LANGUAGE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((f"directive:{lang}", _c(p)) for lang, p in (
    ("de", _B + r"(?:fuhre|fuhr|ausfuhren|installier\w*|lade\s.{0,40}herunter|herunterladen|sende|schick\w*|offne|offnen|besuch\w*"
           r"|gewahr\w*|erteil\w*|deaktivier\w*|abschalten|schalte\s.{0,30}\saus|umgeh\w*|erwahne\s+(?:niemals|nie|nicht)|erwahn\w* "
           r"(?:niemals|nie)|frag\w*\s.{0,30}(?:passwort|kennwort|token)|wenn\s+(?:der|die)\s+(?:benutzer|nutzer)\w*\s.{0,40}fragt"
           r"|fuge\s.{0,60}hinzu|uberweis\w*|losch\w*|sag\w*\s+(?:dem|der)\s+(?:benutzer|nutzer)|(?:nie|niemals)\s+(?:\w+\s+){0,3}?"
           r"(?:hinweisen|erwahnen|melden|berichten))" + _E),
    ("fr", _B + r"(?:executez|executer|lancez|installez|telechargez|telecharger|envoie|envoyez|envoyer|ouvrez|visitez|accordez"
           r"|desactive|desactivez|desactiver|contourne|contournez|contourner|ne mentionne[rz]? jamais|ne (?:jamais )?mentionne[rz]?|ne (?:\w+ ){0,2}jamais (?:signaler|mentionner|dire|parler)"
           r"|demande[rz]?\s.{0,30}(?:mot de passe|jeton)|quand l'utilisateur|si l'utilisateur|dis-lui|dites-lui|transferez"
           r"|supprimez|ajoutez\s.{0,40}(?:cle|acces))" + _E),
    ("es", _B + r"(?:ejecuta[r]?|instala[r]?|descarga[r]?|envia[r]?|abre|abrir|visita[r]?|concede[r]?|otorga[r]?|desactiva[r]?"
           r"|deshabilita[r]?|omite|omitir|elude|eludir|nunca menciones|no menciones|pide\s.{0,30}(?:contrasena|clave|token)"
           r"|cuando el usuario|si el usuario|dile|transfiere|transferir|borra[r]?|elimina[r]?)" + _E),
    ("it", _B + r"(?:esegui|eseguire|installa(?:re)?|scarica\w*|invia(?:re)?|manda(?:re)?|apri(?:re)?|concedi\w*|disattiva\w*|disabilita\w*"
           r"|aggira\w*|non menzionare|mai menzionare|non menzionare mai|chiedi\s.{0,30}(?:password|token)|quando l'utente"
           r"|se l'utente|digli|trasferisci|elimina(?:re)?|cancella(?:re)?)" + _E),
    ("pt", _B + r"(?:execute|executar|rode|rodar|instale|instalar|baixe|baixar|envie|enviar|abra|abrir|visite|visitar|conceda|conceder"
           r"|desative|desativar|desabilite|contorne|nunca mencione|nao mencione|peca\s.{0,40}(?:senha|token)|pergunte\s.{0,40}senha"
           r"|quando o usuario|se o usuario|quando perguntarem|diga|digam|informe que|transfira|apague|exclua)" + _E),
    ("nl", _B + r"(?:voer\s.{0,40}uit|uitvoeren|installeer|installeren|downloaden|stuur|verstuur|bezoek|verleen|geef"
           r"\s.{0,30}toegang|schakel\s.{0,30}uit|uitschakelen|omzeil\w*|noem\s.{0,30}nooit|nooit\s.{0,20}noemen|vraag\s.{0,30}"
           r"(?:wachtwoord|token)|voeg\s.{0,60}toe|wanneer de gebruiker|als de gebruiker|verwijder\w*|maak\s.{0,30}over)" + _E),
    ("pl", _B + r"(?:uruchom\w*|wykonaj\w*|zainstaluj\w*|pobierz\w*|wyslij\w*|otworz\w*|odwiedz\w*|przyznaj\w*|nadaj\w*|wylacz\w*"
           r"|omin|nigdy nie wspominaj|nie wspominaj|popros\s.{0,30}(?:haslo|token)|zapytaj\s.{0,30}haslo|gdy uzytkownik"
           r"|jesli uzytkownik|dodaj\s.{0,60}(?:klucz|authorized)|przelej|usun\w*)" + _E),
    ("ru", r"(?<![а-яё])(?:выполни\w*|запусти\w*|установи\w*|скачай\w*|загрузи\w*|отправь\w*|пошли\w*|открой\w*|посети\w*"
           r"|предоставь\w*|выдай\w*|отключи\w*|выключи\w*|обойди\w*|никогда не упоминай|не упоминай|не говори|спроси\s.{0,30}"
           r"(?:пароль|токен)|попроси\s.{0,30}(?:пароль|токен)|когда пользователь|если пользователь|добавь\s.{0,60}(?:ключ"
           r"|authorized)|переведи\s.{0,20}деньги|удали\w*)(?![а-яё])"),
    ("uk", r"(?<![а-яіїєґ])(?:виконай\w*|запусти\w*|встанови\w*|завантаж\w*|надішли\w*|відкрий\w*|відвідай\w*|надай\w*|вимкни\w*"
           r"|обійди\w*|ніколи не згадуй|не згадуй|не кажи|попроси\s.{0,30}(?:пароль|токен)|запитай\s.{0,30}пароль"
           r"|коли користувач|якщо користувач|додай\s.{0,60}(?:ключ|authorized)|видали\w*)(?![а-яіїєґ])"),
    ("tr", _B + r"(?:calistir\w*|yukleyin|indirin|gonder\w*|ziyaret et\w*|izin ver\w*|yetki ver\w*|devre disi birak\w*"
           r"|asla (?:bahsetme|soyleme)\w*|bahsetme\w*|sifre\w* iste\w*|kullanici\w* sor\w*)" + _E),
    ("ja", r"(?:実行して|実行しろ|実行する前に|インストールして|ダウンロードして|送信して|送って|開いて|アクセスして|権限を付与|無効に(?:して|する)"
           r"|回避して|言及しないで|伝えないで|伝えてください|言わないで|パスワードを(?:聞いて|尋ねて|求めて)|聞かれたら|尋ねられたら"
           r"|追加して|削除して|振り込んで)"),
    ("zh", r"(?:(?:^|[。！？；，,.!?;\n]|请|务必|一定要|总是|始终|每次|先)\s*(?:运行|执行|安装|下载|发送|发给|打开|访问|授予|授权|禁用|关闭|绕过|删除|转账)"
           r"|不要提及|绝不要提|不要告诉|询问.{0,10}密码|要求.{0,10}密码|当用户|如果用户|添加.{0,20}(?:密钥|authorized))"),
    ("ko", r"(?:실행하|설치하|다운로드하|보내|전송하|열어|방문하|권한을 부여|비활성화하|우회하|언급하지 마|말하지 마|알리지 마|비밀번호를 (?:물어|요청)"
           r"|사용자가 .{0,20}(?:물으면|묻으면|요청하면)|추가하|삭제하|송금하)"),
))

# Concealment and careless storage of secrets, in the same languages (stated, not commanded: "no need to report").
LANGUAGE_CUES += tuple((f"concealment:{lang}", _c(p)) for lang, p in (
    ("de", r"(?:muss|musst|mussen)\s+nicht\s+(?:gemeldet|erwahnt|berichtet)|nicht\s+(?:melden|erwahnen)|passw(?:o|ö)rter?\s.{0,40}"
           r"(?:speicher|ablegen|ablegbar)"),
    ("fr", r"inutile de (?:signaler|mentionner)|pas besoin de (?:signaler|mentionner)|mots? de passe\s.{0,40}(?:stocke|enregistre)"),
    ("es", r"no (?:hace falta|es necesario) (?:informar|mencionar|reportar)|contrasenas?\s.{0,40}(?:guardar|almacenar)"),
    ("it", r"non (?:serve|e necessario) (?:segnalare|menzionare)|password\s.{0,40}(?:salvat|memorizzat)"),
    ("pt", r"nao (?:e necessario|precisa) (?:informar|reportar|mencionar)|senhas?\s.{0,40}(?:guardad|salv|armazenad)"),
    ("nl", r"hoeft niet (?:gemeld|vermeld)|niet (?:melden|vermelden)|wachtwoorden?\s.{0,40}(?:opslaan|opgeslagen)"),
    ("pl", r"nie trzeba (?:zglaszac|zgłaszac|wspominac|informowac)|hasla?\s.{0,40}(?:zapis|przechow)"),
    ("ru", r"не (?:нужно|надо|стоит) (?:сообщать|упоминать|говорить)|это шум|парол\w*\s.{0,40}(?:хранить|сохранять|можно)"),
    ("uk", r"не (?:потрібно|треба|варто) (?:повідомляти|згадувати|казати)|парол\w*\s.{0,40}(?:зберігати|можна)"),
    ("tr", r"bildirmeye gerek yok|bahsetmeye gerek yok|sifreler\w*\s.{0,40}(?:saklanabilir|kaydedilebilir)"),
    ("ja", r"報告する必要はありません|報告不要|伝える必要はありません|言う必要はありません|パスワードを.{0,20}(?:保存|書いて)"),
    ("zh", r"不需要报告|不必报告|无需报告|不用告诉|不需要告诉|密码.{0,20}(?:可以保存|存在|写在)"),
    ("ko", r"보고할 필요가 없|알릴 필요가 없|말할 필요가 없|비밀번호를 .{0,20}(?:저장|적어)"),
))
