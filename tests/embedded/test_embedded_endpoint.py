"""The embedded backend's run settings: the thread count chosen from the load average, the substance threshold
that keeps near-empty sessions away from a model that cannot call them junk, and the output-token caps."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.embedded import models
from memctl.embedded.endpoint import MAX_THREADS, MIN_USER_CHARS, auto_threads, embedded_settings


@pytest.mark.parametrize("cpus,load,threads", [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 19.0, 1), (8, 6.0, 2), (64, 0.0, MAX_THREADS), (1, 0.0, 1),
])
def test_threads_are_the_idle_cores(cpus: int, load: float, threads: int) -> None:
    assert auto_threads(cpus, load) == threads


def test_the_substance_threshold_is_raised_never_lowered(tmp_path: Path) -> None:
    low = embedded_settings(Settings(home=tmp_path), "http://127.0.0.1:1/v1")
    assert low.min_user_chars == MIN_USER_CHARS and low.min_substance_chars == Settings(home=tmp_path).min_substance_chars
    high = embedded_settings(Settings(home=tmp_path, min_user_chars=500), "http://127.0.0.1:1/v1")
    assert high.min_user_chars == 500


class _Recorder:
    """A chat model stand-in that records the token budget it was given."""

    finish_reason = "length"
    prompt_tokens = completion_tokens = 0

    def __init__(self) -> None:
        self.budgets: list[int] = []

    def tokenize(self, text: str, special: bool = False) -> list[int]:
        return [0] * (len(text) // 4)

    def generate(self, messages, *, grammar=None, temperature=0.0, max_tokens=0, seed=0):
        self.budgets.append(max_tokens)
        yield "{}"


@pytest.mark.parametrize("kind,cap", [("text", models.MAX_TEXT_TOKENS), ("json", models.MAX_JSON_TOKENS)])
def test_answers_are_capped_by_kind(tmp_path: Path, monkeypatch, kind: str, cap: int) -> None:
    embedded = models.EmbeddedModels(tmp_path, num_ctx=4096, threads=1)
    embedded._llama = recorder = _Recorder()
    monkeypatch.setattr(models, "json_schema_grammar", lambda schema: "root ::= \"{}\"")
    embedded.chat([{"role": "user", "content": "hello"}], json_object=kind == "json", max_tokens=10**6)
    embedded.chat([{"role": "user", "content": "hello"}], json_object=kind == "json", max_tokens=100)
    assert recorder.budgets == [cap, 100]
