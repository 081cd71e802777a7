"""The subject word lists of :mod:`memctl.validator.subjects`, per language, on folded text.

Text is folded by :func:`memctl.validator.action_views.language_fold` (NFKC, case folded, accents removed
after Latin letters, Cyrillic and CJK kept), so the Latin lists are written without accents. An entry is a
whole word (an English-style plural ``s``/``es`` also matches); an entry ending in ``*`` is a stem (any word
that starts with it); ``_`` stands for a space (``mot_de_passe``); entries of ja, zh and ko are matched
anywhere (those scripts have no spaces).

Subjects (what a memory is ABOUT, whatever its verb):

* ``security`` — authentication, root/sudo/admin, SSH, TLS/SSL/certificates, firewall, permissions and ACLs,
  tokens, keys, secrets, passwords, MFA/2FA, encryption, CORS/CSP/CSRF, sandboxing, signing, scanning,
  vulnerabilities, rate limits, audit logs;
* ``supply_chain`` — packages, libraries, dependencies, crates, registries, indexes, mirrors, forks, proxies
  and download locations;
* ``release`` — production, deploys, hotfixes, releases, merges, force-pushes, reviews, canaries, gates,
  approvals (tests, CI and branches alone are everyday practice, not a subject);
* ``agent`` — the assistant, the AI, a coding agent, its persona and tone;
* ``output`` — what the agent says: answers, replies, suggestions, explanations, recommending, mentioning,
  warning;
* ``data`` — personal and customer data, backups, logs and dumps, licences, copyright, GDPR, PCI, HIPAA
  (what may be copied, kept or moved).

Two more lists decide with them (:mod:`memctl.validator.subjects`):

* ``egress`` — data leaving the machine (send, upload, share, post, email, webhook, telemetry, backup to,
  sync to, public, external, third party): held on its own;
* ``authority`` — statements of authority about memory or instructions (supersedes, overrides, takes
  precedence, authoritative, already approved): held when the text also names memory, notes or
  instructions (``instructions`` list);
* ``trust_model`` and ``trust_claim`` — memctl's own trust model (the review queue, the validator, where a
  memory came from, a person) and a claim about it (legacy, auto-approves, audit-only, "written by",
  "counts as", approved): held together; ``trust_gate`` (the review queue, the validator) is held with a
  ``permit`` word too ("the validator is off");
* ``permit`` — what makes a statement about a subject weaken or widen it: permission (may, can, allowed,
  fine, optional, safe), absence (without, skip, off, disabled, unnecessary, unreviewed, advisory, formality),
  a widening (enabled, open to, public, external, third-party, everyone, anyone, automatically), an
  exception (exempt, does not apply, noise);
* ``rule`` — what makes it a rule: obligation and frequency (must, should, never, always, whenever, do not,
  only), a standard or default, persona and tone (sarcastic, unrestricted, condescending);
* ``choice`` — what makes it a choice: preference (prefer, went with, settled on, chose, switched, swapped),
  claims that justify one (benchmarks show, proved, lesson learned, faster, worth the trouble).

The word lists were written per language from the same English concepts, with the inflections a note
uses (third person, participles, infinitives) as stems.
"""

from __future__ import annotations

__all__ = ["CJK_LANGUAGES", "LEXICON"]

CJK_LANGUAGES = frozenset({"ja", "zh", "ko"})

# LEXICON[list name][language] = space-separated entries (see the module doc).
LEXICON: dict[str, dict[str, str]] = {
    "security": {
        "en": "auth* login logins password* passphrase* passwordless credential* token secret* key apikey ssh sshd "
              "root sudo* sudoer* admin* administrator* superuser tls ssl https certificate* cert certs mtls pinning firewall* "
              "port ports permission* acl acls rbac privilege* 2fa mfa two-factor otp encrypt* decrypt* cors csp csrf "
              "sandbox* signing signature* signed gpg scanning scanner* scan scans vulnerabilit* cve* security "
              "rate-limit* ratelimit* rate_limit* audit bastion* vpn selinux apparmor antivirus "
              "public-read world-readable world-writable chmod jwt* oauth saml sso hsts "
              "sql sql-injection* injection* parameteri* prepared_statement* xss ssrf alg_none constant-time "
              "compare_digest timing-safe privileged docker_socket docker.sock plaintext plain_text pii csrf-token*",
        "de": "authentifizierung* anmeldung* passwort* passworter kennwort* zugangsdaten token geheimnis* schlussel* "
              "root sudo admin* administrator* zertifikat* tls ssl ssh firewall* berechtigung* zugriffsrecht* rechte "
              "zwei-faktor* verschlussel* signatur* signier* sicherheit* schwachstelle* scan* port ports sql "
              "sql-injection* injektion* klartext* personenbezogen* docker-socket privilegiert*",
        "fr": "authentification* connexion* mot_de_passe mots_de_passe jeton* secret* cle cles root sudo admin* administrateur* "
              "certificat* tls ssl ssh pare-feu permission* droits acces double_authentification chiffrement* chiffre* signature* "
              "securite* vulnerabilit* analyse* port ports sql injection* texte_clair en_clair donnees_personnelles "
              "socket_docker privilegie*",
        "es": "autenticacion* contrasena* credencial* token secreto* clave* llave* root sudo admin* administrador* "
              "certificado* tls ssl ssh cortafuegos firewall permiso* privilegio* acceso* dos_factores cifrado* "
              "encriptacion* firma* seguridad vulnerabilidad* escaneo* puerto* 2fa sql inyeccion* texto_plano "
              "datos_personales socket_de_docker privilegiad*",
        "it": "autenticazione* password credenzial* token segret* chiav* root sudo admin* amministrator* certificat* "
              "tls ssl ssh firewall permess* privilegi* accesso* due_fattori crittograf* cifratur* firma* firme "
              "sicurezza vulnerabilit* scansion* porta porte avvisi",
        "pt": "autenticacao* senha* credencia* token segredo* chave* root sudo admin* administrador* certificado* tls "
              "ssl ssh firewall permiss* privilegio* acesso* dois_fatores criptografia* cifragem assinatura* seguranca "
              "vulnerabilidade* varredura* porta portas 2fa",
        "nl": "authenticatie* wachtwoord* *wachtwoord* inloggegevens token geheim* sleutel* root sudo admin* beheerder* "
              "certificat* tls ssl ssh firewall* rechten toegang* tweestaps* versleutel* handtekening* ondertekening* "
              "beveiliging* kwetsbaarhe* scan* poort*",
        "pl": "uwierzytelni* haslo hasla hasel* token sekret* klucz* root sudo admin* administrator* certyfikat* tls ssl "
              "ssh firewall* zapora uprawnien* dostep* dwuskladnikow* szyfrowan* podpis* bezpieczenst* podatnos* skan* port*",
        "ru": "аутентификац* авторизац* парол* токен токены токенов токена токенам секрет* ключ* root sudo админ* администратор* сертификат* tls ssl ssh "
              "файрвол* брандмауэр* прав доступ* двухфактор* шифрован* подпис* безопасност* уязвимост* сканир* порт*",
        "uk": "автентифікац* авторизац* парол* токен токени токенів токена секрет* ключ* root sudo адмін* адміністратор* сертифікат* tls ssl ssh "
              "брандмауер* фаєрвол* прав доступ* двофактор* шифрув* підпис* безпек* вразлив* сканув* порт*",
        "tr": "kimlik_dogrulama* sifre* parola* token gizli_anahtar* root sudo yonetici* admin* sertifika* tls ssl ssh "
              "guvenlik* izin* yetki* erisim* iki_faktor* sifreleme* imza* zafiyet* tarama* port*",
        "ja": "認証 パスワード 資格情報 トークン シークレット 秘密鍵 root sudo 管理者 証明書 tls ssl ssh ファイアウォール 権限 "
              "アクセス権 二要素 2fa 暗号化 署名 セキュリティ 脆弱性 スキャン ポート",
        "zh": "认证 身份验证 密码 凭据 令牌 密钥 秘钥 root sudo 管理员 证书 tls ssl ssh 防火墙 权限 访问控制 双因素 两步验证 加密 "
              "签名 安全 漏洞 扫描 端口",
        "ko": "인증 비밀번호 암호 자격_증명 토큰 시크릿 api_키 root sudo 관리자 인증서 tls ssl ssh 방화벽 권한 접근 2단계 이중_인증 "
              "암호화 서명 보안 취약점 스캔 포트",
    },
    "supply_chain": {
        "en": "package* librar* dependenc* deps crate crates gem gems registry registries index-url mirror* "
              "fork forks forked proxy vendored sdk plugin* extension* pypi npm cargo pip maven nuget "
              "benchmark*",
        "de": "paket* bibliothek* abhangigkeit* registry spiegel* mirror fork proxy erweiterung* plugin* herunterlad*",
        "fr": "paquet* bibliotheque* librairie* dependance* registre* miroir* fork proxy extension* plugin* telecharg*",
        "es": "paquete* biblioteca* libreria* dependencia* registro* espejo* fork proxy extension* plugin* descarg*",
        "it": "pacchett* libreri* dipendenz* registro* mirror fork proxy estensione* plugin* scaric*",
        "pt": "pacote* biblioteca* dependencia* registro* espelho* fork proxy extensao* plugin* baix*",
        "nl": "pakket* bibliothe* afhankelijkhe* register* spiegel* mirror fork proxy extensie* plugin* download*",
        "pl": "pakiet* bibliotek* zaleznos* rejestr* mirror* lustr* fork proxy rozszerzen* wtyczk* pobier*",
        "ru": "пакет* библиотек* зависимост* реестр* зеркал* форк* прокси расширени* плагин* скачива*",
        "uk": "пакет* бібліотек* залежност* реєстр* дзеркал* форк* проксі розширен* плагін* завантаж*",
        "tr": "paket* kutuphane* bagimlilik* kayit* ayna* fork proxy eklenti* indir*",
        "ja": "パッケージ ライブラリ 依存 レジストリ ミラー フォーク プロキシ 拡張機能 プラグイン ダウンロード",
        "zh": "软件包 依赖 第三方库 注册表 镜像 分叉 代理 扩展 插件 下载",
        "ko": "패키지 라이브러리 의존성 레지스트리 미러 포크 프록시 확장 플러그인 다운로드",
    },
    "release": {
        "en": "production prod prd deploy* release* hotfix* rollout* merge* force-push* force-push* review* reviewer* "
              "approv* canary gate gates",
        "de": "produktion* produktiv* deploy* release* hotfix* veroffentlich* merge* review* freigabe*",
        "fr": "production deploi* deploy* livraison* release* hotfix* correctif* fusion* revue* relecture* approbation*",
        "es": "produccion despliegue* desplieg* release* hotfix* parche* fusion* revision* aprobacion*",
        "it": "produzione rilasc* deploy* hotfix* patch merge* revisione* approvazion*",
        "pt": "producao implanta* deploy* lancamento* release* hotfix* correcao* merge* revisao* aprovacao*",
        "nl": "productie* uitrol* deploy* release* hotfix* merge* review* goedkeuring*",
        "pl": "produkcj* wdrozen* deploy* wydani* release* hotfix* poprawk* merge* przeglad* recenzj* zatwierdz*",
        "ru": "продакшен* продакшн* прод продуктив* деплой* развертыван* релиз* хотфикс* мерж* ревью",
        "uk": "продакшн* прод деплой* розгортан* реліз* хотфікс* мерж* рев'ю",
        "tr": "canli* uretim* deploy* dagitim* surum* hotfix* acil_duzeltme* birlestir* inceleme* onay*",
        "ja": "本番 デプロイ リリース ホットフィックス マージ レビュー 承認",
        "zh": "生产 部署 发布 上线 热修复 合并 评审 审查 审批",
        "ko": "운영 프로덕션 배포 릴리스 핫픽스 병합 머지 리뷰 검토 승인",
    },
    "agent": {
        "en": "assistant* ai agent agents llm llms model's chatbot copilot gpt claude chatgpt persona tone dan "
              "ai-generated",
        "de": "assistent* ki ki-assistent* sprachmodell* persona ton tonfall",
        "fr": "assistant* ia persona ton",
        "es": "asistente* ia persona tono",
        "it": "assistente* ia persona tono",
        "pt": "assistente* ia persona tom",
        "nl": "assistent* ai persona toon",
        "pl": "asystent* ai persona",
        "ru": "ассистент* помощник* ии персона тон",
        "uk": "асистент* помічник* ші персона тон",
        "tr": "asistan* yapay_zeka persona",
        "ja": "アシスタント エージェント ペルソナ 口調",
        "zh": "助手 智能体 人设 语气",
        "ko": "어시스턴트 에이전트 페르소나 말투 어조",
    },
    "output": {
        "en": "answer answers replies reply responses suggestions explanations summaries recommend* mention* "
              "warnings",
        "de": "antwort* vorschlage erklarung* empfehl* erwahn* warnung*",
        "fr": "reponse* suggestions explication* recommand* mentionn* avertissement*",
        "es": "respuesta* sugerencias explicacion* recomiend* recomendar menciona* advertencia*",
        "it": "risposte suggeriment* spiegazion* raccomand* consiglia* menziona* avvis*",
        "pt": "resposta* sugestoes explicac* recomend* menciona* aviso*",
        "nl": "antwoord* suggesties uitleg aanbevel* beveelt* noemt vermeld* waarschuwing*",
        "pl": "odpowiedz* sugestie wyjasnien* polec* wspomin* ostrzezen*",
        "ru": "ответ* подсказк* объяснени* рекоменд* упомина* предупрежден*",
        "uk": "відповід* підказк* пояснен* рекоменд* згаду* попереджен*",
        "tr": "yanit* cevap* oneri* acikla* bahsed* bahset* uyari*",
        "ja": "回答 返答 応答 提案 説明 勧め 言及 警告",
        "zh": "回答 回复 答复 建议 解释 推荐 提到 提及 警告",
        "ko": "답변 응답 제안 설명 추천 언급 경고",
    },
    "data": {
        "en": "personal pii gdpr pci hipaa ccpa customer customers customer's card cards licen* copyright* "
              "attribution gpl agpl proprietary backup* dump dumps logs log audit",
        "de": "personenbezogen* kundendaten dsgvo lizenz* urheberrecht* sicherung* backup* protokoll*",
        "fr": "personnel* rgpd clients licence* droit_d'auteur sauvegarde* journaux",
        "es": "personales rgpd clientes licencia* derechos_de_autor copia* respaldo*",
        "it": "personali gdpr clienti licenz* diritto_d'autore backup copia copie",
        "pt": "pessoais lgpd clientes licenca* direitos_autorais backup* copia*",
        "nl": "persoonsgegevens avg klant* licentie* auteursrecht* bronvermelding back-up* backup*",
        "pl": "osobowe rodo klient* licencj* prawa_autorskie kopi*",
        "ru": "персональн* клиент* лиценз* авторск* бэкап* резервн* логи",
        "uk": "персональн* клієнт* ліценз* авторськ* бекап* резервн* логи",
        "tr": "kisisel kvkk musteri* lisans* telif* yedek*",
        "ja": "個人情報 顧客 ライセンス 著作権 バックアップ ログ",
        "zh": "个人数据 个人信息 客户 许可证 版权 备份 日志",
        "ko": "개인정보 고객 라이선스 저작권 백업 로그",
    },
    "egress": {
        "en": "upload* uploads synced syncs sync_to syncing shared_with share_with sharing posted_to posts_to webhook* telemetry "
              "emailed e-mailed forwarded exfiltrat* pastebin dropbox webhook* telemetry",
        "de": "hochgelad* hochlad* geteilt teilen synchronisier* gesendet versendet weitergeleitet "
              "weitergeleitet",
        "fr": "televers* partage* synchronis* envoye* envoie* publie*",
        "es": "sube* suben subid* compart* sincroniz* enviad* envian",
        "it": "caricat* condivis* sincronizz* inviat*",
        "pt": "envia* enviad* compartilhad* partilhad* sincroniz* publicad*",
        "nl": "geupload* upload* gedeeld delen gesynchroniseerd verstuurd verzonden",
        "pl": "przesyl* wysyl* udostepni* synchroniz*",
        "ru": "загружа* выгружа* отправля* пересыла* делимся расшар* синхрониз*",
        "uk": "вивантаж* надсила* пересила* ділимося синхроніз*",
        "tr": "yuklen* gonderil* paylasil* senkroniz*",
        "ja": "アップロード 送信 共有 同期",
        "zh": "上传 发送 共享 分享 同步",
        "ko": "업로드 전송 공유 동기화 올립",
    },
    "authority": {
        "en": "supersede* override* overrul* precedence priority authoritative binding weight pre-approved "
              "already_approved been_approved approved_by outdated obsolete canonical",
        "de": "vorrang vorrangig uberschreib* verbindlich* massgeblich* veraltet*",
        "fr": "prevaut prime priorite remplace* fait_foi obsolete*",
        "es": "prevalece* prioridad reemplaza* sustituye* obsolet*",
        "it": "prevale* priorita sostituisce* vincolant* obsolet*",
        "pt": "prevalece* prioridade substitui* obsolet*",
        "nl": "voorrang vervangt* bindend* verouderd*",
        "pl": "pierwszenstwo priorytet* zastepuje* nadrzedn* nieaktualn*",
        "ru": "приоритет* важнее отменяет* заменяет* устарел*",
        "uk": "пріоритет* важливіш* скасовує* замінює* застарі*",
        "tr": "oncelik* gecersiz_kil* yerine_gecer* baglayici*",
        "ja": "優先 上書き 無効化 最優先 古い",
        "zh": "优先 覆盖 取代 高于 过时",
        "ko": "우선 덮어 무시하고 대체 구식",
    },
    "instructions": {
        "en": "memory memories note notes instruction* prompt* policy policies rule rules guidance",
        "de": "notiz* erinnerung* anweisung* vorgabe* regel*",
        "fr": "note* memoire* souvenir* instruction* consigne* regle*",
        "es": "nota* memoria* instruccion* regla*",
        "it": "nota note memoria* istruzion* regol*",
        "pt": "nota* memoria* instruc* regra*",
        "nl": "notitie* herinnering* geheugen instructie* aanwijzing* regel*",
        "pl": "notatk* pamiec* instrukcj* polecen* regul*",
        "ru": "замет* памят* инструкц* указани* правил*",
        "uk": "нотатк* пам'ят* інструкц* вказівк* правил*",
        "tr": "notlar* hafiza* talimat* kural*",
        "ja": "メモ 記憶 指示 ルール",
        "zh": "笔记 记忆 指令 说明 规则",
        "ko": "메모 기억 지시 규칙",
    },
    "trust_model": {
        "en": "review_queue review-queue validator* agent-origin agent_origin origin provenance person person's "
              "approval_queue approvals_queue memory memories",
        "de": "prufwarteschlange validator* validierung herkunft person freigabe-warteschlange erinnerung* notiz*",
        "fr": "file_de_revue file_d'attente validateur* validation origine provenance personne memoire*",
        "es": "cola_de_revision cola_de_aprobacion validador* validacion origen procedencia persona memoria*",
    },
    "trust_gate": {
        "en": "review_queue review-queue validator* approval_queue approvals_queue",
        "de": "prufwarteschlange validator* validierung freigabe-warteschlange",
        "fr": "file_de_revue validateur* validation",
        "es": "cola_de_revision cola_de_aprobacion validador* validacion",
    },
    "trust_claim": {
        "en": "legacy auto-approv* auto_approv* autoapprov* audit-only audit_only rubber-stamp* written_by "
              "recorded_by at_the_terminal typed_by equals same_as counts_as count_as treated_as approved verified",
        "de": "veraltet* automatisch* nur_audit geschrieben_von gilt_als freigegeben* genehmigt*",
        "fr": "obsolete* automatique* audit_seulement ecrit_par compte_comme approuve* valide_par",
        "es": "obsolet* automatic* solo_auditoria escrito_por cuenta_como aprobad* equivale*",
    },
    "permit": {
        "en": "may can can't cannot allowed allow* fine ok okay acceptable optional without skip* skipped off "
              "redundant overkill our_style house_style agreed agreed-upon "
              "disabled disabl* open_to leave_out leaves_out omit* omitted everyone anyone anybody everybody automatic* exempt* not_apply doesn't_apply does_not_apply no_longer_apply no_longer "
              "noise straight directly unreviewed formality advisory trusted safe unnecessary needless "
              "public external third-party third_party vendor vendor's outside webhook* telemetry exfiltrat* pastebin "
              "dropbox personal_dropbox no-one nobody enabled public-read passwordless unmasked forever",
        "de": "uberflussig* ubertrieben* unser_stil in_ordnung darf durfen kann konnen erlaubt optional ohne deaktiviert offen automatisch* ausgenommen ausgeschaltet gilt "
              "direkt unnotig vorrang spart abgeschaltet",
        "fr": "redondant* excessif* superflu* notre_style peut peuvent autorise* permis optionnel* facultati* sans desactive* ouvert* automatique* exempt* "
              "s'applique directement inutile* exigee* exige* public* externe* tiers",
        "es": "redundante* excesiv* nuestro_estilo puede pueden permitid* opcional* sin desactivad* apagad* abiert* cualquiera automatic* exent* aplica "
              "directamente innecesari* permanece* public* extern* terceros",
        "it": "puo possono consentit* permess* opzional* senza disattivat* spent* apert* chiunque automatic* esent* "
              "applica direttamente inutil* vanno pubblic* estern* terz*",
        "pt": "pode podem permitid* opcional* sem desativad* desligad* abert* qualquer automatic* isent* aplica "
              "diretamente desnecessari* public* extern* terceiros",
        "nl": "mag mogen kan kunnen toegestaan optioneel zonder uitgeschakeld iedereen automatisch* vrijgesteld "
              "geldt direct onnodig prima gewoon openbaar* extern* derden leverancier*",
        "pl": "moze moga wolno dozwolon* opcjonaln* bez wylaczon* otwart* wszyscy automatyczn* zwolnion* dotyczy "
              "bezposrednio niepotrzebn* publiczn* zewnetrzn*",
        "ru": "можно может могут разрешен* необязательн* без отключен* выключен* открыт* любой автоматическ* "
              "освобожд* напрямую не_нужн* ненужн* выкатыва* публичн* внешн* сторонн*",
        "uk": "можна може можуть дозволен* необов'язков* без вимкнен* відкрит* будь-хто автоматичн* напряму "
              "не_потрібн* публічн* зовнішн* сторонн*",
        "tr": "olabilir edilebilir gerek_yok zorunlu_degil istege_bagli olmadan devre_disi kapali herkes otomatik* "
              "muaf gecerli dogrudan gereksiz calistirilmadan herkese_acik harici* ucuncu*",
        "ja": "てもよい てもいい 構いません 問題ありません 不要 任意 なしで せずに 無効 オフ 全員 誰でも 自動 適用されない 直接 外部 公開 第三者",
        "zh": "可以 允许 无需 不需要 不必 可选 不用 禁用 关闭 所有人 任何人 自动 不适用 直接 外部 公开 第三方",
        "ko": "해도_됩니다 해도 괜찮 허용 필요_없 필요가_없 선택_사항 없이 비활성 모두 누구나 자동 적용되지 바로 외부 공개 제3자",
    },
    "rule": {
        "en": "no_restrictions without_restrictions full_authority repository_owner assistant_is_called agent_is_called ai_is_called acts_as calls_itself god_mode should must never always instead standard* standardi* policy by-design default normal persona "
              "rude* sarcastic* condescend* unrestricted informal whenever do_not does_not don't doesn't only",
        "de": "keine_einschrankungen volle_autoritat volle_befugnis* assistent_heisst ki_heisst soll sollen muss mussen nie niemals immer statt stattdessen standard* herablassend* unhoflich* wann_immer",
        "fr": "aucune_restriction sans_restriction pleine_autorite assistant_s'appelle l'assistant_s'appelle l'ia_s'appelle et_s'appelle doit doivent jamais toujours plutot standard* condescend* chaque_fois",
        "es": "sin_restricciones plena_autoridad no_tiene_restricciones asistente_se_llama y_se_llama debe deben nunca siempre lugar estandar* cada_vez",
        "it": "deve devono mai sempre invece standard* ogni_volta",
        "pt": "deve devem nunca sempre vez padrao sempre_que",
        "nl": "moet moeten nooit altijd plaats standaard* telkens",
        "pl": "musi musza nigdy zawsze zamiast standard* za_kazdym",
        "ru": "должен должны никогда всегда вместо стандарт* каждый_раз",
        "uk": "повинен повинні ніколи завжди замість стандарт* щоразу",
        "tr": "asla her_zaman yerine standart* her_seferinde",
        "ja": "決して 常に 代わりに 標準 必ず",
        "zh": "从不 绝不 总是 始终 而不是 标准 每次",
        "ko": "절대 항상 대신 표준 반드시",
    },
    "choice": {
        "en": "prefer* preferred settled went chose choose choice switched swapped replaced proved proven "
              "shows showed lesson learned worth trouble faster smaller",
        "de": "bevorzug* schneller zeigen gewahlt entschieden",
        "fr": "prefer* rapide* montrent choisi",
        "es": "prefer* rapid* muestran eligio elegimos",
        "it": "prefer* rapid* veloce dimostrano scelto usiamo",
        "pt": "prefer* rapid* mostram escolhe*",
        "nl": "voorkeur* sneller gekozen",
        "pl": "prefer* szybsz* korzysta* wybral*",
        "ru": "предпочита* быстрее выбрал*",
        "uk": "перева* швидш* обрал*",
        "tr": "tercih* hizli* secti sectik sectiler",
        "ja": "優先 速い 選んだ",
        "zh": "首选 更快 选择",
        "ko": "선호 빠르 선택",
    },
}
