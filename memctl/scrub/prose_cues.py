"""Data: the credential words of chat prose in 40 languages, and the words that make a value a non-secret.

Used by :mod:`memctl.scrub.prose_backstop`. Every entry is lower case (what ``str.lower()`` gives),
one word or a short phrase as people write it in chat. Source: the translation tables of English
Wiktionary's entries ``password``, ``passphrase``, ``key`` (sense "cryptography: a piece of
information used to encrypt or decrypt"), ``token`` (computing), ``secret``, ``PIN``, ``code``
(password sense) and ``credential`` (https://en.wiktionary.org/wiki/password#Translations and the
same section of the other entries), checked against the Wi-Fi and account-settings strings of
Android and Windows in those locales; the loanwords (``token``, ``API``) are what the same pages
list for languages that borrow them.

:data:`CUES` maps a language tag (BCP 47) to its words. :data:`WEAK_CUES` are words that also mean
"source code" or a number in general (``code``, ``kod``, ``código``, ``код``, ``PIN``): after them only
a random-looking run counts, never hex or a password shape. :data:`NEAR_MISS_WORDS` are words that,
close before a value, say it is a hash, a commit, an id, a version or a public key (the near-miss
corpora: git SHAs next to "commit", checksums next to sha256/md5/checksum/digest/hash/integrity, UUIDs
next to id/request/trace, public keys and fingerprints) in the same languages.
"""

from __future__ import annotations

__all__ = ["CUES", "NEAR_MISS_WORDS", "WEAK_CUES", "all_cues"]

CUES: dict[str, tuple[str, ...]] = {
    "en": ("pin", "password", "passphrase", "passcode", "secret", "token", "api key", "apikey", "key", "credential", "creds"),
    "de": ("passwort", "kennwort", "schlüssel", "geheimnis", "zugangsdaten", "token", "geheim"),
    "fr": ("mot de passe", "clé", "clef", "jeton", "secret", "phrase secrète"),
    "es": ("código", "codigo", "contraseña", "contrasena", "clave", "llave", "secreto", "credencial"),
    "pt": ("código", "senha", "chave", "segredo", "credencial", "palavra-passe", "frase secreta"),
    "it": ("codice", "password", "chiave", "segreto", "credenziali", "parola d'ordine"),
    "nl": ("wachtwoord", "sleutel", "geheim", "wachtzin"),
    "pl": ("kod", "hasło", "haslo", "klucz", "sekret", "token", "poświadczenia"),
    "cs": ("kód", "heslo", "klíč", "klic", "tajemství", "tajný"),
    "sk": ("heslo", "kľúč", "tajomstvo"),
    "sv": ("lösenord", "losenord", "nyckel", "hemlighet", "lösenfras"),
    "nb": ("passord", "nøkkel", "nokkel", "hemmelighet"),
    "da": ("adgangskode", "nøgle", "hemmelighed"),
    "fi": ("salasana", "avain", "avaim", "salaisuus", "tunnuslause"),
    "hu": ("jelszó", "jelszo", "kulcs", "titok"),
    "ro": ("parola", "parolă", "cheie", "cheia", "secret"),
    "tr": ("kodu", "kod", "şifre", "sifre", "parola", "anahtar", "gizli", "belirteç"),
    "el": ("κωδικός", "κωδικό", "κλειδί", "κλειδι", "μυστικό", "συνθηματικό", "διακριτικό"),
    "ru": ("код", "пароль", "ключ", "токен", "секрет", "кодовое слово"),
    "uk": ("код", "пароль", "ключ", "токен", "секрет", "гасло"),
    "bg": ("парола", "ключ", "токен", "тайна"),
    "sr": ("лозинка", "lozinka", "кључ", "ključ", "tajna"),
    "hr": ("lozinka", "zaporka", "ključ", "tajna"),
    "sl": ("geslo", "ključ", "skrivnost"),
    "lt": ("slaptažodis", "slaptazodis", "raktas", "rakto"),
    "lv": ("parole", "atslēga", "atslega"),
    "et": ("parool", "salasõna", "võti", "voti"),
    "ca": ("contrasenya", "clau", "secret"),
    "he": ("קוד", "סיסמה", "סיסמא", "סיסמת", "סיסמאות", "מפתח", "אסימון", "טוקן", "סוד", "קוד גישה"),
    "ar": ("كلمة المرور", "كلمة السر", "مفتاح", "المفتاح", "رمز", "الرمز", "توكن", "سر", "السر"),
    "fa": ("رمز عبور", "گذرواژه", "کلید", "توکن", "رمز"),
    "ur": ("پاس ورڈ", "کلید", "ٹوکن"),
    "hi": ("कोड", "पासवर्ड", "कुंजी", "की", "टोकन", "गुप्त", "कूटशब्द", "पिन"),
    "bn": ("পাসওয়ার্ড", "চাবি", "কী", "টোকেন", "গোপন"),
    "th": ("รหัสผ่าน", "คีย์", "กุญแจ", "โทเค็น", "ความลับ", "รหัส"),
    "vi": ("mật khẩu", "mat khau", "khóa", "khoá", "khoa", "mã bí mật", "bí mật", "mã"),
    "id": ("kode", "kata sandi", "sandi", "kunci", "rahasia", "token", "kredensial"),
    "ms": ("kata laluan", "kunci", "rahsia"),
    "tl": ("password", "susi", "lihim"),
    "sw": ("nenosiri", "neno la siri", "ufunguo", "siri"),
    "ja": ("apiキー", "api キー", "アクセスキー", "シークレットキー", "秘密鍵", "コード", "パスワード", "キー", "鍵", "トークン", "シークレット", "秘密", "暗証"),
    "zh": ("api密钥", "api 密钥", "访问密钥", "密码", "密碼", "密钥", "密鑰", "秘钥", "令牌", "口令", "秘密"),
    "ko": ("api키", "api 키", "액세스 키", "비밀 키", "코드", "비밀번호", "암호", "키", "토큰", "시크릿", "비밀"),
}
"""Language tag -> credential words (lower case)."""

WEAK_CUES = frozenset({
    "code", "kod", "kód", "código", "codice", "код", "コード", "代码", "코드", "קוד", "कोड", "รหัส", "mã", "kode", "kodu",
    "pin", "पिन", "codigo", "siri", "geheim", "رمز", "الرمز", "key", "キー", "키", "की", "কী", "sandi", "khoa", "secret", "geheim",
})
"""Cues too common in other senses for a hex run or a password shape; a random-looking run still counts."""

NEAR_MISS_WORDS = (
    # hashes, checksums, commits, revisions
    "commit", "sha", "md5", "hash", "checksum", "digest", "integrity", "crc", "etag", "revision", "rev ", "build",
    "prüfsumme", "empreinte", "somme de contrôle", "suma de comprobación", "soma de verificação", "impronta",
    "controlesom", "suma kontrolna", "kontrolní součet", "kontrollsumma", "tarkistussumma", "sağlama", "özet",
    "хеш", "хэш", "контрольн", "коміт", "коммит", "хэш-сумм", "哈希", "散列", "校验", "提交", "ハッシュ",
    "コミット", "チェックサム", "해시", "커밋", "체크섬", "גיבוב", "קומיט", "האש", "تجزئة", "هاش", "الهاش",
    "المجموع الاختباري", "کامیت", "हैश", "कमिट", "चेकसम", "แฮช", "คอมมิต", "เช็คซัม", "mã băm", "băm",
    "κατακερματισμ", "αθροισμα ελέγχου", "άθροισμα ελέγχου", "tiiviste",
    # ids, requests, traces, versions
    " id", "id:", "id ", "uuid", "guid", "request", "trace", "span", "correlation", "session id", "version",
    "идентификатор", "номер", "標識", "标识", "识别", "アイディー", "識別", "아이디", "식별", "מזהה", "معرف", "المعرف",
    "पहचान", "รหัสประจำ", "mã định danh", "kimlik", "tunniste", "identyfikator", "identifiant", "identificador",
    "kennung", "versione", "versão", "versión", "wersja", "версия", "版本", "バージョン", "버전",
    # public keys and fingerprints
    "public", "publiq", "pública", "publica", "pubblica", "publiek", "publiczn", "öffentlich", "offentlig", "julkinen",
    "veřejn", "açık anahtar", "публичн", "открыт", "публічн", "公钥", "公開", "公钥", "공개", "العام", "ציבורי",
    "δημόσι", "सार्वजनिक", "สาธารณะ", "công khai", "publik", "fingerprint", "fingerabdruck", "отпечат", "指纹",
    "フィンガープリント", "지문", "טביעת", "بصمة", "ssh-rsa", "ssh-ed25519", "ecdsa-sha2", "pgp", "gpg",
)
"""Words (lower case) that, between a cue and a value or just before the value, make it a non-secret."""


def all_cues() -> tuple[str, ...]:
    """Every cue of :data:`CUES` once, longest first (so ``kata sandi`` is tried before ``sandi``)."""
    return tuple(sorted({word for words in CUES.values() for word in words}, key=lambda w: (-len(w), w)))
