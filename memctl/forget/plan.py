"""What a forget or purge will remove: computed from the data home without changing it (``--dry-run``).

Each plan is JSON-able (:meth:`as_dict`, the journal keeps it) and lists itself for a person
(:meth:`lines`). Store paths are canonical (``user/topics/alpha/x.md``); other files are relative
to the data home (``transcripts/ses_1.md``); Cognee entries are by dataset (topic) and the
absolute note path Cognee recorded as the document's location.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from memctl.config import DataHome
from memctl.exit_codes import USAGE
from memctl.forget.errors import ForgetError
from memctl.forget.needles import all_forms
from memctl.forget.scan import files_holding, kind_of, read_only
from memctl.front_matter import read_front_matter
from memctl.state_file import StateFileError, StateModel, read_state
from memctl.store import MemoryStore, StoreError
from memctl.store.policy import normalize_path


def dataset_of(path: str) -> str | None:
    """The Cognee dataset a store file belongs to: ``memory/<topic>/…`` and ``user/topics/<topic>/…``; else None."""
    parts = path.split("/")
    if parts[0] == "memory" and len(parts) >= 3:
        return parts[1]
    if parts[:2] == ["user", "topics"] and len(parts) >= 4:
        return parts[2]
    return None


class _CachedMerge(StateModel):
    """What a consolidation cache entry says of its merge: the members' store paths and the merged text."""

    members: list[Any] | None = None
    text: Any = None


def cache_entries_naming(home: DataHome, paths: set[str], texts: Iterable[str] = ()) -> list[str]:
    """Consolidation cache entries (file names) whose members include any of ``paths``, or whose merged
    text is one of ``texts``: a cached merge of a removed memory, or the cached merge a removed
    consolidated memory came from, must never be applied again."""
    wanted = {t.strip() for t in texts if t.strip()}
    found = []
    directory = home.consolidate_cache
    if not directory.is_dir():
        return found
    for entry in sorted(directory.glob("*.json")):
        try:
            data = read_state(entry, _CachedMerge)
        except StateFileError:
            continue
        if data is None:
            continue
        members, text = data.members or [], str(data.text or "").strip()
        if any(m in paths for m in members) or text in wanted:
            found.append(entry.name)
    return found


@dataclass
class MemoryPlan:
    """``memctl forget PATH``: one store file deleted (audited; versions kept), its Cognee document
    removed from ``dataset``, cached merges naming it dropped; a ``memory/`` note's session is
    recorded as ``forgotten`` so ingest never publishes it again."""

    path: str
    sha: str
    dataset: str | None
    source_id: str | None
    cache_entries: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        out = [f"delete {self.path} (version {self.sha[:12]}; kept in versions/, see `memctl history`)"]
        if self.dataset:
            out.append(f"remove its document from the Cognee dataset '{self.dataset}'")
        if self.source_id:
            out.append(f"record session {self.source_id}'s note as forgotten (ingest will not publish it again)")
        out += [f"drop cached merge cache/consolidate/{name}" for name in self.cache_entries]
        return out


def plan_forget(home: DataHome, path: str, *, as_ingest: bool) -> MemoryPlan:
    """The :class:`MemoryPlan` for ``path``.

    Raises:
        InvalidPathError: a bad store path.
        ForgetError: no such file (exit 2); a ``memory/`` path without ``as_ingest`` (exit 2).
    """
    canonical = normalize_path(path)
    if canonical.startswith("memory/") and not as_ingest:
        raise ForgetError(f"{canonical} is in memory/, the read-only ground truth written by ingest; pass "
                          "--as-ingest to forget it with ingest's privilege (or `memctl purge --session` to "
                          "remove the whole session)", USAGE)
    store = MemoryStore(home.store)
    sha = store.sha(canonical)
    if sha is None:
        raise ForgetError(f"no file at {canonical} (see `memctl show` / `memctl history {canonical}`)", USAGE)
    source_id = Path(canonical).stem if canonical.startswith("memory/") else None
    body = content_body(store.read_text(canonical)[0])
    return MemoryPlan(path=canonical, sha=sha, dataset=dataset_of(canonical), source_id=source_id,
                      cache_entries=cache_entries_naming(home, {canonical}, [body]))


@dataclass
class SessionPlan:
    """``memctl purge --session ID``: everything memctl keeps of one session and its continuations."""

    session: str
    ids: list[str]
    files: list[str]
    store_paths: list[str]
    blobs: list[str]
    datasets: dict[str, list[str]]
    cache_entries: list[str]
    texts: list[str]
    allow_reingest: bool = False
    graphs: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        out = [f"delete {f}" for f in self.files]
        out += [f"delete {p} and all its versions" for p in self.store_paths]
        out.append(f"remove {len(self.blobs)} version blob(s) from versions/ (audited by hash)")
        out += [f"remove {len(self.datasets.get(k, []))} document(s) from the Cognee dataset '{k}' and rebuild it"
                for k in self.graphs]
        out += [f"drop cached merge cache/consolidate/{name}" for name in self.cache_entries]
        if self.texts:
            out.append(f"redact {len(self.texts)} memory text(s) of the session from reports, logs and caches")
        out.append(f"record {', '.join(self.ids)} as purged in progress.json" if not self.allow_reingest else
                   f"forget {', '.join(self.ids)} in progress.json (the next ingest distills the session again)")
        return out


def plan_session(home: DataHome, session: str, *, allow_reingest: bool) -> SessionPlan:
    """The :class:`SessionPlan` for ``session`` (a root session id).

    Raises:
        ForgetError: nothing of the session is known (exit 2).
    """
    from memctl.catalog.checkpoint import Checkpoint

    checkpoint = Checkpoint(home.progress, home.skipped)
    ids = [session] + sorted(sid for sid, e in checkpoint.entries.items() if e.continuation_of == session)
    files = [str(p.relative_to(home.root)) for sid in ids for p in (home.transcript_path(sid), home.note_path(sid))
             if p.exists()]
    store = MemoryStore(home.store)
    paths: set[str] = set()
    for record in store.audit.records():
        path = record["path"]
        parts = path.split("/")
        if (parts[0] == "memory" and Path(path).stem in ids) or (
                len(parts) > 2 and parts[1] in ("sessions", "rejected") and parts[2] == session):
            paths.add(path)
    user_paths, texts = _session_memories(store, session, paths)
    paths |= user_paths
    if not files and not paths and checkpoint.entry(session) is None:
        raise ForgetError(f"memctl knows nothing of session {session!r} (no transcript, note, memory or "
                          "checkpoint entry); check the id with `memctl ingest --dry-run`", USAGE)
    # Only what is still there: a second purge of the same session plans nothing to delete and
    # rebuilds no dataset (a path counts while its file or one of its version blobs exists).
    blobs = [sha for sha in _blobs_only_of(store, paths) if store.blobs.has(sha)]
    left = set(blobs)
    active = {p for p in paths if store.exists(p) or any(sha in left for sha in _shas_of(store, p))}
    datasets: dict[str, list[str]] = {}
    for path in sorted(active):
        dataset = dataset_of(path)
        if dataset:
            datasets.setdefault(dataset, []).append(str(store.root / path))
    for sid in ids if files or active else []:
        entry = checkpoint.entry(sid)
        if entry is not None and entry.topic and not any(dataset_of(p) == entry.topic for p in active):
            datasets.setdefault(entry.topic, [])
    return SessionPlan(session=session, ids=ids, files=files, store_paths=sorted(active), blobs=blobs,
                       datasets=datasets, cache_entries=cache_entries_naming(home, paths, texts), texts=texts,
                       allow_reingest=allow_reingest, graphs=graph_datasets(home, datasets))


def _session_memories(store: MemoryStore, session: str, known: set[str]) -> tuple[set[str], list[str]]:
    """Every ``user/`` path tied to ``session`` in any version of its history — deleted ones included
    — and the bodies of all their versions (what reports, caches and logs may quote).

    Tied: a version's front matter names the session (``session:``), or the path is one of
    ``known`` (``user/sessions/<id>/…``), or a version is a consolidated memory whose ``members:``
    name a tied path (a merge holds its members' text), followed until nothing new is found.
    """
    versions: dict[str, list[str]] = {}
    for record in store.audit.records():
        path = record["path"]
        if path.startswith("user/") and record["version"]:
            versions.setdefault(path, []).append(record["version"])
    contents: dict[str, list[str]] = {}
    for path, shas in versions.items():
        for sha in dict.fromkeys(shas):
            try:
                contents.setdefault(path, []).append(store.read_version(path, sha))
            except StoreError:
                continue  # a removed (purged) version holds nothing any more
    tied = {p for p in known if p.startswith("user/")}
    tied |= {p for p, texts in contents.items()
             if any(str(read_front_matter(t).get("session") or "") == session for t in texts)}
    while True:
        merged = {p for p, texts in contents.items() if p not in tied
                  and any(_member_paths(t) & tied for t in texts)}
        if not merged:
            break
        tied |= merged
    bodies = [b for p in sorted(tied) for b in dict.fromkeys(content_body(t) for t in contents.get(p, [])) if b]
    return tied, bodies


def _member_paths(content: str) -> set[str]:
    """The paths a consolidated memory's ``members:`` front matter names (``[{path, sha}]`` or plain paths)."""
    members = read_front_matter(content).get("members") or []
    if not isinstance(members, list):
        return set()
    return {str(m.get("path") if isinstance(m, dict) else m) for m in members}


def content_body(content: str) -> str:
    """A memory's text without its front matter, stripped (what reports and caches quote)."""
    from memctl.front_matter import strip_front_matter

    return strip_front_matter(content).strip()


def _shas_of(store: MemoryStore, path: str) -> set[str]:
    """Every blob sha ``path``'s history names."""
    return {s for r in store.audit.records(path=path) for s in (r["version"], r["old_sha"], r["new_sha"]) if s}


def _blobs_only_of(store: MemoryStore, paths: set[str]) -> list[str]:
    """Blobs in the histories of ``paths`` that no other path's history names (shared content stays)."""
    mine: set[str] = set()
    others: set[str] = set()
    for record in store.audit.records():
        shas = {s for s in (record["version"], record["old_sha"], record["new_sha"]) if s}
        (mine if record["path"] in paths else others).update(shas)
    return sorted(mine - others)


# scrypt cost (RFC 7914; n=2**14, r=8, p=1 is the interactive-login setting of the scrypt paper and
# Python's hashlib docs): a guess at a short secret costs ~16 MiB and tens of milliseconds.
_SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1, "dklen": 32}


def values_key(values: list[str], salt: bytes | None = None) -> str:
    """The journal's key of a text purge: ``scrypt$<salt hex>$<digest hex>``, scrypt
    (:func:`hashlib.scrypt`, :data:`_SCRYPT`) over the sorted distinct values with a random 16-byte
    salt (or ``salt``). Salted and slow, so the journal left by a killed run neither holds the
    values nor a digest that can be looked up or cheaply brute-forced; :func:`values_match` lets
    the same command, run again with the same values, recognise its own journal."""
    salt = os.urandom(16) if salt is None else salt
    joined = b"".join(v.encode("utf-8") + b"\0" for v in sorted(set(values)))
    return f"scrypt${salt.hex()}${hashlib.scrypt(joined, salt=salt, **_SCRYPT).hex()}"


def values_match(values: list[str], key: object) -> bool:
    """True when ``key`` (from :func:`values_key`) was made from these ``values``; False for any other key."""
    parts = key.split("$") if isinstance(key, str) else []
    if len(parts) != 3 or parts[0] != "scrypt":
        return False
    try:
        salt = bytes.fromhex(parts[1])
    except ValueError:
        return False
    return hmac.compare_digest(values_key(values, salt), key)


@dataclass
class TextPlan:
    """``memctl purge --text``: the files holding a value, by kind (:func:`memctl.forget.scan.kind_of`),
    and the Cognee datasets to rebuild from the redacted notes."""

    key: str
    values: int
    files: dict[str, list[str]]
    datasets: list[str]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        if not any(self.files.values()):
            return [f"no file under the data home holds the {self.values} value(s); nothing to purge"]
        out = []
        what = {"blob": "replace version blob", "store": "redact store file (audited purge record)",
                "file": "redact", "index": "delete and rebuild index file", "graph": "rebuild Cognee store",
                "audit": "CANNOT rewrite the append-only audit log"}
        for kind in ("store", "blob", "file", "index", "graph", "audit"):
            out += [f"{what[kind]} {f}" for f in self.files.get(kind, [])]
        out += [f"rebuild the Cognee dataset '{d}' from its redacted notes" for d in self.datasets]
        return out


def plan_text(home: DataHome, values: list[str]) -> TextPlan:
    """The :class:`TextPlan` for ``values``.

    Raises:
        ForgetError: a value too short to purge safely, or one that is memctl's own vocabulary
            (:func:`memctl.forget.vocabulary.refusal`) (exit 2).
    """
    from memctl.forget.vocabulary import refusal

    try:
        needles = all_forms(values)
    except ValueError as exc:
        raise ForgetError(str(exc), USAGE) from exc
    why = refusal(home, values)
    if why:
        raise ForgetError(f"{why}: memctl's files are made of it, so it is not purged (removing it would break "
                          "them); purge the distinctive secret itself, a longer value", USAGE)
    files: dict[str, list[str]] = {}
    datasets: set[str] = set()
    names = _dataset_names(home)
    for path in files_holding(home, needles):
        kind = kind_of(home, path)
        if kind == "lock":
            continue
        rel = str(path.relative_to(home.root))
        files.setdefault(kind, []).append(rel)
        if kind == "store":
            dataset = dataset_of(str(path.relative_to(home.store)))
            if dataset:
                datasets.add(dataset)
        if kind == "graph":
            datasets.update(names[key] for key in _dataset_ids_in(path) if key in names)
    return TextPlan(key=values_key(values), values=len(set(values)), files=files,
                    datasets=graph_datasets(home, datasets))


def graph_datasets(home: DataHome, topics: Iterable[str]) -> list[str]:
    """Those of ``topics`` that Cognee has a dataset for (the ones a purge rebuilds), sorted."""
    names = set(_dataset_names(home).values())
    return sorted(t for t in set(topics) if t in names)


def _dataset_ids_in(path: Path) -> set[str]:
    """Dataset ids (hex, no dashes) a Cognee database path names (``<dataset id>.pkl``, ``<dataset id>.lance.db/…``)."""
    found = set()
    for part in path.parts:
        stem = part.split(".")[0].replace("-", "")
        if len(stem) == 32:
            found.add(stem)
    return found


def _dataset_names(home: DataHome) -> dict[str, str]:
    """Cognee dataset id (hex) → name, read from Cognee's relational SQLite (read-only, no Cognee import)."""
    db = home.cognee / "system" / "databases" / "cognee_db"
    if not db.is_file():
        return {}
    try:
        conn = read_only(db)
        try:
            return {str(i).replace("-", ""): str(n) for i, n in conn.execute("SELECT id, name FROM datasets")}
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
