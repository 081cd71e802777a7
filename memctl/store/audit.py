"""The append-only, hash-chained audit log: ``audit/log.jsonl`` + ``audit/head.json``.

Format (memctl's own, version 1): one JSON object per line, keys sorted,
UTF-8, ``\n``-terminated::

    {"actor": "sleep", "hash": "<64 hex>", "new_sha": "<64 hex>|null",
     "old_sha": "<64 hex>|null", "op": "write|delete|rollback|relocate", "path": "user/…",
     "prev": "<64 hex>", "reason": "…", "seq": 7,
     "time": "2026-11-30T05:31:02.123456Z", "version": "<64 hex>|null",
     ["rollback_of": "<64 hex>"]}

``hash`` is the SHA-256 of the record's other fields serialised the same way
(sorted keys, compact), so an edited record is caught at that very line;
``prev`` is the previous record's ``hash`` (64 zeros for the first) and
``seq`` counts from 1, so a record edited *and* re-hashed, or a removed,
inserted or reordered one, breaks the chain right there.
``head.json`` (``{"seq", "hash"}``, replaced atomically after each append)
pins the end of the chain, so cutting records off the end is detected too.

Crash rules: the line is written and fsynced before anything else depends on
it (it is the commit point). A line without its newline is a torn append
from a killed writer and is cut off by :meth:`AuditLog.check_tail` (only when the head
pins the record before it); a head
exactly one record behind is a writer killed between append and head update
and is moved forward. Anything else is an :class:`AuditIntegrityError`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import orjson

from memctl.atomic import atomic_write_bytes, fsync_directory
from memctl.store import steps
from memctl.store.errors import AuditIntegrityError
from memctl.store.versions import is_sha256

GENESIS = "0" * 64
# An event changes no store file: ``path`` names what it changed outside the store (relative to the
# data home), the three shas are null. ``relocate``: Cognee's stored paths rewritten after the data
# home moved (memctl.graph.relocate).
EVENT_OPS = ("relocate",)
# ``purge``: version blobs replaced by redacted ones or removed (memctl.store.purge; field ``replaced``).
OPS = ("write", "delete", "rollback", "purge", *EVENT_OPS)
_FIELDS = ("actor", "hash", "new_sha", "old_sha", "op", "path", "prev", "reason", "seq", "time", "version")


def utc_now() -> str:
    """Current UTC time as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (sorts lexically)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def record_hash(fields: dict[str, Any]) -> str:
    """SHA-256 hex of a record's fields other than ``hash`` (sorted keys, compact JSON)."""
    body = {k: v for k, v in fields.items() if k != "hash"}
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True)
class AuditRecord:
    """One parsed record; ``hash`` is its stored hash (which the next record's ``prev`` must equal)."""

    data: dict[str, Any]
    line_no: int

    @property
    def hash(self) -> str:
        return self.data["hash"]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        """The stored fields (for ``--json`` output)."""
        return dict(self.data)


@dataclass
class VerifyReport:
    """Outcome of walking the chain.

    ``ok`` is False when a record is edited, removed, inserted, reordered or
    malformed, or the head does not match the end; ``problem`` then names the
    first bad record (``bad_line``/``bad_seq``). A torn final line (a writer
    killed mid-append, repaired by the next write) is a ``warning``, not a failure.
    """

    records: int = 0
    ok: bool = True
    problem: str | None = None
    bad_line: int | None = None
    bad_seq: int | None = None
    warnings: list[str] = field(default_factory=list)
    last: AuditRecord | None = None

    def fail(self, line_no: int, seq: Any, problem: str) -> "VerifyReport":
        self.ok = False
        self.bad_line = line_no
        self.bad_seq = seq if isinstance(seq, int) else None
        self.problem = f"line {line_no}" + (f" (seq {seq})" if isinstance(seq, int) else "") + f": {problem}"
        return self


def _check_fields(data: Any) -> str | None:
    """Why a parsed line is not a well-formed record, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    missing = [k for k in _FIELDS if k not in data]
    if missing:
        return f"missing fields {', '.join(missing)}"
    if data["op"] not in OPS:
        return f"unknown op {data['op']!r}"
    if not isinstance(data["seq"], int) or isinstance(data["seq"], bool):
        return "seq is not an integer"
    for key in ("old_sha", "new_sha", "version", "hash"):
        if data[key] is not None and not is_sha256(data[key]):
            return f"{key} is not a sha256"
    if not all(isinstance(data[k], str) for k in ("path", "actor", "reason", "time", "prev")):
        return "path, actor, reason, time and prev must be strings"
    replaced = data.get("replaced")
    if replaced is not None and not (isinstance(replaced, dict) and all(
            is_sha256(k) and (v is None or is_sha256(v)) for k, v in replaced.items())):
        return "replaced must map version shas to version shas or null"
    return None


class AuditLog:
    """Reader and appender of one store's audit log.

    Appends must happen under the store's write lock (the chain needs the
    previous record); reads need no lock because appends only ever add whole,
    fsynced lines at the end.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.log = self.directory / "log.jsonl"
        self.head_path = self.directory / "head.json"

    # -- tail and head (under the lock) ---------------------------------------

    def _size(self) -> int:
        """Bytes in the log (0 when it does not exist yet)."""
        try:
            return self.log.stat().st_size
        except FileNotFoundError:
            return 0

    def _torn_tail(self) -> tuple[int, int] | None:
        """``(file size, offset after the last newline)`` when the log ends without a newline, else None."""
        size = self._size()
        if size == 0:
            return None
        with open(self.log, "rb") as handle:
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return None
            return size, self._last_newline_end(handle, size)

    @staticmethod
    def _last_newline_end(handle, size: int) -> int:
        """Offset just past the last ``\\n`` before ``size`` (0 when none)."""
        pos = size
        chunk = 8192
        while pos > 0:
            start = max(0, pos - chunk)
            handle.seek(start)
            buf = handle.read(pos - start)
            idx = buf.rfind(b"\n")
            if idx >= 0:
                return start + idx + 1
            pos = start
            chunk *= 2
        return 0

    def last_record(self) -> AuditRecord | None:
        """The last complete record, or None for an empty log.

        Raises:
            AuditIntegrityError: the last line is not a well-formed record.
        """
        size = self._size()
        if size == 0:
            return None
        with open(self.log, "rb") as handle:
            end = self._last_newline_end(handle, size)
        return self._record_ending_at(end)

    def read_head(self) -> tuple[int, str]:
        """``(seq, hash)`` pinned by head.json; ``(0, GENESIS)`` when there is none yet."""
        try:
            head = orjson.loads(self.head_path.read_bytes())
        except FileNotFoundError:
            return 0, GENESIS
        except orjson.JSONDecodeError as exc:
            raise AuditIntegrityError(f"{self.head_path} is not valid JSON; run `memctl audit verify`") from exc
        if not isinstance(head, dict) or not isinstance(head.get("seq"), int) or not is_sha256(head.get("hash")):
            raise AuditIntegrityError(f"{self.head_path} is malformed; run `memctl audit verify`")
        return head["seq"], head["hash"]

    def check_tail(self) -> AuditRecord | None:
        """Make the end of the chain consistent before an append; return the last record.

        Repairs the two states a killed writer can leave: a torn final line
        (cut off, but only when the head pins the record before it — an
        append is torn only before its head moves) and a head exactly one
        record behind (moved forward). Refuses anything else.

        Raises:
            AuditIntegrityError: the log and its head disagree otherwise
                (records cut off, the last line or the head edited, log replaced).
        """
        head_seq, head_hash = self.read_head()
        torn = self._torn_tail()
        if torn is not None:
            size, keep = torn
            before = self._record_ending_at(keep)
            pinned = (before["seq"], before.hash) if before else (0, GENESIS)
            if pinned != (head_seq, head_hash):
                raise AuditIntegrityError(
                    f"the audit log's last line is cut short but its head pins seq {head_seq}: the log was edited or "
                    "truncated. Changes are refused until this is resolved; run `memctl audit verify`")
            with open(self.log, "r+b") as handle:
                handle.truncate(keep)
                handle.flush()
                os.fsync(handle.fileno())
        last = self.last_record()
        last_seq, last_hash = (last["seq"], last.hash) if last else (0, GENESIS)
        if (last_seq, last_hash) == (head_seq, head_hash):
            return last
        if last is not None and last_seq == head_seq + 1 and last["prev"] == head_hash:
            self.advance_head(last, report_step=False)
            return last
        missing = "" if self.head_path.exists() else " (head.json is missing)"
        raise AuditIntegrityError(
            f"the audit log ends at seq {last_seq} but its head pins seq {head_seq}{missing}: records were removed or "
            "the log was edited. Changes are refused until this is resolved; run `memctl audit verify`"
        )

    def _record_ending_at(self, end: int) -> AuditRecord | None:
        """The complete record whose newline ends at offset ``end`` (None when ``end`` is 0)."""
        if end == 0:
            return None
        with open(self.log, "rb") as handle:
            start = self._last_newline_end(handle, end - 1)
            handle.seek(start)
            raw = handle.read(end - 1 - start)
        return self._parse_tail_line(raw)

    @staticmethod
    def _parse_tail_line(raw: bytes) -> AuditRecord:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise AuditIntegrityError(f"the last audit record is not valid JSON ({exc}); run `memctl audit verify`") from exc
        problem = _check_fields(data) or (None if record_hash(data) == data["hash"] else "edited: hash mismatch")
        if problem:
            raise AuditIntegrityError(f"the last audit record is malformed ({problem}); run `memctl audit verify`")
        return AuditRecord(data=data, line_no=0)

    def advance_head(self, record: AuditRecord, *, report_step: bool = True) -> None:
        """Pin ``record`` as the end of the chain (atomic replace of head.json)."""
        atomic_write_bytes(self.head_path, orjson.dumps({"hash": record.hash, "seq": record["seq"]}) + b"\n",
                           tmp_prefix=".head.")
        if report_step:
            steps.reached("audit_head")

    def append(self, fields: dict[str, Any], last: AuditRecord | None) -> AuditRecord:
        """Append one record after ``last`` (from :meth:`check_tail`) and fsync it: the commit point.

        ``fields`` holds op, path, actor, reason, old_sha, new_sha, version
        (and optionally rollback_of); seq, time, prev and hash are filled in
        here. The caller then moves the head (:meth:`advance_head`).
        """
        data = dict(fields)
        data["seq"] = (last["seq"] + 1) if last else 1
        data["prev"] = last.hash if last else GENESIS
        data["time"] = utc_now()
        data["hash"] = record_hash(data)
        raw = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        created = not self.log.exists()
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as handle:
            handle.write(raw + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        if created:
            fsync_directory(self.directory)
        steps.reached("audit_line")
        return AuditRecord(data=data, line_no=0)

    def sweep_temp_files(self) -> int:
        """Remove head.json temp files a killed writer left (caller holds the lock)."""
        removed = 0
        for stale in self.directory.glob(".head.*.tmp"):
            stale.unlink(missing_ok=True)
            removed += 1
        return removed

    # -- reading (no lock) ------------------------------------------------------

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        try:
            handle = open(self.log, "rb")
        except FileNotFoundError:
            return
        with handle:
            for line_no, raw in enumerate(handle, start=1):
                yield line_no, raw

    def records(self, *, path: str | None = None) -> Iterator[AuditRecord]:
        """Every complete, parseable record in order (optionally only one path's).

        Lenient (for display): unparseable lines are skipped; use
        :meth:`verify` to judge integrity.
        """
        needle = (b'"path":' + orjson.dumps(path)) if path is not None else None
        for line_no, raw in self._lines():
            if not raw.endswith(b"\n"):
                return
            if needle is not None and needle not in raw:
                continue
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if _check_fields(data) is None and (path is None or data["path"] == path):
                yield AuditRecord(data=data, line_no=line_no)

    def query(self, *, path_glob: str | None = None, actor: str | None = None, since: str | None = None,
              limit: int | None = None) -> list[AuditRecord]:
        """The last ``limit`` records matching all filters, oldest first.

        Args:
            path_glob: ``fnmatch`` pattern on the store path (``user/*``).
            actor: exact actor name.
            since: ISO-8601 UTC lower bound on ``time`` (inclusive), same format as records.
            limit: keep only the newest N matches (None: all).
        """
        kept: deque[AuditRecord] = deque(maxlen=limit) if limit else deque()
        for record in self.records():
            if actor is not None and record["actor"] != actor:
                continue
            if since is not None and record["time"] < since:
                continue
            if path_glob is not None and not fnmatch.fnmatchcase(record["path"], path_glob):
                continue
            kept.append(record)
        return list(kept)

    def verify(self) -> VerifyReport:
        """Walk the whole chain and compare its end with the head. Never raises for bad data."""
        report = VerifyReport()
        prev_hash, expected_seq = GENESIS, 1
        last: AuditRecord | None = None
        torn_line = None
        for line_no, raw in self._lines():
            if not raw.endswith(b"\n"):
                torn_line = line_no
                break
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return report.fail(line_no, None, "not valid JSON (edited by hand?)")
            problem = _check_fields(data)
            if problem:
                return report.fail(line_no, data.get("seq") if isinstance(data, dict) else None, problem)
            if record_hash(data) != data["hash"]:
                return report.fail(line_no, data["seq"], "edited: its content does not match its hash")
            if data["seq"] != expected_seq:
                return report.fail(line_no, data["seq"], f"expected seq {expected_seq}: records were removed, "
                                   "inserted or reordered here")
            if data["prev"] != prev_hash:
                if last is not None:
                    return report.fail(last.line_no, last["seq"], f"this record, or the prev link of the next one "
                                       f"(line {line_no}), was edited and re-hashed: they no longer chain")
                return report.fail(line_no, data["seq"], "the first record must chain to the genesis hash")
            last = AuditRecord(data=data, line_no=line_no)
            prev_hash, expected_seq = data["hash"], expected_seq + 1
            report.records += 1
        report.last = last
        try:
            head_seq, head_hash = self.read_head()
        except AuditIntegrityError as exc:
            return report.fail(report.records, None, str(exc))
        last_seq = last["seq"] if last else 0
        if torn_line is not None:
            if (last_seq, prev_hash) != (head_seq, head_hash):
                return report.fail(torn_line, None, f"the final line is cut short but the head pins seq {head_seq}: "
                                   "the log was edited or truncated")
            report.warnings.append(f"line {torn_line}: torn final line, never committed (a writer was killed "
                                   "mid-append); the next change removes it")
        if not self.head_path.exists() and last_seq > 1:
            return report.fail(report.records, last_seq, "head.json is missing: the end of the chain is not pinned")
        if (last_seq, prev_hash) != (head_seq, head_hash):
            if last is not None and last_seq == head_seq + 1 and last["prev"] == head_hash:
                report.warnings.append(f"head is one record behind (a writer was killed after appending seq "
                                       f"{last_seq}); the next change repairs it")
            elif head_seq > last_seq:
                return report.fail(report.records, last_seq or None,
                                   f"the log ends at seq {last_seq} but the head pins seq {head_seq}: "
                                   "records were cut off the end")
            else:
                return report.fail(report.records, last_seq or None,
                                   f"the last record (seq {last_seq}) is not the one the head pins (seq {head_seq}): "
                                   "the end of the log was edited")
        return report
