"""The embedded model backend: SmolLM2-135M-Instruct and WordLlama behind one loopback OpenAI-compatible endpoint."""
