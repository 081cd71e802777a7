"""The catalog engine as a scrubber detector (memctl/scrub/catalog.py): kinds, offsets, placeholders,
user rules, no network, and its figures on the catalog corpus we did not write."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from memctl.scrub import catalog
from memctl.scrub.core import DETECTORS, MARKER_PATTERN, find_secrets, scrub, scrub_texts
from tests.support import catalog_corpus

# Generated with rstr from the catalog's own patterns (high entropy, not our corpus' filler).
GH = "ghp_" + "k3Xq9ZrT1vB7mW2pL8sD4fH6jN0cY5gA2eR9"
DEEPGRAM = "6c91708f22064ab1cd04b79938df7d27abb7c359"
REPLICATE = "r8_VbkPBe9ziC72LKuGwuXW7xJEMUIB6zHJG2drw"
DENO = "ddo_" + "Qm3vT8kZp1Lr6Yx0Bn4Hc7Wd2Fg9Js5Ae3Uy"


def test_kind_of_rule_is_stable_snake_case() -> None:
    assert catalog.kind_of_rule("betterleaks.github-pat") == "github_pat"
    assert catalog.kind_of_rule("betterleaks.auth0-client-id.1") == "auth0_client_id"
    assert catalog.kind_of_rule("veles.secrets/sendgrid") == "sendgrid"
    assert catalog.kind_of_rule("custom.acme-token") == "acme_token"
    assert catalog.kind_of_rule("kingfisher.x.y") == "x_y"
    assert MARKER_PATTERN.fullmatch(f"[REDACTED:{catalog.kind_of_rule('veles.secrets/Weird-ID 2')}]")


def test_catalog_finds_vendor_tokens_our_rules_do_not_know() -> None:
    for text, secret, kind in (
        (f"export REPLICATE_API_TOKEN={REPLICATE}", REPLICATE, "replicate_api_token"),
        (f"DENO_DEPLOY_TOKEN: {DENO}", DENO, "denopatorg"),
    ):
        # Not one of memctl's own rules: only the catalog knows these issuers.
        assert kind not in {d.kind for d in DETECTORS} | {k for d in DETECTORS for _, k in d.kind_groups}
        result = scrub(text)
        assert result.text == text.replace(secret, f"[REDACTED:{kind}]"), result  # the key name stays


def test_offsets_are_characters_after_multibyte_text_and_surrogates() -> None:
    prefixes = ["é", "日本語のメモ: ", "🔑🔑 ", "\udcff lone surrogate ", "Ünïcödé\u200b"]
    for prefix in prefixes:
        text = f"{prefix}token={REPLICATE} ende"
        found = [(k, text[s:e]) for k, (s, e) in find_secrets(text) if k == "replicate_api_token"]
        assert found == [("replicate_api_token", REPLICATE)], (prefix, find_secrets(text))
        assert scrub(text).text == f"{prefix}token=[REDACTED:replicate_api_token] ende"


def test_fields_joined_with_nul_map_back_exactly() -> None:
    fields = [f"ça {REPLICATE}", "plain", f"日本 {DENO}\nnext", "", f"{GH} 🔑"]
    out, counts = scrub_texts(fields)
    assert out == [scrub(f).text for f in fields]
    assert out[1] == "plain" and out[3] == ""
    assert REPLICATE not in out[0] and DENO not in out[2] and GH not in out[4]
    assert out[0].startswith("ça ") and out[2].endswith("\nnext") and out[4].endswith(" 🔑")
    assert sum(counts.values()) == 3


def test_documentation_placeholders_stay() -> None:
    # Issuer-prefixed stand-ins, as docs print them (values under key names are the key-name rules' job).
    for text in (
        "The format is sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (OpenAI).",
        "e.g. AKIAXXXXXXXXXXXXXXXX for the access key id",
        "paste ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx here",
        "shown as ghp_************************************ in the UI",
        "Bearer <your-token>",
        "uses ${REPLICATE_API_TOKEN} from the environment",
        "slack: xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx",
        "deploy with glrt-xxxxxxxxxxxxxxxxxxxx or hvs.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ):
        assert scrub(text).text == text, scrub(text)
    for value in ("<your-token>", "${VAR}", "{{ token }}", "sk-xxxxxxxxxxxx", "glc_********************"):
        assert catalog.is_catalog_placeholder(value), value
    for value in (REPLICATE, DENO, GH, DEEPGRAM, "sk-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST", "AKIA0000000000000000"):
        assert not catalog.is_catalog_placeholder(value), value


def test_value_only_where_the_rule_has_a_capture() -> None:
    # The engine alone (memctl's URL rule would take ``user:password`` first in scrub()).
    text = "MONGO=mongodb+srv://svc:Zq8v3LmP0xR7@cluster0.example.invalid/db"
    assert {text[s:e] for s, e, _ in catalog.catalog_spans(text)} == {"Zq8v3LmP0xR7"}
    text = "curl -u deploy:Zq8v3LmP0xR7 https://api.example.invalid/"
    assert {text[s:e] for s, e, _ in catalog.catalog_spans(text)} == {"Zq8v3LmP0xR7"}
    out = scrub(f'deepgram_key = "{DEEPGRAM}"').text
    assert DEEPGRAM not in out and out.startswith("deepgram_key = ")


def test_a_marker_is_never_read_as_a_value() -> None:
    text = "DATABASE_URL=postgres://app:[REDACTED:url_credentials]@db.example.invalid:5432/app"
    assert list(catalog.catalog_spans(text)) == []
    assert scrub(text).text == text


RULES = textwrap.dedent(
    r"""
    rules:
      - name: Acme internal token
        id: custom.acme-token
        pattern: |
          (?x)
          \b
          (acme_[a-z0-9]{32})
          \b
        min_entropy: 3.0
        confidence: medium
        examples:
          - acme_9f8e7d6c5b4a39281706f5e4d3c2b1a0
    """
)


@pytest.fixture
def user_rules(tmp_path, monkeypatch):
    path = tmp_path / "scrub_rules.yaml"
    monkeypatch.setenv(catalog.RULES_ENV, str(path))
    catalog.reload_rules()
    yield path
    monkeypatch.delenv(catalog.RULES_ENV)
    catalog.reload_rules()


def test_user_rules_file_adds_a_custom_pattern(user_rules) -> None:
    text = "export ACME=acme_9f8e7d6c5b4a39281706f5e4d3c2b1a0 # deploy"
    assert "acme_token" not in scrub(text).counts  # no file yet: unknown to every rule
    user_rules.write_text(RULES, encoding="utf-8")
    catalog.reload_rules()
    result = scrub(text)
    assert result.text == "export ACME=[REDACTED:acme_token] # deploy"
    assert catalog.user_rules_path() == user_rules


def test_a_bad_user_rules_file_is_one_clear_line_with_exit_code_2(user_rules) -> None:
    user_rules.write_text("rules:\n  - name: x\n    id: custom.bad\n    pattern: '(unclosed'\n", encoding="utf-8")
    catalog.reload_rules()
    with pytest.raises(catalog.CatalogRulesError) as error:
        list(catalog.catalog_spans("anything"))
    assert error.value.exit_code == 2
    assert str(error.value).startswith(f"scrub rules file {user_rules}: ") and "\n" not in str(error.value)


def test_default_rules_file_sits_beside_the_config(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(catalog.RULES_ENV, raising=False)
    monkeypatch.setenv("MEMCTL_CONFIG", str(tmp_path / "config.toml"))
    assert catalog.user_rules_path() == tmp_path / "scrub_rules.yaml"


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to watch system calls")
def test_scanning_opens_no_socket(tmp_path) -> None:
    # The engine is native code: Python-level socket patches would not see it, the kernel does.
    # (An AF_INET6 socket() at import is urllib3 probing for IPv6 support: never connected.)
    script = (
        "from memctl.scrub.core import scrub\n"
        f"print(scrub('export GITHUB_TOKEN={GH} REPLICATE={REPLICATE}').text)\n"
    )
    log = tmp_path / "trace"
    run = subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(log), sys.executable, "-c", script],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert GH not in run.stdout and "[REDACTED:" in run.stdout
    calls = [line for line in log.read_text().splitlines() if "AF_INET" in line]
    assert calls == [], calls[:5]


def test_catalog_corpus_is_from_sources_we_did_not_write() -> None:
    secrets, near, header = catalog_corpus.load()
    sources = Counter(catalog_corpus.source_of(s.origin) for s in secrets)
    assert sources["rule-pattern"] >= 300 and sources["betterleaks"] >= 100, sources
    assert len({s.family for s in secrets}) >= 250
    assert len(near) >= 500 and header["betterleaks_commit"]
    for secret in secrets:
        assert secret.values and all(v in secret.snippet for v in secret.values), secret


def test_catalog_corpus_recall_and_the_catalogs_own_false_redactions() -> None:
    positions = {name: catalog_corpus.POSITIONS[name] for name in ("tool_output_bash", "escaped_json")}
    figures = catalog_corpus.measure(lambda text: scrub(text).text, positions)
    assert figures.recall >= 0.98, (figures.recall, figures.missed[:10])
    # False redactions by catalog kinds (memctl's own context rules are measured by the bench).
    ours = {d.kind for d in DETECTORS} | {kind for d in DETECTORS for _, kind in d.kind_groups}
    _, near, _ = catalog_corpus.load()
    by_catalog = 0
    for miss in near:
        for place in positions.values():
            kinds = {m[len("[REDACTED:") : -1] for m in MARKER_PATTERN.findall(scrub(place(miss.snippet)).text)}
            by_catalog += bool(kinds - ours)
    assert by_catalog / (len(near) * len(positions)) <= 0.01, by_catalog


def test_generated_positives_respect_their_rules_conditions() -> None:
    # Each rule-pattern instance matches its rule's own regex again, and its secret has more entropy
    # than the rule's bounds: the corpus asks the engine for what its rules promise, no more.
    import kingfisher_sdk

    from tests.support.catalog_corpus_build import entropy_bounds, python_regex, shannon

    rules = kingfisher_sdk.Rules(confidence="low")
    secrets, _, _ = catalog_corpus.load()
    generated = [s for s in secrets if s.origin == "rule-pattern"]
    assert len(generated) >= 300
    for secret in generated:
        detail = rules.detail(secret.rule)
        regex = python_regex(detail["pattern"])
        assert regex is not None and regex.search(secret.snippet), secret.rule
        bound = max([detail["min_entropy"], *entropy_bounds(detail.get("betterleaks_filter"))])
        assert shannon(secret.values[0]) > bound, (secret.rule, secret.values[0])
        assert not catalog.is_catalog_placeholder(secret.values[0]), secret
