"""An invalid configuration names what set each bad value: the environment variable (with its value), the
config file (the key as written there) or the flag; the sources listed are those that gave values, so a
config file that does not exist is not named."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from memctl import exit_codes
from memctl.cli.app import ConfigError, settings_from_flags

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No memctl variable set and the default config file absent (platformdirs reads XDG_CONFIG_HOME)."""
    for name in list(os.environ):
        if name.upper().startswith("MEMCTL_") or name.upper() == "OLLAMA_HOST":
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "memctl" / "config.toml"


def _message(**flags: object) -> str:
    with pytest.raises(ConfigError) as caught:
        settings_from_flags(None, **flags)
    assert caught.value.exit_code == exit_codes.USAGE
    return str(caught.value)


@pytest.mark.parametrize(("variable", "value", "field", "reason"), [
    ("MEMCTL_TRANSCRIPT_PROCESSES", "abc", "transcript_processes", "Input should be a valid integer"),
    ("MEMCTL_WORKERS", "0", "workers", "greater than or equal to 1"),
    ("MEMCTL_REQUEST_TIMEOUT_S", "-1", "request_timeout_s", "greater than 0"),
    ("MEMCTL_HEAD_FRACTION", "1.5", "head_fraction", "less than 1"),
    ("MEMCTL_GRAPH_PROVIDER", "neo4j", "graph_provider", "Input should be 'kuzu' or 'ladybug'"),
    ("OLLAMA_HOST", "http://[bad", "ollama_host", "not a host:port or URL"),
    ("MEMCTL_OLLAMA_HOST", "ftp://x y", "ollama_host", "expected host:port"),
    ("memctl_sleep_concurrency", "many", "sleep_concurrency", "Input should be a valid integer"),  # any case counts
])
def test_a_bad_environment_variable_is_named_with_its_value(clean_environment, monkeypatch, variable, value, field,
                                                             reason):
    monkeypatch.setenv(variable, value)
    message = _message()
    assert message.startswith(f"invalid configuration (environment): {variable}={shlex.quote(value)}: {field}: ")
    assert reason in message and str(clean_environment) not in message and "config.toml" not in message


@pytest.mark.parametrize(("content", "problem"), [
    ("workerz = 3\n", "workerz: Extra inputs are not permitted"),
    ("distil_model = 'x'\n", "distil_model: Extra inputs are not permitted"),
    ("workers = 0\n", "workers: Input should be greater than or equal to 1"),
    ("head_fraction = 0\n", "head_fraction: Input should be greater than 0"),
    ("max_attempts_per_run = 11\n", "max_attempts_per_run: Input should be less than or equal to 10"),
    ("ollama_host = 'not a url::'\n", "ollama_host: Value error, expected host:port or http(s)://host:port"),
    ("OLLAMA_HOST = 'not a url::'\n", "OLLAMA_HOST: Value error, expected host:port or http(s)://host:port"),
    ("embedding_dimensions = 'x'\n", "embedding_dimensions: Input should be a valid integer"),
])
def test_a_bad_config_file_key_is_named_with_the_file(clean_environment, monkeypatch, tmp_path, content, problem):
    config = tmp_path / "memctl.toml"
    config.write_text(content)
    monkeypatch.setenv("MEMCTL_CONFIG", str(config))
    message = _message()
    assert message.startswith(f"invalid configuration ({config}): {config}: {problem}"), message
    assert "; " not in message  # one bad key, one problem


@pytest.mark.parametrize(("content", "variables", "expected", "not_expected"), [
    # the environment outranks the file: the variable is blamed, not the file's (valid or not) value
    ("workers = 0\n", {"MEMCTL_WORKERS": "abc"}, ["MEMCTL_WORKERS=abc: workers: Input should be a valid integer"],
     ["workers: Input should be greater"]),
    ("head_fraction = 0.5\n", {"MEMCTL_HEAD_FRACTION": "2"}, ["MEMCTL_HEAD_FRACTION=2: head_fraction: "], ["{config}:"]),
    # each bad value with its own source
    ("workerz = 1\n", {"MEMCTL_TRANSCRIPT_PROCESSES": "abc"},
     ["{config}: workerz: Extra inputs", "MEMCTL_TRANSCRIPT_PROCESSES=abc: transcript_processes: "], []),
    ("ollama_host = 'x::'\nbatch_size = 0\n", {"MEMCTL_ASK_TOP_K": "51"},
     ["{config}: ollama_host: ", "{config}: batch_size: ", "MEMCTL_ASK_TOP_K=51: ask_top_k: "], []),
    # a good variable hides the file's bad value
    ("workers = 0\nfusion_k = 0\n", {"MEMCTL_WORKERS": "3"}, ["{config}: fusion_k: "], ["workers"]),
])
def test_file_and_environment_each_named_for_what_they_set(clean_environment, monkeypatch, tmp_path, content,
                                                          variables, expected, not_expected):
    config = tmp_path / "memctl.toml"
    config.write_text(content)
    monkeypatch.setenv("MEMCTL_CONFIG", str(config))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    message = _message()
    assert message.startswith(f"invalid configuration (environment, {config}): ")
    for part in expected:
        assert part.format(config=config) in message, message
    for part in not_expected:
        assert part.format(config=config) not in message, message
    assert message.count("; ") == len(expected) - 1


@pytest.mark.parametrize(("flags", "variables", "problem"), [
    ({"workers": 0}, {}, "--workers=0: workers: "),
    ({"batch_size": -2}, {"MEMCTL_BATCH_SIZE": "abc"}, "--batch-size=-2: batch_size: "),  # flags outrank variables
    ({"chunks_per_batch": 0}, {"MEMCTL_WORKERS": "2"}, "--chunks-per-batch=0: chunks_per_batch: "),
])
def test_a_bad_flag_is_named_as_the_flag(clean_environment, monkeypatch, flags, variables, problem):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    message = _message(**flags)
    sources = "flags, environment" if variables else "flags"
    assert message.startswith(f"invalid configuration ({sources}): {problem}"), message
    assert "MEMCTL_BATCH_SIZE" not in message


@pytest.mark.parametrize(("variable", "value"), [
    ("MEMCTL_TRANSCRIPT_PROCESSES", "abc"), ("MEMCTL_WORKERS", "65"), ("OLLAMA_HOST", "http://[bad"),
])
def test_the_command_line_prints_the_variable_on_one_line(clean_environment, variable, value):
    env = {**os.environ, "PYTHONPATH": str(REPO), variable: value, "COLUMNS": "60"}
    result = subprocess.run([sys.executable, "-m", "memctl.cli", "ingest", "--dry-run", "--db", "/nonexistent.db"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == exit_codes.USAGE
    assert result.stderr.startswith(f"error: invalid configuration (environment): {variable}={shlex.quote(value)}: ")
    assert len(result.stderr.strip().splitlines()) == 1 and "config.toml" not in result.stderr
