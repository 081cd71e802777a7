"""Docs that cannot drift from the code: docs/cli.md, docs/config.md, docs/data-home.md, the README's exit codes, folders, links and command lines; no stray exit codes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from memctl import exit_codes

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_docs_cli_md_is_generated_from_the_app() -> None:
    from memctl.cli.reference import render_reference

    expected = render_reference()
    assert "## `memctl schedule install`" in expected and "--sleep-every INTERVAL" in expected
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == expected, (
        "docs/cli.md is stale: run `python -m memctl.cli.reference > docs/cli.md`")


def test_docs_config_md_is_generated_from_the_settings() -> None:
    from memctl.cli.reference import render_config_reference
    from memctl.config import Settings

    expected = render_config_reference()
    rows = [line for line in expected.splitlines() if line.startswith("| `")]
    assert len(rows) == len(Settings.model_fields) > 40
    assert "| `workers` | `MEMCTL_WORKERS` | int | `2` | >= 1, <= 64 | Concurrent distill calls. |" in rows
    assert "`OLLAMA_HOST`, `MEMCTL_OLLAMA_HOST`" in expected
    assert (REPO / "docs" / "config.md").read_text(encoding="utf-8") == expected, (
        "docs/config.md is stale: run `python -m memctl.cli.reference config > docs/config.md`")


def test_every_setting_describes_itself_and_the_readme_points_to_docs_config_md() -> None:
    from memctl.config import Settings

    undescribed = [name for name, field in Settings.model_fields.items() if len(field.description or "") < 10]
    assert undescribed == []
    assert "docs/config.md" in _section(README, "Configuration")


def _section(markdown: str, heading: str) -> str:
    start = markdown.index(f"\n## {heading}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start:end if end >= 0 else None]


def _code_constants() -> dict[str, int]:
    return {name: value for name, value in vars(exit_codes).items() if name.isupper() and isinstance(value, int)}


def test_readme_exit_code_table_equals_exit_codes_py() -> None:
    rows = re.findall(r"^\| (\d+) \| (.+?) \|$", _section(README, "Exit codes"), re.MULTILINE)
    documented = [int(code) for code, _meaning in rows]
    assert documented == sorted(documented) and len(documented) == len(set(documented))
    assert set(documented) == set(_code_constants().values())
    assert len(_code_constants()) == len(set(_code_constants().values()))  # one meaning per number


def test_readme_how_it_works_names_folders_and_files_that_exist() -> None:
    section = _section(README, "How it works")
    paths = re.findall(r"`((?:memctl|tests|docs)/[^`]*)`", section)
    assert len(paths) >= 8 and "memctl/ingest/" in paths and "memctl/cli/" in paths
    for path in paths:
        assert (REPO / path.rstrip("/")).exists(), path


def test_readme_names_no_module_that_moved() -> None:
    for old in ("connectors/opencode.py", "memctl/validator.py", "memctl/ingest.py", "memctl/cli.py",
                "memctl/schedule.py", "memctl/knowledge_graph.py", "memctl/wake.py", "(`prompts/",
                "ask/context_quoting"):
        assert old not in README, old


# -- no literal exit code outside memctl/exit_codes.py ------------------------------------------------

_EXIT_CALLS = ("Exit", "exit", "SystemExit", "fail")


def _literal_exit_codes(path: Path) -> list[str]:
    """Places where ``path`` spells an exit code as a number instead of naming it."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _EXIT_CALLS or name.endswith("Error"):
                args = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(a, ast.Constant) and type(a.value) is int for a in args):
                    found.append(f"{path.name}:{node.lineno} {name}(…)")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in targets]
            if any("exit_code" in n for n in names) and isinstance(node.value, ast.Constant):
                found.append(f"{path.name}:{node.lineno} exit_code = …")
        elif isinstance(node, ast.FunctionDef) and "exit_code" in node.name:
            found += [f"{path.name}:{r.lineno} return …" for r in ast.walk(node)
                      if isinstance(r, ast.Return) and isinstance(r.value, ast.Constant)]
    return found


def test_the_literal_exit_code_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import typer\nclass E(Exception):\n    exit_code = 7\n"
                   "def f():\n    raise typer.Exit(2)\ndef g():\n    raise IngestError('x', 3)\n"
                   "class S:\n    @property\n    def exit_code(self):\n        return 4\n")
    assert len(_literal_exit_codes(bad)) == 4


@pytest.mark.parametrize("path", sorted(p for p in (REPO / "memctl").rglob("*.py") if p.name != "exit_codes.py"),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_no_literal_exit_code_outside_exit_codes_py(path: Path) -> None:
    assert _literal_exit_codes(path) == []


# -- no pointers to documents the repository does not hold ----------------------------------------------

_OUTSIDE = re.compile(r"DESIGN\.md|seeds/|shared/seeds|design card|ingester design|memory-store design|\bissue \d+\b",
                      re.IGNORECASE)


def test_code_names_no_document_outside_the_repository() -> None:
    sources = [p for folder in ("memctl", "tests", "bench") for p in (REPO / folder).rglob("*.py")]
    assert len(sources) > 80
    hits = [f"{p.relative_to(REPO)}:{n}" for p in sources if p.name != "test_docs.py"
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1) if _OUTSIDE.search(line)]
    assert hits == []


# -- code that names a module or file names one that exists ----------------------------------------------

_PATH_MENTION = re.compile(r"\bmemctl/[\w/]+\.(?:py|md|j2)\b")
_MODULE_MENTION = re.compile(r":mod:`(memctl(?:\.\w+)+)`")


def _dangling_mentions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    missing = [m for m in _PATH_MENTION.findall(text) if not (REPO / m).exists()]
    for module in _MODULE_MENTION.findall(text):
        parts = module.split(".")
        if not ((REPO / Path(*parts)).with_suffix(".py").exists() or (REPO / Path(*parts) / "__init__.py").exists()):
            missing.append(module)
    return missing


def test_code_names_only_modules_and_files_that_exist() -> None:
    # The product's own modules only: tests and benchmarks name old paths on purpose (fixture text, git revisions).
    dangling = {str(p.relative_to(REPO)): found for p in (REPO / "memctl").rglob("*.py")
                if (found := _dangling_mentions(p))}
    assert dangling == {}


def test_the_dangling_mention_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('"""See memctl/wake.py and :mod:`memctl.note_search`; memctl/ask/run.py is fine."""\n')
    assert _dangling_mentions(bad) == ["memctl/wake.py", "memctl.note_search"]


# -- docs/data-home.md: generated from DataHome -------------------------------------------------------


def test_docs_data_home_md_is_generated_from_the_data_home() -> None:
    from memctl.cli.reference import render_data_home_reference

    assert (REPO / "docs" / "data-home.md").read_text(encoding="utf-8") == render_data_home_reference(), (
        "docs/data-home.md is stale: run `python -m memctl.cli.reference data-home > docs/data-home.md`")


def test_docs_data_home_md_names_every_path_of_the_data_home() -> None:
    from memctl.cli.reference import render_data_home_reference
    from memctl.data_home import DataHome

    text = render_data_home_reference()
    listed = re.findall(r"^\| `([^`]+)` \| (.+) \|$", text, re.MULTILINE)
    paths = {path for path, _meaning in listed}
    home = DataHome(Path("/h"))
    properties = [getattr(home, name) for name, member in vars(DataHome).items() if isinstance(member, property)]
    assert len(properties) >= 18
    missing = [p for p in properties if not {str(p.relative_to(home.root)), f"{p.relative_to(home.root)}/"} & paths]
    assert missing == []
    for named in ("graph_ledger.json", "sleep_state.json", "cognee/logs/", "cache/chunks/", "logs/library.log",
                  "forget-journal.json", "serve.sock", "store/audit/log.jsonl"):
        assert named in paths, named
    assert all(len(meaning) > 20 for _path, meaning in listed)  # every path says what it holds
    assert "docs/data-home.md" in _section(README, "Where data goes")


# -- links between the README and docs/ resolve ---------------------------------------------------------

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^ *```.*?^ *```", re.MULTILINE | re.DOTALL)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces → ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(markdown: str) -> set[str]:
    """Every heading's anchor in ``markdown`` (a repeated heading gets ``-1``, ``-2``… as on GitHub)."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", markdown), re.MULTILINE):
        slug = _slug(heading)
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _broken_links(path: Path) -> list[str]:
    """Relative links of the Markdown file ``path`` to a file that does not exist or a heading it lacks."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in _LINK.findall(_FENCE.sub("", text)):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto: …: not a file of this repository
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked.read_text(encoding="utf-8")):
            broken.append(target)
    return broken


_MARKDOWN = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", _MARKDOWN, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(path: Path) -> None:
    assert _broken_links(path) == []


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## The `memory` store: audit, rollback\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n[a](other.md) [b](other.md#the-memory-store-audit-rollback) [c](missing.md) "
                    "[d](other.md#nowhere) [e](#page) [f](#gone) [g](https://example.com/x.md)\n"
                    "```\n[h](fenced.md)\n```\n", encoding="utf-8")
    assert _broken_links(page) == ["missing.md", "other.md#nowhere", "#gone"]


def test_the_readme_is_short_and_links_every_doc() -> None:
    assert README.count("\n") < 400
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)", README))
    assert linked == {p.name for p in (REPO / "docs").glob("*.md")}


# -- every `memctl …` line in the README and docs/ is a command and options the app has ------------------

_CODE_SPAN = re.compile(r"`(memctl (?![\w-]+:)[^`]+)`")  # not a message memctl prints (`memctl serve: stopped`)


def _memctl_lines(markdown: str) -> list[str]:
    """The ``memctl …`` command lines of ``markdown``: in fenced blocks (after an environment assignment or a
    ``.venv/bin/`` path too; continuation lines joined) and in inline code spans."""
    found = []
    for block in _FENCE.findall(markdown):
        for line in block.replace("\\\n", " ").splitlines()[1:-1]:
            match = re.match(r"\s*(?:\$ )?(?:\w+=\S+ )*(?:\S*/)?(memctl .*)", line)
            if match:
                found.append(match.group(1))
    found += [" ".join(span.split()) for span in _CODE_SPAN.findall(_FENCE.sub("", markdown))]
    return found


def _command_problem(line: str) -> str | None:
    """Why ``line`` (``memctl SUB… [OPTIONS] [ARGS]``) is not a command of the app, or None. Options are checked
    against the command they follow; ``[--opt]`` is read as ``--opt``; nothing is run."""
    import shlex

    import typer.main

    from memctl.cli.boundary import ROOT_FLAGS
    from memctl.cli.main import app

    try:
        words = shlex.split(line, comments=True)[1:]
    except ValueError as exc:
        return f"{line}: {exc}"
    command = typer.main.get_command(app)
    path = ["memctl"]
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        word = word.strip("[]")
        if word.startswith("<"):
            break  # a placeholder (`memctl --verbose <command>`): what follows is not checked
        if word.startswith("-") and word != "-":
            if word == "--":
                break
            name = word.split("=", 1)[0]
            params = {opt: p for p in command.params for opt in (*p.opts, *p.secondary_opts)}
            if name == "--help" or name in ROOT_FLAGS:
                continue
            if name not in params:
                return f"{line}: {' '.join(path)} has no option {name}"
            param = params[name]
            skip = "=" not in word and not (getattr(param, "is_flag", False) or getattr(param, "count", False))
        elif hasattr(command, "commands"):  # a group (Typer's own Click: not click.Group)
            if word not in command.commands:
                return f"{line}: {' '.join(path)} has no command {word!r}"
            command = command.commands[word]
            path.append(word)
        # a positional argument of a command: not checked
    return None


def test_readme_and_docs_name_only_commands_and_options_the_app_has() -> None:
    lines = {}
    for path in _MARKDOWN:
        if path.name != "cli.md":  # generated from the app itself
            lines.update({line: path.relative_to(REPO) for line in _memctl_lines(path.read_text(encoding="utf-8"))})
    assert len(lines) > 80
    problems = [f"{where}: {problem}" for line, where in lines.items() if (problem := _command_problem(line))]
    assert problems == []


def test_the_command_check_can_fail() -> None:
    markdown = ("```bash\nmemctl ingest --dry-run --db x.db   # a plan\nOLLAMA_HOST=h .venv/bin/memctl ask \"q\" -t a\n"
                "memctl hooks install --codex [--print]\nmemctl injest\nmemctl mcp uninstall --cursor\n"
                "memctl schedule install --sleep-every 6h --home ~/d\n```\nThen `memctl sleep --no-such`; "
                "it prints `memctl serve: stopped`.\n")
    lines = _memctl_lines(markdown)
    assert len(lines) == 7
    problems = [_command_problem(line) for line in lines]
    assert problems[:3] == [None, None, None] and problems[5] is None
    assert "has no command 'injest'" in problems[3]
    assert "memctl mcp uninstall has no option --cursor" in problems[4]
    assert "memctl sleep has no option --no-such" in problems[6]


def test_readme_opens_with_the_quick_start_the_three_steps_and_everyday_commands() -> None:
    headings = re.findall(r"^## (.+)$", _FENCE.sub("", README), re.MULTILINE)
    assert headings[:3] == ["Quick start", "Use it from OpenCode, Claude Code or Codex in three steps",
                            "Everyday commands"]
    first_block = _FENCE.search(_section(README, "Quick start")).group(0).splitlines()[1:-1]
    assert [line.split()[0] for line in first_block] == ["./run.sh", "./test.sh"]
    steps = _section(README, "Use it from OpenCode, Claude Code or Codex in three steps")
    for agent in ("--opencode", "--claude-code", "--codex"):
        assert f"memctl mcp install {agent}" in steps and f"memctl hooks install {agent}" in steps
    everyday = [line.split()[1] for line in _memctl_lines(_section(README, "Everyday commands"))]
    assert everyday[:7] == ["ask", "search", "remember", "topics", "list", "sleep", "forget"]


def test_the_readme_gives_real_model_figures_or_says_there_are_none() -> None:
    """Issue 26 item 16: a reader deciding whether memctl keeps up with their history needs sessions per hour on a
    real model, or to be told plainly that none was measured (a fake server's figure is not a model's speed)."""
    paragraph = next((p for p in README.split("\n\n") if p.startswith("**Figures for a real model")), None)
    assert paragraph is not None, "the README has no 'Figures for a real model' paragraph"
    plain = " ".join(paragraph.split())
    says_none = re.search(r"\bnone\b.*\bhas been measured\b|\bnone (?:yet|measured)\b", plain)
    measured = re.search(r"[\d,.]+ sessions(?:/| per )hour on `?[\w.:-]+`?", plain)
    assert says_none or measured, plain
    if says_none:
        assert "fake" in plain, "a fake-server figure in the same paragraph must say it is not a model's speed"
