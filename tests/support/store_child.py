"""Child process for the store's crash tests: perform ONE mutation and die at a named step.

    python -m tests.support.store_child ROOT OP PATH STEP [ARG]

OP is write (ARG = content), delete, or rollback (ARG = version id). STEP is
one of memctl.store.steps.STEPS, or ``before_rename`` (the new file's temp
file is written and fsynced, the rename has not happened). The process
SIGKILLs itself there, as an OOM kill or power cut would, so no ``finally``
or atexit handler runs. Exit 3 means the step was never reached.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from memctl.store import MemoryStore, steps


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> int:
    root, op, path, step = sys.argv[1:5]
    arg = sys.argv[5] if len(sys.argv) > 5 else None
    store = MemoryStore(Path(root))
    target_name = Path(path).name
    if step == "before_rename":
        real_replace = os.replace

        def replace(src, dst, *a, **kw):  # noqa: ANN001 - mirrors os.replace
            if Path(dst).name == target_name and Path(src).name.startswith(".memctl-"):
                _die()
            return real_replace(src, dst, *a, **kw)

        os.replace = replace
    else:
        steps.reached = lambda name: _die() if name == step else None
    actor = "sleep"
    if op == "write":
        store.write_text(path, arg or "", actor=actor, reason="crash test write")
    elif op == "delete":
        store.delete(path, expected_sha=None, actor=actor, reason="crash test delete")
    elif op == "rollback":
        store.rollback(path, arg or "", actor=actor, reason="crash test rollback")
    return 3


if __name__ == "__main__":
    sys.exit(main())
