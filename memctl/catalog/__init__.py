"""The catalog of what was ingested, shared by the cycles: the ingest checkpoint, the topics, the topic index,
the per-topic note search (BM25) and the router's topic profiles. Ingest writes it; ask, serve, forget and
doctor read it."""
