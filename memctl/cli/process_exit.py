"""Leave the process as soon as a command is done, without the interpreter's slow teardown.

A command that imported Cognee has loaded ~6,000 modules (litellm, openai,
pydantic models, LanceDB, Kuzu bindings). Python's finalization then
garbage-collects and clears every module one by one: 3-6 s measured after
`memctl sleep` and `memctl ingest` had printed their result and Cognee's
workers had closed (strace: the process idles in teardown after the last
atexit handler). Nothing in memctl needs that teardown: every file it writes
is closed, fsynced and renamed before the command returns, SQLite commits are
durable when made, and Cognee's stores live in worker processes that
:func:`memctl.graph.configure.close` shuts down from an ``atexit`` handler.

So :func:`exit_now` does what ``Py_FinalizeEx`` does first — join the
non-daemon threads and run the ``threading`` exit hooks (``concurrent.futures``
executors), then every ``atexit`` handler (Cognee's worker reaper, ours,
``logging.shutdown``, multiprocessing's child clean-up) — flushes stdout and
stderr, and ends the process with ``os._exit`` and the command's exit code.
Only after Cognee was imported: a process without it exits normally.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from memctl.exit_codes import FAILED_ITEMS, OK

__all__ = ["exit_code_of", "exit_now", "should_exit_now"]


def should_exit_now() -> bool:
    """Whether the slow teardown is worth skipping: Cognee (and its dependency tree) was imported."""
    return "cognee" in sys.modules


def exit_code_of(code: object) -> int:
    """The process exit status ``SystemExit(code)`` would give: None → 0, an int as is, anything else
    printed to stderr and 1 (CPython's ``handle_system_exit`` rule)."""
    if code is None:
        return OK
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return FAILED_ITEMS  # the same status 1 CPython gives a non-integer SystemExit


def exit_now(code: int) -> None:
    """Finish the process with ``code`` after the exit hooks Python would run; never returns.

    Must be called from the main thread with nothing left to do. Threads still running are joined
    first (as at a normal exit), so their work is not cut short.
    """
    shutdown_threads = getattr(threading, "_shutdown", None)  # CPython: what Py_FinalizeEx calls first
    if shutdown_threads is not None:
        shutdown_threads()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`memctl ... | head`): nothing more to say
            pass
    os._exit(code)
