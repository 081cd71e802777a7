"""Credentials given on a command line or in a header.

Each row is a command (or header) and the fake credential in it; every row is
also tried in the shapes a session shows commands in: plain, a bash tool's
JSON input, an argv list, a ``docker exec`` wrapper and after ``$ `` in tool
output. Near-misses (ports, users, ordinary short flags) stay byte for byte.
"""

from __future__ import annotations

import json

import pytest

from memctl.scrub.core import find_secrets, scrub

CLI_CASES = [
    # sshpass
    ("sshpass -p 'FAKEssh0000' ssh deploy@bastion.example.invalid uptime", "FAKEssh0000"),
    ("sshpass -pFAKEssh0001 scp a.txt host.example.invalid:/tmp", "FAKEssh0001"),
    ("sshpass -p \"FAKE ssh 0002\" ssh -p 2222 ops@host.example.invalid", "FAKE ssh 0002"),
    # MySQL family: attached -p, --password
    ("mysql -h db.example.invalid -u root -pFAKEmysql0000 app -e 'select 1'", "FAKEmysql0000"),
    ("mysqldump -uroot -p'FAKEdump0000' --all-databases > all.sql", "FAKEdump0000"),
    ("mariadb --user=app --password=FAKEmaria0000 appdb", "FAKEmaria0000"),
    ("mysqladmin -u root password FAKEnewpass0000", "FAKEnewpass0000"),
    ("mysqldump -u root --password FAKEdump0001 app > app.sql", "FAKEdump0001"),
    # PostgreSQL
    ("PGPASSWORD=FAKEpg0000 psql -h db.example.invalid -U app -c 'select 1'", "FAKEpg0000"),
    ("PGPASSWORD='FAKE&pg(0001)' pg_dump -h db.example.invalid app", "FAKE&pg(0001)"),
    # MongoDB
    ("mongosh -u admin -p FAKEmongo0000 --host db.example.invalid", "FAKEmongo0000"),
    ("mongodump --username admin --password FAKEmongo0001 --out dump/", "FAKEmongo0001"),
    # Redis / Valkey
    ("redis-cli -h cache.example.invalid -a FAKEredis0000 ping", "FAKEredis0000"),
    ("redis-cli --pass FAKEredis0001 -n 2 keys '*'", "FAKEredis0001"),
    ("valkey-cli -a 'FAKEvalkey0000' info", "FAKEvalkey0000"),
    # registries
    ("docker login -u fakeuser -p FAKEdocker0000 registry.example.invalid", "FAKEdocker0000"),
    ("docker login --username ci --password FAKEdocker0001 ghcr.example", "FAKEdocker0001"),
    ("podman login -u x -p FAKEpodman0000 quay.example.invalid", "FAKEpodman0000"),
    ("helm registry login -u x -p FAKEhelm0000 oci.example.invalid", "FAKEhelm0000"),
    ("helm repo add private https://charts.example.invalid --username u --password FAKEhelm0001", "FAKEhelm0001"),
    ("oras login --password FAKEoras0000 -u x reg.example.invalid", "FAKEoras0000"),
    ("skopeo copy --src-creds user:FAKEskopeo0000 docker://a docker://b", "FAKEskopeo0000"),
    ("buildah login --creds ci:FAKEbuildah0000 reg.example.invalid", "FAKEbuildah0000"),
    ("echo 'FAKEstdin0000' | docker login -u ci --password-stdin registry.example.invalid", "FAKEstdin0000"),
    ("printf '%s' FAKEstdin0001 | helm registry login --password-stdin -u x oci.example.invalid", "FAKEstdin0001"),
    ("docker login -u ci --password-stdin registry.example.invalid <<< 'FAKEstdin0002'", "FAKEstdin0002"),
    # cloud CLIs
    ("az login -u user@example.invalid -p FAKEaz0000", "FAKEaz0000"),
    ("az login --service-principal -u 0000 -p FAKEazsp0000 --tenant example.invalid", "FAKEazsp0000"),
    ("aws configure set aws_secret_access_key FAKEawscli0000deadbeef", "FAKEawscli0000deadbeef"),
    ("aws configure set aws_session_token FAKEsession0000deadbeef --profile ci", "FAKEsession0000deadbeef"),
    ("doctl auth init -t FAKEdoctl0000deadbeef", "FAKEdoctl0000deadbeef"),
    ("vault login s.FAKE0000deadbeef0000FAKE", "s.FAKE0000deadbeef0000FAKE"),
    ("oc login https://api.example.invalid:6443 -u dev -p FAKEoc0000", "FAKEoc0000"),
    ("echo FAKEghtoken0000deadbeef | gh auth login --with-token", "FAKEghtoken0000deadbeef"),
    ("gh secret set DEPLOY_KEY --body FAKEghsecret0000", "FAKEghsecret0000"),
    ("npm config set //registry.example.invalid/:_authToken=FAKEnpm0000deadbeef", "FAKEnpm0000deadbeef"),
    ("yarn config set npmAuthToken FAKEyarn0000deadbeef", "FAKEyarn0000deadbeef"),
    ("fly secrets set DATABASE_URL=FAKEfly0000 SENTRY=FAKEfly0001", "FAKEfly0000"),
    ("kubectl create secret generic db --from-literal=password=FAKEk8s0000", "FAKEk8s0000"),
    ("kubectl create secret docker-registry r --docker-password=FAKEk8s0001 --docker-username=u", "FAKEk8s0001"),
    ("twine upload -u __token__ -p FAKEtwine0000 dist/*", "FAKEtwine0000"),
    # HTTP clients
    ("curl -u admin:FAKEbasic0000 https://api.example.invalid/v1/health", "FAKEbasic0000"),
    ("curl --user 'admin:FAKE basic 0001' https://api.example.invalid", "FAKE basic 0001"),
    ("curl -U proxyuser:FAKEproxy0000 -x proxy.example.invalid:3128 https://x.example.invalid", "FAKEproxy0000"),
    ("curl --oauth2-bearer FAKEoauth0000deadbeef https://api.example.invalid", "FAKEoauth0000deadbeef"),
    ("curl -b 'session=FAKEcookie0000deadbeef' https://app.example.invalid", "FAKEcookie0000deadbeef"),
    ("wget --user=fakeuser --password FAKEwget0000 https://files.example.invalid/a.tgz", "FAKEwget0000"),
    ("wget --http-password=FAKEwget0001 --http-user=u https://files.example.invalid", "FAKEwget0001"),
    ("http -a admin:FAKEhttpie0000 GET api.example.invalid/items", "FAKEhttpie0000"),
    ("lftp -u admin,FAKElftp0000 ftp.example.invalid", "FAKElftp0000"),
    ("smbclient //srv.example.invalid/share -U 'admin%FAKEsmb0000'", "FAKEsmb0000"),
    # directory, databases, brokers
    ("ldapsearch -x -D cn=admin,dc=example -w FAKEldap0000 -b dc=example", "FAKEldap0000"),
    ("sqlcmd -S db.example.invalid -U sa -P FAKEsql0000 -Q 'select 1'", "FAKEsql0000"),
    ("mosquitto_pub -h mq.example.invalid -u u -P FAKEmqtt0000 -t t -m hi", "FAKEmqtt0000"),
    ("influx -username admin -password FAKEinflux0000", "FAKEinflux0000"),
    # archives, certificates, keystores
    ("htpasswd -bc /etc/nginx/.htpasswd admin FAKEht0000", "FAKEht0000"),
    ("htpasswd -b .htpasswd ops FAKEht0001", "FAKEht0001"),
    ("htpasswd -nbB admin FAKEht0002", "FAKEht0002"),
    ("zip -P FAKEzip0000 out.zip secrets.txt", "FAKEzip0000"),
    ("unzip -P FAKEzip0001 in.zip", "FAKEzip0001"),
    ("7z a -pFAKE7z0000 backup.7z data/", "FAKE7z0000"),
    ("7z x -p'FAKE7z0001' backup.7z", "FAKE7z0001"),
    ("unrar x -pFAKErar0000 a.rar", "FAKErar0000"),
    ("rar a -hpFAKErar0001 a.rar dir", "FAKErar0001"),
    ("openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:FAKEssl0000", "FAKEssl0000"),
    ("openssl rsa -in enc.pem -passin pass:FAKEssl0001 -out plain.pem", "FAKEssl0001"),
    ("openssl enc -aes-256-cbc -k FAKEssl0002 -in a -out b", "FAKEssl0002"),
    ("keytool -list -keystore ks.jks -storepass FAKEstore0000", "FAKEstore0000"),
    ("keytool -importkeystore -srcstorepass FAKEstore0001 -deststorepass FAKEstore0002", "FAKEstore0001"),
    ("jarsigner -keystore ks.jks -storepass FAKEstore0003 app.jar alias", "FAKEstore0003"),
    ("apksigner sign --ks ks.jks --ks-pass pass:FAKEapk0000 app.apk", "FAKEapk0000"),
    ("gpg --batch --passphrase FAKEgpg0000 -d secrets.gpg", "FAKEgpg0000"),
    ("ssh-keygen -t ed25519 -N 'FAKEkeygen0000' -f ~/.ssh/id_deploy", "FAKEkeygen0000"),
    ("ssh-keygen -p -P FAKEold0000 -N FAKEnew0000 -f id_rsa", "FAKEold0000"),
    ("ssh-keygen -p -P FAKEold0000 -N FAKEnew0000 -f id_rsa", "FAKEnew0000"),
    ("sqlplus -s scott/FAKEtiger0000@db.example.invalid:1521/orcl", "FAKEtiger0000"),
    ("sqlplus system/FAKEsys0000 as sysdba", "FAKEsys0000"),
    ("nmcli device wifi connect HomeNet password FAKEwifi0000", "FAKEwifi0000"),
    ("netlify deploy --prod --auth FAKEnetlify0000deadbeef", "FAKEnetlify0000deadbeef"),
    ("http --auth admin:FAKEhttpie0001 GET api.example.invalid", "FAKEhttpie0001"),
    ("SSHPASS=FAKEsshenv0000 sshpass -e ssh host.example.invalid", "FAKEsshenv0000"),
    ("az keyvault secret set --vault-name v --name db --value FAKEkv0000", "FAKEkv0000"),
    ("aws ssm put-parameter --name /app/db --type SecureString --value FAKEssm0000", "FAKEssm0000"),
    ("echo -n FAKEgcs0000 | gcloud secrets versions add db --data-file=-", "FAKEgcs0000"),
    ('requests.get(url, auth=("admin", "FAKEreq0000"))', "FAKEreq0000"),
    ("session.auth = HTTPBasicAuth('svc', 'FAKEbasicauth0000')", "FAKEbasicauth0000"),
    # sudo, PowerShell
    ("echo FAKEsudo0000 | sudo -S apt-get update", "FAKEsudo0000"),
    ("$cred = ConvertTo-SecureString 'FAKEps0000' -AsPlainText -Force", "FAKEps0000"),
    # .netrc and git credentials
    ("printf 'machine api.example.invalid login fakeuser password FAKEnetrc0000\\n' >> ~/.netrc", "FAKEnetrc0000"),
    ("machine git.example.invalid\n  login fakeuser\n  password FAKEnetrc0001", "FAKEnetrc0001"),
    ("default login anonymous password FAKEnetrc0002", "FAKEnetrc0002"),
    ("protocol=https\nhost=github.example\nusername=bot\npassword=FAKEgitcred0000", "FAKEgitcred0000"),
]

HEADER_CASES = [
    ("curl -H 'Authorization: Bearer FAKEbearer0000deadbeef' https://api.example.invalid", "FAKEbearer0000deadbeef"),
    ('curl -H "Authorization: Token FAKEtoken0000deadbeef" https://api.example.invalid', "FAKEtoken0000deadbeef"),
    ("Authorization: Basic RkFLRXVzZXI6RkFLRXBhc3MwMDAw", "RkFLRXVzZXI6RkFLRXBhc3MwMDAw"),
    ("authorization: bot FAKE0000.deadbeef.0000FAKEtoken", "FAKE0000.deadbeef.0000FAKEtoken"),
    ("Authorization: SSWS 00FAKEokta0000deadbeef0000", "00FAKEokta0000deadbeef0000"),
    ("Authorization: ApiKey FAKEapikey0000deadbeef", "FAKEapikey0000deadbeef"),
    ("Proxy-Authorization: Basic RkFLRXByb3h5OjAwMDA=", "RkFLRXByb3h5OjAwMDA="),
    (
        'Authorization: Digest username="u", realm="r", nonce="n", response="0000deadbeef0000deadbeef0000dead"',
        "0000deadbeef0000deadbeef0000dead",
    ),
    (
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAFAKE0000DEADBEEF/20260101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=0000deadbeef0000deadbeef0000deadbeef",
        "0000deadbeef0000deadbeef0000deadbeef",
    ),
    ('{"headers": {"Authorization": "Bearer FAKEjson0000deadbeef"}}', "FAKEjson0000deadbeef"),
    ("X-Api-Key: FAKEapikey0001deadbeef", "FAKEapikey0001deadbeef"),
    ("curl -H 'x-api-key: FAKEapikey0002' https://api.example.invalid", "FAKEapikey0002"),
    ("X-Auth-Token: FAKEauthtoken0000", "FAKEauthtoken0000"),
    ("PRIVATE-TOKEN: FAKEgitlabHeaderValue", "FAKEgitlabHeaderValue"),
    ("Ocp-Apim-Subscription-Key: 0000deadbeef0000deadbeef0000dead", "0000deadbeef0000deadbeef0000dead"),
    ("Cookie: sessionid=FAKEsession0000deadbeef; csrftoken=FAKEcsrf0000deadbeef", "FAKEsession0000deadbeef"),
    ("Cookie: sessionid=FAKEsession0000deadbeef; csrftoken=FAKEcsrf0000deadbeef", "FAKEcsrf0000deadbeef"),
    ("Set-Cookie: auth=FAKEauth0000deadbeef; Path=/; HttpOnly; Secure", "FAKEauth0000deadbeef"),
    ('{"cookie": "connect.sid=s%3AFAKE0000deadbeef.sig"}', "s%3AFAKE0000deadbeef.sig"),
    ('document.cookie = "token=FAKEdoc0000deadbeef; path=/"', "FAKEdoc0000deadbeef"),
    ('headers.set("Authorization", "Bearer FAKEcall0000deadbeef")', "FAKEcall0000deadbeef"),
]


def _shapes(command: str) -> dict[str, str]:
    """The shapes a session shows one command in."""
    return {
        "plain": command,
        "bash_tool_input": json.dumps({"command": command, "description": "Run it"}),
        "docker_exec": f"docker exec -it app sh -c \"{command}\"" if '"' not in command else command,
        "tool_output": f"$ {command}\nok",
        "and_chain": f"cd /srv/app && {command} && echo done",
    }


@pytest.mark.parametrize(("command", "secret"), CLI_CASES + HEADER_CASES, ids=range(len(CLI_CASES + HEADER_CASES)))
def test_credential_is_redacted_in_every_command_shape(command: str, secret: str) -> None:
    for shape, text in _shapes(command).items():
        result = scrub(text)
        assert secret not in result.text and json.dumps(secret)[1:-1] not in result.text, (shape, result.text)
        assert sum(result.counts.values()) >= 1 and "[REDACTED:" in result.text


ARGV_CASES = [
    (["sshpass", "-p", "FAKEargv0000", "ssh", "host.example.invalid"], "FAKEargv0000"),
    (["mysql", "-uroot", "-pFAKEargv0001", "app"], "FAKEargv0001"),
    (["redis-cli", "-a", "FAKEargv0002", "ping"], "FAKEargv0002"),
    (["curl", "-u", "admin:FAKEargv0003", "https://api.example.invalid"], "FAKEargv0003"),
]


@pytest.mark.parametrize(("argv", "secret"), ARGV_CASES, ids=range(len(ARGV_CASES)))
def test_argv_lists_in_code_are_commands_too(argv: list[str], secret: str) -> None:
    for text in (f"subprocess.run({argv!r}, check=True)", json.dumps({"args": argv})):
        out = scrub(text).text
        assert secret not in out, out


REDIS_SESSIONS = [
    ("$ redis-cli -h cache.example.invalid\ncache.example.invalid:6379> AUTH FAKEredisauth0000\nOK", "FAKEredisauth0000"),
    ("127.0.0.1:6379> AUTH default FAKEredisauth0001\nOK\n127.0.0.1:6379> keys *", "FAKEredisauth0001"),
    ("AUTH FAKEredisauth0002", "FAKEredisauth0002"),
]


@pytest.mark.parametrize(("text", "secret"), REDIS_SESSIONS, ids=range(len(REDIS_SESSIONS)))
def test_redis_auth_command_at_a_prompt(text: str, secret: str) -> None:
    for placed in (text, json.dumps({"output": text})):
        out = scrub(placed).text
        assert secret not in out and "[REDACTED:password]" in out, out


def test_auth_in_prose_or_config_is_not_a_redis_command() -> None:
    for text in ("auth required pam_unix.so", "Auth flows differ per tenant", "session.auth = HTTPBasicAuth(user, pw)"):
        assert scrub(text).text == text, find_secrets(text)


def test_the_user_part_and_the_command_stay_readable() -> None:
    out = scrub("curl -u admin:FAKEbasic0000 https://api.example.invalid/v1/health").text
    assert out == "curl -u admin:[REDACTED:password] https://api.example.invalid/v1/health"
    out = scrub("mysql -h db.example.invalid -u root -pFAKEmysql0000 app").text
    assert out == "mysql -h db.example.invalid -u root -p[REDACTED:password] app"
    out = scrub("docker login -u fakeuser -p FAKEdocker0000 registry.example.invalid").text
    assert out == "docker login -u fakeuser -p [REDACTED:password] registry.example.invalid"


NEAR_MISSES = [
    "ssh -p 2222 deploy@bastion.example.invalid",
    "ssh -i ~/.ssh/id_ed25519 -p 22 -l ops host.example.invalid",
    "docker run -u 1000:1000 -p 8080:80 -v $PWD:/app app:latest",
    "docker run --user 1000:1000 --publish 5432:5432 postgres:16",
    "psql -p 5432 -h localhost -U app",
    "scp -P 22 build.tgz host.example.invalid:/tmp",
    "mysql -P 3306 -h db.example.invalid -u root -p appdb",
    "mkdir -p build/out && ls -a && grep -a needle haystack.bin",
    "git push -u origin main && git commit -a -m 'token refresh docs'",
    "git checkout -b feature/password-reset",
    "sort -u names.txt | uniq -c",
    "tar -tzf archive.tgz && tar -czf out.tgz -C build .",
    "docker build -t app:1.2.3 -f Dockerfile .",
    "pip install -U pip && pip install -r requirements.txt",
    "curl -k https://localhost:8443/health -w '%{http_code}' -o /dev/null",
    "curl -u admin https://api.example.invalid/health",
    "curl -u \"$USER:$PASS\" https://api.example.invalid",
    "openssl pkcs12 -passin env:P12_PASS -in a.p12 -nokeys",
    "openssl rsa -in enc.pem -passin file:/run/secrets/pass -out plain.pem",
    "docker login --password-stdin registry.example.invalid < token.txt",
    "echo $TOKEN | docker login -u ci --password-stdin registry.example.invalid",
    "psql --no-password dbname",
    "use the --token flag instead of the password option",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "redis-cli -h cache.example.invalid -p 6379 ping",
    "sudo -u postgres psql -c 'select 1'",
    "htpasswd -c .htpasswd admin",
    "7z x archive.7z -o./out",
    "aws configure set region eu-west-1 && aws configure set output json",
    "npm config set registry https://registry.example.invalid/",
    "Authorization: required for every request; Cookie: a small text file kept by the browser.",
    "Set-Cookie: theme=dark; Path=/",
    'curl -H "Authorization: Bearer ${API_TOKEN}" https://api.example.invalid',
    "ssh-keygen -t ed25519 -N '' -f key && ssh-keygen -l -f key.pub",
    "sqlplus /nolog && sqlplus -s /@orcl",
    "netlify deploy --auth $NETLIFY_AUTH_TOKEN",
    "export GIT_ASKPASS=/usr/bin/true SSH_ASKPASS=/usr/lib/ssh/x11-ssh-askpass",
    "usage: deploy --password PASSWORD --api-key KEY [-u USER:PASS]",
    "ssh -o PasswordAuthentication=no -o PubkeyAuthentication=yes host.example.invalid",
    "auth required pam_unix.so nullok",
    "az keyvault secret show --vault-name v --name db --query value",
    "gcloud secrets versions access latest --secret=db --data-file=out.txt",
    'requests.get(url, auth=(user, password))',
    "aws ssm get-parameter --name /app/db --with-decryption",
    'headers = {"Authorization": f"Bearer {token}", "Cookie": cookie_header}',
]


@pytest.mark.parametrize("text", NEAR_MISSES, ids=range(len(NEAR_MISSES)))
def test_near_misses_stay_byte_for_byte(text: str) -> None:
    for shape, placed in _shapes(text).items():
        assert scrub(placed).text == placed, (shape, find_secrets(placed))


def test_counts_are_typed_per_kind() -> None:
    text = "\n".join(
        [
            "curl -u admin:FAKEbasic0000 https://api.example.invalid",
            "curl -H 'Authorization: Bearer FAKEbearer0000deadbeef' https://api.example.invalid",
            "Cookie: sid=FAKEcookie0000deadbeef",
            "vault login s.FAKE0000deadbeef0000FAKE",
            "aws configure set aws_secret_access_key FAKEawscli0000deadbeef",
        ]
    )
    assert scrub(text).counts == {"password": 1, "bearer_token": 1, "cookie": 1, "vault_token": 1, "secret": 1}
