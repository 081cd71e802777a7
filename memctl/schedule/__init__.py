"""Scheduled jobs: launchd agents (macOS) and systemd user units (Linux) for sleep and ingest."""
