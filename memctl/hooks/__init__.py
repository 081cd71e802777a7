"""Capture hooks: memctl runs when a coding agent finishes a session (one module per agent)."""
