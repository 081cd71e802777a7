"""purge --text without Cognee, by kind of defect: base64 at any offset, Cognee's search history,
secret files as editors write them, the journal's key, and memctl's own vocabulary."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest

from memctl.config import DataHome
from memctl.exit_codes import USAGE, UsageError
from memctl.forget.journal import Journal
from memctl.forget.needles import MARKER, forms, redact
from memctl.forget.plan import values_key, values_match
from memctl.forget.secret_file import parse_values
from memctl.graph.erase import clear_search_history
from tests.forget.test_forget import _memctl, _store_with_history, _tree_digest

VALUES = [
    "OrchidVault5531kappa",
    "QuokkaLantern48213zeta",
    "Grüße-Kennwort-Ω77",
    "ghp_" + "x7" * 18,
    "p@ss:w0rd/+?~",                 # bytes whose base64 holds '+' and '/' (urlsafe: '-' and '_')
    "Nebula Finch 4410 & co",
]
PREFIXES = [b"", b"a", b"ab", b"abc", b"abcd", b"\xff\xfe\xfd\xfc\xfb"]
SUFFIXES = [b"", b" trailing text", b"\x00", b"\xfa\xfb"]
ENCODERS = [base64.b64encode, base64.urlsafe_b64encode,
            lambda b: base64.b64encode(b).rstrip(b"="), lambda b: base64.urlsafe_b64encode(b).rstrip(b"=")]


def _decoded_runs(data: bytes) -> list[bytes]:
    """Every decoding of every base64 run in ``data``: both alphabets, each of the 4 start offsets."""
    out = []
    for run in re.findall(rb"[A-Za-z0-9+/_=-]{2,}", data):
        run = run.rstrip(b"=")
        for start in range(4):
            part = run[start:]
            part = part[: len(part) - len(part) % 4 if len(part) % 4 == 1 else len(part)]
            padded = part + b"=" * (-len(part) % 4)
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    out.append(decode(padded.replace(b"-", b"+").replace(b"_", b"/")
                                      if decode is base64.b64decode else padded.replace(b"+", b"-").replace(b"/", b"_")))
                except ValueError:
                    continue
    return out


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("encoder", range(len(ENCODERS)))
def test_base64_of_a_value_inside_a_longer_blob_is_redacted_at_every_offset(value: str, prefix: bytes,
                                                                             encoder: int) -> None:
    needles = forms(value)
    for suffix in SUFFIXES:
        blob = ENCODERS[encoder](prefix + value.encode() + suffix)
        data = b'{"out": "before ' + blob + b' after"}'
        assert any(value.encode() in d for d in _decoded_runs(data))  # the check can fail
        redacted, count = redact(data, needles)
        assert count >= 1, (prefix, suffix)
        assert not any(value.encode() in d for d in _decoded_runs(redacted)), (prefix, suffix)
        assert redacted.startswith(b'{"out": "before ') and redacted.endswith(b' after"}')
        assert MARKER.encode() in redacted


def _cognee_db(path: Path, texts: list[str]) -> None:
    """The tables of Cognee 1.6.5's relational database that a search writes (queries, results), and one it does not."""
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE queries (id TEXT PRIMARY KEY, text TEXT, query_type TEXT, user_id TEXT)")
        conn.execute("CREATE TABLE results (id TEXT PRIMARY KEY, value TEXT, query_id TEXT, user_id TEXT)")
        conn.execute("CREATE TABLE datasets (id TEXT PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO datasets VALUES ('d1', 'alpha')")
        for i, text in enumerate(texts):
            conn.execute("INSERT INTO queries VALUES (?, ?, 'GRAPH_COMPLETION', 'u')", (f"q{i}", f"what is {text}?"))
            conn.execute("INSERT INTO results VALUES (?, ?, ?, 'u')", (f"r{i}", f"chunk: {text} " * 50, f"q{i}"))
    conn.close()


@pytest.mark.parametrize("texts", [VALUES[:1], VALUES[1:4], VALUES])
def test_cognees_search_history_is_deleted_and_no_byte_of_it_stays(tmp_path: Path, texts: list[str]) -> None:
    cognee = tmp_path / "cognee"
    db = cognee / "system" / "databases" / "cognee_db"
    _cognee_db(db, texts)
    assert all(t.encode() in db.read_bytes() for t in texts)
    assert clear_search_history(cognee) == 2 * len(texts)
    with sqlite3.connect(db) as conn:
        counts = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("queries", "results", "datasets")]
    conn.close()
    assert counts == [0, 0, 1]
    assert not any(t.encode() in db.read_bytes() for t in texts)  # VACUUMed: no freed page keeps them


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("raw, expected", [
    (BOM + b"OrchidVault5531kappa\n", ["OrchidVault5531kappa"]),
    (BOM + b"OrchidVault5531kappa", ["OrchidVault5531kappa"]),
    (BOM + b"OrchidVault5531kappa\r\nQuokkaLantern48213zeta\r\n", ["OrchidVault5531kappa", "QuokkaLantern48213zeta"]),
    (BOM + b"\r\nOrchidVault5531kappa\r\n", ["OrchidVault5531kappa"]),          # a BOM-only first line
    (BOM + b"a1b2c3d4\n" + BOM + b"e5f6g7h8\n", ["a1b2c3d4", "e5f6g7h8"]),       # two files concatenated
    ("Grüße-Kennwort-Ω77\r\n".encode(), ["Grüße-Kennwort-Ω77"]),
    (b"with trailing space \n\n\n", ["with trailing space "]),
])
def test_secret_file_values_without_bom_or_carriage_return(raw: bytes, expected: list[str]) -> None:
    assert parse_values(raw) == expected


@pytest.mark.parametrize("raw", [BOM, BOM + b"\r\n", BOM + b"\n" + BOM + b"\n", b"\r\n\r\n"])
def test_a_secret_file_of_only_boms_and_blank_lines_is_a_user_mistake(tmp_path: Path, raw: bytes) -> None:
    from memctl.forget.secret_file import read_values

    path = tmp_path / "secrets.txt"
    path.write_bytes(raw)
    with pytest.raises(UsageError):
        read_values(path)


@pytest.mark.parametrize("value", VALUES[:3])
def test_a_secret_file_with_a_bom_purges_its_value(tmp_path: Path, value: str) -> None:
    home = tmp_path / "var"
    _store_with_history(home / "store", value)
    secrets = tmp_path / "secrets.txt"
    secrets.write_bytes(BOM + value.encode() + b"\r\n")
    proc = _memctl(home, "purge", "--secret-file", str(secrets), "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["blobs_replaced"] >= 2
    assert not any(value.encode() in p.read_bytes() for p in home.rglob("*") if p.is_file())


def _unsalted_digests(values: list[str]) -> set[str]:
    found = set()
    distinct = sorted(set(values))
    for joined in ([v.encode() for v in distinct] + [b"".join(v.encode() + b"\0" for v in distinct),
                                                     b"\0".join(v.encode() for v in distinct),
                                                     b"\n".join(v.encode() for v in distinct)]):
        for algorithm in ("sha256", "sha1", "md5", "sha512", "blake2b"):
            found.add(hashlib.new(algorithm, joined).hexdigest())
    return found


@pytest.mark.parametrize("values", [VALUES[:1], VALUES[1:3], ["hunter2x"], VALUES])
def test_the_journal_holds_no_unsalted_digest_and_resumes_only_for_the_same_values(tmp_path: Path,
                                                                                    values: list[str]) -> None:
    home = DataHome(tmp_path / "var")
    home.root.mkdir()
    key = values_key(values)
    assert key != values_key(values)  # a random salt each time
    journal = Journal(home)
    journal.begin("purge-text", key, "memctl purge --text …", {"key": key}, matches=lambda k: values_match(values, k))
    text = journal.path.read_text()
    assert not any(d in text for d in _unsalted_digests(values))
    assert not any(v in text for v in values)
    again = Journal(home)
    _plan, resumed = again.begin("purge-text", values_key(values), "…", {}, matches=lambda k: values_match(values, k))
    assert resumed
    from memctl.forget.errors import ForgetError

    with pytest.raises(ForgetError):
        Journal(home).begin("purge-text", values_key(["Other9value"]), "…", {},
                            matches=lambda k: values_match(["Other9value"], k))
    assert not values_match(values + ["Other9value"], key) and not values_match(values, "deadbeef")


def _home_with_state(root: Path) -> None:
    _store_with_history(root / "store", "OrchidVault5531kappa")
    (root / "progress.json").write_text(json.dumps({"format": 1, "sources": {"ses_1": {
        "status": "distilled", "covered_until": 5, "topic": "alpha", "prompt_version": "1",
        "title": "OrchidVault5531kappa in a title"}}}, indent=2, sort_keys=True) + "\n")
    (root / "topic_index.json").write_text(json.dumps({"topics": {"alpha": {"keywords": ["lantern"]}}}))
    _cognee_db(root / "cognee" / "system" / "databases" / "schema_db", [])  # not cognee_db: no dataset to rebuild
    (root / "cognee" / "tiktoken").mkdir(parents=True)
    (root / "cognee" / "tiktoken" / "9b5ad71b2c").write_bytes(
        b"".join(base64.b64encode(w) + b" %d\n" % i for i, w in enumerate([b"hello", b" world", b"Zephyrine"])))


@pytest.mark.parametrize("word", ["status", "sources", "covered_until", "distilled", "prompt_version", "keywords",
                                  "query_type", "datasets", "Zephyrine"])
def test_memctls_own_vocabulary_is_refused_and_nothing_changes(tmp_path: Path, word: str) -> None:
    home = tmp_path / "var"
    _home_with_state(home)
    before = _tree_digest(home)
    for args in (("--dry-run", "--json"), ("--yes", "--json")):
        proc = _memctl(home, "purge", "--text", word, *args)
        assert proc.returncode == USAGE, proc.stdout + proc.stderr
        assert word not in proc.stderr and "Traceback" not in proc.stderr
    assert _tree_digest(home) == before


@pytest.mark.parametrize("value", ["OrchidVault5531kappa", "Vault5531", "in a title"])
def test_a_json_state_file_is_redacted_in_its_values_and_keeps_its_keys(tmp_path: Path, value: str) -> None:
    home = tmp_path / "var"
    _home_with_state(home)
    keys_before = json.loads((home / "progress.json").read_text())["sources"]["ses_1"].keys()
    asset = (home / "cognee" / "tiktoken" / "9b5ad71b2c").read_bytes()
    proc = _memctl(home, "purge", "--text", value, "--yes", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entry = json.loads((home / "progress.json").read_text())["sources"]["ses_1"]
    assert entry.keys() == keys_before and entry["status"] == "distilled" and entry["covered_until"] == 5
    assert value not in entry["title"] and MARKER in entry["title"]
    assert (home / "cognee" / "tiktoken" / "9b5ad71b2c").read_bytes() == asset
