"""Sleep's state between runs, and ``memctl unmerge``.

* :class:`SleepState` — ``<home>/sleep_state.json``: topics whose Cognee dataset must still be rebuilt
  (with files to remove from it), and merges ``unmerge`` declined.
* :func:`unmerge` — restore a consolidated memory's members and never merge exactly those again.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import StrictStr

from memctl.config import DataHome, Settings
from memctl.exit_codes import USAGE as EXIT_USAGE, ExitCodeError
from memctl.front_matter import read_front_matter
from memctl.state_file import StateModel, read_state, write_state
from memctl.store import MemoryStore
from memctl.store.user_memory import parse_memory


class SleepError(ExitCodeError):
    """Sleep cannot run (lock busy, data home unusable); ``exit_code`` as documented."""


class SleepStateFile(StateModel):
    """``sleep_state.json``'s shape as read: topic → store paths to remove from its dataset; declined merges."""

    dirty: dict[str, list[StrictStr]] = {}
    declined: list[list[StrictStr]] = []


class SleepState:
    """``<home>/sleep_state.json``: topics whose dataset must be rebuilt, with files to remove from it.

    Marked before the store changes, cleared after a successful rebuild, so a
    killed or failed run leaves the work for the next one.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        state = read_state(path, SleepStateFile, problem="is unreadable",
                           fix="delete it (the next sleep then rebuilds nothing until memories change)")
        state = state or SleepStateFile()
        self.dirty: dict[str, list[str]] = {k: list(v) for k, v in state.dirty.items()}
        self.declined: list[list[str]] = [sorted(group) for group in state.declined]

    def mark(self, topic: str, remove: list[str] | None = None) -> None:
        entry = self.dirty.setdefault(topic, [])
        entry.extend(p for p in (remove or []) if p not in entry)
        self.save()

    def clear(self, topic: str) -> None:
        self.dirty.pop(topic, None)
        self.save()

    def decline(self, member_paths: list[str]) -> None:
        """Never merge exactly these memories again (set by ``memctl unmerge``)."""
        group = sorted(member_paths)
        if group not in self.declined:
            self.declined.append(group)
        self.save()

    def is_declined(self, member_paths: list[str]) -> bool:
        return sorted(member_paths) in self.declined

    def save(self) -> None:
        write_state(self.path, {"dirty": self.dirty, "declined": self.declined})


def unmerge(settings: Settings, consolidated_path: str, *, reason: str) -> list[str]:
    """Undo a merge: restore every member recorded in a consolidated memory (its recorded version),
    delete the consolidated memory, and never merge exactly those memories again. Actor ``cli``;
    takes the data-home lock (no sleep may run meanwhile). Returns the restored paths.

    Raises:
        SleepError: not a consolidated memory (2), or the data home is busy (6).
        memctl.store.StoreError: a member cannot be restored (e.g. its version blob is gone).
    """
    from memctl.store.policy import normalize_path

    home = DataHome(settings.home)
    store = MemoryStore(home.store)
    path = normalize_path(consolidated_path)
    if not path.startswith("user/") or "/consolidated-" not in path:
        raise SleepError(f"{path} is not a consolidated memory (user/…/consolidated-<key>.md)", EXIT_USAGE)
    with home.lock(wait=False, offer_wait=False, error=SleepError):
        content, sha = store.read_text(path)
        members = recorded_members(content)
        if not members:
            raise SleepError(f"{path} records no members to restore", EXIT_USAGE)
        state = SleepState(home.sleep_state)
        restored = []
        for member in members:
            if store.sha(member["path"]) != member["sha"]:
                store.rollback(member["path"], member["sha"], actor="cli", reason=f"unmerge {path}: {reason}")
            restored.append(member["path"])
        dataset = parse_memory(path, sha, content).dataset
        if dataset:
            state.mark(dataset, [str(store.root / path)])
        state.decline(restored)
        store.delete(path, expected_sha=sha, actor="cli", reason=f"unmerge: {reason}")
        return restored


def recorded_members(content: str) -> list[dict]:
    members = read_front_matter(content).get("members")
    return [m for m in members or [] if isinstance(m, dict) and isinstance(m.get("path"), str)
            and isinstance(m.get("sha"), str)]
