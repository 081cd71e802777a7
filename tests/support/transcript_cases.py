"""Varied sessions whose transcripts must stay byte for byte what they were (tests/ingest/test_transcript_golden.py).

The cases: every root session of the real OpenCode fixtures (1.2, 1.14, 1.18, dev build),
synthetic 1.18 sessions of several sizes and seeds, and sessions carrying the scrub
corpus's planted secrets and near-misses at every position the corpus knows (short
fields, and fields far past their bound so that scrubbing works on windows and
sampling drops the middle). Each under the default bounds and under tight ones.

``python -m tests.support.transcript_cases OUT.json`` writes the digests of the current
implementation; ``tests/fixtures/transcript_golden.json`` was written by the
implementation before the pre-model stage was made faster (commit 4b5d852).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from memctl.config import Settings
from memctl.connectors.model import Part, Session, SessionInfo
from memctl.connectors.opencode.source import OpenCodeSource
from memctl.ingest.transcript import Transcript, build_transcript
from tests.fixtures.synthetic_opencode import BASE_MS, add_project, add_session, create_schema
from tests.support.scrub_corpus import ALL_SECRETS, NEAR_MISSES, POSITIONS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLDEN = FIXTURES / "transcript_golden.json"
REAL_DATABASES = ("opencode-1.2", "opencode-1.14", "opencode-1.18", "opencode-dev")

SETTINGS = {
    "default": Settings(),
    # Bounds near their minimums: every kind of field is cut, long fields are scrubbed in
    # windows, and whole sessions are sampled head + tail.
    "tight": Settings(max_text_chars=300, max_reasoning_chars=100, max_tool_input_chars=200,
                      max_tool_output_chars=250, transcript_budget_chars=2000, head_fraction=0.3,
                      min_user_chars=40, min_substance_chars=400),
}


def _roots(db: Path, label: str) -> Iterator[tuple[str, Session]]:
    source = OpenCodeSource(db)
    source.check_schema()
    try:
        for info in source.iter_root_infos():
            yield f"{label}/{info.id}", source.read_session(info)
    finally:
        source.close()


def _real_sessions() -> Iterator[tuple[str, Session]]:
    for name in REAL_DATABASES:
        folder = FIXTURES / name
        db = next(p for p in sorted(folder.iterdir()) if p.suffix == ".db")
        with tempfile.TemporaryDirectory() as tmp:
            # Files copied, never opened in place: a plain SQLite open of a WAL database without its
            # -wal would create -wal/-shm beside the shared fixture.
            for path in folder.iterdir():
                if path.name.startswith(db.name):
                    shutil.copy2(path, Path(tmp) / path.name)
            yield from _roots(Path(tmp) / db.name, name)


def _synthetic_sessions() -> Iterator[tuple[str, Session]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "opencode.db"
        conn = sqlite3.connect(db)
        create_schema(conn)
        add_project(conn, "prj_synthetic", "/home/dev/src/synthetic")
        shapes = [(1, 0, 1500), (2, 1, 200), (3, 3, 1500), (4, 12, 1500), (5, 12, 40_000), (6, 30, 6000)]
        for n, turns, output in shapes:
            add_session(conn, n, rng=random.Random(n), turns=turns, tool_output_chars=output)
        # A subagent session under session 4, started by nothing (placed by time).
        add_session(conn, 50, rng=random.Random(50), parent_id="ses_000000000004synthetic0004", turns=2)
        conn.commit()
        conn.close()
        yield from _roots(db, "synthetic")


def _part(n: int, role: str, data: dict, t: int) -> Part:
    return Part(id=f"prt_{n:08d}", message_id=f"msg_{n // 4:08d}", role=role, type=data["type"], data=data,
                time_created=t)


def _placed(position: str, snippet: str, n: int, t: int, pad: int) -> list[Part]:
    """``snippet`` where ``position`` puts it, with ``pad`` chars of filler around it (0: none)."""
    filler = ("Filler line of an ordinary session. " * (pad // 36 + 1))[:pad]
    placed = POSITIONS[position](snippet)
    body = f"{filler}\n{placed}\n{filler}" if pad else placed
    if position in ("user_text",):
        return [_part(n, "user", {"type": "text", "text": body}, t)]
    if position in ("assistant_text", "title", "patch", "escaped_json", "base64url"):
        return [_part(n, "assistant", {"type": "text", "text": body}, t)]
    if position == "reasoning":
        return [_part(n, "assistant", {"type": "reasoning", "text": body}, t)]
    if position.startswith("tool_input"):
        return [_part(n, "assistant", {"type": "tool", "tool": "bash", "state": {
            "status": "completed", "input": json.loads(placed) if not pad else {"command": body},
            "output": "ok", "title": "run"}}, t)]
    if position == "error_message":
        return [_part(n, "assistant", {"type": "tool", "tool": "bash", "state": {
            "status": "error", "input": {"command": "make"}, "error": body, "title": "make"}}, t)]
    return [_part(n, "assistant", {"type": "tool", "tool": "read", "state": {
        "status": "completed", "input": {"filePath": "/home/dev/app/.env"}, "output": body, "title": ".env"}}, t)]


def _corpus_sessions() -> Iterator[tuple[str, Session]]:
    snippets = [p.snippet for p in ALL_SECRETS] + [m.snippet for m in NEAR_MISSES]
    positions = sorted(POSITIONS)
    per_session = 12
    for index in range(0, len(snippets), per_session):
        group = snippets[index:index + per_session]
        parts: list[Part] = [_part(0, "user", {"type": "text", "text": "Please fix the deploy configuration."}, BASE_MS)]
        for k, snippet in enumerate(group):
            position = positions[(index + k) % len(positions)]
            pad = (0, 50, 3000, 9000)[(index + k) % 4]  # short fields, and fields far past their bounds
            parts.extend(_placed(position, snippet, len(parts), BASE_MS + 1000 * len(parts), pad))
        title = POSITIONS["title"](group[0]) if index % 2 == 0 else f"New session - 2026-01-0{1 + index % 9}T10:00:00.000Z"
        info = SessionInfo(id=f"ses_corpus{index:04d}", title=title, directory="/home/dev/app",
                           project_id="prj_app", project_worktree="/home/dev/app", parent_id=None,
                           time_created=BASE_MS, time_updated=BASE_MS + 10**6, version="1.18.34",
                           title_is_placeholder=index % 2 == 1)
        yield f"corpus/{index:04d}", Session(info=info, parts=parts)
    # Windowed scrubbing with a private key block starting in the cut middle of a long output.
    key = next(p.snippet for p in ALL_SECRETS if "PRIVATE KEY-----" in p.snippet)
    long_output = ("x" * 12000) + "\n" + key + "\n" + ("y " * 9000)
    info = SessionInfo(id="ses_corpus_key", title="key", directory="/d", project_id="global", project_worktree="/",
                       parent_id=None, time_created=BASE_MS, time_updated=BASE_MS, version="1.18.34")
    parts = [_part(1, "assistant", {"type": "tool", "tool": "read", "state": {
        "status": "completed", "input": {"filePath": "/d/id_rsa"}, "output": long_output, "title": "id_rsa"}}, BASE_MS)]
    yield "corpus/key_in_cut_middle", Session(info=replace(info), parts=parts)


def cases() -> Iterator[tuple[str, Session]]:
    """``(name, root session)`` for every case, in a fixed order."""
    yield from _real_sessions()
    yield from _synthetic_sessions()
    yield from _corpus_sessions()


def digest(transcript: Transcript) -> dict:
    """Everything a transcript carries, the text by its SHA-256 (and length, to read a failure)."""
    return {
        "sha256": transcript.sha256, "chars": len(transcript.text), "entries": transcript.entries,
        "omitted_entries": transcript.omitted_entries, "omitted_chars": transcript.omitted_chars,
        "dropped_lifecycle": transcript.dropped_lifecycle, "truncated": transcript.truncated,
        "redactions": transcript.redactions, "user_chars": transcript.user_chars,
        "substance_chars": transcript.substance_chars, "tool_calls": transcript.tool_calls,
        "estimated_tokens": transcript.estimated_tokens, "skip_reason": transcript.skip_reason,
        "child_session_ids": transcript.child_session_ids, "unknown_parts": transcript.unknown_parts,
        "title": transcript.title, "original_title": transcript.original_title,
        "compacted_outputs": transcript.compacted_outputs, "read_warnings": transcript.read_warnings,
    }


def digests() -> dict[str, dict]:
    """``"<settings>:<case>" -> digest`` for every case under every settings."""
    out: dict[str, dict] = {}
    for name, session in cases():
        for label, settings in SETTINGS.items():
            out[f"{label}:{name}"] = digest(build_transcript(session, settings))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
