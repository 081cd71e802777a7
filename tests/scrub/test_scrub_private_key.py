"""Private keys in every wrapping lose their whole body.

Table-driven: every key type in every wrapping a session shows (line numbers
of each OpenCode read-tool version, cat -n, grep, diff, YAML, Markdown
quotes, escaped newlines at several depths, string concatenation, one line,
base64 of the file, bare DER bodies, cut blocks), each checked for: no body
line survives, a ``private_key`` marker is there, and the text around the
key is untouched.
"""

from __future__ import annotations

import base64
import json

import pytest

from memctl.scrub.core import MARKER_PATTERN, find_secrets, scrub
from tests.support.scrub_corpus import body_lines, pem

KEYS = {
    "rsa_pkcs1": pem("RSA PRIVATE KEY", "PKa"),
    "pkcs8": pem("PRIVATE KEY", "PKb", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    "ec": pem("EC PRIVATE KEY", "PKc", "MHcCAQEEIFAKE"),
    "openssh": pem("OPENSSH PRIVATE KEY", "PKd", "b3BlbnNzaC1rZXktdjEAAAAA"),
    "encrypted_pkcs8": pem("ENCRYPTED PRIVATE KEY", "PKe", "MIIFHDBOBgkqhkiG9w0BBQ0w"),
    "legacy_encrypted": pem(
        "RSA PRIVATE KEY", "PKf", headers=("Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,0000DEADBEEF0000", "")
    ),
    "pgp": pem("PGP PRIVATE KEY BLOCK", "PKg", "lQOYBFAKE0000", headers=("Version: FakePG v0", "")),
    "dsa": pem("DSA PRIVATE KEY", "PKh", "MIIBuwIBAAKBgQ"),
}


def _numbered(fmt: str):
    return lambda key: "\n".join(fmt.format(n=i, line=line) for i, line in enumerate(key.splitlines(), 1))


WRAPPINGS = {
    "plain": lambda k: k,
    "read_tool_new": _numbered("{n}: {line}"),
    "read_tool_old": _numbered("{n:05d}| {line}"),
    "cat_n": _numbered("{n:6d}\t{line}"),
    "grep_tool": _numbered("  Line {n}: {line}"),
    "ripgrep": _numbered("keys/id_rsa:{n}:{line}"),
    "diff_added": lambda k: "\n".join("+" + line for line in k.splitlines()),
    "diff_removed": lambda k: "\n".join("-" + line for line in k.splitlines()),
    "diff_context": lambda k: "\n".join(" " + line for line in k.splitlines()),
    "yaml_block": lambda k: "tls:\n  key: |\n" + "\n".join("    " + line for line in k.splitlines()),
    "markdown_quote": lambda k: "\n".join("> " + line for line in k.splitlines()),
    "nested_quote": lambda k: "\n".join("> > " + line for line in k.splitlines()),
    "escaped_n": lambda k: json.dumps({"private_key": k + "\n"}),
    "escaped_rn": lambda k: "const key = '" + k.replace("\n", "\\r\\n") + "';",
    "json_in_json": lambda k: json.dumps({"output": json.dumps({"key": k})}),
    "escaped_slash": lambda k: json.dumps({"key": k}).replace("/", "\\/"),
    "js_concat": lambda k: "const key =\n" + "\n".join(f"  '{line}\\n' +" for line in k.splitlines()) + "\n  '';",
    "python_list": lambda k: "LINES = [\n" + "\n".join(f'    "{line}",' for line in k.splitlines()) + "\n]",
    "one_line": lambda k: "KEY='" + " ".join(k.splitlines()) + "'",
    "read_tool_in_json": lambda k: json.dumps({"output": _numbered("{n:05d}| {line}")(k)}),
    "cat_A": lambda k: "\n".join(line + "$" for line in k.splitlines()),
    "crlf": lambda k: k.replace("\n", "\r\n"),
    "xml_element": lambda k: "<key>" + k + "</key>",
    "heredoc": lambda k: "cat > key.pem <<'EOF'\n" + k + "\nEOF",
    "url_encoded": lambda k: "key=" + k.replace("\n", "%0A").replace(" ", "%20").replace("+", "%2B").replace("/", "%2F"),
    "comment_lines": lambda k: "\n".join("# " + line for line in k.splitlines()),
    "java_concat": lambda k: "String k = " + " +\n".join(f'"{line}\\n"' for line in k.splitlines()) + ";",
}

BEFORE = "context before the key"
AFTER = "context after the key"


@pytest.mark.parametrize("wrapping", sorted(WRAPPINGS))
@pytest.mark.parametrize("key_name", sorted(KEYS))
def test_key_body_is_gone_in_every_wrapping(key_name: str, wrapping: str) -> None:
    key = KEYS[key_name]
    text = f"{BEFORE}\n{WRAPPINGS[wrapping](key)}\n{AFTER}"
    out = scrub(text).text
    leaked = [line for line in body_lines(key) if line in out or line[:20] in out]
    assert not leaked, out
    assert "[REDACTED:private_key]" in out
    assert out.startswith(BEFORE) and out.endswith(AFTER)


@pytest.mark.parametrize("wrapping", ["plain", "read_tool_new", "read_tool_old", "cat_n", "escaped_n", "yaml_block"])
@pytest.mark.parametrize("key_name", ["rsa_pkcs1", "openssh", "pgp"])
def test_begin_without_end_redacts_to_the_end_of_the_block(key_name: str, wrapping: str) -> None:
    cut = "\n".join(KEYS[key_name].splitlines()[:-2])  # END line and last body line cut off
    text = f"{WRAPPINGS[wrapping](cut)}\n\n(output truncated)\nnext step: rotate it"
    out = scrub(text).text
    assert not [line for line in body_lines(cut) if line in out], out
    assert out.endswith("(output truncated)\nnext step: rotate it")


@pytest.mark.parametrize("key_name", ["rsa_pkcs1", "pkcs8", "ec"])
def test_end_without_begin_redacts_back_to_the_start_of_the_body(key_name: str) -> None:
    tail = "\n".join(KEYS[key_name].splitlines()[2:])  # BEGIN and first body line cut off
    for wrapping in ("plain", "read_tool_new", "diff_added"):
        out = scrub("…tail of the file:\n" + WRAPPINGS[wrapping](tail)).text
        assert not [line for line in body_lines(tail) if line in out], (wrapping, out)
        assert out.startswith("…tail of the file:\n")


@pytest.mark.parametrize(
    "text",
    [
        "key: " + KEYS["rsa_pkcs1"].split("-----END")[0].rstrip() + " and the rest is prose",
        json.dumps({"k": KEYS["ec"].split("-----END")[0]}),
    ],
    ids=["run_into_prose", "cut_in_json"],
)
def test_last_body_line_running_into_other_text_is_redacted(text: str) -> None:
    out = scrub(text).text
    assert not [line for line in body_lines(text.replace("\\n", "\n")) if line[:30] in out], out


# --- encodings of a whole key file --------------------------------------------------


@pytest.mark.parametrize("key_name", ["rsa_pkcs1", "openssh", "pkcs8"])
@pytest.mark.parametrize(
    "encode",
    [
        lambda k: "tls.key: " + base64.b64encode(k.encode()).decode(),
        lambda k: "tls.key: " + base64.urlsafe_b64encode(k.encode()).decode().rstrip("="),
        lambda k: "$ base64 key.pem\n" + base64.encodebytes(k.encode()).decode() + "$ done",
        lambda k: "\n".join(
            f"{i}: {line}" for i, line in enumerate(base64.encodebytes(k.encode()).decode().splitlines(), 1)
        ),
        lambda k: "GOOGLE_CREDENTIALS="
        + base64.b64encode(json.dumps({"type": "service_account", "private_key": k}).encode()).decode(),
    ],
    ids=["base64", "base64url", "wrapped_76", "wrapped_numbered", "service_account_json"],
)
def test_base64_of_a_key_file_is_redacted_whole(key_name: str, encode) -> None:
    text = encode(KEYS[key_name])
    out = scrub(text).text
    assert "[REDACTED:private_key]" in out
    assert not [run for run in MARKER_PATTERN.sub(" ", out).split() if len(run) > 40], out  # no base64 left


def test_base64_decoding_check_finds_the_key_before_scrubbing() -> None:
    # The inputs above really hold a key: the check they make can fail.
    encoded = base64.b64encode(KEYS["ec"].encode()).decode()
    assert b"PRIVATE KEY" in base64.b64decode(encoded)
    assert [run for run in f"tls.key: {encoded}".split() if len(run) > 40]


BARE_BODIES = {
    "pkcs8_rsa": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    "pkcs1_rsa": "MIIEowIBAAKCAQEA",
    "pkcs1_rsa_1024": "MIICXAIBAAKBgQ",
    "sec1_ec": "MHcCAQEEIFAKE",
    "sec1_p384": "MIGkAgEBBDA",
    "ed25519_pkcs8": "MC4CAQAwBQYDK2VwBCIEI",
    "pkcs12": "MIIKXgIBAzCCChQGCSqGSIb3DQEHAaCC",
}


@pytest.mark.parametrize("der_start", sorted(BARE_BODIES))
@pytest.mark.parametrize(
    "place",
    [
        lambda b: f"SIGNING_KEY={b}",
        lambda b: f"the old key body was {b} (from the wiki)",
        lambda b: json.dumps({"note": "key:\n" + b}),
        lambda b: "\n".join(b[i : i + 64] for i in range(0, len(b), 64)),
    ],
    ids=["env", "prose", "escaped_json", "wrapped"],
)
def test_bare_der_body_without_armour_is_redacted(der_start: str, place) -> None:
    body = "".join(
        [BARE_BODIES[der_start] + "FAKE0000deadbeef" * 4, "deadbeefFAKE0000" * 4, "Zm9vFAKE0000deadbeef=="]
    )
    out = scrub(place(body)).text
    assert body[:40] not in out and body[-30:] not in out, out
    assert "[REDACTED:private_key]" in out


def test_putty_key_file_is_redacted_including_one_line_form() -> None:
    from tests.support.scrub_corpus import PUTTY

    for text in (PUTTY, PUTTY.replace("\n", " "), "\n".join(f"{i}: {line}" for i, line in enumerate(PUTTY.splitlines(), 1))):
        out = scrub(text).text
        assert not [line for line in body_lines(PUTTY) if line in out], out
        assert "Private-MAC: 0000deadbeef" not in out


# --- near-misses: no key, nothing redacted -------------------------------------------------

NEAR_MISSES = [
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAFAKE0000deadbeefFAKE00\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTES\n-----END CERTIFICATE-----",
    "-----BEGIN CERTIFICATE REQUEST-----\nMIICvDCCAaQCAQAwdzELMAkGA1UEBhMCVVMxDTALBgNVBAgMBFV0YWgxDzANBgNV\n-----END CERTIFICATE REQUEST-----",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDFAKE0000deadbeefFAKE0000deadbeef dev@example.invalid",
    'FOOTER = "-----END RSA PRIVATE KEY-----"\n# the footer line alone carries no key',
    "The PRIVATE KEY never leaves the HSM; see docs/keys.md for the rotation steps.",
    "tls.crt: " + base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTAN\n-----END CERTIFICATE-----\n").decode(),
    "data: " + base64.b64encode(b'HEADER = "-----BEGIN"; LABEL = "PRIVATE KEY" # constants only').decode(),
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAFAKE0000deadbeefFAKE0000deadbeefFAKE0000",
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJ",
]


@pytest.mark.parametrize("text", NEAR_MISSES, ids=range(len(NEAR_MISSES)))
def test_public_material_and_mentions_are_kept(text: str) -> None:
    assert find_secrets(text) == []


def test_code_naming_both_armour_lines_keeps_the_code_between() -> None:
    code = (
        'HEADER = "-----BEGIN RSA PRIVATE KEY-----"\n'
        "def parse(text):\n    return text.split(HEADER)[1]\n"
        'FOOTER = "-----END RSA PRIVATE KEY-----"'
    )
    out = scrub(code).text
    assert "def parse(text):\n    return text.split(HEADER)[1]\n" in out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n    in_key_block = True\n', "in_key_block = True"),
        ("  12 | -----BEGIN OPENSSH PRIVATE KEY-----\n  13 | {{ ssh_private_key_contents }}\n", "ssh_private_key_contents"),
        ("[3] -----BEGIN PRIVATE KEY-----\n[4] see docs/KeyRotationProcedure for details", "KeyRotationProcedure"),
        ("REM -----BEGIN EC PRIVATE KEY-----\nREM configurationManagement\n", "configurationManagement"),
        ("see below\n  16 │ -----END RSA PRIVATE KEY-----", "see below"),
    ],
    ids=range(5),
)
def test_lines_around_a_lone_armour_line_under_a_gutter_that_hold_no_key_are_kept(text: str, kept: str) -> None:
    assert kept in scrub(text).text


# --- long tool outputs are scrubbed in windows: a key crossing a window edge ------------


@pytest.mark.parametrize(
    "encode",
    [
        lambda k: base64.encodebytes(k.encode()).decode(),  # base64 of the file, 76-char lines
        lambda k: "\n".join(line for line in k.splitlines() if "-----" not in line),  # bare body lines
    ],
    ids=["base64_file", "bare_body"],
)
def test_key_straddling_the_kept_tail_of_a_long_output_is_redacted(encode) -> None:
    from memctl.ingest.transcript import build_transcript
    from tests.ingest.test_transcript import PartFactory, make_settings, simple_session

    key = "\n".join([KEYS["rsa_pkcs1"]] * 12)  # several KB of key material
    blob = encode(key)
    output = "listing " * 1500 + "\n$ dump keys\n" + blob + "\n" + "ok " * 150
    settings = make_settings()
    assert len(output) > settings.max_tool_output_chars + 3 * 1024  # windowed scrub territory
    p = PartFactory()
    session = simple_session([p.user("dump the keys for the audit"), p.tool("bash", output=output)])
    transcript = build_transcript(session, settings)
    kept_blob_lines = [line for line in blob.splitlines() if len(line) > 40 and line in transcript.text]
    assert not kept_blob_lines
    assert "private_key" in transcript.redactions
