"""The Claude Code connector: reads ``~/.claude/projects/*/*.jsonl`` read-only (``source`` is the entry point)."""
