"""Bare secrets in chat prose of many languages (memctl.scrub.prose_backstop): a secret-shaped value next to
the language's word for key, token, secret, password or code is masked; hashes, commits, UUIDs under id
words, versions, public keys and paths in the same languages stay.

Every value here is a fake made for this file (random bytes, no real account)."""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub
from memctl.scrub.prose_backstop import secret_shaped
from memctl.scrub.prose_cues import CUES, NEAR_MISS_WORDS, WEAK_CUES, all_cues

HEX32 = "9209dcb468e07e032fd0db161b56bb9a"
HEX32B = "2f5fe555a6323d188a3b99e68433f7a4"
HEX32C = "3c5e11dc057071e2b0cf6128e6e96235"
HEX40 = "783d50ead5d279dd919304ad752a37fe80ac04c6"
HEX64 = "e38e01837f1d286b425cb9251350449f9113a04b2566da7db79e4bc91fcb656a"
HEX128 = ("dd11adf5db7a19e5cbf0d5e6d2e0cc811dcb8542e32df493066b989df9a074243983221f188d062456f1480c1d10440b"
          "d0f2ea9156934543d65628343db26ca3")
AZURE88 = "Q0INtuI8az/6Tc4lWwqiXkEYhKFkKJniWznWbAaeoXUJepM3z2XWKP6uBY+VotmMM+wPy+Q3Sj8UcddVNo3QCQ=="
FERNET = "MLNSkPkRuZdQWCP5ahyp_U9uohj5cqLGiVtbIangd7w="
WG = "8YA93dIfEyeOGP8RR2DMjxw7a18okQ2jupwKCLsoVsI="
WG2 = "Qd8gCfx2W3L99B/RBo6lDX1/vCnfPH7t/KfW42df+kM="
ALNUM24 = "wVnDTXRvtfZB6EYYgzIQyyPU"
ALNUM32 = "blK4P8ebc27XvSjg2UQXPO29v8zO87Sj"
ALNUM20 = "AtiHrHI8MOZNKNO8GzRV"
ALNUM40 = "lMrzUvUj0a5vYtJf4FEwT7dXAQW2frlhbNNo5xB5"
ALNUM18 = "41pMf0OHSqq87mnRlI"
TOTP = "J7U2VXO3DYUHEDIH"
TOTP32 = "LH3SIWKGXVS5NZSCKC5ZCI6AX4OJMCRM"
URLSAFE = "vTMGHL5X4U5OcWv9_rt4fEV1VZb1y2Lj"
ETH = "0x088ff5dd636c0d3858767096d25d66162005b10daf27814031632742e8ff1150"
UUID = "9ff9fe87-d2a3-4f45-8174-ca4f5218a18a"
RAZOR = "79HJ2Q71G270lFxfnYs17S0u"
DJANGO = "^*%+ts)o0p&cdeuz^!y-0o@f6kom1-h8f2!*d4reyg7ocvl8=y"

# (language, text, the secret that must be gone)
SECRETS: list[tuple[str, str, str]] = [
    # Hebrew
    ("he", f"הטוקן של Datadog הוא {HEX40}", HEX40),
    ("he", "הסיסמה: Sommer2024!", "Sommer2024!"),
    ("he", f"{ALNUM32} זה המפתח של השרת", ALNUM32),
    ("he", f"שלחתי לך את המפתח ({FERNET}) בצ'אט", FERNET),
    # Indonesian
    ("id", f"Kunci API-nya adalah {HEX32}, jangan dibagikan", HEX32),
    ("id", f"Token Twilio kamu: {HEX32B}", HEX32B),
    ("id", "kata sandinya tr0ub4dor&3 ya", "tr0ub4dor&3"),
    ("id", f"- rahasia JWT: {ALNUM40}", ALNUM40),
    # Arabic
    ("ar", f"مفتاح التخزين هو {AZURE88}", AZURE88),
    ("ar", "كلمة المرور الجديدة: Qahwa#2025x", "Qahwa#2025x"),
    ("ar", f"الرمز السري «{TOTP}»", TOTP),
    # Greek
    ("el", f"Το κλειδί είναι: {ALNUM24}", ALNUM24),
    ("el", "Ο κωδικός του Wi-Fi είναι Kalimera!88", "Kalimera!88"),
    ("el", f"μυστικό Fernet = {FERNET}", FERNET),
    # Hindi
    ("hi", f"कुंजी है {ALNUM24}", ALNUM24),
    ("hi", f"Datadog की API कुंजी {HEX32C} है", HEX32C),
    ("hi", f"टोकन: {URLSAFE}", URLSAFE),
    # Italian
    ("it", f"La chiave segreta è {ALNUM32}", ALNUM32),
    ("it", f"(chiave: {WG})", WG),
    ("it", f"Il segreto di Rails è {HEX128}", HEX128),
    # Swedish
    ("sv", "Nyckeln: Sommer2024!", "Sommer2024!"),
    ("sv", f"Här är nyckeln till Razorpay — {RAZOR}", RAZOR),
    ("sv", f"lösenfrasen är \"{ALNUM20}\"", ALNUM20),
    # Thai
    ("th", f"รหัสคือ {TOTP}", TOTP),
    ("th", f"คีย์ของ Datadog: {HEX32}", HEX32),
    ("th", f"โทเค็น {ALNUM40} ใช้ได้ถึงพรุ่งนี้", ALNUM40),
    # Vietnamese
    ("vi", f"Mã khóa bí mật: {AZURE88}", AZURE88),
    ("vi", f"khóa riêng ví là {ETH}", ETH),
    ("vi", "Mật khẩu là Matkhau@2024", "Matkhau@2024"),
    # Ukrainian
    ("uk", f"Ключ доступу: {ETH}", ETH),
    ("uk", f"Токен бота {ALNUM32}, не світи його", ALNUM32),
    ("uk", "пароль — Kyiv_2024!", "Kyiv_2024!"),
    # Finnish
    ("fi", "Avain on tr0ub4dor&3", "tr0ub4dor&3"),
    ("fi", f"API-avaimen arvo: {HEX32B}", HEX32B),
    ("fi", f"salaisuus:\n{WG2}", WG2),
    # Turkish
    ("tr", f"Anahtar: {FERNET}", FERNET),
    ("tr", f"Twilio anahtarı {HEX32C} olarak ayarlandı", HEX32C),
    ("tr", "şifre: Kahve!2024", "Kahve!2024"),
    # Portuguese
    ("pt", f"A chave é {ALNUM24}", ALNUM24),
    ("pt", f"segredo do JWT = {ALNUM40}", ALNUM40),
    ("pt", f"* chave de armazenamento: {AZURE88}", AZURE88),
    # Polish
    ("pl", f"Klucz API to {URLSAFE}", URLSAFE),
    ("pl", "hasło do bazy: Zima2023#", "Zima2023#"),
    ("pl", f"sekret TOTP: {TOTP32}", TOTP32),
    # Dutch
    ("nl", f"De sleutel is {HEX32}", HEX32),
    ("nl", "wachtwoord van de router: Fiets!4321", "Fiets!4321"),
    ("nl", f"{WG} is de sleutel van de peer", WG),
    # German
    ("de", f"der Postmark-Token ist {UUID}", UUID),
    ("de", f"Der Schlüssel für Datadog lautet {HEX40}", HEX40),
    ("de", f"Geheimnis (Django): {DJANGO}", DJANGO),
    # French
    ("fr", f"la clé Kakao : {HEX32B}", HEX32B),
    ("fr", f"Le jeton d'accès est « {ALNUM32} »", ALNUM32),
    ("fr", f"la clé ?\nla voici : {ALNUM24}", ALNUM24),
    # Spanish
    ("es", f"La clave de Razorpay es {RAZOR}", RAZOR),
    ("es", "contraseña: Verano2024!", "Verano2024!"),
    ("es", f"llave privada: {ETH}", ETH),
    # Russian
    ("ru", f"Секрет для JWT: {ALNUM40}", ALNUM40),
    ("ru", f"ключ API — {HEX32C}", HEX32C),
    # Japanese, Chinese, Korean
    ("ja", f"APIキーは{ALNUM32}です", ALNUM32),
    ("ja", f"トークン：{URLSAFE}", URLSAFE),
    ("zh", f"密钥是 {HEX64}", HEX64),
    ("zh", f"令牌：{ALNUM24}", ALNUM24),
    ("ko", f"토큰은 {ALNUM40} 입니다", ALNUM40),
    ("ko", "비밀번호: Seoul#2024", "Seoul#2024"),
    # Czech, Hungarian, Romanian, Danish, Norwegian, Persian, Swahili, Malay
    ("cs", f"Klíč k API je {HEX32}", HEX32),
    ("hu", f"A kulcs: {ALNUM24}", ALNUM24),
    ("ro", f"cheia de acces este {URLSAFE}", URLSAFE),
    ("da", f"nøglen er {FERNET}", FERNET),
    ("nb", f"nøkkelen: {WG2}", WG2),
    ("fa", f"کلید API: {HEX32B}", HEX32B),
    ("sw", f"ufunguo wa API ni {ALNUM32}", ALNUM32),
    ("ms", f"kunci rahsia: {ALNUM18}", ALNUM18),
    # more positions: the next line after a question or a colon, the value first, lists, inflected words
    ("ru", f"Ключа нет? Вот он:\n{ALNUM24}", ALNUM24),
    ("it", f"Il token Datadog?\n{HEX32}", HEX32),
    ("hi", f"API कुंजी:\n{HEX32B}", HEX32B),
    ("ar", f"1) المفتاح: {ALNUM24}", ALNUM24),
    ("ar", f"{ALNUM24} هو المفتاح", ALNUM24),
    ("de", "Sommer2024! ist das Passwort", "Sommer2024!"),
    ("nl", f"De API-sleutels: {ALNUM32} en {ALNUM20}", ALNUM20),
    ("th", f"ความลับของ JWT คือ {ALNUM40}", ALNUM40),
    ("he", "סיסמת ה-DB היא Tel#Aviv2024", "Tel#Aviv2024"),
    ("pl", "Kluczem jest Zima2023#Las", "Zima2023#Las"),
    ("fi", "Tunnuslause on Helsinki#2024", "Helsinki#2024"),
    ("id", f"kode akses: {ALNUM20}", ALNUM20),
    ("ja", f"KakaoのAPIキーはこちら：{HEX40} 。本番では使わないで", HEX40),
    ("it", f"ecco il segreto di Django: django-insecure-{DJANGO} (scade domani)", DJANGO),
    ("es", f"el token de Django para producción: django-insecure-{DJANGO}", "django-insecure-" + DJANGO[:20]),
]

# (language, text) that must come back unchanged
NEAR_MISSES: list[tuple[str, str]] = [
    ("he", f"הקומיט {HEX40} תיקן את הבאג"),
    ("he", f"ה-hash של הקובץ הוא {HEX64}"),
    ("th", f"เช็คซัม sha256 ของไฟล์คือ {HEX64}"),
    ("th", "รหัสอยู่ในไฟล์ src/auth/login_handler.py"),
    ("ar", f"معرف الطلب {UUID}"),
    ("ar", "المفتاح العام: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk7nVcm2Lq0pBf8XyRrT4oUe6sWdJgAiK3zQaP9vMwN user@host"),
    ("id", f"commit terakhir {HEX40} sudah di-merge, kuncinya aman"),
    ("id", "versi kunci 2.14.3-beta sudah rilis"),
    ("el", f"το hash του κλειδιού είναι {HEX64}"),
    ("hi", f"कमिट {HEX40} में कुंजी बदली गई"),
    ("it", "la chiave si trova in /etc/app/keys/server_config.yaml"),
    ("it", "il codice è nel modulo getUserAuthenticationToken"),
    ("sv", f"nyckelns fingeravtryck (fingerprint): {HEX40}"),
    ("vi", f"mã băm của khóa: {HEX64}"),
    ("uk", f"ключ трасування (trace id): {UUID}"),
    ("fi", "avain löytyy osoitteesta https://example.com/docs/api-keys"),
    ("tr", f"anahtar sürümü version 3.2.1, commit {HEX40}"),
    ("pt", "a chave base64 é SGVsbG8gd29ybGQsIHRoaXMgaXMgdGV4dA== (só um texto)"),
    ("pl", f"klucz publiczny: {WG}"),
    ("nl", "de sleutel staat in <your-api-key> en ${API_KEY}"),
    ("de", f"Prüfsumme des Schlüssels: {HEX64}"),
    ("fr", f"l'empreinte de la clé publique : {HEX40}"),
    ("es", "la clave está en config/settings/production_secrets.yaml"),
    ("ru", f"ключ кэша: sha256:{HEX64}"),
    ("ja", f"コミット {HEX40} でキーを更新しました"),
    ("zh", f"密钥的校验和是 {HEX64}"),
    ("ko", f"요청 아이디 {UUID}"),
    ("en", f"the commit {HEX40} rotated the key"),
    ("en", "the code is in src/memctl/scrub/prose_backstop.py"),
    ("it", f"il codice {HEX32} del commit"),
    ("id", f"ID permintaan untuk token itu: {UUID}"),
    ("el", "Η έκδοση του κλειδιού είναι v2.14.3-rc1"),
    ("pl", "klucz jest w pliku /home/deploy/.config/app/credentials.json"),
    ("tr", "anahtar belgeleri: https://docs.example.com/api/keys/rotate?lang=tr"),
    ("vi", "khóa API: <YOUR_API_KEY>"),
    ("ja", f"公開鍵のフィンガープリント: {HEX40}"),
    ("ko", f"키를 바꾼 커밋은 {HEX40} 입니다"),
    ("zh", f"令牌请求 ID：{UUID}"),
    ("de", f"Der Schlüssel-Hash (sha256) ist {HEX64}"),
    ("he", f"integrity של הטוקן: sha512-{HEX64}"),
    ("hi", "पासवर्ड नीति संस्करण 3.2.1 है"),
    ("th", "รหัสผ่านต้องมีอย่างน้อย 12 ตัวอักษร"),
    ("vi", "mật khẩu: ${DB_PASSWORD}"),
    ("ru", "Токен: {{ vault_token }}"),
    ("nl", f"sleutel-ID: {UUID}"),
    ("nb", "API-nøkkel: xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("pt", "token de release my-project-release-2024-11-02-final"),
    ("en", f"This is what I have:\nacme{ALNUM18},key-xxxxxxxxxxxxxxxxxxxxxxxx"),  # a value first needs words before the cue
    ("sv", f"{ALNUM20}:\" \"\"nyckel_xxxxxxxxxxxxxxxx"),
]


@pytest.mark.parametrize(("language", "text", "value"), SECRETS, ids=[f"{c[0]}-{i}" for i, c in enumerate(SECRETS)])
def test_bare_secret_in_prose_is_masked(language: str, text: str, value: str) -> None:
    scrubbed = scrub(text).text
    assert value not in scrubbed, scrubbed
    assert "[REDACTED:" in scrubbed


@pytest.mark.parametrize(("language", "text"), NEAR_MISSES, ids=[f"{c[0]}-{i}" for i, c in enumerate(NEAR_MISSES)])
def test_near_miss_in_prose_stays(language: str, text: str) -> None:
    assert scrub(text).text == text


def test_only_the_value_is_replaced() -> None:
    scrubbed = scrub(f"Kunci API-nya adalah {HEX32}, jangan dibagikan").text
    assert scrubbed == "Kunci API-nya adalah [REDACTED:secret], jangan dibagikan"


def test_many_languages_have_cues_and_lexicon_is_lower_case() -> None:
    assert len(CUES) >= 30
    for words in CUES.values():
        assert all(word == word.lower() and word.strip() == word for word in words)
    cues = all_cues()
    assert len(cues) == len(set(cues)) and all(len(a) >= len(b) for a, b in zip(cues, cues[1:]))
    assert all(word == word.lower() for word in (*WEAK_CUES, *NEAR_MISS_WORDS))


def test_weak_cue_takes_no_hex_or_password() -> None:
    assert secret_shaped(HEX32, strong_cue=True)
    assert not secret_shaped(HEX32, strong_cue=False)
    assert secret_shaped("Sommer2024!", strong_cue=True, password=True)
    assert not secret_shaped("Sommer2024!", strong_cue=True)
    assert secret_shaped(ALNUM24, strong_cue=False)


@pytest.mark.parametrize("value", ["2.14.3-beta", "2024-12-07", "/etc/app/keys/a.yaml", "getUserAuthenticationToken",
                                   "user@example.com", "https://example.com/a", "SGVsbG8gd29ybGQsIHRoaXMgaXMgdGV4dA==",
                                   "sha256:" + HEX64, "config.production.yaml"])
def test_not_secret_shaped(value: str) -> None:
    assert not secret_shaped(value, strong_cue=True, password=True)


def test_weak_cue_word_in_general_sense_keeps_hex() -> None:
    text = f"el código {HEX32C} del módulo"
    assert scrub(text).text == text
