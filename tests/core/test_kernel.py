"""The shared kernel: front matter, durations, the data-home lock, the Reporter protocol."""

from __future__ import annotations

import io
import os
import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memctl.config import DataHome
from memctl.durations import DurationError, parse_duration, parse_since
from memctl.exit_codes import HOME, LOCKED, ExitCodeError, HomeBusyError, HomeError
from memctl.front_matter import (
    FrontMatterError,
    read_front_matter,
    render_front_matter,
    split_front_matter,
    strip_front_matter,
)
from tests.support.memctl_process import hold_lock

# -- front matter ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("meta", "body", "blank_line", "expected"), [
    ({"a": 1, "b": "x"}, "Body.\n", True, "---\na: 1\nb: x\n---\n\nBody.\n"),
    ({"kind": "note", "topic": None}, "  Use pnpm.  ", False, "---\nkind: note\ntopic: null\n---\nUse pnpm.\n"),
    ({"z": 1, "a": 2}, "b", False, "---\nz: 1\na: 2\n---\nb\n"),  # key order kept: bytes are stable
    ({"title": "Ünïcode: \"quoted\" — " + "long " * 40}, "b", False, None),
])
def test_render_then_read_round_trips(meta: dict, body: str, blank_line: bool, expected: str | None) -> None:
    text = render_front_matter(meta, body, blank_line=blank_line)
    if expected is not None:
        assert text == expected
    assert read_front_matter(text) == meta
    assert strip_front_matter(text) == body.strip() + "\n"
    assert "\n  " not in text.split("---\n")[1]  # never wrapped, however long a value is


@pytest.mark.parametrize(("text", "meta", "body"), [
    ("no front matter", {}, "no front matter"),
    ("---\nonly an opening\n", {}, "---\nonly an opening\n"),
    ("---\n: [broken\n---\nbody", {}, "body"),
    ("---\n- a list\n---\nbody", {}, "body"),
    ("---\nk: v\n---\n\n\nbody\n---\nnot a header\n", {"k": "v"}, "body\n---\nnot a header\n"),
])
def test_reading_is_lenient_and_stripping_never_parses(text: str, meta: dict, body: str) -> None:
    assert read_front_matter(text) == meta
    assert strip_front_matter(text) == body


@pytest.mark.parametrize(("text", "message"), [
    ("plain", "no front matter"), ("---\nk: v\n", "not closed"), ("---\n: [x\n---\nb", "unreadable"),
    ("---\n- 1\n---\nb", "not a mapping"),
])
def test_split_is_strict(text: str, message: str) -> None:
    with pytest.raises(FrontMatterError, match=message):
        split_front_matter(text)


# -- durations ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "seconds"), [("90m", 5400), ("6h", 21600), ("1d", 86400), ("30min", 1800),
                                               (" 2H ", 7200), ("7D", 604800), ("0m", 0)])
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "6", "6x", "1.5h", "-1h", "h", "6 hours", "1w"])
def test_parse_duration_refuses_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(DurationError, match="use minutes, hours or days such as 90m, 6h or 1d") as info:
        parse_duration(text)
    assert info.value.exit_code == 2 and isinstance(info.value, ValueError)


def test_parse_since_ages_dates_and_offsets() -> None:
    now = 1_800_000_000.0
    assert parse_since("7d", now=now) == datetime.fromtimestamp(now - 7 * 86400, tz=timezone.utc)
    assert parse_since("12h", now=now) == datetime.fromtimestamp(now - 12 * 3600, tz=timezone.utc)
    assert parse_since("2026-11-01") == datetime(2026, 11, 1, tzinfo=timezone.utc)
    assert parse_since("2026-11-01T08:00+02:00") == datetime(2026, 11, 1, 6, tzinfo=timezone.utc)
    recent = parse_since("30m")
    assert timedelta(minutes=29) < datetime.now(timezone.utc) - recent < timedelta(minutes=31)


@pytest.mark.parametrize(("text", "message"), [("last tuesday", "cannot read --since 'last tuesday'"),
                                               ("99999999999999d", "reaches before the year 1"),
                                               ("2026-13-01", "cannot read --since")])
def test_parse_since_refuses(text: str, message: str) -> None:
    with pytest.raises(DurationError, match=message):
        parse_since(text)


# -- the data-home lock --------------------------------------------------------------------------------


def test_the_lock_creates_the_home_and_excludes_a_second_run(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "new" / "var")
    with home.lock(wait=False):
        assert home.root.is_dir() and home.lock_file.exists()
    holder = hold_lock(home.lock_file, 1.5)
    try:
        with pytest.raises(HomeBusyError, match="ingest or sleep.*pass --wait") as busy:
            with home.lock(wait=False):
                pass
        assert busy.value.exit_code == LOCKED
        with pytest.raises(HomeBusyError) as quiet:
            with home.lock(wait=False, offer_wait=False):
                pass
        assert "--wait" not in str(quiet.value)
        started = time.monotonic()
        with home.lock(wait=True):  # blocks until the holder exits
            assert time.monotonic() - started >= 0.5
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_raises_the_callers_error_type(tmp_path: Path) -> None:
    class RunError(ExitCodeError):
        pass

    a_file = tmp_path / "var"
    a_file.write_text("not a directory")
    with pytest.raises(HomeError, match="is a file"):
        with DataHome(a_file).lock(wait=False):
            pass
    with pytest.raises(RunError, match="is a file") as info:
        with DataHome(a_file).lock(wait=False, error=RunError):
            pass
    assert info.value.exit_code == HOME


def test_every_state_path_lives_in_the_home(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    paths = [getattr(home, name) for name in ("progress", "skipped", "topics", "transcripts", "distilled", "cognee",
                                              "store", "topic_index", "note_index", "sleep_state",
                                              "consolidate_cache", "reports", "logs", "lock_file")]
    assert len(set(paths)) == len(paths) and all(p.is_relative_to(home.root) for p in paths)
    assert home.progress.name == "progress.json" and home.topics.name == "topics.json"  # the data-home format


# -- reporters -------------------------------------------------------------------------------------------


def test_every_reporter_follows_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    from memctl.cli.progress import LineReporter, RichReporter, reporter_for
    from memctl.reporting import Reporter, SilentReporter

    for reporter in (LineReporter(min_interval_s=0), SilentReporter(), RichReporter(Console(file=io.StringIO()))):
        assert all(callable(getattr(reporter, m)) for m in Reporter.__dict__ if not m.startswith("_"))
        reporter.phase("distill", 40)
        reporter.advance(2)
        reporter.log("note")
        reporter.done()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "memctl: phase distill started (40 items)"
    assert re.fullmatch(r"memctl: distill 2/40 \([\d,]+/h, ETA \d+:\d\d:\d\d\)", lines[1]), lines[1]
    with pytest.raises(RuntimeError), reporter_for(Console(file=io.StringIO()), as_json=True) as used:
        assert isinstance(used, LineReporter)
        raise RuntimeError("the run failed")  # the reporter is still closed on the way out


@pytest.mark.parametrize(("total", "advances", "expected"), [
    (100, [1] + [5] * 19 + [4], [6, 11, 16, 21, 26, 31, 36, 41, 46, 51, 56, 61, 66, 71, 76, 81, 86, 91, 96, 100]),
    (7, [3, 3, 1], [3, 6, 7]),                # a step of 1: every advance is a line
    (40, [0, 0, 2], [2]),                     # an advance of nothing prints nothing
    (60, [7, 7], [7, 14]),                    # each advance passes a step (3): a line each
    (60, [1, 1, 1, 1], [3]),                  # ...and one that reaches no new step, none
    (5, [5, 0], [5]),                         # the end is printed once
])
def test_line_reporter_prints_each_step_passed_even_in_one_jump(capsys: pytest.CaptureFixture[str], total: int,
                                                              advances: list[int], expected: list[int]) -> None:
    from memctl.cli.progress import LineReporter

    reporter = LineReporter(min_interval_s=0)
    reporter.phase("cognify", total)
    for n in advances:
        reporter.advance(n)
    lines = capsys.readouterr().err.splitlines()[1:]
    assert [int(line.split()[2].split("/")[0]) for line in lines] == expected
    assert all(f"/{total} (" in line and "/h" in line for line in lines)
    assert ("ETA" in lines[-1]) is (expected[-1] < total)


def test_line_reporter_in_a_pipe_prints_no_line_per_item_of_a_short_phase(capsys: pytest.CaptureFixture[str]) -> None:
    from memctl.cli.progress import LineReporter

    now = [100.0]
    reporter = LineReporter(min_interval_s=2.0, clock=lambda: now[0])
    reporter.phase("plan", 10)
    for _ in range(9):
        now[0] += 0.01
        reporter.advance()
    now[0] += 3.0  # a slow item: the next step passed prints again
    reporter.advance()
    reporter.phase("cognify", 40)
    for _ in range(40):
        now[0] += 0.5
        reporter.advance()
    lines = capsys.readouterr().err.splitlines()
    plan = [line for line in lines if " plan " in line or "phase plan" in line]
    assert [line.split()[2] if "/" in line else "start" for line in plan] == ["start", "10/10"]
    cognify = [line.split()[2] for line in lines if line.startswith("memctl: cognify ")]
    assert cognify == ["4/40", "8/40", "12/40", "16/40", "20/40", "24/40", "28/40", "32/40", "36/40", "40/40"]


@pytest.mark.parametrize("variable", ["MEMCTL_HOME", "OLLAMA_HOST", "MEMCTL_WORKERS"])
def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str) -> None:
    from memctl.config import Settings

    monkeypatch.setenv("MEMCTL_CONFIG", str(tmp_path / "absent.toml"))
    for name in ("MEMCTL_HOME", "OLLAMA_HOST", "MEMCTL_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    defaults = Settings()
    monkeypatch.setenv(variable, "")
    settings = Settings()
    assert (settings.home, settings.ollama_host, settings.workers) == (defaults.home, defaults.ollama_host,
                                                                       defaults.workers)
    assert settings.home == Path(os.environ["XDG_DATA_HOME"]) / "memctl"  # the per-user default, never "."
