"""The ingest cycle: OpenCode sessions → transcripts → distilled notes → the memory store → Cognee."""
