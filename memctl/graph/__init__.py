"""Cognee, embedded: the only code that imports cognee (configure, add, cognify, search, rebuild, offline setup)."""
