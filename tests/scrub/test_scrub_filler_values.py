"""Filler values a developer writes where a credential goes (``dummy``, ``test``, ``example-key-123``) and secret
references (Spring Cloud GCP's ``sm://``) stay as written; a real value beside a filler-like prefix still goes.

The kinds come from the seventh outside attacker's near-misses; these instances are written for this file.
"""

from __future__ import annotations

import pytest

from memctl.scrub.core import scrub


@pytest.mark.parametrize("text", [
    "ANTHROPIC_API_KEY=dummy",
    "export STRIPE_SECRET_KEY=fake",
    "api_token: sample",
    "MAILGUN_API_KEY=demo",
    "SENTRY_AUTH_TOKEN=test",
    "API_TOKEN=dummy_token",
    "CLIENT_SECRET=demo-secret-1",
    "openai_api_key = \"example-api-key-42\"",
    "db_password: sm://payments/db-password",
    "spring.datasource.password=${sm://orders-db-password}",
])
def test_a_filler_value_or_a_secret_reference_stays(text: str) -> None:
    assert scrub(text).text == text


@pytest.mark.parametrize(("text", "secret"), [
    ("API_KEY=test-8fK2mQ9xLpR4", "8fK2mQ9xLpR4"),
    ("DB_PASSWORD=dummy9#Qz!kP2w", "dummy9#Qz!kP2w"),
    ("password: sample-Kd82!xq", "Kd82!xq"),
])
def test_a_real_value_that_starts_like_filler_still_goes(text: str, secret: str) -> None:
    out = scrub(text).text
    assert secret not in out and "[REDACTED:" in out
