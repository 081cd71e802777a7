"""Where a test file lives, and the tool that moves flat ones there (``git mv``) and rewrites what names them.

The suite mirrors the package: ``tests/<folder>/test_*.py`` with ``<folder>`` one of :data:`FOLDERS`
(a package of ``memctl/`` or one of the few extra folders below), shared helpers in ``tests/support/``,
fakes in ``tests/fakes/``, data in ``tests/fixtures/``, and every file that is end to end as a whole
(real Cognee, real processes over an ingested home) in ``tests/e2e/``. Only the repository-wide rule
files (:data:`TOP_LEVEL`) stay beside ``conftest.py``.

A file is placed by, in order: :data:`PLACED` (its name), a name ending in ``_e2e.py`` (``e2e``),
a module-level ``pytestmark`` naming ``e2e`` (``e2e``), then the longest matching prefix of
:data:`PREFIXES`. A test file no rule places is an error (exit 2): add it to :data:`PLACED`.

Usage (from the repository root; ``git`` on PATH)::

    python -m tests.support.layout            # print the plan: old path -> new path
    python -m tests.support.layout --apply    # git mv every flat file, then rewrite imports and paths

``--apply`` rewrites, in ``tests/``, ``bench/``, ``memctl/``, ``docs/``, ``README.md``, ``test.sh``,
``run.sh`` and ``.ci/``: dotted names (``tests.crafted_codex`` -> ``tests.support.crafted_codex``,
``from tests import test_cli`` -> ``from tests.cli import test_cli``), path mentions
(``tests/test_cli.py`` -> ``tests/cli/test_cli.py``), and in each moved file the ``Path(__file__)``
anchors one level deeper (``parents[1]`` -> ``parents[2]``). Files that quote a test path as session
text (:data:`TEXT_ONLY`) are left alone. Exit codes: 0 done (or nothing to do), 2 a file no rule places.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"

# Folders a test file may live in: packages of memctl/ (mirrored), plus `core` (memctl's top-level modules:
# archive, config, data home, kernel, encodings, state files), `models` (the model clients and the fake model
# server the tests use), `e2e`.
FOLDERS = ("ask", "catalog", "cli", "connectors", "core", "e2e", "embedded", "forget", "graph", "hooks",
           "ingest", "models", "prompts", "schedule", "scrub", "serve", "sleep", "store", "validator")
# Repository-wide rules (layers, docs, this layout): they read the whole tree, not one package.
TOP_LEVEL = ("test_architecture.py", "test_docs.py", "test_layout.py")
# Folders that hold helpers, never tests; `conftest.py` and `__init__.py` are allowed everywhere.
HELPER_FOLDERS = ("support", "fakes", "fixtures")
# Helper modules that used to sit beside the tests: all go to tests/support/.
SUPPORT = ("agent_binaries", "ask_batch", "catalog_corpus", "catalog_corpus_build", "chunk_parity",
           "crafted_claude_code", "crafted_codex", "crafted_opencode", "memctl_process", "opencode_mcp_e2e",
           "premodel_tasks", "proposal_corpus", "purge_child", "scrub_corpus", "store_child", "transcript_cases")

PREFIXES = {
    "test_ask": "ask", "test_routing": "ask", "test_fusion": "ask", "test_dense_retrieval": "ask",
    "test_chunk_reader": "ask", "test_read_commands": "ask", "test_memory_trust_ask": "ask",
    "test_raw_baselines": "ask",
    "test_catalog": "catalog", "test_checkpoint": "catalog", "test_topic": "catalog",
    "test_cli": "cli", "test_config": "cli", "test_copyable_output": "cli", "test_json_streams": "cli",
    "test_log_routing": "cli", "test_process_exit": "cli", "test_small_frictions": "cli",
    "test_dry_run": "cli", "test_install_as_tool": "cli", "test_run_sh": "cli", "test_interrupt": "cli",
    "test_claude_code": "connectors", "test_codex_connector": "connectors", "test_opencode": "connectors",
    "test_fixture_db": "connectors", "test_connector": "connectors",
    "test_archive": "core", "test_kernel": "core", "test_encodings": "core", "test_state_file": "core",
    "test_nested_json_state": "core", "test_isolation": "core", "test_data_home": "core",
    "test_settings": "core",
    "test_embedded": "embedded",
    "test_forget": "forget", "test_purge": "forget",
    "test_graph": "graph", "test_cognee": "graph", "test_cognify": "graph", "test_embedding": "graph",
    "test_knowledge_graph": "graph", "test_worker_signals": "graph", "test_home_relocation": "graph",
    "test_hooks": "hooks", "test_codex_hooks": "hooks", "test_codex_wiring": "hooks",
    "test_ingest": "ingest", "test_transcript": "ingest", "test_codex_transcript": "ingest",
    "test_publish": "ingest", "test_graph_ledger": "ingest", "test_premodel": "ingest",
    "test_model": "models", "test_fake": "models", "test_wordllama": "models", "test_ollama": "models",
    "test_context_quoting": "prompts", "test_prompt": "prompts",
    "test_schedule": "schedule",
    "test_scrub": "scrub",
    "test_mcp": "serve", "test_serve": "serve",
    "test_sleep": "sleep", "test_memory_trust": "sleep", "test_low_risk": "sleep",
    "test_store": "store",
    "test_validator": "validator", "test_low_risk_form": "validator", "test_consolidation": "validator",
}
# Names the prefixes would place elsewhere, or not at all.
PLACED = {
    "test_opencode_titles.py": "ingest",  # placeholder titles never reach a note or a topic's routing text
    "test_opencode_revert.py": "ingest",  # undone turns never reach the transcript, the model or the note
    "test_llama_runtime.py": "embedded",  # the embedded backend's llama.cpp runtime
    "test_run_home.py": "embedded",  # ./run.sh's sample home, reused by the next run of the same checkout
    "test_low_risk_kinds.py": "validator",
    "test_low_risk_disguise.py": "validator",  # ciphers, pictographs, controls off, redefinitions, forged formats  # what a memory would do, read as properties (exposure, deferred, …)
    "test_spelled_views.py": "validator",  # reversed words, NATO spelling, Braille, pig latin read as text
    "test_trustkinds_batches.py": "validator",  # the builder's instance batches of those two kinds
    "test_weakened_controls.py": "validator",  # controls turned off as data (settings, env, CI diffs) or euphemism
    "test_dev_tooling.py": "validator",  # project tooling commands and documentation links judged like facts
    "test_worker_home.py": "graph",  # Cognee's workers start with HOME inside the data home
    "test_blank_values.py": "cli",  # empty or blank values and paths of the wrong kind, refused before a command runs
    "test_everyday_input.py": "cli",  # bad input a new user types: empty paths, missing homes, typos
    "test_turn_index.py": "catalog",  # the turn index is part of the catalog of what was ingested
    "test_late_interaction.py": "catalog",  # the dense notes list's sentence term and its cached vectors
    "test_cli_summary_tables.py": "cli",
    "test_memory_trust_affects.py": "sleep",  # sleep holds an agent fact by what it affects
    "test_review_reasons.py": "sleep",  # the review queue says what each held reason code means
    "test_embedding_record.py": "graph",  # a graph made by one embedding model is not searched with another
    "test_corroboration.py": "sleep",  # an agent's fact about a control checked against the session's transcript
    "test_low_risk_control.py": "validator",  # a control stated off in any form, unread languages, not prose
    "test_labelled_values.py": "scrub",  # values set apart from their label: parentheses, next line, OCR
    "test_held_out_shapes.py": "scrub",  # round 7 kinds: URL userinfo with #, SAS, RADIUS/SNMP, chat-ops, wallets
    "test_embedded_secrets.py": "scrub",  # LoRaWAN, pysnmp, Keychain, Go []byte, CDATA, htpasswd, SSM, IaC cookies
    "test_settings_data.py": "validator",  # a control's setting written as data (table, CSV, sum, unit)
    "test_calm_weakening.py": "validator",  # a protection stated off in a calm fact
    "test_agent_grant.py": "validator",  # the agent may push/merge/deploy, in any language
    "test_tool_choice.py": "validator",  # a choice between package managers judged like a fact
    "test_readme_badges.py": "validator",  # README status badges judged like a fact
    "test_scoped_git.py": "validator",  # --force-with-lease kept to one's own branches judged like a fact
    "test_prose_backstop.py": "scrub",  # bare secrets next to a credential word of any language
}
# Files whose `tests/test_*.py` mentions are a session's text (what an agent ran), not a path of this suite.
TEXT_ONLY = ("tests/models/test_fake_ollama.py", "tests/fakes/", "tests/fixtures/synthetic_")
# Lines elsewhere that quote a test path as corpus text: a changed word would change what the corpus measures.
TEXT_LINES = ("Tests for the scrubber live in",)


def _module_marks(path: Path) -> set[str]:
    """Markers a module applies to every test through a module-level ``pytestmark`` (``pytest.mark.NAME``)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            return {n.attr for n in ast.walk(node.value)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and n.value.attr == "mark"}
    return set()


def folder_for(path: Path) -> str | None:
    """The folder (one of :data:`FOLDERS`) a test file belongs in, or ``None`` when no rule places it."""
    name = path.name
    if name in PLACED:
        return PLACED[name]
    if name.endswith("_e2e.py") or "e2e" in _module_marks(path):
        return "e2e"
    matches = [prefix for prefix in PREFIXES if name.removesuffix(".py") == prefix or name.startswith(prefix + "_")
               or name.startswith(prefix) and prefix.endswith("_")]
    return PREFIXES[max(matches, key=len)] if matches else None


def plan(tests: Path = TESTS) -> dict[str, str]:
    """Old module name -> new dotted module under ``tests`` for every flat helper and test file.

    Raises:
        LookupError: a flat test file no rule places (its name in the message).
    """
    moves: dict[str, str] = {}
    for path in sorted(tests.glob("*.py")):
        stem = path.stem
        if stem in SUPPORT:
            moves[stem] = f"support.{stem}"
        elif path.name.startswith("test_") and path.name not in TOP_LEVEL:
            folder = folder_for(path)
            if folder is None:
                raise LookupError(f"no folder for {path.name}: add it to PLACED in tests/support/layout.py")
            moves[stem] = f"{folder}.{stem}"
    return moves


_ANCHORS = (
    (re.compile(r"Path\(__file__\)\.resolve\(\)\.parents\[1\]"), "Path(__file__).resolve().parents[2]"),
    (re.compile(r"Path\(__file__\)\.resolve\(\)\.parent\.parent\b"), "Path(__file__).resolve().parents[2]"),
    (re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.parent / \"fixtures\""),
     "Path(__file__).resolve().parents[1] / \"fixtures\""),
)
_FROM_TESTS = re.compile(r"^(?P<indent>[ \t]*)from tests import (?P<names>[^()\n]+?)(?P<tail>[ \t]*(?:#.*)?)$",
                         re.MULTILINE)


def rewrite(text: str, moves: dict[str, str], *, paths: bool = True) -> str:
    """``text`` with every dotted name and (when ``paths``) path of a moved module pointing at its new place."""
    def from_tests(match: re.Match) -> str:
        groups: dict[str, list[str]] = {}
        for item in (s.strip() for s in match["names"].split(",")):
            module = item.split(" as ")[0].strip()
            target = moves.get(module)
            groups.setdefault("tests" + ("." + target.rpartition(".")[0] if target else ""), []).append(item)
        return "\n".join(f"{match['indent']}from {package} import {', '.join(items)}"
                         for package, items in groups.items()) + match["tail"]

    text = _FROM_TESTS.sub(from_tests, text)
    for old, new in moves.items():
        text = re.sub(rf"\btests\.{old}\b", f"tests.{new}", text)
        if paths:
            text = "".join(line if any(keep in line for keep in TEXT_LINES)
                           else re.sub(rf"\btests/{old}\.py\b", f"tests/{new.replace('.', '/')}.py", line)
                           for line in text.splitlines(keepends=True))
    return text


def _rewritten_files(repo: Path) -> list[Path]:
    files = [repo / name for name in ("README.md", "test.sh", "run.sh") if (repo / name).exists()]
    files += [p for p in (repo / ".ci").glob("*") if p.is_file()]
    files += [p for p in (repo / "docs").rglob("*.md")]
    files += [p for p in (repo / "tests" / "fixtures").glob("*.md")]
    for folder in ("tests", "bench", "memctl"):
        files += [p for p in (repo / folder).rglob("*.py") if "opencode-" not in str(p)]
    return files


def apply(repo: Path = REPO) -> dict[str, str]:
    """Move the flat files (``git mv``) and rewrite their references; returns the moves made."""
    moves = plan(repo / "tests")
    for old, new in moves.items():
        folder = repo / "tests" / new.rpartition(".")[0]
        folder.mkdir(exist_ok=True)
        init = folder / "__init__.py"
        if not init.exists():
            init.write_text("")
            subprocess.run(["git", "add", str(init)], cwd=repo, check=True)
        subprocess.run(["git", "mv", f"tests/{old}.py", f"tests/{new.replace('.', '/')}.py"], cwd=repo, check=True)
    moved = {repo / "tests" / (new.replace(".", "/") + ".py") for new in moves.values()}
    for path in _rewritten_files(repo):
        if path == Path(__file__).resolve():
            continue  # this file's examples name the old paths on purpose
        relative = path.relative_to(repo).as_posix()
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, moves, paths=not relative.startswith(TEXT_ONLY))
        if path in moved:
            for pattern, replacement in _ANCHORS:
                new = pattern.sub(replacement, new)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return moves


def main(argv: list[str] | None = None) -> int:
    """Print the plan, or with ``--apply`` carry it out. Exit 0, or 2 when a test file has no folder."""
    args = sys.argv[1:] if argv is None else argv
    try:
        moves = apply() if "--apply" in args else plan()
    except LookupError as error:
        print(f"layout: {error}", file=sys.stderr)
        return 2
    for old, new in moves.items():
        print(f"tests/{old}.py -> tests/{new.replace('.', '/')}.py")
    if not moves:
        print("layout: every test file is in its folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
