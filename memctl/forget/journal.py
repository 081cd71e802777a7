"""The intent journal: a forget or purge records what it will do before it changes anything.

File: ``<home>/forget-journal.json``, written atomically (temp file, fsync, rename)::

    {"format": 1, "command": "forget"|"purge-session"|"purge-text", "key": "<what>",
     "label": "memctl purge --session ses_1", "plan": {…}, "done": ["store", …], "totals": {…}, "started": ISO-8601}

``key`` names the target (the store path, the session id, or for ``purge-text`` a salted scrypt
of the sorted values, :func:`memctl.forget.plan.values_key`: the journal never holds a value nor
an unsalted digest of one; the same command given the same values recognises it). Every step of an operation is idempotent;
the journal lists those finished. A run killed at any point leaves the journal behind: the next
run of the same command (same key) resumes it from its plan and finishes it; any other forget or
purge is refused until then (exit 2), because its plan could not see the half-done state. The
journal is deleted when the operation is complete. The caller holds the data-home lock.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from memctl.config import DataHome
from memctl.exit_codes import USAGE
from memctl.forget.errors import ForgetError
from memctl.state_file import StateFileError, StateModel, read_state, write_state

FORMAT = 1


def journal_path(home: DataHome) -> Path:
    """Where the journal of ``home`` lives."""
    return home.root / "forget-journal.json"


def reached(step: str) -> None:
    """Hook called after each durable step (``<command>:<step>``). No-op in production; a crash
    test replaces it inside a child process to SIGKILL the run at exactly that point."""


class JournalFile(StateModel):
    """The journal's shape as read: ``format``, ``done`` (steps finished) and whatever the command recorded
    (kept as written: ``command``, ``key``, ``plan``, ``totals``…)."""

    format: object = None
    done: list[Any]


class Journal:
    """The journal of one run (see the module doc)."""

    def __init__(self, home: DataHome) -> None:
        self.path = journal_path(home)
        self.data: dict[str, Any] | None = None

    def pending(self) -> dict[str, Any] | None:
        """The journal an earlier, killed run left, or None.

        Raises:
            StateFileError: the file is damaged or not a journal (exit 7); the message names it and says how to proceed.
        """
        state = read_state(self.path, JournalFile, problem="is unreadable",
                           fix="it was written atomically, so this is outside damage: move it aside and run the "
                               "forget or purge again")
        if state is None:
            return None
        if state.format != FORMAT:
            raise StateFileError(f"{self.path} is not a memctl forget journal; move it aside and run again",
                                 path=self.path)
        return state.model_dump()

    def begin(self, command: str, key: str, label: str, plan: dict[str, Any],
              matches: Callable[[object], bool] | None = None) -> tuple[dict[str, Any], bool]:
        """Start (or resume) ``command`` on ``key``; returns ``(plan, resumed)``: a resumed run
        continues the recorded plan, not ``plan``. ``matches`` decides whether a pending journal's
        key names the same target (default: equal to ``key``; a salted key needs its own test).

        Raises:
            ForgetError: another command's journal is pending (exit 2), naming it.
        """
        pending = self.pending()
        if pending is not None:
            same = matches(pending.get("key")) if matches is not None else pending.get("key") == key
            if pending.get("command") != command or not same:
                raise ForgetError(f"an interrupted `{pending.get('label')}` has not finished; run it again first "
                                  "(it resumes where it stopped)", USAGE)
            self.data = pending
            return dict(pending.get("plan") or {}), True
        self.data = {"format": FORMAT, "command": command, "key": key, "label": label, "plan": plan, "done": [],
                     "started": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        self._save()
        reached(f"{command}:journal")
        return plan, False

    def is_done(self, step: str) -> bool:
        """True when ``step`` finished in this run or the one it resumes."""
        return self.data is not None and step in self.data["done"]

    def done(self, step: str, totals: dict[str, Any] | None = None) -> None:
        """Record ``step`` as finished (atomically) with the run's ``totals`` so far (what its
        ``--json`` reports: a resumed run reports the whole operation, :meth:`totals`), then call
        the crash hook."""
        assert self.data is not None, "begin() first"
        changed = step not in self.data["done"] or (totals is not None and totals != self.data.get("totals"))
        if step not in self.data["done"]:
            self.data["done"].append(step)
        if totals is not None:
            self.data["totals"] = totals
        if changed:
            self._save()
        reached(f"{self.data['command']}:{step}")

    def totals(self) -> dict[str, Any]:
        """The totals the last finished step recorded (empty for a new run)."""
        return dict((self.data or {}).get("totals") or {})

    def finish(self) -> None:
        """The operation is complete: delete the journal."""
        self.path.unlink(missing_ok=True)
        self.data = None

    def _save(self) -> None:
        write_state(self.path, self.data)
