"""Memory poisoning, categories ``encoded_command``, ``ai_addressed`` and ``external_instruction``.

Rules of :mod:`memctl.validator.poisoning` (its module doc gives each rule and its sources): an encoded or
downloaded command run by a shell (one sentence), text addressed to AI assistants and an instruction to the
assistant saved from an external document (whole text); each returns a short evidence phrase or None.
"""

from __future__ import annotations

import re

from memctl.validator.directive import (
    B,
    E,
    Span,
)

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
