"""memctl.cli.process_exit: a command that imported Cognee ends with os._exit after the exit hooks.

Each case runs in a child process whose `cognee` is a stand-in module (the rule keys on its presence),
so the real os._exit path runs: exit code, buffered stdout, atexit handlers, a non-daemon thread's work
and a thread-pool's queued work must all survive it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import atexit, concurrent.futures, sys, threading, time, types
    from pathlib import Path
    out = Path(sys.argv[1])
    if sys.argv[3] == "with-cognee":
        sys.modules["cognee"] = types.ModuleType("cognee")
    atexit.register(lambda: (out / "atexit").write_text("ran"))

    def late():
        time.sleep(0.3)
        (out / "thread").write_text("done")

    threading.Thread(target=late).start()
    pool = concurrent.futures.ThreadPoolExecutor(1)
    pool.submit(lambda: (time.sleep(0.3), (out / "pool").write_text("done")))
    sys.stdout.write("partial line without newline")  # block-buffered on a pipe: must be flushed
    code = sys.argv[2]
    from memctl.cli.process_exit import exit_code_of, exit_now, should_exit_now
    try:
        raise SystemExit(None if code == "none" else int(code) if code.lstrip("-").isdigit() else code)
    except SystemExit as exc:
        if should_exit_now():
            exit_now(exit_code_of(exc.code))
        raise
""")


@pytest.mark.parametrize("code, expected", [("0", 0), ("none", 0), ("3", 3), ("9", 9),
                                            ("a message", 1)])
@pytest.mark.parametrize("mode", ["with-cognee", "without"])
def test_exit_keeps_code_output_hooks_and_thread_work(tmp_path: Path, code: str, expected: int, mode: str) -> None:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), code, mode], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == expected, proc.stderr
    assert proc.stdout == "partial line without newline"
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "thread").read_text() == "done"
    assert (tmp_path / "pool").read_text() == "done"
    if code == "a message":
        assert "a message" in proc.stderr


def test_the_fast_path_is_taken_only_after_cognee_was_imported() -> None:
    probe = ("import sys, types; from memctl.cli.process_exit import should_exit_now; a = should_exit_now(); "
             "sys.modules['cognee'] = types.ModuleType('cognee'); print(a, should_exit_now())")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "True"], proc.stderr
