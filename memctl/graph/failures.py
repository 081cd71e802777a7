"""Whose fault a Cognee failure is: one note's, or the environment's.

A failure is the **environment's** (the model server, the network, a store)
when the exception or anything in its ``__cause__``/``__context__`` chain is

* an ``OSError`` (connection refused or reset, ``TimeoutError`` — Cognee's
  connection tests raise it after 30 s — a full disk, a locked file);
* raised by the HTTP or model-client stack: a class from ``httpx``,
  ``httpcore``, ``openai`` or ``litellm`` (litellm's errors subclass
  openai's; a model 404/500, a timeout, a bad answer body) — except a
  provider's content-policy refusal, which is about the text;
* a store refusing to open or write, whatever the class its binding raises:
  Kuzu's ``RuntimeError("IO exception: Could not set lock on file …")`` when
  another process holds the graph (or ``Found shadow file … but`` while it checkpoints), SQLite's ``database is locked`` (a
  ``sqlite3.OperationalError``, not an ``OSError``);
* one of Cognee's configuration or transient errors
  (``CogneeConfigurationError``, e.g. ``EmbeddingException``;
  ``CogneeTransientError``; the quota, payment and API-key errors of
  ``cognee/infrastructure/llm/exceptions.py``).

Anything else raised while Cognee processed one data item — tiktoken's
``ValueError`` for a special token, a decode error, an extraction answer that
never validates for this text — is that **note's**: the note is rejected and
the others go on. An environment failure rejects no note: the run fails
(exit 4 or 5) and everything is retried next run.
"""

from __future__ import annotations

import re
from typing import Iterator

__all__ = ["is_environment_error", "is_store_busy", "reason"]

_CLIENT_MODULES = ("httpx", "httpcore", "openai", "litellm")
_COGNEE_ENVIRONMENT = {"CogneeConfigurationError", "CogneeTransientError", "LLMQuotaExceededError",
                       "LLMPaymentRequiredError", "LLMAPIKeyNotSetError"}
MAX_REASON_CHARS = 300
# Messages of stores that could not be opened or written (Kuzu 0.11 raises plain RuntimeError from C++).
_STORE_REFUSALS = re.compile(r"^IO exception:|Could not set lock on file|database is locked|database table is locked"
                             r"|Found shadow file|Resource temporarily unavailable|No space left on device")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_environment_error(exc: BaseException) -> bool:
    """True when ``exc`` is the environment's fault, not one note's (rules in the module doc)."""
    for error in _chain(exc):
        names = {cls.__name__ for cls in type(error).__mro__}
        if "ContentPolicyViolationError" in names or "ContentPolicyFilterError" in names:
            return False
        if isinstance(error, OSError) or names & _COGNEE_ENVIRONMENT:
            return True
        if _STORE_REFUSALS.search(str(error)):
            return True
        if type(error).__module__.split(".")[0] in _CLIENT_MODULES:
            return True
    return False


# Kuzu's "Found shadow file …shadow but …": another process is part-way through a checkpoint of the graph
# (it writes <file>.shadow, then replaces the file): the store is being written, not broken.
_STORE_BUSY = re.compile(r"Could not set lock on file|database is locked|database table is locked"
                         r"|Found shadow file")


def is_store_busy(exc: BaseException) -> bool:
    """True when ``exc`` (or its cause chain) is a store locked or being written by another process: Kuzu's
    ``Could not set lock on file`` and ``Found shadow file … but`` (a checkpoint under way elsewhere),
    SQLite's ``database is locked``."""
    return any(_STORE_BUSY.search(str(error)) for error in _chain(exc))


def reason(exc: BaseException) -> str:
    """One line naming the error: ``<class>: <first line of the message>``, at most 300 characters."""
    message = str(exc).strip()
    first = re.split(r"[\r\n]", message, maxsplit=1)[0] if message else ""
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
