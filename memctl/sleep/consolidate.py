"""Consolidate one cluster of related memories into one, through Ollama, with a content-hash cache.

:func:`consolidate_cluster` is a function of explicit inputs and outputs —
a task JSON file in, a result JSON file out — so a distributed engine can run
it as a separate task; :func:`consolidate` is the same on in-memory values.

Task (``ConsolidationTask``, JSON)::

    {"cluster": "<key>", "scope": "user/topics/alpha",
     "members": [{"path": "user/topics/alpha/a.md", "sha": "…", "created": "2026-11-30T05:00:00Z",
                  "text": "…"}, …]}

Result (``ConsolidationResult``, JSON)::

    {"cluster": "<key>", "text": "<merged memory>", "created": "<newest member time>",
     "cache_key": "<sha256>", "model_called": true, "model": "llama3.1:8b", "prompt_version": "1"}

Cache: ``<cache_dir>/<cache_key>.json`` where the key hashes the prompt
version, the model and the members' texts with their times (sorted), so an
unchanged cluster — or a retry after a crash — makes no model call. Entries
are written atomically and never modified.

Substance: a reply that does not keep the members' substance
(:func:`memctl.validator.consolidation_check.substance_problem`: ``JUNK``, empty,
drastically shorter, missing the newest member's names, only a repeat of an
older member) raises :class:`ConsolidationError` and is never cached, so the
next sleep asks the model again; a cached entry that fails the check (written
before the check existed) is removed and recomputed.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import StrictStr

from memctl.config import Settings
from memctl.ollama_client import ModelError, chat_once, client_for
from memctl.prompts import Prompt, load_prompt
from memctl.prompts.quoting import header_field, quote
from memctl.state_file import StateFileError, StateModel, decode_json, read_state, write_state
from memctl.validator.consolidation_check import substance_problem

if TYPE_CHECKING:
    from memctl.sleep.clustering import Cluster

MAX_MERGED_LINES = 40


class ConsolidateCacheEntry(StateModel):
    """One consolidation cache file (``<home>/cache/consolidate/<key>.json``) as read: the merged ``text``;
    ``model``, ``prompt_version`` and the ``members``' store paths are kept as written."""

    text: StrictStr


class ConsolidationError(Exception):
    """The model call failed or its answer was unusable; the cluster stays unmerged this run.

    ``model_called`` says whether a model call was made (sleep counts it).
    """

    def __init__(self, message: str, *, model_called: bool = False) -> None:
        super().__init__(message)
        self.model_called = model_called


@dataclass(frozen=True)
class Member:
    """One memory of a cluster: store path, sha, statement time (ISO-8601 UTC), text."""

    path: str
    sha: str
    created: str
    text: str


@dataclass
class ConsolidationTask:
    """Input of :func:`consolidate` (see the module doc)."""

    cluster: str
    scope: str
    members: list[Member] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict) -> "ConsolidationTask":
        return cls(cluster=data["cluster"], scope=data["scope"], members=[Member(**m) for m in data["members"]])


@dataclass
class ConsolidationResult:
    """Output of :func:`consolidate` (see the module doc)."""

    cluster: str
    text: str
    created: str
    cache_key: str
    model_called: bool
    model: str
    prompt_version: str


def cache_key(task: ConsolidationTask, model: str, prompt: Prompt) -> str:
    """sha256 over prompt version, model and the members' (time, text), order-independent."""
    digest = hashlib.sha256(f"consolidate\0{prompt.version}\0{model}\n".encode())
    for created, text in sorted((m.created, m.text) for m in task.members):
        digest.update(f"{created}\0{text}\0".encode())
    return digest.hexdigest()


def is_cached(task: ConsolidationTask, settings: Settings, cache_dir: Path) -> bool:
    """True when :func:`consolidate` would answer ``task`` from the cache (no model call)."""
    return (cache_dir / f"{cache_key(task, settings.consolidate_model, load_prompt('consolidate'))}.json").is_file()


def render_members(task: ConsolidationTask) -> str:
    """The user message: members oldest first, each a header ``[memory N] (stated <time>)`` and its text quoted.

    The text is one JSON string on one line (:func:`memctl.prompts.quoting.quote`, the same quoting
    ``ask`` gives memories), so a member cannot end its block early or forge another
    ``[memory N] (stated …)`` block with a later time.
    """
    ordered = sorted(task.members, key=lambda m: (m.created, m.path))
    return "\n\n".join(f"[memory {i}] (stated {header_field(m.created or 'unknown time')})\n{quote(m.text.strip())}"
                       for i, m in enumerate(ordered, start=1))


def consolidate(task: ConsolidationTask, settings: Settings, cache_dir: Path) -> ConsolidationResult:
    """Merge ``task``'s members (2+) into one memory text; cached by content.

    Raises:
        ConsolidationError: fewer than two members, the model failed, or its
            answer lost the members' substance (the message names the rule;
            nothing is cached).
    """
    if len(task.members) < 2:
        raise ConsolidationError(f"cluster {task.cluster[:12]} has {len(task.members)} member(s); nothing to merge")
    prompt = load_prompt("consolidate")
    model = settings.consolidate_model
    key = cache_key(task, model, prompt)
    cached = cache_dir / f"{key}.json"
    newest = max(m.created for m in task.members)
    try:
        entry = read_state(cached, ConsolidateCacheEntry)
    except StateFileError:
        entry = None  # a damaged entry is simply recomputed
    if entry is not None:
        if substance_problem(task.members, entry.text) is None:
            return ConsolidationResult(cluster=task.cluster, text=entry.text, created=newest, cache_key=key,
                                       model_called=False, model=model, prompt_version=prompt.version)
        cached.unlink(missing_ok=True)  # a lossy merge cached before the check existed
    client = client_for(settings, settings.request_timeout_s)
    try:
        text = chat_once(client, settings, model=model, timeout_s=settings.request_timeout_s,
                         messages=[{"role": "system", "content": prompt.body},
                                   {"role": "user", "content": render_members(task)}],
                         options={"num_ctx": settings.answer_num_ctx})
    except ModelError as exc:
        raise ConsolidationError(f"cluster {task.cluster[:12]} ({task.scope}): {exc}; members kept",
                                 model_called=True) from exc
    text = "\n".join(text.strip().splitlines()[:MAX_MERGED_LINES]).strip()
    problem = substance_problem(task.members, text)
    if problem is not None:
        raise ConsolidationError(f"cluster {task.cluster[:12]} ({task.scope}): merge refused, members kept: {problem}",
                                 model_called=True)
    write_state(cached, {"text": text, "model": model, "prompt_version": prompt.version,
                               "members": [m.path for m in task.members]})
    return ConsolidationResult(cluster=task.cluster, text=text, created=newest, cache_key=key, model_called=True,
                               model=model, prompt_version=prompt.version)


def consolidate_cluster(task_file: Path, result_file: Path, *, settings: Settings, cache_dir: Path) -> None:
    """Files in, files out: read a task JSON, write a result JSON (atomically).

    Raises:
        ConsolidationError: see :func:`consolidate` (no result file is written).
    """
    task = ConsolidationTask.from_json(decode_json(Path(task_file).read_bytes()))
    write_state(result_file, asdict(consolidate(task, settings, cache_dir)))


def task_for(cluster: Cluster) -> ConsolidationTask:
    """The consolidation task of one cluster (:class:`memctl.sleep.clustering.Cluster`): its key, scope and
    members (path, sha, creation time, text) in the cluster's order."""
    return ConsolidationTask(cluster=cluster.key, scope=cluster.scope,
                             members=[Member(m.path, m.sha, m.created, m.text) for m in cluster.members])
