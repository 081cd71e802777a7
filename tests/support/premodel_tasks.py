"""Stand-ins for :func:`memctl.ingest.premodel.prepare` that the pool tests install.

They live in an importable module because the pool's processes are spawned: a task is
sent to them by name. Each wraps the real ``prepare``; which session misbehaves is
chosen by the ``MEMCTL_TEST_*`` environment variables (inherited by spawned processes).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from memctl.connectors.opencode.source import OpenCodeSource, SourceError
from memctl.exit_codes import SOURCE
from memctl.ingest import premodel
from memctl.ingest.premodel import prepare as real_prepare  # bound before a test installs these in its place

FAIL_ON = "MEMCTL_TEST_FAIL_ON"        # session id whose read raises SourceError
CRASH_ON = "MEMCTL_TEST_CRASH_ON"      # session id whose process dies
PID_DIR = "MEMCTL_TEST_PID_DIR"        # each call leaves a file named by its pid here
SLOW_S = "MEMCTL_TEST_SLOW_S"          # each call sleeps this long first


def failing(source: OpenCodeSource, settings, request: premodel.Request) -> premodel.Prepared:
    """``prepare``, but the session named by ``MEMCTL_TEST_FAIL_ON`` raises like an unreadable source."""
    if request.info.id == os.environ.get(FAIL_ON):
        raise SourceError(f"reading {source.db_path} failed while reading session {request.info.id}: disk I/O error",
                          SOURCE)
    return real_prepare(source, settings, request)


def crashing(source: OpenCodeSource, settings, request: premodel.Request) -> premodel.Prepared:
    """``prepare``, but the process preparing ``MEMCTL_TEST_CRASH_ON`` dies at once (as if killed)."""
    if request.info.id == os.environ.get(CRASH_ON):
        os._exit(9)
    return real_prepare(source, settings, request)


def later_first(source: OpenCodeSource, settings, request: premodel.Request) -> premodel.Prepared:
    """``prepare``, slower for sessions created earlier: later sessions finish first."""
    rank = int(request.info.id.split("_")[1][:12], 16)  # synthetic ids count up with creation time
    time.sleep(max(0.0, 0.06 - 0.003 * rank))
    return real_prepare(source, settings, request)


def slow_recording(source: OpenCodeSource, settings, request: premodel.Request) -> premodel.Prepared:
    """``prepare`` after leaving this process's pid in ``MEMCTL_TEST_PID_DIR`` and sleeping ``MEMCTL_TEST_SLOW_S``."""
    Path(os.environ[PID_DIR], str(os.getpid())).touch()
    time.sleep(float(os.environ.get(SLOW_S, "0.2")))
    return real_prepare(source, settings, request)
