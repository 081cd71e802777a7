"""Kinds an outside attacker got through: positional driver credentials, tokens printed by
token commands, user:password in prose, Wi-Fi keys, pasted credential files, two-factor seeds.

Each kind has several instances written here and, where one was found, the shape of a public
instance (documentation or public code found with code search; values changed). A kind is
"caught" when no 6-character run of the secret is left. Near-misses are documentation forms
(placeholders, variables) and look-alikes that must stay unchanged.
"""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub, scrub_texts

KINDS: dict[str, list[tuple[str, str]]] = {
    "positional_driver": [
        ('conn = psycopg2.connect("db.internal", "appuser", "Vq7!mZ2pLx")', "Vq7!mZ2pLx"),
        ("conn = pymysql.connect('10.0.0.5', 'root', 'Tr0ub4dor&3', 'shop')", "Tr0ub4dor&3"),
        ('db = MySQLdb.connect("localhost", "testuser", "test123x", "TESTDB")', "test123x"),  # classic tutorial shape
        ('cx_Oracle.connect("scott", "Tiger9x!", "host/orcl")', "Tiger9x!"),
        ("oracledb.connect('hr', 'Welcome_1hr', 'dbhost:1521/freepdb1')", "Welcome_1hr"),
        ('Connection c = DriverManager.getConnection(url, "sa", "Pw4Db!2024x");', "Pw4Db!2024x"),
        ('Connection c = ds.getConnection("report", "R3port!ng");', "R3port!ng"),
        ("$pdo = new PDO('mysql:host=localhost;dbname=app', 'root', 'Zq8rT5vW1y');", "Zq8rT5vW1y"),
        ('$link = mysqli_connect("127.0.0.1", "my_user", "my_pw_93k", "my_db");', "my_pw_93k"),
        ("$db = new mysqli('localhost', 'shop', 'Sh0pKeeper', 'shop');", "Sh0pKeeper"),
        ("const sequelize = new Sequelize('node_complete', 'root', 'Korn13nko77', {", "Korn13nko77"),  # public paste shape
        ('ftp = FTP("ftp.example.org", "anon2", "Ftp!Pass88")', "Ftp!Pass88"),
        ('r = redis.Redis("cache", 6379, 0, "R3disK3y!")', "R3disK3y!"),
        ('requests.get(url, auth=("api", "Bq8xLm2v9"))', "Bq8xLm2v9"),
        ('s.auth = HTTPBasicAuth("svc", "Ws7!basic")', "Ws7!basic"),
        ('db, err := sql.Open("mysql", "admin:Kx9vB2qLm@tcp(127.0.0.1:3306)/app")', "Kx9vB2qLm"),
        ('dsn := "web:Gw4!rtY7@unix(/var/run/mysqld/mysqld.sock)/site"', "Gw4!rtY7"),
        ('sql.Open("mysql", "root:R00tPw77@/inventory")', "R00tPw77"),
        ("mysql -u root -pS3cr3tRootPw mydb", "S3cr3tRootPw"),
    ],
    "printed_token": [
        ("$ heroku auth:token\n3f8a9c2e-7b1d-4e5f-a6c8-9d0e1f2a3b4c", "3f8a9c2e-7b1d-4e5f-a6c8-9d0e1f2a3b4c"),
        ("$ kubectl create token default\nabcdQ9x8Yz7w6V5u4T3s2R1qP0oNmLkJiHgFeDcBa", "abcdQ9x8Yz7w6V5u4T3s2R1qP0oNmLkJiHgFeDcBa"),
        ("$ aws ecr get-login-password --region us-east-1\neyJwYXlsb2FkIjoiWm1Gc2MyVWdkR1Z6ZENCa1lYUmgifQ",
         "eyJwYXlsb2FkIjoiWm1Gc2MyVWdkR1Z6ZENCa1lYUmgifQ"),
        ("$ gcloud auth print-identity-token\n\nAbCdEf0123456789GhIjKlMnOpQrStUv", "AbCdEf0123456789GhIjKlMnOpQrStUv"),
        ("> oc whoami -t\nsha256~Xk2LmQ9vR7tY4pW1zN8bC3dF6gH0jK5a", "sha256~Xk2LmQ9vR7tY4pW1zN8bC3dF6gH0jK5a"),
        ("$ kubeadm token create\nabcdef.0123456789abcdef", "abcdef.0123456789abcdef"),
        ("$ az account get-access-token --query accessToken -o tsv\n```\nQz81LmNv0aXy2B7kW4rT9pE3sD6fG5hJ",
         "Qz81LmNv0aXy2B7kW4rT9pE3sD6fG5hJ"),
        ("$ doctl auth token\nd0c7a9f1e2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7", "d0c7a9f1e2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7"),
    ],
    "prose_pair": [
        ("creds are jenkins:Bx7pL2qRw9", "Bx7pL2qRw9"),
        ("login: admin:Qw3rty!9 on the staging box", "Qw3rty!9"),
        ("the creds are root:Pa55w0rd99 for now", "Pa55w0rd99"),
        ("user/pass is admin/Hunter2!x", "Hunter2!x"),
        ("log in with admin / Hunter2!x", "Hunter2!x"),
        ("Credentials for the grafana box: ops:Gr4fana#1", "Gr4fana#1"),
        ("sign in as support:Supp0rtDesk then reset it", "Supp0rtDesk"),
    ],
    "wifi": [
        ("nmcli con modify HomeNet wifi-sec.psk Gr33nTea!Leaf", "Gr33nTea!Leaf"),
        ("nmcli connection add type wifi ifname wlan0 con-name Home ssid Home wifi-sec.key-mgmt wpa-psk "
         "wifi-sec.psk 'Blue!Moon55'", "Blue!Moon55"),
        ("802-11-wireless-security.psk:        Sunny#Day2024", "Sunny#Day2024"),
        ("WIFI:T:WPA;S:HomeNet;P:Sunfl0wer#77;;", "Sunfl0wer#77"),
        ("WIFI:S:Cafe;T:WPA;P:latte\\;art42;H:false;;", "latte\\;art42"),
        ('network={\n    ssid="HomeNet"\n    psk="c0rrectHorse42"\n}', "c0rrectHorse42"),
        ("nmcli dev wifi connect CafeNet password Latt3Art99", "Latt3Art99"),
    ],
    "credential_file_output": [
        ("$ cat secrets.yml\nproduction:\n  stripe: Lk93hGf72Mq\n  region: eu-west-1\n", "Lk93hGf72Mq"),
        ('$ cat terraform.tfvars\ndb_password = "Qp4mX8vL2n"\nregion = "us-east-1"', "Qp4mX8vL2n"),
        ('$ cat prod.tfvars\ncloudflare = "Cf8zQ2mL7vX1nB4k"\ninstance_type = "t3.micro"', "Cf8zQ2mL7vX1nB4k"),
        ("$ cat config/secrets.yml\ndefault:\n  mailgun: Mg-5zK2pQ8rT1v\n", "Mg-5zK2pQ8rT1v"),
        ("PS C:\\app> Get-Content .\\secrets.json\n  \"sendgrid\": \"Sg9!kL2mQ7xZ\",", "Sg9!kL2mQ7xZ"),
    ],
    "otp_seed": [
        ("otpauth://totp/ACME:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME", "JBSWY3DPEHPK3PXP"),
        ("otpauth://hotp/Co:bob?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=1", "GEZDGNBVGY3TQOJQ"),
        ("otpauth-migration://offline?data=CjEKCkhlbGxvId6tvu8SGGFsaWNlQGdvb2dsZS5jb20aBkdvb2dsZSABKAEwAhAB",
         "CjEKCkhlbGxvId6tvu8SGGFsaWNl"),
        ("TOTP seed: KRUGS4ZANFZSAYJAORSXG5BAONSWK3DP", "KRUGS4ZANFZSAYJAORSXG5BAONSWK3DP"),
        ("oathtool --totp -b MFRGGZDFMZTWQ2LK", "MFRGGZDFMZTWQ2LK"),
        ("the MFA secret is NB2W45DFOIZA2345", "NB2W45DFOIZA2345"),
        ("2FA key = ORSXG5BAMFZXGZLE 7K", "ORSXG5BAMFZXGZLE"),
    ],
}

NEAR_MISSES = [
    # documentation forms (Sequelize, JDBC tutorials, PHP manual): placeholders and variables
    "const sequelize = new Sequelize('database', 'username', 'password', {",
    "const sequelize = new Sequelize(config.db.database, config.db.username, config.db.password, {",
    "Connection conn = DriverManager.getConnection(url, username, password);",
    'Connection conn = DriverManager.getConnection("jdbc:mysql://localhost:3306/app");',
    "$pdo = new PDO($dsn, $user, $pass);",
    '$link = mysqli_connect("127.0.0.1", "my_user", "", "my_db");',
    'conn = pymysql.connect(host="localhost", user="user", password=os.environ["DB_PASSWORD"])',
    'sftp("host", "user", path)',
    "dsn := fmt.Sprintf(\"%s:%s@tcp(%s)/%s\", user, pass, host, db)",
    "git clone git@github.com:org/repo.git",
    # token commands whose output goes elsewhere, or that print no token
    "export GH_TOKEN=$(gh auth token)\nnext line of the script",
    "$ gh auth token | pbcopy\ncopied",
    "$ kubectl create token --help\nRequest a service account token.",
    "$ aws ecr get-login-password | docker login --username AWS --password-stdin 1234.dkr.ecr.us-east-1.amazonaws.com\n"
    "Login Succeeded",
    # prose that names a login but no password
    "log in with your SSO account, then open https://grafana.example.com:3000/d/abc",
    "the login page at localhost:8080 redirects to /auth/callback",
    "credentials are in config/app.yml and docs/setup.md",
    "Login: see the wiki",
    "sign in to the console, then run make deploy:prod",
    # Wi-Fi and 2FA look-alikes
    "nmcli con modify HomeNet wifi-sec.psk <your-passphrase>",
    "WIFI:T:WPA;S:HomeNet;P:${WIFI_PASS};;",
    "otpauth://totp/ACME:alice?secret=XXXXXXXXXXXXXXXX&issuer=ACME",
    "enable TOTP 2FA for every admin account",
    "MFA is required: run aws sts get-session-token",
    # .env and example files are the key-name rules' job; non-secret values of a credential file stay
    "$ cat terraform.tfvars\nregion = \"us-east-1\"\ninstance_count = 3\nenable_logs = true",
    "$ cat secrets.yml.example\nproduction:\n  stripe: Lk93hGf72Mq\n",
    "$ cat .env.example\nAPI_KEY=changeme",
]


def _caught(secret: str, text: str) -> bool:
    return not any(secret[i : i + 6] in text for i in range(max(1, len(secret) - 5)))


@pytest.mark.parametrize(("kind", "text", "secret"), [(k, t, s) for k, cases in KINDS.items() for t, s in cases])
def test_each_kind_is_caught(kind: str, text: str, secret: str) -> None:
    out = scrub(text).text
    assert _caught(secret, out), (kind, out)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_stay(text: str) -> None:
    assert scrub(text).text == text


def test_kinds_are_caught_in_a_joined_session_and_inside_a_long_text() -> None:
    filler = "ran the build, all green; next step is the deploy.\n" * 200
    texts = [t for cases in KINDS.values() for t, _ in cases]
    joined, counts = scrub_texts([filler + t + "\n" + filler for t in texts])
    assert sum(counts.values()) >= len(texts)
    for (text, secret), out in zip([c for cases in KINDS.values() for c in cases], joined, strict=True):
        assert _caught(secret, out), text


def test_kinds_are_marked_with_their_kind() -> None:
    assert "[REDACTED:otp_seed]" in scrub("oathtool --totp -b MFRGGZDFMZTWQ2LK").text
    assert "[REDACTED:credential_file]" in scrub("$ cat secrets.yml\nproduction:\n  stripe: Lk93hGf72Mq\n").text
    assert "[REDACTED:password]" in scrub('cx_Oracle.connect("scott", "Tiger9x!", "host/orcl")').text


def test_hostile_input_stays_linear() -> None:
    import time

    hostile = [
        "pymysql.connect(" + "'a', " * 5000,
        "creds " + "a:" * 20000,
        "WIFI:" + "P:" * 20000,
        "$ cat secrets.yml\n" + "k: v\n" * 20000,
        "otpauth://totp/" + "?secret=" * 5000,
        "gh auth token\n" * 5000,
    ]
    for text in hostile:
        t0 = time.perf_counter()
        scrub(text)
        # Not a speed target: quadratic or worse backtracking on these ~100 KB inputs takes minutes, a linear
        # scan well under a second; 30 s leaves room for a loaded CI machine.
        assert time.perf_counter() - t0 < 30, text[:30]


def test_a_long_line_of_spaced_key_names_is_read_once_not_once_per_name(monkeypatch) -> None:
    """`scrub("API key: abcd " * 3000)` took 9 s: each spaced name re-read the rest of its line as its value.

    Counted, not timed: the characters the rest-of-line pattern reads stay linear in the text's length."""
    import memctl.scrub.context_names as context_names

    read: list[int] = []
    real = context_names._REST_OF_LINE

    class Counting:
        def match(self, text: str, pos: int = 0):  # noqa: ANN201
            found = real.match(text, pos)
            read.append(len(found.group(0)) if found else 0)
            return found

    monkeypatch.setattr(context_names, "_REST_OF_LINE", Counting())
    text = "API key: abcd " * 3000
    assert scrub(text).text.count("[REDACTED") <= 3000
    assert sum(read) < 4 * len(text), (len(read), sum(read))
    assert scrub("password: abc " + "Q7" * 150).text == "password: [REDACTED:password]"  # a long 2-word value
    assert scrub("API key: abcd").text == "API key: [REDACTED:secret]"
