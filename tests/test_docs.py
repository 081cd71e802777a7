"""Docs that cannot drift from the code: docs/cli.md, docs/config.md, the README's exit codes and folders; no stray exit codes."""

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
