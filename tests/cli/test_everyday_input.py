"""A new user's slips: empty path options, text Rich would restyle, agent config dirs that do not exist.

Each case runs the real ``memctl`` in a fresh working directory and checks the one error line, the exit
code, and that nothing was written where the user did not ask.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_in_process import run_cli

REPO = Path(__file__).resolve().parents[2]


def memctl_process(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m memctl.cli *args`` run in ``cwd`` with this tree first on the path: for ``doctor`` and
    ``serve``, which may import Cognee (see tests/support/cli_in_process.py), and for a run that must start with
    no per-process cache."""
    full = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "250", **(env or {})}
    return subprocess.run([sys.executable, "-m", "memctl.cli", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def memctl(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``memctl *args`` in this process (``run_cli``) in ``cwd``, the shape of :func:`memctl_process`'s result:
    the checks here read the error line, the exit code and the files left, not the process (21 calls, about
    1 s each in a process of their own, 4-20 s under load)."""
    return run_cli(*args, env={"COLUMNS": "250", **(env or {})}, cwd=cwd)


EMPTY_PATH_CASES = [
    (("remember", "--home", "", "a fact worth keeping"), "--home"),
    (("ingest", "--home=", "--dry-run"), "--home"),
    (("ask", "what?", "--home", ""), "--home"),
    (("doctor", "--db", ""), "--db"),
    (("ingest", "--dry-run", "--codex-home", ""), "--codex-home"),
    (("hooks", "install", "--opencode", "--opencode-config", "", "--yes"), "--opencode-config"),
    (("mcp", "install", "--opencode", "--project", "", "--yes"), "--project"),
    (("purge", "--secret-file", "", "--yes"), "--secret-file"),
]


@pytest.mark.parametrize(("args", "option"), EMPTY_PATH_CASES, ids=[" ".join(a) for a, _ in EMPTY_PATH_CASES])
def test_an_empty_path_option_is_refused_and_nothing_lands_in_the_working_directory(
        tmp_path: Path, args: tuple[str, ...], option: str) -> None:
    proc = memctl(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"error: {option} is empty: give a path, or leave the option out for its default"], proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_empty_home_variable_still_means_the_default(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = memctl(tmp_path, "remember", "an empty MEMCTL_HOME falls back to the default home",
                  env={"MEMCTL_HOME": "", "XDG_DATA_HOME": str(data)})
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert any(data.rglob("*.json")), "the proposal was staged in the per-user home"


ODD = ":smile:[bold]x"


def test_error_lines_print_paths_as_given(tmp_path: Path) -> None:
    not_a_dir = tmp_path / f"home{ODD}"
    not_a_dir.write_text("a file, not a directory")
    proc = memctl(tmp_path, "ask", "anything", "--home", str(not_a_dir))
    assert proc.returncode != 0
    assert str(not_a_dir) in proc.stderr, proc.stderr
    assert "😄" not in proc.stderr


def test_a_bad_ollama_host_is_quoted_unchanged(tmp_path: Path) -> None:
    proc = memctl(tmp_path, "ask", "anything", env={"OLLAMA_HOST": "notahost:abc:smile:"})
    assert proc.returncode == 2, proc.stderr
    assert "OLLAMA_HOST=notahost:abc:smile:" in proc.stderr, proc.stderr


def test_tables_and_notes_print_paths_as_given(tmp_path: Path) -> None:
    db = tmp_path / f"opencode{ODD}.db"
    proc = memctl_process(tmp_path, "doctor", "--db", str(db), "--home", str(tmp_path / "home"))
    assert str(db) in proc.stdout, proc.stdout
    assert "😄" not in proc.stdout + proc.stderr


AGENT_DIR_CASES = [
    ("mcp", "install", "--codex", "--codex-home"),
    ("mcp", "uninstall", "--codex", "--codex-home"),
    ("hooks", "install", "--opencode", "--opencode-config"),
    ("hooks", "install", "--codex", "--codex-home"),
    ("hooks", "uninstall", "--claude-code", "--claude-dir"),
    ("mcp", "install", "--opencode", "--project"),
]


@pytest.mark.parametrize("words", AGENT_DIR_CASES, ids=[" ".join(w) for w in AGENT_DIR_CASES])
def test_a_mistyped_agent_directory_is_refused_not_created(tmp_path: Path, words: tuple[str, ...]) -> None:
    *command, option = words
    typo = tmp_path / "typo"
    home = ["--home", str(tmp_path / "home")] if command[1] == "install" else []
    proc = memctl(tmp_path, *command, option, str(typo), "--yes", *home)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"error: {option} {typo}: no such directory"], proc.stderr
    assert not typo.exists()
    a_file = tmp_path / "hostname"
    a_file.write_text("box\n")
    proc = memctl(tmp_path, *command, option, str(a_file), "--yes", *home)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"error: {option} {a_file}: is a file, not a directory"], proc.stderr
    assert a_file.read_text() == "box\n"


def test_mcp_uninstall_claude_code_removes_only_what_install_added(tmp_path: Path) -> None:
    import json

    claude = tmp_path / "claude"
    claude.mkdir()
    config = claude / ".claude.json"
    other = {"type": "stdio", "command": "other-server", "args": [], "env": {}}
    config.write_text(json.dumps({"numStartups": 7, "mcpServers": {"other": other}}))
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    home = str(tmp_path / "home")
    installed = memctl(tmp_path, "mcp", "install", "--claude-code", "--yes", "--home", home, env=env)
    assert installed.returncode == 0, installed.stderr
    assert "memctl" in json.loads(config.read_text())["mcpServers"]
    removed = memctl(tmp_path, "mcp", "uninstall", "--claude-code", "--yes", env=env)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(config.read_text()) == {"numStartups": 7, "mcpServers": {"other": other}}
    again = memctl(tmp_path, "mcp", "uninstall", "--claude-code", "--yes", env=env)
    assert again.returncode == 0 and "memctl is not there; nothing to do" in again.stderr, again.stderr


def test_completion_for_an_unsupported_shell_is_refused(tmp_path: Path) -> None:
    proc = memctl(tmp_path, "--install-completion", "tcsh", env={"HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip() == "error: no shell completion for 'tcsh': choose from bash, zsh, fish, powershell, pwsh"
    assert list(tmp_path.iterdir()) == []  # no ~/.bash_completions, no ~/.bashrc line


def test_file_system_errors_name_the_path_and_what_is_wrong(tmp_path: Path) -> None:
    a_file = tmp_path / "hostname"
    a_file.write_text("box\n")
    missing = tmp_path / "nonexist"
    (tmp_path / "h").mkdir()
    purge = memctl(tmp_path, "purge", "--secret-file", str(missing), "--yes", "--home", str(tmp_path / "h"))
    assert purge.returncode == 2
    assert purge.stderr.strip() == f"error: cannot read --secret-file {missing}: does not exist"
    remember = memctl(tmp_path, "remember", "--home", str(a_file), "a fact")
    assert remember.returncode == 7
    assert remember.stderr.strip().startswith(f"error: cannot use the data home: {a_file} is a file, not a directory")
    doctor = memctl_process(tmp_path, "doctor", "--json", env={"XDG_DATA_HOME": str(a_file), "MEMCTL_HOME": ""})
    import json

    line = next(c for c in json.loads(doctor.stdout) if c["name"] == "data home")
    assert line["status"] == "fail" and ".memctl-doctor-" not in line["detail"], line
    for proc in (purge, remember):
        assert "Errno" not in proc.stderr and "Error:" not in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_a_kuzu_checkpoint_under_way_elsewhere_reads_as_a_busy_graph_store() -> None:
    from memctl.ask.retrieval import _graph_failure_reason
    from memctl.graph.failures import is_environment_error, is_store_busy

    class GraphMemoryError(Exception):
        pass

    kuzu = RuntimeError("Runtime exception: Found shadow file /home/u/.memctl/cognee/graph.kz/catalog.kz.pkl.shadow "
                        "but no write-ahead log")
    try:
        try:
            raise kuzu
        except RuntimeError as inner:
            raise GraphMemoryError("search in notes failed") from inner
    except GraphMemoryError as outer:
        wrapped = outer
    assert is_store_busy(wrapped) and is_environment_error(wrapped)
    message = _graph_failure_reason(wrapped)
    assert message.startswith("the graph store is in use by another memctl process"), message
    assert "shadow" not in message
    assert not is_store_busy(RuntimeError("Binder exception: table Node does not exist"))


def test_typos_are_shown_with_the_closest_valid_value(tmp_path: Path) -> None:
    kind = memctl(tmp_path, "remember", "a fact", "--kind", "prefrence")
    assert kind.returncode == 2
    assert "--kind must be preference, decision or note (got 'prefrence'; did you mean preference?)" in kind.stderr
    secret = memctl(tmp_path, "remember", "a fact", "--kind", "sk-FAKE0000abcd")
    assert secret.returncode == 2 and "sk-FAKE" not in secret.stderr and "15 characters, not shown" in secret.stderr
    source = memctl(tmp_path, "ingest", "--source", "opencod", "--home", str(tmp_path / "h"))
    assert source.returncode == 2
    assert source.stderr.strip() == ("error: unknown --source opencod (did you mean opencode?): choose from opencode, "
                                     "claude-code, codex")
    config = tmp_path / "config.toml"
    config.write_text("wrokers = 3\n")
    proc = memctl(tmp_path, "ask", "x", env={"MEMCTL_CONFIG": str(config)})
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("wrokers: Extra inputs are not permitted (did you mean workers?)"), proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


MISSING_HOME_COMMANDS = [("remember", "a fact"), ("ask", "q"), ("search", "q"), ("topics",), ("list",), ("sleep",),
                         ("audit", "verify"), ("history", "user/x.md"), ("forget", "user/x.md", "--yes")]


@pytest.mark.parametrize("args", MISSING_HOME_COMMANDS, ids=[a[0] for a in MISSING_HOME_COMMANDS])
def test_a_named_home_that_does_not_exist_is_refused_by_every_command_but_ingest(
        tmp_path: Path, args: tuple[str, ...]) -> None:
    home = tmp_path / "typo" / "home"
    proc = memctl(tmp_path, *args, "--home", str(home))
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: the data home {home} (from --home) does not exist")
    assert not (tmp_path / "typo").exists()


def test_ingest_and_serve_start_a_named_home_only_under_an_existing_parent(tmp_path: Path) -> None:
    db = REPO / "tests" / "fixtures" / "opencode-1.18" / "opencode.db"
    deep = tmp_path / "typo" / "home"
    refused = memctl(tmp_path, "ingest", "--dry-run", "--db", str(db), "--home", str(deep))
    assert refused.returncode == 7 and f"its parent {deep.parent} does not exist" in refused.stderr
    assert not deep.parent.exists()
    serve = memctl_process(tmp_path, "serve", "--home", str(deep))  # serve starts a home as ingest does, never a path
    assert serve.returncode == 7 and f"its parent {deep.parent} does not exist" in serve.stderr
    assert not deep.parent.exists()
    started = memctl(tmp_path, "ingest", "--dry-run", "--db", str(db), "--home", str(tmp_path / "new"))
    assert started.returncode == 0, started.stderr


def test_doctor_counts_the_topics_memctl_topics_lists(tmp_path: Path) -> None:
    import json

    from memctl.catalog.topic_index import TopicEntry, TopicIndex
    from memctl.catalog.topics import TopicRegistry
    from memctl.config import DataHome
    from memctl.doctor import check_topics

    home = DataHome(tmp_path / "home")
    home.root.mkdir()
    # the topics file (earlier format: paths only) still names gamma after `memctl purge` removed its notes
    home.topics.write_text(json.dumps({"paths": {"/w/alpha": "alpha", "/w/beta": "beta", "/w/gamma": "gamma"}}))
    TopicIndex({slug: TopicEntry(name=slug, worktree=f"/w/{slug}", description="", notes=[])
                for slug in ("alpha", "beta")}).save(home.topic_index)
    assert TopicRegistry.load(home.topics, read_only=True).slugs == ["alpha", "beta", "gamma"]
    check = check_topics(home)
    assert (check.status, check.detail) == ("ok", "2 topics")


def test_a_dry_run_writes_only_into_memctls_own_cache(tmp_path: Path) -> None:
    db = REPO / "tests" / "fixtures" / "opencode-1.18" / "opencode.db"
    user = tmp_path / "user"
    user.mkdir()
    env = {"HOME": str(user), "XDG_CACHE_HOME": "", "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": "", "MEMCTL_HOME": ""}
    # a process of its own: this one compiled and cached the scanner's rules already, a fresh one writes them
    proc = memctl_process(tmp_path, "ingest", "--dry-run", "--db", str(db), env=env)
    assert proc.returncode == 0, proc.stderr
    written = sorted(str(p.relative_to(user)) for p in user.rglob("*") if p.is_file())
    assert written, "the scanner's compiled rules are cached"
    assert all(p.startswith(".cache/memctl/scrub-rules/") for p in written), written
    assert not (user / ".cache" / "kingfisher").exists()
