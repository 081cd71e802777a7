"""Held-out round 7 formats (memctl.scrub.embedded_secrets): LoRaWAN keys, pysnmp communities, Keychain items,
Go byte-slice keys, CDATA under a credential element, .htpasswd entries, AWS SSM SecureString output and
cookies in IaC. Instances written for this test, several per kind; near-misses are what must stay."""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub

SECRETS = [
    # LoRaWAN root and session keys (32 hex or 16 bytes)
    ('#define APPKEY "2B7E151628AED2A6ABF7158809CF4F3C"', "2B7E151628AED2A6ABF7158809CF4F3C"),
    ("static const u1_t PROGMEM APPKEY[16] = { 0x2B, 0x7E, 0x15, 0x16, 0x28, 0xAE, 0xD2, 0xA6, 0xAB, 0xF7, 0x15, "
     "0x88, 0x09, 0xCF, 0x4F, 0x3C };", "0xAE, 0xD2"),
    ('const char *nwkSKey = "A1B2C3D4E5F60718293A4B5C6D7E8F90";', "A1B2C3D4E5F60718293A4B5C6D7E8F90"),
    ("lorawan.appSKey = 'ff00ee11dd22cc33bb44aa5599668877'", "ff00ee11dd22cc33bb44aa5599668877"),
    ('String appKey = "8D2C4E6A1B3F5D7E9C0A2B4D6F8E1A3C";', "8D2C4E6A1B3F5D7E9C0A2B4D6F8E1A3C"),
    ("  app_key: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n  dev_eui: 70B3D57ED0000001", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
    ('{"NwkKey": "5572404C696E6B4C6F52613230313823"}', "5572404C696E6B4C6F52613230313823"),
    # pysnmp community strings
    ("target = CommunityTarget(UdpTransportTarget(('10.0.0.1', 161)), CommunityData(\"s3cretComm\"))", "s3cretComm"),
    ("cmdgen.CommunityData('MyC0mmunity!', mpModel=1)", "MyC0mmunity!"),
    ("auth = CommunityData(communityName='netops-ro-77')", "netops-ro-77"),
    # Apple Keychain
    ('kSecValueData as String: "Pa55w0rdKeych".data(using: .utf8)!', "Pa55w0rdKeych"),
    ('let q: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValueData as String: '
     '"s3cr3tV4lue".data(using: .utf8)!]', "s3cr3tV4lue"),
    ('attrs[kSecValueData] = "hunter2Swift".data(using: String.Encoding.utf8)', "hunter2Swift"),
    # Go byte slices
    ('mac := hmac.New(sha256.New, []byte("w3bh00k-s1gning-k3y"))', "w3bh00k-s1gning-k3y"),
    ('var key = []byte("jwtSigningKey_prod_9")', "jwtSigningKey_prod_9"),
    ('cfg := Config{SessionSecret: []byte("cookie-store-secret-71")}', "cookie-store-secret-71"),
    # CDATA under a credential element
    ("<password><![CDATA[Tr1cky<Pa$$>]]></password>", "Tr1cky<Pa$$>"),
    ("<db><Password><![CDATA[n0t-so-s3cret]]></Password></db>", "n0t-so-s3cret"),
    ("<secret><![CDATA[ aB3dE5gH7jK9 ]]></secret>", "aB3dE5gH7jK9"),
    ('<smtpPassword type="string"><![CDATA[mail&pass99]]></smtpPassword>', "mail&pass99"),
    # .htpasswd
    ("$ cat .htpasswd\nadmin:$apr1$r31.../$HqJZimcKQFAMYayBlzkrA/", "HqJZimcKQFAMYayBlzkrA"),
    ("jdoe:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
    ("# /etc/nginx/.htpasswd\nbob:plainTextPw99\nalice:quokka-fish", "plainTextPw99"),
    ("# /etc/nginx/.htpasswd\nbob:plainTextPw99\nalice:quokka-fish", "quokka-fish"),
    ("ops:{SSHA}f3pX9mQ2vL8kR4tW7yZ1bN5cD0eA6gH3", "f3pX9mQ2vL8kR4tW7yZ1bN5cD0eA6gH3"),
    # pppd chap-secrets / pap-secrets
    ('$ sudo cat /etc/ppp/chap-secrets\n# client\tserver\tsecret\t\tIP addresses\n"vpnuser"\t*\t"Ch4p!Secret"\t*\n', "Ch4p!Secret"),
    ("/etc/ppp/pap-secrets:\nmodem01 * dsl-pw-7731 *\nmodem02 * Zt8#kQ2m 10.0.0.2\n", "dsl-pw-7731"),
    ("/etc/ppp/pap-secrets:\nmodem01 * dsl-pw-7731 *\nmodem02 * Zt8#kQ2m 10.0.0.2\n", "Zt8#kQ2m"),
    # AWS SSM --with-decryption
    ('$ aws ssm get-parameter --name /prod/db/pass --with-decryption\n{\n    "Parameter": {\n        "Name": '
     '"/prod/db/pass",\n        "Type": "SecureString",\n        "Value": "Gr33nTea&Honey",\n        "Version": 3\n    }\n}',
     "Gr33nTea&Honey"),
    ('{"Parameter": {"Name": "/app/api_key", "Type": "SecureString", "Value": "f3K9mP2qL8vX", "Version": 1}}',
     "f3K9mP2qL8vX"),
    ('{"Parameters": [{"Name": "slack", "Value": "N0v3mber-Rain", "Type": "SecureString"}]}',
     "N0v3mber-Rain"),
    ('aws ssm get-parameters --names stripe --with-decryption --query "Parameters[0].Value" --output text\nrk9Lm3Nx7Qp2Wv',
     "rk9Lm3Nx7Qp2Wv"),
    # session cookies in Terraform / IaC
    ('  session_cookie = "s%3AqW8eR5tY2uI9oP3aS6dF1gH4jK7l.Zx"', "s%3AqW8eR5tY2uI9oP3aS6dF1gH4jK7l.Zx"),
    ('headers = { "Cookie" = "connect.sid=s%3Ab9Kq2Lm7Np4R.x8Yz0Qw" }', "s%3Ab9Kq2Lm7Np4R.x8Yz0Qw"),
    ('variable "auth_cookie" {\n  default = "9f8e7d6c5b4a3928170665f4e3d2c1b0"\n}', "9f8e7d6c5b4a3928170665f4e3d2c1b0"),
]

NEAR_MISSES = [
    "CommunityData('public')", 'CommunityData("private", mpModel=0)', "CommunityData(community)",
    "<password><![CDATA[${DB_PASS}]]></password>", "<description><![CDATA[a password field]]></description>",
    "hmac.New(sha256.New, key)", 'data := []byte("hello, world")', 'body := []byte("{}")',
    '{"Parameter": {"Name": "/app/region", "Type": "String", "Value": "eu-west-1"}}',
    "AppKey is a 128-bit AES key (32 hex digits)", '#define APPKEY "00000000000000000000000000000000"',
    'dev_eui = "70B3D57ED0000001"', 'kSecValueData as String: data', "cookie_name = \"session\"",
    'set_cookie = "Secure; HttpOnly; SameSite=Strict"', '"cookie": "xoxd-abcdef1234567890..."', "# see .htpasswd docs\n\nusers are in LDAP",
    "$ cat /etc/ppp/chap-secrets\n# client server secret IP addresses\n",
]


@pytest.mark.parametrize(("text", "value"), SECRETS)
def test_secret_in_format_is_redacted(text: str, value: str) -> None:
    out = scrub(text).text
    assert value not in out and "[REDACTED:" in out


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_stays(text: str) -> None:
    assert scrub(text).text == text


def test_names_and_users_stay_readable() -> None:
    assert scrub("jdoe:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=").text.startswith("jdoe:[REDACTED:")
    assert scrub('headers = { "Cookie" = "connect.sid=s%3Ab9Kq2Lm7Np4R.x8Yz0Qw" }').text == (
        'headers = { "Cookie" = "connect.sid=[REDACTED:cookie]" }'
    )


def test_round7_finders_stay_linear_on_hostile_input() -> None:
    # a rule that scanned from every start of a long line once took quadratic time (the SSM command line)
    import time

    for text in (
        "aws ssm get-parameter --with-decryption --output text " * 2000,
        "<password><![CDATA[" * 3000,
        "ghp_ " * 5000,
        "password (" * 5000,
        "token\n" * 5000,
        "kSecValueData " * 3000,
        "appkey = " * 3000,
        '"Type": "SecureString", ' * 2000,
        "cookie = '" * 3000,
        "# .htpasswd\n" + "u:p\n" * 5000,
    ):
        started = time.perf_counter()
        scrub(text)
        assert time.perf_counter() - started < 20, text[:60]
