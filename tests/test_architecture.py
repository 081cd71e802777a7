"""The layout's rules, checked on the source: no import circle, one CLI boundary, Cognee behind memctl/graph/.

The import graph counts every import in a module, the ones inside functions
too (a lazy import is still a dependency). ``from package import name`` is an
edge to ``package.name`` when that is a module, else to ``package``.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "memctl"


def _module_name(path: Path, root: Path = REPO) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, root: Path = REPO, modules: dict[str, Path] | None = None) -> set[str]:
    """Names of the modules ``path`` (a module of the package under ``root``) imports (anywhere in it), absolute."""
    modules = MODULES if modules is None else modules
    found: set[str] = set()
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
    return found


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The package's import graph (module name -> the package modules it imports), parsed on first use.

    Built when a test first asks, not at import: collection would pay the parse of every module in every xdist
    worker and in every run that deselects these tests (about 2-5 s).
    """
    return {name: {m for m in _imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_graph_is_read_from_every_module() -> None:
    assert len(MODULES) > 60 and "memctl.cli.main" in MODULES and "memctl.connectors.opencode.source" in MODULES
    assert "memctl.cli.app" in _graph()["memctl.cli.commands.ingest"]
    assert "memctl.graph.knowledge_graph" in _graph()["memctl.ingest.run"]  # a lazy import counts
    assert "memctl.store.steps" in _graph()["memctl.store.memory_store"]  # `from memctl.store import steps`


def test_cycle_detection_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_modules() -> None:
    assert _cycles(_graph()) == []


def test_the_cli_app_imports_no_command_and_main_imports_them_all() -> None:
    commands = {m for m in MODULES if m.startswith("memctl.cli.commands.")}
    assert {"memctl.cli.commands.ingest", "memctl.cli.commands.ask", "memctl.cli.commands.remember"} <= commands
    assert not _graph()["memctl.cli.app"] & commands
    assert _graph()["memctl.cli.main"] >= commands
    for command in commands:
        assert "memctl.cli.app" in _graph()[command], command


@pytest.mark.parametrize("library", ["cognee", "cognee_db_workers"])
def test_only_memctl_graph_imports_cognee(library: str) -> None:
    users = sorted(name for name, path in MODULES.items()
                   if any(m == library or m.startswith(library + ".") for m in _imports(path)))
    assert users and all(name.startswith("memctl.graph.") for name in users), users


def test_only_the_memctl_namespace_is_installed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["memctl*"]
    assert config["project"]["scripts"] == {"memctl": "memctl.cli.main:main"}
    assert not (REPO / "connectors").exists() and not (REPO / "prompts").exists()
    assert sorted(p.name for p in (PACKAGE / "prompts").glob("*.md")) == [
        "answer.md", "consolidate.md", "distill.md", "propose.md", "route.md"]


def _extra(config: dict, name: str) -> set[str]:
    return {d.split("=")[0].split("[")[0].strip().lower() for d in config["project"]["optional-dependencies"][name]}


def test_every_runtime_import_is_a_declared_dependency() -> None:
    import sys
    from importlib.metadata import packages_distributions

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    declared = {d.split(";")[0].split("[")[0].split("=")[0].split("<")[0].split(">")[0].strip().lower().replace("_", "-")
                for d in config["project"]["dependencies"]}
    distributions = packages_distributions()
    missing = {}
    for name, path in MODULES.items():
        for module in _imports(path):
            top = module.split(".")[0]
            if top in ("memctl", "__future__") or top in sys.stdlib_module_names:
                continue
            owners = {d.lower().replace("_", "-") for d in distributions.get(top, [top])}
            if name.startswith("memctl.sleep.engines.flyte_") and owners & _extra(config, "flyte"):
                continue  # the optional Flyte engine: loaded only by `--engine flyte`, which needs the extra
            embedded = _extra(config, "embedded")
            if top not in distributions:  # an extra not installed here: its import name starts its distribution name
                owners |= {d for d in embedded if d.startswith(top.lower().replace("_", "-"))}
            if name.startswith("memctl.embedded.") and owners & embedded:
                continue  # the embedded model backend: loaded only with model_backend = "embedded", which needs the extra
            if not owners & declared:
                missing.setdefault(top, name)
    assert missing == {}, f"imported but not in pyproject dependencies: {missing}"


# -- layers: the cycles never import each other; shared services never import a cycle ---------------------

CYCLES = ("ingest", "ask", "sleep", "forget", "serve")
# Above the cycles: the CLI (and `python -m memctl`, its entry point), and `doctor` (a report over every
# cycle's state, run only by the CLI).
TOP = ("cli", "doctor", "__main__")

# A cycle reaches another only through that cycle's public entry point, and only where named here. The
# list only shrinks: a new cross-cycle import fails the test, and so does an entry that is no longer used.
PUBLIC_ENTRIES = {
    # `serve` is `ask` behind MCP: it answers, routes, retrieves and stages proposals as ask does.
    ("serve", "memctl.ask.api"),
}
# Arrows between cycles' modules that are still there, each with where it should go: none left.
ALLOWED_CROSS_CYCLE: set[tuple[str, str]] = set()


def _layer(module: str) -> str:
    """``ingest`` … ``serve`` for a cycle's module, ``top`` for the CLI and doctor, else ``shared``."""
    part = module.split(".")[1] if module.count(".") else ""
    return part if part in CYCLES else "top" if part in TOP else "shared"


def _layer_violations(graph: dict[str, set[str]],
                      entries: set[tuple[str, str]] | None = None) -> set[tuple[str, str]]:
    """Imports that run sideways between cycles (but to a public entry in ``entries``, ``(cycle, module)``)
    or up from a shared service into a cycle or the top."""
    entries = PUBLIC_ENTRIES if entries is None else entries
    found = set()
    for module, imported in graph.items():
        source = _layer(module)
        for target in imported:
            destination = _layer(target)
            if destination == source or source == "top" or destination == "shared" or (source, target) in entries:
                continue
            found.add((module, target))
    return found


def _entries_used(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The ``(cycle, public entry)`` pairs of :data:`PUBLIC_ENTRIES` some module of that cycle imports."""
    return {(cycle, entry) for cycle, entry in PUBLIC_ENTRIES
            if any(_layer(module) == cycle and entry in imported for module, imported in graph.items())}


def test_the_cycles_never_import_each_other_and_shared_services_no_cycle() -> None:
    violations = _layer_violations(_graph())
    assert violations - ALLOWED_CROSS_CYCLE == set(), "new arrows between layers"
    assert ALLOWED_CROSS_CYCLE - violations == set(), "arrows gone: remove them from ALLOWED_CROSS_CYCLE"
    assert _entries_used(_graph()) == PUBLIC_ENTRIES, "a public entry no cycle uses: remove it from PUBLIC_ENTRIES"
    for _cycle, entry in PUBLIC_ENTRIES:  # an entry point only re-exports its own cycle: no door into a third
        assert {_layer(m) for m in _graph()[entry]} <= {_layer(entry), "shared"}, entry


def test_the_layer_check_fails_on_a_deliberate_cross_cycle_import(tmp_path: Path) -> None:
    """A temporary package with a cycle importing another, and a shared service importing a cycle."""
    package = tmp_path / "memctl"
    for folder, source in {"ask": "from memctl.ingest import run\n", "ingest": "import memctl.store\n",
                           "store": "from memctl.sleep.run import SleepRun\n", "sleep": "",
                           "cli": "from memctl.ask import run\nimport memctl.doctor\n"}.items():
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
        (package / folder / "run.py").write_text(source)
    (package / "doctor.py").write_text("from memctl.sleep import run\n")
    names = {_module_name(p, tmp_path): p for p in package.rglob("*.py")}
    graph = {name: {m for m in _imports(path, tmp_path, names) if m in names and m != name}
             for name, path in names.items()}
    assert _layer_violations(graph) == {("memctl.ask.run", "memctl.ingest.run"),
                                        ("memctl.store.run", "memctl.sleep.run")}
    # serve through ask's public entry is allowed; serve into ask's inside is not
    for name, source in {"memctl.ask.api": "from memctl.ask import run\n",
                         "memctl.serve.run": "from memctl.ask.api import ask\nfrom memctl.ask.run import x\n"}.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(source)
    names = {_module_name(p, tmp_path): p for p in package.rglob("*.py")}
    graph = {name: {m for m in _imports(path, tmp_path, names) if m in names and m != name}
             for name, path in names.items()}
    violations = _layer_violations(graph, {("serve", "memctl.ask.api")})
    assert ("memctl.serve.run", "memctl.ask.run") in violations and ("memctl.serve.run", "memctl.ask.api") not in violations
    assert ("memctl.serve.run", "memctl.ask.api") in _layer_violations(graph, set())


def test_only_the_cli_runs_doctor_and_every_check_line_is_shared() -> None:
    users = {name for name, imported in _graph().items() if "memctl.doctor" in imported}
    assert users and all(name.startswith("memctl.cli.") for name in users), users
    assert "memctl.health_check" in _graph()["memctl.sleep.engines.doctor"]


# -- size: no module over MAX_LINES lines unless it does one job, named here --------------------------------

MAX_LINES = 600
# Modules over the limit, each with its one job. The list only shrinks: a new long module fails, and so
# does an entry that is no longer long (or gone).
LONG_MODULES: dict[str, str] = {}  # none today: every module is within MAX_LINES


def _long_modules(paths: dict[str, Path], limit: int = MAX_LINES) -> set[str]:
    """Names of the modules in ``paths`` with more than ``limit`` lines."""
    return {name for name, path in paths.items() if len(path.read_text(encoding="utf-8").splitlines()) > limit}


def test_no_long_module_beyond_the_named_ones() -> None:
    long = _long_modules(MODULES)
    assert long - set(LONG_MODULES) == set(), f"over {MAX_LINES} lines: split by job, or name its one job here"
    assert set(LONG_MODULES) - long == set(), "no longer long: remove them from LONG_MODULES"


def test_the_size_check_finds_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert _long_modules({"short": tmp_path / "short.py", "long": tmp_path / "long.py"}) == {"long"}


# -- JSON: home state is read by memctl.state_file alone, and RecursionError is caught there alone -----------

STATE_READER = "memctl.state_file"
# Modules that still decode JSON with json.load/json.loads/orjson.loads themselves, each because what they
# decode is not a state file of the data home. A state file (checkpoint, topics, topic index, sleep state,
# ledger, rejections, forget journal, location, caches) is read by read_state/parse_state/decode_json.
JSON_NOT_STATE = {
    # agents' histories and the agents' own files (read-only connectors; hooks; the agents' configs)
    "memctl.connectors.claude_code.lines": "Claude Code transcripts",
    "memctl.connectors.claude_code.source": "Claude Code's subagent .meta.json",
    "memctl.connectors.codex.lines": "Codex rollouts",
    "memctl.connectors.codex.rollout": "Codex rollouts",
    "memctl.connectors.codex.source": "Codex rollouts' timestamps",
    "memctl.connectors.opencode.cells": "OpenCode's database cells",
    "memctl.hooks.claude_code": "Claude Code's settings.json and the hook's stdin",
    "memctl.hooks.codex": "Codex's notify argv",
    "memctl.hooks.codex_notify": "Codex's notify payload and argv",
    "memctl.serve.claude_config": "Claude Code's settings.json",
    "memctl.serve.jsonc_edit": "an agent's JSONC config, value by value",
    "memctl.doctor": "Claude Code's settings.json (cleanupPeriodDays)",
    "memctl.forget.files": "any JSON file forget redacts",
    "memctl.forget.vocabulary": "agents' JSON and JSONL files forget searches",
    # Cognee's tables and config (behind memctl/graph/, or its SQLite rows)
    "memctl.graph.configure": "Cognee's LLM arguments from the environment",
    "memctl.graph.relocate": "Cognee's data rows' metadata",
    "memctl.graph.search": "Cognee's search results' metadata",
    "memctl.ingest.graph_ledger": "Cognee's pipeline status column",
    "memctl.ask.chunk_reader": "Cognee's chunk metadata (the chunk cache's header goes through decode_json)",
    # other formats: network messages, packaged data, an export, the store's audit chain, a token
    "memctl.embedded.server": "HTTP request bodies and the grammar's schema",
    "memctl.openai_compat": "server-sent events of an OpenAI-compatible server",
    "memctl.sleep.engines.flyte_engine": "Flyte task inputs and outputs",
    "memctl.archive": "the manifest inside an export archive",
    "memctl.store.audit": "the audit log (orjson; its own integrity errors, no recursion)",
    "memctl.validator.confusables": "Unicode's confusables table shipped by a package",
    "memctl.scrub.core": "a JWT's header, to tell a token from look-alikes",
}
_JSON_READERS = {("json", "load"), ("json", "loads"), ("orjson", "loads")}


def _json_use(path: Path) -> tuple[bool, bool]:
    """``(decodes JSON with json/orjson itself, catches RecursionError)`` for the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    decodes = catches = False
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in _JSON_READERS):
            decodes = True
        elif isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
            catches = catches or "RecursionError" in names
    return decodes, catches


def _json_offenders(paths: dict[str, Path]) -> tuple[set[str], set[str]]:
    """Modules (not the state reader) that decode JSON themselves, and those that catch RecursionError."""
    uses = {name: _json_use(path) for name, path in paths.items() if name != STATE_READER}
    return {n for n, (d, _) in uses.items() if d}, {n for n, (_, c) in uses.items() if c}


def test_recursion_error_is_caught_in_the_state_reader_alone() -> None:
    _decoders, catchers = _json_offenders(MODULES)
    assert catchers == set(), "decode with memctl.state_file.decode_json and catch ValueError"
    assert _json_use(MODULES[STATE_READER])[1]


def test_json_of_the_home_is_decoded_by_the_state_reader_alone() -> None:
    decoders, _catchers = _json_offenders(MODULES)
    assert decoders - set(JSON_NOT_STATE) == set(), "a state file: read it with memctl.state_file.read_state"
    assert set(JSON_NOT_STATE) - decoders == set(), "no JSON decoded there any more: remove from JSON_NOT_STATE"


def test_the_json_check_finds_a_loader_and_a_recursion_catch(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import json\n\ndef f(p):\n    try:\n        return json.loads(p.read_text())\n"
                                   "    except (ValueError, RecursionError):\n        return None\n")
    (tmp_path / "b.py").write_text("import orjson\nx = orjson.loads(b'1')\n")
    (tmp_path / "c.py").write_text("from memctl.state_file import decode_json\nx = decode_json('1')\n")
    found = _json_offenders({"a": tmp_path / "a.py", "b": tmp_path / "b.py", "c": tmp_path / "c.py"})
    assert found == ({"a", "b"}, {"a"})


def test_decode_json_turns_deep_nesting_into_a_value_error() -> None:
    from memctl.state_file import JSONNestingError, decode_json

    assert decode_json(b'{"a": [1]}') == {"a": [1]}
    with pytest.raises(JSONNestingError):
        decode_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError):
        decode_json(b"\xff")


def test_the_engine_option_names_the_engines_the_setting_and_sleep_know() -> None:
    from typing import get_args

    from memctl.cli.app import EngineName
    from memctl.config import Settings
    from memctl.sleep.engines.select import ENGINES

    names = [e.value for e in EngineName]
    assert names == list(ENGINES) == list(get_args(Settings.model_fields["sleep_engine"].annotation))
