"""Named durable steps of a store mutation, for crash testing.

A mutation runs: ``snapshot`` (version blobs written) → ``audit_line`` (record
appended and fsynced: the commit point) → ``audit_head`` (head updated) →
``write`` (file replaced or removed). :func:`reached` is called after each;
it does nothing. Tests replace it inside a child process to SIGKILL the
writer at exactly that step and then check that the store repairs itself.
"""

from __future__ import annotations

STEPS = ("snapshot", "audit_line", "audit_head", "write")


def reached(step: str) -> None:
    """Hook called after ``step`` (one of :data:`STEPS`) is durable. No-op in production."""
