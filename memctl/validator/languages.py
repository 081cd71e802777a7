"""Multilingual and language-independent poisoning and injection rules for the sleep validator.

:mod:`memctl.validator.poisoning` and :mod:`memctl.validator.injection` read English,
German, French, Spanish and Chinese grammar. This module adds two kinds of rule over folded text
(:func:`memctl.validator.fold.fold_for_matching`):

* **Language-independent**: a credential file (``~/.ssh``, ``id_rsa``, ``.env``, ``~/.aws/credentials``,
  kubeconfig, … — the poisoning module's list) in the same sentence as an outside destination (a mail
  address, a URL, a paste site, a public repository or issue) is ``credential_transfer`` whatever the
  language of the verb; normal use (``ssh -i ~/.ssh/id_ed25519 deploy@host``) is not.
* **Lexicon rules**: a sentence holding one stem from every group of a rule, in any order (Italian,
  Portuguese, Russian, Dutch, Turkish, Polish, Japanese and Korean put verb and object in
  different places). Stems are written in their natural spelling and folded here, so a Cyrillic
  stem reads the way the folded text spells it.

:func:`find_multilingual` returns ``(reason, evidence)`` — ``memory_poisoning:<category>`` or
``prompt_injection:instruction_override`` — or None. Sources: the stems are the common
translations of the English rules' verbs and objects (skip/tests, delete/all/branches,
approve/all/commands, disable/scrubbing, ignore/previous/instructions); every rule has hostile
instances and near-misses in tests/support/proposal_corpus.py (split ``redteam``).
"""

from __future__ import annotations

import re

from memctl.validator.fold import fold_for_matching
from memctl.validator.poisoning_credentials import _AUTH_USE, _CRED_FILE

__all__ = ["find_multilingual"]

Finding = tuple[str, str]

_SENTENCE_END = re.compile(r"[.!?;\n。！？；]+(?:\s|$)|[。！？；\n]")

# Outside destinations: a mail address, a URL, a paste site, a public repository/issue in any language.
_DESTINATION = re.compile(
    r"(?<![\w.@-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:invalid|example|com|org|net|io|dev|co|ru|it|pt|br|nl"
    r"|tr|pl|jp|kr|de|fr|es|cn)(?![\w.])|https?://(?!localhost|127\.)|ftp://|paste\w*|hastebin|gist|pastebin"
    r"|" + "|".join(re.escape(fold_for_matching(w)) for w in (
        "公開リポジトリ", "公開", "repositório público", "repositorio pubblico", "issue pública", "issue pubblica",
        "публичн", "openbare", "herkese açık", "publiczn", "공개")))


# Credential nouns of the languages above (English ones are the poisoning module's, with its grammar).



_LOGIN_TOOL = re.compile(r"(?<![\w-])(?:ssh|scp|sftp|rsync)\s")


def _cred_transfer(sentence: str) -> str | None:
    if not _DESTINATION.search(sentence):  # the cheaper test first: most sentences name no destination
        return None
    obj = _CRED_FILE.search(sentence) or _CRED_NOUN_ML.search(sentence)
    if not obj:
        return None
    if _AUTH_USE.search(sentence[:obj.start()][-40:]) or _LOGIN_TOOL.search(sentence):
        return None  # using the key to log in, not sending it
    return f"{obj.group(0)} with an outside destination"


def _stems(words: str) -> str:
    """Alternation of folded stems; Latin/Cyrillic stems start at a word start, CJK/Hangul anywhere."""
    alternatives = []
    for word in words.split("|"):
        folded = re.escape(fold_for_matching(word.strip()))
        alternatives.append(folded if re.match(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", word.strip())
                            else r"(?<!\w)" + folded)
    return "(?:" + "|".join(sorted(alternatives, key=len, reverse=True)) + ")"


# Credential nouns of the languages above (English ones are the poisoning module's, with its grammar).
_CRED_NOUN_ML = re.compile(_stems(
    "APIキー|トークン|パスワード|秘密鍵|認証情報|chiavi|credenziali|chave|chaves|senha|senhas|credenciais|токен"
    "|пароль|ssh-ключ|api-ключ|ключи api|sleutel|wachtwoord|anahtar|şifre|klucz|hasło|haslo|API 키|토큰|비밀번호"))
_ALL = _stems("tutti|tutte|todos|todas|все|всех|всё|すべて|全て|全部|alle|tüm|bütün|wszystkie|wszystkich|모든|전부")
_COMMANDS = _stems("comand|команд|コマンド|opdracht|command|komut|polecen|명령")
_TESTS = _stems("test|тест|テスト|테스트")
_SKIP = _stems("salta|saltare|salti|pule|pular|pula|pulem|пропуска|пропусти|пропуст|スキップ|飛ばし|건너뛰|생략"
               "|atla|pomijaj|pomiń|pomin|sla over|overslaan|sla de|ignora i test|ignore os testes")
_DELETE = _stems("apag|exclu|elimin|cancella|удал|削除|verwijder|silin|usuń|usun|삭제")
_BRANCHES = _stems("branch|ramo|rami|ramifica|ветк|ブランチ|브랜치|gałę|gałęz|galez|dalları|dallari")
_APPROVE = _stems("approvat|aprovou|aprovad|autorizou|одобр|разреш|承認|許可|goedgekeurd|onayla|zatwierdz|승인|허용")
_DISABLE = _stems("disattiva|disabilita|desative|desativ|desabilit|отключ|выключ|無効|uitschakel|schakel|devre dışı"
                  "|kapat|wyłącz|wylacz|비활성|끄")
_SCRUB = _stems("scrub|redaç|redac|redaz|очистк|маскир|スクラブ|マスク|墨消し|masker|maskowan|sansür|마스킹|スクラビング")
_IGNORE = _stems("ignora|ignore|dimentica|esqueç|esquec|игнорир|проигнорир|забуд|negeer|vergeet|zignoruj|ignoruj"
                 "|zapomnij|unut|görmezden|無視|忘れ|무시|잊어")
_PREVIOUS = _stems("precedent|anterior|предыдущ|прежн|vorige|eerdere|poprzedni|wcześniejsz|wczesniejsz|önceki"
                   "|以前|前の|これまで|이전|앞의")
_INSTRUCTIONS = _stems("istruzion|instruç|instruc|инструкц|указани|instructie|instrukcj|polecen|talimat|指示|命令"
                       "|ルール|지시|명령")
_AI_NOTE = re.compile(r"(?:^|\n)[^\n:：]{0,40}?" + _stems("assistente|ассистент|アシスタント|어시스턴트|asystent"
                                                           "|asistan|ии|yapay zeka|sztuczn|assistent")
                      + r"[^\n:：]{0,24}[:：]")

_LEXICON_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("prompt_injection:instruction_override", (_IGNORE, _PREVIOUS, _INSTRUCTIONS)),
    ("memory_poisoning:destructive_action", (_DELETE, _ALL, _BRANCHES)),
    ("memory_poisoning:consent_claim", (_APPROVE, _ALL, _COMMANDS)),
    ("memory_poisoning:safety_off", (_DISABLE, _SCRUB)),
    ("memory_poisoning:unreviewed_action", (_SKIP, _TESTS)),
)
_COMPILED = tuple((reason, tuple(re.compile(group) for group in groups)) for reason, groups in _LEXICON_RULES)


def find_multilingual(folded: str) -> Finding | None:
    """Return ``(reason, evidence)`` for the first rule of this module matching ``folded``, or None.

    Args:
        folded: :func:`memctl.validator.fold.fold_for_matching` output.
    """
    note = _AI_NOTE.search(folded)
    if note:
        return "memory_poisoning:ai_addressed", note.group(0).strip()[:48]
    for sentence in _SENTENCE_END.split(folded):
        evidence = _cred_transfer(sentence)
        if evidence:
            return "memory_poisoning:credential_transfer", evidence
        for reason, groups in _COMPILED:
            matches = []
            for group in groups:  # a rule needs every group: stop at the first one missing
                match = group.search(sentence)
                if match is None:
                    break
                matches.append(match)
            else:
                return reason, " ".join(m.group(0) for m in matches)[:48]
    return None
