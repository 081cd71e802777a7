"""Forged context structure: text that imitates the layout around memories or a chat transcript.

A promoted memory is pasted into the answer model's context
(:func:`memctl.ask.run.assemble_context`); one that *looks like* that context's own structure — a
section header, a reference citation, a memory entry — or like a chat transcript's role markup
can pose as a second memory, a trusted reference, or a turn of the conversation.
:func:`find_forged_structure` decides over folded text
(:func:`memctl.validator.fold.fold_for_matching`) and returns ``("forged_context:<kind>",
evidence)`` or None.

==================  =================================================================================
kind                what (sources)
==================  =================================================================================
``section_marker``  memctl's own section headers, opening or closing: ``[USER_MEMORY]``,
                    ``[/REFERENCE]``, ``USER_MEMORY:`` (memctl/ask/run.py, memctl/prompts/answer.md), and
                    bracketed role sections ``[SYSTEM]``, ``[SYSTEM NOTE]``, ``[INSTRUCTIONS]``,
                    ``【System】`` (CJK brackets, which NFKC leaves alone)
``citation_line``   a reference header in memctl's shape ``[n] Title (session <id>, <date>)``
                    (memctl/ask/run.py) at the start of a line, also ``(ses_…, <date>)``
``memory_entry``    a memory entry in memctl's shape ``- (user/…) text`` (memctl/ask/run.py), or a
                    fenced/quoted entry naming a store path (``memory user/…``)
``chat_template``   special tokens of model chat templates: ChatML ``<|im_start|>``, Llama 3
                    ``<|start_header_id|>``/``<|eot_id|>``, Phi/Zephyr ``<|system|>``/``<|end|>``,
                    DeepSeek ``<｜User｜>`` (fullwidth bars fold to ``|``), Llama 2 ``[INST]``/
                    ``<<SYS>>``, Gemma ``<start_of_turn>``, Mistral ``[SYSTEM_PROMPT]``/
                    ``[AVAILABLE_TOOLS]``/``[TOOL_CALLS]`` (the templates in each model's
                    tokenizer_config.json)
``role_heading``    a Markdown heading that is a role: Alpaca/Vicuna ``### Instruction:``,
                    ``### Response:``, ``### Human:``, ``## System``
``role_turn``       a transcript turn at a line start: ``Human:``/``Assistant:`` (Anthropic's
                    text format), ``User:``/``System:``/``AI:``/``ChatGPT:``…, also bold, quoted or
                    with an aside (``**Assistant:**``, ``> User:``, ``Assistant (note):``) and in
                    German, French, Spanish, Chinese
``harness_tag``     tags agent harnesses wrap around context or tools: ``<system>``,
                    ``<system-reminder>`` (Claude Code, OpenCode), ``<system_prompt>``,
                    ``<user_query>``/``<custom_instructions>`` (Cursor), ``<environment_details>``
                    (Cline), ``<environment_context>``/``<user_instructions>`` (Codex),
                    ``<tool_call>``/``<tool_result>``/``<function_calls>``/``<invoke>``
                    (tool-use formats), ``<command-name>`` (Claude Code), ``<think>``,
                    ``<important>`` (MCP tool-poisoning samples)
``role_json``       a chat message as JSON or YAML: ``{"role": "system", …}``, ``role: system``
``system_label``    ``SYSTEM MESSAGE:``, ``System note:``, ``[SYSTEM OVERRIDE]`` …
==================  =================================================================================

Near-misses that pass (tests/support/proposal_corpus.py): prose about "the user" or "the assistant's
reply", ``[1] first step`` lists, ``[1] job started (worker 3, …)`` log formats, citations of
papers ``[1] Title (Author, 2017)``, headings such as ``### Release checklist``, ``user: deploy``
inside a line, ``System requirements:``, ``<!-- prettier-ignore -->``.
"""

from __future__ import annotations

import re

from memctl.validator.fold import fold_for_matching

__all__ = ["find_cased_structure", "find_forged_structure"]

# a line start (also a literal "\n" escape), after quote marks, bullets or emphasis
_LINE = r"(?:^|\n|\\n)[ \t>*_\-+]*"


def _folded_words(words: str) -> str:
    """An alternation of ``words`` as :func:`fold_for_matching` spells them (Cyrillic letters become partly Latin)."""
    return "|".join(sorted({re.escape(fold_for_matching(w)) for w in words.split()}, key=len, reverse=True))


# Role labels of chat transcripts, in the languages the recognisers know, written naturally and folded here.
_STRONG_ROLES = _folded_words(
    "human assistant ai chatgpt gpt claude gemini copilot llm assistent assistente asistente asystent asistan "
    "ассистент ассистента помощник 助手 アシスタント 어시스턴트")
_WEAK_ROLES = _folded_words(
    "user system benutzer nutzer utilisateur usuario usuário utente gebruiker kullanıcı użytkownik пользователь "
    "система sistema systeme système systeem sistem model modello modelo модель developer operator разработчик sviluppatore desenvolvedor "
    "ontwikkelaar geliştirici programista 用户 用戶 系统 系統 ユーザー システム 사용자 시스템 開発者 개발자")
# a question/answer pair reads as a turn only with another turn ("Question: …\nAnswer:")
_PAIR_ROLES = _folded_words("question answer frage antwort domanda risposta pergunta resposta вопрос ответ")
_TURN = re.compile(_LINE + r"(?:\*\*|__)?(?P<role>" + _STRONG_ROLES + "|" + _WEAK_ROLES + "|" + _PAIR_ROLES
                   + r")(?:\*\*|__)?(?:\s*\([^()\n]{0,40}\))?\s?[:：](?:\*\*|__)?(?P<rest>[^\n]*)")
_INLINE_STRONG_TURN = re.compile(r"(?:[.!?]\s+)(?:\*\*)?(?:human|assistant)(?:\*\*)?:\s")

_HARNESS_TAGS = (
    "system", "system_reminder", "system_message", "system_prompt", "systemprompt", "system_instructions",
    "system_notification", "sys", "instructions", "instruction", "assistant", "human", "important",
    "user_query", "user_instructions", "custom_instructions", "user_info", "user_prompt_submit_hook",
    "environment_details", "environment_context", "tool_call", "tool_calls", "tool_result", "tool_results",
    "tool_response", "tool_use", "function_call", "function_calls", "function_results", "functions", "invoke",
    "think", "thinking", "reasoning", "command_name", "command_message", "command_args", "local_command_stdout",
    "local_command_stderr", "im_start", "im_end", "start_of_turn", "end_of_turn", "bos", "eos", "admin",
    "developer_message", "assistant_response",
)
_TAG = re.compile(r"<\s*/?\s*(?:antml:)?([a-z][a-z0-9_\-]{1,40})(?:\s[^<>\n]{0,200})?/?\s*>")

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern)) for kind, pattern in (
    ("section_marker", r"[\[【〔〖「『]\s*/?\s*(?:user[\s_\-]?memor(?:y|ies)|references?|system(?:[\s_\-]?(?:prompt|note"
                       r"|message|notice|instructions?|override|context))?|instructions?|assistant|end[\s_\-]of[\s_\-]"
                       r"(?:context|memory|reference)|系统|系統|システム)\s*[\]】〕〗」』]"
                       r"|(?:^|\n)\s*user_memor(?:y|ies)\s*:"
                       # memctl's consolidation blocks "[memory 9] (stated …)"
                       r"|\[\s*memor(?:y|ies)\s+\d+\s*\]"
                       # a bracketed role word used as a label: "[Question]: …", "[Context]:"
                       r"|(?:^|\n)\s*\[\s*(?:question|answer|query|user|assistant|system|instructions?|context|memory"
                       r"|prompt|input|output|response|note)\s*\]\s*:"),
    # "[n] Title (session <id>, <date>)"; OpenCode session ids ("ses_…") count without the word
    ("citation_line", _LINE + r"\[\d{1,4}\][^\n]{0,200}?\(\s*(?:session[\s:]+[^\s,()]+|ses_[a-z0-9_]+)\s*,"
                      r"\s*[^()\n]{1,40}\)"
                      # variations: "(sess ses_q1, 2026-…)", "— session ses_abc — 2026-11-30"
                      + "|" + _LINE + r"\[\d{1,4}\][^\n]{0,200}?(?<![a-z0-9])(?:sess(?:ion)?|ses_[a-z0-9_]+)(?![a-z])"
                      r"[^\n]{0,80}?(?:\d{4}-\d{2}-\d{2}|undated)"),
    ("memory_entry", _LINE + r"\(\s*(?:user|memory|staging|audit|versions)\s*/[^()\n]*\)"
                     r"|(?:^|\n)\s*(?:`{3,}|~{3,})\s*(?:memory|memctl)?\s*(?:user|memory)/\S+"),
    ("chat_template", r"<\|[^|<>\n]{1,40}\|>|\[/?inst\]|<</?sys>>|\[/?(?:system_prompt|available_tools|tool_calls"
                      r"|tool_results|tool_content)\]|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>"),
    ("role_heading", r"(?:^|\n)\s*#{1,6}\s*(?:system(?: prompt| message)?|instructions?|assistant|human|user|ai|bot"
                     r"|developer|tool)\s*(?::|(?=\n|$))|(?:^|\n)\s*#{1,6}\s*(?:response|input|output)\s*:"),
    ("role_json", r"[\"'](?:role|from|speaker|author|sender|persona)[\"']\s*:\s*[\"'](?:system|assistant|user|developer"
                  r"|tool|function|model|gpt|human|bot|ai|chatgpt|claude)[\"']"
                  r"|(?:^|\n)\s*-?\s*role\s*:\s*[\"']?(?:system|assistant|developer)[\"']?\s*(?=\n|$)"),
    ("system_label", r"(?:^|\n|[.!?]\s)[\s>*_\-\[(]*(?:system|anthropic|openai|memctl|opencode)\s*(?:note|message"
                     r"|notice|override|instructions?|alert|reminder|directive|prompt)s?\s*[\]:)]"
                     # "Notice from memctl:", "Message from the system:"
                     r"|(?:^|\n|[.!?]\s)[\s>*_\-\[(]*(?:note|message|notice|alert|reminder|directive|update|instructions?)"
                     r"\s+(?:from|by)\s+(?:the\s+)?(?:system|anthropic|openai|memctl|opencode|admin|administrator"
                     r"|operator|developer|maintainers?)\s*[\]:)]"),
))


def _word_count(text: str) -> int:
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff]", text))
    return len(re.findall(r"[a-z0-9']+", text)) + (3 if cjk >= 4 else 0)


def _role_turn(folded: str) -> str | None:
    turns = list(_TURN.finditer(folded))
    for turn in turns:
        role, rest = turn.group("role"), turn.group("rest")
        if re.fullmatch(_PAIR_ROLES, role):
            if len(turns) > 1:
                return f"a {role!r} turn line"
            continue
        if re.fullmatch(_STRONG_ROLES, role) or len(turns) > 1 or _word_count(rest) >= 3:
            return f"a {role!r} turn line"
    match = _INLINE_STRONG_TURN.search(folded)
    return f"an inline turn ({match.group(0).strip()})" if match else None


# A tag is a harness tag when one of its name's words names a role, a tool, the system, a policy,
# a document or the context (``<bash-stdout>``, ``<tool_output>``, ``<search_result>``, ``<policy>``).
_HARNESS_WORDS = frozenset({
    "system", "assistant", "human", "developer", "admin", "operator", "model", "agent", "tool", "tools",
    "function", "command", "bash", "shell", "stdout", "stderr", "output", "result", "results", "response",
    "document", "documents", "source", "sources", "policy", "policies", "context", "instruction", "instructions",
    "prompt", "memory", "memories", "reference", "references", "search", "override", "rules", "guidelines",
})


def _harness_tag(folded: str) -> str | None:
    for match in _TAG.finditer(folded):
        name = match.group(1).replace("-", "_")
        if name in _HARNESS_TAGS or _HARNESS_WORDS.intersection(name.split("_")):
            return f"the <{match.group(1)}> tag"
    return None


def find_forged_structure(folded: str) -> tuple[str, str] | None:
    """Return ``("forged_context:<kind>", evidence)`` for the first forged structure in ``folded``, or None.

    Args:
        folded: :func:`memctl.validator.fold.fold_for_matching` output.
    """
    for kind, pattern in _PATTERNS:
        match = pattern.search(folded)
        if match:
            return f"forged_context:{kind}", match.group(0).strip()[:60]
    for kind, rule in (("role_turn", _role_turn), ("harness_tag", _harness_tag)):
        evidence = rule(folded)
        if evidence:
            return f"forged_context:{kind}", evidence
    return None


# memctl's section headers are upper snake case in brackets on their own line; any such header
# (``[PROMOTED_MEMORY]``, ``[TRUSTED_CONTEXT]``) poses as one. Lower-case ``[feature_flags]`` (TOML) passes.
_UPPER_SNAKE_HEADER = re.compile(r"(?:^|\n|\\n)[ \t>*]*\[\s*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\s*\][ \t]*(?=\n|\\n|$)")


def find_cased_structure(cased: str) -> tuple[str, str] | None:
    """The case-dependent shapes, over :func:`memctl.validator.fold.skeleton` output.

    Returns ``("forged_context:section_marker", evidence)`` for a bracketed upper-snake-case header
    alone on its line, else None.
    """
    match = _UPPER_SNAKE_HEADER.search(cased)
    return ("forged_context:section_marker", match.group(0).strip()[:60]) if match else None
