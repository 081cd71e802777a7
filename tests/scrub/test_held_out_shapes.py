"""Held-out round 7 kinds outside two new modules' formats, several instances each, written for this test:
URL userinfo passwords holding an unescaped ``#``, ``@`` or ``/`` (memctl.scrub.http), Azure SAS ``sig=`` in
connection strings, IoT Hub and mobile-config URLs, RADIUS and SNMP secrets, chat-ops bot messages, BIP-39
mnemonics and WIF keys in devtools and IaC, PuTTY and OpenVPN keys pasted into chat, cookies in IaC commands,
labels in parentheses before the value's line, and OCR ``O``/``0`` confusion in prefixed tokens."""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub

SECRETS = [
 ("DATABASE_URL=postgresql://report:R3p#rt@2026@pg.prod.internal:5432/bi", "R3p#rt@2026"),
 ("psql 'postgres://etl:a/b#c@d9Z@warehouse:5432/dw'", "a/b#c@d9Z"),
 ("curl -u svc-ci:Qx#7/mK@2v https://nexus.corp/repository/", "Qx#7/mK@2v"),
 ("curl --user 'admin:p@ss#w/rd9' https://jenkins.local/api/json", "p@ss#w/rd9"),
 ("git clone https://bot:gh#x/Yz@9Lm@git.corp.example/team/repo.git", "gh#x/Yz@9Lm"),
 ("HostName=hub1.azure-devices.net;DeviceId=therm-7;SharedAccessKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo=", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo="),
 ("Authorization: SharedAccessSignature sr=hub1.azure-devices.net%2Fdevices%2Ftherm-7&sig=pLm3Nq8Rs2Tv7Wx1Yz4Ab6Cd9Ef0Gh5Ij%2Bkl%3D&se=1798761600", "pLm3Nq8Rs2Tv7Wx1Yz4Ab6Cd9Ef0Gh5Ij%2Bkl%3D"),
 ("<add key=\"StorageSas\" value=\"?sv=2020-08-04&amp;ss=b&amp;srt=sco&amp;sp=rl&amp;se=2027-06-01&amp;sig=Hq2Wm9Xk4Lp7Rv1Tz6Yb3Nc8Jd5Fg0Se%3D\" />", "Hq2Wm9Xk4Lp7Rv1Tz6Yb3Nc8Jd5Fg0Se%3D"),
 ('  "uploadUrl": "https://appassets.blob.core.windows.net/u?sp=w&st=2026-12-01T00:00:00Z&se=2026-12-31T00:00:00Z&spr=https&sv=2022-11-02&sr=c&sig=Tn4Wq8Lm2Rx7Vz1Kp5Yb9Hc3Jd6Fg0Se%2B",', "Tn4Wq8Lm2Rx7Vz1Kp5Yb9Hc3Jd6Fg0Se%2B"),
 ("radius-server key 7 0822455D0A16", "0822455D0A16"),
 ("aaa new-model\nradius server CORP\n address ipv4 10.1.1.1 auth-port 1812\n key Rad!usKey2026", "Rad!usKey2026"),
 ("RADIUS_SECRET=Sh4redS3cret!x", "Sh4redS3cret!x"),
 ("snmp-server community C0rpNetR0 RO 99", "C0rpNetR0"),
 ("snmp-server community monitor2026 view all ro", "monitor2026"),
 ("rocommunity N3tM0n1tor 10.0.0.0/8", "N3tM0n1tor"),
 ("<ogg> ops-bot: DB url is postgres://grafana:Gf4n4#Pw@pg01:5432/grafana", "Gf4n4#Pw"),
 ("[bot] Datadog API key rotated: 7c1e9a2b4d6f8a0c2e4b6d8f0a1c3e5b", "7c1e9a2b4d6f8a0c2e4b6d8f0a1c3e5b"),
 ("hubot> dd_api_key=5d41402abc4b2a76b9719d911017c592", "5d41402abc4b2a76b9719d911017c592"),
 ("> copy(JSON.parse(localStorage.vault).mnemonic)\n'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong'", "zoo wrong"),
 ('{seedPhrase: "gravity machine north sort system female filter attitude volume fold club stay feature office ecology stable narrow fog"}', "system female filter"),
 ('resource "aws_ssm_parameter" "btc" {\n  value = "L1aW4aubDFB7yfras2S1mN3bqg9nwySY8nkoLmJebSLD5BWv3ENZ"\n}', "L1aW4aubDFB7yfras2S1mN3bqg9nwySY8nkoLmJebSLD5BWv3ENZ"),
 ("PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported-openssh-key\nPublic-Lines: 1\nAAAAB3NzaC1yc2EAAAADAQABAAAAgQC7\nPrivate-Lines: 2\nAAAAgBv7Kp2Lm9Qx4Vz8Rt3Wy6Nc1Jd5Fh0Sg7Ak2Bm4Cn6Dp8Eq0\nFr2Gs4Ht6Iu8Jv0Kw2Lx4My6Nz8Oa0Pb2Qc4Rd6Se8Tf0Ug2Vh4Wi6=\nPrivate-MAC: 0123456789abcdef0123456789abcdef01234567", "Fr2Gs4Ht6Iu8Jv0Kw2Lx4My6Nz8Oa0Pb2Qc4Rd6Se8Tf0Ug2Vh4Wi6="),
 ("user> here's the static key\n#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n3f1b2a4c5d6e7f8091a2b3c4d5e6f708\n192a3b4c5d6e7f8091a2b3c4d5e6f708\n-----END OpenVPN Static key V1-----", "192a3b4c5d6e7f8091a2b3c4d5e6f708"),
 ('resource "null_resource" "x" {\n  provisioner "local-exec" {\n    command = "curl -H \'Cookie: _session_id=a8f3c9e1b7d24f6a9c0e3b5d7f1a2c4e\' https://app"\n  }\n}', "a8f3c9e1b7d24f6a9c0e3b5d7f1a2c4e"),
 ("Password (copy from OCR):\nW1nter#Is#C0ming", "W1nter#Is#C0ming"),
 ("api key (prod) 4Kq9Lm2Xz7Vb1Nw8Rt3Y", "4Kq9Lm2Xz7Vb1Nw8Rt3Y"),
 ("token (expires 2027): Zk8Lm3Qx9Vb2Nw7Rt4Y1p", "Zk8Lm3Qx9Vb2Nw7Rt4Y1p"),
 ("GITHUB TOKEN\nghp_4f9A8b7C6d5E4f3A2b1C0d9E8f7A6b5C4d3E", "ghp_4f9A8b7C6d5E4f3A2b1C0d9E8f7A6b5C4d3E"),
 ("AWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz1Oqq0O0O", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz1Oqq0O0O"),
 ("ghp_O0O1l2I3aBcDeFgHiJkLmNoPqRsTuVwXyZ0O12", "ghp_O0O1l2I3aBcDeFgHiJkLmNoPqRsTuVwXyZ0O12"),
 ("pwd\n  Hx9#mQ2!vL", "Hx9#mQ2!vL"),
]

NEAR_MISSES = [
    "postgres://user:password@localhost/db", "postgres://postgres:postgres@localhost:5432/app",
    "see https://example.com/docs#section-2 for details", "http://example.com:8080/#/login@home",
    "mailto:ops@example.com", "ssh git@github.com:org/repo.git", "https://user@example.com/path#frag",
    "snmp-server community public RO", "snmp-server community <string> RO", "radius server CORP\n address ipv4 10.1.1.1",
]


@pytest.mark.parametrize(("text", "value"), SECRETS)
def test_held_out_shape_is_redacted(text: str, value: str) -> None:
    out = scrub(text).text
    assert value not in out and "[REDACTED:" in out


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_stays(text: str) -> None:
    assert scrub(text).text == text


def test_userinfo_password_with_hash_keeps_user_and_host() -> None:
    out = scrub("DATABASE_URL=postgresql://report:R3p#rt@2026@pg.prod.internal:5432/bi").text
    assert out == "DATABASE_URL=postgresql://[REDACTED:url_credentials]@pg.prod.internal:5432/bi"
