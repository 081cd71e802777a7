"""./run.sh's sample home (memctl.embedded.run_home): reused only by a run that would build the same one — the same
memctl files, sample, mode and settings — and stale homes removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.embedded import run_home
from memctl.embedded.run_home import main, prepare, run_key as _run_key


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A minimal checkout: a package file, the pins and the sample; the user cache dir inside tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MEMCTL_CONFIG", str(tmp_path / "no-config.toml"))
    root = tmp_path / "repo"
    (root / "memctl" / "__pycache__").mkdir(parents=True)
    (root / "memctl" / "__init__.py").write_text("VERSION = 1\n")
    (root / "pyproject.toml").write_text("[project]\nversion = '0.1.0'\n")
    (root / "constraints.txt").write_text("cognee==1.6.5\n")
    sample = root / "tests" / "fixtures" / "opencode-1.18"
    sample.mkdir(parents=True)
    (sample / "opencode.db").write_bytes(b"SQLite format 3\0" + bytes(64))
    return root


ENV = {"HOME": "/home/someone", "MEMCTL_CONFIG": "x"}


def run_key(repo: Path, mode: str, environ: dict[str, str]) -> str:
    """The key with the fake checkout's package folder as the memctl that runs."""
    return _run_key(repo, mode, environ, package=repo / "memctl")


@pytest.mark.parametrize("change", ["package file", "pyproject", "pins", "sample", "sample wal", "mode", "model",
                                    "ollama host"])
def test_whatever_decides_the_ingest_changes_the_key(repo: Path, change: str) -> None:
    before = run_key(repo, "embedded:subset", ENV)
    env = dict(ENV)
    mode = "embedded:subset"
    if change == "package file":
        (repo / "memctl" / "__init__.py").write_text("VERSION = 2\n")
    elif change == "pyproject":
        (repo / "pyproject.toml").write_text("[project]\nversion = '0.2.0'\n")
    elif change == "pins":
        (repo / "constraints.txt").write_text("cognee==1.6.6\n")
    elif change == "sample":
        (repo / "tests" / "fixtures" / "opencode-1.18" / "opencode.db").write_bytes(b"SQLite format 3\0" + bytes(65))
    elif change == "sample wal":
        (repo / "tests" / "fixtures" / "opencode-1.18" / "opencode.db-wal").write_bytes(b"wal")
    elif change == "mode":
        mode = "embedded:all"
    elif change == "model":
        env["MEMCTL_DISTILL_MODEL"] = "llama3.1:8b"
    else:
        env["OLLAMA_HOST"] = "http://127.0.0.1:11435"
    assert run_key(repo, mode, env) != before


def test_bytecode_home_and_trace_leave_the_key_alone(repo: Path) -> None:
    before = run_key(repo, "ollama", ENV)
    (repo / "memctl" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    env = {**ENV, "HOME": "/elsewhere", "MEMCTL_EMBEDDED_TRACE": "/tmp/t.jsonl", "MEMCTL_SETTLE_MINUTES": "0"}
    assert run_key(repo, "ollama", env) == before


def test_a_config_file_is_part_of_the_key(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "memctl.toml"
    config.write_text("workers = 1\n")
    monkeypatch.setenv("MEMCTL_CONFIG", str(config))
    before = run_key(repo, "ollama", ENV)
    config.write_text("workers = 2\n")
    assert run_key(repo, "ollama", ENV) != before


def test_a_home_is_reused_until_fresh_and_other_keys_are_removed(repo: Path) -> None:
    home, reused = prepare(repo, "ollama", environ=ENV, package=repo / "memctl")
    assert not reused and home.parent.parent == run_home.homes_root() and not home.exists()
    assert home.parent.is_dir()  # memctl refuses a --home whose parent is missing (the first clean-clone run did)
    (home / "store").mkdir(parents=True)  # what an ingest leaves
    assert prepare(repo, "ollama", environ=ENV, package=repo / "memctl") == (home, True)
    assert prepare(repo, "ollama", fresh=True, environ=ENV, package=repo / "memctl") == (home, False) and not home.exists()
    assert home.parent.is_dir()
    (home / "store").mkdir(parents=True)
    other, reused = prepare(repo, "embedded:subset", environ=ENV, package=repo / "memctl")
    assert other != home and not reused and not home.parent.exists()  # the stale home is gone


def test_the_command_prints_the_home_and_refuses_a_non_checkout(repo: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(repo), "ollama"]) == 0
    home, state = capsys.readouterr().out.rstrip("\n").split("\t")
    assert Path(home).name == "home" and state == "new"
    assert main([str(tmp_path / "nowhere"), "ollama"]) == 2
    assert "has no bundled sample" in capsys.readouterr().err
    assert main([str(repo)]) == 2
