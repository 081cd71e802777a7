"""`memctl search`, `topics` and `list`: the MCP tools' results on the command line, without a model answer,
in plain lines that are never cut (ids and paths copied into show/history/purge)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.catalog.topic_index import NoteRef, TopicEntry, TopicIndex
from memctl.cli.main import app
from memctl.config import DataHome, Settings
from memctl.store import MemoryStore

runner = CliRunner()
NOTES = {"infra": {"ses_lock": ("Terraform state lock", "The DynamoDB lock table was stuck; fixed with force-unlock."),
                   "ses_tls": ("Ingress TLS", "cert-manager renewed the certificate after the issuer fix.")},
         "webapp": {"ses_hooks": ("React hooks loop", "useEffect ran forever: its dependency array was missing.")}}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    data = DataHome(tmp_path / "home")
    store = MemoryStore(data.store)
    topics = {}
    for slug, notes in NOTES.items():
        refs = []
        for sid, (title, body) in notes.items():
            path = f"memory/{slug}/{sid}.md"
            store.write_text(path, f"---\nsource_id: {sid}\ntitle: {title}\n---\n\n# {title}\n\n{body}\n",
                             actor="ingest", reason="test note")
            refs.append(NoteRef(sid, path, title, "2026-11-01", slug))
        topics[slug] = TopicEntry(slug, f"/src/{slug}", f"{slug}: " + "; ".join(t for t, _ in notes.values()), refs)
    TopicIndex(topics).save(data.topic_index)
    return data.root


def _run(*args: str):  # noqa: ANN202
    result = runner.invoke(app, list(args))
    return result


def test_search_is_memory_search_without_a_model(home: Path, fake_chat) -> None:
    from memctl.serve.tools import memory_search
    from memctl.serve.warm import WarmMemory

    result = _run("search", "--json", "--home", str(home), "--topic", "infra", "terraform", "lock")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    expected = memory_search(WarmMemory(Settings(home=home)), "terraform lock", topics=["infra"])
    assert found == expected and found["results"][0]["session_id"] == "ses_lock"
    assert fake_chat.chats() == []
    routed = json.loads(_run("search", "--json", "--home", str(home), "useEffect dependency array").stdout)
    assert routed["route_method"] == "fallback" and fake_chat.chats() == []  # routed without a chat model


def test_search_plain_output_keeps_ids_and_paths_whole_in_a_narrow_pipe(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    result = _run("search", "--home", str(home), "--topic", "infra", "--top-k", "1", "DynamoDB lock table")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. ses_lock  infra  2026-11-01  Terraform state lock")
    assert lines[1].strip() == "memory/infra/ses_lock.md"
    assert any("force-unlock" in line for line in lines[2:])
    assert "topics: infra (override)" in result.stderr


def test_search_unknown_topic_lists_the_known_ones(home: Path) -> None:
    result = _run("search", "--home", str(home), "--topic", "nope", "x")
    assert result.exit_code == 2 and "known topics: infra, webapp" in result.stderr


def test_topics_lists_slugs_counts_and_descriptions(home: Path) -> None:
    result = _run("topics", "--home", str(home))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "infra  2 notes"
    assert "webapp  1 note" in result.stdout.splitlines()
    as_json = json.loads(_run("topics", "--json", "--home", str(home)).stdout)
    assert [t["topic"] for t in as_json["topics"]] == ["infra", "webapp"]


def test_topics_on_an_empty_home_says_ingest_first(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()  # an existing home with nothing ingested (a missing one is refused, exit 7)
    result = _run("topics", "--home", str(tmp_path / "empty"))
    assert result.exit_code == 12 and "memctl ingest" in result.stderr


@pytest.mark.parametrize(("args", "expected"), [
    ((), ["memory/infra/ses_lock.md", "memory/infra/ses_tls.md", "memory/webapp/ses_hooks.md"]),
    (("memory/webapp",), ["memory/webapp/ses_hooks.md"]),
    (("--topic", "infra"), ["memory/infra/ses_lock.md", "memory/infra/ses_tls.md"]),
    (("user",), []),
])
def test_list_prints_one_store_path_per_line(home: Path, args: tuple, expected: list[str]) -> None:
    result = _run("list", "--home", str(home), *args)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == expected
    assert json.loads(_run("list", "--json", "--home", str(home), *args).stdout) == expected


@pytest.mark.parametrize(("args", "code", "message"), [
    (("bogus",), 2, "a prefix starts with memory, user, staging"),
    (("--topic", "nope"), 2, "known topics: infra, webapp"),
])
def test_list_refuses_what_it_cannot_list(home: Path, args: tuple, code: int, message: str) -> None:
    result = _run("list", "--home", str(home), *args)
    assert result.exit_code == code and message in result.stderr


def test_search_with_no_good_match_says_so_and_marks_the_weak_hits(home: Path, fake_chat) -> None:
    # The dense list (fake embeddings) returns every note for any query: none of them is about Kubernetes.
    result = _run("search", "--home", str(home), "kubernetes pod eviction quota")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("no good match: no note holds most of the query's words "
                                    "(eviction, kubernetes, pod, quota)"), result.stderr
    hits = [line for line in result.stdout.splitlines() if line[:1].isdigit()]
    weak = [line for line in result.stdout.splitlines() if line.strip().startswith("(weak:")]
    assert hits and len(weak) == len(hits), result.stdout
    assert all("holds none of the query's words; found by meaning only" in line for line in weak)


def test_search_marks_only_the_hits_that_miss_the_query(home: Path, fake_chat) -> None:
    result = _run("search", "--home", str(home), "DynamoDB lock table")
    assert result.exit_code == 0, result.output
    assert "no good match" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. ses_lock") and not lines[2].strip().startswith("(weak:"), result.stdout
    others = [i for i, line in enumerate(lines) if line[:1].isdigit() and not line.startswith("1. ")]
    assert others and all(lines[i + 2].strip().startswith("(weak:") for i in others), result.stdout


def test_search_names_the_query_words_a_partial_hit_holds(home: Path, fake_chat) -> None:
    result = _run("search", "--home", str(home), "--topic", "infra", "--top-k", "1", "lock kubernetes eviction")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2] == "   (weak: holds 1 of the query's 3 words: lock)", result.stdout
    assert result.stderr.startswith("no good match:"), result.stderr


def test_ask_names_an_unknown_topic_before_it_needs_the_model(home: Path) -> None:
    # No model is reachable here (OLLAMA_HOST is a closed port): the typo is still the error, not Ollama.
    result = _run("ask", "--home", str(home), "--topic", "nope", "why?")
    assert result.exit_code == 2 and "unknown topic nope; known topics: infra, webapp" in result.stderr, result.stderr
