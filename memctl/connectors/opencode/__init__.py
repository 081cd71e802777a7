"""The OpenCode connector: reads OpenCode's SQLite history read-only (``source`` is the entry point)."""
