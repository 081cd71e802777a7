"""End to end: command-line passwords and wrapped private keys through `memctl ingest`.

Sessions of the kinds of the cases 25-cli-flag-passwords
and 26-escaped-private-key, with more instances of each kind, are written to a
crafted OpenCode 1.18 database; the real CLI runs `ingest --phase distill`
against the fake Ollama server. No secret may reach the transcript, a model
request, a note or anything else under the data home; the summary counts the
redactions by kind; the look-alikes (``ssh -p 2222``) stay in the transcript.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.support.crafted_opencode import CraftedDb, bash, text
from tests.support.memctl_process import run_memctl
from tests.support.scrub_corpus import body_lines, pem

pytestmark = pytest.mark.e2e

COMMANDS = [
    ("sshpass -p 'FAKEsshPass0000' ssh deploy@bastion.example.invalid uptime", "FAKEsshPass0000"),
    ("curl -u admin:FAKEbasicPass0000 https://api.example.invalid/v1/health", "FAKEbasicPass0000"),
    ("mysql -h db.example.invalid -u root -pFAKEmysqlPass0000 app -e 'select 1'", "FAKEmysqlPass0000"),
    ("mysqldump -u root --password FAKEdumpPass0000 app > app.sql", "FAKEdumpPass0000"),
    ("docker login -u fakeuser -p FAKEdockerPass0000 registry.example.invalid", "FAKEdockerPass0000"),
    ("redis-cli -h cache.example.invalid -a FAKEredisPass0000 ping", "FAKEredisPass0000"),
    ("printf 'machine api.example.invalid login fakeuser password FAKEnetrcPass0000\\n' >> ~/.netrc",
     "FAKEnetrcPass0000"),
    ("openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:FAKEopensslPass0000", "FAKEopensslPass0000"),
    ("wget --user=fakeuser --password FAKEwgetPass0000 https://files.example.invalid/a.tgz", "FAKEwgetPass0000"),
    ("PGPASSWORD=FAKEpgPass0000 psql -h db.example.invalid -U app -c 'select 1'", "FAKEpgPass0000"),
    ("htpasswd -bc /etc/nginx/.htpasswd admin FAKEhtPass0000", "FAKEhtPass0000"),
    ("az login -u ops@example.invalid -p FAKEazPass0000", "FAKEazPass0000"),
    ("curl -H 'Authorization: Bearer FAKEbearerToken0000' https://api.example.invalid", "FAKEbearerToken0000"),
    ("echo 'FAKEstdinPass0000' | docker login -u ci --password-stdin registry.example.invalid", "FAKEstdinPass0000"),
]
LOOK_ALIKES = ["ssh -p 2222 deploy@bastion.example.invalid", "docker run -u 1000:1000 -p 8080:80 app"]

KEY_A = pem("RSA PRIVATE KEY", "KEYA")
KEY_B = pem("PRIVATE KEY", "KEYB", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
KEY_C = pem("OPENSSH PRIVATE KEY", "KEYC", "b3BlbnNzaC1rZXktdjEAAAAA")
KEY_D_BODY = "".join(body_lines(pem("PRIVATE KEY", "KEYD", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")))
KEY_E = pem("EC PRIVATE KEY", "KEYE", "MHcCAQEEIFAKE")


def _read_tool(path: str, content: str, style: str) -> dict:
    lines = content.splitlines()
    if style == "new":
        output = "\n".join(f"{i}: {line}" for i, line in enumerate(lines, 1))
    else:
        output = "<file>\n" + "\n".join(f"{i:05d}| {line}" for i, line in enumerate(lines, 1)) + "\n</file>"
    return {"type": "tool", "tool": "read", "callID": f"call_read_{style}",
            "state": {"status": "completed", "input": {"filePath": path}, "output": output, "title": path,
                      "metadata": {}, "time": {"start": 1, "end": 2}}}


def _edit_tool(path: str, old: str, new: str) -> dict:
    return {"type": "tool", "tool": "edit", "callID": "call_edit",
            "state": {"status": "completed", "input": {"filePath": path, "oldString": old, "newString": new},
                      "output": "Edit applied successfully.", "title": path, "metadata": {},
                      "time": {"start": 1, "end": 2}}}


def _build(db_path: Path) -> list[str]:
    """Two sessions: command-line credentials, and keys in several wrappings. Returns the secrets."""
    db = CraftedDb(db_path)
    sid = db.session("ses_fake_cliflags", "Check every service login still works")
    db.user(sid, "Before the maintenance window, check that every service login we use still works: the "
                 "bastion, the api basic auth, mysql, the docker registry, redis and the file server.")
    db.assistant(sid, [bash(c, "ok") for c, _ in COMMANDS] + [bash(c, "ok") for c in LOOK_ALIKES]
                 + [text("All logins work. For the record: " + "; ".join(c for c, _ in COMMANDS[:4]))])

    sid = db.session("ses_fake_keys", "Move signing keys out of the repo")
    db.user(sid, "Find every private key in the repo and move it to the secret store. The old JWT key from "
                 f"the CI variables is SIGNING_KEY={KEY_D_BODY} and it is in the wiki too.")
    js_src = "const privateKey = '" + KEY_A.replace("\n", "\\r\\n") + "\\r\\n';\nexport default privateKey;\n"
    service_account = json.dumps({"type": "service_account", "private_key_id": "0000deadbeef" * 3 + "dead",
                                  "private_key": KEY_B + "\n"}, indent=2)
    db.assistant(sid, [
        _edit_tool("/home/dev/src/alpha/src/sign.ts", js_src, "export default process.env.SIGNING_KEY;\n"),
        bash("cat deploy/gcp-sa.json", service_account),
        _read_tool("/home/dev/src/alpha/keys/id_ed25519", KEY_C, "new"),
        _read_tool("/home/dev/src/alpha/keys/ec.pem", KEY_E, "old"),
        bash("kubectl get secret tls -o yaml",
             "data:\n  tls.key: " + base64.b64encode(KEY_E.encode()).decode() + "\n"),
        bash("git diff keys/", "\n".join("+" + line for line in KEY_A.splitlines())),
        text("Moved the TS key to an env var; deploy/gcp-sa.json still needs rotating."),
    ])
    db.close()
    secrets = [s for _, s in COMMANDS] + ["0000deadbeef" * 3 + "dead"]
    for key in (KEY_A, KEY_B, KEY_C, KEY_E):
        secrets.extend(line[:24] for line in body_lines(key))
    secrets.append(KEY_D_BODY[:40])
    secrets.append(base64.b64encode(KEY_E.encode()).decode()[:40])
    return secrets


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("scrub_e2e")
    db_path = base / "opencode.db"
    secrets = _build(db_path)
    home = base / "var"
    with FakeOllama() as server:
        proc = run_memctl(server, "ingest", "--db", str(db_path), "--home", str(home), "--phase", "distill", "--json")
        calls = list(server.calls)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return home, json.loads(proc.stdout), calls, secrets


def _every_file(home: Path) -> dict[Path, str]:
    return {p: p.read_text(errors="replace") for p in home.rglob("*") if p.is_file()}


def test_nothing_secret_reaches_transcripts_notes_or_any_file(ingested) -> None:
    home, _, _, secrets = ingested
    files = _every_file(home)
    transcripts = [p for p in files if p.parent.name == "transcripts"]
    assert len(transcripts) == 2
    leaks = {(str(p.relative_to(home)), s) for p, data in files.items() for s in secrets if s in data}
    assert not leaks


def test_nothing_secret_reaches_the_model(ingested) -> None:
    _, _, calls, secrets = ingested
    assert calls, "the distill phase asked the model"
    bodies = json.dumps([body for _, _, body in calls])
    assert not [s for s in secrets if s in bodies or json.dumps(s)[1:-1] in bodies]


def test_look_alikes_and_context_stay_readable(ingested) -> None:
    home, _, _, _ = ingested
    transcript = (home / "transcripts" / "ses_fake_cliflags.md").read_text()
    for command in LOOK_ALIKES:
        assert command in transcript
    assert "sshpass -p '[REDACTED:password]' ssh deploy@bastion.example.invalid uptime" in transcript
    assert "[REDACTED:private_key]" in (home / "transcripts" / "ses_fake_keys.md").read_text()


def test_summary_counts_redactions_by_kind(ingested) -> None:
    _, summary, _, _ = ingested
    redactions = summary["redactions"]
    assert redactions.get("password", 0) >= len(COMMANDS) - 2
    assert redactions.get("bearer_token", 0) >= 1
    assert redactions.get("private_key", 0) >= 6
