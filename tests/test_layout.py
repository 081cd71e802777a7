"""The suite's shape and lanes: tests mirror the package, helpers apart, end-to-end files in tests/e2e/, lanes that hold.

The rules and the mapping of names to folders are in :mod:`tests.support.layout` (``python -m
tests.support.layout --apply`` moves a flat file where they say); the xdist groups in :mod:`tests.support.lanes`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support import layout

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
ALWAYS_ALLOWED = ("__init__.py", "conftest.py")


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py"))


def test_only_conftest_and_the_repository_wide_rules_sit_at_the_top() -> None:
    top = {p.name for p in _python_files(TESTS)}
    assert top - set(ALWAYS_ALLOWED) - set(layout.TOP_LEVEL) == set(), "move it: python -m tests.support.layout --apply"
    assert layout.plan(TESTS) == {}


def test_every_test_file_lives_in_a_package_folder_and_every_folder_is_known() -> None:
    files = [p for p in TESTS.rglob("test_*.py") if "fixtures" not in p.relative_to(TESTS).parts]
    assert len(files) > 100
    misplaced = [str(p.relative_to(TESTS)) for p in files
                 if p.parent != TESTS and (p.parent.parent != TESTS or p.parent.name not in layout.FOLDERS)]
    assert misplaced == []
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders - set(layout.FOLDERS) - set(layout.HELPER_FOLDERS) == set()
    for folder in folders - set(layout.HELPER_FOLDERS) - {"fixtures"}:
        assert (TESTS / folder / "__init__.py").exists(), folder


@pytest.mark.parametrize("folder", [f for f in layout.FOLDERS if (TESTS / f).is_dir()])
def test_no_helper_module_sits_beside_the_tests(folder: str) -> None:
    helpers = [p.name for p in _python_files(TESTS / folder)
               if p.name not in ALWAYS_ALLOWED and not p.name.startswith("test_")]
    assert helpers == [], f"helpers go to tests/support/: {helpers}"


@pytest.mark.parametrize("folder", ["support", "fakes"])
def test_helper_folders_hold_no_tests(folder: str) -> None:
    assert [p.name for p in (TESTS / folder).glob("test_*.py")] == []


def test_every_test_file_is_where_the_mapping_places_it() -> None:
    """The mapping is the one source: a new file is placed by it, and a moved one must agree with it."""
    elsewhere = {str(p.relative_to(TESTS)): layout.folder_for(p) for p in TESTS.glob("*/test_*.py")
                 if p.parent.name in layout.FOLDERS and layout.folder_for(p) != p.parent.name}
    assert elsewhere == {}, "move the file, or add its name to PLACED in tests/support/layout.py"


def test_end_to_end_files_live_in_e2e() -> None:
    outside = [str(p.relative_to(TESTS)) for p in TESTS.glob("*/test_*.py")
               if p.parent.name != "e2e" and (p.name.endswith("_e2e.py") or "e2e" in layout._module_marks(p))]
    assert outside == []
    assert len(list((TESTS / "e2e").glob("test_*.py"))) >= 15


def test_the_mapping_places_new_files_and_refuses_an_unknown_name(tmp_path: Path) -> None:
    (tmp_path / "test_scrub_new_kind.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "test_low_risk_form_more.py").write_text("")
    (tmp_path / "test_sleep_cold.py").write_text("import pytest\n\npytestmark = [pytest.mark.e2e]\n")
    (tmp_path / "test_memory_trust_ask_more.py").write_text("")
    (tmp_path / "memctl_helper.py").write_text("")
    plan = layout.plan(tmp_path)
    assert plan == {"test_low_risk_form_more": "validator.test_low_risk_form_more",
                    "test_memory_trust_ask_more": "ask.test_memory_trust_ask_more",
                    "test_scrub_new_kind": "scrub.test_scrub_new_kind", "test_sleep_cold": "e2e.test_sleep_cold"}
    assert "memctl_helper" not in plan  # not a known helper: it stays, and the top-level check above fails on it
    (tmp_path / "test_zebra.py").write_text("")
    with pytest.raises(LookupError, match="test_zebra.py"):
        layout.plan(tmp_path)


def test_the_rewrite_points_imports_and_paths_at_the_new_places() -> None:
    moves = {"test_cli": "cli.test_cli", "crafted_codex": "support.crafted_codex", "test_scrub": "scrub.test_scrub"}
    source = ("from tests import crafted_codex as C, test_cli, fakes\n"
              "    from tests.test_cli import memctl  # noqa: F401\n"
              "run([sys.executable, '-m', 'tests.crafted_codex'])  # see tests/test_scrub.py, not tests/test_scrubber.py\n")
    assert layout.rewrite(source, moves) == (
        "from tests.support import crafted_codex as C\nfrom tests.cli import test_cli\nfrom tests import fakes\n"
        "    from tests.cli.test_cli import memctl  # noqa: F401\n"
        "run([sys.executable, '-m', 'tests.support.crafted_codex'])  # see tests/scrub/test_scrub.py, not tests/test_scrubber.py\n")
    assert layout.rewrite("pytest -q tests/test_cli.py\n", moves, paths=False) == "pytest -q tests/test_cli.py\n"


# -- lanes ------------------------------------------------------------------------------------------------

def test_the_markers_are_registered_and_xdist_is_pinned() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    names = {m.split(":")[0].split("(")[0] for m in config["tool"]["pytest"]["ini_options"]["markers"]}
    assert {"e2e", "slow", "serial", "spread", "xdist_group"} <= names
    assert "pytest-xdist" in config["project"]["optional-dependencies"]["test"]
    assert re.search(r"^pytest-xdist==\d", (REPO / "constraints.txt").read_text(), re.MULTILINE)
    script = (REPO / "test.sh").read_text()
    assert '--fast) LANE+=(-m "not e2e and not slow")' in script
    assert "LANE+=(-n 2 --dist loadgroup)" in script
    assert re.search(r"^PARALLEL_BY_DEFAULT=(yes|no)$", script, re.MULTILINE)


def _test_sh(tmp_path: Path, *args: str, cpus: int = 2, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a copy of test.sh with a stand-in ``.venv/bin/python`` (prints what pytest would get) and ``nproc``.

    Returns ``(exit status, pytest's arguments one per line, stderr)``; nothing is installed, linted or tested."""
    root = tmp_path / "repo"
    (root / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
    (root / "bin").mkdir(exist_ok=True)
    (root / "test.sh").write_text((REPO / "test.sh").read_text())
    for name in ("constraints.txt", "pyproject.toml"):
        (root / name).write_text("")
    os.utime(root / "constraints.txt", (1, 1))
    os.utime(root / "pyproject.toml", (1, 1))
    (root / ".venv" / ".installed-test").write_text("")
    python = root / ".venv" / "bin" / "python"
    python.write_text('#!/bin/sh\nif [ "$2" = pytest ]; then shift 2; for a in "$@"; do printf "%s\\n" "$a"; done; fi\n')
    (root / "bin" / "nproc").write_text(f"#!/bin/sh\necho {cpus}\n")
    for tool in (python, root / "bin" / "nproc"):
        tool.chmod(0o755)
    run_env = {k: v for k, v in os.environ.items() if k != "MEMCTL_TEST_PARALLEL"}
    run_env["PATH"] = f"{root / 'bin'}:{run_env['PATH']}"
    done = subprocess.run(["bash", str(root / "test.sh"), *args], env={**run_env, **(env or {})}, capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_the_lane_options_reach_pytest(tmp_path: Path) -> None:
    default_parallel = re.search(r"^PARALLEL_BY_DEFAULT=(yes|no)$", (REPO / "test.sh").read_text(), re.MULTILINE)[1]
    workers = "-n\n2\n--dist\nloadgroup\n"
    status, args, _ = _test_sh(tmp_path)
    assert status == 0 and (workers in args) == (default_parallel == "yes"), args
    assert _test_sh(tmp_path, "--parallel", "-q")[1] == workers + "-q\n"
    assert _test_sh(tmp_path, "--parallel", cpus=1)[1] == workers  # asked for: two workers even on one CPU
    fast = "-m\nnot e2e and not slow\n"
    assert _test_sh(tmp_path, "--fast", "--serial", "tests/x")[1] == fast + "tests/x\n"
    assert _test_sh(tmp_path, "--serial", "--fast")[1] == fast
    assert _test_sh(tmp_path, "--fast", "tests/x")[1] == fast + workers + "tests/x\n"  # two workers on 2 CPUs
    assert _test_sh(tmp_path, "--fast", cpus=1)[1] == fast  # never on one CPU
    assert _test_sh(tmp_path, "--fast", env={"MEMCTL_TEST_PARALLEL": "no"})[1] == fast
    assert _test_sh(tmp_path, env={"MEMCTL_TEST_PARALLEL": "yes"})[1] == workers
    assert _test_sh(tmp_path, env={"MEMCTL_TEST_PARALLEL": "yes"}, cpus=1)[1] == ""  # the default never on one CPU
    assert _test_sh(tmp_path, "--serial", env={"MEMCTL_TEST_PARALLEL": "yes"})[1] == ""
    assert _test_sh(tmp_path, env={"MEMCTL_TEST_PARALLEL": "no"})[1] == ""
    status, args, err = _test_sh(tmp_path, env={"MEMCTL_TEST_PARALLEL": "2"})
    assert status == 2 and args == "" and err.strip() == "test.sh: MEMCTL_TEST_PARALLEL must be yes or no, not '2'"


def test_every_slow_entry_names_a_test_that_exists() -> None:
    from tests.support.lanes import SLOW, is_slow

    for key in SLOW:
        path, _, test = key.partition("::")
        assert (REPO / path).is_file(), key
        assert not test or f"def {test}(" in (REPO / path).read_text(encoding="utf-8"), key
    assert is_slow("tests/cli/test_interrupt_phases.py::test_cognify_phase[ctrl-c]")
    assert is_slow("tests/cli/test_cli.py::test_not_a_database_and_foreign_schema")
    assert not is_slow("tests/cli/test_cli.py::test_not_a_database_and_foreign_schema_too")


def _project(tmp_path: Path) -> Path:
    """A small suite with the real lanes plugin and e2e conftest: a shared fixture, serial tests, an e2e folder."""
    root = tmp_path / "proj"
    (root / "e2e").mkdir(parents=True)
    (root / "conftest.py").write_text('pytest_plugins = ["tests.support.lanes"]\n')
    (root / "e2e" / "conftest.py").write_text((TESTS / "e2e" / "conftest.py").read_text())
    (root / "e2e" / "test_whole.py").write_text("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    (root / "test_unit.py").write_text(
        "import os\nimport pytest\n\n"
        "@pytest.fixture(scope='module')\ndef world():\n    return os.getpid()\n\n"
        "def record(group, name):\n"
        "    out = os.path.join(os.environ['LANES_OUT'], name)\n"
        "    open(out, 'w').write(group + ' ' + os.environ.get('PYTEST_XDIST_WORKER', 'main'))\n\n"
        + "".join(f"def test_shared_{n}(world):\n    record('shared', 'shared{n}')\n\n" for n in range(4))
        + "".join(f"@pytest.mark.serial\ndef test_serial_{n}():\n    record('serial', 'serial{n}')\n\n" for n in range(4))
        + "def test_free_0(monkeypatch):\n    monkeypatch.delenv('MEMCTL_TEST_TIMES', raising=False)\n\n"
        + "".join(f"def test_free_{n}():\n    pass\n\n" for n in range(1, 6)))
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    e2e: e2e\n    serial: serial\n    slow: slow\n")
    return root


def _pytest(root: Path, *args: str, times: Path | None = None) -> subprocess.CompletedProcess:
    (root / "out").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "LANES_OUT": str(root / "out")}
    env.pop("MEMCTL_TEST_TIMES", None)
    if times:
        env["MEMCTL_TEST_TIMES"] = str(times)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_fast_lane_leaves_out_every_test_of_the_e2e_folder(tmp_path: Path) -> None:
    root = _project(tmp_path)
    fast = _pytest(root, "-q", "-m", "not e2e and not slow", times=tmp_path / "times.tsv")
    assert fast.returncode == 0, fast.stdout[-2000:]
    assert "14 passed, 2 deselected" in fast.stdout
    rows = [line.split("\t") for line in (tmp_path / "times.tsv").read_text().splitlines()]
    assert len(rows) == 14 * 3 and {r[1] for r in rows} == {"setup", "call", "teardown"}  # the duration log
    assert all(float(r[2]) >= 0 and not r[0].startswith("e2e/") for r in rows)
    only = _pytest(root, "-q", "-m", "e2e")
    assert "2 passed, 14 deselected" in only.stdout


def test_parallel_workers_keep_serial_tests_and_a_module_fixture_in_one_worker(tmp_path: Path) -> None:
    root = _project(tmp_path)
    run = _pytest(root, "-n", "2", "--dist", "loadgroup", "-q", "test_unit.py")
    assert run.returncode == 0 and "14 passed" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
    records = [p.read_text().split() for p in sorted((root / "out").iterdir())]
    workers: dict[str, set[str]] = {}
    for group, worker in records:
        workers.setdefault(group, set()).add(worker)
    assert len(records) == 8 and all(worker.startswith("gw") for _, worker in records), records
    assert set(workers) == {"shared", "serial"} and all(len(w) == 1 for w in workers.values()), workers


def test_a_spread_module_is_not_held_in_one_worker_and_serial_still_is(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "conftest.py").write_text('pytest_plugins = ["tests.support.lanes"]\n')
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    serial: serial\n    spread: spread\n    slow: slow\n")
    fixture = "import pytest\n\n@pytest.fixture(scope='module')\ndef world():\n    return 1\n\n"
    group = "def _group(request):\n    mark = request.node.get_closest_marker('xdist_group')\n    return mark and mark.args[0]\n\n"
    (root / "test_spread.py").write_text(
        fixture + group + "pytestmark = pytest.mark.spread\n\n"
        "def test_spread(world, request):\n    assert _group(request) is None\n\n"
        "@pytest.mark.serial\ndef test_serial(world, request):\n    assert _group(request) == 'serial'\n")
    (root / "test_grouped.py").write_text(
        fixture + group + "def test_grouped(world, request):\n    assert _group(request) == 'test_grouped.py'\n")
    run = _pytest(root, "-q")
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout[-2000:]


def test_every_import_of_a_test_module_resolves() -> None:
    # A file merged after the move can still import a helper by its old flat name; inside a function that
    # fails only when the test runs (a test of the scrubber's gates did), so every import is resolved here.
    import ast
    import importlib.util

    missing = []
    for path in sorted([*REPO.joinpath("tests").rglob("*.py"), *REPO.joinpath("bench").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "tests":
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if node.module == "tests"]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split(".")[0] == "tests"]
            for name in names:
                if importlib.util.find_spec(name) is None:
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno} {name}")
    assert missing == []
