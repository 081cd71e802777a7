"""Kinds the scrubber missed or over-redacted in an outside attack: prose with qualifiers and
credential nouns, passwords printed by setup tools, AWS CLI text output, Google OAuth tokens,
network-device configurations, SQL positional values; and public values that must stay
(publishable keys, fingerprints, SOPS metadata, secret ARNs, documentation filler).

Every secret is fake. Each case names the secret that must disappear and what must stay."""

from __future__ import annotations

import pytest

from memctl.scrub.core import find_secrets, scrub
from memctl.scrub.public_values import public_span

# (text, secret that must be gone, text that must stay)
MISSES = [
    # prose: qualifiers between the word and its verb, credential nouns
    ("the qa mysql password, at least until Friday, is Lantern-Oxide-4417", "Lantern-Oxide-4417", "until Friday"),
    ("Our root password (changed last sprint) is Kq2!vRt8mZ", "Kq2!vRt8mZ", "changed last sprint"),
    ("the sftp passphrase, as agreed, is 'moss falcon 91'", "moss falcon 91", "as agreed"),
    ("the Sentry auth token is 7fQm2KxW9pLr4TzB", "7fQm2KxW9pLr4TzB", "Sentry auth token"),
    ("FYI: the signing secret (prod only) is Hx8vN3qLw5Tz", "Hx8vN3qLw5Tz", "prod only"),
    ("- the partner API key was Zr5Kq8Wm2Xv7Np4L until the rotation", "Zr5Kq8Wm2Xv7Np4L", "until the rotation"),
    ("the webhook tokens are now tkn9QxL2mVw8RzP5", "tkn9QxL2mVw8RzP5", "webhook tokens"),
    # passwords printed by setup tools
    ("Using generated security password: 6b1f9d2e-8a4c-4e7b-9c3d-2f5a8e1b7c40", "6b1f9d2e-8a4c-4e7b-9c3d-2f5a8e1b7c40",
     "Using generated security password"),
    ("2025-03-02T08:11:04Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: "
     "q>Wd7,Lk1;Rp", "q>Wd7,Lk1;Rp", "root@localhost"),
    ("The generated password for the elastic built-in superuser is : Ve3pX9-kL2qW7zR", "Ve3pX9-kL2qW7zR", "elastic"),
    ("Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  Tz7mQ2xLp9Wv4Kr8Nb\n",
     "Tz7mQ2xLp9Wv4Kr8Nb", "reset with"),
    ("Please use the following password to proceed to installation:\n\n9e2b7c4a1f8d4e3b6a0c5d9f2e7b1a48\n\n"
     "This may also be found at: /var/jenkins_home/secrets/initialAdminPassword",
     "9e2b7c4a1f8d4e3b6a0c5d9f2e7b1a48", "initialAdminPassword"),
    ("Initial password for user grafana-admin: Rk4#wPz8Lq", "Rk4#wPz8Lq", "grafana-admin"),
    ("random password generated for svc_backup: mW7.zQ3-kX9", "mW7.zQ3-kX9", "svc_backup"),
    ("[Server] A temporary password is generated for root@localhost: !qR5vT;x2Lm-", "!qR5vT;x2Lm-", "[Server]"),
    ("[Server] A temporary password is generated for root@localhost: -k8;Wz*pQ4rN", "-k8;Wz*pQ4rN", "[Server]"),
    ("Your new root password is: Rt-77-Vq2x-Lm", "Rt-77-Vq2x-Lm", "new root password"),
    # secret generators' output on the next line
    ("$ openssl rand -base64 24\nLq2Wz8Xv4Rk7Tm1Pn6Hs3Jd9Fg0B\n$ ", "Lq2Wz8Xv4Rk7Tm1Pn6Hs3Jd9Fg0B", "openssl rand"),
    ("$ pwgen -cnys 18 1\nuQ4>wL9@zX2#pR7!kM\n", "uQ4>wL9@zX2#pR7!kM", "pwgen"),
    (">>> import secrets; secrets.token_hex(20)\n'9c1f3e7a2b8d4c6e0f1a3b5c7d9e2f4a6b8c0d1e'", "9c1f3e7a2b8d4c6e0f1a3b5c7d9e2f4a6b8c0d1e",
     "token_hex"),
    ("$ wg genpsk\nPq3Lz8Xv2Wk7Rt4Nm9Hs1Jd6Fg5Bc0Qa8Ze3Yu7Io=\n", "Pq3Lz8Xv2Wk7Rt4Nm9Hs1Jd6Fg5Bc0Qa8Ze3Yu7Io=", "wg genpsk"),
    ("$ tr -dc 'A-Za-z0-9' </dev/urandom | head -c 24; echo\nHw8Kq2Lz7Xv4Rp9Tm3Nb6Jd1\n", "Hw8Kq2Lz7Xv4Rp9Tm3Nb6Jd1", "tr -dc"),
    # AWS CLI text output
    ("$ aws ssm get-parameters --names /billing/stripe --with-decryption --output text --query 'Parameters[0].Value'\n"
     "Lp8Qz3Wv7Rx2Tk9M\n$ ", "Lp8Qz3Wv7Rx2Tk9M", "/billing/stripe"),
    ("aws secretsmanager get-secret-value --secret-id prod/api --query SecretString --output text\n"
     '{"username":"api","password":"Gh6Tq9Wz2Lm5"}', "Gh6Tq9Wz2Lm5", "prod/api"),
    # Google OAuth tokens, bare
    ("curl -H 'x-goog-user-project: demo' https://www.googleapis.com/drive/v3/files?access_token="
     "ya29.c.b0Aaekm1KqX7Lp2Wz9Rt4Nv8Yb3Hs6Jd5Fg", "ya29.c.b0Aaekm1KqX7Lp2Wz9Rt4Nv8Yb3Hs6Jd5Fg", "googleapis.com"),
    ("stored refresh: 1//04dKz8Lq2Wm7Xv9Rt3Np5Yb6Hs1Jd4Fg0KcQe", "1//04dKz8Lq2Wm7Xv9Rt3Np5Yb6Hs1Jd4Fg0KcQe", "stored refresh"),
    # network devices
    ("router(config)# enable secret 9 $9$Ab3dEf6hIj$Kl2mNo5pQr8sTu1vWx4yZa7bCd0eFg3hIj6kLm9nOp2", "Kl2mNo5pQr8sTu1vWx4yZa7bCd0eFg3hIj6kLm9nOp2",
     "router(config)# enable secret 9"),
    ("username netops secret 5 $1$Qz8k$Vw3Lp9Xr2Tm7Nb5Hs4Jd1.", "Vw3Lp9Xr2Tm7Nb5Hs4Jd1", "username netops secret 5"),
    ("line vty 0 4\n password 7 121A0C041104\n login", "121A0C041104", "line vty 0 4"),
    ("snmp-server community n0c-r34d0nly RO 10", "n0c-r34d0nly", "RO 10"),
    ("tacacs-server host 10.0.0.5 key 7 0822455D0A16544541", "0822455D0A16544541", "10.0.0.5"),
    ("crypto isakmp key Ph4seOneK3y! address 203.0.113.9", "Ph4seOneK3y!", "203.0.113.9"),
    ('authentication-key "$9$kP5z6CA0IRhrlx-dsY4oJHqmfT3n9CtuOB";', "$9$kP5z6CA0IRhrlx-dsY4oJHqmfT3n9CtuOB", "authentication-key"),
    (" neighbor 192.0.2.1 password 0 BgpPeerPw2024", "BgpPeerPw2024", "192.0.2.1"),
    ("ntp authentication-key 3 md5 n7pSharedKey 7", "n7pSharedKey", "ntp authentication-key 3 md5"),
    ("enable secret 5 $1$wxyz$abcdefgh", "$1$wxyz$abcdefgh", "enable secret 5"),
    # SQL positional values
    ("INSERT INTO accounts VALUES (7, 'mallory', 'Tr0ub4dor&3');", "Tr0ub4dor&3", "mallory"),
    ("insert into app_users (login, passwd, role) values ('ops', 'winter-Lake-52', 'admin'), ('ci', 'Pz9qL2x', 'bot')",
     "winter-Lake-52", "'admin'"),
    ("UPDATE cards SET pan = pgp_sym_encrypt('4111111111111111', 'Cipher-Q7w2Lz')", "Cipher-Q7w2Lz", "4111111111111111"),
    ("SELECT AES_DECRYPT(ssn_enc, 'K9#mysqlAesKey') FROM people;", "K9#mysqlAesKey", "ssn_enc"),
    ("SELECT EncryptByPassPhrase('Vault Phrase 88', @card)", "Vault Phrase 88", "@card"),
]

NEAR_MISSES = [
    "STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
    "export GH_TOKEN=ghp_************************************",
    "api_key: sk_test_xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "db_password: ENC[AES256_GCM,data:hK3v9Q==,iv:Lm2Wz8Qx4Rt7Kp1Nv5Hs3g==,tag:Bq9Xc2Lz7Wv4Rk8Tm1Pn6A==,type:str]",
    # the label rule takes "data:<ciphertext>" whole, starting at the field's name (a fresh attacker's near-miss)
    "smtp_password: ENC[AES256_GCM,data:Wm4Rz8Kq2Xt6Lp9N,iv:Hv3Jd7Bq1Zs5Tn8Yc2Wx6Rk4Pm9L=,tag:Qz7Xv2Lk9Wp4=,type:str]",
    "  password: ENC[AES256_GCM,data:Pq8Lm3Zt,iv:Rk2Wv9Nx5Hs7Jb4Td6Yc1Fg3Qz8=,tag:Lw5Xp2Rk8Zt4Nm7Vb1=,type:str]",
    'ARN: "arn:aws:secretsmanager:eu-west-1:210987654321:secret:billing/stripe_api_key-Qw3ErT"',
    "valueFrom: arn:aws:ssm:us-east-2:111122223333:parameter/prod/db/password_Zq8vN2kLm4PxR7",
    "ED25519 key fingerprint is SHA256:Hx7Lq2Wz9Pv4Kt3Nr8Ys6Jb1Fm5Dc0Gh2Qe4Rt6Yu8.",
    "The RSA host key fingerprint is MD5:9d:38:5b:83:a9:17:52:92:56:1a:5e:c4:d4:81:8e:0a.",
    "NEXT_PUBLIC_STRIPE_KEY=pk_live_51Mz8Qx2Lp7Wv4Rk9Tn3Hs6Jd1Fg5Bc0",
    "publishable_key = 'pk_test_51Kq3Wz8Lp2Xv7Rt9Nm4Hs5Jd6Fg1Bc0'",
    "mapboxgl.accessToken = 'pk.eyJ1IjoiZGVtb3VzZXIiLCJhIjoiY2xxOHYyYjNmMGFiYzJrcXd6N3N4OXB0ZSJ9.Qw3Er5Ty7Ui9Op1As3Df';",
    "The enable secret command replaces the older enable password command on IOS.",
    "the cache key is node-modules-linux-x64 again",
    "the token is expired; run gh auth login",
    "The primary key is order_id2 in that table",
    "INSERT INTO audit_log (actor, action) VALUES ('alice', 'rotate-2024-key')",
    "A temporary password has been sent to your email address.",
    "A temporary password is generated for root@localhost: [shown in the log]",
    "A temporary password is generated for root@localhost: (see mysqld.log)",
    "snmp-server community public RO",
    "snmp-server community {community} RO",
    "$ wg genkey | tee wg0.key | wg pubkey\nxTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\n",
    "$ openssl rand -hex 4\n3f9a7c2e\n",
    "x = random.random()\nprint(x)\n",
    "key = secrets.token_urlsafe(32)\nsession.store_key(key)\n",
    "nonce = os.urandom(12)\ncipher_suite.encrypt(nonce)\n",
]


@pytest.mark.parametrize(("text", "secret", "kept"), MISSES, ids=[m[1][:24] for m in MISSES])
def test_open_kinds_are_masked(text: str, secret: str, kept: str) -> None:
    out = scrub(text).text
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert kept in out, out


@pytest.mark.parametrize("text", NEAR_MISSES, ids=[n[:30] for n in NEAR_MISSES])
def test_public_values_and_filler_stay(text: str) -> None:
    assert scrub(text).text == text
    assert find_secrets(text) == []


def test_secret_mapbox_token_and_real_stripe_key_still_go() -> None:
    # The exceptions are for the public forms only: the secret forms of the same issuers go.
    secret_mapbox = "sk.eyJ1IjoiZGVtb3VzZXIiLCJhIjoiY2xxOHYyYjNmMGFiYzJrcXd6N3N4OXB0ZSJ9.Zx8Cv6Bn4Mq2Lw0Ke9Rj"
    for text, secret in (
        (f"MAPBOX_SECRET_TOKEN={secret_mapbox}", secret_mapbox),
        ("STRIPE_SECRET_KEY=sk_live_51Mz8Qx2Lp7Wv4Rk9Tn3Hs6Jd", "sk_live_51Mz8Qx2Lp7Wv4Rk9Tn3Hs6Jd"),
        ("password: hunter2-Zq8v SHA256 of it is elsewhere", "hunter2-Zq8v"),
    ):
        assert secret not in scrub(text).text, text


def test_public_span_reads_the_context_before_the_span() -> None:
    text = "fp SHA256:Hx7Lq2Wz9Pv4Kt3Nr8Ys6Jb1Fm5Dc0Gh2Qe4Rt6Yu8 and key Hx7Lq2Wz9Pv4Kt3Nr8Ys6Jb1Fm5Dc0Gh2Qe4Rt6Yu8"
    first = text.index("Hx7")
    second = text.rindex("Hx7")
    assert public_span(text, first, first + 43, "secret")
    assert not public_span(text, second, second + 43, "secret")
    block = "-----BEGIN PRIVATE KEY-----\nxxxxxxxxxxxx\n-----END PRIVATE KEY-----"
    assert not public_span(block, 0, len(block), "private_key")


def test_scrub_is_idempotent_on_the_new_kinds() -> None:
    for text, _, _ in MISSES:
        once = scrub(text).text
        assert scrub(once).text == once


def test_minisign_secret_key_line_alone_goes_and_public_key_stays() -> None:
    import base64
    import random

    rng = random.Random(23)
    for head in (b"EdScB2", b"Ed\0\0B2"):  # encrypted (scrypt) and unencrypted secret keys
        line = base64.b64encode(head + bytes(rng.randrange(256) for _ in range(152))).decode()
        for text in (f"$ tail -n1 backup/signing.sec\n{line}\n", f"pasted: {line}", line):
            out = scrub(text).text
            assert line not in out and "[REDACTED:private_key]" in out, out
    public = base64.b64encode(b"Ed" + bytes(rng.randrange(256) for _ in range(40))).decode()
    text = f"minisign -Vm release.tar.gz -P {public}"
    assert scrub(text).text == text


def test_new_finders_stay_linear_on_hostile_input() -> None:
    # An unclosed SQL string of many doubled quotes once backtracked exponentially (24 pairs took
    # 45 s); a line of many announcers or AWS commands was searched once per hit.
    import time

    for text in (
        "INSERT INTO users (name, password) VALUES ('a" + "''" * 40 + " x",
        "insert into users values ('" + "''" * 3000,
        "generated password " * 2000,
        "aws ssm get-parameter --with-decryption --output text " * 2000,
        "openssl rand\n" * 2000,
    ):
        started = time.perf_counter()
        scrub(text)
        assert time.perf_counter() - started < 20, text[:60]


# A rule that takes a JSON value with its comma must not turn a null/boolean or a template filler into a secret:
# the text stays byte-identical (masking "null," also broke the JSON by eating the comma).
@pytest.mark.parametrize("text", [
    '{"db": {"user": "app", "password": null, "port": 5432}}',
    '"client_secret": false,\n"token": true,',
    "# settings.sample.toml\nsmtp_password = REPLACE_ME\n",
    "export API_TOKEN=CHANGE_ME",
    "vault_pass: FIXME\n",
])
def test_null_boolean_and_filler_values_stay(text: str) -> None:
    assert scrub(text).text == text


@pytest.mark.parametrize(("text", "secret"), [
    ('{"password": "Null-Island-7731", "port": 5432}', "Null-Island-7731"),
    ("smtp_password = ReplaceMeNot_91x\n", "ReplaceMeNot_91x"),
])
def test_values_that_only_start_like_filler_still_go(text: str, secret: str) -> None:
    assert secret not in scrub(text).text


def test_a_value_ending_in_example_is_filler_only_in_awss_key_shapes() -> None:
    # AWS documents AKIAIOSFODNN7EXAMPLE; a webhook or token that ends in EXAMPLE is still a secret
    assert scrub("aws_access_key_id = AKIAIOSFODNN7EXAMPLE").text == "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"
    hook = "https://hooks.slack.com/services/T0ABCD1234/B0ABCD1234/q7Rr2LmW0xyZ9kPdEXAMPLE"
    assert "q7Rr2LmW0xyZ9kPdEXAMPLE" not in scrub(f"SLACK_WEBHOOK_URL={hook}").text
