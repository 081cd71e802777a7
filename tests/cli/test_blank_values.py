"""Values typed empty or as spaces, and paths of the wrong kind, refused before a command runs.

An empty word is an unset shell variable (``memctl export "$OUT"``); a value of spaces is a quoting slip.
Each is one line on stderr, exit 2, and nothing written where the user stands
(:func:`memctl.cli.path_options.blank_value`, :func:`memctl.cli.path_options.not_a_file`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memctl.cli.main import app
from memctl.cli.path_options import PATH_METAVARS

runner = CliRunner()

BLANK_CASES = [
    (("export", ""), "export PATH is empty: give a path"),
    (("export", "  "), "export PATH is only whitespace ('  '): give a path"),
    (("import", ""), "import PATH is empty: give a path"),
    (("show", ""), "show PATH is empty: give a path"),
    (("history", " "), "history PATH is only whitespace (' '): give a path"),
    (("forget", "", "--dry-run"), "forget PATH is empty: give a path"),
    (("list", ""), "list PREFIX is empty: give a prefix"),
    (("remember", "a fact", "--file", " "), "--file is only whitespace (' '): give a path, or leave the option out"),
    (("ingest", "--dry-run", "--db= "), "--db is only whitespace (' '): give a path, or leave the option out"),
    (("ingest", "--dry-run", "--project", ""), "--project is empty: give a value, or leave the option out for its default"),
    (("ask", "why?", "--topic", ""), "--topic is empty: give a value, or leave the option out for its default"),
    (("search", "x", "-t", " "), "-t is only whitespace (' '): give a value, or leave the option out"),
    (("list", "--topic", ""), "--topic is empty: give a value, or leave the option out for its default"),
    (("audit", "--actor", ""), "--actor is empty: give a value, or leave the option out for its default"),
    (("purge", "--text", "  ", "--dry-run"), "--text is only whitespace ('  '): give a value, or leave the option out"),
    (("purge", "--session", "", "--dry-run"), "--session is empty: give a value, or leave the option out for its default"),
    (("rollback", "user/a.md", "--to", ""), "--to is empty: give a value, or leave the option out for its default"),
]


@pytest.mark.parametrize(("args", "message"), BLANK_CASES, ids=[" ".join(map(repr, a)) for a, _ in BLANK_CASES])
def test_a_blank_value_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              args: tuple[str, ...], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [f"error: {message}"]
    assert list(tmp_path.iterdir()) == []


def test_text_after_a_double_dash_is_never_judged_as_an_option(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    result = runner.invoke(app, ["remember", "--home", str(tmp_path / "home"), "--", "--topic"])
    assert "is empty" not in result.stderr and "whitespace" not in result.stderr


WRONG_KIND_CASES = [
    (("ingest", "--dry-run", "--claude-dir", "{file}"), "--claude-dir {file}: is a file, not a directory"),
    (("ingest", "--dry-run", "--codex-home", "{file}"), "--codex-home {file}: is a file, not a directory"),
    (("schedule", "install", "--dry-run", "--unit-dir", "{file}"), "--unit-dir {file}: is a file, not a directory"),
    (("schedule", "status", "--unit-dir", "{file}"), "--unit-dir {file}: is a file, not a directory"),
]


@pytest.mark.parametrize(("args", "message"), WRONG_KIND_CASES, ids=[" ".join(a) for a, _ in WRONG_KIND_CASES])
def test_a_file_where_a_directory_belongs_is_refused(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a directory\n")
    (tmp_path / "home").mkdir()
    words = [w.format(file=a_file) for w in args] + ["--home", str(tmp_path / "home")]
    result = runner.invoke(app, words)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == ["error: " + message.format(file=a_file)]
    assert a_file.read_text() == "not a directory\n"


def test_schedule_install_refuses_a_db_directory_without_a_database(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    empty = tmp_path / "opencode"
    empty.mkdir()
    result = runner.invoke(app, ["schedule", "install", "--dry-run", "--db", str(empty), "--home", str(tmp_path / "home")])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: --db: {empty} is a directory without an OpenCode database"), result.stderr
    assert "[Unit]" not in result.stdout


def test_every_path_parameter_says_it_is_a_path() -> None:
    """The refusals find path options by their metavar (DIR, PATH, FILE): a Path-typed parameter with another
    metavar would let ``""`` through as the current directory."""

    def leaves(command, name: str):  # noqa: ANN001, ANN202 - Typer's own command classes
        if hasattr(command, "commands"):
            for sub_name, sub in command.commands.items():
                yield from leaves(sub, f"{name} {sub_name}")
        else:
            yield name, command

    paths = [(name, param) for name, command in leaves(typer.main.get_command(app), "memctl")
             for param in command.params if getattr(param.type_descriptor, "annotation", None) is Path]
    assert len(paths) > 10, paths  # the check sees the path options
    assert [f"{name} {param.name} ({param.metavar})" for name, param in paths
            if param.metavar not in PATH_METAVARS] == []


def test_a_home_variable_of_spaces_is_refused_not_made_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMCTL_HOME", "  ")
    result = runner.invoke(app, ["remember", "we deploy with helm"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == "error: MEMCTL_HOME is only whitespace ('  '): give a path, or unset it for the default home"
    assert list(tmp_path.iterdir()) == []


def test_an_ollama_host_with_spaces_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-clone review D7: OLLAMA_HOST='not a host' was taken as host 'not a host', port 11434."""
    monkeypatch.setenv("OLLAMA_HOST", "not a host")
    result = runner.invoke(app, ["doctor", "--json", "--home", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "OLLAMA_HOST='not a host'" in result.stderr and "a host has no spaces" in result.stderr, result.stderr
