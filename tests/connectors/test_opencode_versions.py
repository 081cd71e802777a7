"""The OpenCode connector over real databases of every supported release.

Fixtures (tests/fixtures/README.md): ``opencode-1.2`` (1.2.1), ``opencode-1.14``
(1.14.48), ``opencode-1.18`` (1.18.34) and ``opencode-dev``
(0.0.0-dev-202609212252: sessions through ``opencode run`` in message/part and
through the HTTP API in ``session_message``), all written by the real binaries
driven by the same scripted conversations (tests/fakes/opencode_script.py).
Every test opens COPIES (in a temp dir); the last test proves the originals
were not touched.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from memctl.config import Settings
from memctl.connectors.opencode.schema import LayoutReport
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.ingest.transcript import Transcript, build_transcript
from tests.fixtures.make_opencode_fixture import SMALL_SET

FIXTURES_DIR = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURES = ("opencode-1.2", "opencode-1.14", "opencode-1.18", "opencode-dev")
PLANTED = json.loads((FIXTURES_DIR / "opencode-1.18" / "planted_secrets.json").read_text())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _db_files(name: str) -> list[Path]:
    return sorted(p for p in (FIXTURES_DIR / name).iterdir() if ".db" in p.name)


ORIGINAL_HASHES = {str(p): _sha(p) for name in FIXTURES for p in _db_files(name)}


def manifest(name: str) -> dict[str, dict[str, Any]]:
    return json.loads((FIXTURES_DIR / name / "sessions.json").read_text())["sessions"]


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Fixture name -> a temp directory holding a copy of its database file(s)."""
    out = {}
    for name in FIXTURES:
        target = tmp_path_factory.mktemp(name)
        for path in _db_files(name):
            shutil.copy2(path, target / path.name)
        out[name] = target
    return out


@lru_cache(maxsize=None)
def _read(directory: Path) -> tuple[LayoutReport, dict[str, Transcript], dict[str, Any]]:
    """Layout report, transcripts by root session id, and the reader's stats for one copy."""
    source = OpenCodeSource(directory)  # the directory: --db finds opencode.db / opencode-dev.db
    try:
        report = source.check_schema()
        transcripts = {s.info.id: build_transcript(s, Settings()) for s in source.iter_sessions()}
        return report, transcripts, source.stats
    finally:
        source.close()


def transcripts_by_scenario(copies: dict[str, Path], name: str) -> dict[str, Transcript]:
    _, transcripts, _ = _read(copies[name])
    return {scenario: transcripts[info["session_id"]] for scenario, info in manifest(name).items()
            if info["session_id"] in transcripts}


# --------------------------------------------------------------------------- layouts


@pytest.mark.parametrize(("name", "generation", "layouts", "by_layout"), [
    ("opencode-1.2", "1.2", ("message-part",), {"message-part": 7, "none": 0}),
    ("opencode-1.14", "1.14", ("message-part",), {"message-part": 7, "session-message": 0, "none": 0}),
    ("opencode-1.18", "1.18", ("message-part",), {"message-part": 11, "session-message": 0, "none": 0}),
    ("opencode-dev", "1.18", ("message-part", "session-message"),
     {"message-part": 4, "session-message": 3, "none": 0}),
])
def test_layouts_are_detected(copies, name, generation, layouts, by_layout) -> None:
    report, transcripts, stats = _read(copies[name])
    assert (report.generation, report.layouts, report.sessions_by_layout) == (generation, layouts, by_layout)
    roots = [s for s in manifest(name).values() if not s["parent_id"]]
    assert sorted(transcripts) == sorted(s["session_id"] for s in roots)  # every root once, none twice
    assert stats.skipped_rows == 0, stats.warnings


def _connect(directory: Path) -> sqlite3.Connection:
    db = next(p for p in directory.iterdir() if p.name.endswith(".db"))
    return sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) if not Path(f"{db}-wal").exists() \
        else sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}


def test_release_1_2_shapes(copies) -> None:
    """1.2.1: no event table; a slimmer session table; whole file texts in summary.diffs."""
    conn = _connect(copies["opencode-1.2"])
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "event" not in tables and "session_message" not in tables and "project_directory" not in tables
        assert not {"workspace_id", "path", "metadata", "cost", "tokens_input", "agent", "model"} & _columns(conn, "session")
        assert _columns(conn, "permission") == {"project_id", "time_created", "time_updated", "data"}
        users = [json.loads(d) for (d,) in conn.execute("SELECT data FROM message")]
        diffs = [d for m in users if m["role"] == "user" for d in m.get("summary", {}).get("diffs", [])]
        assert any({"before", "after"} <= d.keys() for d in diffs)
        tools = {p["tool"]: p["state"] for (d,) in conn.execute("SELECT data FROM part")
                 if (p := json.loads(d))["type"] == "tool"}
        assert "description" in tools["bash"]["metadata"] and "display" not in tools["read"]["metadata"]
        assert "parentSessionId" not in tools["task"]["metadata"]
        # 1.2.1 stores the stdin prompt behind a newline
        assert json.loads(conn.execute("SELECT data FROM part ORDER BY id LIMIT 1").fetchone()[0])["text"] == "\nhi"
    finally:
        conn.close()


def test_release_1_14_shapes(copies) -> None:
    """1.14.48: an empty event table; session_message without seq, lifecycle rows only."""
    conn = _connect(copies["opencode-1.14"])
    try:
        assert conn.execute("SELECT count(*) FROM event").fetchone()[0] == 0
        assert "seq" not in _columns(conn, "session_message")
        types = {r[0] for r in conn.execute("SELECT DISTINCT type FROM session_message")}
        assert types == {"agent-switched", "model-switched"}
    finally:
        conn.close()


def test_dev_build_holds_both_layouts(copies) -> None:
    conn = _connect(copies["opencode-dev"])
    try:
        assert "seq" in _columns(conn, "session_message")
        for scenario, info in manifest("opencode-dev").items():
            sid = info["session_id"]
            messages = conn.execute("SELECT count(*) FROM message WHERE session_id = ?", (sid,)).fetchone()[0]
            rows = conn.execute("SELECT count(*) FROM session_message WHERE session_id = ?", (sid,)).fetchone()[0]
            if info["driven_by"] == "http-api":
                assert (messages, rows > 0) == (0, True), scenario
            else:
                assert (messages > 0, rows) == (True, 0), scenario
        types = {r[0] for r in conn.execute("SELECT DISTINCT type FROM session_message")}
        assert types == {"user", "assistant"}
    finally:
        conn.close()


# --------------------------------------------------------------------------- equivalence


def conversation(transcript: Transcript) -> list[tuple[str, ...]]:
    """The conversation a transcript shows, without what legitimately differs by version.

    Kept, in order: user text, assistant text and reasoning (first line of
    each entry), each tool call as (name, status), and subagent section
    boundaries. Left out: the header (ids, times, the title -- the HTTP API
    does not generate one), tool inputs and outputs (1.2 – 1.18 take
    ``filePath``, the HTTP API's tools ``path``; outputs are formatted per
    version, e.g. bash adds ``Command exited with code 0.`` in the new
    layout), changed-file lists (absolute paths vs. relative ones) and
    attachment lines.
    """
    out: list[tuple[str, ...]] = []
    for line in transcript.text.splitlines():
        for label, kind in (("**User:** ", "user"), ("**Assistant:** ", "assistant"),
                            ("**Reasoning (hint):** ", "reasoning")):
            if line.startswith(label):
                out.append((kind, line[len(label):].strip()))
        if line.startswith("**Tool `"):
            name, _, rest = line[len("**Tool `"):].partition("`** — ")
            out.append(("tool", name, rest.split(" — ")[0]))
        elif line.startswith("### Subagent session "):
            out.append(("subagent",))
        elif line.startswith("### End of subagent session "):
            out.append(("end of subagent",))
    return out


@pytest.mark.parametrize("scenario", [s for s in SMALL_SET if s != "subagent_child"])
def test_the_same_conversation_reads_the_same_in_every_version(copies, scenario) -> None:
    """Transcripts of one scripted conversation are equivalent (see :func:`conversation`)
    across 1.2.1, 1.14.48, 1.18.34 and the dev build (for junk_ping, tools_fix_add and
    secrets: its HTTP-API session in the session_message layout); so are the
    substance verdict and the tool and subagent counts."""
    reference = transcripts_by_scenario(copies, "opencode-1.18")[scenario]
    expected = conversation(reference)
    assert len(expected) >= 2
    for name in ("opencode-1.2", "opencode-1.14", "opencode-dev"):
        transcript = transcripts_by_scenario(copies, name)[scenario]
        assert conversation(transcript) == expected, name
        assert (transcript.skip_reason is None) == (reference.skip_reason is None), name
        assert transcript.tool_calls == reference.tool_calls, name
        assert len(transcript.child_session_ids) == len(reference.child_session_ids), name


def test_equivalence_covers_the_new_layout(copies) -> None:
    """The dev fixture's tool-using and secrets sessions are the HTTP-API (session_message) ones."""
    info = manifest("opencode-dev")
    assert {n for n, i in info.items() if i["driven_by"] == "http-api"} == {"junk_ping", "tools_fix_add", "secrets"}
    fix = conversation(transcripts_by_scenario(copies, "opencode-dev")["tools_fix_add"])
    assert [c[1:] for c in fix if c[0] == "tool"] == [
        ("read", "completed"), ("grep", "completed"), ("edit", "error"), ("edit", "completed"),
        ("bash", "completed"), ("write", "completed"), ("bash", "completed")]


@pytest.mark.parametrize("name", FIXTURES)
def test_planted_secrets_are_scrubbed_in_every_version(copies, name) -> None:
    transcripts = transcripts_by_scenario(copies, name)
    secrets = transcripts["secrets"]
    assert sum(secrets.redactions.values()) >= 8
    for transcript in transcripts.values():
        for planted in PLANTED:
            for probe in [planted["value"]] if "\n" not in planted["value"] else planted["value"].splitlines()[1:2]:
                assert probe not in transcript.text, (name, planted["kind"])


def test_originals_untouched() -> None:
    assert {str(p): _sha(p) for name in FIXTURES for p in _db_files(name)} == ORIGINAL_HASHES
