"""``memctl audit verify`` over the memory store: the audit chain, and with ``deep`` every version blob and file.

The checks follow the storage model in :mod:`memctl.store.memory_store` (README "The memory store"): a change is
visible only with its audit record, blobs are content-addressed, and a purge record names blobs that must be gone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memctl.store.audit import EVENT_OPS
from memctl.store.errors import StoreError
from memctl.store.policy import PUBLIC_PREFIXES, TMP_PREFIX, is_canonical

__all__ = ["StoreVerification", "StoreVerifyReport"]


@dataclass
class StoreVerifyReport:
    """``audit verify`` result: the chain report plus, with ``deep``, file and blob checks."""

    chain_ok: bool
    records: int
    problem: str | None
    warnings: list[str]
    bad_line: int | None = None
    bad_seq: int | None = None
    deep_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.chain_ok and not self.deep_problems


class StoreVerification:
    """The checking half of :class:`memctl.store.memory_store.MemoryStore` (its base class): ``audit verify``.

    Uses the store's ``root``, ``audit``, ``blobs``, ``pending()``, ``purged_blobs()``, ``sha()`` and ``list()``.
    """

    def verify(self, *, deep: bool = False) -> StoreVerifyReport:
        """Check the audit chain; with ``deep`` also every version blob and every current file.

        Deep checks: each recorded blob (new and prior contents) exists and
        matches its hash; each path's current sha equals its last record
        (absent after a delete); no file exists without an audit record; no
        symlink, special file or unaddressable name sits under a public
        prefix. A committed change not yet applied is a warning, not a mismatch.
        """
        chain = self.audit.verify()
        report = StoreVerifyReport(chain_ok=chain.ok, records=chain.records, problem=chain.problem,
                                   warnings=list(chain.warnings), bad_line=chain.bad_line, bad_seq=chain.bad_seq)
        if not chain.ok:
            return report
        pending = self.pending()
        if pending:
            report.warnings.append(pending)
        if not deep:
            return report
        last_state: dict[str, str | None] = {}
        blobs: set[str] = set()
        purged = self.purged_blobs()
        for record in self.audit.records():
            if record["op"] in EVENT_OPS:  # changed no store file
                continue
            last_state[record["path"]] = record["new_sha"]
            blobs.update(sha for sha in (record["version"], record["old_sha"]) if sha)
        # A purge record (memctl.self.purge) names blobs replaced by redacted ones or removed:
        # those must be gone, their replacements intact.
        for sha in sorted(purged):
            if self.blobs.has(sha):
                report.deep_problems.append(f"version {sha[:12]} was purged but is still in versions/ "
                                            "(run the same `memctl purge` again to finish it)")
        blobs = (blobs | {sha for sha in purged.values() if sha}) - set(purged)
        for sha in sorted(blobs):
            try:
                self.blobs.read(sha)
            except StoreError as exc:
                report.deep_problems.append(str(exc))
        pending_path = chain.last["path"] if pending and chain.last is not None else None
        for canonical, sha in sorted(last_state.items()):
            if canonical == pending_path:
                continue
            try:
                current = self.sha(canonical)
            except StoreError as exc:
                report.deep_problems.append(f"{canonical}: {exc}")
                continue
            if current != sha:
                now = current[:12] if current else "absent"
                want = sha[:12] if sha else "deleted"
                report.deep_problems.append(f"{canonical}: on disk {now}, audit log says {want} "
                                            "(changed outside the store)")
        on_disk = set(self.list(""))
        for canonical in sorted(on_disk - set(last_state)):
            report.deep_problems.append(f"{canonical}: exists but has no audit record (written outside the store)")
        report.deep_problems.extend(self._foreign_entries())
        return report

    def _foreign_entries(self) -> list[str]:
        """Symlinks, special files and names the API cannot address under the public prefixes."""
        problems = []
        for prefix in PUBLIC_PREFIXES:
            top = self.root / prefix
            if top.is_symlink():
                problems.append(f"{prefix}/ is a symlink (the store never follows symlinks)")
                continue
            for dirpath, dirnames, filenames in os.walk(top):
                for name in dirnames + filenames:
                    full = Path(dirpath) / name
                    rel = full.relative_to(self.root).as_posix()
                    if name.startswith(TMP_PREFIX) or name.startswith("."):
                        continue
                    if full.is_symlink():
                        problems.append(f"{rel}: a symlink inside the store (never followed; remove it)")
                    elif name in filenames and not full.is_file():
                        problems.append(f"{rel}: not a regular file")
                    elif name in filenames and not is_canonical(rel):
                        problems.append(f"{rel!r}: a name the store cannot address (placed by hand)")
        return problems
