"""Kinds of secret the scrubber missed before: other-language names with every separator,
prose, vendor prefixes without a key name, secret-store output, tables, positional passwords,
and the documented stand-ins and references that must stay."""

from __future__ import annotations

import pytest

from memctl.scrub.context_names import FOREIGN_PASSWORD_WORDS
from memctl.scrub.core import scrub

SECRET = "Rt7vQm2pLx9w"

SEPARATORS = (" = ", " : ", "=", ": ", "：", "＝", "\t= ", "\t: ")


@pytest.mark.parametrize("word", [w for w in FOREIGN_PASSWORD_WORDS if " " not in w])
@pytest.mark.parametrize("sep", SEPARATORS)
def test_other_language_names_take_every_separator(word: str, sep: str) -> None:
    out = scrub(f"{word}{sep}{SECRET}\n").text
    assert SECRET not in out, (word, sep, out)
    assert out.startswith(word)


@pytest.mark.parametrize(
    "text",
    [
        "the password for the NAS is {s}",
        "pw for the box is {s}",
        "the passphrase for the backup key is {s}",
        "Use {s} as the password when it asks.",
        "please use '{s}' as your password",
        "log in with admin / {s}",
        "Creds are svc_deploy / {s}",
        "login: root / {s}",
        "Das Passwort für den Server lautet {s}",
        "Le mot de passe est {s}",
        "A senha do banco é {s}",
        "La contraseña es {s}",
        "Пароль: {s}",
        "пароль — {s}",
        "Het wachtwoord is {s}",
        "Hasło to {s}",
        "La password è {s}",
        "パスワードは{s}です",
        "密码是{s}",
        "密码为 {s}",
        "mot de passe : {s}",
        "Kennwort für den Admin: {s}",
        "Hasło do bazy: {s}",
        "password for root on the box was {s}",
    ],
)
def test_prose_in_several_languages(text: str) -> None:
    out = scrub(text.format(s=SECRET)).text
    assert SECRET not in out, out
    assert "[REDACTED:password]" in out


@pytest.mark.parametrize(
    ("token", "kind"),
    [
        ("squ_3f1b2c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "sonarqube_token"),
        ("sqp_0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b", "sonarqube_token"),
        ("pscale_tkn_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg", "planetscale_token"),
        ("pscale_pw_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876543", "planetscale_token"),
        ("pcsk_4a8b2c_9Xy7Zq3WvT5uR1sP0oN8mL6kJ4hG2fE0dC9bA7zY5xW3vU1tS", "pinecone_api_key"),
        ("CFPAT-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9", "contentful_pat"),
        ("NRAK-Q8W7E6R5T4Y3U2I1O0PASDFGH7Z", "new_relic_key"),
        ("nfp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "netlify_token"),
        ("y0_AgAAAAABcDeFgAATuwAAAAEaBcDeFgHiJkLmNoPqRsTuVwXyZ0abcd", "yandex_token"),
        ("access_token$production$abc123def456gh78$0123456789abcdef0123456789abcdef", "braintree_access_token"),
        ("https://discord.com/api/webhooks/123456789012345678/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567",
         "discord_webhook"),
        ("sl.BaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789-aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_aBcDeFgHiJkLmNoPq",
         "dropbox_short_lived_token"),
        ("lin_api_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d", "linear_api_key"),
        ("dp.pt.aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d", "doppler_token"),
    ],
)
def test_vendor_prefix_alone_is_enough(token: str, kind: str) -> None:
    out = scrub(f"saw {token} in the log").text
    assert token not in out, out
    # the engine's own rule may name it first (planetscale_password, linear_key)
    assert "[REDACTED:" + kind.split("_")[0] in out, out


@pytest.mark.parametrize("name", ["AZURE_DEVOPS_PAT", "ADO_PAT", "GH_PAT"])
def test_pat_names_are_credential_names(name: str) -> None:
    value = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop"
    assert value not in scrub(f"{name}={value}").text
    assert value not in scrub(f'{{"{name}": "{value}"}}').text


@pytest.mark.parametrize(
    "command",
    [
        "$ op read op://Prod/db/password",
        "$ pass show work/db",
        "gopass show infra/db",
        "$ gopass show -o infra/db",
        '$ op read "op://Prod/db/password"',
        "$ bw get password github",
        "$ doppler secrets get DB_PASS --plain",
        "$ az keyvault secret show --vault-name kv --name db -o tsv --query value",
        "$ az keyvault secret show --vault-name kv --name db --query value -o tsv",
        "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
        "$ security find-generic-password -s db -w",
        "$ vault kv get -field=password secret/db",
    ],
)
def test_secret_store_output_line(command: str) -> None:
    out = scrub(f"{command}\n{SECRET}\n$ ls\n").text
    assert SECRET not in out, out
    assert out.startswith(command)


@pytest.mark.parametrize(
    "text",
    [
        "user,password,host\nadmin,{s},db1\nbob,{s}2,db2",
        "name\tpassword\nalice\t{s}",
        "| user | Password |\n|---|---|\n| admin | {s} |",
        "id;api_token\n1;{s}",
        "Username | Password\n--- | ---\nroot | {s}",
        "email,pass\na@b.c,{s}",
        "env:\n  - name: API_TOKEN\n    value: {s}\n  - name: LOG_LEVEL\n    value: debug",
        '[{{"name": "DB_PASSWORD", "value": "{s}"}}]',
    ],
)
def test_tables_and_name_value_lists(text: str) -> None:
    out = scrub(text.format(s=SECRET)).text
    assert SECRET not in out, out


def test_table_keeps_other_columns() -> None:
    out = scrub(f"user,password,host\nadmin,{SECRET},db1").text
    assert out == "user,password,host\nadmin,[REDACTED:password],db1"


@pytest.mark.parametrize(
    "text",
    [
        "rabbitmqctl add_user svc {s}",
        "sudo rabbitmqctl change_password svc '{s}'",
        "net use Z: \\\\srv\\share {s} /user:CORP\\bob",
        "net use \\\\srv\\share /user:CORP\\bob {s}",
        "ftp -n host <<END\nuser bob {s}\nEND",
        "echo '{s}\\n{s}' | passwd bob",
        "echo -e \"{s}\\n{s}\" | sudo passwd alice",
        "snmpwalk -v3 -u u -l authPriv -a SHA -A {s} -x AES -X {s} host",
        'network={{\n  ssid="home"\n  psk="{s}"\n}}',
        'cat userlist.txt\n"svc" "{s}"',
    ],
)
def test_positional_passwords(text: str) -> None:
    out = scrub(text.format(s=SECRET)).text
    assert SECRET not in out, out


def test_rails_master_key_and_docker_auth() -> None:
    key = "3f1b2c4d5e6f7a8b9c0d1e2f3a4b5c6d"
    assert key not in scrub(f"$ cat config/master.key\n{key}\n").text
    auth = "dXNlcjpSdDd2UW0ycEx4OXc="  # base64 of user:Rt7vQm2pLx9w
    assert auth not in scrub(f'{{"auths":{{"ghcr.io":{{"auth":"{auth}"}}}}}}').text


def test_seed_phrase_after_recovery_word() -> None:
    words = "abandon ability able about above absent absorb abstract absurd abuse access accident"
    assert words not in scrub(f"recovery words: {words}").text
    assert words not in scrub(f"wallet words {words}").text


@pytest.mark.parametrize(
    "text",
    [
        "the password for the NAS is stored in the vault",
        "the password is incorrect",
        "Das Passwort ist falsch",
        "use bcrypt as the password hash",
        "log in with Google / GitHub",
        "id,name,email\n1,alice,a@example.com",
        "| option | description |\n|---|---|\n| token | the API token to use |",
        "| name | password |\n|---|---|\n| alice | <your-password> |",
        "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: s",
        "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "recipient: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
        "password: ENC[AES256_GCM,data:Tr7o=,iv:1=,tag:k=,type:str]",
        "token_id: 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "DB_PASSWORD: op://Prod/db/password",
        "password: ${{ secrets.DB_PASSWORD }}",
        "secret_arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
        "secret: projects/my-proj/secrets/db-pass/versions/latest",
        "password: vault:secret/data/db#password",
        "rabbitmqctl list_users",
        "snmpwalk -v2c -c public host",
        "$ pass show\nwork/db\n",
        "sl.next()",
    ],
)
def test_near_misses_stay(text: str) -> None:
    assert scrub(text).text == text


FILLER = "ran the build, all green; next step is the deploy.\n" * 200  # ~10 KB of ASCII


@pytest.mark.parametrize("line", ["wachtwoord = {s}", "senha: {s}", "adgangskode\t= {s}", "KENNWORT={s}"])
def test_other_language_names_in_a_long_ascii_session(line: str) -> None:
    # assignments are gated by their separator, whatever the text's length or alphabet
    out = scrub(FILLER + line.format(s=SECRET) + "\n" + FILLER).text
    assert SECRET not in out


def test_other_language_prose_in_a_long_session_with_its_own_letters() -> None:
    text = FILLER + f"Het wachtwoord is {SECRET} (zie ook: café)\n" + FILLER
    assert SECRET not in scrub(text).text


def test_gate_index_finds_foreign_words_in_a_long_ascii_text_too() -> None:
    from memctl.scrub.gates import GateIndex

    index = GateIndex(["wachtwoord", "rabbitmqctl", "lösenord"])
    short = "het wachtwoord is x; rabbitmqctl"
    assert index.present(short) == {"wachtwoord", "rabbitmqctl"}
    long_ascii = short + "." * 20000
    assert index.present(long_ascii) == {"wachtwoord", "rabbitmqctl"}
    assert index.present(long_ascii + "lösenord") == {"wachtwoord", "rabbitmqctl", "lösenord"}


def test_other_language_word_in_a_long_english_session_is_read() -> None:
    text = FILLER * 3 + f"\nkennwort={SECRET}\n" + FILLER * 3
    assert len(text) > 8192 and text.isascii()
    assert SECRET not in scrub(text).text
